"""Each reason of a FailedScheduling message next to what in the pod's own spec it concerns."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Optional

from kexplain.apimachinery.display import format_expression, format_label_selector, format_quantity, format_toleration
from kexplain.explain.fit_message import FRAMEWORK, Entry
from kexplain.model.pod import PodInfo
from kexplain.model.taints import tolerations_tolerate
from kexplain.plugins import names

Obj = dict[str, Any]


@dataclass(frozen=True)
class Concern:
    """What in the pod a reason is about, and a fix on the pod's side (or why there is none)."""

    pod_side: str
    fix: str = ""
    needs_nodes: bool = True       # whether the answer depends on the nodes, which were not read

    def to_json(self) -> Obj:
        return {"podSide": self.pod_side, "fix": self.fix or None, "needsNodes": self.needs_nodes}


@dataclass(frozen=True)
class Namespace:
    """The objects of the pod's namespace that were readable, by kind."""

    claims: Mapping[str, Obj]            # PersistentVolumeClaims by name
    resource_claims: Mapping[str, Obj]   # ResourceClaims by name

    @classmethod
    def of(cls, objects: Iterable[Obj], namespace: str) -> "Namespace":
        pvcs: dict[str, Obj] = {}
        rcs: dict[str, Obj] = {}
        for obj in objects:
            meta = obj.get("metadata") or {}
            if meta.get("namespace") != namespace:
                continue
            if obj.get("kind") == "PersistentVolumeClaim":
                pvcs[meta.get("name") or ""] = obj
            elif obj.get("kind") == "ResourceClaim":
                rcs[meta.get("name") or ""] = obj
        return cls(pvcs, rcs)


def concern(entry: Entry, pod: PodInfo, ns: Namespace) -> Concern:
    """The pod's side of one reason; a reason of no known plugin has none."""
    if entry.plugin is None:
        return Concern("not a reason this Kubernetes minor's scheduler writes: shown as it is", needs_nodes=False)
    fn = _BY_PLUGIN.get(entry.plugin)
    return fn(entry, pod, ns) if fn is not None else Concern("")


def _resources(entry: Entry, pod: PodInfo, ns: Namespace) -> Concern:
    name = dict(entry.parts).get("resource")
    if name is None:                          # Too many pods
        return Concern("each of these nodes runs as many pods as it allows")
    amount = pod.resource.resource.get(name)
    parts = ["containers"]
    if pod.spec.get("initContainers"):
        parts.append("init containers (the largest at each step, sidecars added)")
    if pod.spec.get("overhead"):
        overhead = ", ".join(f"{k} {v}" for k, v in (pod.spec.get("overhead") or {}).items())
        parts.append(f"overhead {overhead}")
    side = f"the pod requests {name} {format_quantity(name, amount)} (counted from {', '.join(parts)})"
    return Concern(side, f"request less {name} if the pod can do with less (how much is free on the nodes is not known)")


def _node_affinity(entry: Entry, pod: PodInfo, ns: Namespace) -> Concern:
    if "scheduler-enforced" in entry.text:
        return Concern("not the pod: the scheduler profile's own node affinity (addedAffinity)")
    said = []
    selector = pod.spec.get("nodeSelector") or {}
    if selector:
        said.append("nodeSelector " + ", ".join(f"{k}={v}" for k, v in selector.items()))
    required = ((pod.affinity.get("nodeAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
                or {}).get("nodeSelectorTerms") or []
    terms = [" and ".join(format_expression(e) for e in (t.get("matchExpressions") or []) + (t.get("matchFields") or []))
             for t in required]
    if terms:
        said.append("required node affinity " + " or ".join(f"({t})" for t in terms))
    side = "; ".join(said) or "the pod sets no node selector or required node affinity"
    return Concern(side, "check these labels against the nodes' labels (kubectl get nodes --show-labels)")


def _taints(entry: Entry, pod: PodInfo, ns: Namespace) -> Concern:
    parts = dict(entry.parts)
    tolerations = pod.tolerations
    listed = ", ".join(format_toleration(dict(t)) for t in tolerations) or "none"
    if "key" not in parts:                    # from 1.34 the reason names no taint
        return Concern(f"the pod's tolerations: {listed}; the message names no taint (from 1.34): "
                       "kubectl describe node shows them")
    key, value = parts["key"], parts["value"]
    taint = {"key": key, "value": value}
    tolerated = [effect for effect in ("NoSchedule", "NoExecute")
                 if tolerations_tolerate(tolerations, {**taint, "effect": effect})]
    side = (f"taint {key}={value}: the pod tolerates it only with effect {', '.join(tolerated)}" if tolerated
            else f"taint {key}={value}: none of the pod's tolerations ({listed}) matches it")
    toleration = f"{{key: {key}, operator: Equal, value: \"{value}\", effect: NoSchedule}}"
    return Concern(side, f"if the pod belongs on those nodes, add the toleration {toleration} (the taint's "
                         "effect, NoSchedule or NoExecute, is on the node)", needs_nodes=False)


def _ports(entry: Entry, pod: PodInfo, ns: Namespace) -> Concern:
    ports = ", ".join(f"{p.port}/{p.protocol}" + (f" on {p.ip}" if p.ip and p.ip != "0.0.0.0" else "")
                      for p in pod.host_ports) or "none"
    return Concern(f"the pod's host ports: {ports}", "drop hostPort where a Service would do", needs_nodes=False)


def _unschedulable(entry: Entry, pod: PodInfo, ns: Namespace) -> Concern:
    return Concern("not the pod: these nodes are cordoned (spec.unschedulable)")


def _terms(kind: str, pod: PodInfo) -> list[str]:
    block = (pod.affinity.get(kind) or {}).get("requiredDuringSchedulingIgnoredDuringExecution") or []
    return [f"{format_label_selector(t.get('labelSelector'))} per {t.get('topologyKey')}" for t in block]


def _inter_pod(entry: Entry, pod: PodInfo, ns: Namespace) -> Concern:
    if "existing pods" in entry.text:
        labels = ", ".join(f"{k}={v}" for k, v in pod.labels.items()) or "none"
        return Concern(f"other pods' required anti-affinity matches this pod's labels ({labels})")
    kind = "podAntiAffinity" if "anti-affinity" in entry.text else "podAffinity"
    terms = _terms(kind, pod)
    side = f"the pod's required {kind}: " + ("; ".join(terms) if terms else "none")
    return Concern(side, "make a term preferred instead of required if it need not hold (where the matching "
                         "pods run is not known)")


def _spread(entry: Entry, pod: PodInfo, ns: Namespace) -> Concern:
    hard = [c for c in pod.spec.get("topologySpreadConstraints") or [] if c.get("whenUnsatisfiable") != "ScheduleAnyway"]
    said = "; ".join(f"maxSkew {c.get('maxSkew')} per {c.get('topologyKey')} of "
                     f"{format_label_selector(c.get('labelSelector'))}" for c in hard) or "none (the cluster's defaults)"
    if "missing required label" in entry.text:
        keys = ", ".join(sorted({str(c.get("topologyKey")) for c in hard}))
        return Concern(f"these nodes lack the label(s) {keys or 'of the constraints'}: the pod's constraints: {said}")
    return Concern(f"the pod's DoNotSchedule spread constraints: {said}",
                   "raise maxSkew, or whenUnsatisfiable: ScheduleAnyway, if the spread may give")


def _volumes(entry: Entry, pod: PodInfo, ns: Namespace) -> Concern:
    claims = []
    for name in pod.pvc_names:
        pvc = ns.claims.get(name)
        if pvc is None:
            claims.append(f"{name} (not read)")
            continue
        spec, status = pvc.get("spec") or {}, pvc.get("status") or {}
        claims.append(f"{name} ({status.get('phase') or 'Pending'}, class {spec.get('storageClassName') or 'none'}, "
                      f"{', '.join(spec.get('accessModes') or []) or 'no access mode'})")
    side = "the pod's claims: " + (", ".join(claims) or "none")
    return Concern(side)


def _claims(entry: Entry, pod: PodInfo, ns: Namespace) -> Concern:
    names_ = []
    for ref in pod.spec.get("resourceClaims") or []:
        name = ref.get("resourceClaimName") or ref.get("name")
        claim = ns.resource_claims.get(name or "")
        state = "allocated" if claim is not None and (claim.get("status") or {}).get("allocation") else "not allocated"
        names_.append(f"{ref.get('name')} ({state})")
    return Concern("the pod's resource claims: " + (", ".join(names_) or "none"),
)


def _framework(entry: Entry, pod: PodInfo, ns: Namespace) -> Concern:
    plugins = dict(entry.parts).get("plugins", "")
    return Concern(f"a PreFilter of {plugins} left these nodes out before any filter ran (for NodeAffinity: "
                   "a required term naming nodes by metadata.name)")


def _preemption(entry: Entry, pod: PodInfo, ns: Namespace) -> Concern:
    priority = pod.spec.get("priorityClassName") or "none"
    return Concern(f"the pod's priority {pod.priority} (class {priority}): preemption evicts only lower-priority pods")


def _declared_features(entry: Entry, pod: PodInfo, ns: Namespace) -> Concern:
    return Concern("the pod needs node features these nodes do not declare")


_BY_PLUGIN: dict[str, Callable[[Entry, PodInfo, Namespace], Concern]] = {
    names.NODE_RESOURCES_FIT: _resources,
    names.NODE_AFFINITY: _node_affinity,
    names.TAINT_TOLERATION: _taints,
    names.NODE_PORTS: _ports,
    names.NODE_UNSCHEDULABLE: _unschedulable,
    names.INTER_POD_AFFINITY: _inter_pod,
    names.POD_TOPOLOGY_SPREAD: _spread,
    names.VOLUME_BINDING: _volumes,
    names.VOLUME_ZONE: _volumes,
    names.VOLUME_RESTRICTIONS: _volumes,
    names.NODE_VOLUME_LIMITS: _volumes,
    names.DYNAMIC_RESOURCES: _claims,
    names.DEFAULT_PREEMPTION: _preemption,
    names.NODE_DECLARED_FEATURES: _declared_features,
    FRAMEWORK: _framework,
}


def pre_filter_concern(text_plugin: Optional[str], pod: PodInfo, ns: Namespace) -> Concern:
    """The pod's side of a PreFilter message (every node rejected at once)."""
    if text_plugin == names.VOLUME_BINDING:
        pending = [n for n in pod.pvc_names if ((ns.claims.get(n) or {}).get("status") or {}).get("phase") != "Bound"]
        fix = f"kubectl describe pvc {' '.join(pending)} shows why the claim is not bound" if pending else ""
        return Concern(_volumes(Entry(0, ""), pod, ns).pod_side, fix, needs_nodes=False)
    if text_plugin == names.NODE_AFFINITY:
        return _node_affinity(Entry(0, ""), pod, ns)
    return Concern("shown as the scheduler wrote it")
