"""The rule `nodepool-never-consolidates`: a Karpenter NodePool of the set that asks for
consolidation (`consolidationPolicy` written: WhenEmptyOrUnderutilized, or WhenEmpty) with
`consolidateAfter: Never`. Karpenter's consolidatable condition is never set when consolidateAfter
has no duration (pkg/controllers/nodeclaim/disruption/consolidation.go: "consolidation is
disabled"), and emptiness and both consolidation methods take only consolidatable nodes: none of
its nodes is ever removed empty or consolidated, whatever the policy says. Drift still replaces
them. A NodePool that leaves `consolidationPolicy` out and says Never is Karpenter's documented way
to turn consolidation off: not said; nor a static NodePool (`spec.replicas`: both ignored)."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterator, Mapping, Sequence

from kexplain.lint.documents import Document, Location, line_of_field
from kexplain.lint.findings import Finding, ObjectRef
from kexplain.lint.rule import SCHEMAS, Severity, declare

RULE = "nodepool-never-consolidates"
RULES = (
    declare(RULE, Severity.WARNING, SCHEMAS,
            "A Karpenter NodePool sets consolidationPolicy (WhenEmptyOrUnderutilized, or WhenEmpty) and "
            "consolidateAfter: Never: no node of it is ever consolidated, empty or underutilized.",
            "Karpenter: the consolidatable condition (pkg/controllers/nodeclaim/disruption/consolidation.go: none "
            "without a consolidateAfter duration) that emptiness and consolidation "
            "(pkg/controllers/disruption) require"),
)
NODEPOOL, GROUP = "NodePool", "karpenter.sh/"
DEFAULT_POLICY = "WhenEmptyOrUnderutilized"
DISABLED = 'NodePool "{}" has consolidation disabled'      # Karpenter's Unconsolidatable event (consolidation.go)


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def node_pools_of(items: Sequence[Document]) -> Iterator[tuple[Document, Mapping[str, Any]]]:
    """The set's Karpenter NodePools (karpenter.sh), each with its spec."""
    for doc in items:
        obj = doc.obj
        if isinstance(obj, Mapping) and obj.get("kind") == NODEPOOL and \
                str(obj.get("apiVersion") or "").startswith(GROUP):
            yield doc, _map(obj.get("spec"))


def at_field(doc: Document, field: str) -> Location:
    """The document's location at the line of `field` (the object's own line without one)."""
    return replace(doc.location, line=line_of_field(doc.node, field) or doc.location.line)


def consolidation_of(spec: Mapping[str, Any]) -> tuple[str, bool]:
    """(the consolidation policy, defaulted; whether consolidateAfter is Never)."""
    disruption = _map(spec.get("disruption"))
    return str(disruption.get("consolidationPolicy") or DEFAULT_POLICY), disruption.get("consolidateAfter") == "Never"


def consolidation_findings(items: Sequence[Document]) -> list[Finding]:
    """Each NodePool of the set that writes a consolidation policy and never consolidates."""
    out = []
    for doc, spec in node_pools_of(items):
        disruption = _map(spec.get("disruption"))
        policy, never = consolidation_of(spec)
        if not never or "consolidationPolicy" not in disruption or spec.get("replicas") is not None:
            continue
        what = "empty or underutilized" if policy == DEFAULT_POLICY else "empty"
        field = "spec.disruption.consolidateAfter"
        name = str(_map(doc.obj.get("metadata")).get("name") or "")
        out.append(Finding(RULE, at_field(doc, field), ObjectRef.of(doc.obj),
                           f"consolidateAfter: Never beside consolidationPolicy: {policy}: consolidation never "
                           f"happens: Karpenter never marks a node of it consolidatable, so no {what} node of it is "
                           f"ever removed or replaced (its event on each node: {DISABLED.format(name)}); drift "
                           "still replaces its nodes",
                           field=field, details={"consolidationPolicy": policy},
                           suggestions=("set consolidateAfter to a duration (0s: consolidate at once)",
                                        "or remove consolidationPolicy: consolidateAfter: Never alone is how "
                                        "Karpenter's docs turn consolidation off")))
    return out
