"""The toleration merge RuntimeClass admission uses (tolerations.MergeTolerations).

It decides which tolerations a pod carries into TaintToleration, so its odd corner (the
superset rule of the merge) is kept as kube-apiserver has it. DefaultTolerationSeconds, the
other plugin that adds tolerations, is `defaulttolerationseconds`.
"""
from __future__ import annotations


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
