"""RuntimeClass admission: pod overhead, node selector and tolerations from the pod's class.

NodeResourcesFit adds spec.overhead to the pod's requests, and NodeAffinity /
TaintToleration read the merged selector and tolerations, so a sandboxed pod
schedules differently from the same pod without its class.
"""
from __future__ import annotations

from kexplain.apimachinery import quantity
from kexplain.apimachinery.fielderrors import forbidden_message
from kexplain.admission.tolerations import merge_tolerations


class RuntimeClassRejected(Exception):
    """The API server's Forbidden text for this pod."""


def _same_resources(a: dict, b: dict) -> bool:
    """Semantic equality of two resource lists: same names, numerically equal quantities."""
    if set(a) != set(b):
        return False
    return all(quantity.parse(a[k]).value == quantity.parse(b[k]).value for k in a)


def admit_pod(pod: dict, classes: dict[str, dict]) -> None:
    """Mutating half: overhead, then scheduling (nodeSelector merge, tolerations merge)."""
    spec = pod["spec"]
    class_name = spec.get("runtimeClassName")
    if not class_name:
        return
    pod_name = (pod.get("metadata") or {}).get("name") or ""
    rc = classes.get(class_name)
    if rc is None:
        raise RuntimeClassRejected(forbidden_message(
            "pods", pod_name, f'pod rejected: RuntimeClass "{class_name}" not found'))
    overhead = rc.get("overhead")
    if isinstance(overhead, dict):
        pod_fixed = dict(overhead.get("podFixed") or {})
        current = spec.get("overhead") or {}
        if current and not _same_resources(pod_fixed, current):
            raise RuntimeClassRejected(forbidden_message(
                "pods", pod_name, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"))
        spec["overhead"] = pod_fixed
    scheduling = rc.get("scheduling")
    if isinstance(scheduling, dict):
        class_selector = scheduling.get("nodeSelector") or {}
        if class_selector:
            if spec.get("nodeSelector") is None:
                spec["nodeSelector"] = dict(class_selector)
            else:
                for key, value in class_selector.items():
                    pod_value = spec["nodeSelector"].get(key)
                    if pod_value is not None and pod_value != value:
                        raise RuntimeClassRejected(forbidden_message(
                            "pods", pod_name,
                            f"conflict: runtimeClass.scheduling.nodeSelector[{key}] = {value}; "
                            f"pod.spec.nodeSelector[{key}] = {pod_value}"))
                    spec["nodeSelector"][key] = value
        merged = merge_tolerations(spec.get("tolerations") or [], scheduling.get("tolerations") or [])
        if merged or spec.get("tolerations") is not None:
            spec["tolerations"] = merged


def validate_pod(pod: dict, classes: dict[str, dict]) -> None:
    """Validating half: a pod overhead needs a class that defines one."""
    spec = pod["spec"]
    if not spec.get("overhead"):
        return
    class_name = spec.get("runtimeClassName")
    rc = classes.get(class_name) if class_name else None
    if rc is None or not isinstance(rc.get("overhead"), dict):
        pod_name = (pod.get("metadata") or {}).get("name") or ""
        raise RuntimeClassRejected(forbidden_message(
            "pods", pod_name, "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"))
