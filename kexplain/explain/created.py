"""What the ResourceQuotas of the set's namespaces let be created (`kexplain.admission.resourcequota`):
a Pod the API server refuses is not created; a workload's controller creates its pods one by one
until the API server refuses one, and says so in a FailedCreate event on the workload (the
ReplicaSet of a Deployment), in its own words: `Error creating: pods "web-2" is forbidden:
exceeded quota: ...` (a StatefulSet's: `create Pod web-2 in StatefulSet web failed error: ...`).
Pods are charged in the order of the set (the order they are created in), each copy in turn; a
DaemonSet's pods too, one for each node its controller runs it on (`placement.daemon_nodes`, in
node name order: the pods the quota refuses are those of the last nodes); an idle workload's
template is not charged.
"""
from __future__ import annotations

from dataclasses import replace

from kexplain.admission.resourcequota import QuotaLedger
from kexplain.errors import AdmissionRejected
from kexplain.explain.inputs import Entry, Inputs
from kexplain.explain.placement import daemon_nodes

# the controller that creates a kind's pods, as its events name it
CONTROLLERS = {"Deployment": "replicaset-controller", "ReplicaSet": "replicaset-controller",
               "StatefulSet": "statefulset-controller", "ReplicationController": "replication-controller",
               "Job": "job-controller", "CronJob": "job-controller", "DaemonSet": "daemonset-controller"}


def failed_create(entry: Entry, refusal: str, copy: str) -> str:
    """The FailedCreate event's message for the refused create of copy `copy`."""
    if entry.kind == "StatefulSet":
        return f"create Pod {copy} in StatefulSet {entry.name} failed error: {refusal}"
    return f"Error creating: {refusal}"


def created(entry: Entry, inputs: Inputs, ledger: QuotaLedger | None) -> tuple[Entry, str]:
    """The entry as the quotas let its pods be created (its copies, when fewer are: a
    DaemonSet's, the pods of its first eligible nodes), and what is said of the pods that are not
    ("" when all are). Raises AdmissionRejected when none is."""
    if ledger is None or entry.idle:
        return entry, ""
    copies = len(daemon_nodes(inputs.pod, inputs.snapshot).eligible) if entry.daemon else entry.copies
    naming = entry.naming
    name_of = (lambda i: naming.name(i)) if naming is not None and entry.kind != "Pod" else None
    made, refusal = ledger.created_copies(inputs.pod.obj, copies, name_of)
    if not refusal:
        return entry, ""
    copy = name_of(made) if name_of is not None else inputs.pod.name
    if entry.kind == "Pod":
        raise AdmissionRejected(refusal, source=entry.source, obj=entry.workload)
    controller = CONTROLLERS.get(entry.kind, "its controller")
    said = (f"{entry.kind} {entry.namespace}/{entry.name}: {controller} creates {made} of {copies} pods: "
            f"FailedCreate: {failed_create(entry, refusal, copy)}")
    if made == 0:
        raise AdmissionRejected(said, source=entry.source, obj=entry.workload)
    return replace(entry, copies=made, failed_create=said), said
