"""matchLabelKeys / mismatchLabelKeys merge (pod strategy PrepareForCreate).

The API server turns `matchLabelKeys: [k]` into a `k In [pod's value]`
requirement inside the term's labelSelector. Existing pods' anti-affinity
terms are only read through labelSelector, so without this merge a v1 pod
would repel v2 pods. Not idempotent: never apply it to stored objects.
"""
from __future__ import annotations


def _append(selector: dict, keys: list, labels: dict, operator: str) -> None:
    for key in keys or []:
        if key in labels:
            exprs = selector.get("matchExpressions")
            if not isinstance(exprs, list):
                exprs = []
                selector["matchExpressions"] = exprs
            exprs.append({"key": key, "operator": operator, "values": [labels[key]]})


def _affinity_terms(affinity: dict) -> list[dict]:
    terms: list[dict] = []
    for kind in ("podAffinity", "podAntiAffinity"):
        section = affinity.get(kind)
        if not isinstance(section, dict):
            continue
        for weighted in section.get("preferredDuringSchedulingIgnoredDuringExecution") or []:
            if isinstance(weighted, dict) and isinstance(weighted.get("podAffinityTerm"), dict):
                terms.append(weighted["podAffinityTerm"])
        terms.extend(t for t in section.get("requiredDuringSchedulingIgnoredDuringExecution") or []
                     if isinstance(t, dict))
    return terms


def merge_label_keys(pod: dict) -> None:
    """Append In / NotIn requirements built from the pod's own labels (as written)."""
    labels = (pod.get("metadata") or {}).get("labels") or {}
    spec = pod["spec"]
    affinity = spec.get("affinity")
    if isinstance(affinity, dict):
        for term in _affinity_terms(affinity):
            selector = term.get("labelSelector")
            if not isinstance(selector, dict):
                continue
            if term.get("matchLabelKeys") or term.get("mismatchLabelKeys"):
                _append(selector, term.get("matchLabelKeys"), labels, "In")
                _append(selector, term.get("mismatchLabelKeys"), labels, "NotIn")
    for constraint in spec.get("topologySpreadConstraints") or []:
        if not isinstance(constraint, dict):
            continue
        selector = constraint.get("labelSelector")
        if isinstance(selector, dict) and constraint.get("matchLabelKeys"):
            _append(selector, constraint["matchLabelKeys"], labels, "In")
