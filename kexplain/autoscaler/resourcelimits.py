"""The cluster-wide limits: `--cores-total`, `--memory-total`, `--gpu-total`, `--max-nodes-total`
(CA's resourcequotas, quota "cluster-wide"): node capacity counted once per group, groups
skipped or cut at a limit, consumed in turn (`QuotaTracker`; scale-down holds the minimums).
How each is counted: docs/internals/autoscaler.md."""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from kexplain.apimachinery.quantity import value
from kexplain.autoscaler.cloudprovider.provider import TEST, CloudProvider
from kexplain.autoscaler.gpu import gpu_target
from kexplain.autoscaler.status import MAX_NODES_TOTAL_ERROR, exceeded_quota
from kexplain.errors import InputError, Source
from kexplain.model.resources import CPU, MEMORY, resource_list

CLUSTER_WIDE = "cluster-wide"            # the ResourceLimiter's quota id
NODES = "nodes"                          # counted per node, never limited by the flags
GIB = 1 << 30
DEFAULT_CORES_TOTAL = "0:320000"         # config.DefaultMaxClusterCores
DEFAULT_MEMORY_TOTAL = "0:6400000"       # config.DefaultMaxClusterMemory, GiB
VIRTUAL_KUBELET_LABEL = ("type", "virtual-kubelet")
_INT64 = (-(1 << 63), (1 << 63) - 1)
_GO_INT = re.compile(r"[+-]?[0-9]+\Z")     # strconv.ParseInt(s, 10, 64)'s grammar


def _wrap64(n: int) -> int:
    """Go's int64 arithmetic: a product past 64 bits wraps around."""
    return (n - _INT64[0]) % (1 << 64) + _INT64[0]


def _parse_int(text: str, what: str) -> int:
    if not _GO_INT.match(text):
        raise ValueError(f'failed to set {what} size: {text}, expected integer, err: '
                         f'strconv.ParseInt: parsing "{text}": invalid syntax')
    n = int(text)
    if not _INT64[0] <= n <= _INT64[1]:
        raise ValueError(f'failed to set {what} size: {text}, expected integer, err: '
                         f'strconv.ParseInt: parsing "{text}": value out of range')
    return n


def parse_min_max(flag: str) -> tuple[int, int]:
    """CA's parseMinMaxFlag: `<min>:<max>`, two decimal integers, 0 <= min <= max; ValueError in CA's words."""
    tokens = flag.split(":", 1)
    if len(tokens) != 2:
        raise ValueError(f"wrong nodes configuration: {flag}")
    low, high = _parse_int(tokens[0], "min"), _parse_int(tokens[1], "max")
    if low < 0:
        raise ValueError("min size must be greater or equal to  0")
    if high < low:
        raise ValueError("max size must be greater or equal to min size")
    return low, high


def parse_gpu_limit(text: str) -> tuple[str, int, int]:
    """CA's parseSingleGpuLimit: `<gpu_type>:<min>:<max>`; ValueError in CA's words."""
    parts = text.split(":")
    if len(parts) != 3:
        raise ValueError(f"incorrect gpu limit specification: {text}")
    kind, low, high = parts
    if not _GO_INT.match(low) or not _INT64[0] <= int(low) <= _INT64[1]:
        raise ValueError(f"incorrect gpu limit - min is not integer: {text}")
    if not _GO_INT.match(high) or not _INT64[0] <= int(high) <= _INT64[1]:
        raise ValueError(f"incorrect gpu limit - max is not integer: {text}")
    if int(low) < 0:
        raise ValueError(f"incorrect gpu limit - min is less than 0; {text}")
    if int(high) < 0:
        raise ValueError(f"incorrect gpu limit - max is less than 0; {text}")
    if int(low) > int(high):
        raise ValueError(f"incorrect gpu limit - min is greater than max; {text}")
    return kind, int(low), int(high)


@dataclass(frozen=True)
class ResourceLimits:
    """The cluster-wide core (whole cores), memory (bytes) and per-GPU-type limits."""

    min_cores: int = 0
    max_cores: int = 320000
    min_memory: int = 0
    max_memory: int = 6400000 * GIB
    gpus: tuple[tuple[str, int, int], ...] = ()     # (GPU type, min, max), as --gpu-total gives them

    @classmethod
    def from_flags(cls, cores_total: str = DEFAULT_CORES_TOTAL, memory_total: str = DEFAULT_MEMORY_TOTAL,
                   gpu_total: tuple[str, ...] = (), *, source: Source | None = None) -> "ResourceLimits":
        """From `--cores-total` and `--memory-total` (GiB, as CA multiplies them out) and each
        `--gpu-total`; a value CA refuses at start-up is an InputError naming the flag."""
        parsed = []
        for flag, text in (("cores-total", cores_total), ("memory-total", memory_total)):
            try:
                parsed.append(parse_min_max(text))
            except ValueError as err:
                raise InputError(f"Failed to parse flags: {err}", source=source, field=flag) from None
        gpus = []
        for text in gpu_total:
            try:
                gpus.append(parse_gpu_limit(text))
            except ValueError as err:
                raise InputError(f"Failed to parse flags: {err}", source=source, field="gpu-total") from None
        (min_cores, max_cores), (min_mem, max_mem) = parsed
        return cls(min_cores, max_cores, _wrap64(min_mem * GIB), _wrap64(max_mem * GIB), tuple(gpus))

    def max_limits(self) -> dict[str, int]:
        """The limits a scale-up is held to (the ResourceLimiter's max limits; a GPU type given
        twice keeps its last limits, as CA's map does)."""
        return {CPU: self.max_cores, MEMORY: self.max_memory, **{kind: high for kind, _, high in self.gpus}}

    def min_limits(self) -> dict[str, int]:
        """The limits scale-down is held to (the ResourceLimiter's min limits)."""
        return {CPU: self.min_cores, MEMORY: self.min_memory, **{kind: low for kind, low, _ in self.gpus}}


def node_resources(node: Mapping[str, Any], provider_template: Mapping[str, Any] | None = None,
                   provider: CloudProvider = TEST) -> dict[str, int]:
    """What one node counts for: capacity cpu as whole cores (rounded up), memory in bytes (missing or
    negative: 0), one node, and its GPUs under its GPU type (totalNodeResources; `provider_template`: its
    group's provider template, for GPUs not allocatable yet; `provider`: whose GPU label gives the type)."""
    capacity = resource_list((node.get("status") or {}).get("capacity"))
    cores = max(value(capacity[CPU]), 0) if CPU in capacity else 0
    memory = max(value(capacity[MEMORY]), 0) if MEMORY in capacity else 0
    out = {CPU: cores, MEMORY: memory, NODES: 1}
    target = gpu_target(node, provider_template, provider)
    if target is not None and target[0] and target[1] > 0:
        out[target[0]] = target[1]
    return out


def _tracked(node: Mapping[str, Any]) -> bool:
    labels = (node.get("metadata") or {}).get("labels") or {}
    return labels.get(VIRTUAL_KUBELET_LABEL[0]) != VIRTUAL_KUBELET_LABEL[1]


@dataclass(frozen=True)
class ExceededQuota:
    """A quota a check would pass, and which of its resources."""

    id: str
    resources: tuple[str, ...]

    @property
    def reason(self) -> str:
        """The group's skip reason, as CA words it."""
        return exceeded_quota(self.id, self.resources)


@dataclass(frozen=True)
class QuotaCheck:
    """The answer for `node_delta` more nodes of a group: how many the limits allow (at most
    node_delta) and the quotas that many would pass."""

    allowed_delta: int
    exceeded: tuple[ExceededQuota, ...] = ()

    @property
    def is_exceeded(self) -> bool:
        return bool(self.exceeded)

    @property
    def reasons(self) -> list[str]:
        """The skip reasons of a group refused for it (CA's MaxResourceLimitReached)."""
        return [q.reason for q in self.exceeded]


class QuotaTracker:
    """CA's quota tracker: built from the snapshot's nodes, asked about groups (`check`) and charged for the
    groups a scale-up grows or a scale-down removes (`consume`), for that one scale-up or scale-down."""

    def __init__(self, limits: ResourceLimits, nodes: Iterable[Mapping[str, Any]],
                 group_of: Mapping[str, str], provider_templates: Mapping[str, Mapping[str, Any]] | None = None,
                 *, minimum: bool = False, provider: CloudProvider = TEST) -> None:
        """`nodes`: the Node manifests the scale-up sees, in order; `group_of`: node to group;
        `provider_templates`: group to template Node; `minimum`: hold the min limits (scale-down);
        `provider`: the cloud provider, whose GPU label types a node's GPUs."""
        self._provider = provider
        self._per_group: dict[str, dict[str, int]] = {}
        self._templates = provider_templates or {}
        usage: dict[str, int] = {}
        for node in nodes:
            if not _tracked(node):
                continue
            group = group_of.get((node.get("metadata") or {}).get("name") or "")
            for name, amount in self._resources(node, group).items():
                usage[name] = usage.get(name, 0) + amount
        self.usage = usage
        if minimum:
            self.limits_left = {name: max(0, usage.get(name, 0) - limit) for name, limit in limits.min_limits().items()}
        else:
            self.limits_left = {name: max(0, limit - usage.get(name, 0)) for name, limit in limits.max_limits().items()}

    def _resources(self, node: Mapping[str, Any], group: str | None) -> dict[str, int]:
        if group is None:
            return node_resources(node, provider=self._provider)
        cached = self._per_group.get(group)
        if cached is None:
            cached = self._per_group[group] = node_resources(node, self._templates.get(group), self._provider)
        return cached

    def per_node(self, group: str, template_node: Mapping[str, Any]) -> dict[str, int]:
        """What one more node of `group` counts for (the group's figure, see the module)."""
        return self._resources(template_node, group)

    def check(self, group: str, template_node: Mapping[str, Any], node_delta: int) -> QuotaCheck:
        """Whether `node_delta` more nodes of `group` (built from `template_node`, the group's
        template Node manifest) fit under the limits, and how many do."""
        if node_delta < 0:
            raise ValueError("negative nodeDelta received")
        allowed = node_delta
        exceeded = []
        for name, per_node in self.per_node(group, template_node).items():   # cpu, memory, nodes
            left = self.limits_left.get(name)
            if per_node <= 0 or left is None:
                continue
            if left < per_node * node_delta:
                allowed = min(allowed, left // per_node)
                exceeded.append(name)
        # CA lists the resources in Go map order (random when several are exceeded); here: cpu,
        # memory, then the GPU type
        return QuotaCheck(allowed, (ExceededQuota(CLUSTER_WIDE, tuple(exceeded)),) if exceeded else ())

    def copy(self) -> "QuotaTracker":
        """A tracker with what is left now, charged apart from this one (another draw of an expander tie)."""
        other = copy.copy(self)
        other.limits_left = dict(self.limits_left)
        return other

    def consume(self, group: str, template_node: Mapping[str, Any], node_delta: int) -> QuotaCheck:
        """`check`, then, when all `node_delta` nodes fit, take their resources off what is left."""
        result = self.check(group, template_node, node_delta)
        if result.allowed_delta != node_delta:
            return result
        for name, per_node in self.per_node(group, template_node).items():
            if name in self.limits_left:
                self.limits_left[name] = max(self.limits_left[name] - result.allowed_delta * per_node, 0)
        return result


# -- --max-nodes-total -----------------------------------------------------------------------------
def max_nodes_total_reached(max_nodes_total: int, ready_nodes: int) -> bool:
    """Whether the loop skips the scale-up (ScaleUpLimitedByMaxNodesTotal): a limit is set and
    the ready nodes already reach it. CA then records `status.max_nodes_total_message`."""
    return max_nodes_total > 0 and ready_nodes >= max_nodes_total


@dataclass(frozen=True)
class NodeCountCap:
    """GetCappedNewNodeCount's answer: the node count, whether it was cut (CA then records
    the MaxNodesTotalReached warning) and the scale-up error when nothing is left."""

    count: int
    capped: bool = False
    error: str | None = None


def cap_new_node_count(new_node_count: int, current_node_count: int, max_nodes_total: int) -> NodeCountCap:
    """The chosen option's node count cut to the room under `--max-nodes-total`;
    `current_node_count`: every node the scale-up sees (ready or not)."""
    if max_nodes_total > 0 and new_node_count + current_node_count > max_nodes_total:
        count = max_nodes_total - current_node_count
        return NodeCountCap(count, True, MAX_NODES_TOTAL_ERROR if count < 1 else None)
    return NodeCountCap(new_node_count)


def atomic_scale_up_exceeds(current_node_count: int, node_count: int, max_nodes_total: int) -> bool:
    """A group scaling all-or-nothing (zeroOrMaxNodeScaling) is skipped with
    status.ATOMIC_LIMIT when its whole step would pass `--max-nodes-total`."""
    return max_nodes_total != 0 and current_node_count + node_count > max_nodes_total
