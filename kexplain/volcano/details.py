"""The session's details per task, for the `--html` page (the document's `tasks` key): the predicates'
every failing reason on every node a task was tried on (nodes with identical reasons grouped, in the
nodes' order, so 5,000 nodes refusing alike are one row), the scores of the nodes that passed and the node
chosen. Read from the session after it ran (the jobs' `nodes_fit_errors`, the session's `decisions`);
only asked for by `--html`: on a large cluster it weighs as much as the rest of the document."""
from __future__ import annotations

from typing import Any

from kexplain.volcano.cache import ClusterInfo
from kexplain.volcano.framework.session import Session

SCORES_KEPT = 10        # the best scores kept per task (and every node tied at the best): 5,000 tasks that
                        # fit 1,000 nodes each would otherwise carry five million


def _grouped(fit_errors: Any, order: dict[str, int]) -> list[dict[str, Any]]:
    """The nodes by identical reasons (every reason of each node, not only the first), each group in the
    nodes' order and the groups in the order of their first node."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for node in sorted(fit_errors.nodes, key=lambda n: (order.get(n, len(order)), n)):
        groups.setdefault(tuple(fit_errors.nodes[node].reasons()), []).append(node)
    return [{"reasons": list(reasons), "nodes": nodes} for reasons, nodes in groups.items()]


def _best(scores: dict[str, float], order: dict[str, int]) -> list[dict[str, Any]]:
    """The best scores, the best first (the nodes' order among equals): `SCORES_KEPT` of them, more when
    more nodes tie at the best (each one Volcano may pick)."""
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], order.get(kv[0], len(order)), kv[0]))
    top = ranked[0][1]
    kept = [kv for i, kv in enumerate(ranked) if i < SCORES_KEPT or kv[1] == top]
    return [{"node": n, "score": s} for n, s in kept]


def task_details(ssn: Session, cluster: ClusterInfo) -> list[dict[str, Any]]:
    """Per task the session tried (in the pods' order): its PodGroup, why it fits no node (Volcano's
    message and the nodes grouped by reasons), the scores of the nodes it fits and the node chosen (the
    candidates where Volcano picks among equal scores; the best scores only, `scored` saying of how many)."""
    order = {n.name: i for i, n in enumerate(cluster.node_list)}
    out = []
    for task in sorted(cluster.tasks, key=lambda t: t.key):
        job = ssn.jobs.get(task.job)
        fit_errors = job.nodes_fit_errors.get(task.uid) if job is not None else None
        decision = ssn.decisions.get(task.uid)
        if fit_errors is None and decision is None:
            continue
        entry: dict[str, Any] = {"name": task.key, "podGroup": task.job}
        if fit_errors is not None:
            entry["fitError"] = fit_errors.error()
            entry["nodes"] = _grouped(fit_errors, order)
        if decision is not None:
            entry["chosen"] = decision.node
            if len(decision.candidates) > 1:
                entry["candidates"] = list(decision.candidates)
            if decision.scores:
                entry["scored"] = len(decision.scores)
                entry["scores"] = _best(decision.scores, order)
        out.append(entry)
    return out
