"""DefaultTolerationSeconds and the toleration merge RuntimeClass admission uses.

Both decide which tolerations a pod carries into TaintToleration, so their odd
corners (operator and value ignored when "covering"; the superset rule of the
merge) are kept as kube-apiserver has them.
"""
from __future__ import annotations

from kexplain.apimachinery.labels import TAINT_NODE_NOT_READY as NOT_READY, TAINT_NODE_UNREACHABLE as UNREACHABLE

DEFAULT_SECONDS = 300


def _covers(t: dict, key: str) -> bool:
    """A toleration 'covers' key when its key matches (or is empty) and its effect is NoExecute or empty."""
    return (t.get("key") or "") in ("", key) and (t.get("effect") or "") in ("", "NoExecute")


def add_default_tolerations(spec: dict) -> None:
    """Append the 300 s not-ready / unreachable NoExecute tolerations a pod does not already cover."""
    tolerations = spec.get("tolerations")
    if not isinstance(tolerations, list):
        tolerations = []
    added = []
    for key in (NOT_READY, UNREACHABLE):
        if not any(isinstance(t, dict) and _covers(t, key) for t in tolerations):
            added.append({"key": key, "operator": "Exists", "effect": "NoExecute",
                          "tolerationSeconds": DEFAULT_SECONDS})
    if added:
        spec["tolerations"] = tolerations + added


def _norm(t: dict) -> tuple:
    return (t.get("key") or "", t.get("operator") or "", t.get("value") or "", t.get("effect") or "",
            t.get("tolerationSeconds"))


def _is_superset(ss: dict, t: dict) -> bool:
    """Whether toleration `ss` tolerates everything `t` does (tolerations.isSuperset)."""
    if _norm(ss) == _norm(t):
        return True
    ss_key, t_key = ss.get("key") or "", t.get("key") or ""
    ss_op = ss.get("operator") or ""
    if t_key != ss_key and not (ss_key == "" and ss_op == "Exists"):
        return False
    ss_effect = ss.get("effect") or ""
    if (t.get("effect") or "") != ss_effect and ss_effect != "":
        return False
    if ss_effect == "NoExecute" and ss.get("tolerationSeconds") is not None:
        t_seconds = t.get("tolerationSeconds")
        if t_seconds is None or t_seconds > ss["tolerationSeconds"]:
            return False
    if ss_op in ("Equal", ""):
        return (t.get("operator") or "") == "Equal" and (t.get("value") or "") == (ss.get("value") or "")
    if ss_op == "Exists":
        return True
    return False


def merge_tolerations(first: list[dict], second: list[dict]) -> list[dict]:
    """tolerations.MergeTolerations: drop every toleration another one already covers."""
    every = list(first) + list(second)
    merged: list[dict] = []
    for i, t in enumerate(every):
        if any(_is_superset(kept, t) for kept in merged):
            continue
        if any(_norm(later) != _norm(t) and _is_superset(later, t) for later in every[i + 1:]):
            continue
        merged.append(t)
    return merged
