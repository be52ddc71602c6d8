"""Lint's static tables (kube-openapi's validation messages), kept as data in tables.json (package
data) so that the modules hold code; read once. (The rules are their modules' declarations: the
registry, `lint.rules`.)"""
from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any


@functools.lru_cache(maxsize=1)
def _all() -> dict[str, Any]:
    return json.loads(resources.files(__package__).joinpath("tables.json").read_text(encoding="utf-8"))


def table(name: str) -> Any:
    """One table of tables.json: `kubeOpenapiMessages`."""
    return _all()[name]
