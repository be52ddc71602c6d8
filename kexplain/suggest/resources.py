"""lower-request: lower the pod's requests the least that opens a node NodeResourcesFit alone
rejects (its room, memory in whole MiB), from the largest running containers first, then init
containers; a node out of pod slots cannot be opened this way."""
from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any, Mapping

from kexplain.apimachinery.quantity import format_bytes, format_milli, milli_value, value
from kexplain.model.nodeinfo import NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.model.resources import CPU, EPHEMERAL_STORAGE, MEMORY, Resource, is_hugepage, \
    pod_level_requests_set, pod_requests, resource_list
from kexplain.plugins.names import NODE_RESOURCES_FIT
from kexplain.plugins.node_resources_fit import ERR_REASON_INSUFFICIENT_FORMAT, ERR_REASON_TOO_MANY_PODS
from kexplain.suggest.change import Candidate, Fix, Op, pod_op, pointer
from kexplain.suggest.context import Context

ID = "resources"
LOWER_REQUEST = "lower-request"
KINDS = (LOWER_REQUEST,)
PLUGIN = NODE_RESOURCES_FIT

INSUFFICIENT = ERR_REASON_INSUFFICIENT_FORMAT.format("")    # "Insufficient ", then the resource name


def amount(name: str, q: Fraction) -> int:
    """A quantity as the scheduler counts the resource: millicores for cpu, units otherwise."""
    return milli_value(q) if name == CPU else value(q)


def format_amount(name: str, amount: int) -> str:
    if name == CPU:
        return format_milli(amount)
    if name == MEMORY or name == EPHEMERAL_STORAGE or is_hugepage(name):
        return format_bytes(amount)
    return str(amount)


def round_down(name: str, amount: int) -> int:
    """A target people would write: memory-like amounts down to whole MiB when at least 1 MiB."""
    if name in (MEMORY, EPHEMERAL_STORAGE) and amount >= 1 << 20:
        return amount - amount % (1 << 20)
    return amount


def fit_request(spec: Mapping[str, Any]) -> Resource:
    """The pod's request as NodeResourcesFit computes it."""
    return Resource.from_list(pod_requests({"spec": spec}))


def insufficient(ctx: Context, node: str) -> list[str] | None:
    """The resources NodeResourcesFit says the node lacks; None when one cannot be lowered."""
    names = []
    for r in ctx.reasons(node, NODE_RESOURCES_FIT):
        if r == ERR_REASON_TOO_MANY_PODS or not r.startswith(INSUFFICIENT):
            return None
        names.append(r[len(INSUFFICIENT):])
    return names or None


def free(info: NodeInfo, name: str) -> int:
    """The room left on the node for one resource."""
    return info.allocatable.get(name) - info.requested.get(name)


def lower_ops(pod: PodInfo, name: str, target: int) -> tuple[list[Op], list[str]] | None:
    """Operations that bring the pod's request of `name` down to at most `target`, taking it
    from the largest containers first, and where each was made; None when that cannot be done."""
    obj = copy.deepcopy(pod.obj)
    spec = obj.setdefault("spec", {})
    current = fit_request(spec).get(name)
    if current <= target:
        return [], []
    changed: dict[tuple[str, int], int] = {}

    def request_of(section: str, i: int) -> int:
        c = spec[section][i]
        q = resource_list((c.get("resources") or {}).get("requests")).get(name)
        return amount(name, q) if q is not None else 0

    def set_request(section: str, i: int, new: int) -> None:
        c = spec[section][i]
        c.setdefault("resources", {}).setdefault("requests", {})[name] = format_amount(name, new)
        changed[(section, i)] = new

    if pod_level_requests_set(spec) and (name in (CPU, MEMORY) or is_hugepage(name)):
        overhead = amount(name, resource_list(spec.get("overhead")).get(name, Fraction(0)))
        if target - overhead <= 0:
            return None
        spec["resources"]["requests"][name] = format_amount(name, target - overhead)
        ops = [pod_op(pod, "add", pointer("spec", "resources", "requests", name),
                      format_amount(name, target - overhead))]
        return ops, [f"the pod-level {name} request"]
    running = [("containers", i) for i in range(len(spec.get("containers") or ()))]
    running += [("initContainers", i) for i, c in enumerate(spec.get("initContainers") or ())
                if c.get("restartPolicy") == "Always"]
    overhead = amount(name, resource_list(spec.get("overhead")).get(name, Fraction(0)))
    excess = sum(request_of(*si) for si in running) + overhead - target   # what the running containers add
    for section, i in sorted(running, key=lambda si: -request_of(*si)):
        if excess <= 0:
            break
        have = request_of(section, i)
        take = min(have, excess)
        if take > 0:
            set_request(section, i, have - take)
            excess -= take
    for _ in range(3):          # init containers that need more than the target while they run
        total = fit_request(spec).get(name)
        if total <= target:
            break
        inits = [("initContainers", i) for i, c in enumerate(spec.get("initContainers") or ())
                 if c.get("restartPolicy") != "Always" and request_of("initContainers", i) > 0]
        if not inits:
            break
        section, i = max(inits, key=lambda si: request_of(*si))
        set_request(section, i, max(0, request_of(section, i) - (total - target)))
    if fit_request(spec).get(name) > target:
        return None
    ops, where = [], []
    for (section, i), new in sorted(changed.items()):
        ops.append(pod_op(pod, "add", pointer("spec", section, i, "resources", "requests", name),
                          format_amount(name, new)))
        where.append(f"{'init container' if section == 'initContainers' else 'container'} "
                     f"{spec[section][i].get('name', i)}")
    return ops, where


def candidates(ctx: Context) -> list[Candidate]:
    """Lower the requests the least that opens a node blocked by resources alone."""
    request = fit_request(ctx.pod.spec)
    best: tuple[float, str, dict[str, int]] | None = None
    for node in ctx.only(NODE_RESOURCES_FIT):
        names, info = insufficient(ctx, node), ctx.info(node)
        if names is None or info is None:
            continue
        targets: dict[str, int] = {}
        for name in names:
            room = round_down(name, free(info, name))
            if room <= 0 or room >= request.get(name):
                targets = {}
                break
            targets[name] = room
        if not targets:
            continue
        kept = min(t / request.get(n) for n, t in targets.items())
        if best is None or kept > best[0]:
            best = (kept, node, targets)
    if best is None:
        return []
    ops: list[Op] = []
    words = []
    for name, target in best[2].items():
        lowered = lower_ops(ctx.pod, name, target)
        if lowered is None:
            return []
        more, where = lowered
        ops += more
        words.append(_lowered(name, request, target, where))
    return [Candidate(LOWER_REQUEST, ctx.pod_target, "lower " + " and ".join(words), tuple(ops))]


def node_fix(ctx: Context, node: str, info: NodeInfo) -> Fix | None:
    """Lower every request the node lacks room for to the room it has (for `combined`)."""
    names = insufficient(ctx, node)
    if names is None:
        return None
    request = fit_request(ctx.pod.spec)
    ops, words = [], []
    for name in names:
        target = round_down(name, free(info, name))
        lowered = lower_ops(ctx.pod, name, target) if target > 0 else None
        if lowered is None:
            return None
        ops += lowered[0]
        words.append("lower " + _lowered(name, request, target, lowered[1]))
    return ops, words


def _lowered(name: str, request: Resource, target: int, where: list[str]) -> str:
    return f"the {name} request from {format_amount(name, request.get(name))} to {format_amount(name, target)} " \
           f"({', '.join(where)})"
