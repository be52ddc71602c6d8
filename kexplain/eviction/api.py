"""The Eviction subresource (pkg/registry/core/pod/storage/eviction.go `EvictionREST.Create`): a
pod that is finished, pending or being deleted goes without a budget; otherwise the pod's
PodDisruptionBudgets are looked up (more than one: 500), an unready pod may go without spending
(the unhealthy pod eviction policy), and `check_and_decrement` decides on the budget's status and
spends one disruption. What was evicted gets the DisruptionTarget condition before its delete.
Budgets are values: an answer carries the budget as the eviction left it."""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Mapping, Optional

from kexplain.controllers.disruption import is_ready
from kexplain.eviction.versions import DrainRules
from kexplain.model.labels import LabelSelector, SelectorError, parse_selector
from kexplain.model.pod import PodInfo

MORE_THAN_ONE = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
VIOLATES = "Cannot evict pod as it would violate the pod's disruption budget."
STILL_PROCESSED = "The disruption budget {name} is still being processed by the server."
NEEDS = "The disruption budget {name} needs {desired} healthy pods and has {current} currently"
NOT_ALLOWED = "The disruption budget {name} does not allow evicting pods currently"
NOT_ALLOWED_SYNC = NOT_ALLOWED + " because it failed sync: {message}"
NOT_ALLOWED_CONDITION = NOT_ALLOWED + " ({reason}): {message}"
NEGATIVE = "pdb disruptions allowed is negative"
TOO_MANY_DISRUPTED = "DisruptedPods map too big - too many evictions not confirmed by PDB controller"
MAX_DISRUPTED_POD_SIZE = 2000
DISRUPTION_BUDGET_CAUSE = "DisruptionBudget"
ALWAYS_ALLOW = "AlwaysAllow"
CONDITION = "DisruptionAllowed"
DISRUPTION_TARGET = {"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI",
                     "message": "Eviction API: evicting"}

# why an eviction went the way it did (`Answer.rule`), for the explanation
NO_BUDGET_NEEDED, NO_BUDGET, MULTIPLE, UNHEALTHY_ALWAYS, UNHEALTHY_BUDGET_HEALTHY, SPENT, REFUSED = (
    "canIgnorePDB", "no-budget", "more-than-one-budget", "unhealthy-always-allow", "unhealthy-budget-healthy",
    "spent", "refused")


@dataclass(frozen=True)
class Budget:
    """A PodDisruptionBudget as the Eviction API reads it: its selector, generation, unhealthy pod
    eviction policy and status (given, or the disruption controller's)."""

    namespace: str
    name: str
    selector: Optional[LabelSelector]       # None: a selector LabelSelectorAsSelector refuses
    generation: int
    unhealthy_policy: str
    observed_generation: int
    current_healthy: int
    desired_healthy: int
    expected_pods: int
    disruptions_allowed: int
    conditions: tuple[Mapping[str, Any], ...] = ()
    disrupted_pods: tuple[str, ...] = ()

    @cached_property
    def key(self) -> str:
        """namespace/name (made once: the drain's loop and sorts key every budget by it, each drain)."""
        return f"{self.namespace}/{self.name}"

    def selects(self, pod: PodInfo, matches: Optional["Matches"] = None) -> bool:
        """Whether the budget selects `pod` (`matches`: the answers of its selector kept already)."""
        if self.namespace != pod.namespace or self.selector is None:
            return False
        return matches.matches(self.selector, pod) if matches is not None else self.selector.matches(pod.labels)


class Matches:
    """Whether a selector matches a pod's labels, asked once per selector and pod: a node's drains (its
    own and each fix's) put the same pods to the same budgets' selectors (a fix replaces a few budgets;
    spending one keeps its selector). Each answer holds its selector and pod, so neither's identity is
    taken by another object while it is kept."""

    def __init__(self) -> None:
        self._by_selector: dict[int, tuple[LabelSelector, dict[int, tuple[PodInfo, bool]]]] = {}

    def matches(self, selector: LabelSelector, pod: PodInfo) -> bool:
        held = self._by_selector.get(id(selector))
        if held is None or held[0] is not selector:
            held = self._by_selector[id(selector)] = (selector, {})
        found = held[1].get(id(pod))
        if found is None or found[0] is not pod:
            found = held[1][id(pod)] = (pod, selector.matches(pod.labels))
        return found[1]


def budget_of(pdb: Mapping[str, Any], status: Mapping[str, Any], generation: int) -> Budget:
    """The Budget of a PodDisruptionBudget object and its status."""
    meta, spec = pdb.get("metadata") or {}, pdb.get("spec") or {}
    try:
        selector: Optional[LabelSelector] = parse_selector(spec.get("selector"))
    except SelectorError:
        selector = None
    number = lambda key: status.get(key) if isinstance(status.get(key), int) else 0   # noqa: E731
    return Budget(meta.get("namespace") or "default", str(meta.get("name") or ""), selector, generation,
                  str(spec.get("unhealthyPodEvictionPolicy") or ""), number("observedGeneration"),
                  number("currentHealthy"), number("desiredHealthy"), number("expectedPods"),
                  number("disruptionsAllowed"),
                  tuple(c for c in status.get("conditions") or () if isinstance(c, dict)),
                  tuple(sorted(status.get("disruptedPods") or {})))


@dataclass(frozen=True)
class Answer:
    """The API's answer to one eviction: evicted (with the condition written before the delete), or
    the Status it returned (code, reason, message, causes, retryAfterSeconds). `budget` is the
    budget as the eviction left it (None: none was read), `rule` which branch decided."""

    evicted: bool
    rule: str
    code: int = 0
    reason: str = ""
    message: str = ""
    causes: tuple[Mapping[str, str], ...] = ()
    retry_after: int = 0
    budget: Optional[Budget] = None


def evict(pod: PodInfo, budgets: list[Budget], rules: DrainRules, matching: Optional[list[Budget]] = None) -> Answer:
    """EvictionREST.Create for `pod` against the namespace's `budgets` (policy/v1, no dry run, no
    preconditions: kubectl drain's request); `matching`: those of them that select the pod, when the
    caller has worked them out already (the drain's loop, which reads them too)."""
    if pod.status.get("phase") in ("Succeeded", "Failed", "Pending") or pod.deletion_timestamp:
        return Answer(True, NO_BUDGET_NEEDED)
    if matching is None:
        matching = [b for b in budgets if b.selects(pod)]
    if len(matching) > 1:
        return Answer(False, MULTIPLE, 500, "", MORE_THAN_ONE)
    if not matching:
        return Answer(True, NO_BUDGET)
    budget = matching[0]
    if not is_ready(pod):
        if budget.unhealthy_policy == ALWAYS_ALLOW:
            return Answer(True, UNHEALTHY_ALWAYS, budget=budget)
        if budget.current_healthy >= budget.desired_healthy and budget.desired_healthy > 0:
            return Answer(True, UNHEALTHY_BUDGET_HEALTHY, budget=budget)
    return check_and_decrement(pod.name, budget, rules)


def too_many_requests(cause: str, retry_after: int, budget: Budget) -> Answer:
    return Answer(False, REFUSED, 429, "TooManyRequests", VIOLATES,
                  ({"type": DISRUPTION_BUDGET_CAUSE, "message": cause},), retry_after, budget)


def forbidden(why: str, budget: Budget) -> Answer:
    return Answer(False, REFUSED, 403, "Forbidden",
                  f'poddisruptionbudget.policy "{budget.name}" is forbidden: {why}', budget=budget)


def check_and_decrement(pod_name: str, budget: Budget, rules: DrainRules) -> Answer:
    """checkAndDecrement: refuse on a stale, negative, overfull or spent budget; else spend one
    disruption and record the pod in disruptedPods."""
    if budget.observed_generation < budget.generation:
        return too_many_requests(STILL_PROCESSED.format(name=budget.name), 10, budget)
    if budget.disruptions_allowed < 0:
        return forbidden(NEGATIVE, budget)
    if len(budget.disrupted_pods) > MAX_DISRUPTED_POD_SIZE:
        return forbidden(TOO_MANY_DISRUPTED, budget)
    if budget.disruptions_allowed == 0:
        return too_many_requests(refusal_cause(budget, rules), 0, budget)
    allowed = budget.disruptions_allowed - 1
    conditions = budget.conditions if allowed > 0 else allowed_condition(budget.conditions, budget.observed_generation)
    spent = replace(budget, disruptions_allowed=allowed, conditions=conditions,
                    disrupted_pods=tuple(sorted({*budget.disrupted_pods, pod_name})))
    return Answer(True, SPENT, budget=spent)


def refusal_cause(budget: Budget, rules: DrainRules) -> str:
    """The cause of a refusal by a spent budget, as the minor words it."""
    needs = NEEDS.format(name=budget.name, desired=budget.desired_healthy, current=budget.current_healthy)
    if not rules.budget_cause_by_condition:
        return needs
    condition = next((c for c in budget.conditions if c.get("type") == CONDITION), None)
    said = condition is not None and condition.get("status") == "False" and bool(condition.get("message"))
    if said and condition.get("reason") == "SyncFailed":
        return NOT_ALLOWED_SYNC.format(name=budget.name, message=condition["message"])
    if budget.current_healthy <= budget.desired_healthy:
        return needs
    if said:
        return NOT_ALLOWED_CONDITION.format(name=budget.name, reason=condition.get("reason") or "",
                                            message=condition["message"])
    return NOT_ALLOWED.format(name=budget.name)


def allowed_condition(conditions: tuple[Mapping[str, Any], ...], observed: int) -> tuple[Mapping[str, Any], ...]:
    """pdbhelper.UpdateDisruptionAllowedCondition on a budget with no disruption left: the
    DisruptionAllowed condition False, InsufficientPods (its message cleared), set or appended."""
    new = {"type": CONDITION, "status": "False", "reason": "InsufficientPods", "observedGeneration": observed}
    out, found = [], False
    for condition in conditions:
        if condition.get("type") == CONDITION:
            found = True
            kept = {k: v for k, v in condition.items() if k == "lastTransitionTime" and condition.get("status") == "False"}
            out.append({**new, **kept})
        else:
            out.append(condition)
    return tuple(out) if found else (*out, new)
