"""CA's words about a scale-up, spelled once, for what the loop writes and what `autoscaler.events`
reads back: CA's processors/status (70920d3c6f5f: `ScaleUpResult`,
`EventingScaleUpStatusProcessor`), skippedreasons.go and rejectedreasons.go."""
from __future__ import annotations

from typing import Sequence

# ScaleUpResult
SUCCESSFUL = "ScaleUpSuccessful"
ERROR = "ScaleUpError"
NO_OPTIONS = "ScaleUpNoOptionsAvailable"
NOT_NEEDED = "ScaleUpNotNeeded"
NOT_TRIED = "ScaleUpNotTried"
IN_COOLDOWN = "ScaleUpInCooldown"
ALL_PODS_ARE_NEW = "allPodsAreNew"    # RunOnce's reason for IN_COOLDOWN: every pending pod is new
LIMITED_BY_MAX_NODES_TOTAL = "ScaleUpLimitedByMaxNodesTotal"
NO_STATUS = "NotTried"             # the loop ended before CA's status processor saw a status

# The events on a pod: NotTriggerScaleUp ("pod didn't trigger scale-up: " and ReasonsMessage:
# `COUNT REASON` per reason over the groups, joined by ", ", in Go map order; or the whole of
# MAX_TOTAL_NODES when the loop was limited by --max-nodes-total), TriggeredScaleUp ("pod
# triggered scale-up: " and the scale-up infos as Go's %v prints them: [{GROUP CUR->NEW (max: MAX)} ...]).
NOT_TRIGGERED = "NotTriggerScaleUp"
TRIGGERED = "TriggeredScaleUp"
NOT_TRIGGERED_PREFIX = "pod didn't trigger scale-up: "
TRIGGERED_PREFIX = "pod triggered scale-up: "
MAX_TOTAL_NODES = "max total nodes in cluster reached"

# Why a group is skipped for every pod (skippedreasons.go).
BACKOFF = "in backoff after failed scale-up"
MAX_LIMIT_REACHED = "max node group size reached"
NOT_READY = "not ready for scale-up"
ATOMIC_LIMIT = "atomic scale-up exceeds cluster node count limit"
# MaxResourceLimitReached: `exceeded quota: "ID", resources: R1, R2`.
QUOTA_EXCEEDED = 'exceeded quota: "{quota}", resources: {resources}'

# Why a group the simulation took is rejected after it (rejectedreasons.go).
ALL_OR_NOTHING = "not all pods would fit and scale-up is using all-or-nothing strategy"
OPTIONS_FILTERED_OUT = "expansion options filtered out and no longer considered"
EXECUTION_FAILED = "scale-up execution failed"

# The orchestrator's error when --max-nodes-total leaves no room (a ScaleUpError).
MAX_NODES_TOTAL_ERROR = "max node total count already reached"

# Events on CA's status ConfigMap (its LogRecorder).
STATUS_CONFIGMAP = "ConfigMap kube-system/cluster-autoscaler-status"    # event_object's text of it
SCALED_UP_GROUP = "ScaledUpGroup"
MAX_NODES_TOTAL_REACHED = "MaxNodesTotalReached"
CLUSTER_UNHEALTHY = "ClusterUnhealthy"
CLUSTER_UNHEALTHY_MESSAGE = "Cluster is unhealthy"
NO_NODES_MESSAGE = "Cluster has no nodes."


def event_object(kind: str, namespace: str, name: str) -> str:
    """An event's object as `KIND NAMESPACE/NAME`, the way CA's recorder names it: a
    cluster-scoped object (a Node) keeps its empty namespace, `Node /NAME`."""
    return f"{kind} {namespace}/{name}"


def exceeded_quota(quota: str, resources: Sequence[str]) -> str:
    """The skip reason of a group a quota refuses."""
    return QUOTA_EXCEEDED.format(quota=quota, resources=", ".join(resources))


def max_nodes_total_message(max_nodes_total: int) -> str:
    """The MaxNodesTotalReached warning's message."""
    return f"Max total nodes in cluster reached: {max_nodes_total}"
