"""Priority admission: resolve a pod's PriorityClass into spec.priority and preemptionPolicy.

The scheduler never reads priorityClassName, only the integer and the policy
this plugin writes; a pod that names a missing class never exists at all.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from kexplain.apimachinery.fielderrors import forbidden_message

PREEMPT_LOWER = "PreemptLowerPriority"
SYSTEM_CLASSES = (("system-node-critical", 2000001000), ("system-cluster-critical", 2000000000))


class PriorityRejected(Exception):
    """The API server's Forbidden text for this object."""


@dataclass(frozen=True)
class PriorityClassInfo:
    name: str
    value: int
    preemption_policy: str
    global_default: bool


def builtin_class(name: str, value: int) -> dict:
    """A system PriorityClass as the API server creates it at startup."""
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
        "globalDefault": False,
        "preemptionPolicy": PREEMPT_LOWER,
        "description": "Used for system critical pods that must run in the cluster, but can be moved "
                       "to another node if necessary." if name == "system-cluster-critical" else
                       "Used for system critical pods that must not be moved from their current node.",
    }


def class_info(pc: dict) -> PriorityClassInfo:
    return PriorityClassInfo(
        name=(pc.get("metadata") or {}).get("name") or "",
        value=int(pc.get("value") or 0),
        preemption_policy=pc.get("preemptionPolicy") or PREEMPT_LOWER,
        global_default=bool(pc.get("globalDefault")),
    )


@dataclass(frozen=True)
class Classes:
    """The PriorityClasses the plugin looks up for a pod: a cluster's, the API server's built-in
    system classes beside them, and the global default."""

    by_name: Mapping[str, PriorityClassInfo] = field(default_factory=dict)
    default: PriorityClassInfo | None = None


def classes_of(objects: Iterable[Mapping[str, Any]]) -> Classes:
    """The Classes of a cluster's objects (its PriorityClasses; the system ones the API server
    creates at startup where the cluster does not hold them)."""
    by_name = {name: class_info(builtin_class(name, value)) for name, value in SYSTEM_CLASSES}
    default = None
    for obj in objects:
        if obj.get("kind") == "PriorityClass":
            info = class_info(dict(obj))
            by_name[info.name] = info
            if info.global_default:
                default = info
    return Classes(by_name, default)


def check_global_default(pc: dict, existing_default: PriorityClassInfo | None) -> None:
    """A second globalDefault class is refused."""
    info = class_info(pc)
    if info.global_default and existing_default is not None:
        raise PriorityRejected(forbidden_message(
            "priorityclasses", info.name,
            f"PriorityClass {existing_default.name} is already marked as default. Only one default can exist"))


def admit_pod(pod: dict, classes: dict[str, PriorityClassInfo], default: PriorityClassInfo | None) -> None:
    """Set priorityClassName (from the global default), priority and preemptionPolicy, or refuse."""
    meta = pod.get("metadata") or {}
    spec = pod["spec"]
    name = meta.get("name") or ""
    class_name = spec.get("priorityClassName") or ""
    if not class_name:
        if default is not None:
            spec["priorityClassName"] = default.name
            priority, policy = default.value, default.preemption_policy
        else:
            priority, policy = 0, PREEMPT_LOWER
    else:
        info = classes.get(class_name)
        if info is None:
            raise PriorityRejected(forbidden_message(
                "pods", name, f"no PriorityClass with name {class_name} was found"))
        priority, policy = info.value, info.preemption_policy
    given = spec.get("priority")
    if given is not None and given != priority:
        raise PriorityRejected(forbidden_message(
            "pods", name,
            f"the integer value of priority ({given}) must not be provided in pod spec; priority admission "
            f"controller computed {priority} from the given PriorityClass name"))
    spec["priority"] = priority
    given_policy = spec.get("preemptionPolicy")
    if given_policy is not None and given_policy != policy:
        raise PriorityRejected(forbidden_message(
            "pods", name,
            f"the string value of PreemptionPolicy ({given_policy}) must not be provided in pod spec; priority "
            f"admission controller computed {policy} from the given PriorityClass name"))
    spec["preemptionPolicy"] = policy
