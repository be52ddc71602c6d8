"""The `--html` page of `kexplain volcano`: the session's document (what `-o json` writes, with the
tasks' details `--html` asks for) as static sections, no script: the actions in order, per PodGroup its
phase before and after, enqueue's verdict and the plugin that refuses, the gang's verdict, per task the
predicates on every node it was tried on (every reason per node; many nodes grouped by identical reasons,
each group expandable), the scores and the node chosen, the conditions and the events; the queues; then
the answer as the terminal prints it. Keys the page does not know (a queue's further figures, the
fixes) are shown as the document holds them, so a newer document still reads."""
from __future__ import annotations

import io
from typing import Any, Iterable, Mapping, Sequence

from kexplain.render.html.markup import Html, el, static_page, table
from kexplain.render.volcano import render as render_text
from kexplain.volcano.plugins.overcommit import OVERUSED
from kexplain.volcano.plugins.proportion import INSUFFICIENT
from kexplain.volcano.plugins.resourcequota import INSUFFICIENT as QUOTA_INSUFFICIENT

Doc = Mapping[str, Any]

PER_NODE_LIMIT = 12         # up to this many nodes tried: one row per node; more: grouped by reasons
SCORES_SHOWN = 10           # the best scores in the table; the others behind a summary
NAMES_SHOWN = 3             # node names a group's summary names before "and N more"
WAITING = ("Pending", "Inqueue")
KNOWN = {"volcano", "config", "podGroups", "pods", "queues", "events", "notes", "readWarnings", "skippedJobs",
         "tasks", "fixes"}
QUEUE_SHOWN = ("name", "state", "allocated")
# Enqueue's refusals, by the words each plugin's jobEnqueueable vote records on the PodGroup.
REFUSALS = ((OVERUSED, ("overcommit",)), (INSUFFICIENT, ("proportion", "capacity")),
            (QUOTA_INSUFFICIENT, ("resourcequota",)))

CSS = """
section.volcano table { width: 100%; table-layout: auto; }
section.volcano td, section.volcano summary, section.volcano li, section.volcano p { overflow-wrap: break-word; }
section.volcano td { vertical-align: top; } section.volcano td:first-child { min-width: 8rem; }
section.volcano td:last-child, section.volcano p code { overflow-wrap: anywhere; }
section.volcano details.task { margin: .5rem 0; padding-left: .6rem; border-left: 3px solid var(--line); }
section.volcano details.task > summary, section.volcano p.task { font-weight: normal; }
section.volcano p.task { margin: .5rem 0; padding-left: calc(.6rem + 3px); }
section.volcano details.nodes > summary { font-weight: normal; }
section.volcano dl.verdicts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem .8rem; }
section.volcano dl.verdicts dt { font-weight: 600; }
section.volcano dl.verdicts dd { margin: 0; overflow-wrap: anywhere; }
section.volcano tr.chosen td { font-weight: 600; }
section.volcano ul.figures { margin: 0; padding-left: 1rem; }
"""


def is_volcano_session(doc: Doc) -> bool:
    """`kexplain volcano`'s document (not a pod's SchedulingTrace, which has a `kind`)."""
    return "kind" not in doc and isinstance(doc.get("volcano"), str) and isinstance(doc.get("podGroups"), list)


def waiting(pg: Mapping[str, Any]) -> bool:
    """A PodGroup still waiting after the session (as the exit code counts it)."""
    unschedulable = any(c.get("type") == "Unschedulable" for c in pg.get("conditions") or ())
    return pg.get("phase") == "Pending" or (pg.get("phase") in WAITING and unschedulable)


def _value(v: Any) -> str:
    """A value of the document in one line: a resource list as `cpu 2, memory 4Gi`."""
    if isinstance(v, Mapping):
        return ", ".join(f"{k} {_value(x)}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return ", ".join(_value(x) for x in v)
    return "" if v is None else str(v)


def _tree(v: Any) -> Html:
    """Any part of the document as nested lists (the keys the page does not know)."""
    if isinstance(v, Mapping):
        return el("ul", *(el("li", el("strong", f"{k}: "), _tree(x)) for k, x in v.items()))
    if isinstance(v, (list, tuple)):
        if all(not isinstance(x, (Mapping, list, tuple)) for x in v):
            return el("span", _value(v))
        return el("ol", *(el("li", _tree(x)) for x in v))
    return el("span", _value(v))


def _section(title: str, anchor: str, *parts: Any) -> Html:
    return el("section", el("h2", title, id=anchor), *(p for p in parts if p), cls="volcano")


def _pods_of(doc: Doc, pg: str) -> list[Mapping[str, Any]]:
    ns, name = pg.split("/", 1) if "/" in pg else ("default", pg)
    return [p for p in doc.get("pods") or () if p.get("podGroup") == name and p["name"].split("/", 1)[0] == ns]


def _plugins(doc: Doc) -> set[str]:
    return {p for tier in (doc.get("config") or {}).get("tiers") or () for p in tier}


def enqueue_verdict(doc: Doc, pg: Mapping[str, Any]) -> str:
    """Whether enqueue admitted the PodGroup, and which plugin refused it in its own words."""
    if "enqueue" not in (doc.get("config") or {}).get("actions") or ():
        return "enqueue is not among the actions"
    skipped = {s.get("podGroup"): s.get("reason") for s in doc.get("skippedJobs") or ()}
    if pg["name"] in skipped:
        return f"not asked: the session leaves the PodGroup out ({skipped[pg['name']]})"
    if pg.get("phaseBefore") != "Pending":
        return f"not asked: the PodGroup was already {pg.get('phaseBefore')}"
    if pg.get("phase") != "Pending":
        return f"admitted: Pending -> {pg.get('phase')}"
    queue = next((q for q in doc.get("queues") or () if q.get("name") == pg.get("queue")), {})
    if queue.get("state", "Open") != "Open" and "proportion" in _plugins(doc):
        return (f"refused by proportion: queue {pg.get('queue')} is {queue['state']} (proportion refuses a job "
                "of a queue that is not Open, without an event)")
    said = [e["message"] for e in doc.get("events") or ()
            if e.get("object") == f"PodGroup {pg['name']}" and e.get("type") == "Normal"]
    plugins = _plugins(doc)
    for message in said:
        for words, who in REFUSALS:
            if message.startswith(words):
                named = [p for p in who if p in plugins] or list(who)
                return f"refused by {' or '.join(named)}: {message}"
    return "refused: " + ("; ".join(said) if said else "a plugin's jobEnqueueable vote (no event recorded)")


def gang_verdict(doc: Doc, pg: Mapping[str, Any]) -> str:
    """The gang's verdict: the Unschedulable condition's words, else how many of its tasks are bound."""
    for c in pg.get("conditions") or ():
        if c.get("type") == "Unschedulable" and c.get("status") == "True":
            return c.get("message") or c.get("reason", "")
    pods = _pods_of(doc, pg["name"])
    bound = sum(1 for p in pods if p.get("boundTo"))
    if bound:
        return f"{bound} task(s) bound this session, minMember {pg.get('minMember')}"
    return f"no task bound this session (phase {pg.get('phase')})"


def pod_verdict(pod: Mapping[str, Any], short: bool = False) -> str:
    """Where the pod went or why not, as the text says it (`short`: a long list of equal nodes cut)."""
    nodes = _names if short else ", ".join
    if pod.get("evicted"):
        return f"evicted (on {pod.get('nodeBefore', '')})"
    if pod.get("boundTo"):
        one_of = pod.get("boundToOneOf")
        return f"bound to one of {nodes(one_of)}" if one_of else f"bound to {pod['boundTo']}"
    if pod.get("podScheduled"):
        ps = pod["podScheduled"]
        tie = f" (Volcano picks one of {nodes(pod['nodeOneOf'])})" if pod.get("nodeOneOf") else ""
        return f"{ps.get('reason', '')}: {ps.get('message', '')}{tie}"
    if pod.get("nodeBefore"):
        return f"on {pod['nodeBefore']}"
    return "not scheduled this session"


def _names(nodes: Sequence[str]) -> str:
    more = len(nodes) - NAMES_SHOWN
    return ", ".join(nodes[:NAMES_SHOWN]) + (f" and {more:,} more" if more > 0 else "")


def predicates(task: Mapping[str, Any]) -> Html | None:
    """Every failing reason on every node the task was tried on: a row per node when few, else a row per
    set of identical reasons with its nodes behind a summary."""
    groups = task.get("nodes") or ()
    count = sum(len(g["nodes"]) for g in groups)
    if not count:
        return None
    if count <= PER_NODE_LIMIT:
        rows = sorted(((n, ", ".join(g["reasons"])) for g in groups for n in g["nodes"]),
                      key=lambda r: next(i for i, g in enumerate(groups) if r[0] in g["nodes"]))
        return table(("Node", "Reasons"), rows, cls="predicates", caption=f"The predicates on {count} node(s)")
    rows = [(", ".join(g["reasons"]) or "(none)",
             el("details", el("summary", f"{len(g['nodes']):,} node(s): {_names(g['nodes'])}"),
                el("p", ", ".join(g["nodes"])), cls="nodes") if len(g["nodes"]) > NAMES_SHOWN
             else f"{len(g['nodes'])} node(s): {', '.join(g['nodes'])}")
            for g in sorted(groups, key=lambda g: -len(g["nodes"]))]
    return table(("Reasons", "Nodes"), rows, cls="predicates",
                 caption=f"The predicates on {count:,} nodes, grouped by identical reasons")


def scores(task: Mapping[str, Any]) -> list[Html]:
    """The scores of the nodes the task fits (the best first), the chosen node marked (the best ones, where
    Volcano picks at random among equal scores)."""
    scored = task.get("scores") or ()
    if not scored:
        return []
    top = set(task.get("candidates") or [task.get("chosen")])
    mark = " (one of the best)" if len(top) > 1 else " (chosen)"

    def rows(items: Iterable[Mapping[str, Any]]) -> list[Html]:
        return [el("tr", el("td", s["node"] + (mark if s["node"] in top else "")),
                   el("td", f"{s['score']:g}", cls="num"), cls="chosen" if s["node"] in top else None)
                for s in items]

    head = el("thead", el("tr", el("th", "Node", scope="col"), el("th", "Score", scope="col", cls="num")))
    count = max(task.get("scored") or 0, len(scored))
    caption = ("The scores (nodeorder, binpack, ...) summed per node" if count == len(scored) else
               f"The {len(scored):,} best of the {count:,} nodes scored (nodeorder, binpack, ...), summed per node")
    out = [el("table", el("caption", caption), head, el("tbody", *rows(scored[:SCORES_SHOWN])), cls="scores")]
    if len(scored) > SCORES_SHOWN:
        out.append(el("details", el("summary", f"{len(scored) - SCORES_SHOWN:,} more node(s) scored"),
                      el("table", el("tbody", *rows(scored[SCORES_SHOWN:])), cls="scores"), cls="nodes"))
    return out


def _choice(task: Mapping[str, Any]) -> str:
    """The node chosen, or the nodes of equal best score Volcano picks one of at random."""
    tied = task.get("candidates") or ()
    return f"one of {_names(tied)} (equal scores: Volcano picks at random)" if len(tied) > 1 else task["chosen"]


def task_block(pod: Mapping[str, Any], task: Mapping[str, Any] | None) -> Html:
    """One task: where it went or why not; expandable, when the session tried it, to why it fits no
    node, the predicates on every node, the scores and the node chosen."""
    line = el("span", el("strong", pod["name"]), f": {pod_verdict(pod, short=True)}")
    if task is None:
        return el("p", line, cls="task")
    tried = sum(len(g["nodes"]) for g in task.get("nodes") or ())
    said = [f"the predicates refuse it on {tried:,} node(s)" if tried else "",
            f"{task.get('scored') or len(task.get('scores') or ()):,} node(s) scored" if task.get("scores") else "",
            f"the node chosen: {_choice(task)}" if task.get("chosen") else ""]
    notes = [el("p", "; ".join(s for s in said if s).capitalize() + ".", cls="note")]
    if pod_verdict(pod, short=True) != pod_verdict(pod):
        notes.append(el("p", pod_verdict(pod)))
    if task.get("fitError") and task["fitError"] != (pod.get("podScheduled") or {}).get("message"):
        notes.append(el("p", "Why no node: ", el("code", task["fitError"])))
    if task.get("chosen") and not pod.get("boundTo"):
        notes.append(el("p", f"Allocate chose {_choice(task)}, but the task was not bound this session.",
                        cls="note"))
    return el("details", el("summary", line), *notes, predicates(task), *scores(task), cls="task",
              id=f"task-{task['name']}")


def task_blocks(pods: list[Mapping[str, Any]], tasks: Mapping[str, Mapping[str, Any]]) -> list[Html]:
    """Each task the session tried on its own; the others with the same answer as one line (`N tasks:
    ...`, expandable to their names), where the first of them stands: a gang of 5,000 stays readable."""
    out: list[Any] = []
    alike: dict[str, tuple[int, list[Mapping[str, Any]]]] = {}
    for p in pods:
        if p["name"] in tasks:
            out.append(task_block(p, tasks[p["name"]]))
            continue
        verdict = pod_verdict(p, short=True)
        if verdict not in alike:
            alike[verdict] = (len(out), [])
            out.append(None)
        alike[verdict][1].append(p)
    for verdict, (slot, same) in alike.items():
        out[slot] = task_block(same[0], None) if len(same) == 1 else el(
            "details", el("summary", el("strong", f"{len(same):,} tasks"), f": {verdict}"),
            el("p", ", ".join(p["name"] for p in same)), cls="task alike")
    return out


def _events_table(events: Iterable[Mapping[str, Any]]) -> Html | None:
    """The events as the recorder emitted them (identical ones counted, as the text counts them)."""
    rows = [(e.get("object", ""), f"{e.get('type', '')} {e.get('reason', '')}",
             e.get("message", "") + (f" (x{e['count']})" if e.get("count", 1) > 1 else "")) for e in events]
    return table(("Object", "Event", "Message"), rows) if rows else None


def _objects(doc: Doc, pg: str) -> set[str]:
    """The event objects of a PodGroup's section: the PodGroup and its pods."""
    return {f"PodGroup {pg}", *(f"Pod {p['name']}" for p in _pods_of(doc, pg))}


def other_events(doc: Doc) -> Html | None:
    """The events no PodGroup's section shows."""
    shown = set().union(*(_objects(doc, pg["name"]) for pg in doc.get("podGroups") or ()))
    rest = [e for e in doc.get("events") or () if e.get("object") not in shown]
    return _section("Other events", "events", _events_table(rest)) if rest else None


def pod_group_section(doc: Doc, pg: Mapping[str, Any]) -> Html:
    """A PodGroup: its phases, enqueue's and the gang's verdicts, its tasks, conditions and events."""
    name = pg["name"]
    pods = _pods_of(doc, name)
    tasks = {t["name"]: t for t in doc.get("tasks") or () if t.get("podGroup") == name}
    verdicts = el("dl", el("dt", "Phase"), el("dd", f"{pg.get('phaseBefore')} -> {pg.get('phase')}"),
                  el("dt", "Enqueue"), el("dd", enqueue_verdict(doc, pg)),
                  el("dt", "Gang"), el("dd", gang_verdict(doc, pg)), cls="verdicts")
    if pg.get("originReasonOneOf"):
        verdicts = Html(verdicts + el("p", "The task Volcano's \"Origin reason\" names is one of "
                                           f"{_value(pg['originReasonOneOf'])}.", cls="note"))
    extra = {k: v for k, v in pg.items() if k not in ("name", "queue", "minMember", "phaseBefore", "phase",
                                                       "conditions", "originReasonOneOf")}
    conditions = [(c.get("type", ""), c.get("status", ""), c.get("reason", ""), c.get("message", ""))
                  for c in pg.get("conditions") or ()]
    objects = _objects(doc, name)
    parts: list[Any] = [
        el("p", f"Queue {pg.get('queue')}, minMember {pg.get('minMember')}", cls="meta"), verdicts,
        _tree(extra) if extra else None,
        el("h3", "Tasks"),
        *task_blocks(pods, tasks),
        None if pods else el("p", "No pod of the PodGroup among the objects."),
        el("h3", "Conditions") if conditions else None,
        table(("Type", "Status", "Reason", "Message"), conditions) if conditions else None,
        el("h3", "Events") if any(e.get("object") in objects for e in doc.get("events") or ()) else None,
        _events_table(e for e in doc.get("events") or () if e.get("object") in objects)]
    return _section(f"PodGroup {name}", f"pg-{name}", *parts)


def session_section(doc: Doc) -> Html:
    """The configuration (actions in order, tiers, plugins skipped), notes, and every PodGroup in brief."""
    config = doc.get("config") or {}
    actions = el("ol", *(el("li", el("code", a)) for a in config.get("actions") or ()), cls="actions")
    tiers = [(f"tier {i + 1}", ", ".join(t)) for i, t in enumerate(config.get("tiers") or ())]
    skipped = [el("p", f"plugin {n}: not a Volcano plugin: skipped, as Volcano skips it", cls="note")
               for n in config.get("unknownPlugins") or ()]
    skipped += [el("p", f"plugin {n}: Volcano's, not modelled by kexplain yet: skipped", cls="note")
                for n in config.get("unmodelledPlugins") or ()]
    notes = [el("p", f"note: {n}", cls="note") for n in doc.get("notes") or ()]
    notes += [el("p", f"warning: {w}", cls="note") for w in doc.get("readWarnings") or ()]
    notes += [el("p", f"PodGroup {s.get('podGroup')} left out of the session: {s.get('reason')}", cls="note")
              for s in doc.get("skippedJobs") or ()]
    rows = [(el("a", pg["name"], href=f"#pg-{pg['name']}"), pg.get("queue", ""),
             f"{pg.get('phaseBefore')} -> {pg.get('phase')}", "waits" if waiting(pg) else "ok",
             enqueue_verdict(doc, pg).split(": ", 1)[0], gang_verdict(doc, pg).split(": ", 1)[0])
            for pg in doc.get("podGroups") or ()]
    return _section("The session", "session",
                    el("p", "The actions, in the configuration's order:"), actions,
                    table(("Tier", "Plugins"), tiers) if tiers else None,
                    el("p", f"Configuration: {config['source']}", cls="note") if config.get("source") else None,
                    *skipped, *notes,
                    table(("PodGroup", "Queue", "Phase", "Verdict", "Enqueue", "Gang"), rows) if rows
                    else el("p", "No PodGroup among the objects: Volcano has no job to schedule."))


def orphans_section(doc: Doc) -> Html | None:
    """The pods of a PodGroup the session does not hold (none among the objects, or left out): Volcano's
    cache has no job for them and does not schedule them."""
    held = {pg["name"] for pg in doc.get("podGroups") or ()}
    pods = [p for p in doc.get("pods") or ()
            if p.get("podGroup") and f"{p['name'].split('/', 1)[0]}/{p['podGroup']}" not in held]
    if not pods:
        return None
    return _section("Pods whose PodGroup the session does not hold", "orphans",
                    el("p", "Volcano's scheduler cache holds no job for these pods: it does not schedule them.",
                       cls="note"), *task_blocks(pods, {t["name"]: t for t in doc.get("tasks") or ()}))


def queues_section(doc: Doc) -> Html | None:
    """Per queue its state and allocated, and whatever further figures the document holds for it (one
    line each in a last column: a queue may have many)."""
    queues = [q for q in doc.get("queues") or () if isinstance(q, Mapping)]
    if not queues:
        return None
    more = [k for k in dict.fromkeys(k for q in queues for k in q) if k not in QUEUE_SHOWN]
    rows = [(q.get("name", ""), q.get("state", ""), _value(q.get("allocated")),
             *([el("ul", *(el("li", f"{k}: {_value(q[k])}") for k in more if k in q), cls="figures")] if more else []))
            for q in queues]
    return _section("Queues", "queues", table(("Queue", "State", "Allocated", *(["Further figures"] if more else [])),
                                              rows))


def fixes_section(doc: Doc) -> Html | None:
    """The fixes, when the document has them, as it holds them."""
    fixes = doc.get("fixes")
    return _section("Fixes", "fixes", _tree(fixes)) if fixes else None


def others_section(doc: Doc) -> Html | None:
    """Any key of the document the page does not know yet, as the document holds it."""
    others = {k: v for k, v in doc.items() if k not in KNOWN}
    return _section("More of the document", "more", _tree(others)) if others else None


def _text(doc: Doc) -> str:
    buf = io.StringIO()
    render_text(dict(doc), buf)
    return buf.getvalue().rstrip("\n")


def title(doc: Doc) -> str:
    groups = doc.get("podGroups") or ()
    if not groups:
        return "Volcano session: no PodGroup"
    wait = sum(1 for pg in groups if waiting(pg))
    return f"Volcano session: {len(groups)} PodGroup(s), {wait} waiting"


def render_volcano_session(doc: Doc, style: str) -> str:
    """The page of one session document (`style`: the page's css)."""
    body = [session_section(doc), *(pod_group_section(doc, pg) for pg in doc.get("podGroups") or ()),
            orphans_section(doc), queues_section(doc), fixes_section(doc),
            other_events(doc),
            others_section(doc),
            _section("As the terminal prints it", "text", el("pre", _text(doc), cls="text"))]
    return static_page(title(doc), f"kexplain (Volcano {doc.get('volcano', '')})", style + CSS,
                       {"data-kind": "volcano-session"},
                       f"One scheduling session of Volcano {doc.get('volcano', '')}'s scheduler; nothing was changed "
                       "in the cluster.", "".join(b for b in body if b))
