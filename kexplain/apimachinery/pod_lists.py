"""A dump's List and a live list's page of pods read with their bound pods as views
(`stored_pods.StoredPod`): the JSON text decoded in C, each item kept as its text until it is
read, and the items' `Rows` read in the same pass.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

import msgspec
from msgspec import Raw, Struct

from kexplain.apimachinery.columns import DumpItems
from kexplain.apimachinery.stored_pods import PodView, StoredPod, decode_view, whole
from kexplain.apimachinery.unstructured import item_rows

_NO_TEXT = Raw(b"")      # a field the list does not have


class _List(Struct, forbid_unknown_fields=True):
    """A dump's List or a page of a live list: its items as texts (any other field, and it is
    read as it is)."""

    items: list[Raw]
    apiVersion: Raw = _NO_TEXT
    kind: Raw = _NO_TEXT
    metadata: Raw = _NO_TEXT


_list = msgspec.json.Decoder(_List).decode


def dump_list(data: bytes | memoryview) -> dict[str, Any] | None:
    """A `kind: List` dump's value, as `json.loads` gives it but with bound pods as `StoredPod`s and items
    as a `DumpItems`; None for anything else."""
    top = _read_list(data, b'"List"', listed=False)
    items = dump_items(dump_objects(top.items)) if top is not None else None
    return _value(top, "List", items) if items is not None else None


def _read_list(data: bytes | memoryview, kind: bytes, listed: bool) -> _List | None:
    """The list of `kind` (its JSON text) that `data` is, its items as texts, when they hold a
    pod bound to a node (`_has_bound_pods`); None for anything else."""
    if not (data.isascii() if isinstance(data, bytes) else bytes(data).isascii()):
        return None         # (a string the decoder skips is not checked for UTF-8: read whole)
    try:
        top = _list(data)
    except msgspec.DecodeError:
        return None
    return top if bytes(top.kind) == kind and _has_bound_pods(top.items, listed) else None


def _value(top: _List, kind: str, items: list[Any]) -> dict[str, Any]:
    """The list's value with `items`, its fields in the order the API server and kubectl write
    them (nothing reads a list's own fields but its items)."""
    out: dict[str, Any] = {"apiVersion": whole(top.apiVersion)} if top.apiVersion else {}
    out["items"] = items
    out["kind"] = kind
    if top.metadata:
        out["metadata"] = whole(top.metadata)
    return out


PROBES = 64             # items looked at for bound pods before a dump is read with views


def _has_bound_pods(raws: list[Raw], listed: bool = False) -> bool:
    """Whether items spread over the dump (`PROBES`) hold a bound pod: else views would be decoded for nothing."""
    step = max(1, len(raws) // PROBES)
    kind = None if listed else "Pod"
    for raw in raws[step // 2::step]:
        try:
            pod = decode_view(raw)
        except msgspec.ValidationError:
            continue
        if pod.kind == kind and pod.metadata is not None and pod.spec is not None and pod.spec.nodeName:
            return True
    return False


UNBOUND_RUN = 32        # pods in a row not bound to a node: pending pods, read whole from there


def pod_list(data: bytes, listed: Callable[[Any], Any]) -> dict[str, Any] | None:
    """A live `PodList` page's value with its items as `listed` makes them, bound ones as `StoredPod`s;
    None when it is not such a page."""
    page = _read_list(data, b'"PodList"', listed=True)
    if page is None:
        return None
    items: list[Any] = []
    for raw, pod in zip(page.items, _bound_views(page.items, listed=True)):
        if pod is not None:
            pod.kind, pod.apiVersion = "Pod", "v1"
            items.append(StoredPod(raw, pod, listed))
            continue
        item = whole(raw)
        if type(item) is not dict:
            return None
        items.append(listed(item))
    return _value(page, "PodList", items)


def _bound_views(raws: list[Raw], listed: bool = False) -> list[PodView | None]:
    """Each item's view when it is a bound `v1` Pod, else None; past `UNBOUND_RUN` unbound pods in a row,
    views are no longer tried."""
    kind, api_version = (None, None) if listed else ("Pod", "v1")
    unbound = 0
    views: list[PodView | None] = []
    for raw in raws:
        pod = None
        if unbound < UNBOUND_RUN:
            try:
                pod = decode_view(raw)
            except msgspec.ValidationError:
                pass
        if pod is not None and pod.kind == kind and pod.apiVersion == api_version and pod.metadata is not None:
            if pod.spec is None or not pod.spec.nodeName:
                unbound += 1
                pod = None
            else:
                unbound = 0
        else:
            pod = None
        views.append(pod)
    return views


def dump_objects(raws: list[Raw], kept: Callable[[PodView], PodView | None] | None = None,
                 texts: Iterable[Raw] | None = None, other: Callable[[Raw], Any] = whole) -> list[Any]:
    """A dump's items: bound pods as `StoredPod`s (their view passed through `kept`), others as `other`
    makes them; `texts`: the text each pod keeps, when not the one read."""
    if kept is None and texts is None:
        return [StoredPod(raw, pod) if pod is not None else other(raw) for raw, pod in zip(raws, _bound_views(raws))]
    out: list[Any] = []
    for text, raw, pod in zip(texts if texts is not None else raws, raws, _bound_views(raws)):
        if pod is not None and kept is not None:
            pod = kept(pod)
        out.append(StoredPod(text, pod) if pod is not None else other(raw))
    return out


def dump_items(items: list[Any]) -> DumpItems | None:
    """`items` (`dump_objects`) with their rows; None when an item is not an object with a
    kind, or is a list itself (`unstructured.item_rows` says no)."""
    rows = item_rows(items)
    return DumpItems(items, rows) if rows is not None else None
