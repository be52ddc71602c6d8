"""The Kueue CRDs' structural schemas are package data (`kexplain/kueue/apis/data/schemas.json`)
and their CEL rules Python (`schema._RULES`): each rule set the data names must exist, and each
one written must be named, or a rule would silently stop being checked."""
from __future__ import annotations

import json
from importlib import resources
from typing import Any, Iterator

from kexplain.kueue.apis import schema


def _rule_names(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if "rules" in node:
            yield node["rules"]
        for key in ("properties",):
            for sub in (node.get(key) or {}).values():
                yield from _rule_names(sub)
        for key in ("values", "items"):
            yield from _rule_names(node.get(key))


def test_every_rule_set_named_in_the_data_is_written_and_every_one_written_is_named() -> None:
    raw = json.loads(resources.files("kexplain.kueue.apis").joinpath("data/schemas.json").read_text())
    named = {name for kind in raw.values() for name in _rule_names(kind)}
    assert named == set(schema._RULES)


def test_a_rule_of_the_data_is_checked() -> None:
    flavor = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "f"},
              "spec": {"topologyName": "t"}}
    checked = schema.s.check(flavor, schema.RESOURCE_FLAVOR)
    assert [e.detail for e in checked.errors] == ["at least one nodeLabel is required when topology is set"]
