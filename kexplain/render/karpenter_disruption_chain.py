"""The chain of Karpenter's decision in words (`decision.chain` of `kexplain karpenter --disruption`),
read only from the document: per node its drain in the terminator's order, each pod's answer from
the Eviction API with its PodDisruptionBudget's numbers, where the pod lands, Karpenter's events.
The text and the page (`render.html.karpenter_disruption`) both say these lines."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.render.eviction.drain import answer, budget_line

HEADING = ("The chain: the evictions Karpenter's termination asks for (the Eviction API against the "
           "PodDisruptionBudgets, as `kexplain evict drain` answers them), then where each pod lands")


def answer_text(p: Mapping[str, Any]) -> str:
    """What happens to the pod now, in `kexplain evict drain`'s words: evicted (and why the budget
    let it), refused (the API's words), or why Karpenter does not ask the API."""
    outcome = p.get("outcome")
    if outcome not in ("evicted", "refused"):
        return str(p.get("why") or outcome or "") + with_deletion(p)
    text = answer(p, str(p.get("rule") or ""))
    budget = budget_line(p.get("before"), p.get("after"))
    if budget:
        text += f" [{budget}]"
    if outcome != "refused":
        return text
    deleted = p.get("deleted")
    if isinstance(deleted, Mapping) and "gracePeriodSeconds" not in deleted:
        return text + f"; Karpenter retries, the node waits until {deleted.get('at')}: then {deleted_text(deleted)}"
    return text + ("; Karpenter retries, the node waits" if not isinstance(deleted, Mapping)
                   else f"; {deleted_text(deleted)}")


def deleted_text(d: Mapping[str, Any]) -> str:
    """DeleteExpiringPods in words: Karpenter deletes the pod past its budget and do-not-disrupt,
    its own grace cut so that it ends by the node's termination time."""
    grace = d.get("terminationGracePeriodSeconds")
    if "gracePeriodSeconds" in d:
        return (f"Karpenter deletes the pod now past its PodDisruptionBudget and do-not-disrupt, granting "
                f"{d['gracePeriodSeconds']}s of its {grace}s grace, gone by {d.get('by')}")
    return (f"Karpenter deletes the pod past its PodDisruptionBudget and do-not-disrupt, its {grace}s grace "
            f"ending by {d.get('by')}")


def with_deletion(p: Mapping[str, Any]) -> str:
    """A pod not evicted now (waiting, do-not-disrupt) that Karpenter deletes by the node's termination time."""
    deleted = p.get("deleted")
    if not isinstance(deleted, Mapping) or p.get("outcome") in ("evicted", "refused"):
        return ""
    if "gracePeriodSeconds" in deleted:
        return f"; {deleted_text(deleted)}"
    return f"; at {deleted.get('at')} {deleted_text(deleted)}"


def lands_text(lands: Any, refused: bool = False) -> str:
    """Where the scheduling simulation put the pod (for a refused pod: once its eviction goes)."""
    if not isinstance(lands, Mapping):
        return ""
    prefix = "once evicted " if refused else ""
    if lands.get("node"):
        return f"{prefix}-> node {lands['node']}"
    if lands.get("replacement"):
        return f"{prefix}-> replacement NodeClaim {lands['replacement']} (NodePool {lands.get('nodePool', '')})"
    return f"{prefix}{lands.get('nowhere', '')}" if not refused else str(lands.get("nowhere", ""))


def node_heading(n: Mapping[str, Any]) -> str:
    held = [p["pod"] for p in n.get("pods") or () if p.get("outcome") in ("refused", "not-evicted") and p.get("group")]
    claim = f" (NodeClaim {n['nodeClaim']})" if n.get("nodeClaim") else ""
    state = ("every pod it waits for is evicted: drained" if n.get("drained")
             else f"not drained: held by {', '.join(held)}")
    grace = n.get("terminationGracePeriod")
    if isinstance(grace, Mapping) and not n.get("drained"):
        state += f" until {grace.get('terminationTime')} at the latest"
    return f"{n.get('node')}{claim}: {state}"


def ignored_text(p: Mapping[str, Any]) -> str:
    """A do-not-disrupt Karpenter cannot read: it protects nothing (Karpenter's event)."""
    i = p.get("doNotDisruptIgnored")
    if not i:
        return ""
    return (f"its karpenter.sh/do-not-disrupt \"{i['value']}\" protects nothing: Karpenter ignores it "
            f"({i['reason']}: \"{i['message']}\")")

def grace_line(n: Mapping[str, Any]) -> str:
    """The node's termination time: when its NodeClaim's terminationGracePeriod ends, and what
    Karpenter does then; "" for a NodeClaim without one."""
    g = n.get("terminationGracePeriod")
    if not isinstance(g, Mapping):
        return ""
    if g.get("nodeClaimDeleted"):
        start = (f"terminationGracePeriod {g.get('period')} from the NodeClaim's deletion at "
                 f"{g.get('nodeClaimDeleted')} ({g.get('from')})")
    else:
        start = f"the NodeClaim's {g.get('annotation')}"
    return (f"{start}: termination time {g.get('terminationTime')}; by then Karpenter deletes every pod the drain "
            f"still waits for, past its PodDisruptionBudget and do-not-disrupt")


def pod_line(p: Mapping[str, Any]) -> str:
    group = f" [{p['group']}]" if p.get("group") else ""
    ignored = ignored_text(p)
    return (f"{p.get('pod')}{group}: {answer_text(p)}; {lands_text(p.get('lands'), p.get('outcome') == 'refused')}"
            + (f"; {ignored}" if ignored else ""))


def event_line(e: Mapping[str, Any]) -> str:
    return f"event {e.get('reason')} on {e.get('object')}: {e.get('message')}"


def pdb_line(b: Mapping[str, Any]) -> str:
    s = b.get("status") or {}
    source = "as given" if b.get("statusFrom") == "given" else "as the disruption controller computes it"
    return (f"PDB {b.get('name')}: healthy {s.get('currentHealthy')}, desired {s.get('desiredHealthy')}, "
            f"expected {s.get('expectedPods')}, allowed {s.get('disruptionsAllowed')} ({source})")


def chain_lines(doc: Mapping[str, Any]) -> list[tuple[int, str]]:
    """(level, text) lines of the decision's chain; none without a decision."""
    c = (doc.get("decision") or {}).get("chain") or {}
    if not c.get("nodes"):
        return []
    out = [(0, HEADING + ":")]
    out += [(1, pdb_line(b)) for b in c.get("pdbs") or ()]
    for n in c["nodes"]:
        out.append((1, node_heading(n)))
        if grace_line(n):
            out.append((2, grace_line(n)))
        out += [(2, pod_line(p)) for p in n.get("pods") or ()]
        if not n.get("pods"):
            out.append((2, "no pods"))
        out += [(2, event_line(e)) for e in n.get("events") or ()]
    return out
