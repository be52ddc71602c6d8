"""The smallest change to a deleted pod's tolerations that keeps it on the node, each checked by
running the controller's pass again on the pod so changed: a toleration added for each taint no
toleration tolerates, and the `tolerationSeconds` dropped from each toleration whose seconds run
out (one DefaultTolerationSeconds added is replaced by the pod's own, which the plugin then leaves
alone). A pod that tolerates not-ready or unreachable forever stays bound to a dead node: that is
what DaemonSets want, rarely anything else; the renderer says so."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Mapping

from kexplain.eviction.tainteviction import PodAnswer, evaluate
from kexplain.eviction.tainteviction.taint_eviction import KEEP
from kexplain.features import KubeVersion

ADD, DROP_SECONDS = "add", "dropSeconds"


@dataclass(frozen=True)
class Fix:
    """The changes (ADD a toleration, DROP_SECONDS of one) and the decision the pass gave after them."""

    key: str
    changes: tuple[tuple[str, dict], ...]
    decision: str


def exact_toleration(taint: Mapping[str, Any]) -> dict:
    """The toleration of exactly this taint, with no seconds."""
    value = taint.get("value") or ""
    tol = {"key": taint.get("key") or "", "operator": "Equal" if value else "Exists"}
    if value:
        tol["value"] = value
    tol["effect"] = taint.get("effect") or ""
    return tol


def _changed(pod: Mapping[str, Any], answer: PodAnswer) -> tuple[list[dict], list[tuple[str, dict]]]:
    """The pod's own tolerations changed, and the changes."""
    given = [dict(t) for t in (pod.get("spec") or {}).get("tolerations") or () if isinstance(t, dict)]
    own = list(given)
    changes: list[tuple[str, dict]] = []
    for taint, toleration in answer.decision.matches:
        if toleration is not None and toleration.get("tolerationSeconds") is None:
            continue
        if toleration is not None and toleration not in answer.added:
            index = given.index(dict(toleration))
            if own[index] is given[index]:          # (a toleration matching two taints changes once)
                own[index] = {k: v for k, v in given[index].items() if k != "tolerationSeconds"}
                changes.append((DROP_SECONDS, dict(toleration)))
            continue
        added = exact_toleration(taint)
        if added not in own:
            own.append(added)
            changes.append((ADD, added))
    return own, changes


def keeping(node: Mapping[str, Any], pod: Mapping[str, Any], answer: PodAnswer, kube: KubeVersion,
            now: datetime) -> Fix | None:
    """The fix for a deleted pod, checked; None for a pod kept already."""
    if answer.decision.decision == KEEP:
        return None
    own, changes = _changed(pod, answer)
    changed = {**pod, "spec": {**(pod.get("spec") or {}), "tolerations": own}}
    again = evaluate(node, [changed], kube, now).pods[0]
    return Fix(answer.key, tuple(changes), again.decision.decision)
