"""DynamicResources: a pod that references ResourceClaims may only run where its devices can be
allocated, as the release followed decides with its gates (`dra.variant`). Filter runs the
structured allocator (`dra.allocator`); kexplain never writes, so PostFilter's deallocation is
only reported, and `bindings` gives what Reserve and PreBind would write (docs/internals/plugins.md)."""
from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Any

from kexplain.errors import FrameworkError
from kexplain.framework.interface import (MAX_NODE_SCORE, ExtensionPoint, Explainer, FilterPlugin, PostFilterPlugin, PreBindPlugin,
                                          PreEnqueuePlugin, PreFilterPlugin, PreFilterResult, ReservePlugin,
                                          ScoreExtensions, ScorePlugin, SignPlugin)
from kexplain.framework import signers
from kexplain.framework.status import SKIP, SUCCESS, Code, Status, unresolvable
from kexplain.model.nodeselector import NodeSelector
from kexplain.apimachinery.fielderrors import aggregate
from kexplain.plugins import names
from kexplain.plugins.dra.binding import ClaimBinding, reserved_for_pod
from kexplain.plugins.dra.claims import ClaimLookupError, pod_claims
from kexplain.plugins.dra.explain import explain_node
from kexplain.plugins.dra.inventory import Inventory, inventory
from kexplain.plugins.dra.scoring import ScoreError, ScoreRules, compute_score
from kexplain.config._decode import parse_duration
from kexplain.plugins.dra.notes import cycle_notes
from kexplain.plugins.dra.readiness import DEFAULT_BINDING_TIMEOUT_NS
from kexplain.plugins.dra.state import NOT_AVAILABLE, DraState
from kexplain.plugins.dra.variant import allocator_rules
from kexplain.plugins.helper.normalize_score import default_normalize_score

NAME = names.DYNAMIC_RESOURCES
STATE_KEY = NAME

REASON_NO_CLAIMS_TO_DEALLOCATE = "no new claims to deallocate"
REASON_DEALLOCATED = "deallocation of ResourceClaim completed"
REASON_STILL_NOT_SCHEDULABLE = "still not schedulable"
ERR_STATE_NOT_FOUND = "not found"  # CycleState.Read's error when PreFilter did not run
# PostFilter answers a pod without claims with "no new claims to deallocate"; 1.33 with a bare
# Unschedulable (no reason).
NO_CLAIMS_REASON_SINCE = "1.34"
REASON_DISABLED = "plugin disabled"   # PostFilter with DynamicResourceAllocation off


class DynamicResources(PreEnqueuePlugin, PreFilterPlugin, FilterPlugin, PostFilterPlugin,
                       ScorePlugin, ScoreExtensions, ReservePlugin, PreBindPlugin, Explainer, SignPlugin):
    name = NAME
    in_overview = True      # the table view groups the nodes by what their devices say
    SCORES_SINCE = "1.35"   # a Score plugin (prioritized lists) from 1.35; before, Score is not its interface

    @classmethod
    def points_at(cls, kube) -> frozenset[ExtensionPoint]:
        if kube.since(cls.SCORES_SINCE):
            return cls.extension_points
        return cls.extension_points - {ExtensionPoint.SCORE}

    def __init__(self, args, handle) -> None:
        super().__init__(args, handle)
        # With DynamicResourceAllocation off (1.33's default) the plugin exists but does nothing.
        self.enabled = self.kube.enabled("DynamicResourceAllocation")
        self.rules = allocator_rules(self.kube)   # the allocator NewAllocator picks for the version's gates
        self.score_rules = ScoreRules.of(self.kube)
        self.prioritized_list = self.kube.enabled("DRAPrioritizedList")
        self.no_claims_reason = self.kube.since(NO_CLAIMS_REASON_SINCE)
        timeout = self.args.get("bindingTimeout")
        parsed = parse_duration(timeout) if isinstance(timeout, str) else None
        self.binding_timeout_ns = parsed if parsed is not None else DEFAULT_BINDING_TIMEOUT_NS

    def sign_pod(self, pod) -> signers.Fragments | None:
        """Not signable with resource claims (whether their devices are on one node is not
        simple to tell, so the scheduler never batches such pods)."""
        return None if pod.spec.get("resourceClaims") else []

    @property
    def inventory(self) -> Inventory:
        return inventory(self.handle.snapshot)

    def pre_enqueue(self, pod) -> Status:
        if not self.enabled or not pod.spec.get("resourceClaims"):
            return SUCCESS
        try:
            pod_claims(pod, self.inventory.claims, self.kube)
        except ClaimLookupError as e:
            return unresolvable(str(e))
        return SUCCESS

    def pre_filter(self, state, pod, nodes) -> tuple[PreFilterResult | None, Status]:
        if not self.enabled:
            return None, SKIP
        state.write(STATE_KEY, DraState())
        if not pod.spec.get("resourceClaims"):
            return None, SKIP
        inv = self.inventory
        try:
            claims = pod_claims(pod, inv.claims, self.kube)
        except ClaimLookupError as e:
            return None, unresolvable(str(e))
        if not claims:
            return None, SKIP
        available_on: list[NodeSelector | None] = []
        for claim in claims:
            if claim.allocation is not None:
                selector = None
                if claim.allocation.node_selector is not None:
                    selector = NodeSelector.from_raw(claim.allocation.node_selector)
                    if selector.errors:
                        return None, Status.error(aggregate(selector.errors))
                available_on.append(selector)
                continue
            available_on.append(None)
            for request in claim.requests:
                if request.exactly is not None:
                    checks = [(request.exactly.device_class_name, request.name)]
                elif request.first_available:
                    if not self.prioritized_list:
                        return None, unresolvable(f"resource claim {claim.key}, request {request.name}: has "
                                                  "subrequests, but the DRAPrioritizedList feature is disabled")
                    checks = [(sub.device_class_name, f"{request.name}/{sub.name}") for sub in request.first_available]
                else:
                    return None, unresolvable(f"resource claim {claim.key}, request {request.name}: "
                                              "unknown request type")
                for class_name, request_name in checks:
                    if not class_name:
                        return None, Status.error(f"request {request_name}: unsupported request type")
                    if class_name not in inv.classes:
                        return None, unresolvable(f"request {request_name}: device class {class_name} does not exist")
        state.write(STATE_KEY, DraState(inv, tuple(claims), tuple(available_on), self.rules,
                                        self.binding_timeout_ns, time.time_ns()))
        return None, SUCCESS

    def filter(self, state, pod, node_info) -> Status:
        if not self.enabled:
            return SUCCESS
        s: DraState | None = state.get(STATE_KEY)
        if s is None:
            return Status.error(ERR_STATE_NOT_FOUND)
        if not s.claims:
            return SUCCESS
        outcome = s.outcome(node_info.node)
        if outcome.error:
            return Status.error(outcome.error)
        if outcome.unschedulable:
            return unresolvable(outcome.unschedulable)
        return SUCCESS

    def post_filter(self, state, pod, statuses):
        if not self.enabled:
            return None, Status(Code.UNSCHEDULABLE, (REASON_DISABLED,))
        if not self.no_claims_reason and not pod.spec.get("resourceClaims"):
            return None, Status(Code.UNSCHEDULABLE)
        s: DraState | None = state.get(STATE_KEY)
        if s is None:
            return None, Status.error(ERR_STATE_NOT_FOUND)
        if not s.claims:
            return None, Status(Code.UNSCHEDULABLE, (REASON_NO_CLAIMS_TO_DEALLOCATE,))
        pod_uid = str(pod.metadata.get("uid") or "")
        for index in self._unavailable_claims(s, statuses):
            reserved = s.claims[index].reserved_for
            if not reserved or reserved == (pod_uid,):
                # The scheduler clears the claim's allocation here (UpdateStatus); kexplain does not.
                return None, Status(Code.UNSCHEDULABLE, (REASON_DEALLOCATED,))
        return None, Status(Code.UNSCHEDULABLE, (REASON_STILL_NOT_SCHEDULABLE,))

    def _unavailable_claims(self, s: DraState, statuses) -> set[int]:
        """The allocated claims Filter found unusable on some node: those of the nodes this
        plugin rejected with "resourceclaim not available on the node"."""
        out: set[int] = set()
        snapshot = self.handle.snapshot
        for name, status in statuses.statuses.items():
            if status.plugin != NAME or NOT_AVAILABLE not in status.reasons:
                continue
            ni = snapshot.get(name)
            if ni is not None:
                out.update(s.outcome(ni.node).unavailable)
        return out

    def score(self, state, pod, node_info) -> int:
        if not self.enabled:
            return 0
        s: DraState | None = state.get(STATE_KEY)
        if s is None:
            raise FrameworkError(f'running Score plugins: plugin "{NAME}" failed with: {ERR_STATE_NOT_FOUND}')
        if not s.claims or not s.to_allocate:
            return 0
        allocations = s.outcome(node_info.node).allocations
        if allocations is None:
            return 0
        try:
            return compute_score(s.claims, allocations, self.score_rules)
        except ScoreError as err:
            raise FrameworkError(f'running Score plugins: plugin "{NAME}" failed with: {err}') from None

    def score_nodes(self, state, pod, nodes) -> list[int]:
        """`score` on each node: 0 on every node without a claim to allocate (most pods), at once."""
        if not self.enabled:
            return [0] * len(nodes)
        s: DraState | None = state.get(STATE_KEY)
        if s is not None and (not s.claims or not s.to_allocate):
            return [0] * len(nodes)
        return super().score_nodes(state, pod, nodes)

    def normalize_score(self, state, pod, scores) -> Status:
        default_normalize_score(MAX_NODE_SCORE, False, scores)
        return SUCCESS

    def bindings(self, state, pod, node_info) -> tuple[ClaimBinding, ...] | None:
        """Reserve then PreBind for the pod bound to the node: each claim not reserved for it yet, with the
        allocation this cycle's Filter computed there (the verdict's devices); None when Filter refused the node."""
        s: DraState | None = state.get(STATE_KEY)
        if s is None or not s.claims:
            return ()
        outcome = s.outcome(node_info.node)
        if outcome.error or outcome.unschedulable:
            return None
        allocations = iter(outcome.allocations or ())
        pod_uid = str(pod.metadata.get("uid") or "")
        # With binding conditions on, PreBind stamps the allocation with the time it writes it.
        stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") if s.rules.binding_conditions else None
        out = []
        for claim in s.claims:
            allocation = next(allocations, None) if claim.allocation is None else None
            if not reserved_for_pod(claim, pod_uid):
                out.append(ClaimBinding(claim, allocation, stamp))
        return tuple(out)

    def notes(self, state, pod) -> list[str]:
        """What kexplain does not reproduce of the version followed for this pod and cluster."""
        return cycle_notes(self.kube, state.get(STATE_KEY), pod, self.handle.snapshot.of_kind("DeviceClass"))

    def explain(self, state, pod, node_info) -> dict[str, Any] | None:
        s: DraState | None = state.get(STATE_KEY)
        if s is None or not s.claims:
            return None
        return explain_node(s, node_info.node, node_info.pods)     # the node's pods hold its devices
