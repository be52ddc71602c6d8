"""CA's pod equivalence groups (core/scaleup/equivalence): pods CA treats alike in the scale-up.

A pod without a controller ownerReference, or a DaemonSet's pod, is a group of its own. Other
pods join the group of an earlier pod with the same controller (by uid), equal labels and a
semantically equal spec (`spec_key`: the spec without projected volumes and their mounts, the
hostname and the containers' env; quantities by value; empty and absent alike), matched against
at most 10 groups per controller. Groups come in order of their first pod.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable

from kexplain.autoscaler.identity_memo import remembered
from kexplain.autoscaler.podutil import controller_ref, is_daemonset_pod
from kexplain.model.pod import PodInfo
from kexplain.apimachinery.quantity import QuantityError, parse_quantity


MAX_GROUPS_PER_CONTROLLER = 10
_QUANTITY_MAPS = frozenset({"requests", "limits", "overhead", "capacity"})


@dataclass
class PodGroup:
    """One equivalence group and what the scale-up found for it (equivalence.PodGroup)."""

    index: int                                   # the document's equivalenceClass
    pods: list[PodInfo]
    scheduling_errors: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)  # group -> (plugin, reasons)
    schedulable_groups: list[str] = field(default_factory=list)
    schedulable: bool = False


def spec_key(pod: PodInfo) -> str:
    """The pod's spec as utils.PodSpecSemanticallyEqual compares it, as one string; made once per spec
    object (FilterOutSchedulable and the scale-up's groups ask it of each pod, in each loop)."""
    spec = pod.spec
    return remembered(_SPEC_KEYS, spec, _SPEC_KEYS_KEPT, _spec_key, spec)


# a pod's spec (by id, kept alive so no id is reused) -> its `spec_key`: a bounded cache
_SPEC_KEYS: dict[int, tuple[Any, str]] = {}
_SPEC_KEYS_KEPT = 4096


def _spec_key(given: Any) -> str:
    spec = dict(given)
    projected = {v.get("name") for v in spec.get("volumes") or () if isinstance(v, dict) and v.get("projected")}
    spec["volumes"] = [v for v in spec.get("volumes") or () if not (isinstance(v, dict) and v.get("projected"))]
    spec.pop("hostname", None)
    for kind in ("containers", "initContainers"):
        containers = []
        for c in spec.get(kind) or ():
            c = dict(c)
            c.pop("env", None)
            c["volumeMounts"] = [m for m in c.get("volumeMounts") or () if m.get("name") not in projected]
            containers.append(c)
        spec[kind] = containers
    return json.dumps(_canonical(spec), sort_keys=True, separators=(",", ":"))


def _canonical(value: Any, key: str = "") -> Any:
    """Empty and absent alike (Go's zero values and nil collections), quantities by value."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            c = _canonical(v, k)
            if c not in (None, "", [], {}, False):
                out[k] = c
        if key in _QUANTITY_MAPS:
            out = {k: _quantity(v) for k, v in out.items()}
        return out
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    return value


def _quantity(value: Any) -> Any:
    try:
        q = parse_quantity(value)
    except (QuantityError, ValueError, TypeError):
        return value
    return f"{q.numerator}/{q.denominator}"


def build_pod_groups(pods: Iterable[PodInfo]) -> list[PodGroup]:
    """The equivalence groups of `pods`, in order of their first member (BuildPodGroups)."""
    groups: list[PodGroup] = []
    by_controller: dict[str, list[tuple[int, dict[str, str], str]]] = {}
    for pod in pods:
        ref = controller_ref(pod)
        if ref is None or is_daemonset_pod(pod):
            groups.append(PodGroup(len(groups), [pod]))
            continue
        uid = str(ref.get("uid") or "")
        known = by_controller.setdefault(uid, [])
        key = spec_key(pod)
        match = next((gid for gid, labels, k in known if labels == pod.labels and k == key), None)
        if match is not None:
            groups[match].pods.append(pod)
            continue
        if len(known) < MAX_GROUPS_PER_CONTROLLER:
            known.append((len(groups), pod.labels, key))
        groups.append(PodGroup(len(groups), [pod]))
    return groups
