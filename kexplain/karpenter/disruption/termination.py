"""What Karpenter's termination does with a disrupted node's pods
(controllers/node/termination/terminator): `Drain` lists the node's pods, keeps those it waits for
(not terminal, drainable: not tolerating the `karpenter.sh/disrupted:NoSchedule` taint, not stuck
terminating, not a mirror pod), groups them by priority (non-critical non-DaemonSet pods first, then
non-critical DaemonSet pods, critical non-DaemonSet, critical DaemonSet: graceful node shutdown's
order) and queues only the first group that still has pods, its evictable ones (active, no active
do-not-disrupt); the eviction queue asks the Eviction API and publishes `Evicted` or
`FailedDraining`. The API's answer is the caller's (`kexplain.eviction.api`)."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Sequence

from kexplain.karpenter.disruption import events as ev
from kexplain.karpenter.disruption.pods import DISRUPTED_TAINT, do_not_disrupt_active, is_terminal, is_terminating
from kexplain.karpenter.inputs import parse_time
from kexplain.karpenter.state.cluster import is_owned_by_daemonset, is_owned_by_node
from kexplain.model.pod import PodInfo

GROUPS = ("non-critical", "non-critical DaemonSet", "critical", "critical DaemonSet")
CRITICAL = ("system-cluster-critical", "system-node-critical")
STUCK_AFTER = timedelta(minutes=1)
MULTIPLE_PDBS = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."

# why Karpenter's drain does not ask the Eviction API for a pod (`DrainPod.skip`)
TERMINAL = "terminal (Succeeded or Failed): the drain does not wait for it"
TOLERATES = "tolerates the karpenter.sh/disrupted:NoSchedule taint: the drain leaves it"
STUCK = "terminating for more than a minute past its deletion time: the drain no longer waits for it"
MIRROR = "a mirror pod (owned by its Node): the drain leaves it"
TERMINATING = "terminating already: the drain waits for it to go, no eviction"
DO_NOT_DISRUPT = ('karpenter.sh/do-not-disrupt: Karpenter does not evict it; the drain waits until it ends '
                  '(or the NodeClaim\'s terminationGracePeriod)')


@dataclass(frozen=True)
class DrainPod:
    """One pod of the node as the terminator sees it: its priority group (None: not waited for)
    and, when Karpenter does not ask the Eviction API for it, why."""

    pod: PodInfo
    group: int | None
    skip: str = ""


def _group(pod: PodInfo) -> int:
    critical = (pod.spec.get("priorityClassName") or "") in CRITICAL
    return 2 * critical + is_owned_by_daemonset(pod)


def _not_waited(pod: PodInfo, now: datetime) -> str:
    """IsWaitingEviction's refusals, in its order."""
    if is_terminal(pod):
        return TERMINAL
    if DISRUPTED_TAINT.tolerates_pod(pod) is None:
        return TOLERATES
    deleted = parse_time(pod.deletion_timestamp) if is_terminating(pod) else None
    if deleted is not None and now - deleted > STUCK_AFTER:
        return STUCK
    if is_owned_by_node(pod):
        return MIRROR
    return ""


def drain_order(pods: Sequence[PodInfo], now: datetime, recorder: ev.Recorder) -> list[DrainPod]:
    """The node's pods in the order the terminator asks for them: by group, each group in the API's
    list order (namespace/name); those it does not wait for last."""
    waited, left = [], []
    for pod in sorted(pods, key=lambda p: (p.namespace, p.name)):
        why = _not_waited(pod, now)
        if why:
            left.append(DrainPod(pod, None, why))
        elif is_terminating(pod):
            waited.append(DrainPod(pod, _group(pod), TERMINATING))
        elif do_not_disrupt_active(pod, now, recorder):
            waited.append(DrainPod(pod, _group(pod), DO_NOT_DISRUPT))
        else:
            waited.append(DrainPod(pod, _group(pod)))
    waited.sort(key=lambda d: d.group or 0)     # (stable: list order within a group)
    return waited + left


def evicted(pod: PodInfo, reason: str) -> ev.Event:
    """EvictPod: the NodeClaim's DisruptionReason (the method's reason) in the message."""
    return ev.Event(f"Pod {pod.namespace}/{pod.name}", ev.NORMAL, "Evicted", f"Evicted pod: {reason}", (pod.name,))


def failed_to_drain(node: str, pod: PodInfo, message: str) -> ev.Event:
    """NodeFailedToDrain, for a 429 or the API's more-than-one-budget refusal."""
    words = "eviction does not support multiple PDBs" if message == MULTIPLE_PDBS else "evicting pod violates a PDB"
    return ev.Event(f"Node {node}", ev.WARNING, "FailedDraining",
                    f"Failed to drain node, {words} (Pod={pod.namespace}/{pod.name})", (node,))


def asks_again(code: int, message: str) -> bool:
    """The queue requeues a 429 and the more-than-one-budget 500 (with FailedDraining); 404 and 409
    are done; any other error is returned (and retried with backoff)."""
    return code == 429 or message == MULTIPLE_PDBS
