"""The binpack plugin (plugins/binpack): a node scores by how full the task leaves it, per resource
weighted (cpu and memory 1 unless set, `binpack.resources` extended ones), times `binpack.weight`."""
from __future__ import annotations

from typing import Any

from kexplain.volcano.api.node import NodeInfo
from kexplain.volcano.api.task import TaskInfo
from kexplain.volcano.plugins.args import get_int

NAME = "binpack"
MAX_NODE_SCORE = 100


def weights(args: dict[str, Any]) -> tuple[int, dict[str, int]]:
    """calculateWeight: (binpack.weight, per-resource weights)."""
    cpu = get_int(args, "binpack.cpu", 1)
    memory = get_int(args, "binpack.memory", 1)
    out: dict[str, int] = {}
    raw = args.get("binpack.resources")
    for name in (raw.split(",") if isinstance(raw, str) else ()):
        name = name.strip()
        if name:
            w = get_int(args, f"binpack.resources.{name}", 1)
            out[name] = 1 if w < 0 else w
    out["cpu"] = 1 if cpu < 0 else cpu
    out["memory"] = 1 if memory < 0 else memory
    return get_int(args, "binpack.weight", 1), out


def score(task: TaskInfo, node: NodeInfo, weight: int, per_resource: dict[str, int]) -> float:
    """BinPackingScore."""
    total, weight_sum = 0.0, 0
    for rn in task.resreq.resource_names():
        request = task.resreq.get(rn)
        if request == 0 or rn not in per_resource:
            continue
        capacity, used, w = node.allocatable.get(rn), node.used.get(rn), per_resource[rn]
        if capacity == 0 or w == 0:
            weight_sum += w
            continue
        if request + used > capacity:
            return 0.0
        total += (request + used) * w / capacity
        weight_sum += w
    if weight_sum > 0:
        total /= weight_sum
    return total * MAX_NODE_SCORE * weight


class Binpack:
    name = NAME

    def __init__(self, arguments: dict[str, Any]) -> None:
        self.weight, self.per_resource = weights(arguments)

    def on_session_open(self, ssn: Any) -> None:
        if self.weight != 0:
            ssn.add("nodeOrder", NAME, lambda t, node: score(t, node, self.weight, self.per_resource))

    def on_session_close(self, ssn: Any) -> None:
        pass


def New(arguments: dict[str, Any]) -> Binpack:
    return Binpack(arguments)
