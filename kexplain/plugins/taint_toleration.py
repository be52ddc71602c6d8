"""TaintToleration: a node's NoSchedule/NoExecute taints keep off every pod that does not
tolerate them, and its PreferNoSchedule taints make it less attractive in proportion
to how many of them the pod does not tolerate."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.apimachinery.display import format_toleration
from kexplain.errors import FrameworkError
from kexplain.framework.interface import (MAX_NODE_SCORE, Explainer, FilterPlugin, PreScorePlugin, ScoreExtensions,
                                          ScorePlugin, SignPlugin)
from kexplain.framework import signers
from kexplain.framework.status import SUCCESS, Status, unresolvable
from kexplain.model.taints import (NO_EXECUTE, NO_SCHEDULE, PREFER_NO_SCHEDULE, find_untolerated, taint_to_string,
                            tolerates, tolerations_tolerate)
from kexplain.plugins import names
from kexplain.plugins.helper.normalize_score import default_normalize_score

NAME = names.TAINT_TOLERATION
PRE_SCORE_STATE_KEY = "PreScore" + NAME

# From 1.34 the reason names no taint (the taint went to a V(4) log line); before,
# it named the first untolerated NoSchedule/NoExecute taint, its value printed raw (an empty
# value leaves a trailing space), so every distinct taint is its own entry of the message.
ERR_REASON_UNTOLERATED = "node(s) had untolerated taint(s)"
TAINT_REASON_GENERIC_SINCE = "1.34"
_UNTOLERATED = unresolvable(ERR_REASON_UNTOLERATED)


def untolerated_taint_reason(taint: Mapping[str, Any]) -> str:
    """The reason before 1.34, e.g. `node(s) had untolerated taint {dedicated: gpu}`."""
    return f"node(s) had untolerated taint {{{taint.get('key') or ''}: {taint.get('value') or ''}}}"


def _blocks_scheduling(taint: Mapping[str, Any]) -> bool:
    return taint.get("effect") in (NO_SCHEDULE, NO_EXECUTE)


def prefer_no_schedule_tolerations(tolerations) -> tuple[Mapping[str, Any], ...]:
    """The tolerations that can tolerate a PreferNoSchedule taint (that effect, or any)."""
    return tuple(t for t in tolerations if (t.get("effect") or "") in ("", PREFER_NO_SCHEDULE))


def count_intolerable_prefer_no_schedule(taints, tolerations) -> int:
    return sum(1 for taint in taints
               if taint.get("effect") == PREFER_NO_SCHEDULE and not tolerations_tolerate(tolerations, taint))


class TaintToleration(FilterPlugin, PreScorePlugin, ScorePlugin, ScoreExtensions, Explainer, SignPlugin):
    name = NAME
    node_local = True      # reads only the pod and the node's NodeInfo (kexplain.framework.node_memo)
    pod_fields = ("tolerations",)

    def sign_pod(self, pod) -> signers.Fragments | None:
        """Its verdict and score read only the tolerations."""
        return [(signers.TOLERATIONS, signers.tolerations(pod))]

    def __init__(self, args, handle) -> None:
        super().__init__(args, handle)
        self._names_taint = not self.kube.since(TAINT_REASON_GENERIC_SINCE)
        self._named: dict[tuple[str, str], Status] = {}   # one status per distinct taint text

    def filter(self, state, pod, node_info) -> Status:
        return self.filter_nodes(state, pod, (node_info,))[0]

    def filter_nodes(self, state, pod, nodes) -> list[Status]:
        tolerations = pod.tolerations
        out: list[Status] = []
        for ni in nodes:
            taints = ni.node.taints
            taint = find_untolerated(taints, tolerations, _blocks_scheduling) if taints else None
            out.append(SUCCESS if taint is None else self._rejection(taint))
        return out

    def _rejection(self, taint: Mapping[str, Any]) -> Status:
        if not self._names_taint:
            return _UNTOLERATED
        key = (str(taint.get("key") or ""), str(taint.get("value") or ""))
        status = self._named.get(key)
        if status is None:
            status = self._named[key] = unresolvable(untolerated_taint_reason(taint))
        return status

    def pre_score(self, state, pod, nodes) -> Status:
        state.write(PRE_SCORE_STATE_KEY, prefer_no_schedule_tolerations(pod.tolerations))
        return SUCCESS

    def score(self, state, pod, node_info) -> int:
        return self.score_nodes(state, pod, (node_info,))[0]

    def score_nodes(self, state, pod, nodes) -> list[int]:
        tolerations = state.get(PRE_SCORE_STATE_KEY)
        if tolerations is None:
            raise FrameworkError(f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        return [count_intolerable_prefer_no_schedule(taints, tolerations) if (taints := ni.node.taints) else 0
                for ni in nodes]

    def normalize_score(self, state, pod, scores) -> Status:
        default_normalize_score(MAX_NODE_SCORE, True, scores)
        return SUCCESS

    def explain(self, state, pod, node_info) -> dict | None:
        """Each taint of the node: tolerated (by which toleration) or not, and for a
        NoSchedule/NoExecute taint nothing tolerates, the toleration that would."""
        taints = []
        for taint in node_info.node.taints:
            toleration = next((t for t in pod.tolerations if tolerates(t, taint)), None)
            entry: dict[str, Any] = {"taint": taint_to_string(taint), "effect": taint.get("effect") or "",
                                     "tolerated": toleration is not None}
            if toleration is not None:
                entry["toleration"] = format_toleration(dict(toleration))
            elif _blocks_scheduling(taint):
                entry["missingToleration"] = _toleration_for(taint)
            taints.append(entry)
        return {"taints": taints, "untoleratedPreferNoSchedule": count_intolerable_prefer_no_schedule(
            node_info.node.taints, prefer_no_schedule_tolerations(pod.tolerations))}


def _toleration_for(taint: Mapping[str, Any]) -> dict[str, str]:
    """The narrowest toleration of exactly this taint."""
    out = {"key": taint.get("key") or ""}
    if taint.get("value"):
        out.update(operator="Equal", value=taint["value"])
    else:
        out["operator"] = "Exists"
    out["effect"] = taint.get("effect") or ""
    return out
