"""`kexplain evict drain` in words, read only from the document: the verdict; every pod with
kubectl's verdict, its words and the flag that overrides it; kubectl's warnings and errors; every
eviction in order with its budget's numbers before and after; the budgets; where the evicted
pods' replacements go; and the fixes checked by draining again."""
from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

from rich.console import Console
from rich.text import Text

from kexplain.render.blocks import Block, lines_block, print_blocks
from kexplain.render.karpenter import table_block
from kexplain.render.style import Look, plural
from kexplain.render.views import admission_text

RULE_WORDS = {
    "canIgnorePDB": "evicted: finished, pending or being deleted, so no budget is read",
    "no-budget": "evicted: no budget selects it",
    "unhealthy-always-allow": "evicted: not ready, and its budget's unhealthyPodEvictionPolicy is AlwaysAllow",
    "unhealthy-budget-healthy": "evicted: not ready, and its budget has its desired healthy pods",
    "spent": "evicted: its budget allowed a disruption and spent one",
}


def verdict(pod: Mapping[str, Any]) -> str:
    """kubectl's answer in one word: delete, skip or refuse."""
    if pod.get("reason") == "Error":
        return "refuse"
    return "delete" if pod.get("delete") else "skip"


def override(pod: Mapping[str, Any], how: Mapping[str, Any]) -> str:
    """The flag that overrides a refusal, allowed a deletion, or made kubectl skip the pod."""
    flag = how.get("flag") or ""
    if not flag:
        return ""
    if pod.get("reason") == "Error":
        return f"({flag} overrides)"
    return f"(by {flag})"


def summary(doc: Mapping[str, Any]) -> str:
    flags = " ".join(doc.get("flags") or ())
    head = f"kubectl drain {doc.get('node')}{' ' + flags if flags else ''} ({doc.get('kubernetesVersion')}): "
    errors, evictions = doc.get("errors") or (), doc.get("evictions") or ()
    if errors:
        return head + f"refused: {plural(len(errors), 'error')}, nothing is evicted"
    refused = [e for e in evictions if not e.get("evicted")]
    if refused:
        return head + f"blocked: {len(refused)} of {plural(len(evictions), 'eviction')} refused"
    return head + f"drains: {plural(len(evictions), 'pod')} evicted"


def refusals(doc: Mapping[str, Any]) -> list[str]:
    """What blocks the drain, a line per budget (and per answer): the budget, the pods it refuses
    and the Eviction API's words; kubectl's errors, when it evicts nothing."""
    if doc.get("errors"):
        return [f"error: {e}" for e in doc["errors"]]
    spending = {s.get("pod"): s for s in doc.get("spending") or ()}
    groups: dict[tuple[str, str], list[str]] = {}
    for e in doc.get("evictions") or ():
        if e.get("evicted"):
            continue
        spent = spending.get(e["pod"]) or {}
        budget = (spent.get("before") or {}).get("name") or ""
        groups.setdefault((budget, answer(e, spent.get("rule", ""))), []).append(e["pod"])
    return [f"{budget + ' refuses ' if budget else ''}{', '.join(pods)}{'' if budget else ' refused'}: {said}"
            for (budget, said), pods in groups.items()]


def title(text: str) -> Block:
    return Block(Text(text, style="bold"))


def pods_block(doc: Mapping[str, Any]) -> list[Block]:
    """Every pod kubectl looked at: its verdict, kubectl's words and the flag that overrides them."""
    how = {v.get("pod"): v for v in doc.get("verdicts") or ()}
    lines = []
    for p in doc.get("pods") or ():
        words = f": {p['message']}" if p.get("message") else ""
        flag = override(p, how.get(p["pod"]) or {})
        lines.append((0, f"- {verdict(p):<7}{p['pod']}{words}{'  ' + flag if flag else ''}"))
    if not lines:
        return [Block(Text("No pod is bound to the node."))]
    return [title("Pods (kubectl's filters, in the API's list order)"), lines_block(lines, gap=False)]


def errors_block(doc: Mapping[str, Any]) -> list[Block]:
    """kubectl's errors as it prints them (its warnings go to stderr)."""
    lines = [(0, f"error: {e}") for e in doc.get("errors") or ()]
    return [lines_block(lines)] if lines else []


def numbers(budget: Optional[Mapping[str, Any]]) -> str:
    if not budget:
        return ""
    return (f"healthy {budget['currentHealthy']}, desired {budget['desiredHealthy']}, "
            f"expected {budget['expectedPods']}, allowed {budget['disruptionsAllowed']}")


def answer(eviction: Mapping[str, Any], rule: str) -> str:
    if eviction.get("evicted"):
        return RULE_WORDS.get(rule, "evicted")
    causes = "; ".join(c.get("message", "") for c in eviction.get("causes") or ())
    return f"{eviction.get('code')} {eviction.get('message')}" + (f" ({causes})" if causes else "")


def budget_line(before: Optional[Mapping[str, Any]], after: Optional[Mapping[str, Any]]) -> str:
    """The budget's numbers before the eviction, and what it allows after it when that changed."""
    if not before:
        return ""
    line = f"{before['name']}: {numbers(before)}"
    if after and after.get("disruptionsAllowed") != before.get("disruptionsAllowed"):
        line += f" -> allowed {after['disruptionsAllowed']}"
    return line


def evictions_block(doc: Mapping[str, Any]) -> list[Block]:
    """Every eviction in order, each with its budget's numbers before and after it."""
    evictions = doc.get("evictions") or ()
    if not evictions:
        return []
    spending = {s.get("pod"): s for s in doc.get("spending") or ()}
    lines = []
    for e in evictions:
        spent = spending.get(e["pod"]) or {}
        lines.append((0, f"- {e['pod']}: {answer(e, spent.get('rule', ''))}"))
        budget = budget_line(spent.get("before"), spent.get("after"))
        if budget:
            lines.append((2, budget))
    return [title("Evictions (the Eviction API, in order: each spends what the previous left)"),
            lines_block(lines, gap=False)]


SOURCE_WORDS = {"given": "given", "disruption-controller": "computed"}


def budgets_block(doc: Mapping[str, Any], look: Look) -> list[Block]:
    """Every budget's numbers, and what it allows before and after the drain."""
    after = {b["name"]: b for b in doc.get("pdbsAfter") or ()}
    rows = []
    for b in doc.get("pdbs") or ():
        s, a = b["status"], (after.get(b["name"]) or b)["status"]
        rows.append([b["name"], SOURCE_WORDS.get(b["statusFrom"], b["statusFrom"]),
                     *(str(s.get(k, 0)) for k in ("currentHealthy", "desiredHealthy", "expectedPods")),
                     f"{s.get('disruptionsAllowed', 0)} -> {a.get('disruptionsAllowed', 0)}"])
    if not rows:
        return []
    return [table_block(look, "PodDisruptionBudgets (status given, or computed as the disruption controller does)",
                        ["PDB", "STATUS", "HEALTHY", "DESIRED", "EXPECTED", "ALLOWED"], rows, right=(2, 3, 4)),
            *sync_failures_block(doc)]


def sync_failure_line(failure: Mapping[str, Any]) -> str:
    """Why the disruption controller cannot sync a budget, and what the Eviction API says meanwhile."""
    line = f"- {failure['pdb']}: the disruption controller's sync fails: {failure.get('message')}"
    owners = failure.get("ownersNotFound") or ()
    if owners:
        line += (f" ({', '.join(owners)}, the owner of its pods, is not among the objects: the controller finds "
                 "no scale for it)")
    return line + ("; it allows no disruption, and the Eviction API answers that the budget is still being "
                   "processed")


def sync_failures_block(doc: Mapping[str, Any]) -> list[Block]:
    lines = [(0, sync_failure_line(f)) for f in doc.get("syncFailures") or ()]
    return [lines_block(lines, gap=False)] if lines else []


def render(doc: Mapping[str, Any], look: Look) -> list[Block]:
    return [Block(Text(summary(doc), style="bold"), gap=False), *pods_block(doc), *errors_block(doc),
            *evictions_block(doc), *budgets_block(doc, look), *extra_blocks(doc, look)]


def extra_blocks(doc: Mapping[str, Any], look: Look) -> Sequence[Block]:
    """Where the evicted pods go and the fixes (when the document holds them)."""
    return [*replacements_block(doc), *fixes_block(doc)]


def replacement_line(r: Mapping[str, Any]) -> list[tuple[int, str]]:
    """One evicted pod: its controller's replacement and the scheduler's answer for it."""
    if not r.get("replacement"):
        return [(0, f"- {r['evicted']}: no replacement ({r.get('why', '')})")]
    head = f"- {r['evicted']} -> {r['replacement']} ({r.get('controller')}): "
    admission = admission_text(r)       # what the cluster's API server gave the replacement (EKS, GKE)
    if r.get("node"):
        return [(0, head + f"scheduled on {r['node']}"), *([(2, admission)] if admission else [])]
    lines = [(0, head + f"{r.get('status', 'pending')}, stays pending"), *([(2, admission)] if admission else [])]
    if r.get("message"):
        lines.append((2, r["message"]))
    if r.get("nominatedNodeName"):
        lines.append((2, f"nominated to {r['nominatedNodeName']} once its preemption victims are gone"))
    lines += [(2, autoscaler_line(a)) for a in r.get("autoscalers") or ()]
    return lines


AUTOSCALERS = {"ClusterAutoscaler": "the Cluster Autoscaler", "Karpenter": "Karpenter"}


def autoscaler_line(answer: Mapping[str, Any]) -> str:
    """An autoscaler's answer for a pending replacement: its outcome and why (its node groups' words)."""
    who = AUTOSCALERS.get(str(answer.get("autoscaler")), str(answer.get("autoscaler")))
    reasons = "; ".join(str(r) for r in answer.get("reasons") or ())
    return f"{who}: {answer.get('outcome')}" + (f" ({reasons})" if reasons else "")


def replacements_block(doc: Mapping[str, Any]) -> list[Block]:
    replacements = doc.get("replacements") or ()
    if not replacements:
        return []
    lines = [line for r in replacements for line in replacement_line(r)]
    pending = sum(1 for r in replacements if r.get("replacement") and not r.get("node"))
    head = (f"Where the evicted pods go (their controllers' replacements, scheduled in queue order with "
            f"{doc.get('node')} cordoned): {pending} pending")
    return [title(head), lines_block(lines, gap=False)]


def fixes_block(doc: Mapping[str, Any]) -> list[Block]:
    fixes = doc.get("fixes") or ()
    if not fixes:
        return []
    lines = []
    for f in fixes:
        mark = "the drain goes" if f.get("drains") else "still blocked"
        lines += [(0, f"- {f.get('fix')}"), (2, f"{mark}: {f.get('result')}")]
    return [title("Fixes (each checked by draining again)"), lines_block(lines, gap=False)]


def print_document(doc: Mapping[str, Any], console: Console) -> None:
    """The document as text on `console` (plain when not a terminal)."""
    print_blocks(render(doc, Look(plain=not console.is_terminal, width=console.width)), console)
