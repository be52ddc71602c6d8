"""NodeResourcesBalancedAllocation: prefer nodes whose resources would be used evenly after placing
the pod, so no node ends with one resource exhausted and the others idle. Up to 1.35 the score is
the balance with the pod, from 1.36 how much the pod improves it; a pod requesting none of the
resources is skipped (PreScore Skip), else every best-effort pod would chase one node."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.framework.cycle_state import CycleState
from kexplain.framework.interface import Explainer, PreScorePlugin, ScorePlugin, SignPlugin
from kexplain.framework import signers
from kexplain.plugins.node_resources_fit import sign_requests
from kexplain.framework.status import SKIP, SUCCESS, Status
from kexplain.model.nodeinfo import NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.model.shapes import REQUEST_FIELDS
from kexplain.plugins import names
from kexplain.plugins.resource_allocation import (ResourceAllocationScorer, balance_change_score, balanced_resource_score,
                                                  is_best_effort, resource_specs)

NAME = names.NODE_RESOURCES_BALANCED_ALLOCATION
PRE_SCORE_STATE_KEY = "PreScore" + NAME
# From 1.36 (kubernetes#135573) the score is how the pod changes the node's balance, not the
# balance with the pod alone.
SCORES_BALANCE_CHANGE_SINCE = "1.36"


class NodeResourcesBalancedAllocation(PreScorePlugin, ScorePlugin, Explainer, SignPlugin):
    name = NAME
    node_local = True      # reads only the pod and the node's NodeInfo (kexplain.framework.node_memo)
    pod_fields = REQUEST_FIELDS

    def sign_pod(self, pod: PodInfo) -> signers.Fragments | None:
        """The pod's requests, as NodeResourcesFit signs them (`sign_requests`)."""
        return sign_requests(self, pod)

    def __init__(self, args: Mapping[str, Any] | None, handle) -> None:
        super().__init__(args, handle)
        specs = resource_specs(self.args.get("resources"))
        change = balance_change_score if self.kube.since(SCORES_BALANCE_CHANGE_SINCE) else None
        self.scorer = ResourceAllocationScorer(specs, balanced_resource_score, use_requested=True,
                                               change_scorer=change)

    def pre_score(self, state: CycleState, pod: PodInfo, nodes) -> Status:
        requests = self.scorer.pod_requests(pod)
        if is_best_effort(requests):
            return SKIP
        state.write(PRE_SCORE_STATE_KEY, requests)
        return SUCCESS

    def score(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> int:
        requests = state.get(PRE_SCORE_STATE_KEY)
        if requests is None:
            requests = self.scorer.pod_requests(pod)
            if is_best_effort(requests):
                return 0
        return self.scorer.score(node_info, requests)

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes) -> list[int]:
        requests = state.get(PRE_SCORE_STATE_KEY)
        if requests is None:
            requests = self.scorer.pod_requests(pod)
            if is_best_effort(requests):
                return [0] * len(nodes)
        return self.scorer.score_nodes(nodes, requests)

    def explain(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> dict | None:
        """When the node was scored: each configured resource's share of allocatable with the
        pod (real requests); the closer the shares, the higher the score."""
        requests = state.get(PRE_SCORE_STATE_KEY)
        if requests is None:
            return None
        return {"resources": self.scorer.usage(node_info, requests)}
