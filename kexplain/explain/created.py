"""What a workload's controller gets created of the pods it wants, with its FailedCreate event."""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from kexplain.admission.resourcequota import QuotaLedger
from kexplain.admission.workloads import REFUSED_PODS, refused_pods
from kexplain.errors import AdmissionRejected, KexplainError
from kexplain.explain.pod_file import Entry
from kexplain.explain.pod_inputs import Inputs
from kexplain.explain.placement import daemon_nodes
from kexplain.features import DEFAULT as DEFAULT_VERSION
from kexplain.model.pod import PodInfo

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.state.cluster import ClusterState
    from kexplain.features import KubeVersion

# the controller that creates a kind's pods, as its events name it
CONTROLLERS = {"Deployment": "replicaset-controller", "ReplicaSet": "replicaset-controller",
               "StatefulSet": "statefulset-controller", "ReplicationController": "replication-controller",
               "Job": "job-controller", "CronJob": "job-controller", "DaemonSet": "daemonset-controller"}


def failed_create(entry: Entry, refusal: str, copy: str) -> str:
    """The FailedCreate event's message for the refused create of copy `copy`."""
    if entry.kind == "StatefulSet":
        return f"create Pod {copy} in StatefulSet {entry.name} failed error: {refusal}"
    return f"Error creating: {refusal}"


def controller(entry: Entry) -> str:
    """The controller that creates the entry's pods, as its events name it."""
    return CONTROLLERS.get(entry.kind, "its controller")


def said(entry: Entry) -> str:
    """What the entry's controller did, in a line ("" when it created every pod)."""
    if not entry.failed_create:
        return ""
    wanted = f" of {entry.asked}" if entry.asked else ""
    return f"{controller(entry)} creates {entry.copies}{wanted} pods: FailedCreate: {entry.failed_create}"


def created(entry: Entry, inputs: Inputs, ledger: QuotaLedger | None) -> tuple[Entry, str]:
    """The entry as the quotas let its pods be created, and what its controller says of the others."""
    if ledger is None or entry.idle:
        return entry, ""
    copies = len(daemon_nodes(inputs.pod, inputs.snapshot).eligible) if entry.daemon else entry.copies
    naming = entry.naming
    name_of = (lambda i: naming.name(i)) if naming is not None and entry.kind != "Pod" else None
    made, refusal = ledger.created_copies(inputs.pod.obj, copies, name_of, entry.later_policies)
    if not refusal:
        return entry, ""
    if entry.kind == "Pod":
        raise AdmissionRejected(refusal, source=entry.source, obj=entry.workload)
    copy = name_of(made) if name_of is not None else inputs.pod.name
    out = replace(entry, copies=made, asked=copies, failed_create=failed_create(entry, refusal, copy))
    return out, said(out)


def refused_creates(entry: Entry, err: KexplainError, pool: "ClusterState | None" = None,
                    kube: "KubeVersion | None" = None) -> Entry | None:
    """The entry as its controller leaves it when its first pod is refused; None for a refused workload."""
    if entry.kind == "Pod" or entry.idle or not isinstance(entry.workload, dict):
        return None
    converted = refused_pods(err, entry.workload, kube or (pool.kube if pool is not None else DEFAULT_VERSION))
    cause = converted.__cause__
    if not (isinstance(converted, AdmissionRejected) and converted.message.startswith(REFUSED_PODS)
            and isinstance(cause, KexplainError)):
        return None
    asked = entry.copies
    if entry.daemon:
        asked = _daemon_nodes(entry, pool)
    copy = entry.naming.name(0) if entry.naming is not None else entry.name
    return replace(entry, copies=0, asked=asked, failed_create=failed_create(entry, cause.message, copy))


def _daemon_nodes(entry: Entry, pool: "ClusterState | None") -> int:
    if pool is None:
        return 0
    return len(daemon_nodes(PodInfo(entry.pod), pool.snapshot).eligible)
