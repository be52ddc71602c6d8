"""raise-max-skew, schedule-anyway: loosen a hard topology spread constraint that alone keeps the pod
off some nodes: its maxSkew raised to the smallest value opening a node (counted as
PodTopologySpread counts), or made a preference. Nodes without the topology label stay closed."""
from __future__ import annotations

import copy
from typing import Any, Mapping

from kexplain.model.labels import parse_selector
from kexplain.model.nodeselector import RequiredNodeAffinity
from kexplain.model.pod import PodInfo
from kexplain.plugins.names import POD_TOPOLOGY_SPREAD
from kexplain.plugins import pod_topology_spread as spread_plugin
from kexplain.suggest.change import Candidate, pod_op, pointer
from kexplain.suggest.context import Context
from kexplain.suggest.tolerations import untolerated

ID = "spread"
RAISE_MAX_SKEW = "raise-max-skew"
SCHEDULE_ANYWAY = "schedule-anyway"
KINDS = (RAISE_MAX_SKEW, SCHEDULE_ANYWAY)


def _spread_selector(constraint: Mapping[str, Any], pod: PodInfo):
    raw = copy.deepcopy(constraint.get("labelSelector"))
    if raw is not None:
        extra = [{"key": k, "operator": "In", "values": [pod.labels[k]]}
                 for k in constraint.get("matchLabelKeys") or () if k in pod.labels]
        if extra:
            raw["matchExpressions"] = [*(raw.get("matchExpressions") or []), *extra]
    return parse_selector(raw)


def _needed_skew(ctx: Context, constraint: Mapping[str, Any], nodes: list[str]) -> dict[str, int]:
    """For each node, the smallest maxSkew at which this constraint would let the pod there:
    matching pods in the node's domain, plus the pod itself, minus the least loaded domain."""
    key = constraint.get("topologyKey", "")
    selector = _spread_selector(constraint, ctx.pod)
    affinity = RequiredNodeAffinity.from_pod(ctx.pod)
    honor_affinity = (constraint.get("nodeAffinityPolicy") or spread_plugin.HONOR) == spread_plugin.HONOR
    honor_taints = (constraint.get("nodeTaintsPolicy") or spread_plugin.IGNORE) == spread_plugin.HONOR
    counts: dict[str, int] = {}
    for info in ctx.snapshot.node_infos:
        labels = info.node.labels
        if key not in labels:
            continue
        if honor_affinity and not affinity.matches(info.node):
            continue
        if honor_taints and untolerated(ctx.pod, info.node):
            continue
        n = sum(1 for p in info.pods if p.namespace == ctx.pod.namespace and not p.deletion_timestamp
                and selector.matches(p.labels))
        counts[labels[key]] = counts.get(labels[key], 0) + n
    if not counts:
        return {}
    least = min(counts.values())
    if len(counts) < int(constraint.get("minDomains") or 1):
        least = 0
    own = 1 if selector.matches(ctx.pod.labels) else 0
    out = {}
    for node in nodes:
        info = ctx.info(node)
        if info is not None and key in info.node.labels:
            out[node] = counts.get(info.node.labels[key], 0) + own - least
    return out


def candidates(ctx: Context) -> list[Candidate]:
    """For each hard constraint: the smallest maxSkew that opens a node, and ScheduleAnyway."""
    nodes = ctx.only(POD_TOPOLOGY_SPREAD)
    if not nodes:
        return []
    constraints = ctx.pod.spec.get("topologySpreadConstraints") or []
    hard = [(i, c) for i, c in enumerate(constraints)
            if (c.get("whenUnsatisfiable") or spread_plugin.DO_NOT_SCHEDULE) == spread_plugin.DO_NOT_SCHEDULE]
    labelled = [n for n in nodes
                if spread_plugin.ERR_REASON_NODE_LABEL_NOT_MATCH not in ctx.reasons(n, POD_TOPOLOGY_SPREAD)]
    needed = {i: _needed_skew(ctx, c, labelled) for i, c in hard}
    out = []
    for i, c in hard:
        where = f"topology spread constraint #{i + 1} ({c.get('topologyKey', '')}, maxSkew {c.get('maxSkew', 1)})"
        skew = int(c.get("maxSkew") or 1)
        others_pass = [n for n in labelled
                       if all(needed[j].get(n, 0) <= int(cj.get("maxSkew") or 1) for j, cj in hard if j != i)]
        wanted = sorted(needed[i][n] for n in others_pass if needed[i].get(n, 0) > skew)
        if wanted:
            op = pod_op(ctx.pod, "replace", pointer("spec", "topologySpreadConstraints", i, "maxSkew"), wanted[0])
            out.append(Candidate(RAISE_MAX_SKEW, ctx.pod_target, f"raise maxSkew of {where} to {wanted[0]}", (op,)))
        op = pod_op(ctx.pod, "replace", pointer("spec", "topologySpreadConstraints", i, "whenUnsatisfiable"),
                    spread_plugin.SCHEDULE_ANYWAY)
        out.append(Candidate(SCHEDULE_ANYWAY, ctx.pod_target,
                             f"make {where} a preference: whenUnsatisfiable {spread_plugin.SCHEDULE_ANYWAY}", (op,)))
    return out
