"""DynamicResources' facts in plain words: per claim and request which devices could serve it and
why the others cannot (the scheduler says only "cannot allocate all claims"), grouped so that a
node of 8 GPUs reads in a few lines. Reads the trace's facts only."""
from __future__ import annotations

import re
from typing import Any, Iterable, Mapping, Sequence

Facts = Mapping[str, Any]

DEVICES_NAMED = 6       # device names listed per group of devices
FREE = "free"
IN_USE = "inUse"
SELECTOR_FALSE = "selectorFalse"
SELECTOR_ERROR = "selectorError"

# How each reason reads after the count ("3 in use", ...); selectors and use get their details.
_REASON_WORDS = {
    FREE: "free",
    IN_USE: "in use",
    "poolIncomplete": "in a pool that is incomplete (not all of its ResourceSlices are published)",
    "poolInvalid": "in an invalid pool",
    "bindingConditions": "with bindingConditions (not allocatable: DRADeviceBindingConditions or "
                         "DRAResourceClaimDeviceStatus is off)",
    SELECTOR_FALSE: "rejected by a selector",
    SELECTOR_ERROR: "where a selector fails at runtime",
    "consumesCounters": "partitionable (consumesCounters; DRAPartitionableDevices is off)",
    "tainted": "with a taint the request does not tolerate",
    "capacity": "without the capacity the request asks for left",
}


def capped(names: Sequence[str], limit: int | None = DEVICES_NAMED) -> str:
    """`a, b, c` or `a, b, c and 4 more`."""
    if limit is None or len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[:limit]) + f" and {len(names) - limit} more"


# -- selectors ----------------------------------------------------------------------------------------

_PATH = re.compile(r"""^device\.(?:driver|(attributes|capacity)\[(['"])([^'"]+)\2\]\.(\w+))$""")
_QUANTITY = r"""quantity\((['"])([^'"]+)\1\)"""
_WANTS = [   # the rest of a conjunct after the path it reads -> what it wants
    (re.compile(r"^\.compareTo\(" + _QUANTITY + r"\)\s*(>=|<=|>|<|==|!=)\s*0$"), lambda m: f"{m[3]} {m[2]}"),
    (re.compile(r"^\.isGreaterThan\(" + _QUANTITY + r"\)$"), lambda m: f"> {m[2]}"),
    (re.compile(r"^\.isLessThan\(" + _QUANTITY + r"\)$"), lambda m: f"< {m[2]}"),
    (re.compile(r"^\s*(==|!=|>=|<=|>|<)\s*(['\"]?)([^'\"]*)\2$"), lambda m: f"{m[1]} {m[3]}"),
    (re.compile(r"^\s*in\s*\[(.*)\]$"), lambda m: "one of " + ", ".join(v.strip().strip("'\"")
                                                                         for v in m[1].split(","))),
    (re.compile(r"""^\.matches\((['"])(.*)\1\)$"""), lambda m: f"to match {m[2]}"),
    (re.compile(r"^\.major\(\)\s*(>=|<=|>|<|==|!=)\s*(\d+)$"), lambda m: f"major version {m[1]} {m[2]}"),
]


def _path_label(path: str) -> str | None:
    m = _PATH.match(path.strip())
    if m is None:
        return None
    if m[1] is None:
        return "driver"
    return f"{'attribute' if m[1] == 'attributes' else 'capacity'} {m[4]}"


def _unquote(value: Any) -> str:
    text = str(value)
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] == '"' else text


def where(selector: Facts) -> str:
    """The selector's place, as a field the user edits: `DeviceClass gpu spec.selectors[1]`
    (0-based, as the scheduler's `selector #1` counts) or `claim ns/name request selectors[0]`."""
    owner = str(selector.get("owner") or "")
    kind, _, name = owner.partition(" ")
    index = selector.get("index", 0)
    if kind == "class":
        return f"DeviceClass {name} spec.selectors[{index}]"
    return f"{owner} selectors[{index}]"


def selector_words(selector: Facts) -> str:
    """Why a selector is false for a device, with the value it read: `capacity memory 16Gi,
    selector wants >= 24Gi`; else the false conjunct and the values it read."""
    conjunct = str(selector.get("conjunct") or selector.get("expression") or "")
    reads = [(str(v.get("expression", "")), v.get("value")) for v in selector.get("values") or ()
             if "value" in v and _path_label(str(v.get("expression", ""))) is not None]
    for path, value in reads:
        if conjunct.startswith(path):
            rest = conjunct[len(path):].strip()
            for pattern, wants in _WANTS:
                m = pattern.match(rest)
                if m is not None:
                    return f"{_path_label(path)} {_unquote(value)}, selector wants {wants(m)}"
    missing = [str(v.get("expression")) for v in selector.get("values") or () if v.get("error")]
    if reads:
        read = ", ".join(f"{_path_label(p)} {_unquote(v)}" for p, v in reads)
        return f"{conjunct} is false ({read})"
    if missing:
        return f"{conjunct} is false ({', '.join(missing)}: {selector['values'][0].get('error')})"
    return f"{conjunct} is false" if conjunct else str(selector.get("summary") or "false")


# -- one request -------------------------------------------------------------------------------------

def device_name(device: str, single_pool: bool) -> str:
    """`gpu-0` for `gpu.example.com/node-1/gpu-0` when the node has one pool; else the whole ID."""
    return device.rsplit("/", 1)[-1] if single_pool else device


def _detail(d: Facts) -> str:
    """What sets a device's verdict apart, device names left out (the grouping key)."""
    reason = d.get("reason")
    if reason == SELECTOR_FALSE:
        sel = d.get("selector") or {}
        return f"{where(sel)}: {selector_words(sel)}"
    if reason == SELECTOR_ERROR:
        return str(d.get("error") or "")
    if reason == "poolInvalid":
        return str(d.get("detail") or "")
    if reason == "tainted":
        return str(d.get("taint") or "")
    return ""


def _use(d: Facts) -> str:
    """`claim team/a (pod team/a-0)` for an in-use device."""
    claims = ", ".join(d.get("by") or ())
    pods = d.get("pods") or []
    return f"claim {claims}" + (f" (pod {', '.join(pods)})" if pods else "")


def request_groups(req: Facts, single_pool: bool, named: bool) -> list[str]:
    """The request's devices grouped by verdict: `1 free: gpu-7`, `5 in use: gpu-0 by claim
    ...`, `2 rejected by DeviceClass gpu spec.selectors[0]: capacity memory 16Gi, selector
    wants >= 24Gi: gpu-5, gpu-6`. Counts cover every device (`reasons`); names the listed ones."""
    counts: dict[str, int] = dict(req.get("reasons") or {})
    listed: dict[tuple[str, str], list[Facts]] = {}
    for d in req.get("devices") or ():
        listed.setdefault((str(d.get("reason")), _detail(d)), []).append(d)
    if not counts:
        for (reason, _), ds in listed.items():
            counts[reason] = counts.get(reason, 0) + len(ds)
    out: list[str] = []
    order = [FREE, IN_USE, *(r for r in counts if r not in (FREE, IN_USE))]
    for reason in order:
        if not counts.get(reason):
            continue
        groups = [(detail, ds) for (r, detail), ds in listed.items() if r == reason]
        shown = sum(len(ds) for _, ds in groups)
        if reason in (SELECTOR_FALSE, SELECTOR_ERROR, "poolInvalid", "tainted") and groups:
            for detail, ds in groups:
                n = len(ds) + (counts[reason] - shown if (detail, ds) == groups[-1] else 0)
                head = "rejected by" if reason == SELECTOR_FALSE else _REASON_WORDS[reason] + ":"
                text = f"{n} {head} {detail}"
                out.append(text + (f": {capped([device_name(d['device'], single_pool) for d in ds])}"
                                   if named else ""))
            continue
        text = f"{counts[reason]} {_REASON_WORDS.get(reason, reason)}"
        ds = [d for _, group in groups for d in group]
        if named and ds:
            if reason == IN_USE:
                uses = [f"{device_name(d['device'], single_pool)} by {_use(d)}" for d in ds]
                text += ": " + capped(uses, 4)
            else:
                text += ": " + capped([device_name(d["device"], single_pool) for d in ds])
        out.append(text)
    return out


def _wanted(req: Facts) -> str:
    cls = req.get("deviceClass")
    what = "all devices" if req.get("allocationMode") == "All" else \
        f"{req.get('count', 1)} device{'' if req.get('count', 1) == 1 else 's'}"
    admin = ", admin access" if req.get("adminAccess") else ""
    missing = " (no such DeviceClass)" if req.get("deviceClassMissing") else ""
    return f"{what} of class {cls}{missing}{admin}"


def request_lines(req: Facts, single_pool: bool, named: bool, label: str = "request") -> list[str]:
    """A request's head line (what it wants, how many devices could serve it) and its groups,
    indented by two blanks."""
    total = sum((req.get("reasons") or {}).values()) or len(req.get("devices") or ()) + req.get("moreDevices", 0)
    if not total:
        return [f"{label} {req.get('request')} ({_wanted(req)}): the node has no devices"]
    head = f"{label} {req.get('request')} ({_wanted(req)}): {req.get('free', 0)} of {total} device(s) free for it"
    return [head] + ["  " + g for g in request_groups(req, single_pool, named)]


def claim_lines(claim: Facts, single_pool: bool, named: bool) -> list[str]:
    """One claim: allocated (where, which devices) or, to allocate, its requests, constraints
    and the devices kexplain would allocate."""
    name = f"claim {claim.get('claim')}"
    if claim.get("allocated"):
        devices = capped([device_name(d, single_pool) for d in claim.get("devices") or ()])
        if claim.get("availableOnNode"):
            return [f"{name}: already allocated ({devices}), usable on this node"]
        return [f"{name}: already allocated ({devices}); its allocation's node selector excludes this node"]
    out = [f"{name}: to allocate"]
    for req in claim.get("requests") or ():
        if "subrequests" in req:
            chosen = req.get("chosen")
            out.append(f"  request {req.get('request')}: a prioritized list (firstAvailable), " +
                       (f"subrequest {chosen} chosen" if chosen else "no subrequest can be satisfied here"))
            for sub in req.get("subrequests") or ():
                out += ["    " + line for line in request_lines(sub, single_pool, named, "subrequest")]
        else:
            out += ["  " + line for line in request_lines(req, single_pool, named)]
    for c in claim.get("constraints") or ():
        out += ["  " + line for line in constraint_lines(c, single_pool, named)]
    would = claim.get("wouldAllocate")
    if would:
        picks = ", ".join(f"{w['request']}: {device_name(w['device'], single_pool)}" for w in would)
        out.append(f"  kexplain would allocate: {picks}")
    return out


def constraint_lines(c: Facts, single_pool: bool, named: bool) -> list[str]:
    """A matchAttribute constraint: the values the candidate devices have (the devices of a
    solution must agree), and those lacking the attribute."""
    if c.get("matchAttribute") is None:
        return []
    over = ", ".join(c.get("requests") or ()) or "all requests"
    values = c.get("values") or []
    parts = []
    for v in values:
        value = str(v.get("value", "")).split(":", 1)[-1]
        ds = v.get("devices") or []
        parts.append(f"{value} ({capped([device_name(d, single_pool) for d in ds], 4)})" if named
                     else f"{value} ({len(ds)})")
    head = f"constraint matchAttribute {c['matchAttribute']} over {over}: "
    if not values:
        head += "no free device has the attribute"
    elif len(values) == 1:
        head += "free devices agree on " + parts[0]
    else:
        head += "free devices differ: " + "; ".join(parts)
    missing = c.get("missing") or []
    if missing:
        head += f"; lacking it: {capped([device_name(d, single_pool) for d in missing], 4) if named else len(missing)}"
    return [head]


# -- one node -----------------------------------------------------------------------------------------

def pool_lines(facts: Facts) -> list[str]:
    out = []
    if facts.get("poolsError"):
        out.append(f"pools: {facts['poolsError']}")
    pools = facts.get("pools") or []
    if not pools:
        out.append("no ResourceSlice publishes devices for this node")
    for p in pools:
        state = ""
        if p.get("incomplete") and p.get("allocatable"):
            state = (": incomplete as this node sees it (fewer of its slices target the node than it has): "
                     "its devices are still allocated, a request for all devices fails")
        elif p.get("incomplete"):
            state = ": incomplete (not all of its slices are published: its devices are not allocated)"
        elif p.get("invalid"):
            state = f": invalid ({p['invalid']})"
        out.append(f"pool {p.get('pool')}: {p.get('devices')} device(s) in {p.get('slices')} slice(s){state}")
    return out


def class_line(c: Facts) -> str:
    line = f"class {c.get('deviceClass')}: {c.get('total')} device(s), {c.get('inUse')} in use, {c.get('free')} free"
    if c.get("inUnusablePools"):
        line += f"; {c['inUnusablePools']} more in incomplete or invalid pools"
    if c.get("selectorErrors"):
        line += f"; {c['selectorErrors']} where the class's selectors fail"
    return line


def node_words(facts: Facts) -> list[str]:
    """The `--node` view's lines for DynamicResources: pools, each claim with its devices by
    name, the device classes' totals."""
    single = len(facts.get("pools") or ()) <= 1
    out = pool_lines(facts)
    for claim in facts.get("claims") or ():
        out += claim_lines(claim, single, named=True)
    out += [class_line(c) for c in facts.get("deviceClasses") or ()]
    return out


def signature(facts: Facts) -> tuple[str, ...]:
    """What a node's devices say, without device names: nodes with the same signature are
    rejected for the same reasons (the overview groups them)."""
    out = []
    if facts.get("poolsError"):
        out.append(f"pools: {facts['poolsError']}")
    if not facts.get("pools"):
        out.append("no ResourceSlice publishes devices for these nodes")
    for p in facts.get("pools") or ():
        if p.get("incomplete"):
            out.append("a pool is incomplete (not all of its ResourceSlices are published)")
        elif p.get("invalid"):
            out.append(f"a pool is invalid: {p['invalid']}")
    for claim in facts.get("claims") or ():
        if claim.get("allocated") and claim.get("availableOnNode"):
            continue
        out += claim_lines(claim, True, named=False)
    return tuple(out)


def node_failed(facts: Facts) -> bool:
    return ((facts.get("verdict") or {}).get("code") or "Success") != "Success"


def error_device(facts: Facts) -> Facts | None:
    """The first device whose selector failed at runtime, with its request (the device that
    ended the cycle with an Error)."""
    for claim in facts.get("claims") or ():
        for req in claim.get("requests") or ():
            for sub in req.get("subrequests") or (req,):
                for d in sub.get("devices") or ():
                    if d.get("reason") == SELECTOR_ERROR:
                        return {"claim": claim.get("claim"), "request": sub.get("request"), **d}
    return None


def dra_facts(trace: Mapping[str, Any]) -> dict[str, Facts]:
    """node -> its DynamicResources facts, for the nodes the trace has them for."""
    nodes = ((trace.get("details") or {}).get("nodes") or {})
    return {n: dra for n, f in nodes.items()      # (most nodes have none: no type check for them)
            if (dra := (f.get("plugins") or {}).get("DynamicResources")) is not None
            and isinstance(dra, Mapping) and "claims" in dra}


def group_nodes(items: Iterable[tuple[str, Any]]) -> list[tuple[Any, list[str]]]:
    """(key, nodes) for equal keys, most nodes first, then first seen."""
    groups: dict[Any, list[str]] = {}
    for node, key in items:
        groups.setdefault(key, []).append(node)
    return sorted(groups.items(), key=lambda kv: -len(kv[1]))
