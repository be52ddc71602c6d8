"""Pending pods that only their names tell apart (`pending_key`), explained once and renamed."""
from __future__ import annotations

import operator
import re
from dataclasses import replace
from typing import Any

from kexplain.framework.trace import Trace
from kexplain.model.pod import PodInfo


def renamed(trace: Trace, first: PodInfo, pod: PodInfo) -> Trace:
    """`first`'s trace as `pod`'s: the pod's name in place of `first`'s, suggestions included."""
    out = replace(trace, pod={"namespace": pod.namespace, "name": pod.name}, extra=dict(trace.extra))
    if "suggestions" in trace.extra:
        old = re.compile(r"(?<![\w.-])" + re.escape(first.key) + r"(?![\w.-])")     # not inside another name
        out.extra["suggestions"] = _rename(trace.extra["suggestions"], old, pod.key, first, pod.name)
    return out


def _rename(value: Any, old: re.Pattern[str], new_key: str, first: PodInfo, new_name: str) -> Any:
    """`value` with `first` renamed; a part that does not name it is the very same object (no
    copy: a trace is read only once made, and the pods of a shape share what does not name them)."""
    if isinstance(value, str):
        return old.sub(new_key, value) if first.key in value else value
    if isinstance(value, list):
        if _strings_without(value, first.key):     # (a suggestion's node lists: thousands of names)
            return value
        items = [_rename(v, old, new_key, first, new_name) for v in value]
        return value if all(map(operator.is_, items, value)) else items
    if isinstance(value, dict):
        out = {k: _rename(v, old, new_key, first, new_name) for k, v in value.items()}
        if out.get("kind") == "Pod" and (out.get("namespace"), out.get("name")) == (first.namespace, first.name):
            out["name"] = new_name
            return out
        return value if all(map(operator.is_, out.values(), value.values())) else out
    return value


def _strings_without(values: list, key: str) -> bool:
    """Every element a string and none with `key` in it (tested in one pass over their join;
    False when unsure: the elements are then looked at one by one)."""
    try:
        joined = "\0".join(values)
    except TypeError:               # not all strings
        return False
    return key not in joined
