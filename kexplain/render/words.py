"""The renderers' word tables (a result document's codes in words), kept as data in words.json
(package data) so that the modules hold code; read once."""
from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any


@functools.lru_cache(maxsize=1)
def _all() -> dict[str, dict[str, Any]]:
    return json.loads(resources.files(__package__).joinpath("words.json").read_text(encoding="utf-8"))


def tables(section: str, *names: str) -> tuple[dict[str, str], ...]:
    """The named tables of a renderer's section of words.json, in the order asked."""
    return tuple(_all()[section][n] for n in names)
