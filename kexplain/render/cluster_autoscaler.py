"""The "Cluster autoscaler" section of an explanation: what CA would do for the pod the scheduler
left pending, when node groups are known (`--node-groups`, or found in a live cluster: then the
document's `nodeGroupsFound` says where, and the section says it too).

It reads only the trace's `autoscaler` key (the CA loop's document plus `explained`, every
Filter plugin on each group's template): the event CA would emit on the pod, a table of the
node groups (fits; rejected, by every failing plugin with CA's own marked `*`; skipped, and
why), the expander's choice and the node count. `--node-group NAME` shows one group's template
plugin by plugin, in `--node`'s words (`render.node.filter_words`).
"""
from __future__ import annotations

from typing import Any, Mapping

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from kexplain.render.blocks import Block
from kexplain.render.node import filter_words, plugin_lines
from kexplain.render.style import Look
from kexplain.render.views import REJECTED

TITLE = "Cluster autoscaler"
FAILED = (*REJECTED, "Error")

# The pod's outcome in the loop, when CA emits no event on it.
OUTCOME_WORDS = {
    "NotListedAsUnschedulable": "CA does not count it as unschedulable (scheduling gates, or a nominated node): "
                                "nothing happens, no event.",
    "AwaitingEvaluation": "No event: a node group could take it, but not the one the expander chose; CA looks "
                          "again in its next loop.",
    "RemainsUnschedulableNoEvent": "No event: no node group can take it, and CA scaled up for other pods in this "
                                   "loop (it emits NotTriggerScaleUp only when a loop does not scale up).",
    "NoEvent": "No event: it would fit the chosen group, but the node count stopped (at the group's max size or "
               "another limit) before reaching it.",
    "TriggeredScaleUpNoEvent": "It is among the pods the scale-up is for (no event).",
}
FILTERED_WORDS = {
    "FilterOutSchedulable": "CA finds room for it on an existing node (FilterOutSchedulable, packing the pending "
                            "pods onto the free room in priority order): no scale-up, no event.",
    "FilterOutExpendable": "CA ignores it: its priority is below --expendable-pods-priority-cutoff "
                           "(FilterOutExpendable), no event.",
    "TooYoung": "CA leaves it for a later loop: younger than --new-pod-scale-up-delay.",
}


def explained_pod(doc: Mapping[str, Any]) -> str:
    """The pod whose templates' verdicts the section details (`explained.pod`)."""
    return str((doc.get("explained") or {}).get("pod") or "")


def several(doc: Mapping[str, Any]) -> bool:
    """The loop held more than one pending pod: say which pod each line is about."""
    return len(doc.get("pods") or ()) > 1


# Why CA records no event on a pod, in a table's few words (`OUTCOME_WORDS`, `FILTERED_WORDS` in full).
SHORT_WORDS = {
    "NotListedAsUnschedulable": "not counted as unschedulable (scheduling gates, or a nominated node)",
    "AwaitingEvaluation": "no event: a group could take it, not the one chosen; CA looks again next loop",
    "RemainsUnschedulableNoEvent": "no event: no group can take it (the loop scaled up for other pods)",
    "NoEvent": "no event: it fits the chosen group, but the node count stopped before it",
    "TriggeredScaleUpNoEvent": "no event: among the pods the scale-up is for",
    "FilterOutSchedulable": "no event: fits the free room of an existing node",
    "FilterOutExpendable": "no event: priority below --expendable-pods-priority-cutoff",
    "TooYoung": "no event: younger than --new-pod-scale-up-delay",
}


def why_none(record: Mapping[str, Any]) -> str:
    """A pod's event message, or in a few words why CA records none."""
    events = record.get("events") or ()
    if events:
        return "; ".join(str(e.get("message") or "") for e in events)
    outcome = str(record.get("outcome") or "")
    by = str(record.get("filteredBy") or "")
    return SHORT_WORDS.get(by if outcome == "FilteredOut" else outcome, f"{outcome}: no event")


def pod_rows(doc: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """The loop's answer for each pod of the set (the document's `pendingPass.pods`: what each
    stands for), pods of one object with the same answer on one row: (pods, outcome, the event
    or why there is none)."""
    stands = (doc.get("pendingPass") or {}).get("pods") or {}
    rows: dict[tuple[str, str, str], list[str]] = {}
    for record in doc.get("pods") or ():
        key = f"{record.get('namespace')}/{record.get('name')}"
        of = stands.get(key)
        if of is None:
            continue
        outcome = str(record.get("outcome") or "") + (f" ({record['filteredBy']})" if record.get("filteredBy") else "")
        rows.setdefault((str(of.get("standsFor") or ""), outcome, why_none(record)), []).append(key)
    out = []
    for (of, outcome, why), keys in rows.items():
        if len(keys) == 1:
            pods = keys[0] if of.startswith("Pod ") else f"{keys[0]} (of {of})"
        else:
            pods = f"{keys[0]} ... {keys[-1].split('/', 1)[-1]} ({len(keys)} pods of {of})"
        out.append((pods, outcome, why))
    return out


def others_line(doc: Mapping[str, Any]) -> str | None:
    """How many pending pods of the cluster's own (explained by nobody) the loop held, by outcome."""
    stands = (doc.get("pendingPass") or {}).get("pods")
    if stands is None:
        return None
    counts: dict[str, int] = {}
    for record in doc.get("pods") or ():
        if f"{record.get('namespace')}/{record.get('name')}" not in stands:
            outcome = str(record.get("outcome") or "")
            counts[outcome] = counts.get(outcome, 0) + 1
    if not counts:
        return None
    n = sum(counts.values())
    by = ", ".join(f"{c} {o}" for o, c in counts.items())
    return (f"CA's loop also held {n:,} other pending pod{'s' if n != 1 else ''} of the cluster ({by}): "
            "it packs every pending pod together, so each answer above comes from that one loop.")


def explained_record(doc: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The explained pod's record among the document's pending pods."""
    key = (doc.get("explained") or {}).get("pod")
    return next((p for p in doc.get("pods") or () if f"{p.get('namespace')}/{p.get('name')}" == key), None)


def version_note(doc: Mapping[str, Any], trace: Mapping[str, Any]) -> str:
    """Which CA and which scheduler inside it: CA's behaviour is the reference commit's, its
    scheduler plugins follow the Kubernetes version kexplain follows."""
    source = (doc.get("autoscaler") or {}).get("source", "")
    minor = (trace.get("kubernetesVersion") or {}).get("minor") or (doc.get("explained") or {}).get("kubernetes")
    inside = f"Kubernetes {minor}, the version followed" if minor else "the Kubernetes version followed"
    return (f"CA as of {source}; the scheduler plugins inside it follow {inside} (a CA release embeds "
            "its minor's scheduler).")


def found_lines(doc: Mapping[str, Any]) -> list[str]:
    """Where the node groups were found in the cluster (sources, the labels naming members),
    then what discovery could not find, when they were not given (`nodeGroupsFound`)."""
    found = doc.get("nodeGroupsFound")
    if not found:
        return []
    labels = found.get("memberLabels") or ()
    members = f"; members by label {', '.join(labels)}" if labels else ""
    line = f"Node groups found in the cluster: {'; '.join(found.get('sources') or ()) or 'nowhere'}{members}."
    return [line, *(f"note: {n}" for n in found.get("notes") or ())]


def found_blocks(doc: Mapping[str, Any]) -> list[Block]:
    return [Block(Text(line, style="dim"), gap=False) for line in found_lines(doc)]


def outcome_line(record: Mapping[str, Any] | None) -> str:
    """The event CA would emit on the pod, or why it emits none."""
    if record is None:
        return "The pod is not among CA's pending pods."
    events = record.get("events") or ()
    if events:
        return "\n".join(f"Event: {e.get('type')} {e.get('reason')}: {e.get('message')}" for e in events)
    outcome = record.get("outcome", "")
    if outcome == "FilteredOut":
        by = record.get("filteredBy", "")
        return FILTERED_WORDS.get(by, f"CA drops it before the scale-up ({by}): no event.")
    return OUTCOME_WORDS.get(outcome, f"{outcome}: no event.")


def failing_plugins(entry: Mapping[str, Any]) -> list[tuple[str, list[str]]]:
    """Every plugin that rejects the pod on a group's template (`explained.nodeGroups.<g>`),
    with its reasons: a PreFilter rejection, else each failing Filter plugin in order."""
    pre = entry.get("preFilter")
    if pre is not None:
        return [(pre.get("plugin", ""), list(pre.get("reasons") or ()))]
    out = [(p, list(st.get("reasons") or ())) for p, st in (entry.get("filterAll") or {}).items()
           if st.get("code") in FAILED]
    if entry.get("notAmong"):
        out.insert(0, (", ".join(entry["notAmong"]), ["not among the nodes PreFilter narrowed the search to"]))
    return out


# Keys by which a plugin's fact items say they pass (NodeResourcesFit's resources, NodeAffinity's terms).
PASSING = ("fits", "match")


def failing_facts(facts: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """A plugin's facts without the list items that say they pass: in the table only what
    stands in the way is worded (`--node-group` words them all)."""
    if not facts:
        return facts
    out: dict[str, Any] = {}
    for key, value in facts.items():
        if isinstance(value, list):
            value = [v for v in value if not (isinstance(v, Mapping) and any(v.get(k) is True for k in PASSING))]
        out[key] = value
    return out


def given_where(doc: Mapping[str, Any]) -> str:
    """Where a group's template may be given: the file, or the provider's own (discovered)."""
    return "from the provider" if doc.get("nodeGroupsFound") else "in --node-groups"


def group_rows(doc: Mapping[str, Any]) -> list[tuple[str, str, str, list[tuple[str, str, list[str]]]]]:
    """Per node group: name, size, CA's verdict, and lines (plugin, reasons, the plugin's facts
    on the template in `--node`'s words) of what stands in the way."""
    record = explained_record(doc) or {}
    verdicts: Mapping[str, Any] = record.get("nodeGroups") or {}
    explained: Mapping[str, Any] = (doc.get("explained") or {}).get("nodeGroups") or {}
    rows = []
    for g in doc.get("nodeGroups") or ():
        name = g.get("name", "")
        size = f"{g.get('targetSize')} ({g.get('minSize')}..{g.get('maxSize')})"
        if g.get("newTargetSize") != g.get("targetSize"):
            size = f"{g.get('targetSize')} -> {g.get('newTargetSize')} ({g.get('minSize')}..{g.get('maxSize')})"
        v = verdicts.get(name) or {}
        verdict = v.get("verdict") or ("no template" if g.get("template") is None else "-")
        entry = explained.get(name)
        lines: list[tuple[str, str, list[str]]] = []
        if verdict == "skipped":
            lines.append(("", "; ".join(v.get("reasons") or ()), []))
        own = v.get("predicate") if verdict == "rejected" else None
        if entry is not None:
            failing = failing_plugins(entry)
            if verdict == "skipped":
                lines.append(("", "its template would take the pod" if not failing else "and on its template:", []))
            facts = entry.get("plugins") or {}
            for plugin, reasons in failing:
                words = [w.strip() for w in filter_words(plugin, failing_facts(facts.get(plugin)))
                         if not w.startswith(" ")]
                lines.append((plugin + ("*" if plugin == own else ""), "; ".join(reasons), words))
            if own and own not in (p for p, _ in failing):
                lines.append((own + "*", "; ".join(v.get("reasons") or ()), []))
        elif own:
            lines.append((own + "*", "; ".join(v.get("reasons") or ()), []))
        elif verdict == "no template":
            lines.append(("", f"no template node: neither a ready member nor a template {given_where(doc)}", []))
        rows.append((name, size, verdict, lines))
    return rows


def choice_line(doc: Mapping[str, Any]) -> str | None:
    """The expander's choice, the node count and the scale-ups CA would make."""
    expansion = doc.get("expansion") or {}
    best = expansion.get("bestOption")
    expander = (doc.get("autoscaler") or {}).get("expander", "")
    if not best:
        if doc.get("result") == "ScaleUpNoOptionsAvailable":
            return "No node group can take any pending pod: CA does not scale up."
        if doc.get("result") == "ScaleUpLimitedByMaxNodesTotal":
            return "The cluster has --max-nodes-total ready nodes: CA does not scale up."
        return None
    n = best.get("nodeCount", 0)
    pods = len(best.get("pods") or ())
    line = (f"Expander {expander} chose {best.get('nodeGroup')}: {n} node{'s' if n != 1 else ''} "
            f"for {pods} pod{'s' if pods != 1 else ''}")
    ups = expansion.get("scaleUps") or ()
    if ups:
        line += "; " + ", ".join(f"{u['nodeGroup']} {u['currentSize']} -> {u['newSize']} (max {u['maxSize']})"
                                 for u in ups)
    if doc.get("error"):
        line += f"; the scale-up fails: {doc['error']}"
    return line + "."


# The autoscalers' names in a pod's answers (`autoscalers`), as a reader says them.
AUTOSCALER_WORDS = {"ClusterAutoscaler": "Cluster autoscaler"}


def answer_lines(trace: Mapping[str, Any]) -> list[str]:
    """A pod's answers from the autoscalers' one pass over every pending pod (its `autoscalers`
    slot), one line each, where the pass's own section is elsewhere (after a list)."""
    out = []
    for answer in trace.get("autoscalers") or ():
        name = AUTOSCALER_WORDS.get(str(answer.get("autoscaler")), str(answer.get("autoscaler")))
        out.append(f"{name}: {answer.get('outcome')}: {why_none(answer)}")
    return out


def autoscaler_blocks(trace: Mapping[str, Any], look: Look) -> list[Block]:
    """The section, when the trace has the `autoscaler` key; else its pod's answers alone (a
    list's pod, the pass's section after the list)."""
    doc = trace.get("autoscaler")
    if not doc:
        lines = answer_lines(trace)
        return [Block(Text(line), gap=i == 0) for i, line in enumerate(lines)]
    record = explained_record(doc)
    blocks = [Block(Text(TITLE, style="bold")),
              Block(Text(version_note(doc, trace), style="dim"), gap=False),
              *found_blocks(doc)]
    rows = pod_rows(doc)
    if len(rows) > 1 or (rows and len((doc.get("pendingPass") or {}).get("pods") or ()) > 1):
        pods = look.table("Pending pods, each CA's answer in one loop over all of them")
        pods.add_column("pods", overflow="fold", ratio=2)
        pods.add_column("outcome: the event, or why none", overflow="fold", ratio=3)
        for who, outcome, why in rows:
            pods.add_row(who, Group(Text(outcome, style="bold"), Text(why)))
        blocks.append(Block(pods))
    pod = explained_pod(doc)
    line = outcome_line(record)
    if several(doc) and pod:
        line = f"Pod {pod}: {line}"
    blocks.append(Block(Text(line), whole=bool(record and record.get("events")), gap=len(blocks) > 3))
    table = look.table(f"Node groups, for pod {pod}" if several(doc) and pod else "Node groups")
    table.add_column("group", no_wrap=True)
    table.add_column("size", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    table.add_column("why (on the group's template node)", overflow="fold")
    marked = False
    for name, size, verdict, lines in group_rows(doc):
        why: list[RenderableType] = []
        for plugin, reasons, words in lines:
            marked = marked or plugin.endswith("*")
            why.append(Text(f"{plugin}: {reasons}" if plugin else reasons))
            why += [Padding(Text(w), (0, 0, 0, 2)) for w in words]
        table.add_row(name, size, verdict, Group(*why))
    blocks.append(Block(table))
    if marked:
        blocks.append(Block(Text("* = the plugin CA reports for the group (its first failing one); every plugin "
                                 "that fails on the template is listed", style="dim"), gap=False))
    line = choice_line(doc)
    if line:
        blocks.append(Block(Text(line)))
    others = others_line(doc)
    if others:
        blocks.append(Block(Text(others, style="dim"), gap=not line))
    return blocks


def print_section(doc: Mapping[str, Any], console, node_group: str | None = None) -> None:
    """The section on its own (after a batch: the loop over every copy that did not fit), or
    with `node_group` that group's verdict."""
    from kexplain.render.blocks import print_blocks
    trace = {"autoscaler": doc, "pod": _explained_pod(doc)}
    plain = not console.is_terminal
    blocks = (render_node_group(trace, node_group, plain=plain, width=console.width) if node_group is not None
              else autoscaler_blocks(trace, Look(plain=plain, width=console.width)))
    console.print()
    print_blocks(blocks, console)


def _explained_pod(doc: Mapping[str, Any]) -> dict[str, str]:
    namespace, _, name = ((doc.get("explained") or {}).get("pod") or "/").partition("/")
    return {"namespace": namespace, "name": name}


def render_node_group(trace: Mapping[str, Any], group: str, plain: bool = False, width: int = 80) -> list[Block]:
    """`--node-group NAME`: one group's full verdict for the pod, plugin by plugin on its
    template, in `--node`'s words."""
    doc = trace.get("autoscaler") or {}
    pod = trace.get("pod") or {}
    groups = {g.get("name"): g for g in doc.get("nodeGroups") or ()}
    g = groups.get(group)
    if g is None:
        return [Block(Text(f"There is no node group named {group}.", style="bold red"), gap=False)]
    record = explained_record(doc) or {}
    v = (record.get("nodeGroups") or {}).get(group) or {}
    entry = ((doc.get("explained") or {}).get("nodeGroups") or {}).get(group)
    verdict = v.get("verdict") or ("no template" if entry is None else
                                   "its template rejects the pod" if failing_plugins(entry) else
                                   "its template takes the pod")
    head = Text.assemble(("Node group ", ""), (group, "bold"), (" for pod ", ""),
                         (f"{pod.get('namespace')}/{pod.get('name')}", "bold"), (": ", ""),
                         (verdict, "bold green" if verdict in ("fits", "its template takes the pod") else "bold red"))
    blocks = [Block(head, gap=False), Block(Text(version_note(doc, trace), style="dim"), gap=False),
              *found_blocks(doc)]
    if not v:       # CA's scale-up did not look at the groups for it: why
        blocks.append(Block(Text(outcome_line(record or None)), gap=False))
    size = (f"size {g.get('targetSize')} (min {g.get('minSize')}, max {g.get('maxSize')}); members: "
            f"{', '.join(g.get('nodes') or ()) or 'none'}")
    template = g.get("template") or {}
    source = {"node": "built from a member node",
              "template": given_where(doc).replace("in ", "from ", 1)}.get(template.get("source"), "none")
    blocks.append(Block(Text(f"{size}; template {source}"), gap=False))
    if verdict == "skipped":
        blocks.append(Block(Text("Skipped by CA: " + "; ".join(v.get("reasons") or ())), gap=False))
    elif verdict == "rejected":
        blocks.append(Block(Text(f"Rejected by {v.get('predicate')} (CA's first failing plugin): "
                                 + "; ".join(v.get("reasons") or ())), gap=False))
    if entry is not None:
        blocks += _template_plugins(entry, v.get("predicate") if verdict == "rejected" else None)
    taints = ", ".join(_taint(t) for t in template.get("taints") or ())
    if template:
        facts = [f"labels {', '.join(f'{k}={val}' for k, val in (template.get('labels') or {}).items())}",
                 f"allocatable {', '.join(f'{k} {q}' for k, q in (template.get('allocatable') or {}).items())}",
                 f"taints {taints or 'none'}",
                 f"pods {', '.join(template.get('pods') or ()) or 'none'}"]
        blocks.append(Block(Group(Text("The template node", style="bold"),
                                  *(Padding(Text(f), (0, 0, 0, 2)) for f in facts))))
    return blocks


def _taint(t: Mapping[str, Any]) -> str:
    value = f"={t['value']}" if t.get("value") else ""
    return f"{t.get('key')}{value}:{t.get('effect')}"


def _template_plugins(entry: Mapping[str, Any], own: str | None) -> list[Block]:
    pre = entry.get("preFilter")
    if pre is not None:
        return [Block(Text(f"PreFilter plugin {pre.get('plugin')} rejects the pod for every node: "
                           + "; ".join(pre.get("reasons") or ())))]
    title = "Filter plugins on the template, each run on its own" + (" (* = CA's first failure)" if own else "")
    lines = plugin_lines(title, entry.get("filterAll") or {}, entry.get("plugins") or {}, own)
    if entry.get("notAmong"):
        lines.insert(1, Text(f"Not among the nodes PreFilter ({', '.join(entry['notAmong'])}) narrowed the "
                             "search to"))
    return [Block(Group(*lines))]
