"""The HorizontalPodAutoscaler controller's first pass over a workload applied with its HPA
(pkg/controller/podautoscaler/horizontal.go reconcileAutoscaler), before any metric is read: the bounds
act at once, metrics kexplain does not have; several HPAs on one target settle or flip (`reconciled`).
Details: docs/internals/controllers.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kexplain.errors import AdmissionRejected, Source
from kexplain.features import DEFAULT as DEFAULT_VERSION, KubeVersion
from kexplain.admission.pipeline import is_stored
from kexplain.admission.validate_policy import QUALIFIED, validate_hpa
from kexplain.apimachinery.fielderrors import invalid_message
from kexplain.apimachinery.identity import as_dict, as_int

KIND = "HorizontalPodAutoscaler"
SCALABLE_KINDS = frozenset({"Deployment", "StatefulSet", "ReplicaSet", "ReplicationController"})
ABOVE_MAX = "Current number of replicas above Spec.MaxReplicas"
BELOW_MIN = "Current number of replicas below Spec.MinReplicas"
SCALING_DISABLED = "scaling is disabled since the replica count of the target is zero"

Objects = list[tuple[dict[str, Any], Source]]


def _key(kind: str, namespace: Any, name: Any) -> tuple[str, str, str]:
    return kind, str(namespace or "default"), str(name or "")


def is_hpa(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("kind") == KIND and \
        str(obj.get("apiVersion") or "").split("/")[0] == "autoscaling"


def admitted(objs: Objects, kube: KubeVersion = DEFAULT_VERSION, stored: bool = False) -> tuple[Objects, list[AdmissionRejected]]:
    """`objs` without the HPAs the API server refuses (never stored, they never scale), and the refusals;
    HPAs read from a cluster are taken as they are."""
    kept: Objects = []
    refused: list[AdmissionRejected] = []
    for obj, src in objs:
        errs = validate_hpa(obj, kube) if is_hpa(obj) and not stored and not is_stored(obj) else []
        if errs:
            name = str(as_dict(obj.get("metadata")).get("name") or "")
            refused.append(AdmissionRejected(invalid_message(QUALIFIED[KIND], name, errs), source=src, obj=obj))
            continue
        kept.append((obj, src))
    return kept, refused


SERVED_VERSIONS = frozenset({"autoscaling/v1", "autoscaling/v2"})    # (v2beta1, v2beta2: gone since 1.25, 1.26)


def of_cluster(cluster: Objects) -> Objects:
    """The cluster's HPAs (`--nodes`), at the versions the API server serves: they act on the set's workloads too."""
    return [(o, s) for o, s in cluster if is_hpa(o) and o.get("apiVersion") in SERVED_VERSIONS]


def applied(cluster_hpas: Objects, objs: Objects) -> Objects:
    """The HPAs once the set `objs` is applied over `cluster_hpas`: one the set gives again replaces the
    cluster's, as `kubectl apply` updates it."""
    if not cluster_hpas:
        return objs
    given = {_key(KIND, as_dict(o.get("metadata")).get("namespace"), as_dict(o.get("metadata")).get("name"))
             for o, _ in objs if is_hpa(o)}
    return [(o, s) for o, s in cluster_hpas
            if _key(KIND, as_dict(o.get("metadata")).get("namespace"), as_dict(o.get("metadata")).get("name"))
            not in given] + list(objs)


def autoscalers(objs: Objects) -> dict[tuple[str, str, str], list[dict[str, Any]]]:
    """The HPAs of `objs` by the (kind, namespace, name) of their target, in the set's order
    (the controller's queue takes them as they are created)."""
    out: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for obj, _ in objs:
        if not is_hpa(obj):
            continue
        ref = as_dict(as_dict(obj.get("spec")).get("scaleTargetRef"))
        if ref.get("kind") in SCALABLE_KINDS and ref.get("name"):
            out.setdefault(_key(str(ref["kind"]), as_dict(obj.get("metadata")).get("namespace"), ref["name"]), []).append(obj)
    return out


def desired_replicas(hpa: dict[str, Any], replicas: int) -> tuple[int, str]:
    """What one reconcile of `hpa` sets the target's replicas to, before it reads a metric, and
    why ("" when it leaves them to the metrics, or disabled)."""
    spec = as_dict(hpa.get("spec"))
    minimum = as_int(spec.get("minReplicas"))
    minimum = 1 if minimum is None else minimum
    maximum = as_int(spec.get("maxReplicas"))
    if replicas == 0 and minimum != 0:
        return 0, ""
    if maximum is not None and replicas > maximum:
        return maximum, ABOVE_MAX
    if replicas < minimum:
        return minimum, BELOW_MIN
    return replicas, ""


@dataclass(frozen=True)
class Step:
    """One reconcile that rescaled the target: the HPA, the count it set and its reason."""

    hpa: dict[str, Any]
    before: int
    after: int
    reason: str


@dataclass(frozen=True)
class Reconciled:
    """Where the HPAs of one target leave its replicas: as written, where they settle (`to`), the rescales
    in order, and the counts conflicting bounds flip between (`flipping`)."""

    hpas: tuple[dict[str, Any], ...]
    replicas: int
    to: int
    steps: tuple[Step, ...] = ()
    flipping: tuple[int, ...] = ()


def reconciled(obj: dict[str, Any], hpas: list[dict[str, Any]]) -> Reconciled:
    """The reconciles of `hpas` on `obj`, resync after resync, until none rescales it (AmbiguousSelector
    stops metrics once several are within bounds); conflicting bounds flip and the largest is kept."""
    written = as_int(as_dict(obj.get("spec")).get("replicas"))
    replicas = current = 1 if written is None else written
    steps: list[Step] = []
    visited = [current]                 # the count after each rescale
    passes = {current: 0}               # the count at the end of a pass -> where in `visited`
    while True:
        moved = False
        for hpa in hpas:
            new, reason = desired_replicas(hpa, current)
            if reason and new != current:
                steps.append(Step(hpa, current, new, reason))
                current, moved = new, True
                visited.append(current)
        if not moved:
            return Reconciled(tuple(hpas), replicas, current, tuple(steps))
        if current in passes:           # a pass came back to a count: the bounds conflict
            cycle = tuple(sorted(set(visited[passes[current]:])))
            return Reconciled(tuple(hpas), replicas, max(cycle), tuple(steps), cycle)
        passes[current] = len(visited) - 1


def selector_text(raw: Any) -> str:
    """A label selector as labels.Selector.String() prints it (the scale subresource's
    status.selector): requirements by key, `k=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`."""
    if not isinstance(raw, dict):
        return ""
    if "matchLabels" not in raw and "matchExpressions" not in raw:      # a ReplicationController's map
        raw = {"matchLabels": raw}
    parts: list[tuple[str, str]] = [(str(k), f"{k}={v}") for k, v in as_dict(raw.get("matchLabels")).items()]
    for e in raw.get("matchExpressions") or ():
        e = as_dict(e)
        key, op = str(e.get("key") or ""), e.get("operator")
        values = ",".join(sorted(str(v) for v in e.get("values") or ()))
        text = {"In": f"{key} in ({values})", "NotIn": f"{key} notin ({values})", "Exists": key,
                "DoesNotExist": f"!{key}"}.get(str(op), key)
        parts.append((key, text))
    return ",".join(text for _, text in sorted(parts, key=lambda p: p[0]))


def _describe(obj: dict[str, Any]) -> str:
    meta = as_dict(obj.get("metadata"))
    return f"{obj.get('kind')} {meta.get('namespace') or 'default'}/{meta.get('name') or ''}"


def _ref(hpa: dict[str, Any]) -> str:
    meta = as_dict(hpa.get("metadata"))
    return f"{meta.get('namespace') or 'default'}/{meta.get('name') or ''}"


def _said(obj: dict[str, Any], done: Reconciled) -> str:
    """What the HPAs do to `obj`, in a sentence."""
    who = _describe(obj)
    if len(done.hpas) == 1:
        hpa = done.hpas[0]
        head = f"{who}: {_describe(hpa)}"
        if done.steps:
            step = done.steps[-1]
            return (f"{head} sets spec.replicas from {done.replicas} to {done.to} at once (SuccessfulRescale: New "
                    f"size: {done.to}; reason: {step.reason}); its pods are explained at {done.to} replicas")
        if done.replicas == 0:
            return f"{head}: {SCALING_DISABLED} (the pods are explained at 0 replicas)"
        spec = as_dict(hpa.get("spec"))
        return (f"{head} leaves spec.replicas at {done.replicas} until its metrics say otherwise (kexplain reads no "
                f"metrics: the HPA may set any count from {as_int(spec.get('minReplicas')) or 1} to "
                f"{spec.get('maxReplicas')})")
    names = [_ref(h) for h in done.hpas]
    head = f"{who}: HorizontalPodAutoscalers {', '.join(names[:-1])} and {names[-1]} all target it"
    if len(names) == 2:
        head = head.replace(" all target it", " both target it")
    moves = "; ".join(f"{_ref(s.hpa)} sets spec.replicas from {s.before} to {s.after} (SuccessfulRescale: New size: "
                      f"{s.after}; reason: {s.reason})" for s in done.steps[:len(done.hpas)])
    if done.flipping:
        counts = ", ".join(map(str, done.flipping[:-1])) + f" and {done.flipping[-1]}"
        return (f"{head}, with bounds that conflict: {moves}; then each undoes the other: the count flips between "
                f"{counts} at each resync (its pods are explained at {done.to} replicas, the most)")
    ambiguous = (f"pods by selector {selector_text(as_dict(obj.get('spec')).get('selector'))} are controlled by "
                 f"multiple HPAs: [{' '.join(sorted(names))}]")
    if done.replicas == 0 and not done.steps:
        return f"{head}: {SCALING_DISABLED} (the pods are explained at 0 replicas)"
    settled = (f"{moves}; then every one is within its bounds, and none scales on its metrics (AmbiguousSelector: "
               f"{ambiguous})") if done.steps else (f"spec.replicas stays at {done.replicas}, within every one's "
                                                     f"bounds, and none scales on its metrics (AmbiguousSelector: "
                                                     f"{ambiguous})")
    return f"{head}: {settled}; its pods are explained at {done.to} replicas"


def rescaled(obj: dict[str, Any], hpas: list[dict[str, Any]]) -> tuple[dict[str, Any], str]:
    """The workload as its HPAs leave it (a copy with spec.replicas set, or `obj` itself), and
    what to say of it."""
    done = reconciled(obj, hpas)
    spec = as_dict(obj.get("spec"))
    if done.to != done.replicas:
        return {**obj, "spec": {**spec, "replicas": done.to}}, _said(obj, done)
    return obj, _said(obj, done)


def scaling(obj: dict[str, Any], hpas: list[dict[str, Any]]) -> dict[str, Any]:
    """What the HPAs do at once to `obj`'s replicas, as `-o json` and lint say it (who, from, to, reason,
    message, and `targetedBy` with several HPAs)."""
    done = reconciled(obj, hpas)
    last = done.steps[-1] if done.steps else None
    meta = as_dict((last.hpa if last is not None else hpas[0]).get("metadata"))
    out = {"namespace": str(meta.get("namespace") or "default"), "name": str(meta.get("name") or ""),
           "from": done.replicas, "to": done.to, "reason": last.reason if last is not None else "",
           "message": _said(obj, done)}
    if len(hpas) > 1:
        out["targetedBy"] = [_ref(h) for h in hpas]
    return out


def scalings(objs: Objects, cluster: Objects = ()) -> dict[tuple[str, str, str], dict[str, Any]]:
    """`scaling` of each workload of `objs` an HPA of `objs` or of the `cluster` (`of_cluster`)
    targets, by (kind, namespace, name)."""
    hpas = autoscalers(applied(cluster, objs))
    out: dict[tuple[str, str, str], dict[str, Any]] = {}
    for obj, _ in objs if hpas else ():
        if isinstance(obj, dict) and obj.get("kind") in SCALABLE_KINDS:
            meta = as_dict(obj.get("metadata"))
            key = _key(str(obj.get("kind")), meta.get("namespace"), meta.get("name"))
            if key in hpas:
                out[key] = scaling(obj, hpas[key])
    return out


def autoscaled(objs: Objects, cluster: Objects = ()) -> tuple[Objects, list[str]]:
    """`objs` with each workload an HPA of `objs` or of the `cluster` (`of_cluster`) targets
    replaced by the workload as its HPAs leave it (`rescaled`), and a note per such workload."""
    hpas = autoscalers(applied(cluster, objs))
    if not hpas:
        return objs, []
    out: Objects = []
    notes: list[str] = []
    for obj, src in objs:
        meta = as_dict(obj.get("metadata")) if isinstance(obj, dict) else {}
        found = hpas.get(_key(str(obj.get("kind")), meta.get("namespace"), meta.get("name"))) \
            if isinstance(obj, dict) and obj.get("kind") in SCALABLE_KINDS else None
        if found:
            obj, note = rescaled(obj, found)
            notes.append(f"{src}: {note}")
        out.append((obj, src))
    return out, notes
