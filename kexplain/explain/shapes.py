"""Pending pods that only their names tell apart, explained once (`kexplain pod --pending`).

Hundreds of pending pods are mostly copies: the replicas of a few workloads. Against one
unchanged cluster, two pending pods whose metadata (their identity aside), spec and scheduling
status are equal get the same verdict, search, scores, preemption dry run and suggestions:
nothing the scheduler reads tells them apart. So the first of each shape is explained and the
others get its trace with their own name (`renamed`).

The identity the engine does read keeps a pod to itself: a pod with a nominated node (it is
among the nominated pods, and only its own entry is skipped) and a pod with resource claims (a
claim's `reservedFor` names pods by uid) are never shared (`shape_of` is None).
"""
from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

from kexplain.framework.trace import Trace
from kexplain.model.pod import PodInfo

# Metadata that names one pod and decides nothing about where it goes.
IDENTITY = frozenset({"name", "uid", "creationTimestamp", "resourceVersion", "managedFields", "generation",
                      "selfLink"})


def shape_of(pod: PodInfo) -> str | None:
    """What the pending pod's verdict depends on besides the cluster, as one string; None for a
    pod that must be explained on its own."""
    if pod.status.get("nominatedNodeName") or pod.spec.get("resourceClaims"):
        return None
    meta = {k: v for k, v in pod.metadata.items() if k not in IDENTITY}
    return json.dumps({"metadata": meta, "spec": pod.spec}, sort_keys=True, default=str)


def renamed(trace: Trace, first: PodInfo, pod: PodInfo) -> Trace:
    """`first`'s trace as `pod`'s: the pod named, and `first`'s name in the suggestions (the
    objects they change, their words) replaced by `pod`'s."""
    out = replace(trace, pod={"namespace": pod.namespace, "name": pod.name}, extra=dict(trace.extra))
    if "suggestions" in trace.extra:
        old = re.compile(re.escape(first.key) + r"(?![\w.-])")
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
