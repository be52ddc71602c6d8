"""One self-contained page: static sections, the inlined page.css and page.js, and the packed
data, so the page needs no network and no other file. The document is any `-o json` output."""
from __future__ import annotations

from importlib import resources
from typing import Any, Mapping, Sequence

from kexplain.explain.queue_order import in_queue
from kexplain.render.html.data import data_script, page_data
from kexplain.render.html.cluster import is_cluster, render_cluster
from kexplain.render.html.eviction import is_eviction, render_eviction
from kexplain.render.html.from_event import FROM_EVENTS_KIND, FROM_EVENTS_LIST_KIND, render_from_events
from kexplain.render.html.markup import Html, el, esc
from kexplain.render.html.autoscaler import autoscaler_section
from kexplain.render.html.karpenter import karpenter_section
from kexplain.render.html.karpenter_disruption import is_disruption, render_disruption
from kexplain.render.html.kueue import job_key, job_title
from kexplain.render.html.volcano import is_volcano_session, render_volcano_session
from kexplain.render.html.volcano_pod import is_volcano_pod, render_volcano_pod
from kexplain.render.html.static import lint_section, overview, pod_name, trace_section
from kexplain.render.evicted import headline
from kexplain.render.kueue_chain import held
from kexplain.render.live import held_heading

Trace = Mapping[str, Any]

TRACE_KIND = "SchedulingTrace"
LIST_KIND = "SchedulingTraceList"
LINT_KIND = "LintReport"


def _asset(name: str) -> str:
    return resources.files("kexplain.render.html").joinpath(name).read_text(encoding="utf-8")


def traces_of(doc: Mapping[str, Any]) -> list[Trace]:
    """The document's traces, in the page's order."""
    kind = doc.get("kind")
    if kind == TRACE_KIND:
        return [doc]
    if kind == LIST_KIND:
        return list(doc.get("items") or ())
    if kind == LINT_KIND:
        return [t for e in doc.get("explanations") or () for t in e.get("items") or ()]
    raise ValueError(f"not a document the page shows: kind {kind!r}")


def _explained(doc: Mapping[str, Any]) -> dict[tuple[str, int], list[int]]:
    """(file, document) of each linted object -> the indexes of its traces."""
    out: dict[tuple[str, int], list[int]] = {}
    n = 0
    for e in doc.get("explanations") or ():
        key = (str(e.get("file")), int(e.get("document") or 0))
        for _ in e.get("items") or ():
            out.setdefault(key, []).append(n)
            n += 1
    return out


def _title(doc: Mapping[str, Any], traces: list[Trace]) -> str:
    kind = doc.get("kind")
    if kind == TRACE_KIND:
        removal = doc.get("eviction")
        return f"Pod {pod_name(doc)}: " + (f"{headline(removal)}; now {doc['result']['status']}" if removal
                                           else doc["result"]["status"])
    if kind == LINT_KIND:
        s = doc.get("summary") or {}
        return f"Lint: {s.get('errors', 0)} error(s), {s.get('warnings', 0)} warning(s), {s.get('objects', 0)} object(s)"
    placements = doc.get("placements")
    if placements and all(held(p.get("kueue")) for p in placements):
        return _held_title(placements)
    if placements and any(held(p.get("kueue")) for p in placements):
        return _title({**doc, "placements": [p for p in placements if not held(p.get("kueue"))]}, traces) \
            + "; " + _held_title(placements)
    if placements:
        replicas = sum(p.get("replicas", 0) for p in placements)
        made = sum(p.get("created", p.get("replicas", 0)) for p in placements)     # (the others: FailedCreate)
        retried = doc.get("retries") or ()
        tried = len({(str(p.get("object")), x.get("name")) for p in placements for x in p.get("pods") or ()}
                    | {(str(r.get("object")), r.get("pod")) for r in retried})    # (in the pass, or on its retry)
        landed = sum(1 for r in retried if r.get("node"))
        return f"{len(placements)} object(s): {sum(p.get('fit', 0) for p in placements):,} of {replicas:,} pods fit" \
            + (f", {landed:,} more once the scheduling queue retried them" if landed else "") \
            + (f", {replicas - made:,} not created" if made < replicas else "") \
            + (f", {made - tried:,} never tried" if tried < made else "")
    unfit = sum(1 for t in traces if in_queue(t)["status"] != "Scheduled")     # (as the text's list counts)
    kept = doc.get("kueueHeld") or ()       # (the work Kueue holds: no pod yet, never an all-clear)
    return f"{len(traces)} pod(s): {len(traces) - unfit} would be scheduled, {unfit} would not" \
        + (f"; {held_heading(kept)}" if kept else "")


def kueue_answers(doc: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """Kueue's answer for each pod of a placement (`namespace/name`; a held job's template too)."""
    out: dict[str, Mapping[str, Any]] = {}
    for p in doc.get("placements") or ():
        if not p.get("kueue"):
            continue
        namespace = (p.get("object") or {}).get("namespace")
        for pod in [*(p.get("pods") or ()), *([p["template"]] if isinstance(p.get("template"), Mapping) else [])]:
            out[f"{namespace}/{pod.get('name')}"] = p["kueue"]
    return out


def _held_title(placements: Sequence[Mapping[str, Any]]) -> str:
    """What Kueue holds, for the title: the job (a JobSet for its Jobs) and its Workload."""
    jobs = {job_key(p["kueue"]): p["kueue"] for p in placements if held(p.get("kueue"))}
    if len(jobs) != 1:
        return f"{len(jobs)} jobs held by Kueue"
    answer = next(iter(jobs.values()))
    state = ("no Workload created" if not answer.get("workload") else
             f"Workload {answer['workload']} admitted, but not startable" if answer.get("startError") else
             f"Workload {answer['workload']} holds quota, waits for its admission checks"
             if answer.get("verdict") == "QuotaReserved" else
             f"Workload {answer['workload']} not admitted")
    return f"{job_title(answer)} held by Kueue ({state})"


def _heading(doc: Mapping[str, Any], i: int) -> str | None:
    """A trace's heading in a list: numbered, as the page's list of explanations numbers it."""
    if doc.get("kind") == TRACE_KIND:
        return None
    return f"{i + 1}. Pod "


def _version(traces: Sequence[Mapping[str, Any]]) -> Any:
    """The Kubernetes version the traces followed (the first one's)."""
    return next((t.get("kubernetesVersion") for t in traces if t.get("kubernetesVersion")), None)


def _scheduler(traces: Sequence[Mapping[str, Any]]) -> str:
    """The kube-scheduler release(s) the traces followed (`kubernetesVersion.scheduler`)."""
    releases = sorted({str(v["scheduler"]) for t in traces
                       if isinstance(v := t.get("kubernetesVersion"), Mapping) and v.get("scheduler")})
    return f"kube-scheduler {' and '.join(releases)}" if releases else "kube-scheduler"


def render_page(doc: Mapping[str, Any]) -> str:
    """The page of one document (see the module's docstring)."""
    if doc.get("kind") in (FROM_EVENTS_KIND, FROM_EVENTS_LIST_KIND):
        return render_from_events(doc, _asset("page.css"))
    if is_cluster(doc):             # `kexplain cluster`'s report
        return render_cluster(doc, _asset("page.css"))
    if is_eviction(doc):            # `kexplain evict FAMILY`'s document
        return render_eviction(doc, _asset("page.css"))
    if is_disruption(doc):          # `kexplain karpenter --disruption`'s document
        return render_disruption(doc, _asset("page.css"))
    if is_volcano_pod(doc):         # a pod Volcano schedules: its session's answer
        return render_volcano_pod(doc, _asset("page.css"))
    if is_volcano_session(doc):     # `kexplain volcano`'s session
        return render_volcano_session(doc, _asset("page.css"))
    traces = traces_of(doc)
    kind = {TRACE_KIND: "trace", LIST_KIND: "list", LINT_KIND: "lint"}[str(doc.get("kind"))]
    title = _title(doc, traces)
    body: list[Any] = []
    if kind == "list":
        body.append(overview(doc, traces))
        if doc.get("autoscaler"):       # the CA loop over every copy that did not fit
            body += autoscaler_section({"autoscaler": doc["autoscaler"], "kubernetesVersion": _version(traces)},
                                       "list")
        if doc.get("karpenter"):        # Karpenter's pass over every pod left pending
            body += karpenter_section({"karpenter": doc["karpenter"]}, "list")
    elif kind == "lint":
        body.append(lint_section(doc, _explained(doc)))
    answers = kueue_answers(doc)
    body += [trace_section(t, i, _heading(doc, i), answers.get(pod_name(t))) for i, t in enumerate(traces)]
    if kind == "lint" and not traces:
        body.append(el("p", "No pod was scheduled (lint --nodes POOL schedules them).", cls="note"))
    scheduler = _scheduler(traces)
    noscript = el("noscript", el("p", "Without JavaScript this page shows the verdicts, the events, the best "
                                      "nodes, the rejected ones by reason, the search, preemption and what would "
                                      "make the pod schedule; a node's name leads to its verdict in brief (the "
                                      "plugins that reject it, in words, and its score), below each explanation. "
                                      "The table of every node, each node's full verdict (every plugin, its "
                                      "resources and devices) and the drawing of the search need JavaScript.",
                                 cls="note nojs-note"))
    header = el("header", el("h1", "kexplain: ", el("span", title, cls="title")),
                el("p", f"{scheduler}'s filter and score pipeline, every plugin's verdict on every node.",
                   el("span", " A click on a node opens its full verdict.", cls="js-only"), cls="meta"),
                noscript, el("nav", cls="mount", data_mount="nav", aria_label="Pods"))
    return "".join([
        "<!DOCTYPE html>\n",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta name="generator" content="kexplain ({esc(scheduler)})">',
        # No request leaves the page: scripts and styles inline only, nothing fetched.
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">",
        el("title", f"kexplain: {title}"),
        "<style>", _asset("page.css"), "</style></head>\n",
        '<body class="nojs" data-kind="', esc(kind), '">',
        el("a", "Skip to the explanation", href="#main", cls="skip"),
        header,
        el("main", Html("".join(body)), id="main"),
        '<dialog id="panel" aria-labelledby="panel-title"></dialog>',
        '<script type="application/json" id="kx-data">', data_script(page_data(kind, doc, traces)), "</script>\n",
        "<script>", _asset("page.js"), "</script>\n",
        "</body></html>\n",
    ])


def write_page(path: str, doc: Mapping[str, Any]) -> None:
    """Write the page to `path` (OSError if it cannot be written)."""
    text = render_page(doc)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
