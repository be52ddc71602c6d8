"""The lint rule `no-node-group` (`kexplain lint --node-groups`): a Pod or workload no node group
could take, either rejected on every group's template (`never_taken`, a pre-deploy check) or
found no group by CA's one loop over the set's pending pods (`not_scaled_for`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from kexplain.autoscaler.inputs import LoopInputs
from kexplain.explain.pending_pass import PodAnswer
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot

RULE = "no-node-group"
SUMMARY = ("No node group of the Cluster Autoscaler could take the pods (--node-groups): rejected on every "
           "group's template, or every group skipped.")
FAILED = ("Unschedulable", "UnschedulableAndUnresolvable", "Error")


@dataclass(frozen=True)
class NoGroup:
    """Why no group takes the pods: per group, its reason in words."""

    message: str
    groups: dict[str, str]


def _template_reason(entry: Mapping[str, Any] | None) -> str | None:
    """What rejects the pod on a template (None: the template takes it)."""
    if entry is None:
        return "no template node"
    pre = entry.get("preFilter")
    if pre is not None:
        return f"{pre.get('plugin')}: {', '.join(pre.get('reasons') or ())}"
    if entry.get("notAmong"):
        return f"{', '.join(entry['notAmong'])}: not among the nodes PreFilter narrowed the search to"
    failing = [(p, st) for p, st in (entry.get("filterAll") or {}).items() if st.get("code") in FAILED]
    if not failing:
        return None
    return " and ".join(f"{p}: {', '.join(st.get('reasons') or ())}" for p, st in failing)


def _loop_reason(verdict: Mapping[str, Any]) -> str | None:
    """What CA's scale-up said of a group for the pod (None: it fits)."""
    kind = verdict.get("verdict")
    if kind == "fits":
        return None
    if kind == "skipped":
        return "skipped: " + ", ".join(verdict.get("reasons") or ())
    if kind == "rejected":
        return f"{verdict.get('predicate')}: {', '.join(verdict.get('reasons') or ())}"
    return "no template node"


def never_taken(loop: LoopInputs, pod: PodInfo, cluster: Snapshot, templates: Mapping[str, Any]) -> NoGroup | None:
    """The finding's words when every group's template rejects `pod` placed after the nodes of
    `cluster` (`templates`: the loop's), else None."""
    # lazy: CA's loop only for --node-groups; lint reads this module's rule (docs/development.md, "Lazy imports")
    from kexplain.autoscaler.pending import template_verdict

    if not loop.groups:
        return None
    reasons = {g.name: _template_reason(template_verdict(loop, pod, templates[g.name].node_info, cluster)
                                        if g.name in templates else None) for g in loop.groups}
    if any(r is None for r in reasons.values()):
        return None
    groups = {g: r for g, r in reasons.items() if r is not None}
    return NoGroup("no node group could ever take its pods: " + _listed(groups), groups)


def not_scaled_for(answers: Sequence[PodAnswer | None]) -> NoGroup | None:
    """The finding's words when CA's loop finds no group for the object's pending pods (the first
    answer that reached the scale-up speaks for them), else None."""
    first = next((a for a in answers if a is not None and a.detail.get("nodeGroups")), None)
    if first is None:
        return None
    verdicts = {g: _loop_reason(v) for g, v in first.detail["nodeGroups"].items()}
    if any(r is None for r in verdicts.values()):
        return None
    groups = {g: r for g, r in verdicts.items() if r is not None}
    return NoGroup("the Cluster Autoscaler would add no node for the pods that do not fit: " + _listed(groups), groups)


def _listed(groups: Mapping[str, str]) -> str:
    return "; ".join(f"{g} ({r})" for g, r in groups.items())
