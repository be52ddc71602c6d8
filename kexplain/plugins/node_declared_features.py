"""NodeDeclaredFeatures (1.36 on by default): a pod that needs a node feature fits only on nodes
that declare it in `status.declaredFeatures`.

What a pod needs is inferred from its spec by component-helpers' nodedeclaredfeatures registry;
of its features only two are inferred for scheduling, and their gates decide whether the API
server keeps the fields that ask for them, so with default gates the plugin skips every pod.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from kexplain.framework import signers
from kexplain.framework.interface import Explainer, FilterPlugin, PreFilterPlugin, PreFilterResult, SignPlugin
from kexplain.framework.status import SKIP, SUCCESS, Status, unresolvable
from kexplain.plugins import names

ERR_REASON_UNSATISFIED_REQUIREMENTS = "node(s) didn't match Pod's required features"
PRE_FILTER_STATE_KEY = "PreFilter" + names.NODE_DECLARED_FEATURES
GATE = "NodeDeclaredFeatures"


def _restart_all_containers(spec: Mapping[str, Any]) -> bool:
    """A container (or init container) with a restart rule whose action restarts them all."""
    return any(rule.get("action") == "RestartAllContainers"
               for key in ("containers", "initContainers") for c in spec.get(key) or ()
               for rule in c.get("restartPolicyRules") or ())


def _user_namespace_host_network(spec: Mapping[str, Any]) -> bool:
    return bool(spec.get("hostNetwork")) and spec.get("hostUsers") is False


def _never(spec: Mapping[str, Any]) -> bool:
    return False


# The registry's features, sorted by name (the order of the feature set's bits), each with
# whether a pod's spec needs it to be scheduled.
FEATURES: tuple[tuple[str, Callable[[Mapping[str, Any]], bool]], ...] = (
    ("ExtendWebSocketsToKubelet", _never),
    ("InPlacePodLevelResourcesVerticalScaling", _never),
    ("InPlacePodVerticalScalingInitContainers", _never),
    ("RestartAllContainersOnContainerExits", _restart_all_containers),
    ("UserNamespacesHostNetworkSupport", _user_namespace_host_network),
)


def required_features(spec: Mapping[str, Any]) -> frozenset[str]:
    """InferForPodScheduling: the features the pod needs of its node."""
    return frozenset(name for name, needs in FEATURES if needs(spec))


def declared_features(node_obj: Mapping[str, Any]) -> frozenset[str]:
    """The node's declared features that the registry knows (TryMap: unknown names ignored)."""
    known = {name for name, _ in FEATURES}
    return frozenset(f for f in (node_obj.get("status") or {}).get("declaredFeatures") or () if f in known)


class NodeDeclaredFeatures(PreFilterPlugin, FilterPlugin, Explainer, SignPlugin):
    name = names.NODE_DECLARED_FEATURES
    in_overview = True      # the table names each rejected node's missing features

    def __init__(self, args, handle) -> None:
        super().__init__(args, handle)
        self.enabled = self.kube.enabled(GATE)    # constructed but inert when its gate is off

    def sign_pod(self, pod) -> signers.Fragments | None:
        """The required features as the feature set's bit string, in the registry's order."""
        needed = required_features(pod.spec)
        return [(signers.REQUIRED_FEATURES, "".join("1" if n in needed else "0" for n, _ in FEATURES))]

    def pre_filter(self, state, pod, nodes) -> tuple[PreFilterResult | None, Status]:
        if not self.enabled:
            return None, SKIP
        needed = required_features(pod.spec)
        if not needed:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, needed)
        return None, SUCCESS

    def filter(self, state, pod, node_info) -> Status:
        if not self.enabled:
            return SUCCESS
        needed = state.get(PRE_FILTER_STATE_KEY)
        if needed is None:
            return Status.error(f'error reading "{PRE_FILTER_STATE_KEY}" from cycle-state: not found')
        if needed <= declared_features(node_info.node.obj):
            return SUCCESS
        return unresolvable(ERR_REASON_UNSATISFIED_REQUIREMENTS)

    def explain(self, state, pod, node_info) -> dict | None:
        """The features the pod needs and those the node declares, when the pod needs any."""
        needed = required_features(pod.spec)
        if not needed:
            return None
        declared = declared_features(node_info.node.obj)
        return {"required": sorted(needed), "declared": sorted(declared), "missing": sorted(needed - declared)}
