"""matchLabelKeys / mismatchLabelKeys merge (pod strategy PrepareForCreate).

The API server turns `matchLabelKeys: [k]` into `k In [pod's value]` in the term's labelSelector;
without it a v1 pod would repel v2 pods. Not idempotent: never apply it to stored objects. Which
terms merge depends on the version's gates (`merged_kinds`): docs/internals/admission.md.
"""
from __future__ import annotations

from dataclasses import dataclass

from kexplain.features import KubeVersion

AFFINITY_GATE = "MatchLabelKeysInPodAffinity"
SPREAD_GATES = ("MatchLabelKeysInPodTopologySpread", "MatchLabelKeysInPodTopologySpreadSelectorMerge")


@dataclass(frozen=True)
class Merged:
    """Which terms the API server merges matchLabelKeys into."""

    affinity: bool
    spread: bool


def merged_kinds(kube: KubeVersion) -> Merged:
    """mutatePodAffinity's and mutateTopologySpreadConstraints' gates, in `kube`."""
    return Merged(kube.enabled(AFFINITY_GATE), all(kube.enabled(g) for g in SPREAD_GATES))


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


def merge_label_keys(pod: dict, merged: Merged = Merged(True, True)) -> None:
    """Append In / NotIn requirements built from the pod's own labels (as written), to the
    kinds of term `merged` says."""
    labels = (pod.get("metadata") or {}).get("labels") or {}
    spec = pod["spec"]
    affinity = spec.get("affinity")
    if merged.affinity and isinstance(affinity, dict):
        for term in _affinity_terms(affinity):
            selector = term.get("labelSelector")
            if not isinstance(selector, dict):
                continue
            if term.get("matchLabelKeys") or term.get("mismatchLabelKeys"):
                _append(selector, term.get("matchLabelKeys"), labels, "In")
                _append(selector, term.get("mismatchLabelKeys"), labels, "NotIn")
    for constraint in (spec.get("topologySpreadConstraints") or []) if merged.spread else ():
        if not isinstance(constraint, dict):
            continue
        selector = constraint.get("labelSelector")
        if isinstance(selector, dict) and constraint.get("matchLabelKeys"):
            _append(selector, constraint["matchLabelKeys"], labels, "In")
