"""The kubelet's eviction message and the event's annotations (`evictionMessage`,
`getThresholdMetInfo`, the local storage messages), its texts as constants; and `parse`, the message
taken apart again (signal's resource, threshold, available, each container's usage against its
request), for a pod the kubelet evicted."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

from kexplain.apimachinery.quantity import BINARY_SI, Quantity, QuantityError, must_parse, new_quantity
from kexplain.eviction.kubelet import signals as sig
from kexplain.eviction.kubelet import thresholds as th

REASON = "Evicted"
NODE_LOW = "The node was low on resource: {}. "
NODE_CONDITION = "The node had condition: {}. "
CONTAINER = "Container {} was using {}, request is {}, has larger consumption of {}. "
POD = "Pod {} was using {}, request is {}, has larger consumption of {}. "
CONTAINER_EPHEMERAL_STORAGE = "Container {} exceeded its local ephemeral storage limit {}. "
POD_EPHEMERAL_STORAGE = "Pod ephemeral local storage usage exceeds the total limit of containers {}. "
EMPTY_DIR = "Usage of EmptyDir volume {} exceeds the limit {}. "
THRESHOLD_MET = "Threshold quantity: {}, available: {}. "

OFFENDING_CONTAINERS = "offending_containers"
OFFENDING_CONTAINERS_USAGE = "offending_containers_usage"
OFFENDING_POD = "offending_pod"
OFFENDING_POD_USAGE = "offending_pod_usage"
STARVED_RESOURCE = "starved_resource"


def go_quote(text: str) -> str:
    """Go's %q of a plain string."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def quantity_text(raw: Any) -> str:
    """A stored quantity as Go's String() prints it ("0" when absent)."""
    if raw is None:
        return "0"
    try:
        return str(must_parse(str(raw)))
    except QuantityError:
        return str(raw)


def threshold_met_info(resource: str, thresholds: Sequence[th.Threshold],
                       observations: Mapping[str, sig.Observation]) -> Optional[tuple[Quantity, Quantity]]:
    """getThresholdMetInfo: the quantity and the available of the first threshold of the resource
    that was observed."""
    for t in thresholds:
        if t.resource == resource and t.signal in observations:
            seen = observations[t.signal]
            return t.value.quantity_for(seen.capacity), seen.available
    return None


def _container_usage(resource: str, stats: Mapping) -> Optional[int]:
    if resource == th.RESOURCE_EPHEMERAL_STORAGE:
        rootfs, logs = stats.get("rootfs"), stats.get("logs")
        if isinstance(rootfs, Mapping) and isinstance(logs, Mapping) \
                and rootfs.get("usedBytes") is not None and logs.get("usedBytes") is not None:
            return sig.used_bytes(rootfs) + sig.used_bytes(logs)
    if resource == th.RESOURCE_MEMORY:
        mem = stats.get("memory")
        if isinstance(mem, Mapping) and mem.get("workingSetBytes") is not None:
            return sig.working_set(mem)
    return None


@dataclass
class Offender:
    """A container using more than it requested, as the message says it."""

    name: str
    usage: str
    request: str


def offenders(resource: str, pod: Mapping, stats: Mapping) -> list[Offender]:
    """The containers (regular and init, never ephemeral) whose usage exceeds their request, in the
    order of the pod's stats."""
    spec = pod.get("spec") or {}
    containers = [*(spec.get("containers") or ()), *(spec.get("initContainers") or ())]
    out = []
    for cstats in stats.get("containers") or ():
        container = next((c for c in containers if c.get("name") == cstats.get("name")), None)
        if container is None:
            continue
        raw = ((container.get("resources") or {}).get("requests") or {}).get(resource)
        request = must_parse(str(raw)) if raw is not None else new_quantity(0)
        usage = _container_usage(resource, cstats)
        if usage is not None and usage > request.value:
            out.append(Offender(str(container.get("name")), str(new_quantity(usage, BINARY_SI)), str(request)))
    return out


def eviction_message(resource: str, pod: Mapping, stats: Optional[Mapping], thresholds: Sequence[th.Threshold],
                     observations: Mapping[str, sig.Observation], pod_level: bool) -> tuple[str, dict[str, str]]:
    """evictionMessage: the message and the event's annotations (none when the pod has no stats).
    `pod_level`: the PodLevelResources line (from 1.34, with the gate on)."""
    message = NODE_LOW.format(resource)
    info = threshold_met_info(resource, thresholds, observations)
    if info is not None:
        message += THRESHOLD_MET.format(*info)
    if stats is None:
        return message, {}
    annotations: dict[str, str] = {}
    spec = pod.get("spec") or {}
    own = ((spec.get("resources") or {}).get("requests") or {}) if isinstance(spec.get("resources"), Mapping) else {}
    if pod_level and resource == th.RESOURCE_MEMORY and th.RESOURCE_MEMORY in own \
            and isinstance(stats.get("memory"), Mapping):
        usage = str(new_quantity(sig.working_set(stats["memory"]), BINARY_SI))
        name = str((pod.get("metadata") or {}).get("name") or "")
        message += POD.format(name, usage, quantity_text(own[th.RESOURCE_MEMORY]), resource)
        annotations[OFFENDING_POD], annotations[OFFENDING_POD_USAGE] = name, usage
    found = offenders(resource, pod, stats)
    message += "".join(CONTAINER.format(o.name, o.usage, o.request, resource) for o in found)
    annotations[OFFENDING_CONTAINERS] = ",".join(o.name for o in found)
    annotations[OFFENDING_CONTAINERS_USAGE] = ",".join(o.usage for o in found)
    annotations[STARVED_RESOURCE] = resource
    return message, annotations


# -- the message taken apart ---------------------------------------------------------------------------
_NODE_LOW = re.compile(r"The node was low on resource: (?P<resource>[^.]+)\. ")
_THRESHOLD = re.compile(r"Threshold quantity: (?P<quantity>[^,]+), available: (?P<available>[^ ]+?)\. ")
_USER = re.compile(r"(?P<kind>Container|Pod) (?P<name>\S+) was using (?P<usage>\S+), request is (?P<request>\S+), "
                   r"has larger consumption of (?P<resource>[^.]+)\. ")
_LOCAL = (("emptyDir", re.compile(r'Usage of EmptyDir volume "(?P<volume>[^"]*)" exceeds the limit '
                                  r'"(?P<limit>[^"]*)"\. ')),
          ("podEphemeralStorage", re.compile(r"Pod ephemeral local storage usage exceeds the total limit of "
                                             r"containers (?P<limit>\S+)\. ")),
          ("containerEphemeralStorage", re.compile(r'Container (?P<container>\S+) exceeded its local ephemeral '
                                                   r'storage limit "(?P<limit>[^"]*)"\. ')))


@dataclass(frozen=True)
class Usage:
    """One "was using" line: a container's (or, from 1.34, the pod's) usage against its request."""

    kind: str
    name: str
    usage: str
    request: str


@dataclass(frozen=True)
class ParsedMessage:
    """The kubelet's eviction message, taken apart. `kind`: nodePressure, emptyDir,
    podEphemeralStorage, containerEphemeralStorage, or unknown (a message not the kubelet's)."""

    kind: str
    resource: str = ""
    threshold: str = ""
    available: str = ""
    usages: tuple[Usage, ...] = ()
    details: dict = field(default_factory=dict)


def parse(message: str) -> ParsedMessage:
    """The kubelet's eviction message taken apart (the inverse of `eviction_message` and of the
    local storage messages)."""
    head = _NODE_LOW.match(message)
    if head:
        rest = message[head.end():]
        threshold = _THRESHOLD.match(rest)
        if threshold:
            rest = rest[threshold.end():]
        usages = tuple(Usage(m["kind"], m["name"], m["usage"], m["request"]) for m in _USER.finditer(rest))
        return ParsedMessage("nodePressure", head["resource"], threshold["quantity"] if threshold else "",
                             threshold["available"] if threshold else "", usages)
    for kind, pattern in _LOCAL:
        m = pattern.fullmatch(message)
        if m:
            return ParsedMessage(kind, th.RESOURCE_EPHEMERAL_STORAGE, details=m.groupdict())
    return ParsedMessage("unknown")
