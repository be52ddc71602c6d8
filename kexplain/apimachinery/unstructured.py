"""Unstructured objects as k8s.io/apimachinery reads them: what a list object is and which objects it
holds (a typed list's items take its kind and apiVersion, as UnstructuredList decodes), so the file
loader, lint and admission agree on what a list holds.
"""
from __future__ import annotations

import copy
from typing import Any, Iterator

from kexplain.apimachinery.columns import DumpItems, Rows
from kexplain.errors import InputError, Source


def copy_json(value: object) -> object:
    """Deep copy of YAML/JSON data (dicts, lists, scalars); much faster than copy.deepcopy
    (runtime.DeepCopyJSONValue)."""
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_json(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return copy.deepcopy(value)


def type_name(value: Any) -> str:
    """A decoded value's JSON type, in the words of an error message."""
    return {list: "list", str: "string", int: "number", float: "number", bool: "boolean"}.get(
        type(value), type(value).__name__)


def json_type(value: Any, *, integral_floats: bool = False) -> str:
    """A value's JSON type as OpenAPI validation names it; `integral_floats`: 3.0 is an integer too, as
    custom resources' validation takes it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (integral_floats and isinstance(value, float) and value.is_integer()):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


NOT_AN_OBJECT = ("not a Kubernetes object: no apiVersion and no kind (a kustomization.yaml, Helm values, "
                 "another tool's file?)")
NOT_AN_OBJECT_NO_METADATA = ("not a Kubernetes object: no kind and no metadata (a Helm Chart.yaml, another tool's "
                             "file?)")


def not_an_object(obj: dict[str, Any]) -> str | None:
    """Why a mapping is another tool's file rather than an object missing a field (`NOT_AN_OBJECT`, a Helm
    Chart.yaml); None for anything else."""
    if "kind" in obj:
        return None
    if "apiVersion" not in obj:
        return NOT_AN_OBJECT
    return NOT_AN_OBJECT_NO_METADATA if "metadata" not in obj else None


def kind_problem(obj: dict[str, Any]) -> str | None:
    """Why `obj` has no kind an object can have (none, or not a string); None when it has one."""
    kind = obj.get("kind")
    if kind is None or kind == "":
        return "object has no kind"
    if not isinstance(kind, str):
        return f"must be a string, not a {type_name(kind)}"
    return None


def is_list(obj: Any) -> bool:
    """Whether `obj` is a list object: `kind: List`, or a typed list with an items array."""
    if not isinstance(obj, dict):
        return False
    kind = obj.get("kind")
    return kind == "List" or (isinstance(kind, str) and kind.endswith("List") and isinstance(obj.get("items"), list))


def list_items(obj: dict[str, Any], source: Source, where: str = "") -> list[Any]:
    """A copy of the list's items, a typed list's kind (and apiVersion) given to items naming none, as
    UnstructuredList decodes; a List without items is refused at `where`."""
    kind, items = obj["kind"], obj.get("items")
    if not isinstance(items, list):
        raise InputError("a List needs an items array", source=source, obj=obj, field=f"{where}items")
    if kind == "List":
        return items
    out: list[Any] = []
    for item in items:
        if isinstance(item, dict) and not item.get("kind"):
            item = {**item, "kind": kind[:-4]}
            if not item.get("apiVersion") and obj.get("apiVersion"):
                item["apiVersion"] = obj["apiVersion"]
        out.append(item)
    return out


def flatten_lists(obj: dict[str, Any], source: Source) -> Iterator[tuple[dict[str, Any], str]]:
    """`obj`, or the objects its (nested) lists hold, in order, with their field path prefix; iterative so
    no nesting exhausts the stack; a non-object item is refused."""
    stack: list[tuple[dict[str, Any], str]] = [(obj, "")]
    while stack:
        current, where = stack.pop()
        if not is_list(current):
            yield current, where
            continue
        unwrapped = []
        for i, item in enumerate(list_items(current, source, where)):
            field = f"{where}items[{i}]"
            if not isinstance(item, dict):
                raise InputError("list item is not a Kubernetes object (a mapping)", source=source, field=field)
            problem = kind_problem(item)
            if problem is not None:
                raise InputError(problem, source=source, obj=item, field=f"{field}.kind")
            unwrapped.append((item, f"{field}."))
        stack.extend(reversed(unwrapped))


def plain_items(obj: Any) -> tuple[list[dict[str, Any]], Rows] | None:
    """A dump List's items with their `Rows`, read in one pass, when each is an object and not a list;
    None otherwise."""
    if type(obj) is not dict or obj.get("kind") != "List":
        return None
    items = obj.get("items")
    if type(items) is DumpItems:        # (checked, and their rows read, as they were decoded)
        return list(items), items.rows
    if type(items) is not list:
        return None
    rows = item_rows(items)
    return (list(items), rows) if rows is not None else None


def item_rows(items: list[Any]) -> Rows | None:
    """The `Rows` of a List's items, when every one is an object (a mapping, or a dump's
    `StoredPod`) that names a kind and is not a list itself; None otherwise."""
    return Rows.read(items)
