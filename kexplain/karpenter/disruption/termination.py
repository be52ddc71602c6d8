"""What Karpenter's termination does with a disrupted node's pods
(controllers/node/termination/terminator): `Drain` lists the node's pods, keeps those it waits for
(not terminal, drainable: not tolerating the `karpenter.sh/disrupted:NoSchedule` taint, not stuck
terminating, not a mirror pod), groups them by priority (non-critical non-DaemonSet pods first, then
non-critical DaemonSet pods, critical non-DaemonSet, critical DaemonSet: graceful node shutdown's
order) and queues only the first group that still has pods, its evictable ones (active, no active
do-not-disrupt); the eviction queue asks the Eviction API and publishes `Evicted` or
`FailedDraining`. The API's answer is the caller's (`kexplain.eviction.api`). A NodeClaim with a
`terminationGracePeriod` ends the wait: by its termination time Karpenter deletes every pod the drain
still waits for, past its budget and its do-not-disrupt (`Deadline`, `forced_delete`)."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Mapping, Sequence

from kexplain.config._decode import parse_duration      # Go's time.ParseDuration

from kexplain.karpenter.disruption import events as ev
from kexplain.karpenter.disruption.pods import DISRUPTED_TAINT, do_not_disrupt_active, is_terminal, is_terminating
from kexplain.karpenter.inputs import parse_time
from kexplain.karpenter.state.cluster import is_owned_by_daemonset, is_owned_by_node
from kexplain.model.pod import PodInfo

GROUPS = ("non-critical", "non-critical DaemonSet", "critical", "critical DaemonSet")
CRITICAL = ("system-cluster-critical", "system-node-critical")
STUCK_AFTER = timedelta(minutes=1)
TERMINATION_TIMESTAMP = "karpenter.sh/nodeclaim-termination-timestamp"
DEFAULT_POD_GRACE = 30          # the API server's default terminationGracePeriodSeconds
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


@dataclass(frozen=True)
class Deadline:
    """The node's termination time (nodeTerminationTime): the NodeClaim's
    `karpenter.sh/nodeclaim-termination-timestamp`, which the NodeClaim lifecycle controller writes
    on its deletion as deletionTimestamp + spec.terminationGracePeriod (RFC 3339, whole seconds)."""

    period: str                 # spec.terminationGracePeriod as written ("" when only annotated)
    deleted: datetime | None    # the NodeClaim's deletion it counts from (None: the annotation given)
    time: datetime

    def text(self) -> str:
        return go_rfc3339(self.time)


def go_rfc3339(t: datetime) -> str:
    """time.Format(time.RFC3339) of a UTC time: whole seconds, `Z`."""
    return t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def go_time_string(t: datetime) -> str:
    """time.Time's %v (String) of a UTC time, as Karpenter's DisruptPodDelete event prints it."""
    t = t.astimezone(timezone.utc)
    fraction = f".{t.microsecond:06d}".rstrip("0").rstrip(".") if t.microsecond else ""
    return f"{t:%Y-%m-%d %H:%M:%S}{fraction} +0000 UTC"


def deadline(node_claim: Mapping[str, Any] | None, now: datetime) -> Deadline | None:
    """nodeTerminationTime, for a NodeClaim the command deletes now (or deleting already): its
    annotation when written (ensureTerminationGracePeriodTerminationTimeAnnotation keeps it), else
    deletion + terminationGracePeriod; None without either (the drain waits with no end)."""
    if node_claim is None:
        return None
    meta = node_claim.get("metadata") or {}
    period = str((node_claim.get("spec") or {}).get("terminationGracePeriod") or "")
    annotations = meta.get("annotations") or {}
    if TERMINATION_TIMESTAMP in annotations:          # (unreadable: Karpenter's termination fails on it)
        given = _rfc3339(annotations[TERMINATION_TIMESTAMP])
        return Deadline(period, None, given) if given is not None else None
    ns = parse_duration(period) if period else None
    if ns is None:
        return None
    deleted = (_rfc3339(meta.get("deletionTimestamp")) or now).replace(microsecond=0)
    return Deadline(period, deleted, deleted + timedelta(microseconds=ns // 1000))


def _rfc3339(text: Any) -> datetime | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        t = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    return t if t.tzinfo else None


@dataclass(frozen=True)
class ForcedDelete:
    """DeleteExpiringPods for one pod: when Karpenter deletes it past its budget and do-not-disrupt
    (its own terminationGracePeriodSeconds before the node's termination time, so its grace ends by
    then), and the grace it grants (the seconds left until then, at least 1: never a force delete)."""

    at: datetime
    pod_grace: int              # the pod's terminationGracePeriodSeconds
    granted: int | None         # the grace a delete now grants; None: later (what is left then, < pod_grace)
    event: ev.Event | None      # DisruptPodDelete, when the delete is now


def pod_grace(pod: PodInfo) -> int:
    value = pod.spec.get("terminationGracePeriodSeconds")
    return value if isinstance(value, int) and not isinstance(value, bool) else DEFAULT_POD_GRACE


def forced_delete(pod: PodInfo, end: Deadline, now: datetime) -> ForcedDelete | None:
    """For a pod the drain waits for (IsWaitingEviction): Drain gives DeleteExpiringPods those not
    terminating, or terminating past the node's termination time (IsPodEligibleForForcedEviction);
    each is deleted once now is after the termination time less its grace (podDeleteTimeWithGracePeriod)."""
    grace = pod_grace(pod)
    if is_terminating(pod):
        ends = parse_time(pod.deletion_timestamp)
        if ends is None or not ends > end.time:
            return None
    at = end.time - timedelta(seconds=grace)
    if not now > at:
        return ForcedDelete(at, grace, None, None)
    granted = max(int((end.time - now).total_seconds()), 1)
    message = (f"Deleting the pod to accommodate the terminationTime {go_time_string(end.time)} of the node. The pod "
               f"was granted {granted} seconds of grace-period of its {grace} terminationGracePeriodSeconds. This "
               f"bypasses the PDB of the pod and the do-not-disrupt annotation.")
    return ForcedDelete(at, grace, granted, ev.Event(f"Pod {pod.namespace}/{pod.name}", ev.NORMAL, "Disrupted",
                                                     message, (pod.name,)))


def grace_period_expiring(kind: str, name: str, end: Deadline) -> ev.Event:
    """NodeTerminationGracePeriodExpiring / NodeClaimTerminationGracePeriodExpiring."""
    return ev.Event(f"{kind} {name}", ev.WARNING, "TerminationGracePeriodExpiring",
                    f"All pods will be deleted by {end.text()}", (name,))
