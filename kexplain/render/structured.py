"""Structured output: a trace (or a list of them) as JSON or YAML (`-o json`, `-o yaml`), and
the objects a snapshot saves (a `kind: List`, as `kubectl get -o json` writes one).

The documents are written as they are: the trace's keys are the contract (README), so
nothing here reorders or drops them.
"""
from __future__ import annotations

import json
from typing import Any, TextIO

import yaml

FORMATS = ("json", "yaml")
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def dumps(doc: Any, fmt: str) -> str:
    """`doc` as `fmt` (json: indented by 2; yaml: keys in the document's order)."""
    if fmt == "json":
        return json.dumps(doc, indent=2) + "\n"
    if fmt == "yaml":
        return yaml.safe_dump(doc, sort_keys=False)
    raise ValueError(f"not a structured format: {fmt}")


def write(out: TextIO, doc: Any, fmt: str) -> None:
    out.write(dumps(doc, fmt))


def objects_text(objects: list[dict[str, Any]], *, as_yaml: bool, single: bool = False) -> str:
    """Objects to save and read again: one object, or a `v1 List` of them; YAML, or JSON with
    one object per line (a snapshot of a large cluster stays diffable and quick to write)."""
    doc: Any = objects[0] if single else {"apiVersion": "v1", "kind": "List", "metadata": {}, "items": objects}
    if as_yaml:
        return yaml.dump(doc, Dumper=_DUMPER, sort_keys=False, allow_unicode=True)
    if single:
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    lines = ",\n".join(json.dumps(o, separators=(",", ":"), ensure_ascii=False) for o in objects)
    return f'{{"apiVersion":"v1","kind":"List","metadata":{{}},"items":[\n{lines}\n]}}\n'
