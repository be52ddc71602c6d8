"""The pieces of a pod that OpportunisticBatching signs (kube-scheduler/framework/signers.go), canonical."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from kexplain.model.images import normalized_image_name

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.model.pod import PodInfo

DYNAMIC_RESOURCES = "v1.Pod.Spec.DynamicResources"
IMAGE_NAMES = "v1.Pod.Spec.CanonicalImageNames()"
LABELS = "v1.Pod.Labels"
NODE_NAME = "v1.Pod.Spec.NodeName"
NODE_AFFINITY = "v1.Pod.Spec.Affinity.NodeAffinity"
NODE_SELECTOR = "v1.Pod.Spec.Affinity.NodeSelector"
HOST_PORTS = "v1.Pod.Spec.HostPorts()"
RESOURCES = "v1.Pod.Spec.ContainerRequestsAndOverheads()"
REQUIRED_FEATURES = "v1.Pod.Spec.RequiredFeatures()"
SCHEDULER_NAME = "v1.Pod.Spec.SchedulerName"
TOLERATIONS = "v1.Pod.Spec.Tolerations"
VOLUMES = "v1.Pod.Spec.Volumes.NonSyntheticSources()"

Fragments = list[tuple[str, Any]]


def canonical(value: Any) -> str:
    """One string per value, whatever the order of its mappings' keys."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _present(obj: Mapping[str, Any]) -> dict[str, Any]:
    """The fields Go's JSON encoding keeps (omitempty drops empty strings, lists and maps)."""
    return {k: v for k, v in obj.items() if v is not None and v != "" and v != [] and v != {}}


def _containers(pod: "PodInfo") -> Iterable[Mapping[str, Any]]:
    for key in ("containers", "initContainers"):
        for c in pod.spec.get(key) or ():
            if isinstance(c, dict):
                yield c


def host_ports(pod: "PodInfo") -> list[int]:
    """The distinct non-zero host ports of every container, sorted."""
    return sorted({p.get("hostPort") for c in _containers(pod) for p in c.get("ports") or ()
                   if isinstance(p, dict) and p.get("hostPort")})


def tolerations(pod: "PodInfo") -> list[dict[str, Any]]:
    """The tolerations sorted by key, then value."""
    found = [_present(t) for t in pod.spec.get("tolerations") or () if isinstance(t, dict)]
    return sorted(found, key=lambda t: (str(t.get("key", "")), str(t.get("value", "")), canonical(t)))


def volumes(pod: "PodInfo") -> list[str]:
    """Each volume's source (its name aside), except ConfigMaps and Secrets, sorted."""
    out = []
    for v in pod.spec.get("volumes") or ():
        if not isinstance(v, dict) or v.get("configMap") is not None or v.get("secret") is not None:
            continue
        out.append(canonical({k: val for k, val in v.items() if k != "name"}))
    return sorted(out)


def _requirements(reqs: Any) -> list[str]:
    out = []
    for r in reqs or ():
        if isinstance(r, dict):
            r = _present(r)
            if isinstance(r.get("values"), list):
                r["values"] = sorted(r["values"], key=str)
            out.append(canonical(r))
    return sorted(out)


def _term(term: Any) -> dict[str, list[str]]:
    term = term if isinstance(term, dict) else {}
    return {"MatchExpressions": _requirements(term.get("matchExpressions")),
            "MatchFields": _requirements(term.get("matchFields"))}


def node_affinity(pod: "PodInfo") -> dict[str, list[str]] | None:
    """The node affinity with requirement values, requirements and terms sorted; None without one."""
    affinity = pod.spec.get("affinity")
    node = affinity.get("nodeAffinity") if isinstance(affinity, dict) else None
    if node is None:
        return None
    node = node if isinstance(node, dict) else {}
    preferred = sorted(canonical({"Weight": p.get("weight", 0), "Preference": _term(p.get("preference"))})
                       for p in node.get("preferredDuringSchedulingIgnoredDuringExecution") or ()
                       if isinstance(p, dict))
    required = node.get("requiredDuringSchedulingIgnoredDuringExecution")
    terms = sorted(canonical(_term(t)) for t in (required or {}).get("nodeSelectorTerms") or ()) \
        if isinstance(required, dict) else []
    return {"Required": terms, "Preferred": preferred}


def image_names(pod: "PodInfo") -> list[str]:
    return sorted({normalized_image_name(str(c.get("image") or "")) for c in _containers(pod)})


def signature(scheduler_name: str, fragments: Iterable[tuple[str, Any]]) -> str:
    """The pod's signature from every signing plugin's fragments (a later key replaces an earlier one)."""
    merged: dict[str, Any] = {SCHEDULER_NAME: scheduler_name}
    for key, value in fragments:
        merged[key] = value
    return canonical(merged)
