"""NodeAffinity: a pod only goes to nodes that match its spec.nodeSelector and its required node affinity (and
any affinity the scheduler profile enforces), and it prefers nodes matching its weighted preferred terms. A
required affinity naming nodes by `metadata.name` also narrows the search to those nodes up front."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.apimachinery.display import format_expression
from kexplain.errors import FrameworkError
from kexplain.framework.interface import (MAX_NODE_SCORE, Explainer, FilterPlugin, PreFilterPlugin, PreFilterResult,
                                          PreScorePlugin, ScoreExtensions, ScorePlugin, SignPlugin)
from kexplain.framework import signers
from kexplain.framework.status import SKIP, SUCCESS, Status, unresolvable
from kexplain.model.nodeselector import (NODE_NAME_FIELD, NodeSelector, PreferredSchedulingTerms,
                                  RequiredNodeAffinity, SelectorParseError, match_term)
from kexplain.plugins import names
from kexplain.plugins.helper.normalize_score import default_normalize_score

NAME = names.NODE_AFFINITY
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME

ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"
_POD_AFFINITY = unresolvable(ERR_REASON_POD)
_ENFORCED = unresolvable(ERR_REASON_ENFORCED)


def _node_affinity(pod) -> Mapping[str, Any]:
    return (pod.spec.get("affinity") or {}).get("nodeAffinity") or {}


def required_node_selector(pod) -> Mapping[str, Any] | None:
    """spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution, None when unset."""
    return _node_affinity(pod).get("requiredDuringSchedulingIgnoredDuringExecution")


def named_nodes(terms) -> frozenset[str] | None:
    """The node names the required terms allow when every term pins `metadata.name In ...`
    (values of such requirements intersected within a term, the terms unioned), else None."""
    union: set[str] = set()
    for term in terms:
        names: set[str] | None = None
        for req in (term or {}).get("matchFields") or ():
            if req.get("key") == NODE_NAME_FIELD and req.get("operator") == "In":
                values = {str(v) for v in req.get("values") or ()}
                names = values if names is None else names & values
        if names is None:
            return None
        union |= names
    return frozenset(union)


def preferred_terms(pod) -> PreferredSchedulingTerms | None:
    """The pod's preferred terms, None when it has none (raises SelectorParseError)."""
    raw = _node_affinity(pod).get("preferredDuringSchedulingIgnoredDuringExecution")
    if not raw:
        return None
    return PreferredSchedulingTerms.from_raw(raw)


class NodeAffinity(PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, ScoreExtensions, Explainer, SignPlugin):
    name = NAME
    node_local = True      # reads only the pod and the node's NodeInfo (kexplain.framework.node_memo)
    pod_fields = ("nodeSelector", "affinity")

    def sign_pod(self, pod) -> signers.Fragments | None:
        """The node affinity (normalised) and the node selector."""
        return [(signers.NODE_AFFINITY, signers.node_affinity(pod)),
                (signers.NODE_SELECTOR, pod.spec.get("nodeSelector"))]

    def __init__(self, args, handle) -> None:
        super().__init__(args, handle)
        added = self.args.get("addedAffinity") or {}
        self.added_node_selector: NodeSelector | None = None
        self.added_preferred: PreferredSchedulingTerms | None = None
        required = added.get("requiredDuringSchedulingIgnoredDuringExecution")
        if required is not None:
            self.added_node_selector = NodeSelector.from_raw(required)
            if self.added_node_selector.errors:
                raise ValueError("parsing addedAffinity.requiredDuringSchedulingIgnoredDuringExecution: "
                                 + "; ".join(self.added_node_selector.errors))
        preferred = added.get("preferredDuringSchedulingIgnoredDuringExecution")
        if preferred:
            try:
                self.added_preferred = PreferredSchedulingTerms.from_raw(preferred)
            except SelectorParseError as e:
                raise ValueError(f"parsing addedAffinity.preferredDuringSchedulingIgnoredDuringExecution: {e}") from e

    # -- filtering -------------------------------------------------------------------------
    def pre_filter(self, state, pod, nodes) -> tuple[PreFilterResult | None, Status]:
        required = required_node_selector(pod)
        if required is None and self.added_node_selector is None and not pod.spec.get("nodeSelector"):
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, RequiredNodeAffinity.from_pod(pod))
        terms = (required or {}).get("nodeSelectorTerms") or ()
        if not terms:
            return None, SUCCESS
        names = named_nodes(terms)
        if names is None:
            return None, SUCCESS
        if not names:
            return None, unresolvable(ERR_REASON_CONFLICT)
        return PreFilterResult(names), SUCCESS

    def filter(self, state, pod, node_info) -> Status:
        return self.filter_nodes(state, pod, (node_info,))[0]

    def filter_nodes(self, state, pod, nodes) -> list[Status]:
        added = self.added_node_selector
        required = state.get(PRE_FILTER_STATE_KEY)
        if required is None:  # PreFilter disabled: compute it here
            required = RequiredNodeAffinity.from_pod(pod)
        return [_ENFORCED if added is not None and not added.matches(ni.node) else
                _POD_AFFINITY if not required.matches(ni.node) else SUCCESS for ni in nodes]

    # -- scoring ---------------------------------------------------------------------------
    def pre_score(self, state, pod, nodes) -> Status:
        try:
            preferred = preferred_terms(pod)
        except SelectorParseError as e:
            return Status.error(str(e))
        if preferred is None and self.added_preferred is None:
            return SKIP
        state.write(PRE_SCORE_STATE_KEY, preferred)
        return SUCCESS

    def score(self, state, pod, node_info) -> int:
        node = node_info.node
        total = self.added_preferred.score(node) if self.added_preferred is not None else 0
        if PRE_SCORE_STATE_KEY in state:
            preferred = state.read(PRE_SCORE_STATE_KEY)
        else:  # PreScore disabled: compute it here
            try:
                preferred = preferred_terms(pod)
            except SelectorParseError as e:
                raise FrameworkError(str(e)) from e
        if preferred is not None:
            total += preferred.score(node)
        return total

    def normalize_score(self, state, pod, scores) -> Status:
        default_normalize_score(MAX_NODE_SCORE, False, scores)
        return SUCCESS

    def explain(self, state, pod, node_info) -> dict | None:
        """The node's labels against each nodeSelector entry and each expression of the required and preferred
        terms (a term matches when all its expressions do; the pod needs one), and the profile's affinity."""
        node = node_info.node
        facts: dict[str, Any] = {}
        if self.added_node_selector is not None:
            facts["enforced"] = {"match": self.added_node_selector.matches(node)}
        selector = pod.spec.get("nodeSelector") or {}
        if selector:
            facts["nodeSelector"] = [{"key": str(k), "want": str(v), "node": node.labels.get(str(k)),
                                      "match": node.labels.get(str(k)) == str(v)} for k, v in selector.items()]
        required = required_node_selector(pod)
        if required is not None:
            facts["required"] = [_term_facts(t, node) for t in required.get("nodeSelectorTerms") or ()]
        preferred = _node_affinity(pod).get("preferredDuringSchedulingIgnoredDuringExecution") or ()
        if preferred:
            facts["preferred"] = [{"weight": int(p.get("weight") or 0), **_term_facts(p.get("preference") or {}, node)}
                                  for p in preferred]
        return facts or None


def _term_facts(term: Mapping[str, Any], node) -> dict[str, Any]:
    """Each requirement of a NodeSelectorTerm, with the node's value and whether it matches."""
    exprs = []
    for kind in ("matchExpressions", "matchFields"):
        for expr in term.get(kind) or ():
            key = str(expr.get("key") or "")
            value = node.name if kind == "matchFields" else node.labels.get(key)
            exprs.append({"expression": format_expression(dict(expr)), "node": value,
                          "match": match_term({kind: [expr]}, node)})
    return {"match": match_term(term, node), "expressions": exprs}


__all__ = ["NodeAffinity", "ERR_REASON_POD", "ERR_REASON_ENFORCED", "ERR_REASON_CONFLICT"]
