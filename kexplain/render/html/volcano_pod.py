"""The page of a pod Volcano schedules (`--html` of `kexplain POD` / `kexplain pod NAME` for a pod with
`schedulerName: volcano`, the trace's key `volcano`): static, what the text says (who answers, the
verdict, the PodGroup and its queue, the predicates per node, the events), read from the document only."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.render.html.autoscaler import autoscaler_section
from kexplain.render.html.karpenter import karpenter_section
from kexplain.render.html.markup import Html, el, static_page, table


def is_volcano_pod(doc: Mapping[str, Any]) -> bool:
    return doc.get("kind") == "SchedulingTrace" and isinstance(doc.get("volcano"), Mapping)


def render_volcano_pod(doc: Mapping[str, Any], style: str) -> str:
    vc, result = doc["volcano"], doc["result"]
    title = f"Pod {doc['pod']['namespace']}/{doc['pod']['name']}: {result['status']}"
    return static_page(title, "", style, {"data-kind": "volcano-pod"}, vc["scheduler"], "".join(_body(doc)))


def _body(doc: Mapping[str, Any]) -> list[Html]:
    vc, result = doc["volcano"], doc["result"]
    parts = [el("p", f"note: {n}", cls="note") for n in (vc.get("podGroupMade"), *(vc.get("notes") or ())) if n]
    if result["status"] == "Scheduled":
        parts.append(el("p", f"Bound to {', '.join(result['selectedNodes'])}."))
    else:
        parts.append(el("p", "Not bound: ", el("code", result["message"])))
    pg = vc.get("podGroup")
    if pg is not None:
        parts.append(el("h2", f"PodGroup {pg['name']}"))
        parts.append(el("p", f"queue {pg['queue']}, minMember {pg['minMember']}: {pg['phaseBefore']} -> {pg['phase']}"))
        parts.append(table(["Condition", "Status", "Reason", "Message"],
                           [[c["type"], c["status"], c["reason"], c.get("message", "")]
                            for c in pg.get("conditions") or ()]))
    if vc.get("queue"):
        q = vc["queue"]
        parts.append(el("p", f"Queue {q['name']} ({q['state']}): allocated "
                             + ", ".join(f"{k} {v}" for k, v in q["allocated"].items())))
        for w in q.get("waiting") or ():
            if pg is not None and w["podGroup"] == pg["name"]:
                parts.append(el("p", f"Waits on {w['plugin']}, not on nodes: ", el("code", w["reason"])))
    if vc.get("nodes"):
        parts.append(el("h2", "Predicates per node"))
        parts.append(table(["Node", "Reasons"], [[n["node"], ", ".join(n["reasons"])] for n in vc["nodes"]]))
    if vc.get("events"):
        parts.append(el("h2", "Events"))
        parts.append(table(["Object", "Type", "Reason", "Message"],
                           [[e["object"], e["type"], e["reason"], e["message"]] for e in vc["events"]]))
    parts += _fixes(vc.get("fixes"))
    if vc.get("chain"):         # the autoscalers over its job's pending pods, as for kube-scheduler's pods
        parts += [el("p", f"note: {vc['chain']}", cls="note"), *autoscaler_section(doc, 0), *karpenter_section(doc, 0)]
    return parts


def _fixes(entry: Any) -> list[Html]:
    """Its PodGroup's verified fixes: each change, what the session run again with it binds."""
    if not entry:
        return []
    parts = [el("h2", "Fixes, each verified by running the session again with it")]
    rows = [[s["kind"], s["description"], ", ".join(f"{p} -> {n if isinstance(n, str) else 'one of ' + ', '.join(n)}"
                                                  for p, n in s["verified"]["podsBound"].items())]
            for s in entry.get("suggestions") or ()]
    if rows:
        parts.append(table(["Fix", "Change", "Binds"], rows))
    for words in (entry.get("none"), *(f"tried, does not start it: {t}" for t in entry.get("triedNotEnough") or ()),
                  (entry.get("evictions") or {}).get("says")):
        if words:
            parts.append(el("p", words))
    return parts
