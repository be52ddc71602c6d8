"""The HorizontalPodAutoscaler controller's first pass over a workload applied with its HPA
(pkg/controller/podautoscaler/horizontal.go reconcileAutoscaler), before any metric is read.

The controller compares the target's spec.replicas with the HPA's bounds first, and only then
reads metrics: a target with 0 replicas is left alone (autoscaling is disabled while the target
is scaled to zero); above maxReplicas it is set to maxReplicas, below minReplicas (default 1) to
minReplicas, at once (event SuccessfulRescale, `New size: N; reason: ...`). Between the bounds
the metrics decide, which kexplain does not have: the replicas stay as written, and the note
says the HPA may change them. HPAs are read at autoscaling/v1 and v2 (the same fields here:
scaleTargetRef, minReplicas, maxReplicas); the target is the object of the HPA's namespace with
the reference's kind and name (a Deployment, StatefulSet, ReplicaSet or ReplicationController).
"""
from __future__ import annotations

from typing import Any

from kexplain.errors import AdmissionRejected, Source
from kexplain.features import DEFAULT as DEFAULT_VERSION, KubeVersion

KIND = "HorizontalPodAutoscaler"
SCALABLE_KINDS = frozenset({"Deployment", "StatefulSet", "ReplicaSet", "ReplicationController"})
ABOVE_MAX = "Current number of replicas above Spec.MaxReplicas"
BELOW_MIN = "Current number of replicas below Spec.MinReplicas"
SCALING_DISABLED = "scaling is disabled since the replica count of the target is zero"

Objects = list[tuple[dict[str, Any], Source]]


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _key(kind: str, namespace: Any, name: Any) -> tuple[str, str, str]:
    return kind, str(namespace or "default"), str(name or "")


def is_hpa(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("kind") == KIND and \
        str(obj.get("apiVersion") or "").split("/")[0] == "autoscaling"


def admitted(objs: Objects, kube: KubeVersion = DEFAULT_VERSION, stored: bool = False) -> tuple[Objects, list[AdmissionRejected]]:
    """`objs` without the HPAs `kube`'s API server refuses (`validate_policy.validate_hpa`: a
    refused HPA is never stored, and never scales its target), and the refusals, in its words.
    HPAs read from a cluster (`stored`, or a resourceVersion) are taken as they are."""
    from kexplain.admission.pipeline import is_stored
    from kexplain.admission.validate_policy import QUALIFIED, validate_hpa
    from kexplain.apimachinery.fielderrors import invalid_message
    kept: Objects = []
    refused: list[AdmissionRejected] = []
    for obj, src in objs:
        errs = validate_hpa(obj, kube) if is_hpa(obj) and not stored and not is_stored(obj) else []
        if errs:
            name = str(_dict(obj.get("metadata")).get("name") or "")
            refused.append(AdmissionRejected(invalid_message(QUALIFIED[KIND], name, errs), source=src, obj=obj))
            continue
        kept.append((obj, src))
    return kept, refused


def autoscalers(objs: Objects) -> dict[tuple[str, str, str], tuple[dict[str, Any], Source]]:
    """The HPAs of `objs` by the (kind, namespace, name) of their target (the first for a target
    two HPAs name: the controller would fight over it; kexplain reads one)."""
    out: dict[tuple[str, str, str], tuple[dict[str, Any], Source]] = {}
    for obj, src in objs:
        if not is_hpa(obj):
            continue
        ref = _dict(_dict(obj.get("spec")).get("scaleTargetRef"))
        if ref.get("kind") in SCALABLE_KINDS and ref.get("name"):
            out.setdefault(_key(str(ref["kind"]), _dict(obj.get("metadata")).get("namespace"), ref["name"]),
                           (obj, src))
    return out


def desired_replicas(hpa: dict[str, Any], replicas: int) -> tuple[int, str]:
    """What the controller's first reconcile sets the target's replicas to, and why ("" when it
    leaves them to the metrics, or disabled)."""
    spec = _dict(hpa.get("spec"))
    minimum = _int(spec.get("minReplicas"))
    minimum = 1 if minimum is None else minimum
    maximum = _int(spec.get("maxReplicas"))
    if replicas == 0 and minimum != 0:
        return 0, ""
    if maximum is not None and replicas > maximum:
        return maximum, ABOVE_MAX
    if replicas < minimum:
        return minimum, BELOW_MIN
    return replicas, ""


def _describe(obj: dict[str, Any]) -> str:
    meta = _dict(obj.get("metadata"))
    return f"{obj.get('kind')} {meta.get('namespace') or 'default'}/{meta.get('name') or ''}"


def rescaled(obj: dict[str, Any], hpa: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The workload as the HPA leaves it (a copy with spec.replicas set, or `obj` itself), and
    what to say of it."""
    spec = _dict(obj.get("spec"))
    written = _int(spec.get("replicas"))
    replicas = 1 if written is None else written
    new, reason = desired_replicas(hpa, replicas)
    who = f"{_describe(obj)}: {_describe(hpa)}"
    if reason:
        copy = {**obj, "spec": {**spec, "replicas": new}}
        return copy, (f"{who} sets spec.replicas from {replicas} to {new} at once (SuccessfulRescale: New size: "
                      f"{new}; reason: {reason}); its pods are explained at {new} replicas")
    if replicas == 0:
        return obj, f"{who}: {SCALING_DISABLED} (the pods are explained at 0 replicas)"
    return obj, (f"{who} leaves spec.replicas at {replicas} until its metrics say otherwise (kexplain reads no "
                 f"metrics: the HPA may set any count from {_int(_dict(hpa.get('spec')).get('minReplicas')) or 1} "
                 f"to {_dict(hpa.get('spec')).get('maxReplicas')})")


def scaling(obj: dict[str, Any], hpa: dict[str, Any]) -> dict[str, Any]:
    """What the HPA does at once to the replicas of `obj` (as written), as `-o json` and lint's
    details say it: the HPA (`namespace`, `name`), `from` (spec.replicas, 1 when unset), `to`,
    `reason` (its SuccessfulRescale event's; "" when it leaves them to its metrics, or scaling
    is disabled) and `message` (what `rescaled` says)."""
    meta = _dict(hpa.get("metadata"))
    written = _int(_dict(obj.get("spec")).get("replicas"))
    replicas = 1 if written is None else written
    new, reason = desired_replicas(hpa, replicas)
    return {"namespace": str(meta.get("namespace") or "default"), "name": str(meta.get("name") or ""),
            "from": replicas, "to": new, "reason": reason, "message": rescaled(obj, hpa)[1]}


def scalings(objs: Objects) -> dict[tuple[str, str, str], dict[str, Any]]:
    """`scaling` of each workload of `objs` an HPA of `objs` targets, by (kind, namespace, name)."""
    hpas = autoscalers(objs)
    out: dict[tuple[str, str, str], dict[str, Any]] = {}
    for obj, _ in objs if hpas else ():
        if isinstance(obj, dict) and obj.get("kind") in SCALABLE_KINDS:
            meta = _dict(obj.get("metadata"))
            key = _key(str(obj.get("kind")), meta.get("namespace"), meta.get("name"))
            if key in hpas:
                out[key] = scaling(obj, hpas[key][0])
    return out


def autoscaled(objs: Objects) -> tuple[Objects, list[str]]:
    """`objs` with each workload an HPA of `objs` targets replaced by the workload as the HPA
    leaves it (`rescaled`), and a note per such workload."""
    hpas = autoscalers(objs)
    if not hpas:
        return objs, []
    out: Objects = []
    notes: list[str] = []
    for obj, src in objs:
        meta = _dict(obj.get("metadata")) if isinstance(obj, dict) else {}
        found = hpas.get(_key(str(obj.get("kind")), meta.get("namespace"), meta.get("name"))) \
            if isinstance(obj, dict) and obj.get("kind") in SCALABLE_KINDS else None
        if found is not None:
            obj, note = rescaled(obj, found[0])
            notes.append(f"{src}: {note}")
        out.append((obj, src))
    return out, notes
