"""Karpenter's and Kueue's CRD schemas are package data (`apis/data/*.json`) and their CEL rules
Python: each rule set a file names must be written, each one written named (or a rule would
silently stop being checked), and a build of the package must carry the files."""
from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any, Iterator

import pytest

from kexplain.karpenter.apis import ec2nodeclass, nodepool
from kexplain.karpenter.apis.nodeclaim import spec_rules

ROOT = Path(__file__).resolve().parents[2]


def _rule_names(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if "rules" in node:
            yield node["rules"]
        for sub in (node.get("properties") or {}).values():
            yield from _rule_names(sub)
        for key in ("values", "items"):
            yield from _rule_names(node.get(key))


def _named(name: str) -> set[str]:
    raw = json.loads(resources.files("kexplain.karpenter.apis").joinpath(f"data/{name}.json").read_text())
    return {rule for kind in raw.values() for rule in _rule_names(kind)}


@pytest.mark.parametrize("name, rules", [
    ("nodeclaim", spec_rules("NodeClaim.spec", node_pool=False)),
    ("nodepool", nodepool._RULES),
    ("ec2nodeclass", ec2nodeclass._RULES),
])
def test_every_rule_set_named_in_the_data_is_written_and_every_one_written_is_named(name: str, rules: dict) -> None:
    assert _named(name) == set(rules)


def test_a_build_of_the_package_carries_the_schema_files(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-c", "import setuptools; setuptools.setup()", "-q", "build_py",
                    "--build-lib", str(tmp_path)], cwd=ROOT, check=True, capture_output=True)
    for package in ("karpenter", "kueue"):
        source = sorted(p.name for p in (ROOT / "kexplain" / package / "apis" / "data").glob("*.json"))
        built = sorted(p.name for p in (tmp_path / "kexplain" / package / "apis" / "data").glob("*.json"))
        assert source and built == source
