"""The ResourceQuota admission plugin (k8s.io/apiserver admission/plugin/resourcequota) and the
pod quota evaluator (pkg/quota/v1/evaluator/core/pods.go, read at v1.33.2 to v1.35.2), for the pods
of a set created one after another: each matching quota checked, then charged.
What is tracked and counted: docs/internals/admission.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Iterable, Sequence

from kexplain.apimachinery import quantity
from kexplain.apimachinery.fielderrors import go_quote
from kexplain.model.resources import is_native_resource
from kexplain.apimachinery.identity import as_dict

Quantity = quantity.Quantity
_ZERO = Quantity(Fraction(0))
POD_RESOURCES = frozenset({"count/pods", "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
                           "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage",
                           "pods"})
_PREFIXES = ("hugepages-", "requests.hugepages-")
VALIDATION_SET = frozenset({"cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"})


_add = quantity.add        # Quantity.Add: the sum, in the first one's format unless it is zero


def _list(raw: Any) -> dict[str, Quantity]:
    out = {}
    for name, value in as_dict(raw).items():
        try:
            out[str(name)] = quantity.parse(value)
        except quantity.QuantityError:
            continue
    return out


def matching_resources(names: Iterable[str]) -> list[str]:
    """podEvaluator.MatchingResources."""
    return [n for n in names if n in POD_RESOURCES or n.startswith(_PREFIXES)
            or (not is_native_resource(n) and n.startswith("requests."))]


# -- a pod's usage -----------------------------------------------------------------------------
def _sum_into(total: dict[str, Quantity], resources: dict[str, Quantity]) -> None:
    for k, v in resources.items():
        total[k] = _add(total[k], v) if k in total else v


def _max_into(total: dict[str, Quantity], resources: dict[str, Quantity]) -> None:
    for k, v in resources.items():
        if k not in total or v.value > total[k].value:
            total[k] = v


def _pod_level_resource(name: str) -> bool:
    """resourcehelper.IsSupportedPodLevelResource: cpu, memory and hugepages."""
    return name in ("cpu", "memory") or name.startswith("hugepages-")


def pod_level_set(spec: dict[str, Any]) -> bool:
    """resourcehelper.IsPodLevelResourcesSet: `spec.resources` requests or limits a resource
    pod-level resources support."""
    own = as_dict(spec.get("resources"))
    return any(_pod_level_resource(str(n)) for key in ("requests", "limits") for n in as_dict(own.get(key)))


def _pod_total(spec: dict[str, Any], key: str, pod_level: bool = True) -> dict[str, Quantity]:
    """resourcehelper.PodRequests / PodLimits of a pod being created (no status); `pod_level`: the
    pod-level values (PodLevelResources on)."""
    total: dict[str, Quantity] = {}
    for c in spec.get("containers") or ():
        if isinstance(c, dict):
            _sum_into(total, _list(as_dict(c.get("resources")).get(key)))
    sidecars: dict[str, Quantity] = {}
    init_max: dict[str, Quantity] = {}
    for c in spec.get("initContainers") or ():
        if not isinstance(c, dict):
            continue
        own = _list(as_dict(c.get("resources")).get(key))
        if c.get("restartPolicy") == "Always":
            _sum_into(total, own)
            _sum_into(sidecars, own)
            current = dict(sidecars)
        else:
            current = dict(own)
            _sum_into(current, sidecars)
        _max_into(init_max, current)
    _max_into(total, init_max)
    if pod_level:
        for k, v in _list(as_dict(spec.get("resources")).get(key)).items():
            if _pod_level_resource(k):
                total[k] = v
    overhead = _list(spec.get("overhead"))
    for k, v in overhead.items():
        if key == "requests" or (k in total and total[k].value != 0):
            total[k] = _add(total[k], v) if k in total else v
    return total


def _compute_usage(requests: dict[str, Quantity], limits: dict[str, Quantity]) -> dict[str, Quantity]:
    """podComputeUsageHelper."""
    out: dict[str, Quantity] = {"pods": Quantity(Fraction(1))}
    for name in ("cpu", "memory", "ephemeral-storage"):
        if name in requests:
            out[name] = out[f"requests.{name}"] = requests[name]
        if name in limits:
            out[f"limits.{name}"] = limits[name]
    for name, value in requests.items():
        if name.startswith("hugepages-"):
            out[name] = out[f"requests.{name}"] = value
        elif not is_native_resource(name) and name not in ("cpu", "memory", "ephemeral-storage"):
            out[f"requests.{name}"] = value
    return out


def terminal(pod: dict[str, Any]) -> bool:
    return as_dict(pod.get("status")).get("phase") in ("Succeeded", "Failed")


def pod_usage(pod: dict[str, Any], pod_level: bool = True) -> dict[str, Quantity]:
    """PodUsageFunc: count/pods always; the compute usage unless the pod has ended (`pod_level`:
    the PodLevelResources gate)."""
    out = {"count/pods": Quantity(Fraction(1))}
    if terminal(pod):
        return out
    spec = as_dict(pod.get("spec"))
    out.update(_compute_usage(_pod_total(spec, "requests", pod_level), _pod_total(spec, "limits", pod_level)))
    return out


def _missing(pod: dict[str, Any], required: set[str], pod_level: bool = True) -> str:
    """podEvaluator.Constraints: the tracked cpu/memory resources a container does not state;
    nothing is asked of a pod that sets pod-level resources (PodLevelResources on)."""
    needed = required & VALIDATION_SET
    spec = as_dict(pod.get("spec"))
    if not needed or (pod_level and pod_level_set(spec)):
        return ""
    missing: dict[str, set[str]] = {}
    for key in ("containers", "initContainers"):
        for c in spec.get(key) or ():
            if not isinstance(c, dict):
                continue
            resources = as_dict(c.get("resources"))
            have = set(_compute_usage(_list(resources.get("requests")), _list(resources.get("limits"))))
            for name in needed - have:
                missing.setdefault(name, set()).add(str(c.get("name") or ""))
    if not missing:
        return ""
    return "must specify " + "; ".join(f"{r} for: {','.join(sorted(missing[r]))}" for r in sorted(missing))


# -- scopes ------------------------------------------------------------------------------------
def _best_effort(pod: dict[str, Any]) -> bool:
    """The pod's QoS class is BestEffort: no container requests or limits cpu or memory."""
    spec = as_dict(pod.get("spec"))
    for key in ("containers", "initContainers"):
        for c in spec.get(key) or ():
            resources = as_dict(as_dict(c).get("resources"))
            for kind in ("requests", "limits"):
                if any(n in ("cpu", "memory") and not quantity.parse(v).value == 0
                       for n, v in as_dict(resources.get(kind)).items() if quantity.is_valid(v)):
                    return False
    pod_resources = as_dict(spec.get("resources"))
    return not any(n in ("cpu", "memory") for kind in ("requests", "limits") for n in as_dict(pod_resources.get(kind)))


def _cross_namespace_affinity(pod: dict[str, Any]) -> bool:
    affinity = as_dict(as_dict(pod.get("spec")).get("affinity"))
    for kind in ("podAffinity", "podAntiAffinity"):
        a = as_dict(affinity.get(kind))
        terms = list(a.get("requiredDuringSchedulingIgnoredDuringExecution") or ())
        terms += [as_dict(t).get("podAffinityTerm") for t in a.get("preferredDuringSchedulingIgnoredDuringExecution") or ()]
        for t in terms:
            t = as_dict(t)
            if t.get("namespaces") or t.get("namespaceSelector") is not None:
                return True
    return False


def _scope_matches(scope: str, operator: str, values: list[str], pod: dict[str, Any]) -> bool:
    spec = as_dict(pod.get("spec"))
    if scope == "Terminating":
        return isinstance(spec.get("activeDeadlineSeconds"), int) and spec["activeDeadlineSeconds"] >= 0
    if scope == "NotTerminating":
        return not (isinstance(spec.get("activeDeadlineSeconds"), int) and spec["activeDeadlineSeconds"] >= 0)
    if scope == "BestEffort":
        return _best_effort(pod)
    if scope == "NotBestEffort":
        return not _best_effort(pod)
    if scope == "PriorityClass":        # a label selector on {PriorityClass: <its class name>}
        name = str(spec.get("priorityClassName") or "")
        return {"In": name in values, "NotIn": name not in values, "Exists": True,
                "DoesNotExist": False}.get(operator, False)
    if scope == "CrossNamespacePodAffinity":
        return _cross_namespace_affinity(pod)
    return False


# -- quotas ------------------------------------------------------------------------------------
@dataclass
class Quota:
    namespace: str
    name: str
    hard: dict[str, Quantity]
    scopes: list[tuple[str, str, list[str]]]
    used: dict[str, Quantity] = field(default_factory=dict)

    @classmethod
    def of(cls, obj: dict[str, Any]) -> "Quota":
        meta, spec, status = as_dict(obj.get("metadata")), as_dict(obj.get("spec")), as_dict(obj.get("status"))
        scopes = [(str(s), "Exists", []) for s in spec.get("scopes") or ()]
        for e in as_dict(spec.get("scopeSelector")).get("matchExpressions") or ():
            e = as_dict(e)
            scopes.append((str(e.get("scopeName") or ""), str(e.get("operator") or ""),
                           [str(v) for v in e.get("values") or ()]))
        hard = _list(status.get("hard")) or _list(spec.get("hard"))
        used = _list(status.get("used")) if status.get("used") else {}
        return cls(str(meta.get("namespace") or "default"), str(meta.get("name") or ""), hard, scopes, used)

    @property
    def key(self) -> tuple[str, str, str]:
        return "ResourceQuota", self.namespace, self.name

    def matches(self, pod: dict[str, Any]) -> bool:
        """generic.Matches: it tracks a resource of pods, and every scope selects the pod."""
        return bool(matching_resources(self.hard)) and all(_scope_matches(s, o, v, pod) for s, o, v in self.scopes)

    def charge(self, usage: dict[str, Quantity]) -> None:
        for name in self.hard:
            if name in usage:
                self.used[name] = _add(self.used.get(name, _ZERO), usage[name])


def _pretty(resources: dict[str, Quantity]) -> str:
    return ",".join(f"{k}={resources[k]}" for k in sorted(resources))


_NO_QUOTAS: list[Any] = []     # the last pairs found without a ResourceQuota, and their length (one kept)


class QuotaLedger:
    """The quotas of a set's cluster and their usage, charged as pods are created; `pod_level`: the
    PodLevelResources gate (the evaluator reads a pod's own `spec.resources` only with it on)."""

    def __init__(self, quotas: list[Quota], pod_level: bool = True) -> None:
        self.pod_level = pod_level
        self.by_namespace: dict[str, list[Quota]] = {}
        for q in sorted(quotas, key=lambda q: q.name):
            self.by_namespace.setdefault(q.namespace, []).append(q)

    @classmethod
    def of(cls, objects: Iterable[dict[str, Any]], pod_level: bool = True) -> "QuotaLedger | None":
        """The ledger of `objects` (their ResourceQuotas; their pods charged as the quota
        controller counts them, unless a quota carries its own status.used); None without quotas."""
        objects = list(objects)
        quotas = [Quota.of(o) for o in objects if o.get("kind") == "ResourceQuota"]
        if not quotas:
            return None
        ledger = cls(quotas, pod_level)
        counted = [q for q in quotas if not q.used]
        for q in counted:
            q.used = {name: Quantity(Fraction(0)) for name in q.hard}
        if counted:
            for o in objects:
                if o.get("kind") == "Pod":
                    namespace = str(as_dict(o.get("metadata")).get("namespace") or "default")
                    for q in counted:
                        if q.namespace == namespace and q.matches(o):
                            q.charge(pod_usage(o, pod_level))
        return ledger

    @classmethod
    def of_pairs(cls, pairs: Sequence[tuple[dict[str, Any], Any]], pod_level: bool = True) -> "QuotaLedger | None":
        """`of` a state's (object, source) pairs; the last list found without a quota remembered, so a
        state scheduled again batch after batch (a drain's fixes) is not read whole again for none."""
        if _NO_QUOTAS and _NO_QUOTAS[0] is pairs and _NO_QUOTAS[1] == len(pairs):
            return None
        ledger = cls.of((o for o, _ in pairs), pod_level)
        if ledger is None:
            _NO_QUOTAS[:] = [pairs, len(pairs)]
        return ledger

    def refusal(self, pod: dict[str, Any], later: frozenset[tuple[str, str, str]] = frozenset()) -> str:
        """Why the API server would refuse to create `pod` (its whole message), "" when admitted; nothing is
        charged. `later`: quotas its set creates after it, which admit it."""
        meta = as_dict(pod.get("metadata"))
        quotas = [q for q in self.by_namespace.get(str(meta.get("namespace") or "default"), ())
                  if q.matches(pod) and q.key not in later]
        if not quotas:
            return ""
        prefix = f"pods {go_quote(str(meta.get('name') or ''))} is forbidden: "
        for q in quotas:
            tracked = set(matching_resources(q.hard))
            missing = _missing(pod, tracked, self.pod_level)
            if missing:
                return f"{prefix}failed quota: {q.name}: {missing}"
        usage = pod_usage(pod, self.pod_level)
        for q in quotas:
            requested = {k: v for k, v in usage.items() if k in q.hard and v.value != 0}
            exceeded = sorted(k for k, v in requested.items()
                              if _add(q.used.get(k, _ZERO), v).value > q.hard[k].value)
            if exceeded:
                return (f"{prefix}exceeded quota: {q.name}, requested: {_pretty({k: requested[k] for k in exceeded})}, "
                        f"used: {_pretty({k: q.used.get(k, _ZERO) for k in exceeded})}, "
                        f"limited: {_pretty({k: q.hard[k] for k in exceeded})}")
        return ""

    def charge(self, pod: dict[str, Any]) -> None:
        """Count an admitted pod in every quota of its namespace that matches it."""
        meta = as_dict(pod.get("metadata"))
        usage = pod_usage(pod, self.pod_level)
        for q in self.by_namespace.get(str(meta.get("namespace") or "default"), ()):
            if q.matches(pod):
                q.charge(usage)

    def create(self, pod: dict[str, Any], later: frozenset[tuple[str, str, str]] = frozenset()) -> str:
        """`refusal`, and the pod charged when admitted."""
        refused = self.refusal(pod, later)
        if not refused:
            self.charge(pod)
        return refused

    def created_copies(self, pod: dict[str, Any], copies: int, name_of: Any = None,
                       later: frozenset[tuple[str, str, str]] = frozenset()) -> tuple[int, str]:
        """How many of `copies` pods like `pod` the quotas let be created one after another, and the
        first refusal ("" when none) naming that copy (`name_of(i)`)."""
        for i in range(copies):
            refused = self.refusal(pod, later)
            if refused:
                if name_of is not None:
                    named = {**pod, "metadata": {**as_dict(pod.get("metadata")), "name": name_of(i)}}
                    refused = self.refusal(named, later)
                return i, refused
            self.charge(pod)
        return copies, ""


def failed_create(controller: str, refusal: str) -> str:
    """The controller's FailedCreate event for a refused create."""
    return f"FailedCreate ({controller}): Error creating: {refusal}"

