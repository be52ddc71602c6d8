"""Safe, bounded parsing of YAML and JSON text.

Only safe loading (the C loader when PyYAML has it). Inputs over a size limit are
refused before parsing, and documents whose aliases would expand past a node limit
(a "billion laughs" bomb) are refused after parsing without ever expanding them.
"""
from __future__ import annotations

import json
from typing import Any, Iterator

import yaml

from ..errors import InputError, Source

try:  # pragma: no cover - depends on how PyYAML was built
    SafeLoader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    SafeLoader = yaml.SafeLoader

DEFAULT_MAX_BYTES = 1 << 30          # 1 GiB: a 5,000-node snapshot is about 90 MB
MAX_EXPANDED_NODES = 20_000_000      # after alias expansion, per document


def expanded_size(root: Any, limit: int) -> int:
    """Number of values the document would have with every alias expanded, computed over
    shared objects once (so a bomb is measured, not expanded); stops past `limit`."""
    sizes: dict[int, int] = {}
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        obj, children_done = stack.pop()
        if not isinstance(obj, (dict, list)):
            continue
        oid = id(obj)
        if oid in sizes and not children_done:
            continue
        items = obj.values() if isinstance(obj, dict) else obj
        if children_done:
            total = 1
            for child in items:
                total += sizes.get(id(child), 1) if isinstance(child, (dict, list)) else 1
                if total > limit:
                    return total
            sizes[oid] = total
        else:
            sizes[oid] = -1  # in progress: a cycle counts once
            stack.append((obj, True))
            stack.extend((child, False) for child in items if isinstance(child, (dict, list)))
    return sizes.get(id(root), 1)


def parse_documents(text: str, source_path: str) -> Iterator[tuple[Any, Source]]:
    """Each document of a YAML (or JSON) text with its 1-based document number."""
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        try:
            yield json.loads(text), Source(source_path, 1)
            return
        except json.JSONDecodeError:
            pass  # not plain JSON: YAML flow style, let YAML report it
    may_alias = "*" in text
    try:
        for i, doc in enumerate(yaml.load_all(text, Loader=SafeLoader), start=1):
            if may_alias and isinstance(doc, (dict, list)):
                if expanded_size(doc, MAX_EXPANDED_NODES) > MAX_EXPANDED_NODES:
                    raise InputError(f"YAML aliases expand to more than {MAX_EXPANDED_NODES:,} values "
                                     "(an alias bomb?); refusing to read it", source=Source(source_path, i))
            yield doc, Source(source_path, i)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        raise InputError(f"invalid YAML: {where}{problem}", source=Source(source_path)) from None
    except RecursionError:
        raise InputError("document is nested too deeply", source=Source(source_path)) from None
