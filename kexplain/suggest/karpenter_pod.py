"""Changes to the pods Karpenter could not place (every pod of the shape, as in their template),
each proposed only where it is the reason: add-toleration, lower-request (to what the type
needing the smallest cut takes after overhead) and drop-term (docs/internals/suggest.md)."""
from __future__ import annotations

import copy
from fractions import Fraction
from math import floor
from typing import Any, Callable, Mapping, Sequence

from kexplain.apimachinery.quantity import format_bytes, format_milli
from kexplain.karpenter.scheduling.requirements import (
    new_node_selector_requirements, new_requirements, new_strict_pod_requirements,
)
from kexplain.karpenter.scheduling.requirement import new_requirement
from kexplain.karpenter.utils import resources
from kexplain.model.pod import PodInfo
from kexplain.model.taints import taint_to_string
from kexplain.suggest.change import Candidate, Op, apply_ops, pod_op, pointer
from kexplain.suggest.karpenter_context import (
    ALLOW_UNDEFINED, Idea, KarpenterContext, Pool, Want, combined, takes, total_requests, untolerated,
)
from kexplain.suggest.tolerations import SYSTEM_TAINT_PREFIXES, _toleration

ID = "karpenter-pod"
ADD_TOLERATION = "add-toleration"
LOWER_REQUEST = "lower-request"
DROP_TERM = "drop-term"
KINDS = (ADD_TOLERATION, LOWER_REQUEST, DROP_TERM)

LOWERABLE = (resources.CPU, resources.MEMORY, "ephemeral-storage")
MI = 1 << 20
REQUIRED = ("spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")


def _each_pod(want: Want, op: str, path: str, value: Any = None) -> list[Op]:
    return [pod_op(p, op, path, value) for p in want.pods]


# -- add-toleration --------------------------------------------------------------------------------
def add_toleration(ctx: KarpenterContext, want: Want) -> list[Idea]:
    """For each NodePool whose types would take the pod but for its taints."""
    out = []
    for pool in ctx.pools:
        taints = untolerated(pool, want) if takes(pool, want) else []
        if not taints or any(str(t.get("key") or "").startswith(SYSTEM_TAINT_PREFIXES) for t in taints):
            continue
        ops = [op for t in taints for op in _each_pod(want, "add", "/spec/tolerations/-", _toleration(t))]
        plural = "s" if len(taints) > 1 else ""
        names = ", ".join(taint_to_string(t) for t in taints)
        out.append(Idea(Candidate(ADD_TOLERATION, want.target,
                                  f"{want.target}: tolerate NodePool {pool.name}'s taint{plural} {names}",
                                  tuple(ops)), pool.name))
    return out


# -- lower-request ---------------------------------------------------------------------------------
def lower_request(ctx: KarpenterContext, want: Want) -> list[Idea]:
    """One idea per NodePool, the smallest cut first."""
    found = []
    for pool in ctx.pools:
        lowered = _lowered(pool, want)
        if lowered is None:
            continue
        score, it, targets = lowered
        ops, words = _request_ops(want, targets)
        if ops:
            found.append((score, Idea(Candidate(
                LOWER_REQUEST, want.target, f"{want.target}: lower {', '.join(words)} (what {it.name} from NodePool "
                f"{pool.name} can take after overhead)", tuple(ops)), pool.name)))
    return [idea for _, idea in sorted(found, key=lambda x: x[0])]


def _lowered(pool: Pool, want: Want) -> tuple[tuple[Fraction, float, str], Any, dict[str, Fraction]] | None:
    """(score, the type the pod's requests need cutting least for (then the cheapest), the new
    totals); None when some type already has room, or room is not what keeps the pod out."""
    if untolerated(pool, want):
        return None
    reqs = combined(pool, want)
    if reqs is None:
        return None
    candidates = [it for it, compatible, offering, _ in pool.index.compatibility(reqs, pool.options)
                  if compatible and offering]
    total = total_requests(pool, want)
    if not candidates or any(resources.fits(total, it.allocatable()) for it in candidates):
        return None
    best: tuple[tuple[Fraction, float, str], Any, dict[str, Fraction]] | None = None
    for it in candidates:
        allocatable = it.allocatable()
        targets: dict[str, Fraction] = {}
        cut = Fraction(0)
        for name, q in total.items():
            room = allocatable.get(name, resources.ZERO).value
            if q.value <= room:
                continue
            asked = want.requests.get(name, resources.ZERO).value
            left = room - pool.overhead.get(name, resources.ZERO).value
            if name == resources.PODS or left <= 0 or asked <= 0 or (name not in LOWERABLE and left != int(left)):
                targets = {}
                break
            targets[name] = left
            cut += (asked - left) / asked
        if not targets:
            continue
        score = (cut, it.cheapest_price(reqs), it.name)
        if best is None or score < best[0]:
            best = (score, it, targets)
    return best


def _floor_text(name: str, value: Fraction) -> tuple[str, Fraction]:
    """The largest amount at most `value` people would write (millicores, whole MiB, a count)."""
    if name == resources.CPU:
        milli = floor(value * 1000)
        return format_milli(milli), Fraction(milli, 1000)
    if name in LOWERABLE:
        mib = floor(value / MI)
        return format_bytes(mib * MI), Fraction(mib * MI)
    return str(floor(value)), Fraction(floor(value))


def _request_ops(want: Want, targets: Mapping[str, Fraction]) -> tuple[list[Op], list[str]]:
    """Each resource's excess taken off the regular container asking most (an extended resource's limit
    with it); nothing when that does not bring the pod's requests down to the target."""
    spec = copy.deepcopy(want.pod.spec)
    containers = spec.get("containers") or []
    changes: list[tuple[int, str, str, bool]] = []
    words: list[str] = []
    for name, target in targets.items():
        asked = want.requests[name].value
        text, target = _floor_text(name, target)
        own = [(resources.parse_list(((c.get("resources") or {}).get("requests"))).get(name), i)
               for i, c in enumerate(containers) if isinstance(c, dict)]
        own = [(q.value, i) for q, i in own if q is not None]
        if not own:
            return [], []
        value, at = max(own, key=lambda x: (x[0], -x[1]))
        new_value = value - (asked - target)
        if new_value <= 0:
            return [], []
        new_text, _ = _floor_text(name, new_value)
        res = containers[at].setdefault("resources", {})
        res.setdefault("requests", {})[name] = new_text
        limited = name not in LOWERABLE and name in (res.get("limits") or {})
        if limited:
            res["limits"][name] = new_text
        changes.append((at, name, new_text, limited))
        words.append(f"{name} {'request and limit' if limited else 'request'} of container "
                     f"{containers[at].get('name')} to {new_text} (the pod then asks {text})")
    after = resources.requests_for_pods([spec])
    if any(after.get(n, resources.ZERO).value > _floor_text(n, t)[1] for n, t in targets.items()):
        return [], []
    ops = []
    for at, name, text, limited in changes:
        for field in ("requests", "limits") if limited else ("requests",):
            ops += _each_pod(want, "add", pointer("spec", "containers", at, "resources", field, name), text)
    return ops, words


# -- drop-term -------------------------------------------------------------------------------------
def drop_term(ctx: KarpenterContext, want: Want) -> list[Idea]:
    """A term no NodePool can meet; a term without which some instance type would meet the
    pod's requirements when none does with it; a term its volumes' zones contradict."""
    types = {it.name: it for pool in ctx.pools for it in pool.instance_types}.values()
    own = new_strict_pod_requirements(want.pod)
    met = any(it.requirements.intersects(own) is None for it in types)
    out = []
    for path, label, req in _terms(want.pod.spec):
        alone = new_requirements(req)
        if not any(_meets(pool, req) for pool in ctx.pools):
            why = "no NodePool can meet it"
        elif want.volumes is not None and want.volumes.intersects(alone) is not None:
            why = "its volumes are in another zone"
        elif not met and _met_without(want, path, types):
            why = "no instance type meets it together with the pod's other terms"
        else:
            continue
        out.append(Idea(Candidate(DROP_TERM, want.target, f"{want.target}: drop {label}: {why}",
                                  tuple(_each_pod(want, "remove", path))), ""))
    return out


def _met_without(want: Want, path: str, types: Any) -> bool:
    changed = PodInfo(apply_ops(want.pod.obj, [{"op": "remove", "path": path}]))
    reqs = new_strict_pod_requirements(changed)
    return any(it.requirements.intersects(reqs) is None for it in types)


def _terms(spec: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
    """(path, words, requirement) of each nodeSelector entry and of each expression of a single-term
    required node affinity (dropping the only expression drops the affinity: an empty term matches nothing)."""
    out = []
    for key, value in sorted((spec.get("nodeSelector") or {}).items()):
        out.append((pointer("spec", "nodeSelector", key), f"nodeSelector {key}={value}",
                    new_requirement(key, "In", str(value))))
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution") or {}
    terms = required.get("nodeSelectorTerms") or []
    if len(terms) == 1 and isinstance(terms[0], dict) and not terms[0].get("matchFields"):
        exprs = terms[0].get("matchExpressions") or []
        for i, expr in enumerate(exprs):
            if not isinstance(expr, dict):
                continue
            reqs = new_node_selector_requirements([expr])
            if not reqs:
                continue
            path = pointer(*REQUIRED) if len(exprs) == 1 else \
                pointer(*REQUIRED, "nodeSelectorTerms", 0, "matchExpressions", i)
            values = " ".join(str(v) for v in expr.get("values") or ())
            words = f"the node affinity expression {expr.get('key')} {expr.get('operator')}" + \
                (f" [{values}]" if values else "")
            out.append((path, words, next(iter(reqs.values()))))
    return out


def _meets(pool: Pool, req: Any) -> bool:
    """Whether the NodePool could give a node meeting this one requirement."""
    reqs = new_requirements(req)
    if pool.requirements.compatible(reqs, ALLOW_UNDEFINED) is not None:
        return False
    return any(it.requirements.intersects(reqs) is None for it in pool.instance_types)


FAMILIES: Sequence[Callable[[KarpenterContext, Want], list[Idea]]] = (add_toleration, lower_request, drop_term)
