"""`least-waste` (CA's expander/waste): keep the options that leave the least cpu and memory idle,
over the template's capacity, as float64 compared exactly (proportional shapes tie; a zero
capacity divides as Go's floats do)."""
from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

from kexplain.apimachinery.quantity import milli_value, value
from kexplain.autoscaler.expander import Option
from kexplain.model.resources import CPU, MEMORY, pod_requests, resource_list

if TYPE_CHECKING:
    from kexplain.model.nodeinfo import NodeInfo
    from kexplain.model.pod import PodInfo


def requested(pods: Iterable["PodInfo"]) -> tuple[int, int]:
    """The pods' summed cpu (millicores) and memory (bytes) requests: the exact sum, rounded up
    once (CA adds the Quantities, then reads MilliValue / Value)."""
    cpu, memory = Fraction(0), Fraction(0)
    for pod in pods:
        reqs = pod_requests(pod.obj)
        cpu += reqs.get(CPU, 0)
        memory += reqs.get(MEMORY, 0)
    return milli_value(cpu), value(memory)


def capacity(node_info: "NodeInfo") -> tuple[int, int]:
    """The template node's cpu (millicores) and memory (bytes) capacity (0 when missing)."""
    status = node_info.node.obj.get("status") or {}
    cap = resource_list(status.get("capacity"))
    return milli_value(cap.get(CPU, Fraction(0))), value(cap.get(MEMORY, Fraction(0)))


def _ratio(num: int, den: int) -> float:
    """float64(num) / float64(den) with Go's division by zero (no panic for floats)."""
    if den == 0:
        return math.nan if num == 0 else math.copysign(math.inf, num)
    return float(num) / float(den)


def wasted_score(option: Option, node_info: "NodeInfo") -> float:
    """The cpu and memory fractions left unrequested on the option's new nodes, added (0..2)."""
    cpu_req, mem_req = requested(option.pods)
    cpu_cap, mem_cap = capacity(node_info)
    avail_cpu = cpu_cap * option.node_count
    avail_mem = mem_cap * option.node_count
    return _ratio(avail_cpu - cpu_req, avail_cpu) + _ratio(avail_mem - mem_req, avail_mem)


class LeastWaste:
    """A Filter: every option with the lowest wasted score, in the order given. An option whose
    group has no template in `node_infos` is left out (CA logs it)."""

    name = "least-waste"

    def best_options(self, options: Sequence[Option], node_infos: Mapping[str, "NodeInfo"]) -> list[Option]:
        best: list[Option] = []
        best_score = 0.0
        for option in options:
            node_info = node_infos.get(option.node_group.name)
            if node_info is None:
                continue
            score = wasted_score(option, node_info)
            # CA's order of tests, NaN included: a NaN first score is kept and never beaten.
            if score == best_score:
                best.append(option)
            if not best or score < best_score:
                best_score = score
                best = [option]
        return best
