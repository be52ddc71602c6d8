"""What a workload's controller gets created of the pods it wants: the API server stores the
workload, then answers each create of its controller, which stops at the first it refuses and
says so in a FailedCreate event on the workload (the ReplicaSet of a Deployment), in its own
words: `Error creating: pods "web-2" is forbidden: exceeded quota: ...` (a StatefulSet's:
`create Pod web-2 in StatefulSet web failed error: ...`). Two ways a create is refused:

- a ResourceQuota of the namespace is full (`kexplain.admission.resourcequota`): pods are
  charged in the order of the set (the order they are created in), each copy in turn, and the
  controller creates them until one is refused (`created`); a DaemonSet's pods too, one for
  each node its controller runs it on (`placement.daemon_nodes`, in node name order: the pods
  the quota refuses are those of the last nodes); an idle workload's template is not charged;
- an admission plugin refuses every pod the template makes (Pod Security's enforce level,
  a LimitRange's bounds, a missing PriorityClass, ...: `kexplain.admission.workloads.refused_pods`
  says the pods are refused, not the workload): none is created (`refused_creates`).

Either way the workload itself was admitted: its entry stays, with the pods created (maybe
none), the pods asked for and the event (`Entry.failed_create`, `Entry.asked`). A Pod the API
server refuses is the user's own create failing: it is refused (AdmissionRejected).
"""
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
    """What the entry's controller did, in a line: `replicaset-controller creates 2 of 3 pods:
    FailedCreate: Error creating: ...` ("" when it created every pod)."""
    if not entry.failed_create:
        return ""
    wanted = f" of {entry.asked}" if entry.asked else ""
    return f"{controller(entry)} creates {entry.copies}{wanted} pods: FailedCreate: {entry.failed_create}"


def created(entry: Entry, inputs: Inputs, ledger: QuotaLedger | None) -> tuple[Entry, str]:
    """The entry as the quotas let its pods be created (its copies, when fewer are: a
    DaemonSet's, the pods of its first eligible nodes; maybe none), and what its controller says
    of the pods that are not (`said`; "" when all are). Raises AdmissionRejected for a Pod the
    quotas refuse."""
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
    """The entry as its controller leaves it when the API server refuses its first pod (`err`,
    raised admitting the pod its template makes): none created, the FailedCreate event naming
    the pod's refusal. None when `err` refuses the workload itself (its template invalid, a bad
    field: not created at all) or the entry is a Pod. A DaemonSet asks for a pod on each node
    its controller would run one on (`pool`'s; its template's pod as written decides)."""
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
