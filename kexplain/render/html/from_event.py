"""The `--html` page of pods explained from the scheduler's event, for a user who cannot read
the cluster (`kexplain pod` after a refused read): the same document `-o json` writes (kind
`FromEvents`, or `FromEventsList` for `--pending`), shown as static sections with the page's
style. It has no script: there is no node table to explore, only what the events said.
"""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.render.html.markup import Html, el, static_page, table

FROM_EVENTS_KIND = "FromEvents"
FROM_EVENTS_LIST_KIND = "FromEventsList"


def render_from_events(doc: Mapping[str, Any], style: str) -> str:
    items = list(doc.get("items") or ()) if doc.get("kind") == FROM_EVENTS_LIST_KIND else [doc]
    refused = doc.get("refused") if doc.get("kind") == FROM_EVENTS_LIST_KIND else (
        (doc.get("fromEvent") or {}).get("refused"))
    snapshot = (items[0].get("live") or {}).get("snapshot") if items else None
    body = [_pod(item) for item in items] or [el("p", "No pod is Pending with PodScheduled=False.", cls="note")]
    body.append(_refused(refused or [], snapshot))
    title = ", ".join(f"{i['pod']['namespace']}/{i['pod']['name']}" for i in items) or "pending pods"
    return static_page(title, "", style, {"data-kind": "from-events"},
                       "The scheduler's own verdict, read from its events: kexplain could not read the cluster, "
                       "so nothing here is a simulation.", "".join(body))


def _pod(item: Mapping[str, Any]) -> Html:
    found = item.get("fromEvent") or {}
    word = found.get("scheduler") or {}
    parts: list[Any] = [el("h2", f"{item['pod']['namespace']}/{item['pod']['name']}: {word.get('status')}")]
    if word.get("source") == "event":
        parts.append(el("p", f"From its {word.get('reason')} event, seen {word.get('count')} time(s), last at "
                             f"{word.get('lastSeen')}.", cls="meta"))
    elif word.get("source") == "condition":
        parts.append(el("p", f"From its PodScheduled condition ({word.get('reason')}).", cls="meta"))
    if word.get("message"):
        parts.append(el("p", el("code", word["message"])))
    for gate in found.get("preEnqueue") or []:
        parts.append(el("p", f"Held before any node is looked at ({gate.get('plugin')}): "
                             f"{'; '.join(gate.get('reasons') or [])}"))
    parts += _message(found.get("message"))
    parts += _per_node(found.get("perNode"))
    for event in found.get("autoscaler") or []:
        parts += _autoscaler(event)
    return el("section", *parts, cls="pod")


def _message(details: Any) -> list[Html]:
    if not details:
        return []
    if not details.get("parsed"):
        return [el("p", f"Not a FailedScheduling message of Kubernetes {details.get('kubernetesVersion')}'s scheduler "
                        "as kexplain knows them: shown as it is.", cls="note")]
    out = [el("h3", f"Taken apart (Kubernetes {details['kubernetesVersion']}'s texts), {details['nodes']} node(s)")]
    pre = details.get("preFilter")
    if pre:
        out.append(el("p", f"Every node at once ({pre.get('plugin') or 'no plugin kexplain knows'}, PreFilter): "
                           f"{pre['message']}. {pre.get('podSide') or ''}"))
    rows = details.get("reasons") or []
    if rows:
        out.append(table(("Nodes", "Reason", "Plugin", "The pod's side", "Fix on the pod's side"),
                         [(r["count"], r["reason"], r["plugin"] or "-", r.get("podSide") or "",
                           r.get("fix") or ("needs the nodes" if r.get("needsNodes") else "")) for r in rows],
                         numeric=(0,)))
    for part in details.get("postFilter") or []:
        out.append(el("p", f"After the filters, {part.get('plugin') or 'a PostFilter plugin'}: {part['reason']}"))
    return out


def _per_node(per_node: Any) -> list[Html]:
    if not per_node:
        return []
    out = [el("h3", "Per node, from the nodes read"),
           el("p", "Not the scheduler's verdict: only the checks of the node alone; usage by other namespaces' pods "
                   "is unknown, so a resource or port check that passes is an upper bound.", cls="note")]
    if per_node.get("error"):
        return out + [el("p", f"Not worked out: {per_node['error']}", cls="note")]
    words = {"rejected": "rejected", "atMost": "may fit (upper bound)", "passes": "passes"}
    out.append(table(("Node", "On its own", "Why", "Allocatable", "Taints"),
                     [(r["node"], words.get(r["verdict"], r["verdict"]),
                       f"{r['plugin']}: {'; '.join(r['reasons'])}" if r.get("plugin") else "",
                       ", ".join(f"{k} {v}" for k, v in sorted((r.get("allocatable") or {}).items())),
                       ", ".join(r.get("taints") or [])) for r in per_node.get("nodes") or []]))
    if per_node.get("unknown"):
        out.append(el("p", f"Not known without the cluster's other objects: {', '.join(per_node['unknown'])}.",
                      cls="note"))
    return out


def _autoscaler(event: Mapping[str, Any]) -> list[Html]:
    out = [el("h3", f"The Cluster Autoscaler: {event['reason']}"), el("p", el("code", event["message"]))]
    if event.get("groups"):
        out.append(table(("Node groups", "Reason", "From", "What it means / the pod's side"),
                         [(g["count"], g["reason"], g["plugin"] or "-", g.get("podSide") or "") for g in event["groups"]],
                         numeric=(0,)))
    for up in event.get("scaleUps") or []:
        out.append(el("p", f"Scaling up {up['group']} from {up['from']} to {up['to']} nodes (max {up['max']})."))
    return out


def _refused(refused: list[Mapping[str, Any]], snapshot: Any) -> Html:
    if not refused:
        return Html("")
    rows = [(f"{r['verb']} {r['resource']}", r["namespace"] or "cluster scope", r["adds"],
             el("code", f"{{apiGroups: [\"{r['apiGroup']}\"], resources: [{r['resource']}], verbs: [get, list]}}"),
             r["roleKind"]) for r in refused]
    parts = [el("h2", "Not read (RBAC refused, 403)"),
             table(("Read", "Scope", "What it would add", "The rule that allows it", "In a"), rows)]
    if snapshot:
        parts.append(el("p", "Someone with cluster-wide reads can send a redacted snapshot that replays offline: ",
                        el("code", snapshot)))
    return el("section", *parts, cls="refused")

