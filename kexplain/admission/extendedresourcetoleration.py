"""ExtendedResourceToleration (plugin/pkg/admission/extendedresourcetoleration), off in kube-apiserver's
defaults and on in EKS's and GKE's: a pod requesting an extended resource (`nvidia.com/gpu`) gets the
toleration `{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}`, so that nodes tainted with the
resource's name take the pods that need it and no others. Without it, a GPU pod written without the
toleration reads "untolerated taint" on a cluster where the API server adds it.

Only the containers' and init containers' requests count (after defaulting: a limit without a request
is a request), not the pod-level resources or ephemeral containers; the names go sorted, each through
the tolerations helper (helper.AddOrUpdateTolerationInPod), which keeps the pod as it is when an equal
toleration is there and replaces one with the same key, effect, operator and value (other seconds).
"""
from __future__ import annotations

from typing import Any, Iterable

from kexplain.features.admission_plugins import EXTENDED_RESOURCE_TOLERATION as PLUGIN_NAME, AdmissionPlugins
from kexplain.model.resources import is_extended_resource

__all__ = ["PLUGIN_NAME", "admit", "noted", "requested", "toleration_text"]


def requested(spec: dict) -> list[str]:
    """The extended resources the pod's containers and init containers request, sorted (sets.List)."""
    names: set[str] = set()
    for key in ("containers", "initContainers"):
        containers = spec.get(key)
        for container in containers if isinstance(containers, list) else ():
            resources = container.get("resources") if isinstance(container, dict) else None
            requests = resources.get("requests") if isinstance(resources, dict) else None
            if isinstance(requests, dict):
                names.update(n for n in requests if isinstance(n, str) and is_extended_resource(n))
    return sorted(names)


def _fields(toleration: dict) -> tuple[str, str, str, str]:
    """What MatchToleration compares: key, effect, operator and value (absent: empty)."""
    return (toleration.get("key") or "", toleration.get("effect") or "", toleration.get("operator") or "",
            toleration.get("value") or "")


def _add_or_update(spec: dict, toleration: dict) -> bool:
    """helper.AddOrUpdateTolerationInPod: False, the pod unchanged, when a matching toleration is equal
    (tolerationSeconds too); else every matching one replaced by `toleration`, or it appended."""
    present = spec.get("tolerations")
    tolerations = present if isinstance(present, list) else []
    wanted = _fields(toleration)
    kept: list = []
    updated = False
    for t in tolerations:
        if isinstance(t, dict) and _fields(t) == wanted:
            if t.get("tolerationSeconds") is None:      # (Semantic.DeepEqual: the seconds are unset in ours)
                return False
            kept.append(dict(toleration))
            updated = True
            continue
        kept.append(t)
    if not updated:
        kept.append(dict(toleration))
    spec["tolerations"] = kept
    return True


def admit(spec: dict) -> list[dict]:
    """The plugin's Admit on a pod's spec, changed in place: the tolerations it added or updated."""
    done = []
    for name in requested(spec):
        toleration = {"key": name, "operator": "Exists", "effect": "NoSchedule"}
        if _add_or_update(spec, toleration):
            done.append(toleration)
    return done


def toleration_text(toleration: dict) -> str:
    """`nvidia.com/gpu:Exists:NoSchedule`, as the answer names a toleration the plugin added."""
    return f"{toleration.get('key')}:{toleration.get('operator')}:{toleration.get('effect')}"


def noted(plugins: AdmissionPlugins, pods: Iterable[tuple[str | None, Any]]) -> dict[str, Any] | None:
    """What the answer says of the admission plugins beyond kube-apiserver's defaults (the `admission`
    key of a trace or a pass): which, from where, and the tolerations this plugin gave each pod of `pods`
    ((its namespace/name or None, its admitted spec)); None when they changed none of them and every
    one is emulated (plain kube-apiserver's answer)."""
    if not plugins.said:
        return None
    added = []
    if plugins.enabled(PLUGIN_NAME):
        for ref, spec in pods:
            if isinstance(spec, dict):
                added += [{**({"pod": ref} if ref else {}), "plugin": PLUGIN_NAME,
                           "toleration": {"key": name, "operator": "Exists", "effect": "NoSchedule"}}
                          for name in requested(spec)]
    if not added and not plugins.not_emulated:
        return None
    return {**plugins.to_json(), "added": added,
            **({"notEmulated": list(plugins.not_emulated)} if plugins.not_emulated else {})}
