"""The `--html` page of `kexplain evict pressure|drain|taints`: the document `-o json` writes (its
`family`), as static sections with the page's style: the order with its numbers (the kubelet's
ranking, drain's evictions each with the budget before and after, the taint controller's
decisions), the PodDisruptionBudgets' numbers, where the evicted pods go, the verified fixes, then
the answer as the terminal prints it (`render.eviction.FAMILY`). No script: nothing to explore
beyond what the tables show."""
from __future__ import annotations

import io
from importlib import import_module
from typing import Any, Callable, Mapping, Sequence

from kexplain.render.consoles import text_console
from kexplain.render.eviction.drain import autoscaler_line, refusals, summary as drain_summary, sync_failure_line
from kexplain.render.eviction.pressure import (KEY_HEADERS, SIGNAL_HEADERS, conditions_line, human, key_text,
                                               met_lines, signal_cells, signal_notes, summary_line)
from kexplain.render.html.markup import Html, el, static_page, table

FAMILIES = ("pressure", "drain", "taints")
TEXT_WIDTH = 80         # the terminal's: the same answer as the text
COMMANDS = {"pressure": "the kubelet's eviction manager", "drain": "kubectl drain with the Eviction API",
            "taints": "the taint eviction controller"}

Doc = Mapping[str, Any]


def is_eviction(doc: Doc) -> bool:
    return doc.get("family") in FAMILIES and "kind" not in doc


def _yes(value: Any) -> str:
    """A ranking key or a flag in words (None: the pod has no stats)."""
    if value is True or value is False:
        return "yes" if value else "no"
    return "no stats" if value is None else str(value)


def _section(title: str, anchor: str, *parts: Any) -> list[Html]:
    shown = [p for p in parts if p]
    return [el("section", el("h2", title, id=anchor), *shown, cls="eviction")] if shown else []


def _text(doc: Doc) -> str:
    buf = io.StringIO()
    render = import_module(f"kexplain.render.eviction.{doc['family']}")
    render.print_document(doc, text_console(buf, width=TEXT_WIDTH, force_terminal=False, color_system=None))
    return buf.getvalue().rstrip("\n")


# -- pressure: the signals, the thresholds met and the conditions, the ranking with its keys, the evicted --
def _pressure(doc: Doc) -> list[Html]:
    signals = [s for s in doc.get("signals") or () if s.get("operator")]
    out = _section("Signals against thresholds", "signals",
                   table([h.capitalize() for h in SIGNAL_HEADERS], [signal_cells(s) for s in signals],
                         numeric=(2, 3, 4)) if signals else None,
                   *[el("p", line, cls="note") for line in (signal_notes(doc) if signals else ())])
    met = met_lines(doc)
    out += _section("Thresholds met and node conditions", "met",
                    el("ul", *(el("li", line) for line in met)) if met else el("p", "No threshold is met."),
                    el("p", conditions_line(doc)))
    ranked = doc.get("rankingKeys") or ()
    evicted = {e.get("pod") for e in doc.get("evicted") or ()}
    signal = str(doc.get("reclaimSignal") or "")
    if ranked:
        names = [k["name"] for k in ranked[0].get("keys") or ()]
        body = [(i, r["pod"], *[human(key_text(k.get("value")), signal) if k.get("name") == "usageOverRequest"
                                else _yes(k.get("value")) for k in r.get("keys") or ()],
                 "evicted" if r["pod"] in evicted else ("critical" if r.get("critical") else ""))
                for i, r in enumerate(ranked, 1)]
        out += _section("Ranking (first evicted first; keys compared left to right)", "ranking",
                        table(("#", "Pod", *(KEY_HEADERS.get(n, n) for n in names), ""), body,
                              numeric=range(2, 2 + len(names))))
    out += _section("Evicted", "evicted", *[el("p", el("b", e.get("pod")), f" (grace {e.get('gracePeriodSeconds')}s): ",
                                                   el("code", (e.get("message") or "").strip()))
                                            for e in doc.get("evicted") or ()])
    choices = [(f"{c.get('signal')} < {c.get('value')}" + (" hard" if c.get("hard") else
                                                          f" soft {c.get('gracePeriodSeconds')}s"),
                c.get("quantity"), (c.get("evicted") or {}).get("pod") or "nothing",
                (c.get("evicted") or {}).get("gracePeriodSeconds", "-")) for c in doc.get("reclaimChoices") or ()]
    out += _section("Either memory threshold (the kubelet may act on either)", "choices",
                    table(("Threshold", "Threshold quantity", "Evicts", "Grace (s)"), choices, numeric=(3,))
                    if choices else None)
    out += _section("Verified changes", "fixes", *[el("p", w.get("says") or w.get("change")) for w in
                                                   doc.get("whatIf") or ()])
    return out


# -- drain: kubectl's filters, the evictions spending the budgets, the budgets, where pods go, fixes -----
def _numbers(budget: Any) -> str:
    if not isinstance(budget, Mapping):
        return ""
    return (f"{budget.get('currentHealthy')}/{budget.get('desiredHealthy')}/{budget.get('expectedPods')}/"
            f"{budget.get('disruptionsAllowed')}")


def _drain(doc: Doc) -> list[Html]:
    verdicts = {v.get("pod"): v for v in doc.get("verdicts") or ()}
    pods = [(p["pod"], "delete" if p.get("delete") else "no", p.get("reason", ""),
             (verdicts.get(p["pod"]) or {}).get("filter", ""), (verdicts.get(p["pod"]) or {}).get("flag", ""))
            for p in doc.get("pods") or ()]
    out = _section("kubectl's filters", "filters",
                   table(("Pod", "Deleted", "Reason", "Filter", "Flag that overrides"), pods) if pods else None,
                   *[el("p", f"error: {e}", cls="note") for e in doc.get("errors") or ()],
                   *[el("p", f"warning: {w}", cls="note") for w in doc.get("warnings") or ()])
    spending = {s.get("pod"): s for s in doc.get("spending") or ()}
    rows = []
    for e in doc.get("evictions") or ():
        spent = spending.get(e.get("pod")) or {}
        budget = (spent.get("before") or {}).get("name", "") if isinstance(spent.get("before"), Mapping) else ""
        rows.append((e.get("pod"), "evicted" if e.get("evicted") else f"refused ({e.get('code')})",
                     e.get("kubectl") or e.get("message") or "", budget, _numbers(spent.get("before")),
                     _numbers(spent.get("after")), spent.get("rule", "")))
    out += _section("Evictions, in drain's order", "evictions",
                    el("p", "Budget numbers: healthy/desired/expected/allowed, before and after each eviction.",
                       cls="note") if rows else None,
                    table(("Pod", "Answer", "kubectl says", "Budget", "Before", "After", "Rule"), rows)
                    if rows else None)
    budgets = [(b.get("name"), b.get("statusFrom", ""), *[(b.get("status") or {}).get(k, "") for k in
                                                            ("currentHealthy", "desiredHealthy", "expectedPods",
                                                             "disruptionsAllowed")],
                _numbers_after(doc, b.get("name"))) for b in doc.get("pdbs") or ()]
    out += _section("PodDisruptionBudgets", "budgets",
                    table(("Budget", "Status from", "Healthy", "Desired", "Expected", "Allowed", "Allowed after"),
                          budgets, numeric=(2, 3, 4, 5, 6)) if budgets else None,
                    *[el("p", sync_failure_line(f).removeprefix("- "), cls="note") for f in doc.get("syncFailures") or ()])
    out += _where(doc.get("replacements") or (), "evicted", "replacement")
    fixes = [(f.get("fix"), "drains" if f.get("drains") else "still blocked", f.get("result", ""))
             for f in doc.get("fixes") or ()]
    out += _section("Verified fixes (each checked by draining again)", "fixes",
                    table(("Fix", "Then", "Draining again"), fixes) if fixes else None)
    return out


def _numbers_after(doc: Doc, name: Any) -> Any:
    after = next((b for b in doc.get("pdbsAfter") or () if b.get("name") == name), None)
    return (after.get("status") or {}).get("disruptionsAllowed", "") if after else ""


def _where(rows: Sequence[Mapping[str, Any]], pod_key: str, new_key: str | None) -> list[Html]:
    """Where the evicted pods go: each replacement's scheduling answer, or why there is none, and
    what the Cluster Autoscaler or Karpenter would add for one left pending (its `autoscalers`)."""
    added = any(r.get("autoscalers") for r in rows)
    body = [(r.get(pod_key) or r.get("pod"), r.get("controller") or "",
             (r.get(new_key) if new_key else "") or ("" if r.get("replaced", True) else "not replaced"),
             r.get("node") or r.get("status") or "", _why(r),
             *([el("ul", *(el("li", autoscaler_line(a)) for a in r["autoscalers"])) if r.get("autoscalers") else ""]
               if added else []))
            for r in rows]
    headers = ("Evicted", "Controller", "Replacement", "Node or status", "Why",
               *(["What an autoscaler would add"] if added else []))
    return _section("Where the evicted pods go", "where", table(headers, body) if body else None)


def _why(row: Mapping[str, Any]) -> str:
    """A replacement's message or why there is none, with what becomes of the old pod and the way out."""
    once = row.get("onceGone") or {}
    parts = [row.get("message") or row.get("why") or "", row.get("oldPod") or "",
             f"once it is gone: {once.get('node') or once.get('status')}" if once else "",
             "the way out: " + "; or ".join(row["wayOut"]) if row.get("wayOut") else ""]
    return "; ".join(p for p in parts if p)


# -- taints: the taints, each pod's decision with the toleration behind it, where pods go, fixes ---------
def _taints(doc: Doc) -> list[Html]:
    taints = ", ".join(f"{t.get('key')}{'=' + t['value'] if t.get('value') else ''}:{t.get('effect')}"
                       for t in doc.get("noExecuteTaints") or ()) or "none"
    matches = {m.get("pod"): m for m in doc.get("matches") or ()}
    rows = []
    for p in doc.get("pods") or ():
        m = matches.get(p["pod"]) or {}
        tolerating = "; ".join(_tolerated(t) for t in m.get("taints") or ())
        rows.append((p["pod"], p.get("decision"), p.get("afterSeconds", ""), m.get("evictAt", ""), tolerating,
                     "yes" if p.get("tolerationsAdded") else ""))
    out = _section("Decisions", "decisions", el("p", f"NoExecute taints: {taints}."),
                   table(("Pod", "Decision", "After (s)", "Evicted at", "Taints and tolerations",
                          "DefaultTolerationSeconds added"), rows, numeric=(2,)) if rows else None)
    out += _where(doc.get("whereTheyGo") or (), "pod", None)
    fixes = [(f.get("pod"), "; ".join(f"{kind} {value}" for c in f.get("changes") or () for kind, value in c.items()),
              f.get("decisionAfter", "")) for f in doc.get("fixes") or ()]
    out += _section("Verified fixes (each checked by the controller's pass again)", "fixes",
                    table(("Pod", "Toleration change", "Decision after"), fixes) if fixes else None)
    return out


def _tolerated(match: Mapping[str, Any]) -> str:
    """One NoExecute taint and the toleration that tolerates it (for how long), or none."""
    key = (match.get("taint") or {}).get("key")
    toleration = match.get("toleration")
    if not toleration:
        return f"{key}: not tolerated"
    seconds = toleration.get("tolerationSeconds")
    return f"{key}: tolerated " + (f"for {seconds}s" if seconds is not None else "for ever")


SECTIONS: dict[str, Callable[[Doc], list[Html]]] = {"pressure": _pressure, "drain": _drain, "taints": _taints}


def _verdict(doc: Doc) -> list[Html]:
    """The answer first, as the text's first line says it; for a drain, what blocks it: each
    budget with the pods it refuses (or kubectl's errors)."""
    family = doc.get("family")
    if family == "drain":
        blocked = refusals(doc)
        return _section("Verdict", "verdict", el("p", drain_summary(doc), cls="verdict"),
                        el("ul", *(el("li", line) for line in blocked)) if blocked else None)
    if family == "pressure":
        return _section("Verdict", "verdict", el("p", summary_line(doc), cls="verdict"))
    return []


def eviction_body(doc: Doc) -> list[Html]:
    """The page's sections of one evict document, without the page around them (`kexplain cluster
    --html` shows a blocked drain's in its row)."""
    return [*_verdict(doc), *[el("p", f"warning: {w}", cls="note") for w in doc.get("readWarnings") or ()],
            *SECTIONS[str(doc["family"])](doc),
            el("section", el("h2", "As the terminal prints it", id="text"), el("pre", _text(doc), cls="text"),
               cls="eviction")]


def render_eviction(doc: Doc, style: str) -> str:
    """The page of one evict document (`style`: the page's css)."""
    family = str(doc["family"])
    title = f"evict {family} {doc.get('node')}"
    body = eviction_body(doc)
    meta = (f"{COMMANDS[family]} on node {doc.get('node')}, as Kubernetes {doc.get('kubernetesVersion')}'s "
            f"own code decides it; nothing was changed in the cluster.")
    return static_page(title, f"kexplain ({doc.get('kubernetesVersion')})", style,
                       {"data-kind": "eviction", "data-family": family}, meta, "".join(body))
