"""What a pod's owner does while the pod stays Terminating on a node whose kubelet is gone: the taint
eviction controller deletes a pod gracefully, and only the node's kubelet confirms the deletion;
on an unreachable node (Ready Unknown, the `node.kubernetes.io/unreachable` taint) nothing does,
and the pod stays, with its deletionTimestamp, until the pod GC controller or a user removes it.

- ReplicaSet, ReplicationController: `controller.FilterActivePods` leaves out pods with a
  deletionTimestamp: the replacement is created at once.
- StatefulSet: `StatefulSetControl.processReplica` waits for a terminating pod's deletion to
  complete and creates an ordinal only when no pod of that name exists: it waits.
- Job: `onlyReplaceFailedPods` (podReplacementPolicy `Failed`, which the API server defaults when a
  podFailurePolicy is set, or any podFailurePolicy): terminating pods count against the wanted
  active ones, so it waits for the pod to be Failed; `TerminatingOrFailed` replaces at once.

The way out is the pod GC controller's (`gcOrphaned`: the pods of a deleted Node; `gcTerminating`:
the terminating pods of a node not ready with the `node.kubernetes.io/out-of-service` taint,
marked Failed and deleted) or a force delete."""
from __future__ import annotations

from typing import Any, Mapping, Optional

from kexplain.apimachinery.labels import TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE
from kexplain.features import KubeVersion

OUT_OF_SERVICE = "node.kubernetes.io/out-of-service"
REPLACE_POLICY_GATE = "JobPodReplacementPolicy"
FAILED, TERMINATING_OR_FAILED = "Failed", "TerminatingOrFailed"


def _taints(node: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    spec = node.get("spec") if isinstance(node.get("spec"), dict) else {}
    return [t for t in spec.get("taints") or () if isinstance(t, dict)]


def _ready(node: Mapping[str, Any]) -> Optional[str]:
    status = node.get("status") if isinstance(node.get("status"), dict) else {}
    return next((str(c.get("status")) for c in status.get("conditions") or ()
                 if isinstance(c, dict) and c.get("type") == "Ready"), None)


def kubelet_gone(node: Mapping[str, Any]) -> bool:
    """No kubelet confirms a deletion on `node`: its Ready condition is Unknown (the node lifecycle
    controller heard nothing within its grace period) or it has the unreachable NoExecute taint
    (given or asked with --taint)."""
    return _ready(node) == "Unknown" or any(t.get("key") == TAINT_NODE_UNREACHABLE and t.get("effect") == "NoExecute"
                                            for t in _taints(node))


def not_ready(node: Mapping[str, Any]) -> bool:
    """nodeutil.IsNodeReady false (or the node lifecycle controller's not-ready / unreachable taint on it)."""
    return _ready(node) != "True" or any(t.get("key") in (TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE)
                                         for t in _taints(node))


def freed_by_pod_gc(node: Mapping[str, Any]) -> bool:
    """The pod GC controller's gcTerminating deletes the node's terminating pods: the node is not ready
    and has the out-of-service taint (TaintKeyExists: any value and effect)."""
    return not_ready(node) and any(t.get("key") == OUT_OF_SERVICE for t in _taints(node))


def replacement_policy(job: Optional[Mapping[str, Any]], kube: KubeVersion) -> str:
    """A Job's podReplacementPolicy as stored: its own, else the API server's default (Failed with a
    podFailurePolicy, else TerminatingOrFailed); "" when the gate is off (the field dropped)."""
    if not kube.enabled(REPLACE_POLICY_GATE):
        return ""
    spec = (job or {}).get("spec") if isinstance((job or {}).get("spec"), dict) else {}
    given = spec.get("podReplacementPolicy")
    if isinstance(given, str) and given:
        return given
    return FAILED if spec.get("podFailurePolicy") is not None else TERMINATING_OR_FAILED


def waits(kind: str, name: str, pod_name: str, owner: Optional[Mapping[str, Any]], kube: KubeVersion
          ) -> Optional[str]:
    """Why `kind` `name` does not replace its pod `pod_name` while that pod stays Terminating; None when
    it replaces it at once (a ReplicaSet's, a ReplicationController's, a Job's TerminatingOrFailed)."""
    if kind == "StatefulSet":
        return (f"StatefulSet {name} does not create {pod_name} again while the old pod exists (it waits for a "
                "terminating pod's deletion to complete)")
    if kind == "Job":
        spec = (owner or {}).get("spec") if isinstance((owner or {}).get("spec"), dict) else {}
        policy = replacement_policy(owner, kube)
        if policy == FAILED:
            why = "podReplacementPolicy Failed" + ("" if spec.get("podReplacementPolicy")
                                                   else ", the default with a podFailurePolicy")
        elif spec.get("podFailurePolicy") is not None:
            why = "it has a podFailurePolicy"
        else:
            return None
        return (f"Job {name} replaces only failed pods ({why}): it counts the old pod, which is not Failed "
                "while it stays Terminating")
    return None


def replaces_at_once(kind: str, name: str, owner: Optional[Mapping[str, Any]], kube: KubeVersion) -> str:
    """Why the owner does not wait for the terminating pod (the rule it follows), in words."""
    if kind == "Job":
        read = "" if owner is not None else ", the default: its Job was not read"
        return f"Job {name} replaces terminating pods at once (podReplacementPolicy TerminatingOrFailed{read})"
    return f"{kind} {name} does not count terminating pods (FilterActivePods) and creates the new pod at once"


def way_out(node: str, namespace: str, pod: str) -> list[str]:
    """What ends a pod's Terminating on a node whose kubelet is gone, each the pod GC controller's or a user's."""
    return [f"delete the Node {node} if it is gone for good (the pod GC controller then deletes its pods)",
            f"kubectl taint nodes {node} {OUT_OF_SERVICE}=nodeshutdown:NoExecute once it is shut down (the pod GC "
            "controller force-deletes the terminating pods of a not-ready node with it, and its volumes detach)",
            f"kubectl delete pod {pod} -n {namespace} --grace-period=0 --force, once sure it no longer runs"]
