"""device-claims: change what the pod's claims ask for (count, selector bound, DeviceClass), in the
ResourceClaim or ResourceClaimTemplate that holds it (never the pod, which only names them)."""
from __future__ import annotations

import re
from typing import Any

from kexplain.apimachinery.quantity import QuantityError, parse_quantity, value
from kexplain.suggest.change import Candidate
from kexplain.suggest.context import MAX_PER_REASON, Context
from kexplain.suggest.dra import ClaimSource, Facts, claim_source, dra_nodes, node_facts, pending_requests, \
    request_index, request_tokens
from kexplain.plugins.dra.explain import class_usage
from kexplain.plugins.dra.inventory import inventory
from kexplain.plugins.dra.pools import Pool, PoolError, gather_pools


ID = "device-claims"
LOWER_DEVICE_COUNT = "lower-device-count"
RELAX_DEVICE_SELECTOR = "relax-device-selector"
DROP_DEVICE_SELECTOR = "drop-device-selector"
USE_DEVICE_CLASS = "use-device-class"
KINDS = (LOWER_DEVICE_COUNT, RELAX_DEVICE_SELECTOR, DROP_DEVICE_SELECTOR, USE_DEVICE_CLASS)

# `X.compareTo(quantity('80Gi')) >= 0` and `X.isGreaterThan(quantity('100G'))`: lower bounds
# whose quantity can be relaxed to what the devices have.
_LOWER_BOUND = re.compile(r"""(?P<head>\.compareTo\(quantity\()(?P<q>['"][^'"]+['"])(?P<tail>\)\)\s*>=\s*0)""")


def _where(ctx: Context, claim: str, request: str) -> tuple[ClaimSource, tuple[Any, ...]] | None:
    source = claim_source(ctx.pod, claim)
    index = request_index(ctx, claim, request)
    if source is None or index is None:
        return None
    return source, request_tokens(index)


def _count(ctx: Context, facts: dict[str, Facts]) -> list[Candidate]:
    best: dict[tuple[str, str], tuple[int, int]] = {}     # (claim, request) -> (count, free)
    for f in facts.values():
        for claim, req in pending_requests(f):
            count, free = int(req.get("count") or 1), int(req.get("free") or 0)
            if req.get("allocationMode") == "All" or not 0 < free < count:
                continue
            key = (claim, str(req.get("request")))
            if key not in best or free > best[key][1]:
                best[key] = (count, free)
    out = []
    for (claim, request), (count, free) in best.items():
        found = _where(ctx, claim, request)
        if found is None:
            continue
        source, tokens = found
        out.append(Candidate(LOWER_DEVICE_COUNT, source.label,
                             f"lower the count of request {request} of claim {claim} from {count} to {free}: in "
                             f"{source.label}, set {source.field(*tokens, 'count')} to {free}",
                             (source.op("replace", *tokens, "count", value=free),)))
    return out


def _selectors(ctx: Context, facts: dict[str, Facts]) -> list[Candidate]:
    """Relax, then drop, each request selector that rejects devices (claim selectors only: a
    DeviceClass is shared, another class is the other family's idea)."""
    seen: dict[tuple[str, str, int], dict[str, Any]] = {}
    for f in facts.values():
        for claim, req in pending_requests(f):
            for d in req.get("devices") or ():
                sel = d.get("selector") or {}
                if d.get("reason") != "selectorFalse" or not str(sel.get("owner", "")).startswith("claim "):
                    continue
                entry = seen.setdefault((claim, str(req.get("request")), int(sel.get("index", 0))),
                                        {"expression": sel.get("expression", ""), "values": set()})
                entry["values"] |= {str(v.get("value")) for v in sel.get("values") or ()
                                    if v.get("value") and str(v.get("expression", "")).startswith("device.capacity")}
    out = []
    for (claim, request, index), entry in seen.items():
        found = _where(ctx, claim, request)
        if found is None:
            continue
        source, tokens = found
        field = source.field(*tokens, "selectors", index)
        expression = str(entry["expression"])
        relaxed = _relaxed(expression, entry["values"])
        if relaxed is not None:
            out.append(Candidate(RELAX_DEVICE_SELECTOR, source.label,
                                 f"relax selector {index} of request {request} of claim {claim}: in {source.label}, "
                                 f"set {field}.cel.expression to {relaxed}",
                                 (source.op("replace", *tokens, "selectors", index, "cel", "expression",
                                            value=relaxed),)))
        out.append(Candidate(DROP_DEVICE_SELECTOR, source.label,
                             f"drop selector {index} ({expression}) of request {request} of claim {claim}: in "
                             f"{source.label}, remove {field}",
                             (source.op("remove", *tokens, "selectors", index),)))
    return out


def _relaxed(expression: str, values: set[str]) -> str | None:
    """The expression with its one quantity lower bound lowered to the largest quantity the
    rejected devices have (the first of them when they cannot be compared)."""
    matches = list(_LOWER_BOUND.finditer(expression))
    quantities = sorted(v.strip('"') for v in values if re.fullmatch(r'"?[0-9.]+[a-zA-Z]*"?', v))
    if len(matches) != 1 or not quantities:
        return None
    best = max(quantities, key=_bytes)
    m = matches[0]
    return expression[:m.start("q")] + f"'{best}'" + expression[m.end("q"):]


def _bytes(q: str) -> float:
    try:
        return float(value(parse_quantity(q)))
    except QuantityError:
        return 0.0


def _classes(ctx: Context, facts: dict[str, Facts]) -> list[Candidate]:
    """Another DeviceClass with free devices on the rejected nodes, for a request none of them can serve."""
    inv = inventory(ctx.snapshot)
    stuck: dict[tuple[str, str], str] = {}
    for f in facts.values():
        for claim, req in pending_requests(f):
            if int(req.get("free") or 0) == 0:
                stuck.setdefault((claim, str(req.get("request"))), str(req.get("deviceClass")))
    if not stuck:
        return []
    free: dict[tuple[str, str], int] = {}       # (class, driver) -> free devices on the nodes
    for node in facts:
        info = ctx.info(node)
        if info is None:
            continue
        try:
            pools = gather_pools(inv.slices, info.node, inv.slices_for(node))
        except PoolError:
            continue
        for pool in pools:
            for name, cls in inv.classes.items():
                key = (name, pool.id.split("/", 1)[0])
                free[key] = free.get(key, 0) + class_usage(inv, [pool], cls)["free"]
    out = []
    for (claim, request), current in stuck.items():
        found = _where(ctx, claim, request)
        if found is None:
            continue
        source, tokens = found
        drivers = _drivers(inv, current)
        by_class: dict[str, int] = {}
        for (name, driver), k in free.items():
            if k and name != current and (not drivers or driver in drivers):
                by_class[name] = by_class.get(name, 0) + k
        others = sorted(by_class, key=lambda n: -by_class[n])
        for name in others[:MAX_PER_REASON]:
            out.append(Candidate(USE_DEVICE_CLASS, source.label,
                                 f"ask for DeviceClass {name} instead of {current} in request {request} of claim "
                                 f"{claim} ({by_class[name]} free device(s) of it on the rejected nodes): in "
                                 f"{source.label}, set {source.field(*tokens, 'deviceClassName')} to {name}",
                                 (source.op("replace", *tokens, "deviceClassName", value=name),)))
    return out


def _drivers(inv: Any, class_name: str) -> set[str]:
    """The drivers whose devices a class selects anywhere in the cluster, else those its
    selectors name: another class is only offered for the same kind of device (a GPU for a GPU)."""
    cls = inv.classes.get(class_name)
    if cls is None:
        return set()
    out = {pool.id.split("/", 1)[0] for pool in _all_pools(inv) if class_usage(inv, [pool], cls)["total"]}
    if not out:
        text = " ".join(str(e) for e in cls.selectors if e)
        out = {m[1] for m in re.finditer(r"""device\.driver\s*==\s*['"]([^'"]+)['"]""", text)}
    return out


def _all_pools(inv: Any) -> list[Pool]:
    """The cluster's slices as pools (per driver and pool name), whatever node they serve."""
    grouped: dict[tuple[str, str], list[Any]] = {}
    for s in inv.slices:
        grouped.setdefault((s.driver, s.pool), []).append(s)
    return [Pool(driver, name, tuple(slices)) for (driver, name), slices in grouped.items()]


def candidates(ctx: Context) -> list[Candidate]:
    """Lower a count, relax or drop a request selector, use another DeviceClass."""
    nodes = dra_nodes(ctx)
    if not nodes:
        return []
    facts = node_facts(ctx, nodes)
    return [*_count(ctx, facts), *_selectors(ctx, facts), *_classes(ctx, facts)]
