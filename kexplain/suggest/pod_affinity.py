"""drop-pod-affinity-term, drop-pod-anti-affinity-term: drop one of the first two required terms of
the kind InterPodAffinity rejects nodes for (terms failing together are refuted by the re-run)."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.plugins.inter_pod_affinity import ERR_REASON_AFFINITY_RULES_NOT_MATCH, \
    ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH
from kexplain.plugins.names import INTER_POD_AFFINITY
from kexplain.suggest.change import Candidate, pod_op, pointer
from kexplain.suggest.context import MAX_PER_REASON, Context
from kexplain.suggest.node_selection import expr_text

ID = "pod-affinity"
DROP_POD_AFFINITY_TERM = "drop-pod-affinity-term"
DROP_POD_ANTI_AFFINITY_TERM = "drop-pod-anti-affinity-term"
KINDS = (DROP_POD_AFFINITY_TERM, DROP_POD_ANTI_AFFINITY_TERM)

REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
# The reason, the affinity block it is about, the kind of suggestion and its words.
_TERMS = ((ERR_REASON_AFFINITY_RULES_NOT_MATCH, "podAffinity", DROP_POD_AFFINITY_TERM, "pod affinity"),
          (ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH, "podAntiAffinity", DROP_POD_ANTI_AFFINITY_TERM,
           "pod anti-affinity"))


def _selector_text(term: Mapping[str, Any]) -> str:
    sel = term.get("labelSelector") or {}
    parts = [f"{k}={v}" for k, v in (sel.get("matchLabels") or {}).items()]
    parts += [expr_text(e) for e in sel.get("matchExpressions") or ()]
    return f"{', '.join(parts) or 'every pod'}, topologyKey {term.get('topologyKey', '')}"


def candidates(ctx: Context) -> list[Candidate]:
    """Drop one required term of each kind that failed."""
    out = []
    for reason, block, kind, words in _TERMS:
        if not any(reason in ctx.reasons(n, INTER_POD_AFFINITY) for n in ctx.only(INTER_POD_AFFINITY)):
            continue
        terms = ((ctx.pod.spec.get("affinity") or {}).get(block) or {}).get(REQUIRED) or []
        for i, term in enumerate(terms[:MAX_PER_REASON]):
            op = pod_op(ctx.pod, "remove", pointer("spec", "affinity", block, REQUIRED, i))
            out.append(Candidate(kind, ctx.pod_target,
                                 f"drop the required {words} term #{i + 1} ({_selector_text(term)})", (op,)))
    return out
