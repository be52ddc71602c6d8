"""Lint's static tables (its rules; kube-openapi's validation messages), kept as data in
tables.json (package data) so that the modules hold code; read once."""
from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any


@functools.lru_cache(maxsize=1)
def _all() -> dict[str, Any]:
    return json.loads(resources.files(__package__).joinpath("tables.json").read_text(encoding="utf-8"))


def table(name: str) -> Any:
    """One table of tables.json: `rules` (id, severity, summary, in order), `kubeOpenapiMessages`."""
    return _all()[name]
