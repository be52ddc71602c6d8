"""`kexplain karpenter` in words, read only from the `-o json` document: summary, pods, why each
is not placed on every NodePool, NodeClaims, NodePools, events; `--nodepool NAME` in full.
Tables fit the width (each column at least its longest word, up to `MAX_FLOOR`), else rows
become labelled lines."""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

from rich.console import Console, Group
from rich.padding import Padding
from rich.text import Text

from kexplain.render.blocks import BULLET, Block, indented_line, lines_block, numbered_line, print_blocks
from kexplain.apimachinery.quantity import QuantityError, parse_quantity, value
from kexplain.render.cluster_autoscaler import names_table
from kexplain.render.style import GAP, Look, is_bytes, longest_word, plural, quantity, wrap, wrap_widths, wrapped
from kexplain.render.views import admission_text
from kexplain.render.words import tables

RESULT_WORDS, OFFERING_REASONS = tables("karpenter", "RESULT_WORDS", "OFFERING_REASONS")
MAX_TYPES_SHOWN = 5
MAX_FLOOR = 24            # a column never narrower than its longest word, up to this
LAYOUT_ROWS = 100         # rows whose wrapped lines decide the column widths
INDENT = 2

SOURCE_WORDS = {"spec.volumes": "the pod's volumes' zones", "topology": "topology spread / pod (anti-)affinity"}
OVERHEAD_WORDS = (("vmOverhead", "VM overhead"), ("kubeReserved", "kube-reserved"),
                  ("systemReserved", "system-reserved"), ("evictionThreshold", "eviction threshold"))


# -- layout helpers ----------------------------------------------------------------------------------
def column_widths(width: int, columns: Sequence[tuple[str, Sequence[str]]]) -> list[int] | None:
    """Column widths within `width`: narrowed one column at a time by the step adding the fewest
    wrapped lines, none below its longest word (up to MAX_FLOOR); None when that does not fit."""
    natural, floors, texts = [], [], []
    for header, cells in columns:
        lines = [line for c in (header, *cells) for line in c.splitlines()] or [""]
        full = max(len(line) for line in lines)
        natural.append(full)
        floors.append(min(full, max(longest_word([header]), min(longest_word(lines), MAX_FLOOR))))
        texts.append([header, *cells[:LAYOUT_ROWS]])
    room = width - GAP * (len(columns) - 1)
    if sum(floors) > room:
        return None
    cache: dict[tuple[int, int], list[int]] = {}

    def heights(i: int, w: int) -> list[int]:
        if (i, w) not in cache:
            cache[(i, w)] = [sum(len(wrap_widths(line, w)) for line in cell.splitlines() or [""]) for cell in texts[i]]
        return cache[(i, w)]

    def folds(i: int, w: int) -> int:
        """Breaks inside a word (a name cut in pieces reads worse than a wrapped sentence)."""
        return sum(-(-len(word) // w) - 1 for cell in texts[i] for word in cell.split() if len(word) > w)

    widths = list(natural)
    while sum(widths) > room:
        current = [heights(i, w) for i, w in enumerate(widths)]
        best: tuple[int, int, int] | None = None
        for i, w in enumerate(widths):
            if w <= floors[i]:
                continue
            trial = current[:i] + [heights(i, w - 1)] + current[i + 1:]
            total = sum(max(row) for row in zip(*trial)) + sum(folds(k, widths[k] - (k == i)) for k in range(len(widths)))
            if best is None or (total, -w) < best[:2]:
                best = (total, -w, i)
        assert best is not None
        widths[best[2]] -= 1
    return widths


def table_block(look: Look, title: str, headers: Sequence[str], rows: Sequence[Sequence[str]],
                right: Iterable[int] = ()) -> Block:
    """A table that fits the width, or its rows as labelled lines when it cannot."""
    right = set(right)
    widths = column_widths(look.width, [(h, [r[i] for r in rows]) for i, h in enumerate(headers)])
    if widths is None:
        lines: list[Any] = [Text(title, style="bold")]
        for row in rows:
            lines.append(Text(f"{headers[0]}: {row[0]}", style="bold"))
            lines += [Padding(Text(f"{h}: {v}"), (0, 0, 0, INDENT)) for h, v in zip(headers[1:], row[1:]) if v]
        return Block(Group(*lines))
    table = look.table(title)
    for i, (header, w) in enumerate(zip(headers, widths)):
        table.add_column(header, width=w, overflow="fold", justify="right" if i in right else "left")
    for row in rows:
        table.add_row(*row)
    return Block(table)


GI, MI = 1 << 30, 1 << 20


def _size(resource: str, amount: Any) -> str:
    """An amount of a shortfall line, read at a glance: bytes from 1Gi in Gi with one decimal
    (13.8Gi), from 1Mi in whole Mi (893Mi); anything else as `quantity` writes it."""
    if not is_bytes(resource):
        return quantity(resource, amount)
    try:
        n = value(parse_quantity(str(amount)))
    except QuantityError:
        return str(amount)
    if n >= GI:
        return f"{n / GI:.1f}".rstrip("0").rstrip(".") + "Gi"
    if n >= MI:
        return f"{round(n / MI)}Mi"
    return quantity(resource, amount)


def _shown(names: Sequence[str], total: int) -> str:
    text = ", ".join(names)
    return text + (f" and {total - len(names)} more" if total > len(names) else "")


# -- the blocks ----------------------------------------------------------------------------------------
def summary_blocks(doc: Mapping[str, Any], look: Look) -> list[Block]:
    summary = doc.get("summary") or {}
    counts = ", ".join(f"{n} {r}" for r, n in (summary.get("pods") or {}).items())
    claims = summary.get("newNodeClaims", 0)
    head = Text.assemble(("Karpenter: ", "bold"), (f"{plural(claims, 'new NodeClaim')}", "bold"),
                         (f"; pods: {counts or 'none'}", ""))
    out = [Block(head), Block(Text(doc.get("karpenter", ""), style="dim"), gap=False)]
    aws = (doc.get("explained") or {}).get("awsData")
    if aws:
        out.append(Block(Text(aws_source(aws), style="dim"), gap=False))
        if aws.get("prices"):
            out.append(Block(Text(f"Prices: {aws['prices']}", style="dim"), gap=False))
    admission = admission_text(doc)        # the tolerations the cluster's API server gave the pods
    if admission:
        out.append(Block(Text(wrap(admission, look.width), style="dim"), gap=False))
    if doc.get("scheduleError"):
        out.append(Block(Text(f"error: {doc['scheduleError']}", style="red")))
    return out


def aws_source(aws: Mapping[str, Any]) -> str:
    """Where the instance types and prices come from, and when they were taken."""
    text = f"Instance types and prices from {aws.get('source', '')}, region {aws.get('region', '')}"
    return text + (f" (taken {aws['taken']})" if aws.get("taken") and aws["taken"] not in text else "")


def _where(pod: Mapping[str, Any]) -> str:
    if pod.get("result") == "NewNodeClaim":
        return f"NodeClaim {pod.get('nodeClaim')} (NodePool {pod.get('nodePool')})"
    if pod.get("result") == "ExistingNode":
        parts = [f"node {pod['node']}" if pod.get("node") else "",
                 f"NodeClaim {pod['nodeClaim']}" if pod.get("nodeClaim") else ""]
        return ", ".join(p for p in parts if p)
    return ""


def pods_blocks(doc: Mapping[str, Any], look: Look) -> list[Block]:
    """Every pending pod's result and where it goes, pod names never cut (`names_table`, as the
    Cluster Autoscaler's pending pods are shown)."""
    rows: list[tuple[str, tuple[str, ...], Any]] = []
    for pod in doc.get("pods") or ():
        result = pod.get("result", "")
        words = f"{result} ({RESULT_WORDS[result]})" if result in RESULT_WORDS else result
        rows.append((pod.get("pod", ""), (words,), wrapped(_where(pod))))
    for missing in (doc.get("pendingPass") or {}).get("notYetCreated") or ():     # a list's: not in the pass
        pods = list(missing.get("pods") or ())
        label = pods[0] if len(pods) == 1 else f"{pods[0]} ... {pods[-1].split('/', 1)[-1]} ({len(pods)} pods)"
        rows.append((label, ("not created (no answer)",), wrapped(str(missing.get("why") or ""))))
    if not rows:
        return [Block(Text("No pending pods."))]
    return [Block(names_table(look, "Pending pods", ("pod", "result", "where"), rows))]


def why_blocks(doc: Mapping[str, Any], look: Look) -> list[Block]:
    """Per pod Karpenter does not place: its error, then every NodePool's verdict."""
    explained = doc.get("explained")
    if explained is None:
        return _plain_reasons(doc)
    skipped = [p for p in explained.get("nodePools") or () if not p.get("tried")]
    out: list[Block] = []
    for entry in explained.get("pods") or ():
        if entry.get("result") in ("NewNodeClaim", "ExistingNode"):
            continue
        out += pod_why(entry, skipped, look)
    return out


def _plain_reasons(doc: Mapping[str, Any]) -> list[Block]:
    """Karpenter's errors alone (a document without `explained`)."""
    out = []
    for pod in doc.get("pods") or ():
        per_pool = pod.get("nodePoolErrors") or ()
        lines = [f"NodePool {e['nodePool']}: {e['error']}" for e in per_pool] or \
            [t for t in (pod.get("error"), pod.get("why")) if t]
        if lines:
            out.append(lines_block([(0, f"Why: {pod['pod']}"), *((1, line) for line in lines)]))
    return out


def pod_why(entry: Mapping[str, Any], skipped: Sequence[Mapping[str, Any]], look: Look) -> list[Block]:
    """One pod: Karpenter's own error, then every NodePool, the nodes and NodeClaims it does not
    go to, the NodePools not tried."""
    head = Text.assemble(("Why not placed: ", "bold"), (entry["pod"], "bold"), (f" ({entry.get('result')})", ""))
    items: list[tuple[int, str]] = []
    if entry.get("karpenter"):
        items.append((1, f"Karpenter: {entry['karpenter']}"))
    items += [(1, entry[key]) for key in ("why", "dra") if entry.get(key)]
    if entry.get("nodeSelectorTerms"):
        items.append((1, f"{entry['nodeSelectorTerms']} required node affinity terms: Karpenter tries them in order "
                         f"and last tries term {entry['termTried']} alone, with every preference relaxed"))
    pools = list(entry.get("nodePools") or ())
    if pools and all(p.get("karpenter") for p in pools):
        items = [i for i in items if not i[1].startswith("Karpenter: ")]     # said per NodePool below
    blocks = [Block(head), lines_block(items, gap=False)] if items else [Block(head)]
    for pool in pools:
        blocks.append(lines_block(pool_lines(pool), gap=False))
    blocks += [lines_block(lines, gap=False) for lines in (nodes_lines(entry), skipped_lines(skipped)) if lines]
    return blocks


def pool_lines(pool: Mapping[str, Any], detail: bool = False) -> list[tuple[int, str]]:
    """Everything that stands in the pod's way on one NodePool (`- ` items), then with `detail`
    what it offers the pod (instance types, offerings)."""
    blocking, info = pool_findings(pool)
    head = f"NodePool {pool['nodePool']} (weight {pool.get('weight', 0)})"
    count = sum(1 for level, _ in blocking if level == 0)
    if not count:
        verdict = pool.get("verdict")
        head += ": " + (f"nothing found in the way; Karpenter's check now: {verdict}" if verdict
                        else "nothing in the way now (the state at the end of the pass would take it)")
        out = [(1, head)]
    else:
        out = [(1, f"{head}: {plural(count, 'thing')} in the way")]
        if pool.get("karpenter"):
            out.append((2, f"Karpenter's error here: {pool['karpenter']}"))
        out += [(2, BULLET + line) if level == 0 else (3, line) for level, line in blocking]
    if detail:
        out += [(2 + level, line) for level, line in info]
    return out


def pool_findings(pool: Mapping[str, Any]) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(what is in the way, what the NodePool offers otherwise): (0, item) and (1, its
    continuation) lines."""
    out = [(0, f"taint {t['taint']} is not tolerated (spec.tolerations)") for t in pool.get("taints") or ()]
    if pool.get("hostPorts"):
        out.append((0, f"host ports: {pool['hostPorts']}"))
    clean = pool.get("termsWithoutProblems")
    for p in pool.get("requirements") or ():
        out += requirement_lines(p)
    if clean:
        out.append((1, "(required node affinity term" + ("s " if len(clean) > 1 else " ")
                    + ", ".join(str(i) for i in clean) + " has no such problem here)"))
    out += [(0, f"volumes: {text}") for text in pool.get("volumes") or ()]
    if pool.get("topology"):
        out.append((0, f"topology: {pool['topology']}"))
    if pool.get("minValues"):
        out.append((0, f"minValues: {pool['minValues']}"))
    info: list[tuple[int, str]] = []
    for lines, decides in (instance_type_lines(pool.get("instanceTypes") or {}),
                           offering_lines(pool.get("offerings"))):
        (out if decides else info).extend(lines)
    out += limit_lines(pool.get("limits"))
    return out, info


def _fields(fields: Sequence[str]) -> str:
    return " and ".join(fields) if fields else "the pod's requirement"


def requirement_lines(p: Mapping[str, Any]) -> list[tuple[int, str]]:
    where = _fields(p.get("fields") or ())
    label = p.get("undefinedLabel")
    if label is None:
        pool_side = p.get("nodePool", "")
        pool_fields = p.get("nodePoolFields") or ()
        if pool_fields:
            pool_side += f" ({', '.join(pool_fields)})"
        return [(0, f"{where} ({p['requirement']}) conflicts with the NodePool's {pool_side}: {p['error']}")]
    out = [(0, f"{where} ({p['requirement']}): {p['error']}")]
    if label.get("restricted"):
        out.append((1, f"no NodePool may declare it: {label['restricted']}"))
        return out
    ways = []
    for d in label.get("declare") or ():
        if d.get("operator") is None:
            value = d.get("value") or "<any value>"
            ways.append(f"a template label {d['key']}: {value} ({d['field']})")
        elif d.get("values"):
            ways.append(f"a requirement {{key: {d['key']}, operator: {d['operator']}, values: "
                        f"[{', '.join(d['values'])}]}} ({d['field']})")
        else:
            ways.append(f"a requirement {{key: {d['key']}, operator: {d['operator']}}} ({d['field']})")
    if ways:
        out.append((1, f"the NodePool must declare label {label['key']}: " + ", or ".join(ways)))
    return out


def instance_type_lines(its: Mapping[str, Any]) -> tuple[list[tuple[int, str]], bool]:
    """The instance types left at each step; whether they decide (none left at some step)."""
    if not its:
        return [], False
    steps = [f"{its.get('offered', 0)} offered", f"{its.get('nodePool', 0)} left by the NodePool's requirements",
             f"{its.get('requirements', 0)} by the pod's", f"{its.get('offering', 0)} with an available offering",
             f"{its.get('resources', 0)} with enough resources"]
    if "limits" in its:
        steps.append(f"{its['limits']} within the limits")
    decides = its.get("requirements", 0) == 0 or its.get("offering", 0) == 0 or its.get("resources", 0) == 0 \
        or its.get("limits", 1) == 0
    out = [(0, "instance types: " + ", ".join(steps))]
    for e in its.get("excludedBy") or ():
        out.append((1, _excluded_text(e, its.get("nodePool", 0))))
    if its.get("resources", 0) == 0 and its.get("requests"):
        need = ", ".join(f"{r['resource']} {quantity(r['resource'], r['need'])}" for r in its["requests"])
        out.append((1, f"pod + DaemonSets need {need}"))
        enough = ", ".join(f"{r['resource']} {r['enough']}" for r in its["requests"] if r["enough"] < r["of"])
        if enough:
            out.append((1, f"types with enough (of {its['requests'][0]['of']}): {enough}"))
        for name in its.get("missing") or ():
            out.append((1, f"no instance type left has any {name}"))
        otherwise = its.get("enoughOtherwise")
        if otherwise:
            out.append((1, f"{plural(otherwise['count'], 'type')} would have enough of everything else: "
                           f"{_shown(otherwise['names'], otherwise['count'])}"))
        for c in its.get("closest") or ():
            out.append((1, "closest: " + closest_text(c)))
    return out, decides


def closest_text(c: Mapping[str, Any]) -> str:
    """`m5.xlarge: memory 14Gi allocatable (16Gi - 1.1Gi VM overhead - ...), pod + DaemonSets
    need 16.3Gi: 2.1Gi short`."""
    parts = []
    for s in c.get("short") or ():
        r = s["resource"]
        start = s.get("hardware") or s.get("capacity")
        minus = [f"{_size(r, s[k])} {words}" for k, words in OVERHEAD_WORDS if s.get(k)]
        how = f" ({_size(r, start)} - " + " - ".join(minus) + ")" if minus else ""
        need = f"{_size(r, s['pod'])} + {_size(r, s['daemonSets'])}" if s.get("daemonSets") not in (None, "0") else ""
        parts.append(f"{r} {_size(r, s['allocatable'])} allocatable{how}, pod + DaemonSets need "
                     f"{_size(r, s['need'])}" + (f" ({need})" if need else "") + f": {_size(r, s['short'])} short")
    return f"{c['name']}: " + "; ".join(parts)


def offering_lines(offerings: Mapping[str, Any] | None) -> tuple[list[tuple[int, str]], bool]:
    """The zones and capacity types possible, the unavailable offerings and why; whether they
    decide (none possible)."""
    if not offerings:
        return [], False
    zones = offerings.get("zones") or []
    decides = not zones
    where = (f"zones {', '.join(zones)}; capacity types {', '.join(offerings.get('capacityTypes') or [])}"
             if zones else "none available where the requirements allow")
    n = offerings.get("instanceTypes", 0)
    of = {"fit": f"of the {plural(n, 'type')} that meet the requirements and fit",
          "requirements": f"of the {plural(n, 'type')} that meet the requirements",
          "nodePool": f"of the NodePool's {plural(n, 'type')}"}.get(offerings.get("of", ""), "")
    out = [(0, f"offerings {of}: {where}")]
    excluded = [f"zones {', '.join(offerings['zonesExcluded'])}" if offerings.get("zonesExcluded") else "",
                f"capacity types {', '.join(offerings['capacityTypesExcluded'])}"
                if offerings.get("capacityTypesExcluded") else ""]
    if any(excluded):
        out.append((1, "excluded by the requirements: " + "; ".join(e for e in excluded if e)))
    for u in offerings.get("unavailable") or ():
        why = ", ".join(OFFERING_REASONS.get(r, r) for r in u.get("reasons") or ())
        out.append((1, f"{u['zone']} {'/'.join(u.get('capacityTypes') or [])} unavailable: {why} "
                       f"({_shown(u.get('names') or [], u.get('instanceTypes', 0))})"))
    return out, decides


def limit_lines(limits: Mapping[str, Any] | None) -> list[tuple[int, str]]:
    if not limits:
        return []
    used = ", ".join(f"{r['resource']} {quantity(r['resource'], r['used'])}/{quantity(r['resource'], r['limit'])}"
                     for r in limits.get("resources") or ())
    if limits.get("exhausted"):
        out = [(0, f"limits: no node left under the NodePool's limits (used/limit: {used})")]
    else:
        out = [(0, f"limits: {plural(limits.get('exceeding', 0), 'instance type')} that would take the pod "
                   f"exceed what is left under the NodePool's limits (used/limit: {used})")]
    smallest = limits.get("smallest")
    if smallest and not limits.get("exhausted"):
        over = ", ".join(f"{o['resource']} {quantity(o['resource'], o['capacity'])} > "
                         f"{quantity(o['resource'], o['remaining'])} left" for o in smallest.get("over") or ())
        out.append((1, f"the smallest, {smallest['name']}: {over}"))
    return out


def nodes_lines(entry: Mapping[str, Any]) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for key, words in (("existingNodes", "existing nodes"), ("inflightNodeClaims", "in-flight NodeClaims")):
        group = entry.get(key)
        if not group:
            continue
        out.append((1, f"{words}: {group['considered']} considered"))
        for row in group.get("reasons") or ():
            reason = row["reason"] or "would take it now"
            if row.get("resources"):
                reason += f" ({', '.join(row['resources'])})"
            out.append((2, f"- {reason}: {_shown(row.get('names') or [], row['count'])}"))
    claims = entry.get("newNodeClaims") or ()
    if claims:
        out.append((1, f"NodeClaims of this pass: {len(claims)}"))
        out += [(2, f"- {c['nodeClaim']} (NodePool {c['nodePool']}): {c['reason'] or 'would take it now'}")
                for c in claims]
    return out


def skipped_lines(skipped: Sequence[Mapping[str, Any]]) -> list[tuple[int, str]]:
    out = []
    for p in skipped:
        out.append((1, f"NodePool {p['nodePool']} (weight {p.get('weight', 0)}): not tried: {p.get('why', '')}"))
        for e in p.get("excludedBy") or ():
            out.append((2, _excluded_text(e, p.get("offered", 0))))
        out += [(level + 2, text) for level, text in offering_lines(p.get("offerings"))[0]]
    return out


def _excluded_text(e: Mapping[str, Any], of: int) -> str:
    who = ", ".join(SOURCE_WORDS.get(f, f) for f in e.get("fields") or ()) or "the NodeClaim's requirements"
    have = ", ".join(e.get("typesHave") or ()) or "none"
    if e.get("typesHaveCount", 0) > len(e.get("typesHave") or ()):
        have += f" and {e['typesHaveCount'] - len(e['typesHave'])} more"
    return f"{e['requirement']} ({who}) leaves {e['left']} of {of}; the types have {e['key']}: {have}"


def cheapest_types(claim: Mapping[str, Any]) -> str:
    """A NodeClaim's cheapest instance types with their prices (MAX_TYPES_SHOWN, then how many more)."""
    pairs = [f"{t} ${p}" for t, p in zip(claim.get("instanceTypes") or (), claim.get("prices") or ())]
    return _shown(pairs[:MAX_TYPES_SHOWN], len(pairs))


def node_claims_blocks(doc: Mapping[str, Any], look: Look) -> list[Block]:
    claims = doc.get("nodeClaims") or ()
    if not claims:
        return []
    rows = []
    for c in claims:
        types = cheapest_types(c)
        if c.get("createError"):
            types += f"\ncreate failed: {c['createError']}"
        requests = ", ".join(f"{k} {quantity(k, v)}" for k, v in (c.get("requests") or {}).items())
        pods = "\n".join(c.get("pods") or ()) + (f"\nrequests: {requests}" if requests else "")
        rows.append((f"{c.get('name', '')}\nNodePool {c.get('nodePool', '')}", pods, types))
    out = [table_block(look, "New NodeClaims", ("nodeclaim", "pods (requests with DaemonSets)",
                                                "instance types ($/hour), cheapest first"), rows)]
    tied = [c.get("name", "") for c in claims if len(set(c.get("prices") or ())) < len(c.get("prices") or ())]
    if tied:
        out.append(Block(Text(f"{', '.join(tied)}: some instance types cost the same; Karpenter orders equal prices "
                              "with Go's unstable sort.Slice over its provider's list, whose order a real cluster "
                              "does not fix (here: sort.Slice over the types in name order)", style="dim"), gap=False))
    return out


def node_pools_blocks(doc: Mapping[str, Any], look: Look) -> list[Block]:
    explained = {p["nodePool"]: p for p in (doc.get("explained") or {}).get("nodePools") or ()}
    rows = []
    for np in doc.get("nodePools") or ():
        e = explained.get(np.get("name", ""), {})
        state = "ready" if np.get("ready") else "not ready: " + "; ".join(np.get("notReady") or ())
        if e and not e.get("tried") and np.get("ready"):
            state += f"; not tried: {e.get('why', '')}"
        limits = ", ".join(f"{r['resource']} {quantity(r['resource'], r['used'])}/{quantity(r['resource'], r['limit'])}"
                           if r.get("used") else f"{r['resource']} {quantity(r['resource'], r['limit'])}"
                           for r in e.get("limits") or ())
        if limits:
            state += f"; limits (used/limit) {limits}"
        types = f"{np.get('instanceTypeCount', 0)} offered"
        if "instanceTypes" in e:
            types += f", {e['instanceTypes']} left by its requirements"
        overhead = ", ".join(f"{k} {quantity(k, v)}" for k, v in (e.get("daemonSetOverhead") or {}).items() if v != "0")
        rows.append((np.get("name", ""), str(np.get("weight", 0)), types, overhead, state))
    headers = ["nodepool", "weight", "instance types", "DaemonSet overhead", "state"]
    if not any(r[3] for r in rows):         # no DaemonSet lands on any NodePool's nodes
        del headers[3]
        rows = [(*r[:3], r[4]) for r in rows]
    return [table_block(look, "NodePools", headers, rows, right=(1,))]


def events_blocks(doc: Mapping[str, Any], look: Look) -> list[Block]:
    events = doc.get("events") or ()
    if not events:
        return []
    lines = [Text("Events", style="bold")]
    lines += [Text(f"{e['object']}: {e['type']} {e['reason']}: {e['message']}") for e in events]
    return [Block(Group(*lines))]


BLOCKS: list[Callable[[Mapping[str, Any], Look], list[Block]]] = [
    summary_blocks, pods_blocks, why_blocks, node_claims_blocks, node_pools_blocks, events_blocks]


def render(doc: Mapping[str, Any], look: Look) -> list[Block]:
    """The blocks of the pass, in `BLOCKS` order."""
    return [b for block in BLOCKS for b in block(doc, look)]


def render_node_pool(doc: Mapping[str, Any], name: str, look: Look) -> list[Block]:
    """`--nodepool NAME`: the NodePool's facts, then its full verdict for every pod explained."""
    explained = doc.get("explained") or {}
    pool = next((p for p in explained.get("nodePools") or () if p["nodePool"] == name), {})
    stored = next((p for p in doc.get("nodePools") or () if p.get("name") == name), {})
    head = Text.assemble(("NodePool ", "bold"), (name, "bold"), (f" (weight {pool.get('weight', 0)})", ""))
    facts: list[tuple[int, str]] = []
    if not stored.get("ready", True):
        facts.append((1, "not ready: " + "; ".join(stored.get("notReady") or ())))
    if pool.get("tried"):
        facts.append((1, f"tried by the scheduler: {pool.get('offered', 0)} instance types offered, "
                         f"{pool.get('instanceTypes', 0)} left by its requirements"))
        overhead = ", ".join(f"{k} {quantity(k, v)}" for k, v in (pool.get("daemonSetOverhead") or {}).items()
                             if v != "0")
        facts.append((1, f"DaemonSet overhead: {overhead or 'none'}"))
    else:
        facts += skipped_lines([pool])
    if pool.get("limits"):
        facts.append((1, "limits (used/limit): " + ", ".join(
            f"{r['resource']} {quantity(r['resource'], r.get('used', '?'))}/{quantity(r['resource'], r['limit'])}"
            for r in pool["limits"])))
    blocks = [*summary_blocks(doc, look), Block(head), lines_block(facts, gap=False)]
    for entry in explained.get("pods") or ():
        result = entry.get("result")
        placed = _where(entry)
        title = Text.assemble(("Pod ", "bold"), (entry["pod"], "bold"),
                              (f": {result}" + (f", {placed}" if placed else ""), ""))
        blocks.append(Block(title))
        verdict = next((p for p in entry.get("nodePools") or () if p.get("nodePool") == name), None)
        if entry.get("nodePool") == name:
            blocks.append(lines_block([(1, "placed on this NodePool")], gap=False))
        if verdict is not None:
            blocks.append(lines_block(pool_lines(verdict, detail=True), gap=False))
        elif entry.get("karpenter") or entry.get("why"):
            blocks.append(lines_block([(1, t) for t in (entry.get("karpenter"), entry.get("why")) if t], gap=False))
    return blocks


def suggestions_blocks(doc: Mapping[str, Any], look: Look) -> list[Block]:
    """The verified fix suggestions (`suggestions`): each change, the pods it places and where,
    and the change as YAML; said plainly when none was verified."""
    if "suggestions" not in doc:
        return []
    found = doc.get("suggestions") or ()
    if not found:
        return [Block(Text("No single change was verified to make Karpenter place the pods it could not place.",
                           style="bold"))]
    shapes = any((s.get("verified") or {}).get("scope") == "shape" for s in found)
    out = [Block(Text("What would make Karpenter place them (each change verified by running Karpenter's pass "
                      "again" + (", with one pod of each shape it concerns" if shapes else "") + ")", style="bold"))]
    for number, s in enumerate(found, start=1):
        lines: list[Any] = [numbered_line(number, str(s.get("description", "")))]
        lines += [indented_line(2, f"{shown} -> {where}") for shown, where in suggestion_places(s)]
        lines += [_yaml_line(line) for line in str(s.get("yaml") or "").splitlines()]
        out.append(Block(Group(*lines), gap=False))
    return out


def _yaml_line(line: str) -> Any:
    """A line of a change's YAML, indented under the suggestion; wrapped, it goes on at its own
    indentation."""
    text = line.lstrip(" ")
    return Padding(Text(text, style="dim"), (0, 0, 0, 3 * INDENT + len(line) - len(text)))


def suggestion_places(s: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(the pods, where the pass run again put them), one per place."""
    verified = s.get("verified") or {}
    claim_of = {pod: c for c in verified.get("nodeClaims") or () for pod in c.get("pods") or ()}
    places: dict[str, tuple[list[str], set[str]]] = {}
    for p in verified.get("pods") or ():
        claim = claim_of.get(p.get("pod"))
        if p.get("result") == "NewNodeClaim" and claim is not None:
            more = claim.get("instanceTypeCount", 0) - len(claim.get("instanceTypes") or ())
            where = (f"NodePool {claim.get('nodePool')}" + (" (for one such pod alone)" if claim.get("alone") else "")
                     + ": " + cheapest_types(claim) + (f" and {more} more" if more > 0 else ""))
        else:
            where = _where(p)
        pods, names = places.setdefault(where, ([], set()))
        pods.append(str(p.get("pod")))
        names.add(str(claim.get("name") or "") if claim is not None else str(p.get("node") or ""))
    out = []
    for where, (pods, names) in places.items():
        if where.startswith("NodePool "):
            where = (f"{len(names)} new NodeClaims from " if len(names) > 1 else "a new NodeClaim from ") + where
        out.append((_shown(pods[:MAX_TYPES_SHOWN], len(pods)), where))
    return out


BLOCKS.append(suggestions_blocks)


def print_pass(doc: Mapping[str, Any], console: Console, node_pool: str | None = None) -> None:
    """The document as text on `console` (plain when not a terminal), or with `node_pool` that
    NodePool's verdicts (suggestions left out)."""
    look = Look(plain=not console.is_terminal, width=console.width)
    blocks = render_node_pool(doc, node_pool, look) if node_pool is not None else render(doc, look)
    print_blocks(blocks, console)
