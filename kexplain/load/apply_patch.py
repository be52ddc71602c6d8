"""`kubectl apply` onto an object that exists: the object the API server is left with.

kubectl sends a three-way patch (CreateThreeWayMergePatch of the manifest, the live object and the
last-applied annotation): a strategic merge patch for a built-in kind, a JSON merge patch otherwise.
`patched` computes its result directly. The merge rules: docs/internals/load.md.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from kexplain.admission.openapi import builtin_index
from kexplain.admission.validate_update import stored_update, update_refusal
from kexplain.apimachinery.stored_pods import plain
from kexplain.errors import AdmissionRejected, Source, is_builtin_api
from kexplain.features import DEFAULT as DEFAULT_VERSION, KubeVersion

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
_ANNOTATION = object()      # `patched`'s default original: the live object's last-applied annotation

Schema = dict[str, Any]


def last_applied(live: Any) -> dict[str, Any] | None:
    """The manifest kubectl applied last to `live` (its annotation, parsed), or None."""
    meta = live.get("metadata") if isinstance(live, dict) else None
    notes = meta.get("annotations") if isinstance(meta, dict) else None
    text = notes.get(LAST_APPLIED) if isinstance(notes, dict) else None
    if not isinstance(text, str):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def patched(live: Any, manifest: dict[str, Any], original: Any = _ANNOTATION,
            kube: KubeVersion = DEFAULT_VERSION) -> dict[str, Any]:
    """`live` as `kubectl apply` of `manifest` leaves it; `original`: the last-applied manifest (default:
    `live`'s annotation; None: none). Neither is changed; unchanged parts are shared."""
    live = plain(live)
    if original is _ANNOTATION:
        original = last_applied(live)
    return _Merge(_schemas(manifest, kube)).map(original if isinstance(original, dict) else None, manifest, live,
                                                 None)


@dataclass(frozen=True)
class Update:
    """What applying a manifest onto an object the cluster has leaves: the object (the live one,
    when the API server refuses the update), and the refusal, in its words, on the manifest."""

    applied: tuple[dict[str, Any], Source]
    refused: AdmissionRejected | None = None


def apply_onto(live: tuple[Any, Source], manifest: tuple[dict[str, Any], Source], *,
               original: Any = _ANNOTATION, kube: KubeVersion = DEFAULT_VERSION) -> Update:
    """`kubectl apply` of `manifest` onto `live`: the patched object as the API server stores it
    (`validate_update.stored_update`: the values it allocated kept), unless the update is refused
    (`validate_update.update_refusal`) or changes nothing: then `live` stands."""
    obj, src = manifest
    current = plain(live[0])        # (a dump's stored pod: its object)
    if alike(current, obj):
        return Update(live)
    result = patched(current, obj, original, kube)
    why = update_refusal(result, current, kube)
    if why is not None:
        return Update(live, AdmissionRejected(why, source=src, obj=obj))
    return Update((stored_update(result, current), src))


def _schemas(manifest: dict[str, Any], kube: KubeVersion) -> "Callable[[Any], Schema] | None":
    """How to resolve the definitions of a built-in kind's fields, with its root definition
    (None: a custom resource, merged as a JSON merge patch merges)."""
    api_version, kind = manifest.get("apiVersion"), manifest.get("kind")
    if not isinstance(api_version, str) or not is_builtin_api(api_version):
        return None
    index = builtin_index(kube.minor)
    root = index.kind_schema(api_version, kind)
    if root is None:
        return None
    return lambda schema: index.resolved(root if schema is None else schema)


class _Merge:
    """One merge: the definitions of a built-in kind (`resolve`), or none (JSON merge patch)."""

    def __init__(self, resolve: "Callable[[Any], Schema] | None") -> None:
        self.resolve = resolve

    def _field(self, schema: Schema | None, key: str) -> Schema | None:
        """The (unresolved) schema of field `key` of an object whose resolved schema is `schema`:
        a property, or the values of a map."""
        if self.resolve is None:
            return None
        node = self.resolve(schema)
        props = node.get("properties")
        if isinstance(props, dict) and key in props:
            return props[key]
        extra = node.get("additionalProperties")
        return extra if isinstance(extra, dict) else {}

    def map(self, original: dict | None, manifest: dict, live: Any, schema: Schema | None,
            retain: bool = False) -> dict:
        out = dict(live) if isinstance(live, dict) else {}
        for key, value in manifest.items():
            if key.startswith("$"):         # a patch directive written in a manifest: not ours to read
                continue
            if value is None:
                out.pop(key, None)
                continue
            before = original.get(key) if original is not None else None
            out[key] = self.value(before, value, out.get(key), self._field(schema, key))
        if original is not None:
            for key in original:
                if key not in manifest:
                    out.pop(key, None)
        if retain:
            out = {k: v for k, v in out.items() if manifest.get(k) is not None}
        return out

    def value(self, original: Any, manifest: Any, live: Any, field: Schema | None) -> Any:
        strategies = _strategies(field)
        if isinstance(manifest, dict):
            if not isinstance(live, dict) or "replace" in strategies:
                return _without_nulls(manifest)
            return self.map(original if isinstance(original, dict) else None, manifest, live, field,
                            retain="retainKeys" in strategies)
        if isinstance(manifest, list) and isinstance(live, list) and "merge" in strategies:
            items = self.resolve(field).get("items") if self.resolve is not None else None
            key = field.get("x-kubernetes-patch-merge-key") if field else None
            merged = self._list(original if isinstance(original, list) else [], manifest, live,
                                key if isinstance(key, str) else None, items, "retainKeys" in strategies)
            if merged is not None:
                return merged
        return manifest

    def _list(self, original: list, manifest: list, live: list, key: str | None, items: Any,
              retain: bool) -> list | None:
        """A list merged as strategicpatch merges it: by `key` for a list of objects, as a set for
        a list of values; None when the items do not allow it (then the manifest's list stands)."""
        if key is None:
            if not all(_scalar(v) for v in (*manifest, *live, *original)):
                return None
            named = list(dict.fromkeys(manifest))
            gone = set(original) - set(named)
            kept = [v for v in dict.fromkeys(live) if v not in set(named) and v not in gone]
            return _interleave(kept, named, live, lambda v: v)
        if not all(isinstance(v, dict) and _scalar(v.get(key)) and v.get(key) is not None
                   for v in (*manifest, *live)):
            return None
        by_key = {}
        for item in live:
            by_key.setdefault(item[key], item)
        before = {v.get(key): v for v in original if isinstance(v, dict)}
        named = [item[key] for item in manifest]
        gone = set(before) - set(named)
        patch = []
        for item in manifest:
            current = by_key.get(item[key])
            if current is None:
                patch.append(_without_nulls(item))
            else:
                patch.append(self.map(before.get(item[key]), item, current, items, retain))
        kept = [item for k, item in by_key.items() if k not in set(named) and k not in gone]
        return _interleave(kept, patch, live, lambda v: v[key])


def _strategies(field: Schema | None) -> frozenset[str]:
    text = field.get("x-kubernetes-patch-strategy") if field else None
    return frozenset(text.split(",")) if isinstance(text, str) else frozenset()


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _without_nulls(value: Any) -> Any:
    """A value the patch adds whole, as the API server stores it: a null in a map deletes its key."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def _interleave(kept: list, patch: list, live: Iterable[Any], key: Callable[[Any], Any]) -> list:
    """The live items the manifest does not name placed among the manifest's by the live order
    (mergeSortedSlice)."""
    order: dict[Any, int] = {}
    for i, item in enumerate(live):
        order.setdefault(key(item), i)
    out: list = []
    i = j = 0
    while i < len(kept) or j < len(patch):
        if j >= len(patch):
            out.append(kept[i])
            i += 1
        elif i >= len(kept):
            out.append(patch[j])
            j += 1
        else:
            left, right = order.get(key(kept[i])), order.get(key(patch[j]))
            if left is not None and right is not None and left < right:
                out.append(kept[i])
                i += 1
            else:
                out.append(patch[j])
                j += 1
    return out


def alike(a: Any, b: Any) -> bool:
    """Equal, and of the same types all the way down (`true` is not `1`, `1` is not `"1"`)."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if type(x) is dict:
            if len(x) != len(y) or any(k not in y for k in x):
                return False
            stack.extend((v, y[k]) for k, v in x.items())
        elif type(x) is list:
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y))
        elif x != y:
            return False
    return True
