"""Changes to a NodePool that would let Karpenter make a NodeClaim for a pod it could not place.

Each proposed only where it is the reason the pod fails on that NodePool: declare-label,
widen-requirement (just enough for the cheapest type that takes the pod), raise-limit,
relax-min-values (docs/internals/suggest.md says when each applies)."""
from __future__ import annotations

from fractions import Fraction
from math import ceil
from typing import Any, Callable, Mapping, Sequence

from kexplain.apimachinery.quantity import format_bytes, format_milli
from kexplain.apimachinery.selectors import DOES_NOT_EXIST, EXISTS, IN, NOT_IN
from kexplain.karpenter.apis.labels import WELL_KNOWN_LABELS, is_restricted_label
from kexplain.karpenter.provisioning.scheduling.scheduler import (
    EXCEED_LIMITS, NODE_LIMITS_EXHAUSTED, NodePoolError,
)
from kexplain.karpenter.provisioning.scheduling.typeindex import TypeIndex
from kexplain.karpenter.scheduling.requirement import Requirement, new_requirement
from kexplain.karpenter.utils import resources
from kexplain.suggest.change import Candidate, Op, pointer
from kexplain.suggest.karpenter_context import (
    ALLOW_UNDEFINED, Idea, KarpenterContext, Pool, Want, combined, takes, total_requests, untolerated,
    without,
)

ID = "karpenter-nodepool"
DECLARE_LABEL = "declare-label"
WIDEN_REQUIREMENT = "widen-requirement"
RAISE_LIMIT = "raise-limit"
RELAX_MIN_VALUES = "relax-min-values"
KINDS = (DECLARE_LABEL, WIDEN_REQUIREMENT, RAISE_LIMIT, RELAX_MIN_VALUES)

NODEPOOL = "NodePool"
GT, LT, GTE, LTE = "Gt", "Lt", "Gte", "Lte"
LIMIT_ERRORS = (EXCEED_LIMITS, NODE_LIMITS_EXHAUSTED)
NODES = resources.NODE
REQUIREMENTS = ("spec", "template", "spec", "requirements")


def pool_op(pool: Pool, op: str, path: str, value: Any = None) -> Op:
    out: Op = {"op": op, "object": {"kind": NODEPOOL, "name": pool.name}, "path": path}
    if op != "remove":
        out["value"] = value
    return out


def requirement_text(raw: Mapping[str, Any]) -> str:
    values = raw.get("values") or ()
    text = f"{raw.get('key')} {raw.get('operator')}"
    if raw.get("operator") in (IN, NOT_IN):
        text += f" [{' '.join(values)}]"
    elif values:
        text += f" {values[0]}"
    if raw.get("minValues") is not None:
        text += f" (minValues {raw['minValues']})"
    return text


def _raw_requirement(raw: Mapping[str, Any]) -> Requirement:
    return new_requirement(str(raw.get("key") or ""), str(raw.get("operator") or ""),
                           *(str(v) for v in raw.get("values") or ()))


def _key(raw: Mapping[str, Any]) -> str:
    return _raw_requirement(raw).key         # normalized, as Karpenter reads it


# -- declare-label ---------------------------------------------------------------------------------
def declare_label(ctx: KarpenterContext, want: Want) -> list[Idea]:
    """For each NodePool whose types would take the pod but for the labels (taints tolerated)."""
    out = []
    for pool in ctx.pools:
        if not pool.options or untolerated(pool, want):
            continue
        found = _label_change(pool, want)
        if found is not None:
            ops, words = found
            out.append(Idea(Candidate(DECLARE_LABEL, f"NodePool {pool.name}",
                                      f"NodePool {pool.name}: {'; '.join(words)}", tuple(ops)), pool.name))
    return out


def _label_change(pool: Pool, want: Want) -> tuple[list[Op], list[str]] | None:
    """The labels the pod requires that the NodePool lacks or gives other values of, declared."""
    undefined = pool.requirements.undefined_keys(want.requirements, ALLOW_UNDEFINED)
    conflicts = [k for k, r in want.requirements.items()
                 if k not in WELL_KNOWN_LABELS and k in pool.requirements and r.operator() == IN
                 and not pool.requirements.get(k).has_intersection(r)]
    if (not undefined and not conflicts) or not takes(pool, without(want, [*undefined, *conflicts])):
        return None
    ops: list[Op] = []
    words: list[str] = []
    spec = pool.spec_requirements()
    for key in undefined:
        req = want.requirements.get(key)
        if is_restricted_label(key) is not None:
            return None
        if req.operator() == IN:
            value = req.values()[0]
            ops.append(pool_op(pool, "add", pointer("spec", "template", "metadata", "labels", key), value))
            words.append(f"declare the label {key}={value} (spec.template.metadata.labels)")
        elif req.operator() == EXISTS and req.gte is None and req.lte is None:
            ops.append(pool_op(pool, "add", pointer(*REQUIREMENTS, "-"), {"key": key, "operator": EXISTS}))
            words.append(f"declare the label {key} with the requirement {key} Exists (Karpenter picks a value)")
        else:
            return None
    for key in conflicts:
        wanted = want.requirements.get(key).values()[0]
        at = next((i for i, raw in enumerate(spec) if _key(raw) == key and raw.get("operator") == IN), None)
        if at is None:
            return None                       # a template label: one value, which other pods may need
        raw = spec[at]
        new = {**raw, "values": [*(raw.get("values") or ()), wanted]}
        ops.append(pool_op(pool, "add", pointer(*REQUIREMENTS, at, "values", "-"), wanted))
        words.append(f"allow {key}={wanted}: requirement {requirement_text(raw)} -> {requirement_text(new)}")
    return ops, words


# -- widen-requirement ----------------------------------------------------------------------------
def widen_requirement(ctx: KarpenterContext, want: Want) -> list[Idea]:
    out = []
    for pool in ctx.pools:
        need = widening(pool, want, ctx.run.result.type_index) if not untolerated(pool, want) else None
        if need is None:
            continue
        ops, words = widen_ops(pool, need)
        if ops:
            out.append(Idea(Candidate(WIDEN_REQUIREMENT, f"NodePool {pool.name}",
                                      f"NodePool {pool.name}: {'; '.join(words)}", tuple(ops)), pool.name))
    return out


def _narrowed(it: Any, offering: Any, key: str) -> Requirement | None:
    if offering.requirements.has(key):
        return offering.requirements.get(key)
    if it.requirements.has(key):
        return it.requirements.get(key)
    return None


_UNWEIGHED: Any = object()       # (`widening`: an offering's content not weighed yet)


def widening(pool: Pool, want: Want, index: TypeIndex | None = None) -> dict[str, str | None] | None:
    """The requirement keys to widen, each with the value to allow (None: drop it), for the type
    needing the fewest, then the cheapest; None when the requirements are not what keeps the pod out.
    `index`: the pass's TypeIndex (each distinct requirement and offering weighed once)."""
    if takes(pool, want):
        return None
    index = index if index is not None else TypeIndex()
    widenable = {_key(raw) for raw in pool.spec_requirements()}
    keys = list(pool.requirements.keys())
    total = resources.to_nanos(total_requests(pool, want))
    question = index.question(want.requirements)
    weighed: dict[tuple[int, int], dict[str, str | None] | None] = {}
    owns: dict[tuple, int] = {}         # a type's requirement ids on the pool's keys, interned (hashed once a type)
    allowed = question.offering_allowed
    best: tuple[tuple[int, float, str], dict[str, str | None]] | None = None
    for it in pool.instance_types:
        key_ids, offerings, allocatable = index.of(it)
        if not resources.fits_nanos(total, allocatable) or not question.compatible(it):
            continue
        own = owns.setdefault(tuple(map(key_ids.get, keys)), len(owns))
        for offering, offering_id in offerings:
            if not offering.available or not allowed(offering_id):
                continue
            need = weighed.get(content := (offering_id, own), _UNWEIGHED)
            if need is _UNWEIGHED:
                need = weighed[content] = _keys_to_widen(pool, want, it, offering, widenable)
            if need is None:
                continue
            if not need:
                return None                   # allowed already: something else keeps the pod out
            if best is not None and len(need) > best[0][0]:
                continue                      # (more keys than the best: never less)
            score = (len(need), offering.price, it.name)
            if best is None or score < best[0]:
                best = (score, need)
    return best[1] if best is not None else None


def _keys_to_widen(pool: Pool, want: Want, it: Any, offering: Any, widenable: set[str]
                   ) -> dict[str, str | None] | None:
    need: dict[str, str | None] = {}
    for key, allowed in pool.requirements.items():
        have = _narrowed(it, offering, key)
        if have is None:
            continue
        if want.requirements.has(key):
            have = have.intersection(want.requirements.get(key))
        if allowed.has_intersection(have):
            continue
        if key not in widenable:
            return None                       # a template label or the NodePool's own: not a requirement
        need[key] = have.values()[0] if not have.complement and have.value_set else None
    return need


def widen_ops(pool: Pool, need: Mapping[str, str | None]) -> tuple[list[Op], list[str]]:
    """Each requirement entry on a key to widen that excludes the value, widened (a value added,
    taken out, a bound moved) or dropped; drops last, from the end of the list."""
    changed: list[Op] = []
    removed: list[Op] = []
    words: list[str] = []
    for at, raw in enumerate(pool.spec_requirements()):
        key = _key(raw)
        if key not in need:
            continue
        value = need[key]
        if value is not None and _raw_requirement(raw).has(value):
            continue
        new = _widened(raw, value)
        if new is None:
            removed.append(pool_op(pool, "remove", pointer(*REQUIREMENTS, at)))
            words.append(f"drop the requirement {requirement_text(raw)}")
            continue
        if raw.get("operator") == IN:
            changed.append(pool_op(pool, "add", pointer(*REQUIREMENTS, at, "values", "-"), value))
        else:
            changed.append(pool_op(pool, "replace", pointer(*REQUIREMENTS, at, "values"), new["values"]))
        words.append(f"allow {key} {value}: requirement {requirement_text(raw)} -> {requirement_text(new)}")
    return changed + removed[::-1], words


def _widened(raw: Mapping[str, Any], value: str | None) -> dict[str, Any] | None:
    """The requirement allowing `value` too; None when it has to go."""
    operator = raw.get("operator")
    values = [str(v) for v in raw.get("values") or ()]
    if value is None or operator in (EXISTS, DOES_NOT_EXIST):
        return None
    if operator == IN:
        return {**raw, "values": [*values, value]}
    if operator == NOT_IN:
        left = [v for v in values if v != value]
        return {**raw, "values": left} if left else None
    if not value.lstrip("-").isdigit():
        return None
    n = int(value)
    bound = {GT: n - 1, LT: n + 1, GTE: n, LTE: n}.get(str(operator))
    return {**raw, "values": [str(bound)]} if bound is not None else None


# -- raise-limit ------------------------------------------------------------------------------------
def at_limit(ctx: KarpenterContext, pool: Pool, want: Want) -> bool:
    """The NodePool's limits keep the pod out (its error, a refused Create, or an allowed type that
    takes the pod); not when its template keeps the pod out anyway: Karpenter checks limits first."""
    if pool.node_pool.spec.limits is None or combined(pool, want) is None or untolerated(pool, want):
        return False
    err = want.errors.get(pool.name)
    if isinstance(err, NodePoolError) and err.message in LIMIT_ERRORS:
        return True
    placement = ctx.run.placements.get(want.pod.key)
    if placement is not None and placement.node_pool == pool.name and placement.create_error:
        return True
    return bool(takes(pool, want))


def raise_limit(ctx: KarpenterContext, want: Want) -> list[Idea]:
    """For the first pod, then (a pass of its own) for every pod of the shape."""
    out = []
    for pool in ctx.pools:
        if not at_limit(ctx, pool, want):
            continue
        smallest = _smallest_claim(pool, want)
        for attempt in (0, 1):
            out.append(Idea(None, pool.name, f"{RAISE_LIMIT} {pool.name} {want.pod.key}",
                            _limit_maker(ctx, pool, want, attempt, smallest)))
        if len(want.pods) > 1:
            for attempt in (0, 1):
                out.append(Idea(None, pool.name, f"{RAISE_LIMIT} {pool.name} {want.pod.key} all",
                                _limit_maker(ctx, pool, want, attempt, None)))
    return out


def _smallest_claim(pool: Pool, want: Want) -> dict[str, Fraction]:
    """Per resource, the least capacity of a type that would take the pod on its own NodeClaim."""
    fitting = takes(pool, want)
    names = {name for it in fitting for name in it.capacity}
    return {name: min(it.capacity.get(name, resources.ZERO).value for it in fitting) for name in names}


def _limit_maker(ctx: KarpenterContext, pool: Pool, want: Want, attempt: int,
                 smallest: Mapping[str, Fraction] | None) -> Callable[[], Candidate | None]:
    def make() -> Candidate | None:
        need = _limits_needed(ctx, pool, want, attempt, smallest)
        if need is None:
            return None
        limits = dict(((pool.obj.get("spec") or {}).get("limits") or {}))
        words = []
        for name, (value, why) in need.items():
            words.append(f"limits.{name} {limits.get(name)} -> {value} ({why})")
            limits[name] = value
        return Candidate(RAISE_LIMIT, f"NodePool {pool.name}", f"NodePool {pool.name}: raise {'; '.join(words)}",
                         (pool_op(pool, "replace", pointer("spec", "limits"), limits),))
    return make


def _limits_needed(ctx: KarpenterContext, pool: Pool, want: Want, attempt: int,
                   smallest: Mapping[str, Fraction] | None) -> dict[str, tuple[str, str]] | None:
    """Each limit to raise: (its new value, how it adds up): the usage, this pass's NodeClaims and the
    pod's (`smallest` type, or None: a pass without limits); `attempt` 1 adds one NodeClaim more, as
    Karpenter counts a NodeClaim's types as they were when it was made."""
    made = [c for c in ctx.run.result.node_claims if c.claim.node_pool_name == pool.name and c.create_error is None]
    if smallest is None:
        unbounded = ctx.rerun((pool_op(pool, "remove", pointer("spec", "limits")),))
        if unbounded is None:
            return None
        keys = set(want.keys)
        claims = [c for c in unbounded.result.node_claims if c.claim.node_pool_name == pool.name]
        if not any(keys & {p.key for p in c.claim.pods} for c in claims):
            return None
        made, what = [], f"what a pass without its limits makes ({len(claims)} NodeClaim{'s' if len(claims) > 1 else ''})"
    else:
        claims, what = [], "the pod's NodeClaim"
    used = ctx.run.cluster.node_pool_resources_for(pool.name)
    out: dict[str, tuple[str, str]] = {}
    for name, limit in (pool.node_pool.spec.limits or {}).items():
        in_use = used.get(name, resources.ZERO).value
        if name == NODES:
            taken, extra, step = Fraction(len(made)), Fraction(max(len(claims), 1)), Fraction(1)
        else:
            taken = sum((_largest(c, name) for c in made), Fraction(0))
            sizes = [_largest(c, name) for c in claims]
            extra = sum(sizes, Fraction(0)) if smallest is None else smallest.get(name, Fraction(0))
            step = max([*sizes, *(_largest(c, name) for c in made), extra])
        needed = in_use + taken + extra + attempt * step
        if needed <= limit.value:
            continue
        parts = [f"in use {quantity_text(name, in_use)}"]
        if made:
            parts.append(f"this pass's other NodeClaims {quantity_text(name, taken)}")
        parts.append(f"{what} {quantity_text(name, extra)}")
        if attempt:
            parts.append(f"one more NodeClaim {quantity_text(name, step)}")
        out[name] = (quantity_text(name, needed), ", ".join(parts))
    return out or None


def _largest(created: Any, name: str) -> Fraction:
    return max((it.capacity.get(name, resources.ZERO).value for it in created.claim.instance_type_options),
               default=Fraction(0))


def quantity_text(name: str, value: Fraction) -> str:
    """A resource amount as people write it (cpu in cores or millicores, memory in binary units), rounded up."""
    if name == resources.CPU:
        return format_milli(ceil(value * 1000))
    if name in (resources.MEMORY, "ephemeral-storage") or name.startswith("hugepages-"):
        return format_bytes(ceil(value))
    return str(ceil(value))


# -- relax-min-values --------------------------------------------------------------------------------
def relax_min_values(ctx: KarpenterContext, want: Want) -> list[Idea]:
    """minValues lowered to what the types that would take the pod have (dropped when they
    have none), or to the number of values the pod itself allows for the key."""
    out = []
    for pool in ctx.pools:
        spec = pool.spec_requirements()
        if not any(raw.get("minValues") is not None for raw in spec):
            continue
        short = dict(_short(ctx, pool, want) or {})
        ops, words = [], []
        for at, raw in enumerate(spec):
            key = _key(raw)
            if raw.get("minValues") is None:
                continue
            own = want.requirements.get(key) if want.requirements.has(key) else None
            if own is not None and not own.complement and 0 < len(own.value_set) < raw["minValues"]:
                count, why = len(own.value_set), f"the pod allows {len(own.value_set)}"
            elif key in short:
                count, why = short[key], f"the types that take the pod have {short[key]}"
            else:
                continue
            path = pointer(*REQUIREMENTS, at, "minValues")
            ops.append(pool_op(pool, "replace", path, count) if count >= 1 else pool_op(pool, "remove", path))
            words.append(f"minValues of {key} {raw['minValues']} -> {count if count >= 1 else 'none'} ({why})")
        if ops:
            out.append(Idea(Candidate(RELAX_MIN_VALUES, f"NodePool {pool.name}",
                                      f"NodePool {pool.name}: {'; '.join(words)}", tuple(ops)), pool.name))
    return out


def _short(ctx: KarpenterContext, pool: Pool, want: Want) -> Mapping[str, int] | None:
    """The minValues keys the types that would take the pod (minValues aside) fall short on,
    with their number of values; None when no type would take it anyway."""
    reqs = combined(pool, want)
    if reqs is None:
        return None
    allowed = [it for it, compatible, offering, _ in pool.index.compatibility(pool.requirements, pool.instance_types)
               if compatible and offering]
    fitting = takes(pool, want, allowed)
    if not fitting:
        return None
    _, short, _ = ctx.run.cloud.satisfies_min_values(fitting, reqs)
    return short


FAMILIES: Sequence[Callable[[KarpenterContext, Want], list[Idea]]] = (
    declare_label, widen_requirement, raise_limit, relax_min_values)
