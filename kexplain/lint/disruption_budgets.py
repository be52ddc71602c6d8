"""Lint's check of PodDisruptionBudgets that can never allow a disruption, which blocks every
`kubectl drain` of a node holding one of their pods (each eviction refused with 429, or 500 for a
pod two budgets select). Decided as the disruption controller and the Eviction API would, with
the workload's pods all running and healthy (the best case; a budget refused even then is refused
always):

- `maxUnavailable` that scales to 0 of the workloads' replicas (0, 0%);
- `minAvailable` that scales to as many as the replicas or more (3 of 3, 100%);
- neither `minAvailable` nor `maxUnavailable` (the controller's disruptionsAllowed is always 0);
- a workload whose pods two budgets select (the Eviction API supports only one).

Each finding names the workload, at the budget's field when the budget is in the set, else at the
workload. Budgets and workloads come from the set and, with --nodes, the pool."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from kexplain.controllers.disruption import KIND as PDB, scaled
from kexplain.lint.documents import Document, Location, line_of_field
from kexplain.model.labels import SelectorError, parse_selector

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.state.cluster import ClusterState

RULE = "pdb-blocks-drain"     # (declared, with its severity and summary, by `lint.rules.disruption_budgets`)
WORKLOAD_KINDS = ("Deployment", "StatefulSet", "ReplicaSet", "ReplicationController")
BLOCKED = "every eviction of these pods is refused, so `kubectl drain` of a node holding one never finishes"
TWO_BUDGETS = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."


@dataclass(frozen=True)
class BudgetProblem:
    """One finding: its rule, where (the line of `field`), the object, the text, the field."""

    rule: str
    location: Location
    obj: Mapping[str, Any]
    message: str
    field: str | None = None


@dataclass(frozen=True)
class Held:
    """A budget or a workload, with its document when the set holds it (None: the pool's)."""

    obj: Mapping[str, Any]
    doc: Document | None

    @property
    def namespace(self) -> str:
        return str(_dict(self.obj.get("metadata")).get("namespace") or "default")

    @property
    def name(self) -> str:
        return str(_dict(self.obj.get("metadata")).get("name") or "")

    def __str__(self) -> str:
        return f"{self.obj.get('kind')} {self.namespace}/{self.name}"


def _dict(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def replicas(workload: Mapping[str, Any]) -> int:
    replicas = _dict(workload.get("spec")).get("replicas", 1)
    return replicas if isinstance(replicas, int) and not isinstance(replicas, bool) else 1


def _owned_by_deployment(workload: Mapping[str, Any]) -> bool:
    """A ReplicaSet a Deployment controls (the Deployment is the one named)."""
    refs = _dict(workload.get("metadata")).get("ownerReferences")
    return isinstance(refs, list) and any(isinstance(r, Mapping) and r.get("controller") and r.get("kind") ==
                                          "Deployment" for r in refs)


def _template_labels(workload: Mapping[str, Any]) -> Mapping[str, str]:
    labels = _dict(_dict(_dict(workload.get("spec")).get("template")).get("metadata")).get("labels")
    return labels if isinstance(labels, Mapping) else {}


def budgets_and_workloads(items: Sequence[Document],
                          pool: Iterable[Mapping[str, Any]]) -> tuple[list[Held], list[Held]]:
    """The budgets and the running workloads (replicas above 0), the set's first, each identity once."""
    seen: set[tuple[str, str, str]] = set()
    budgets, workloads = [], []
    for obj, doc in [(d.obj, d) for d in items] + [(o, None) for o in pool]:
        if not isinstance(obj, Mapping) or obj.get("kind") not in (PDB, *WORKLOAD_KINDS):
            continue
        entry = Held(obj, doc)
        key = (str(obj.get("kind")), entry.namespace, entry.name)
        if key in seen:
            continue
        seen.add(key)
        if obj.get("kind") == PDB:
            budgets.append(entry)
        elif replicas(obj) > 0 and not _owned_by_deployment(obj):
            workloads.append(entry)
    return budgets, workloads


def selected_by(budget: Held, workloads: Sequence[Held]) -> list[Held]:
    """The workloads in the budget's namespace whose pods its selector selects (none when it does not parse)."""
    try:
        selector = parse_selector(_dict(budget.obj.get("spec")).get("selector"))
    except SelectorError:
        return []
    return [w for w in workloads if w.namespace == budget.namespace and selector.matches(_template_labels(w.obj))]


NEITHER = ("neither minAvailable nor maxUnavailable: the disruption controller expects no pod (expectedPods 0), "
           "so disruptionsAllowed is always 0")


def never_allows(budget: Held, total: int) -> tuple[str, str] | None:
    """(the field, why) when the budget allows no disruption of `total` healthy pods, else None. A
    budget with neither field gets expectedPods 0 and desiredHealthy 0 from the disruption controller
    (getExpectedPodCount), and disruptionsAllowed 0 whatever its pods (updatePdbStatus)."""
    spec = _dict(budget.obj.get("spec"))
    if spec.get("maxUnavailable") is None and spec.get("minAvailable") is None:
        return "spec", NEITHER
    for field in ("maxUnavailable", "minAvailable"):
        value = spec.get(field)
        if value is None:
            continue
        try:
            amount = scaled(value, total)
        except ValueError:
            return None
        if field == "maxUnavailable" and amount <= 0:
            return f"spec.{field}", f"maxUnavailable {value}"
        if field == "minAvailable" and amount >= total:
            return f"spec.{field}", f"minAvailable {value} of {total} {'replica' if total == 1 else 'replicas'}"
        return None
    return None


def problem(at: Held, field: str, message: str, rule: str = RULE) -> BudgetProblem:
    assert at.doc is not None
    line = line_of_field(at.doc.node, field) or at.doc.location.line
    return BudgetProblem(rule, replace(at.doc.location, line=line), at.doc.obj, message, field)


def names(workloads: Sequence[Held]) -> str:
    return ", ".join(map(str, workloads))


def budget_problems(budgets: Sequence[Held], workloads: Sequence[Held]) -> list[BudgetProblem]:
    """Each budget that never allows a disruption of the workloads it selects."""
    out = []
    for budget in budgets:
        selected = selected_by(budget, workloads)
        found = never_allows(budget, sum(replicas(w.obj) for w in selected)) if selected else None
        at = budget if budget.doc is not None else next((w for w in selected if w.doc is not None), None)
        if found is None or at is None:
            continue
        field, why = found
        subject = f"never allows a disruption of {names(selected)}" if at is budget \
            else f"{budget} never allows a disruption of its pods"
        out.append(problem(at, field if at is budget else "spec.replicas", f"{subject} ({why}): {BLOCKED}"))
    return out


def shared_problems(budgets: Sequence[Held], workloads: Sequence[Held]) -> list[BudgetProblem]:
    """Each workload whose pods two or more budgets select."""
    by_workload: dict[int, list[Held]] = {}
    for budget in budgets:
        for workload in selected_by(budget, workloads):
            by_workload.setdefault(id(workload), []).append(budget)
    out = []
    for workload in workloads:
        chosen = by_workload.get(id(workload), [])
        at = workload if workload.doc is not None else next((b for b in chosen if b.doc is not None), None)
        if len(chosen) < 2 or at is None:
            continue
        subject = "its pods are" if at is workload else f"the pods of {workload} are"
        out.append(problem(at, "spec.template.metadata.labels" if at is workload else "spec.selector",
                           f"{subject} selected by {len(chosen)} PodDisruptionBudgets ({names(chosen)}): the "
                           f"Eviction API refuses to evict them (500: {TWO_BUDGETS}); {BLOCKED}"))
    return out


def pool_objects(pool: "ClusterState | None") -> list[Mapping[str, Any]]:
    """The pool's objects (--nodes), beside the set's."""
    return [o for o, _ in (*pool.objects, *pool.other_kinds)] if pool is not None else []


def check_budgets(items: Sequence[Document], pool: "ClusterState | None" = None) -> list[BudgetProblem]:
    """Every finding of this module, for the set's documents (with the pool's objects beside them)."""
    budgets, workloads = budgets_and_workloads(items, pool_objects(pool))
    return budget_problems(budgets, workloads) + shared_problems(budgets, workloads)
