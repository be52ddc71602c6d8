"""remove-node-selector, relax-node-affinity: edit the pod's nodeSelector or required node affinity
so that it selects nodes NodeAffinity alone rejects: per node the smallest edit (a RuntimeClass's
selector is never removed: admission adds it back), the smallest opening the most nodes (two at most)."""
from __future__ import annotations

from collections import Counter
from typing import Any, Mapping

from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.nodeselector import IN, NOT_IN, RequiredNodeAffinity, is_empty_term
from kexplain.model.pod import PodInfo
from kexplain.plugins.names import NODE_AFFINITY
from kexplain.plugins.node_affinity import ERR_REASON_POD
from kexplain.suggest.change import Candidate, Fix, Op, apply_ops, pod_op, pointer
from kexplain.suggest.context import MAX_GROUPS, MAX_PER_REASON, Context
from kexplain.suggest.parsed_terms import by_labels, compiled_expression, compiled_field, compiled_term, \
    selection_label_keys

ID = "node-selection"
REMOVE_NODE_SELECTOR = "remove-node-selector"
RELAX_NODE_AFFINITY = "relax-node-affinity"
KINDS = (REMOVE_NODE_SELECTOR, RELAX_NODE_AFFINITY)
PLUGIN = NODE_AFFINITY

REQUIRED_PATH = ("spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")


def selection_only(ctx: Context, node: str) -> bool:
    """NodeAffinity rejects the node for the pod's own selection alone (not the scheduler-enforced one)."""
    return ctx.reasons(node, NODE_AFFINITY) == [ERR_REASON_POD]


def _runtime_selector_keys(ctx: Context) -> set[str]:
    """nodeSelector keys the pod's RuntimeClass puts there (admission would add them back)."""
    name = ctx.pod.spec.get("runtimeClassName")
    for rc in ctx.snapshot.of_kind("RuntimeClass"):
        if (rc.get("metadata") or {}).get("name") == name:
            return set(((rc.get("scheduling") or {}).get("nodeSelector") or {}))
    return set()


def expr_text(expr: Mapping[str, Any]) -> str:
    """A selector expression in words: `key Operator [values]`."""
    values = expr.get("values") or []
    shown = f" [{', '.join(map(str, values))}]" if values else ""
    return f"{expr.get('key', '')} {expr.get('operator', '')}{shown}"


def _term_edits(pod: PodInfo, term_index: int, term: Mapping[str, Any], node: Node) -> Fix:
    """The smallest edits of one required term after which it selects the node."""
    base = (*REQUIRED_PATH, "nodeSelectorTerms", term_index)
    ops: list[Op] = []
    words: list[str] = []
    removals: list[tuple[str, int, str]] = []
    exprs = term.get("matchExpressions") or []
    fields = term.get("matchFields") or []
    for i, expr in enumerate(exprs):
        if compiled_expression(expr).matches(node):
            continue
        op, key, values = expr.get("operator"), expr.get("key", ""), list(expr.get("values") or [])
        have = node.labels.get(key)
        if op == IN and have is not None:
            ops.append(pod_op(pod, "add", pointer(*base, "matchExpressions", i, "values", "-"), have))
            words.append(f"allow {key}={have} in the node affinity expression {expr_text(expr)}")
        elif op == NOT_IN and have is not None and len(values) > 1 and have in values:
            ops.append(pod_op(pod, "remove", pointer(*base, "matchExpressions", i, "values", values.index(have))))
            words.append(f"stop excluding {key}={have} in the node affinity expression {expr_text(expr)}")
        else:
            removals.append(("matchExpressions", i, expr_text(expr)))
    for i, f in enumerate(fields):
        if not compiled_field(f).matches(node):
            removals.append(("matchFields", i, expr_text(f)))
    if len(removals) == len(exprs) + len(fields):   # nothing would be left: the term would select nothing
        return ([pod_op(pod, "remove", pointer(*REQUIRED_PATH))], ["remove the required node affinity"])
    for section, i, text in sorted(removals, key=lambda r: (r[0], -r[1])):
        ops.append(pod_op(pod, "remove", pointer(*base, section, i)))
        words.append(f"remove the node affinity expression {text}")
    return ops, words


def _affinity_fix(ctx: Context, node: Node, runtime_keys: set[str]) -> Fix | None:
    """Edits of nodeSelector and required node affinity after which the pod selects the node."""
    pod = ctx.pod
    ops: list[Op] = []
    words: list[str] = []
    for k, v in (pod.spec.get("nodeSelector") or {}).items():
        if node.labels.get(k) != str(v):
            if k in runtime_keys:
                return None
            ops.append(pod_op(pod, "remove", pointer("spec", "nodeSelector", k)))
            words.append(f"remove the nodeSelector entry {k}={v}")
    required = required_edits(pod, node)
    if required is None:
        return None
    ops += required[0]
    words += required[1]
    return (ops, words) if ops else None


def required_edits(pod: PodInfo, node: Node) -> Fix | None:
    """The edits of the pod's required node affinity in the term needing the fewest for it to select the
    node (none: it selects it already, or no required affinity); None when no term can."""
    required = ((pod.spec.get("affinity") or {}).get("nodeAffinity") or {}).get(REQUIRED_PATH[-1])
    if required is None:
        return [], []
    best: Fix | None = None
    for i, term in enumerate(required.get("nodeSelectorTerms") or []):
        if is_empty_term(term) or compiled_term(term).errors:
            continue
        if compiled_term(term).matches(node):
            return [], []
        edits = _term_edits(pod, i, term, node)
        if best is None or len(edits[0]) < len(best[0]):
            best = edits
    return best


def candidates(ctx: Context) -> list[Candidate]:
    """The smallest nodeSelector and node affinity edits, opening the most nodes."""
    nodes = [n for n in ctx.only(NODE_AFFINITY) if selection_only(ctx, n)]
    if not nodes:
        return []
    runtime_keys = _runtime_selector_keys(ctx)
    fix_of = by_labels(selection_label_keys(ctx.pod.spec), lambda n: _affinity_fix(ctx, n, runtime_keys))
    fixes: dict[str, Fix] = {}
    counts: Counter[str] = Counter()
    for node in nodes:
        info = ctx.info(node)
        fix = fix_of(info.node) if info is not None else None
        if fix is None:
            continue
        key = repr(fix[0])
        fixes.setdefault(key, fix)
        counts[key] += 1
    groups = sorted(fixes, key=lambda k: (len(fixes[k][0]), -counts[k]))[:MAX_GROUPS]
    opened = {}
    for key in groups:
        changed = RequiredNodeAffinity.from_pod(PodInfo(apply_ops(ctx.pod.obj, fixes[key][0])))
        opened[key] = sum(1 for n in nodes if changed.matches(ctx.info(n).node))
    out = []
    for key in sorted(groups, key=lambda k: (len(fixes[k][0]), -opened[k]))[:MAX_PER_REASON]:
        ops, words = fixes[key]
        selector_only = all(op["path"].startswith("/spec/nodeSelector/") for op in ops)
        out.append(Candidate(REMOVE_NODE_SELECTOR if selector_only else RELAX_NODE_AFFINITY,
                             ctx.pod_target, "; ".join(words), tuple(ops)))
    return out


def node_fix(ctx: Context, node: str, info: NodeInfo) -> Fix | None:
    """The nodeSelector and node affinity edits after which the pod selects the node (for `combined`)."""
    if not selection_only(ctx, node):
        return None
    return _affinity_fix(ctx, info.node, _runtime_selector_keys(ctx))
