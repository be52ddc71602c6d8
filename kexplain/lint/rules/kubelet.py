"""The kubelet's rules: a pod that names its node (`spec.nodeName`) bypasses the scheduler, and the
node's kubelet admits it (`not-scheduled`) or rejects it (`kubelet-rejected`), as `kexplain POD`
says (`kexplain.controllers.kubelet`)."""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable

from kexplain.errors import KexplainError, Source
from kexplain.explain.inputs import inputs_for
from kexplain.explain.request import RunOptions
from kexplain.explain.run import explain
from kexplain.lint.documents import Location
from kexplain.lint.findings import Finding, ObjectRef
from kexplain.lint.rule import POOL, Severity, declare

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.lint.set_state import SetCluster

_KUBELET = "the kubelet: pod admission (lifecycle.PredicateAdmitHandler, canAdmitPod) and its eviction of lower pods"
RULES = (
    declare("not-scheduled", Severity.INFO, POOL,
            "spec.nodeName is set: the scheduler is bypassed, and the node's kubelet admits the pod.",
            _KUBELET),
    declare("kubelet-rejected", Severity.ERROR, POOL,
            "spec.nodeName is set: the scheduler is bypassed, and the node's kubelet rejects the pod (OutOfcpu, "
            "NodeAffinity, ...): it fails.",
            _KUBELET),
)


def kubelet_rejected(ref: ObjectRef, loc: Location, field_name: str, node: str, reason: str, message: str,
                     prefix: str = "", details: dict[str, Any] | None = None) -> Finding:
    """Rule kubelet-rejected: the pod names its node (`field_name`), whose kubelet rejects it
    (`kexplain.controllers.kubelet`) with `reason` and `message`, its event's."""
    return Finding("kubelet-rejected", loc, ref,
                   f"{prefix}{field_name} is {node}: the scheduler does not place this pod, and its kubelet rejects "
                   f"it: the pod fails with reason {reason}: {message}",
                   details={**(details or {}), "node": node, "reason": reason, "message": message})


def bound_pod(obj: dict[str, Any], ref: ObjectRef, loc: Location, node: str, set_cluster: "SetCluster",
              options: RunOptions, verdict: Callable[..., Finding]) -> list[Finding]:
    """A Pod bound by spec.nodeName: its kubelet admits it (`not-scheduled`) or rejects it
    (`kubelet-rejected`), on the pool as the set leaves it without the pod itself; a verdict
    (`rules.scheduling.verdict`) when it fails."""
    pool = set_cluster.pool
    said = f"spec.nodeName is {node}: the scheduler does not place this pod"
    try:
        inputs = inputs_for(obj, Source(loc.path, loc.doc), pool, stored=False, itself=True,
                            later=set_cluster.later.get(id(obj), frozenset()))
    except KexplainError as err:
        return [Finding("admission", loc, ref, err.message, field=err.field)]
    rejected = pool.kubelet_rejected.get((inputs.pod.namespace, inputs.pod.name))
    if rejected is not None:        # rejected as the set was created, in its order (`ClusterState.extended`)
        return [kubelet_rejected(ref, loc, "spec.nodeName", node, *rejected)]
    inputs = replace(inputs, snapshot=inputs.snapshot.without_pod(node, inputs.pod.namespace, inputs.pod.name))
    trace = explain(inputs, options)        # (its kubelet's verdict: no cycle runs)
    kubelet = trace.extra.get("kubelet") or {}
    if kubelet.get("admitted"):         # (a critical pod of the set evicted pods as it was created: gone since)
        evicted = pool.kubelet_evicted.get((inputs.pod.namespace, inputs.pod.name)) or kubelet.get("evicted") or []
        also = f", once it evicts {', '.join(evicted)} (a critical pod)" if evicted else ""
        return [Finding("not-scheduled", loc, ref, f"{said}; its kubelet admits it{also}",
                        details={"node": node, **({"evicted": evicted} if evicted else {})})]
    return [verdict(ref, loc, False, 1, [], inputs, trace)]
