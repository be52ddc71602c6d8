"""A pod explained from the scheduler's own word, for a user who cannot read the cluster
(`kexplain.explain.from_event`): the verdict and where it comes from, the message taken apart
against the pod's spec, and the block of reads RBAC refused with the rules that would allow
them. Plain lines: `kexplain.render.live` writes them."""
from __future__ import annotations

from typing import Any, Iterable, TextIO

from kexplain.explain.from_event import GATED, PENDING, SCHEDULED, UNSCHEDULABLE, age_text

INDENT = "  "


def answer_lines(doc: dict[str, Any]) -> list[str]:
    """One pod's `FromEvents` document (what `-o json` writes) as lines."""
    found = doc["fromEvent"]
    word = found["scheduler"]
    key = f"{doc['pod']['namespace']}/{doc['pod']['name']}"
    if word["status"] == SCHEDULED:
        return [f"{key}: Scheduled ({word['message']})."]
    if word["status"] == PENDING:
        lines = [f"{key}: Pending: the scheduler has not reported on it yet (no FailedScheduling event, no "
                 "PodScheduled condition)."]
    else:
        lines = [f"{key}: {word['status']}: {source_text(word)}; the scheduler's own verdict, not a simulation "
                 "(kexplain could not read the cluster)."]
    if word["message"]:
        lines.append(f"{INDENT}{word['message']}")
    for gate in found["preEnqueue"]:
        lines.append(f"{INDENT}Held before any node is looked at ({gate['plugin'] or 'PreEnqueue'}, as kexplain's own "
                     f"PreEnqueue run on the pod and its namespace finds): {'; '.join(gate['reasons'])}")
    if found["message"]:
        lines += message_lines(found["message"], nodes_read=found["perNode"] is not None)
    if found["perNode"] is not None:
        lines += per_node_lines(found["perNode"])
    for event in found["autoscaler"]:
        lines += autoscaler_lines(event)
    return lines


def autoscaler_lines(event: dict[str, Any]) -> list[str]:
    """One event of the Cluster Autoscaler, taken apart: a row per reason (node groups)."""
    times = "once" if event["count"] == 1 else f"{event['count']} times"
    lines = [f"{INDENT}The Cluster Autoscaler ({event['reason']}, seen {times}, last at {event['lastSeen']}, "
             f"{age_text(event['ageSeconds'])} ago): {event['message']}"]
    if not event.get("parsed"):
        return lines + [f"{INDENT * 2}Note: not a message of the Cluster Autoscaler as kexplain knows them: shown as it is."]
    if event.get("maxTotalNodes"):
        return lines + [f"{INDENT * 2}The cluster is at --max-nodes-total: no node group may grow."]
    for up in event.get("scaleUps") or []:
        lines.append(f"{INDENT * 2}Scaling up {up['group']} from {up['from']} to {up['to']} nodes (max {up['max']}): "
                     "the pod should be placed once they are ready.")
    groups = event.get("groups") or []
    if groups:
        table = [("GROUPS", "REASON", "FROM", "WHAT IT MEANS / THE POD'S SIDE")] + [
            (str(g["count"]), g["reason"], g["plugin"] or "-", g["podSide"] or "") for g in groups]
        widths = [max(len(r[i]) for r in table) for i in range(3)]
        lines += [INDENT * 2 + "  ".join(c.ljust(w) for c, w in zip(r[:3], widths)) + "  " + r[3] for r in table]
    return lines


VERDICT_WORDS = {"rejected": "rejected", "atMost": "may fit (upper bound)", "passes": "passes"}


def per_node_lines(per_node: dict[str, Any]) -> list[str]:
    """Each node read, with what the pod's spec allows there (not the scheduler's verdict)."""
    head = (f"{INDENT}Per node, from the nodes read (not the scheduler's verdict): only the checks of the node "
            "alone; usage by other namespaces' pods is unknown, so a resource or port check that passes is an "
            "upper bound (allocatable minus this namespace's pods).")
    if per_node.get("error"):
        return [head, f"{INDENT * 2}Not worked out: {per_node['error']}"]
    table = [("NODE", "ON ITS OWN", "ALLOCATABLE", "TAINTS, LABELS THE POD READS")]
    for row in per_node["nodes"]:
        verdict = VERDICT_WORDS.get(row["verdict"], row["verdict"])
        if row["verdict"] == "rejected":
            verdict += f" by {row['plugin']}: {'; '.join(row['reasons'])}"
        alloc = ", ".join(f"{k} {row['allocatable'][k]}" for k in ("cpu", "memory", "pods") if k in row["allocatable"])
        labels = [f"{k}={v}" for k, v in sorted(row["labels"].items())]
        table.append((row["node"], verdict, alloc or "-", ", ".join([*row["taints"], *labels]) or "-"))
    widths = [max(len(r[i]) for r in table) for i in range(3)]
    lines = [head] + [INDENT * 2 + "  ".join(c.ljust(w) for c, w in zip(r[:3], widths)) + "  " + r[3] for r in table]
    if per_node.get("unknown"):
        lines.append(f"{INDENT * 2}Not known without the cluster's other objects: {', '.join(per_node['unknown'])}.")
    return lines


def message_lines(details: dict[str, Any], *, nodes_read: bool = False) -> list[str]:
    """The message taken apart: a row per reason with the pod's side, then what came after the
    filters, the fixes on the pod's side and what needs the nodes."""
    if not details.get("parsed"):
        return [f"{INDENT}Note: this is not a FailedScheduling message of Kubernetes {details['kubernetesVersion']}'s "
                "scheduler as kexplain knows them: shown as it is."]
    lines = [f"{INDENT}Taken apart (Kubernetes {details['kubernetesVersion']}'s texts), {details['nodes']} node(s):"]
    rows = details["reasons"]
    if details.get("truncated"):
        lines.append(f"{INDENT * 2}(the event keeps only the message's first 1024 bytes: the last reasons are cut)")
    pre = details.get("preFilter")
    if pre:
        plugin = pre["plugin"] or "no plugin kexplain knows"
        lines.append(f"{INDENT * 2}Every node at once ({plugin}, PreFilter): {pre['message']}")
        if pre.get("podSide"):
            lines.append(f"{INDENT * 3}{pre['podSide']}")
    if rows:
        table = [("NODES", "REASON", "PLUGIN", "THE POD'S SIDE")] + [
            (str(r["count"]), r["reason"], r["plugin"] or "-", r["podSide"] or "") for r in rows]
        widths = [max(len(row[i]) for row in table) for i in range(3)]
        lines += [INDENT * 2 + "  ".join(c.ljust(w) for c, w in zip(row[:3], widths)) + "  " + row[3]
                  for row in table]
    after = [p for p in details.get("postFilter") or [] if p["plugin"] != "DefaultPreemption"]
    for part in after:
        lines.append(f"{INDENT * 2}After the filters, {part['plugin'] or 'a PostFilter plugin'}: {part['reason']}")
    preemption = details.get("preemption")
    if preemption:
        said = preemption.get("message") or ", ".join(f"{r['count']} {r['reason']}" for r in preemption["reasons"])
        lines.append(f"{INDENT * 2}Preemption (DefaultPreemption): {said}")
    fixes = [r for r in [*rows, *([pre] if pre else [])] if r.get("fix")]
    if fixes:
        lines.append(f"{INDENT}On the pod's side:")
        lines += [f"{INDENT * 2}- {r.get('reason') or r.get('message')}: {r['fix']}" for r in fixes]
    blind = [r["reason"] for r in rows if r.get("needsNodes")]
    if blind and not nodes_read:
        lines.append(f"{INDENT}Needs the nodes, which were not read: {'; '.join(blind)}.")
    return lines


def source_text(word: dict[str, Any]) -> str:
    """Where the verdict was read: the event (count, last seen, age) or the condition."""
    if word["source"] == "event":
        times = "once" if word["count"] == 1 else f"{word['count']} times"
        return (f"its {word['reason']} event, seen {times}, last at {word['lastSeen']} "
                f"({age_text(word['ageSeconds'])} ago)")
    if word["status"] == GATED:
        return "its PodScheduled condition (SchedulingGated)"
    since = f" since {word['lastSeen']}" if word["lastSeen"] else ""
    return f"its PodScheduled condition ({word['reason'] or UNSCHEDULABLE}{since}; no FailedScheduling event read)"


def refused_lines(refusals: Iterable[dict[str, Any]], snapshot: str | None) -> list[str]:
    """One short block: the refused reads per scope with what each would add, the rules that allow
    them, and the snapshot to ask for (None: none)."""
    refusals = list(refusals)
    if not refusals:
        return []
    scopes: dict[str, list[dict[str, Any]]] = {}
    for r in refusals:
        scope = f'in the namespace "{r["namespace"]}"' if r["namespace"] else "at the cluster scope"
        scopes.setdefault(scope, []).append(r)
    lines = ["Not read (RBAC refused, 403); what each read would add:"]
    for scope, refused in scopes.items():
        adds = "; ".join(f"{r['verb']} {r['resource']}: {r['adds']}" for r in refused)
        lines.append(f"{INDENT}{scope}: {adds}.")
    groups: dict[tuple[str, str], list[str]] = {}
    for r in refusals:
        where = f'a Role in the namespace "{r["namespace"]}"' if r["namespace"] else "a ClusterRole"
        plurals = groups.setdefault((where, r["apiGroup"]), [])
        if r["resource"] not in plurals:
            plurals.append(r["resource"])
    lines.append(f"{INDENT}The rules that allow them (the ClusterRole of deploy/rbac.yaml has every cluster-wide one):")
    for (where, group), plurals in groups.items():
        lines.append(f'{INDENT * 2}{where}: {{apiGroups: ["{group}"], resources: [{", ".join(plurals)}], '
                     "verbs: [get, list]}")
    if snapshot is not None:
        lines.append(f"{INDENT}Someone with cluster-wide reads can send a redacted snapshot that replays offline: "
                     f"{snapshot}")
    return lines


def print_from_events(out: TextIO, doc: dict[str, Any]) -> None:
    """Pods explained by the scheduler's own word (`FromEvents`, `FromEventsList`), then one block
    of the reads RBAC refused and the rules that allow them."""
    many = doc.get("kind") == "FromEventsList"
    items = doc["items"] if many else [doc]
    if many and not items:
        out.write(f'No pod in namespace "{doc["namespace"]}" is Pending with PodScheduled=False.\n')
    for n, item in enumerate(items):
        if n:
            out.write("\n")
        out.writelines(line + "\n" for line in answer_lines(item))
    out.write("\n")
    refused = doc["refused"] if many else doc["fromEvent"]["refused"]
    out.writelines(line + "\n" for line in refused_lines(refused, doc["snapshot"] if many else doc["live"]["snapshot"]))
