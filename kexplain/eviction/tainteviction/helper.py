"""The toleration matching the controller asks of `pkg/apis/core/v1/helper`: GetMatchingTolerations
(each NoExecute taint's first tolerating toleration; all or nothing), over `model.taints`'
Toleration.ToleratesTaint."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from kexplain.model.taints import tolerates

COMPARISON_OPERATORS_GATE = "TaintTolerationComparisonOperators"     # Lt / Gt tolerations


def first_tolerating(taint: Mapping[str, Any], tolerations: Sequence[Mapping[str, Any]],
                     comparison_operators: bool) -> Mapping[str, Any] | None:
    """The first toleration (in the pod's order) that tolerates `taint`, else None."""
    for toleration in tolerations:
        if tolerates(toleration, taint, enable_comparison_operators=comparison_operators):
            return toleration
    return None


def matching_tolerations(taints: Sequence[Mapping[str, Any]], tolerations: Sequence[Mapping[str, Any]],
                         comparison_operators: bool) -> tuple[bool, list[Mapping[str, Any]]]:
    """GetMatchingTolerations: (every taint tolerated, the toleration used for each taint in the
    taints' order); (False, []) as soon as one taint is not tolerated."""
    if not taints:
        return True, []
    used = []
    for taint in taints:
        found = first_tolerating(taint, tolerations, comparison_operators)
        if found is None:
            return False, []
        used.append(found)
    return True, used
