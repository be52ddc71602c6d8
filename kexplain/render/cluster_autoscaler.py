"""The "Cluster autoscaler" section of an explanation: what CA would do for the pod left pending,
read only from the trace's `autoscaler` key (the event, the node groups' table, the expander's
choice; `--node-group NAME` one template plugin by plugin). Group names are never cut; a tie is
said as CA's random pick. Layout: docs/internals/render.md."""
from __future__ import annotations

from collections import Counter
from typing import Any, Mapping, Sequence

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from kexplain.apimachinery.labels import LABEL_INSTANCE_TYPE, zone_of
from kexplain.autoscaler.plan import scale_up_plan
from kexplain.plugins.names import NODE_AFFINITY, NODE_RESOURCES_FIT, TAINT_TOLERATION
from kexplain.render.blocks import Block, print_blocks
from kexplain.render.node import filter_words, plugin_lines
from kexplain.render.style import GAP, Look, TextTable, name_lines, plural, wrap
from kexplain.render.words import tables
from kexplain.render.views import REJECTED

TITLE = "Cluster autoscaler"
FAILED = (*REJECTED, "Error")

OUTCOME_WORDS, FILTERED_WORDS, SHORT_WORDS, DOES_WORDS = tables(
    "cluster_autoscaler", "OUTCOME_WORDS", "FILTERED_WORDS", "SHORT_WORDS", "DOES_WORDS")


def explained_pod(doc: Mapping[str, Any]) -> str:
    """The pod whose templates' verdicts the section details (`explained.pod`)."""
    return str((doc.get("explained") or {}).get("pod") or "")


def several(doc: Mapping[str, Any]) -> bool:
    """The loop held more than one pending pod: say which pod each line is about."""
    return len(doc.get("pods") or ()) > 1


def not_listed_words(record: Mapping[str, Any]) -> str | None:
    """Why the loop listed no pod as unschedulable (`notListed`: it stopped first), or None."""
    why = record.get("notListed")
    return f"not listed as unschedulable: {why}" if why else None


def unlisted(words: str, record: Mapping[str, Any]) -> str:
    """`words` with why CA's lister passed the pod over (`unlistedBecause`: a Volcano pod's PodScheduled
    reason `Schedulable`, gates, ...) where they say `{why}`; the usual causes when the document does not say."""
    return words.replace("{why}", str(record.get("unlistedBecause") or "scheduling gates, or a nominated node"))


def cleared_words(record: Mapping[str, Any]) -> str:
    """The TPU requests CA's loop takes from the pod before anything else (ClearTPURequests, its first
    pod list processor: `clearedRequests`), "" when none."""
    names = [str(n) for n in record.get("clearedRequests") or ()]
    if not names:
        return ""
    return f"CA's loop takes it without its {', '.join(names)} request{'s' if len(names) > 1 else ''} (ClearTPURequests)"


# The loop's document when it scaled up for no pod because every one was new (its `result`, a pod
# answer's `heldBy`): values of the document, read here without the loop (`autoscaler.status`).
IN_COOLDOWN, ALL_PODS_ARE_NEW = "ScaleUpInCooldown", "allPodsAreNew"


def word_key(record: Mapping[str, Any], doc: Mapping[str, Any] | None = None) -> str:
    """A pod's outcome as the word tables key it: the filtering processor for FilteredOut; the NoEvent
    of a loop that scaled up for no pod because every one was new (allPodsAreNew: the pod's answer says
    `heldBy`, the loop's document its result) its own, not the node count stopped by a limit."""
    outcome = str(record.get("outcome") or "")
    if outcome == "FilteredOut":
        return str(record.get("filteredBy") or "")
    if outcome == "NoEvent" and (record.get("heldBy") or (doc or {}).get("result") == IN_COOLDOWN):
        return ALL_PODS_ARE_NEW
    return outcome


def why_none(record: Mapping[str, Any], doc: Mapping[str, Any] | None = None) -> str:
    """A pod's event message, or why CA records none; a line per answer where it depends on CA's
    random pick (`pick_lines`); what ClearTPURequests took from it last. `doc`: the loop's document
    (a pod of a loop that held every scale-up says so)."""
    lines = pick_lines(record, lambda r: _why_one(r, doc))
    text = "\n".join(lines) if lines else _why_one(record, doc)
    cleared = cleared_words(record)
    return f"{text}; {cleared}" if cleared else text


def _why_one(record: Mapping[str, Any], doc: Mapping[str, Any] | None = None) -> str:
    events = record.get("events") or ()
    if events:
        return "; ".join(str(e.get("message") or "") for e in events)
    outcome = str(record.get("outcome") or "")
    if not_listed_words(record):
        return str(not_listed_words(record))
    if record.get("nominatedNodeName"):
        return (f"no event: nominated to {record['nominatedNodeName']} by the scheduler's preemption; CA counts it "
                "there (not unschedulable)")
    words = unlisted(SHORT_WORDS.get(word_key(record, doc), f"{outcome}: no event"), record)
    return f"{words} ({record['node']})" if outcome == "FilteredOut" and record.get("node") else words


def picks_of(record: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    """The pod's answer under each option of the expander's tie, when it depends on CA's random
    pick (`byPick`: the followed option first); [] when it does not."""
    return list((record or {}).get("byPick") or ())


def pick_outcomes(record: Mapping[str, Any] | None) -> list[str]:
    """The distinct outcomes CA's random pick gives the pod, in the picks' order."""
    return list(dict.fromkeys(str(p.get("outcome") or "") for p in picks_of(record)))


# A pod's outcome in a table when CA's random pick among the expander's tied options decides it.
DEPENDS = "depends on CA's pick"


def outcome_label(record: Mapping[str, Any]) -> str:
    """A pod's outcome for a table cell (with the processor that filtered it out); `DEPENDS`
    where CA's random pick decides it."""
    if len(pick_outcomes(record)) > 1:
        return DEPENDS     # each pick's outcome with its answer (`pick_lines`)
    return str(record.get("outcome") or "") + (f" ({record['filteredBy']})" if record.get("filteredBy") else "")


def by_pick(record: Mapping[str, Any], words) -> list[tuple[str, list[str]]]:
    """The pod's answers under CA's random pick, each with the tied options giving it, in the picks'
    order: (`words` of the record so left, the picked option, the options)."""
    out: dict[str, list[str]] = {}
    for p in picks_of(record):
        said = words({**record, "outcome": p.get("outcome"), "events": p.get("events") or [],
                      "picked": p.get("nodeGroup")})
        out.setdefault(said, []).append(str(p.get("nodeGroup") or ""))
    return list(out.items())


def pick_lines(record: Mapping[str, Any], words) -> list[str]:
    """Where the pod's answer depends on CA's random pick (`byPick`), a line per pick (only its
    event depending: the first pick's answer, said so); [] otherwise."""
    picks = picks_of(record)
    if not picks:
        return []
    if len(pick_outcomes(record)) == 1:
        return [words({**record, "picked": picks[0].get("nodeGroup")}),
                f"(the same outcome whichever of the {len(picks)} tied options CA picks; its event names the "
                "scale-up picked)"]
    names = [str(p.get("nodeGroup") or "") for p in picks]
    out = []
    for said, groups in by_pick(record, words):
        outcome = next(str(p.get("outcome")) for p in picks if p.get("nodeGroup") == groups[0])
        out.append(f"if CA picks {' or '.join(pick_name(g, names) for g in groups)} ({len(groups)} of {len(picks)} "
                   f"tied options): {outcome}: {said}")
    return out


def pick_name(group: str, names: list[str]) -> str:
    """A tied group as a line about a pick names it: a URL (a GKE MIG's) by its last part when
    no other tied group ends alike (the expander's tie lists the names in full)."""
    last = group.rstrip("/").rsplit("/", 1)[-1]
    if last == group or sum(1 for n in names if n.rstrip("/").rsplit("/", 1)[-1] == last) > 1:
        return group
    return last


def pod_rows(doc: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """The loop's answer per pod of the set, in the loop's order, consecutive pods of one object
    with one answer on one row: (pods, outcome, event or why none)."""
    stands = (doc.get("pendingPass") or {}).get("pods") or {}
    rows: list[tuple[tuple[str, str, str], list[str], list[int | None] | None]] = []
    for record in doc.get("pods") or ():
        key = f"{record.get('namespace')}/{record.get('name')}"
        of = stands.get(key)
        if of is None:
            continue
        answer = (str(of.get("standsFor") or ""), outcome_label(record), why_none(record, doc))
        if rows and rows[-1][0] == answer:
            rows[-1][1].append(key)
            rows[-1][2].append(of.get("copy"))      # type: ignore[union-attr]
        else:
            rows.append((answer, [key], [of.get("copy")]))
    for missing in (doc.get("pendingPass") or {}).get("notYetCreated") or ():     # later ordinals, in order
        rows.append(((str(missing.get("standsFor") or ""), NOT_CREATED, str(missing.get("why") or "")),
                     list(missing.get("pods") or ()), None))
    return [(pods_label(keys, of, copies), outcome, why) for (of, outcome, why), keys, copies in rows]


# A pod's "outcome" in the pods' table when its controller has not created it (no autoscaler sees it).
NOT_CREATED = "not created (no answer)"


def pods_label(keys: list[str], of: str, copies: Sequence[int | None] | None = None) -> str:
    """Pods of one object with one answer, in a few words (`ns/a ... c, e (N pods of Kind ns/x)`):
    a range only for consecutive copy numbers, so another answer's copy never seems among them."""
    if len(keys) == 1:
        return keys[0] if of.startswith("Pod ") else f"{keys[0]} (of {of})"
    numbers = list(copies) if copies is not None else list(range(len(keys)))
    runs: list[list[str]] = []
    for i, key in enumerate(keys):
        name = key if not runs else key.split("/", 1)[-1]
        follows = i > 0 and numbers[i] is not None and numbers[i - 1] is not None and numbers[i] == numbers[i - 1] + 1
        if follows:
            runs[-1].append(name)
        else:
            runs.append([name])
    parts = [f"{run[0]} ... {run[-1]}" if len(run) > 1 else run[0] for run in runs]
    return f"{', '.join(parts)} ({len(keys)} pods of {of})"


def others_line(doc: Mapping[str, Any]) -> str | None:
    """How many pending pods of the cluster's own (explained by nobody) the loop held, by outcome."""
    stands = (doc.get("pendingPass") or {}).get("pods")
    if stands is None:
        return None
    counts = Counter(str(record.get("outcome") or "") for record in doc.get("pods") or ()
                     if f"{record.get('namespace')}/{record.get('name')}" not in stands)
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


def version_note(doc: Mapping[str, Any], trace: Mapping[str, Any] | None = None) -> str:
    """Which CA (the reference commit's) and which scheduler inside it (the Kubernetes version
    followed: `kubernetesFollowed`, else the trace's)."""
    auto = doc.get("autoscaler") or {}
    followed = doc.get("kubernetesFollowed") or {}
    trace = trace or {}
    minor = followed.get("minor") or (trace.get("kubernetesVersion") or {}).get("minor") \
        or (doc.get("explained") or {}).get("kubernetes")
    release = f" (kube-scheduler {followed['kubeScheduler']}" if followed.get("kubeScheduler") else ""
    gates = ", ".join(f"{n}={'true' if v else 'false'}" for n, v in (followed.get("featureGates") or {}).items())
    release += (f", feature gates {gates}" if gates else "") + (")" if release else "")
    inside = f"Kubernetes {minor}{release}, the version followed" if minor else "the Kubernetes version followed"
    return (f"CA as of {auto.get('source', '')}; the scheduler plugins inside it follow {inside} (a CA release "
            "embeds its minor's scheduler).")


def provider_lines(doc: Mapping[str, Any]) -> list[str]:
    """The cloud provider followed (its GPU label and how kexplain knows it), when it matters:
    another than CA's test provider, GPU limits given, or a note on GPU labels it does not read."""
    auto = doc.get("autoscaler") or {}
    chosen = doc.get("cloudProvider") or {}
    notes = list(chosen.get("notes") or ())
    if not chosen or (chosen.get("name") == "test" and not notes and "gpu-total" not in (auto.get("flags") or {})):
        return []
    name = "CA's test provider" if chosen.get("name") == "test" else chosen.get("name")
    return [f"Cloud provider: {name} (GPU label {chosen.get('gpuLabel')}): {chosen.get('from')}.",
            *(f"note: {n}" for n in notes)]


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


def found_blocks(doc: Mapping[str, Any], width: int, trace: Mapping[str, Any] | None = None) -> list[Block]:
    """The version followed, the provider and where the groups were found, dim, each line
    wrapped at `width` between words (a MIG's URL broken after a `/`, never inside a word)."""
    lines = [version_note(doc, trace), *provider_lines(doc), *found_lines(doc)]
    return [Block(Text(wrap(line, width), style="dim"), gap=False) for line in lines]


def victims_of(doc: Mapping[str, Any], record: Mapping[str, Any]) -> list[str]:
    """The victims of the preemption that nominated the pod of `record`, as the pending pass
    took them from its explanation (none known for a nomination the cluster already had)."""
    key = f"{record.get('namespace')}/{record.get('name')}"
    found = ((doc.get("pendingPass") or {}).get("preempting") or {}).get(key) or {}
    return [str(v) for v in found.get("victims") or ()]


def nominated_line(record: Mapping[str, Any], doc: Mapping[str, Any]) -> str:
    """Why CA emits nothing on a pod nominated by preemption: its lister counts it as nominated and
    its snapshot puts it on that node, victims there until gone."""
    node = record.get("nominatedNodeName")
    victims = victims_of(doc, record)
    evicting = f", evicting {', '.join(victims)}" if victims else ""
    return (f"CA does not count it as unschedulable: the scheduler's preemption nominates {node} for it "
            f"(status.nominatedNodeName){evicting}, so CA lists it as nominated and puts it on {node} in its "
            "snapshot, where it waits for its victims to go: no scale-up for it, no event.")


def outcome_line(record: Mapping[str, Any] | None, doc: Mapping[str, Any] | None = None) -> str:
    """The event CA would emit on the pod, or why none; where it depends on CA's random pick, what
    each pick gives (a line each)."""
    if record is None:
        return "The pod is not among CA's pending pods."
    cleared = cleared_words(record)
    if cleared:
        return f"{outcome_line({**record, 'clearedRequests': ()}, doc)}\n{cleared[0].upper()}{cleared[1:]}."
    picks = picks_of(record)
    if len(pick_outcomes(record)) < 2:     # the same outcome whatever the pick: its event names the pick's group
        return _outcome_one(record, doc)
    n = len(picks)
    names = [str(p.get("nodeGroup") or "") for p in picks]
    return "\n".join([f"It depends on CA's random pick among the {n} options the expander leaves tied:",
                      *(f"If CA picks {' or '.join(pick_name(g, names) for g in groups)} ({len(groups)} of {n}): "
                        f"{said}" for said, groups in by_pick(record, lambda r: _outcome_one(r, doc)))])


def event_line(event: Mapping[str, Any]) -> str:
    """An event as kubectl lists it: type, reason (CA records some with none), message."""
    reason = f" {event['reason']}" if event.get("reason") else ""
    return f"Event: {event.get('type')}{reason}: {event.get('message')}"


def _outcome_one(record: Mapping[str, Any], doc: Mapping[str, Any] | None = None) -> str:
    events = record.get("events") or ()
    if events:
        return "\n".join(event_line(e) for e in events)
    outcome = record.get("outcome", "")
    if not_listed_words(record):
        return f"CA does nothing, no event: {record['notListed']}."
    if record.get("nominatedNodeName"):
        return nominated_line(record, doc or {})
    if outcome == "FilteredOut":
        by = record.get("filteredBy", "")
        words = FILTERED_WORDS.get(by, f"CA drops it before the scale-up ({by}): no event.")
        return words + (f" Its packing puts it on {record['node']}." if record.get("node") else "")
    return unlisted(OUTCOME_WORDS.get(word_key(record, doc), f"{outcome}: no event."), record)


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


def template_source(doc: Mapping[str, Any], template: Mapping[str, Any] | None) -> str:
    """Which node CA built a group's template from: the member node (named), the file's
    template, or the provider's."""
    if not template:
        return "none"
    if template.get("source") == "node":
        return f"member node {template['member']}" if template.get("member") else "a member node"
    if template.get("origin"):
        return str(template["origin"])
    return "the provider's template" if doc.get("nodeGroupsFound") else "the template in --node-groups"


def template_words(doc: Mapping[str, Any], template: Mapping[str, Any] | None) -> str:
    """The template named, with its zone and instance type: what tells a GKE pool's MIGs apart."""
    labels = (template or {}).get("labels") or {}
    facts = ", ".join(v for v in (zone_of(labels), labels.get(LABEL_INSTANCE_TYPE)) if v)
    if facts and (template or {}).get("origin"):        # words of its own: the facts after them
        return f"{template_source(doc, template)}; {facts}"
    return template_source(doc, template) + (f" ({facts})" if facts else "")


# The plugins whose passing facts say why a template takes the pod: where it is, what it has, its taints.
DECIDING = (NODE_AFFINITY, TAINT_TOLERATION, NODE_RESOURCES_FIT)


def deciding_words(entry: Mapping[str, Any] | None) -> list[str]:
    """On a template that takes the pod, the facts that decided: the pod's node selection
    matched (its zone...), the taints it tolerates, the room for each resource it requests."""
    facts = (entry or {}).get("plugins") or {}
    out: list[str] = []
    for plugin in DECIDING:
        f = facts.get(plugin)
        if not f or (plugin == TAINT_TOLERATION and not f.get("taints")):
            continue
        if plugin == NODE_RESOURCES_FIT:
            f = {"resources": [r for r in f.get("resources") or ()
                               if r.get("name") != "pods" and str(r.get("podRequest")) not in ("0", "None")]}
        out += [w.strip() for w in filter_words(plugin, f) if not w.startswith(" ")]
    return out


def backoff_words(backoff: Mapping[str, Any]) -> str:
    """Where a group's backoff comes from: CA's status ConfigMap, with its error."""
    since = f" since {backoff['since']}" if backoff.get("since") else ""
    error = ": ".join(str(backoff[k]) for k in ("errorCode", "errorMessage") if backoff.get(k))
    return f"(CA's status ConfigMap: scaleUp Backoff{since}{f'; {error}' if error else ''})"


# A line of a group's row: (plugin, its reasons or a heading, the facts in words under it).
Line = tuple[str, str, list[str]]
TEMPLATE = "template"       # the row line naming the template


def group_rows(doc: Mapping[str, Any]) -> list[tuple[str, str, str, list[Line]]]:
    """Per node group: name, size, CA's verdict, and lines: the template it was judged on (with the
    deciding facts), then each plugin in the way in `--node`'s words."""
    record = explained_record(doc) or {}
    verdicts: Mapping[str, Any] = record.get("nodeGroups") or {}
    explained: Mapping[str, Any] = (doc.get("explained") or {}).get("nodeGroups") or {}
    backoff = (doc.get("nodeGroupsFound") or {}).get("backoff") or {}
    rows = []
    for g in doc.get("nodeGroups") or ():
        name = g.get("name", "")
        size = f"{g.get('targetSize')} ({g.get('minSize')}..{g.get('maxSize')})"
        if g.get("newTargetSize") != g.get("targetSize"):
            size = f"{g.get('targetSize')} -> {g.get('newTargetSize')} ({g.get('minSize')}..{g.get('maxSize')})"
        v = verdicts.get(name) or {}
        verdict = v.get("verdict") or ("no template" if g.get("template") is None else "-")
        entry = explained.get(name)
        lines: list[Line] = []
        if verdict == "skipped":
            lines.append(("", "; ".join(v.get("reasons") or ()), []))
            if name in backoff:
                lines.append(("", backoff_words(backoff[name]), []))
        own = v.get("predicate") if verdict == "rejected" else None
        failing = failing_plugins(entry) if entry is not None else []
        simulated = (record.get("rejected") or {}).get(name) if verdict == "skipped" else None
        if simulated:       # CA checked the skipped group's template too: its event counts these reasons
            lines.append(("", "then CA checked its template (its simulation on skipped groups): "
                          + "; ".join(simulated), []))
            own = next((p for p, reasons in failing if list(reasons) == list(simulated)), None)
        elif entry is not None and verdict == "skipped":
            lines.append(("", "its template would take the pod" if not failing else "and on its template:", []))
        if g.get("template") is not None:
            decided = deciding_words(entry) if entry is not None and not failing else []
            lines.append((TEMPLATE, template_words(doc, g.get("template")), decided))
        if entry is not None:
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
            given = "from the provider" if doc.get("nodeGroupsFound") else "in --node-groups"
            lines.append(("", f"no template node: neither a ready member nor a template {given}", []))
        rows.append((name, size, verdict, lines))
    return rows


def random_pick(doc: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The expander's tie (`expansion.randomPick`): the options CA draws from at random."""
    pick = (doc.get("expansion") or {}).get("randomPick")
    return pick if pick and len(pick.get("among") or ()) > 1 else None


def tie_lines(doc: Mapping[str, Any]) -> tuple[str, list[str]] | None:
    """The tie in words: which expander left it and how the tied options compare, then each
    tied option (group: its node count for its pods)."""
    pick = random_pick(doc)
    if pick is None:
        return None
    among = list(pick.get("among") or ())
    options = {o.get("nodeGroup"): o for o in (doc.get("expansion") or {}).get("options") or ()}
    scores = set((pick.get("wasteScores") or {}).values())
    score = f" (waste score {next(iter(scores)):.4f} each)" if len(scores) == 1 else ""
    expander = pick.get("expander")
    head = (f"Expander random: CA draws one of {len(among)} options at random." if expander == "random" else
            f"Expander {expander} leaves {len(among)} options tied{score}: CA picks one of them at random.")
    items = [f"{g}: {plural(o.get('nodeCount', 0), 'node')} for {plural(len(o.get('pods') or ()), 'pod')}"
             if (o := options.get(g)) else g for g in among]
    return head, items


def _plan(doc: Mapping[str, Any]) -> str:
    ups = scale_up_plan(doc)
    return ", ".join(f"{u['nodeGroup']} {u['currentSize']} -> {u['newSize']} (max {u['maxSize']})" for u in ups)


def choice_line(doc: Mapping[str, Any]) -> str | None:
    """The expander's choice, the node count and the scale-ups CA would make; after a tie
    (`tie_lines`), the plan of the first tied option, which kexplain follows."""
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
    plan = _plan(doc)
    fails = f"; the scale-up fails: {doc['error']}" if doc.get("error") else ""
    if random_pick(doc):
        return (f"kexplain follows the first: {plan or best.get('nodeGroup')}{fails}; CA may scale up another of "
                f"them instead.{depending_words(doc)}")
    line = f"Expander {expander} chose {best.get('nodeGroup')}: {plural(n, 'node')} for {plural(pods, 'pod')}"
    return line + (f"; {plan}" if plan else "") + fails + "."


def min_size_line(doc: Mapping[str, Any]) -> str | None:
    """The groups --enforce-node-group-min-size grows after the loop (`minSizeScaleUps`), or None."""
    grown = doc.get("minSizeScaleUps") or ()
    if not grown:
        return None
    sizes = ", ".join(f"{g['nodeGroup']} {g['currentSize']} -> {g['newSize']} (min {g['minSize']}, max {g['maxSize']})"
                      for g in grown)
    return ("--enforce-node-group-min-size then grows the node groups below their minimum size "
            f"(ScaleUpToNodeGroupMinSize, whose status is the loop's): {sizes}.")


def depending_words(doc: Mapping[str, Any]) -> str:
    """After a tie, which pending pods' answers depend on CA's pick (`byPick`), or that none
    does; "" when the document does not say (the loop was not run for each pick)."""
    if "picks" not in (random_pick(doc) or {}):
        return ""
    pods = [f"{p.get('namespace')}/{p.get('name')}" for p in doc.get("pods") or () if p.get("byPick")]
    if not pods:
        return " Every pending pod's answer is the same whichever it picks."
    shown = ", ".join(pods[:MAX_NAMED]) + (f" and {len(pods) - MAX_NAMED:,} more" if len(pods) > MAX_NAMED else "")
    return f" The pick decides the answer for {shown}."


MAX_NAMED = 10     # pods named in a line; the others counted


def _answer(trace: Mapping[str, Any]) -> tuple[Mapping[str, Any] | None, Mapping[str, Any]]:
    """The pod's record in CA's loop and the document it is in (a list's pod: its answer alone)."""
    doc = trace.get("autoscaler") or {}
    record = explained_record(doc) if doc else None
    pod = trace.get("pod") or {}
    if record is not None and (doc.get("explained") or {}).get("pod") == f"{pod.get('namespace')}/{pod.get('name')}":
        return record, doc
    answer = next((a for a in trace.get("autoscalers") or () if a.get("autoscaler") == "ClusterAutoscaler"), None)
    return answer, {}


def does_line(trace: Mapping[str, Any]) -> str | None:
    """What CA will do for the pending pod, in one sentence (each pick's outcome when it depends on
    CA's random pick); None without CA's answer."""
    record, doc = _answer(trace)
    if record is None:
        return None
    picks = picks_of(record)
    if len(pick_outcomes(record)) > 1:
        names = [str(p.get("nodeGroup") or "") for p in picks]
        parts = [f"if it picks {' or '.join(pick_name(g, names) for g in groups)} ({len(groups)} of {len(picks)}), "
                 f"it {what}" for what, groups in by_pick(record, lambda r: _does(r, doc))]
        return f"Cluster autoscaler: depends on its random pick among {len(picks)} tied node groups: {'; '.join(parts)}."
    outcome = str(record.get("outcome") or "")
    pick = random_pick(doc) or {}
    tied = len(picks) or (0 if "picks" in pick else len(pick.get("among") or ()))    # known alike under every pick
    if outcome in ("TriggeredScaleUp", "TriggeredScaleUpNoEvent") and tied:
        return (f"Cluster autoscaler: scales up one of {tied} tied node groups for it, picked at random (the "
                "expander's tie below).")
    cleared = cleared_words(record)
    return f"Cluster autoscaler: {_does(record, doc)}{'; ' + cleared if cleared else ''}."


def _does(record: Mapping[str, Any], doc: Mapping[str, Any]) -> str:
    """What CA does for the pod of `record` (as a pick of the tie leaves it: its `picked`
    group), after "Cluster autoscaler: "."""
    outcome = str(record.get("outcome") or "")
    if outcome in ("TriggeredScaleUp", "TriggeredScaleUpNoEvent"):
        picked = record.get("picked")
        if picked:
            plans = ((doc.get("expansion") or {}).get("randomPick") or {}).get("picks") or ()
            ups = next((p.get("scaleUps") for p in plans if p.get("nodeGroup") == picked), None)
        else:
            ups = scale_up_plan(doc) if doc else record.get("scaleUps")
        plan = ", ".join(f"{u['nodeGroup']} {u['currentSize']} -> {u['newSize']}" for u in ups or ())
        return f"scales up {plan or picked or 'a node group'} for it"
    if record.get("notListed"):
        return f"does nothing: {record['notListed']}"
    if record.get("nominatedNodeName"):
        node = record["nominatedNodeName"]
        return (f"adds no node for it: the scheduler's preemption nominates {node} for it, and CA counts it there "
                "while its victims go")
    what = DOES_WORDS.get(word_key(record, doc))
    if what is None:
        return f"{outcome}, no event"
    what = unlisted(what, record)
    if outcome == "NotTriggerScaleUp":     # the groups' reasons; or the loop's (max total nodes reached)
        event = next((e for e in record.get("events") or () if e.get("reason") == outcome), {})
        parts = event.get("messageParts")
        why = str(event.get("message") or "").split(": ", 1)[-1]
        what = f"{what} ({', '.join(parts)})" if parts else f"adds no node for it ({why})" if why else what
    return what


# The autoscalers' names in a pod's answers (`autoscalers`), as a reader says them.
AUTOSCALER_WORDS = {"ClusterAutoscaler": "Cluster autoscaler", "Karpenter": "Karpenter"}


def answer_lines(trace: Mapping[str, Any]) -> list[str]:
    """A pod's answers from the autoscalers' one pass over every pending pod (its `autoscalers`
    slot), one line each, where the pass's own section is elsewhere (after a list)."""
    out = []
    for answer in trace.get("autoscalers") or ():
        if answer.get("autoscaler") == "Karpenter" and trace.get("karpenter"):
            continue        # its own section follows (`render.karpenter_section`)
        name = AUTOSCALER_WORDS.get(str(answer.get("autoscaler")), str(answer.get("autoscaler")))
        if answer.get("autoscaler") == "ClusterAutoscaler":
            outcome, why = outcome_label(answer), why_none(answer)
        else:       # another autoscaler's: its reasons
            outcome, why = answer.get("outcome"), "; ".join(answer.get("reasons") or ())
        out.append(f"{name}: {outcome}: {why}")
    return out


# The why column's least width beside the group's name, size and verdict; with less, each
# group's name goes on a line of its own, the rest under it.
WHY_LEAST = 30


def _why(lines: list[Line]) -> tuple[list[RenderableType], bool]:
    """A group's why cell, and whether a plugin in it is CA's own (marked `*`)."""
    why: list[RenderableType] = []
    marked = False
    for plugin, reasons, words in lines:
        marked = marked or plugin.endswith("*")
        why.append(Text(f"{plugin}: {reasons}" if plugin else reasons))
        why += [Padding(Text(w), (0, 0, 0, 2)) for w in words]
    return why, marked


def names_table(look: Look, title: str, headers: tuple[str, ...],
                rows: list[tuple[str, tuple[str, ...], Any]]) -> Any:
    """A table whose names (groups, pods) are never cut: side by side when the last column keeps
    `WHY_LEAST` columns, else each name on its own line with its cells indented under it."""
    name_w = max([len(headers[0]), *(len(r[0]) for r in rows)])
    short_w = [max([len(h), *(len(r[1][i]) for r in rows)]) for i, h in enumerate(headers[1:-1])]
    table = look.table(title)
    room = look.width - sum(short_w) - GAP * len(short_w)
    if name_w + GAP + WHY_LEAST <= room:
        for header in headers[:-1]:
            table.add_column(header, no_wrap=True)
        table.add_column(headers[-1], overflow="fold")
        for name, cells, last in rows:
            table.add_row(name, *cells, last(room - name_w - GAP) if callable(last) else last)
        return table
    table.add_column(f"{headers[0]}; under it: {', '.join(headers[1:])}", overflow="fold")
    for name, cells, last in rows:
        under = TextTable.grid(padding=(0, GAP, 0, 0), pad_edge=False)
        for w in short_w:
            under.add_column(width=w, no_wrap=True)
        under.add_column(overflow="fold")
        under.add_row(*cells, last(room - 2) if callable(last) else last)
        table.add_row(Group(Text("\n".join(name_lines(name, look.width)), style="bold"),
                            Padding(under, (0, 0, 0, 2))))
    return table


def groups_table(doc: Mapping[str, Any], look: Look, title: str) -> tuple[Any, bool]:
    """The node groups' table (`names_table`), and whether a row marks CA's own plugin."""
    rows = []
    marked = False
    for name, size, verdict, lines in group_rows(doc):
        why, mark = _why(lines)
        marked = marked or mark
        rows.append((name, (size, verdict), Group(*why)))
    return names_table(look, title, ("group", "size", "verdict", "why (on the group's template node)"), rows), marked


def autoscaler_blocks(trace: Mapping[str, Any], look: Look) -> list[Block]:
    """The section, when the trace has the `autoscaler` key; else its pod's answers alone (a
    list's pod, the pass's section after the list)."""
    doc = trace.get("autoscaler")
    if not doc:
        lines = answer_lines(trace)
        return [Block(Text(line), gap=i == 0) for i, line in enumerate(lines)]
    record = explained_record(doc)
    blocks = [Block(Text(TITLE, style="bold")), *found_blocks(doc, look.width, trace)]
    rows = pod_rows(doc)
    if len(rows) > 1 or (rows and len((doc.get("pendingPass") or {}).get("pods") or ()) > 1):
        pods = look.table("Pending pods, each CA's answer in one loop over all of them")
        who_w = (look.width - GAP) // 2
        pods.add_column("pods", overflow="fold", width=who_w)
        pods.add_column("outcome: the event, or why none", overflow="fold")
        for who, outcome, why in rows:      # a group's URL in an event breaks after a `/`
            pods.add_row(wrap(who, who_w),
                         Group(Text(outcome, style="bold"), Text(wrap(why, look.width - who_w - GAP))))
        blocks.append(Block(pods))
    pod = explained_pod(doc)
    line = outcome_line(record, doc)
    if several(doc) and pod:
        line = f"Pod {pod}: {line}"
    depends = len(pick_outcomes(record)) > 1
    whole = bool(record and record.get("events")) and not depends    # CA's event as kubectl prints it
    if not whole:       # each pick's answer under the line that says it depends on the pick, indented
        head, *rest = line.split("\n") if depends else [line]
        line = "\n".join([wrap(head, look.width), *(indented(r, look.width) for r in rest)])
    blocks.append(Block(Text(line), whole=whole, gap=len(blocks) > 3))
    if random_pick(doc) and not depends and \
            any(e.get("reason") == "TriggeredScaleUp" for e in (record or {}).get("events") or ()):
        blocks.append(Block(Text("(the event names the group CA picks at random among the tied ones: see the "
                                 "expander below)", style="dim"), gap=False))
    table, marked = groups_table(doc, look, f"Node groups, for pod {pod}" if several(doc) and pod else "Node groups")
    blocks.append(Block(table))
    if marked:
        blocks.append(Block(Text("* = the plugin CA reports for the group (its first failing one); every plugin "
                                 "that fails on the template is listed", style="dim"), gap=False))
    tie = tie_lines(doc)
    if tie:
        head, items = tie
        blocks.append(Block(Text("\n".join([wrap(head, look.width),
                                            *(indented(item, look.width) for item in items)]))))
    line = choice_line(doc)
    if line:
        blocks.append(Block(Text(wrap(line, look.width)), gap=not tie))
    grown = min_size_line(doc)
    if grown:
        blocks.append(Block(Text(wrap(grown, look.width)), gap=not line))
        line = line or grown
    others = others_line(doc)
    if others:
        blocks.append(Block(Text(wrap(others, look.width), style="dim"), gap=not line))
    return blocks


def indented(text: str, width: int) -> str:
    """`text` wrapped (`wrap`) at `width`, every line indented by two blanks."""
    return "\n".join("  " + line for line in wrap(text, width - 2).split("\n"))


def does_blocks(trace: Mapping[str, Any], look: Look) -> list[Block]:
    """The line saying what CA will do for the pod, for the top of its explanation."""
    line = does_line(trace)
    return [Block(Text(wrap(line, look.width), style="bold"), gap=False)] if line else []


def print_section(doc: Mapping[str, Any], console, node_group: str | None = None) -> None:
    """The section on its own (after a batch: the loop over every copy that did not fit), or
    with `node_group` that group's verdict."""
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
    head = Text(wrap(f"Node group {group} for pod {pod.get('namespace')}/{pod.get('name')}: {verdict}", width))
    head.stylize("bold green" if verdict in ("fits", "its template takes the pod") else "bold red",
                 len(head) - len(verdict))
    blocks = [Block(head, gap=False), *found_blocks(doc, width, trace)]
    if not v:       # CA's scale-up did not look at the groups for it: why
        blocks.append(Block(Text(wrap(outcome_line(record or None, doc), width)), gap=False))
    template = g.get("template") or {}
    blocks.append(Block(Text(wrap(f"{size_words(g)}; template: {template_words(doc, template)}", width)), gap=False))
    if verdict == "skipped":
        backoff = ((doc.get("nodeGroupsFound") or {}).get("backoff") or {}).get(group)
        blocks.append(Block(Text(wrap("Skipped by CA: " + "; ".join(v.get("reasons") or ())
                                      + (f" {backoff_words(backoff)}" if backoff else ""), width)), gap=False))
    elif verdict == "rejected":
        blocks.append(Block(Text(wrap(f"Rejected by {v.get('predicate')} (CA's first failing plugin): "
                                      + "; ".join(v.get("reasons") or ()), width)), gap=False))
    if entry is not None:
        blocks += _template_plugins(entry, v.get("predicate") if verdict == "rejected" else None)
    taints = ", ".join(taint_text(t) for t in template.get("taints") or ())
    if template:
        facts = [f"built from {template_source(doc, template)}",
                 f"labels {', '.join(f'{k}={val}' for k, val in (template.get('labels') or {}).items())}",
                 f"allocatable {', '.join(f'{k} {q}' for k, q in (template.get('allocatable') or {}).items())}",
                 f"taints {taints or 'none'}",
                 f"pods {', '.join(template.get('pods') or ()) or 'none'}"]
        blocks.append(Block(Group(Text("The template node", style="bold"),
                                  *(Padding(Text(f), (0, 0, 0, 2)) for f in facts))))
    return blocks


def size_words(g: Mapping[str, Any]) -> str:
    """A group's sizes and members, as `--node-group` says them."""
    return (f"size {g.get('targetSize')} (min {g.get('minSize')}, max {g.get('maxSize')}); members: "
            f"{', '.join(g.get('nodes') or ()) or 'none'}")


def taint_text(t: Mapping[str, Any]) -> str:
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
