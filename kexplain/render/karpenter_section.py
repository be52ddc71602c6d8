"""The "Karpenter" section of a pending pod's explanation (the trace's `karpenter` key: Karpenter's
one provisioning pass over every pending pod, `kexplain.karpenter.pending`), in `kexplain
karpenter`'s own words (`render.karpenter`: the same blocks, never reworded); after a list
(`--pending`, replicas, several pods), the pass's whole view (`section_blocks`)."""
from __future__ import annotations

from typing import Any, Mapping

from rich.text import Text

from kexplain.render.blocks import Block, print_blocks
from kexplain.render.karpenter import (RESULT_WORDS, node_claims_blocks, pod_why, pods_blocks, render,
                                       render_node_pool, summary_blocks, suggestions_blocks)
from kexplain.render.style import Look, wrap

PLACED = ("NewNodeClaim", "ExistingNode")
NOT_PROVISIONABLE = "NotProvisionable"      # IsProvisionable false: its one reason goes on the top line


def pod_key(trace: Mapping[str, Any]) -> str:
    pod = trace.get("pod") or {}
    return f"{pod.get('namespace')}/{pod.get('name')}"


def does_line(trace: Mapping[str, Any]) -> str | None:
    """What Karpenter does for the pod, in one sentence for the top of its explanation (its
    answer in the `autoscalers` slot). None without Karpenter's answer."""
    answer = next((a for a in trace.get("autoscalers") or () if a.get("autoscaler") == "Karpenter"), None)
    if answer is None:
        return None
    outcome = str(answer.get("outcome") or "")
    reasons = answer.get("reasons") or ()
    if outcome in PLACED:
        return f"Karpenter: {outcome} ({RESULT_WORDS.get(outcome, outcome)}): {reasons[0] if reasons else ''}."
    words = RESULT_WORDS.get(outcome)
    why = f": {reasons[0]}" if outcome == NOT_PROVISIONABLE and reasons else ""    # e.g. preempting: nominated
    return f"Karpenter: {outcome}" + (f" ({words})" if words else "") + why + "."


def does_blocks(trace: Mapping[str, Any], look: Look) -> list[Block]:
    line = does_line(trace)
    return [Block(Text(wrap(line, look.width), style="bold"), gap=False)] if line else []


def karpenter_blocks(trace: Mapping[str, Any], look: Look) -> list[Block]:
    """The section for the pod of `trace` (nothing without the `karpenter` key)."""
    doc = trace.get("karpenter")
    if not doc:
        return []
    key = pod_key(trace)
    blocks = summary_blocks(doc, look)         # its first line, "Karpenter: ...", is the section's title
    if len(doc.get("pods") or ()) > 1 or (doc.get("pendingPass") or {}).get("notYetCreated"):
        blocks += pods_blocks(doc, look)
    record = next((p for p in doc.get("pods") or () if p.get("pod") == key), None)
    if record is None:
        blocks.append(Block(Text(f"Pod {key} is not among the pods Karpenter's pass held.")))
        return blocks
    result = str(record.get("result") or "")
    if result in PLACED:
        answer = next((a for a in trace.get("autoscalers") or () if a.get("autoscaler") == "Karpenter"), {})
        where = "; ".join(answer.get("reasons") or ())
        blocks.append(Block(Text.assemble(("Pod ", "bold"), (key, "bold"),
                                          (f": {result} ({RESULT_WORDS.get(result, result)}): {where}", ""))))
        claim = {"nodeClaims": [c for c in doc.get("nodeClaims") or () if c.get("name") == record.get("nodeClaim")]}
        if result == "NewNodeClaim":
            blocks += node_claims_blocks(claim, look)
        return blocks
    explained = doc.get("explained") or {}
    entry = next((e for e in explained.get("pods") or () if e.get("pod") == key), None)
    if entry is not None:
        skipped = [p for p in explained.get("nodePools") or () if not p.get("tried")]
        blocks += pod_why(entry, skipped, look)
    fixes = [s for s in doc.get("suggestions") or () if key in (s.get("pods") or ())]
    if "suggestions" in doc:
        blocks += suggestions_blocks({"suggestions": fixes}, look)
    return blocks


def section_blocks(doc: Mapping[str, Any], look: Look, node_pool: str | None = None) -> list[Block]:
    """The pass's view after a list, or with `node_pool` that NodePool's verdict for every pod,
    as `kexplain karpenter` shows them."""
    return render_node_pool(doc, node_pool, look) if node_pool is not None else render(doc, look)


def print_section(doc: Mapping[str, Any], console, node_pool: str | None = None) -> None:
    """The section on its own, after a list."""
    look = Look(plain=not console.is_terminal, width=console.width)
    console.print()
    print_blocks(section_blocks(doc, look, node_pool), console)
