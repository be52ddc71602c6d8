"""Pending pods that only their names tell apart, explained once (`kexplain pod --pending`).

Hundreds of pending pods are mostly copies: the replicas of a few workloads. Against one
unchanged cluster, two pending pods of one `kexplain.model.shapes.pending_key` get the same
verdict, search, scores, preemption dry run and suggestions: nothing the scheduler reads tells
them apart. So the first of each shape is explained and the others get its trace with their own
name (`renamed`). A pod whose identity the engine does read (a nominated node, resource claims,
generic ephemeral volumes) has no key: it is explained on its own.
"""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from kexplain.framework.trace import Trace
from kexplain.model.pod import PodInfo


def renamed(trace: Trace, first: PodInfo, pod: PodInfo) -> Trace:
    """`first`'s trace as `pod`'s: the pod named, and `first`'s name in the suggestions (the
    objects they change, their words) replaced by `pod`'s."""
    out = replace(trace, pod={"namespace": pod.namespace, "name": pod.name}, extra=dict(trace.extra))
    if "suggestions" in trace.extra:
        old = re.compile(r"(?<![\w.-])" + re.escape(first.key) + r"(?![\w.-])")     # not inside another name
        out.extra["suggestions"] = _rename(trace.extra["suggestions"], old, pod.key, first, pod.name)
    return out


def _rename(value: Any, old: re.Pattern[str], new_key: str, first: PodInfo, new_name: str) -> Any:
    if isinstance(value, str):
        return old.sub(new_key, value)
    if isinstance(value, list):
        return [_rename(v, old, new_key, first, new_name) for v in value]
    if isinstance(value, dict):
        out = {k: _rename(v, old, new_key, first, new_name) for k, v in value.items()}
        if out.get("kind") == "Pod" and (out.get("namespace"), out.get("name")) == (first.namespace, first.name):
            out["name"] = new_name
        return out
    return value
