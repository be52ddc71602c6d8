"""The lint rule `no-node-group` (`kexplain lint --node-groups`): a Pod or workload no node group
could take, either rejected on every group's template (`never_taken`, a pre-deploy check) or
found no group by CA's one loop over the set's pending pods (`not_scaled_for`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from kexplain.autoscaler.cloudprovider import Discovery
from kexplain.autoscaler.inputs import LoopInputs
from kexplain.explain.pending_pass import PodAnswer
from kexplain.model.pod import PodInfo
from kexplain.lint.findings import Finding, guarded
from kexplain.lint.rule import NODE_GROUPS, Severity, declare
from kexplain.model.snapshot import Snapshot

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.lint.options import LintOptions
    from kexplain.lint.set_state import Gathered, Queued
    from kexplain.state.cluster import ClusterState

RULE = "no-node-group"
RULES = (
    declare(RULE, Severity.WARNING, NODE_GROUPS,
            "No node group of the Cluster Autoscaler could take the pods (--node-groups): rejected on every "
            "group's template, or every group skipped.",
            "the Cluster Autoscaler: its scale-up (core/scaleup/orchestrator: each group's "
            "template node checked with the scheduler's filters, groups skipped at max size or "
            "a quota)"),
)
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


def node_group_findings(gathered: "Gathered", pool: "ClusterState", options: "LintOptions") -> dict[int, list[Finding]]:
    """Rule no-node-group: ONE CA loop over the set's pending pods, and each object's template check
    against the cluster as the objects before it left it (never its own copies)."""
    # lazy: CA's loop (about 0.3 s to import) only for --node-groups (docs/development.md, "Lazy imports")
    from kexplain.autoscaler.pending import GroupsRequest, load_groups, run_pass as run_ca_pass
    from kexplain.autoscaler.templates import template_node_infos

    pp = gathered.builder.build()
    # the lint pool's one state: read as stored, CA's loop admits its objects as read (`ClusterState.read`)
    req = GroupsRequest(Discovery.from_file(options.node_groups or "", options.max_bytes),
                        options.autoscaler_config, max_bytes=options.max_bytes,
                        validate=options.validate, state=pool)
    loop = load_groups(req, options.kube, applied=pp)
    if not loop.groups:
        return {}
    ran, _, answers = run_ca_pass(loop, pp)
    templates = template_node_infos(ran)
    cluster = loop.base if loop.base is not None else loop.snapshot
    out: dict[int, list[Finding]] = {}       # by id of the queued object

    def check_in(q: "Queued", stands: str, pod: Any, here: Any) -> None:
        def check() -> list[Finding]:
            found = never_taken(ran, pod, here, templates) or \
                not_scaled_for([answers.answer(p.key) for p in pp.standing_for(stands)])
            return [] if found is None else [Finding(RULE, q.loc, q.ref, found.message,
                                                     details={"nodeGroups": found.groups})]
        out[id(q)] = guarded(q.ref, q.loc, check)

    later = []      # those the queue's retry placed: checked where the retry found the cluster
    for q, stands, pod, (lo, hi) in gathered.objects:
        if stands in gathered.retried:
            later.append((q, stands, pod, pp.bound[lo:hi]))
        else:
            check_in(q, stands, pod, cluster)
        for bound in pp.bound[lo:hi]:        # its copies, in the cluster the next objects are checked in
            if cluster.get(bound.node_name or "") is not None:
                cluster = cluster.with_pod_bound(bound)
    for q, stands, pod, own in later:       # after every first attempt, without its own copies
        here = cluster
        for bound in own:
            here = here.without_pod(bound.node_name or "", bound.namespace, bound.name)
        check_in(q, stands, pod, here)
    return out
