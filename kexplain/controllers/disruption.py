"""The disruption controller's status of a PodDisruptionBudget written without one
(pkg/controller/disruption/disruption.go trySync: getExpectedPodCount, getExpectedScale,
countHealthyPods): read as written, a budget would allow no disruption to preemption or scale-down.
A budget with a status is read as it is; `notes` says what each computed one was given. The rules:
docs/internals/controllers.md.
"""
from __future__ import annotations

import math
import re
from itertools import compress, repeat
from operator import attrgetter, eq, is_
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from kexplain.apimachinery import columns
from kexplain.apimachinery.fielderrors import go_quote
from kexplain.apimachinery.identity import as_dict
from kexplain.errors import describe
from kexplain.model.labels import IN, LabelSelector, SelectorError, parse_selector
from kexplain.model.owners import controller_ref
from kexplain.apimachinery.stored_pods import StoredPod
from kexplain.model.pod import PodInfo, StoredPodInfo, stored_pod_info

KIND = "PodDisruptionBudget"
CONDITION = "DisruptionAllowed"
_PERCENT = re.compile(r"^(\d+)%$")
# the controllers whose pods the finders know, by (API group, kind) -> the scale subresource's resource
_NO_SCALE = {("apps", "DaemonSet"): "daemonsets.apps", ("batch", "Job"): "jobs.batch", ("", "Node"): "nodes"}


@dataclass(frozen=True)
class BudgetStatus:
    """What the controller writes in a budget's status, and why (its events' words)."""

    current_healthy: int
    desired_healthy: int
    expected_pods: int
    disruptions_allowed: int
    selected: int                       # the pods the selector selects
    unmanaged: tuple[str, ...] = ()     # selected pods without a controller (UnmanagedPods)
    failed: str | None = None           # the sync's error: the fail-safe allowed 0

    def to_status(self) -> dict[str, Any]:
        if self.failed is not None:
            return {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0,
                    "conditions": [{"type": CONDITION, "status": "False", "reason": "SyncFailed",
                                    "message": self.failed}]}
        allowed = self.disruptions_allowed > 0
        return {"disruptionsAllowed": self.disruptions_allowed, "currentHealthy": self.current_healthy,
                "desiredHealthy": self.desired_healthy, "expectedPods": self.expected_pods,
                "conditions": [{"type": CONDITION, "status": "True" if allowed else "False",
                                "reason": "SufficientPods" if allowed else "InsufficientPods"}]}


def needs_status(obj: Any) -> bool:
    """A PodDisruptionBudget without a status (as a manifest writes it)."""
    return isinstance(obj, dict) and obj.get("kind") == KIND and not obj.get("status")


def scaled(value: Any, total: int) -> int:
    """intstr.GetScaledValueFromIntOrPercent(value, total, roundUp=true); ValueError for a
    string that is not a percentage."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    m = _PERCENT.match(value) if isinstance(value, str) else None
    if m is None:
        raise ValueError("invalid value for IntOrString: invalid type: string is not a percentage")
    return math.ceil(int(m.group(1)) * total / 100)


_FOUND = ("ReplicaSet", "ReplicationController", "StatefulSet", "Deployment")      # the finders' kinds


class _Controllers:
    """The workload objects the finders look a controller reference up in, by (kind, namespace, name)."""

    def __init__(self, objects: Iterable[Mapping[str, Any]]) -> None:
        self.by_key: dict[tuple[str, str, str], Mapping[str, Any]] = {}
        for obj in objects:
            kind = obj.get("kind")
            if kind in _FOUND:
                meta = as_dict(obj.get("metadata"))
                self.by_key.setdefault((str(kind), meta.get("namespace") or "default", str(meta.get("name") or "")),
                                       obj)

    def _get(self, kind: str, namespace: str, ref: Mapping[str, Any]) -> Mapping[str, Any] | None:
        obj = self.by_key.get((kind, namespace, str(ref.get("name") or "")))
        if obj is None:
            return None
        uid = as_dict(obj.get("metadata")).get("uid")
        return obj if not ref.get("uid") or not uid or uid == ref.get("uid") else None

    def scale(self, ref: Mapping[str, Any], namespace: str) -> tuple[str, int] | None:
        """(the controller's identity, its scale) by the finders in their order; None when none
        knows it; ValueError with the sync's error for a kind without the scale subresource."""
        kind = str(ref.get("kind") or "")
        group = str(ref.get("apiVersion") or "").rpartition("/")[0]
        if kind == "ReplicationController" and group == "":
            rc = self._get(kind, namespace, ref)
            return (_identity(rc), _replicas(rc)) if rc is not None else None
        if kind == "ReplicaSet" and group in ("apps", "extensions"):
            rs = self._get(kind, namespace, ref)
            if rs is None:
                return None
            owner = _controller_of(rs)
            if owner is not None and owner.get("kind") == "Deployment":
                deployment = self._get("Deployment", namespace, owner)
                if deployment is not None:
                    return _identity(deployment), _replicas(deployment)
            return _identity(rs), _replicas(rs)         # (its own finder, or its scale subresource)
        if kind == "StatefulSet" and group == "apps":
            ss = self._get(kind, namespace, ref)
            return (_identity(ss), _replicas(ss)) if ss is not None else None
        resource = _NO_SCALE.get((group, kind))
        if resource is not None:
            raise ValueError(f"{resource} does not implement the scale subresource")
        return None


def _identity(obj: Mapping[str, Any]) -> str:
    meta = as_dict(obj.get("metadata"))
    return str(meta.get("uid") or f"{obj.get('kind')}/{meta.get('namespace') or 'default'}/{meta.get('name')}")


def _replicas(obj: Mapping[str, Any]) -> int:
    value = as_dict(obj.get("spec")).get("replicas")
    return value if isinstance(value, int) and not isinstance(value, bool) else 1     # (defaulted to 1)


def _controller_of(obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    for ref in as_dict(obj.get("metadata")).get("ownerReferences") or ():
        if isinstance(ref, dict) and ref.get("controller") is True:
            return ref
    return None


_OBJ = attrgetter("obj")


def _lacks(positions: dict[int, int]) -> Callable[[int], bool]:
    return lambda i: i not in positions


class NamespacePods(tuple):     # type: ignore[type-arg]
    """A namespace's pods (in order), with their values of a label key indexed when a selector first
    asks for that key: each budget reads only the pods its first `In` requirement can select, not the
    namespace (a cluster's 300 budgets over 150,000 pods)."""

    def selected(self, selector: LabelSelector) -> list[PodInfo]:
        """The pods `selector` selects, in order."""
        if selector.nothing:
            return []
        narrow = next((r for r in selector.requirements if r.op == IN), None)
        if narrow is None:
            return [p for p in self if selector.matches(p.labels)]
        by_value = self._by_key(narrow.key)
        at = [i for v in narrow.values for i in by_value.get(v, ())]
        if len(narrow.values) > 1:
            at.sort()
        if len(selector.requirements) == 1:     # (`narrow` alone: every pod it indexes is selected)
            return [self[i] for i in at]
        return [self[i] for i in at if selector.matches(self[i].labels)]

    def selection(self, selector: LabelSelector) -> "Selection":
        """What `selector` selects of these pods and what the controller reads of them, made once per
        selector for this version of the namespace's pods: every reader of the same pods (the state's
        notes, CA's listing, Karpenter's pass, each drain and fix) shares it."""
        memo: dict[LabelSelector, Selection] = self.__dict__.setdefault("_selections", {})
        found = memo.get(selector)
        if found is None:
            grown = self.__dict__.get("_grown")         # (`with_added`'s: its parent's selection, and the new pods)
            source = self.__dict__.get("_source")       # (`_Versions`': a kept version of the namespace)
            if grown is not None and grown[0].__dict__.get("_selections", {}).get(selector) is not None:
                parent, added = grown
                more = [p for p in added if selector.matches(p.labels)] if not selector.nothing else []
                found = parent.selection(selector).with_added(more)
            elif source is not None and source.__dict__.get("_selections", {}).get(selector) is not None:
                pods, reordered = self._selected_as(source, selector)
                found = source.selection(selector).reordered(pods) if reordered else Selection(pods)
            else:
                found = Selection(self.selected(selector))
            memo[selector] = found
        return found

    def _selected_as(self, source: "NamespacePods", selector: LabelSelector) -> tuple[list[PodInfo], bool]:
        """What `selector` selects of these pods, from what it selects of `source` (another version of the
        namespace: most of its pods the same objects, a few left out, added or in another order): those
        of its selection these hold, and the matching pods `source` lacks, in this version's order; and
        whether they are the very pods of `source`'s selection (in another order, say)."""
        mine, theirs = self._positions(), source._positions()
        if mine is None or theirs is None:      # (a pod listed twice: by the index)
            return self.selected(selector), False
        before = source.selection(selector).pods
        at = [mine[i] for i in map(id, map(_OBJ, before)) if i in mine]
        same = len(at) == len(before)
        if not selector.nothing:
            new = [i for i in self._new_in(theirs) if selector.matches(self[i].labels)]
            same = same and not new
            at += new
        at.sort()
        return [self[i] for i in at], same

    def _positions(self) -> dict[int, int] | None:
        """Each pod's position by its object's identity (made once); None when one is listed twice."""
        if "_at" not in self.__dict__:
            found = dict(zip(map(id, map(_OBJ, self)), range(len(self))))
            self.__dict__["_at"] = found if len(found) == len(self) else None
        return self.__dict__["_at"]

    def _new_in(self, theirs: dict[int, int]) -> list[int]:
        """The positions of the pods whose object `theirs` (another version's `_positions`) lacks."""
        new = self.__dict__.get("_new")
        if new is None or new[0] is not theirs:
            new = self.__dict__["_new"] = (theirs, list(compress(range(len(self)), map(
                _lacks(theirs), map(id, map(_OBJ, self))))))
        return new[1]

    def with_added(self, added: Sequence[PodInfo]) -> "NamespacePods":
        """These pods and `added` after them, the label values indexed so far carried over (a
        drain's fix adds a few pods to a namespace of thousands: its budgets index only those)."""
        out = NamespacePods((*self, *added))
        out.__dict__["_grown"] = (self, tuple(added))
        index: dict[str, dict[str, list[int]]] = self.__dict__.get("_index") or {}
        if index:
            carried = {}
            for key, by_value in index.items():
                found = dict(by_value)          # (the lists a new pod extends are copied, not shared)
                for i, pod in enumerate(added, len(self)):
                    value = pod.labels.get(key)
                    if value is not None:
                        found[value] = [*found.get(value, ()), i]
                carried[key] = found
            out.__dict__["_index"] = carried
        return out

    def _by_key(self, key: str) -> dict[str, list[int]]:
        """The pods' positions by their value of label `key` (made once per key)."""
        index: dict[str, dict[str, list[int]]] = self.__dict__.setdefault("_index", {})
        found = index.get(key)
        if found is None:
            found = index[key] = {}
            for i, pod in enumerate(self):
                value = pod.labels.get(key)
                if value is not None:
                    found.setdefault(value, []).append(i)
        return found


class Selection:
    """The pods a budget's selector selects, in order, with what `computed` reads of them worked out once:
    how many are healthy (by each countHealthyPods rule) and their controllers' references, each once
    in the order of its first pod (getExpectedScale asks the finders per reference: a few per budget,
    not one per pod), and the pods without a controller."""

    __slots__ = ("pods", "_healthy", "_refs", "_borrowed")

    def __init__(self, pods: list[PodInfo]) -> None:
        self.pods = pods
        self._healthy: dict[Callable[[PodInfo], bool], int] = {}
        self._refs: _References | None = None
        self._borrowed = False      # `_refs` another order's (`reordered`): its first pods not these'

    def reordered(self, pods: list[PodInfo]) -> "Selection":
        """The selection of these very pods in the order of `pods` (another version of the namespace
        listing them otherwise: a pass's pods by node), carrying what is the same in any order: the
        healthy counts, and the controllers' references when every pod has one (the sum of their scales
        is; which pod a failing one names first is not: `expected_scale` then reads them again)."""
        out = Selection(pods)
        out._healthy = dict(self._healthy)
        if self._refs is not None and not self._refs.unmanaged:
            out._refs, out._borrowed = self._refs, True
        return out

    def healthy(self, rule: Callable[[PodInfo], bool]) -> int:
        """countHealthyPods with `rule`."""
        found = self._healthy.get(rule)
        if found is None:
            found = self._healthy[rule] = len(list(filter(rule, self.pods)))
        return found

    def expected_scale(self, controllers: "_Controllers") -> tuple[int, list[str]]:
        """getExpectedScale: the sum of the scales of the selected pods' controllers, and the pods
        without one; ValueError with the sync's error for the first pod whose controller fails."""
        if self._refs is None:
            self._refs = _References().added(self.pods)
        scales: dict[str, int] = {}
        for ref, namespace, first in self._refs.refs.values():
            try:
                found = controllers.scale(ref, namespace)
            except ValueError:
                found = None
                if not self._borrowed:
                    raise
            if found is None:
                if self._borrowed:      # (the first pod whose controller fails is this order's)
                    self._refs, self._borrowed = None, False
                    return self.expected_scale(controllers)
                raise ValueError(f"found no controllers for pod {go_quote(first)}")
            scales.setdefault(*found)
        return sum(scales.values()), list(self._refs.unmanaged)

    def with_added(self, more: list[PodInfo]) -> "Selection":
        """This selection with `more` selected after its pods (a version of the namespace with pods
        added: what is worked out already carried over, only the new pods read)."""
        out = Selection(self.pods + more)
        out._healthy = {rule: count + len(list(filter(rule, more))) for rule, count in self._healthy.items()}
        if self._refs is not None and not self._borrowed:
            out._refs = self._refs.copy().added(more)
        return out


_REF_FIELDS = ("kind", "apiVersion", "name", "uid")     # what the finders read of a reference


class _References:
    """Pods' controller references, each (by what the finders read of it, and the pod's namespace) once
    with the name of its first pod, in order; and the names of the pods without one."""

    __slots__ = ("refs", "unmanaged")

    def __init__(self) -> None:
        self.refs: dict[Any, tuple[Mapping[str, Any], str, str]] = {}
        self.unmanaged: list[str] = []

    def copy(self) -> "_References":
        out = _References()
        out.refs, out.unmanaged = dict(self.refs), list(self.unmanaged)
        return out

    def added(self, pods: Sequence[PodInfo]) -> "_References":
        """These references with those of `pods` after them."""
        refs, unmanaged = self.refs, self.unmanaged
        asked: dict[tuple[int, str], tuple[Any, Any]] = {}      # (a controller's stored pods share one list
        for pod in pods:                                        # of references: each list read once)
            owners = pod.owner_references
            hit = asked.get((id(owners), pod.namespace))
            if hit is None or hit[0] is not owners:
                hit = asked[(id(owners), pod.namespace)] = (owners, _reference_key(pod))
            if hit[1] is None:
                unmanaged.append(pod.name)
            elif hit[1][0] not in refs:
                refs[hit[1][0]] = (hit[1][1], pod.namespace, pod.name)
        return self


def _reference_key(pod: PodInfo) -> tuple[Any, Mapping[str, Any]] | None:
    """(what the finders read of the pod's controller reference, the reference), None without one."""
    ref = controller_ref(pod)
    if ref is None:
        return None
    key: Any = (pod.namespace, *[(type(v), v) for v in map(ref.get, _REF_FIELDS)])
    try:
        hash(key)
    except TypeError:           # (a reference's field no name: this reference alone)
        key = ("ref", id(ref))
    return key, ref


def selected_by(selector: LabelSelector, pods: Sequence[PodInfo]) -> list[PodInfo]:
    """The pods of `pods` that `selector` selects, in order (through the index of `NamespacePods`)."""
    if isinstance(pods, NamespacePods):
        return pods.selected(selector)
    return [p for p in pods if not selector.nothing and selector.matches(p.labels)]


def is_ready(pod: PodInfo) -> bool:
    """podutil.IsPodReady: a Ready condition that is True (no condition: not ready). The Eviction API's
    test, and countHealthyPods' on pods read as stored (`healthy_as_stored`)."""
    return pod.condition_status("Ready") == "True"


def healthy_as_stored(pod: PodInfo) -> bool:
    """countHealthyPods on a pod as the API server stores it: not being deleted, and Ready as
    IsPodReady reads it (the controller's own rule)."""
    return not pod.deletion_timestamp and is_ready(pod)


def is_healthy(pod: PodInfo) -> bool:
    """countHealthyPods on a manifest's pod: `healthy_as_stored`, except that a bound pod whose
    status names no Ready condition is taken as ready, as kexplain takes a bound pod as running."""
    if pod.deletion_timestamp:
        return False
    ready = pod.condition_status("Ready")
    if ready is not None:
        return ready == "True"
    return bool(pod.node_name) and pod.phase not in ("Succeeded", "Failed")


def healthy_rule(stored: bool) -> Callable[[PodInfo], bool]:
    """countHealthyPods' test for the pods of a state: read as stored, the controller's own
    (`healthy_as_stored`); written as manifests, `is_healthy`."""
    return healthy_as_stored if stored else is_healthy


def generation(pdb: Mapping[str, Any]) -> int:
    """The budget's metadata.generation (1, as the API server sets it on create, when absent)."""
    value = as_dict(pdb.get("metadata")).get("generation")
    return value if isinstance(value, int) and not isinstance(value, bool) else 1


def controllers_of(objects: Iterable[Mapping[str, Any]]) -> _Controllers:
    """The controllers among `objects` that the controller's finders look a pod's owner up in."""
    return _Controllers(objects)


def computed(pdb: Mapping[str, Any], pods: Sequence[PodInfo], controllers: _Controllers,
             healthy: Callable[[PodInfo], bool] = is_healthy) -> BudgetStatus:
    """The status the disruption controller writes for `pdb`, of `pods` (those of its namespace);
    `healthy`: countHealthyPods' test (`healthy_as_stored` for pods read as the API server stores them)."""
    spec = as_dict(pdb.get("spec"))
    try:
        selector = parse_selector(spec.get("selector"))
    except SelectorError as err:
        return BudgetStatus(0, 0, 0, 0, 0, failed=str(err))
    found = pods.selection(selector) if isinstance(pods, NamespacePods) else Selection(selected_by(selector, pods))
    selected = len(found.pods)
    unmanaged: list[str] = []
    try:
        if spec.get("maxUnavailable") is not None:
            expected, unmanaged = found.expected_scale(controllers)
            desired = max(expected - scaled(spec["maxUnavailable"], expected), 0)
        elif isinstance(spec.get("minAvailable"), int) and not isinstance(spec.get("minAvailable"), bool):
            expected, desired = selected, spec["minAvailable"]
        elif spec.get("minAvailable") is not None:
            expected, unmanaged = found.expected_scale(controllers)
            desired = scaled(spec["minAvailable"], expected)
        else:
            expected = desired = 0
    except ValueError as err:
        return BudgetStatus(0, 0, 0, 0, selected, tuple(unmanaged), failed=str(err))
    current = found.healthy(healthy)
    allowed = current - desired if expected > 0 and current - desired > 0 else 0
    return BudgetStatus(current, desired, expected, allowed, selected, tuple(unmanaged))


def unfound_owners(pods: Sequence[PodInfo], controllers: _Controllers) -> list[Mapping[str, Any]]:
    """The controller references of `pods` that no finder knows (getExpectedScale's "found no
    controllers for pod": the owner, a ReplicaSet say, is not among the objects), each once, in the
    pods' order; a kind without the scale subresource is not one (its error is its own)."""
    out: list[Mapping[str, Any]] = []
    seen: set[tuple[str, str, str]] = set()
    for pod in pods:
        ref = controller_ref(pod)
        if ref is None:
            continue
        key = (str(ref.get("kind") or ""), pod.namespace, str(ref.get("name") or ""))
        if key in seen:
            continue
        seen.add(key)
        try:
            if controllers.scale(ref, pod.namespace) is None:
                out.append(ref)
        except ValueError:
            continue
    return out


Statuses = dict[int, tuple[Any, BudgetStatus]]     # budgets' statuses computed already: id -> (budget, status)


def with_status(others: list[Any], pods: Iterable[Any], known: Statuses | None = None,
                healthy: Callable[[PodInfo], bool] = is_healthy) -> list[Any]:
    """`others` with each PodDisruptionBudget lacking a status given the controller's (`computed`, of `pods`,
    with `healthy`; `known`: those `notes` computed of the same objects, taken as they are)."""
    budgets = [i for i, o in enumerate(others) if needs_status(o)]
    if not budgets:
        return others
    known = known or {}
    todo = [i for i in budgets if _known(known, others[i]) is None]
    by_namespace = pods_by_namespace(pods) if todo else {}
    controllers = _Controllers(others) if todo else None
    out = list(others)
    for i in budgets:
        pdb = others[i]
        namespace = as_dict(pdb.get("metadata")).get("namespace") or "default"
        status = _known(known, pdb) or computed(pdb, by_namespace.get(namespace, ()),
                                                controllers, healthy)  # type: ignore[arg-type]
        out[i] = {**pdb, "status": status.to_status()}
    return out


def statuses_of(budgets: Iterable[Any], pods: Iterable[Any], controllers: Iterable[Any],
                healthy: Callable[[PodInfo], bool] = is_healthy) -> Statuses:
    """The controller's status (`computed`) of each budget of `budgets` written without one, by its
    identity, of `pods` (objects or `PodInfo`s, every namespace) and the workload controllers among
    `controllers`: what a pass that reads budgets apart from a cluster state (Karpenter's disruption)
    reads, as the state's `notes` computes them for preemption and `evict drain`."""
    todo = [b for b in budgets if needs_status(b)]
    if not todo:
        return {}
    by_namespace = pods_by_namespace(pods)
    finders = _Controllers(o for o in controllers if isinstance(o, Mapping))
    out: Statuses = {}
    for pdb in todo:
        namespace = as_dict(pdb.get("metadata")).get("namespace") or "default"
        out[id(pdb)] = (pdb, computed(pdb, by_namespace.get(namespace, ()), finders, healthy))
    return out


def known_status(known: Statuses, pdb: Any) -> BudgetStatus | None:
    """The status `known` holds for this very object (by identity), or None."""
    return _known(known, pdb)


def _known(known: Statuses, pdb: Any) -> BudgetStatus | None:
    found = known.get(id(pdb))
    return found[1] if found is not None and found[0] is pdb else None


def pods_by_namespace(pods: Iterable[Any]) -> dict[str, NamespacePods]:
    """The pods (objects or `PodInfo`s) by namespace, in order, as the budgets read them: a namespace
    whose very pod objects (in the same order) a recent call listed gets that call's `NamespacePods`,
    its label indexes and budgets' selections with it (`_Versions`)."""
    pods = pods if type(pods) is list else list(pods)
    found = _VERSIONS.listed(pods)
    if found is not None:       # (the very list a reader listed before: CA's notes and its snapshot's)
        return dict(found)
    out: dict[str, list[Any]] = {}
    namespaces = _namespaces(pods)
    if namespaces is not None:      # (one kind of pod: their namespaces read in C)
        for namespace, pod in zip(namespaces, pods):
            found = out.get(namespace)
            if found is None:
                found = out[namespace] = []
            found.append(pod)
        pods = []
    for pod in pods:
        if type(pod) is PodInfo or type(pod) is StoredPodInfo:
            out.setdefault(pod.namespace, []).append(pod)
        elif isinstance(pod, PodInfo):      # (a view of its own: never shared)
            out.setdefault(pod.namespace, []).append(_Unshared(pod))
        elif type(pod) is StoredPod:
            out.setdefault(pod.view.metadata.namespace or "default", []).append(pod)
        else:
            out.setdefault((pod.get("metadata") or {}).get("namespace") or "default", []).append(pod)
    made = {namespace: _VERSIONS.of(namespace, found) for namespace, found in out.items()}
    _VERSIONS.keep_listed(pods, made)
    return dict(made)


_INFOS = frozenset({PodInfo, StoredPodInfo})
_NAMESPACE = attrgetter("namespace")
_VIEW_NAMESPACE = attrgetter("view.metadata.namespace")


def _namespaces(pods: list[Any]) -> list[str] | None:
    """The namespaces of `pods` when they are all plain `PodInfo`s or all a dump's `StoredPod`s (read in
    C); None for any other list (each asked)."""
    types = set(map(type, pods))
    if types <= _INFOS:
        return list(map(_NAMESPACE, pods))
    if types == {StoredPod}:
        return [namespace or "default" for namespace in map(_VIEW_NAMESPACE, pods)]
    return None


class _Unshared:
    """A `PodInfo` of a kind of its own in `pods_by_namespace`'s list: its namespace's pods are not shared."""

    __slots__ = ("info",)

    def __init__(self, info: PodInfo) -> None:
        self.info = info


def _object_of(pod: Any) -> Any:
    return pod.obj if type(pod) is PodInfo or type(pod) is StoredPodInfo else pod


class _Versions:
    """The namespaces' pods `pods_by_namespace` made lately (the last VERSIONS of each of at most
    NAMESPACES namespaces), each a version of its namespace's pods found by the identity of its pod
    objects, in order: the cluster state's notes, CA's listing and snapshot, Karpenter's pass read the
    same pods, and share one label index and one selection per budget instead of one per reader; a
    namespace whose pods a reader changed (one pod left out, added or replaced) is another version."""

    VERSIONS, NAMESPACES, LISTS = 4, 4096, 2

    def __init__(self) -> None:
        self._kept: dict[str, list[tuple[list[Any], NamespacePods]]] = {}
        self._lists: list[tuple[list[Any], dict[str, NamespacePods]]] = []     # the last LISTS calls' pods

    def listed(self, pods: list[Any]) -> dict[str, NamespacePods] | None:
        """What a recent call made of the very same list of pods (each the same object, in order)."""
        return next((made for kept, made in self._lists if len(kept) == len(pods) and all(map(is_, kept, pods))),
                    None)

    def keep_listed(self, pods: list[Any], made: dict[str, NamespacePods]) -> None:
        self._lists = [(list(pods), made), *self._lists[:self.LISTS - 1]]     # (a copy: the caller's may change)

    def of(self, namespace: str, pods: list[Any]) -> NamespacePods:
        """The version of `namespace` holding `pods` (objects or plain `PodInfo`s), made when none is kept."""
        if any(type(p) is _Unshared for p in pods):
            return NamespacePods(p.info if type(p) is _Unshared else p if isinstance(p, PodInfo) else PodInfo(p)
                                 for p in pods)
        types = set(map(type, pods))        # (one kind of pod: their objects read in C)
        objs = list(map(_OBJ, pods)) if types <= _INFOS else list(pods) if types.isdisjoint(_INFOS) \
            else list(map(_object_of, pods))
        versions = self._kept.pop(namespace, [])
        found = next((v for v in versions if len(v[0]) == len(objs) and all(map(is_, v[0], objs))), None)
        if found is None:       # (the pods the kept versions hold keep their `PodInfo`, read already)
            infos = {id(i.obj): i for _, v in versions[:1] for i in v}
            made = NamespacePods(map(stored_pod_info, pods)) if not infos and types == {StoredPod} else \
                NamespacePods(p if isinstance(p, PodInfo) else infos.get(id(p)) or PodInfo(p) for p in pods)
            if versions:        # (its selections made from the latest's: `_selected_as`; one step, no chain)
                made.__dict__["_source"] = versions[0][1].__dict__.get("_source") or versions[0][1]
            found = (objs, made)
        else:
            versions.remove(found)
        if len(self._kept) >= self.NAMESPACES:
            del self._kept[next(iter(self._kept))]
        self._kept[namespace] = [found, *versions[:self.VERSIONS - 1]]
        return found[1]


_VERSIONS = _Versions()


def notes(objects: Sequence[tuple[Any, Any]], among: "set[int] | None" = None, kept: Statuses | None = None,
          healthy: Callable[[PodInfo], bool] = is_healthy, more: Iterable[Any] = (),
          pods_kept: dict[str, NamespacePods] | None = None) -> list[str]:
    """What the output says of each computed budget that selects a pod (`among`: the budgets' ids; None: all);
    each status computed is put in `kept` (for `with_status` of the same objects and the state's other
    readers), and the pods by namespace they were computed of in `pods_kept`. `healthy`: countHealthyPods'
    test (`healthy_rule`); `more`: other objects the finders look a controller up in (the Deployments a
    cluster state keeps apart from its kinds)."""
    rows = columns.rows_of(objects)
    if rows is not None:        # (a dump's 150,000 objects: each kind found by their rows, in C)
        budgets = [o for o, _ in columns.of_kind(objects, rows, KIND)
                   if needs_status(o) and (among is None or id(o) in among)]
        if not budgets:
            return []
        pods = [o for o, _ in columns.of_kind(objects, rows, "Pod")]
        finders = [objects[i][0] for i in sorted(i for kind in _FOUND for i in rows.positions(kind))]
    else:
        split = _split(objects, among)
        if split is None:
            return []
        budgets, pods, finders = split
    by_namespace = pods_by_namespace(pods)
    if pods_kept is not None:
        pods_kept.update(by_namespace)
    controllers = _Controllers([*finders, *more])
    out = []
    for pdb in budgets:
        namespace = as_dict(pdb.get("metadata")).get("namespace") or "default"
        status = computed(pdb, by_namespace.get(namespace, ()), controllers, healthy)
        if kept is not None:
            kept[id(pdb)] = (pdb, status)
        if status.selected:
            out.append(note(pdb, status))
    return out


_PLAIN_PODS = frozenset({StoredPod, dict})


def _split(objects: Sequence[tuple[Any, Any]], among: "set[int] | None"
           ) -> tuple[list[Any], list[Any], list[Any]] | None:
    """The budgets written without a status (of `among`), the pods and the finders' controllers of
    `objects` (each kind chosen in C off a column of the kinds: 150,000 objects); None without a budget."""
    try:
        objs = columns.objects(objects)
        kinds = columns.kinds(objs)
    except columns.NotPlain:        # (an object that is no mapping: each asked)
        objs = [o for o, _ in objects]
        kinds = [o.get("kind") if isinstance(o, Mapping) else None for o in objs]
    budgets = [o for o in compress(objs, map(eq, kinds, repeat(KIND)))
               if needs_status(o) and (among is None or id(o) in among)]
    if not budgets:
        return None
    pods = list(compress(objs, map(eq, kinds, repeat("Pod"))))
    if not _PLAIN_PODS.issuperset(map(type, pods)):       # (the ABC's test: only when one is of another type)
        pods = [o for o in pods if isinstance(o, Mapping)]
    finders = [o for o in compress(objs, map(_FOUND.__contains__, kinds)) if isinstance(o, dict)]
    return budgets, pods, finders


def note_head(pdb: Mapping[str, Any]) -> str:
    """How a budget's `note` begins (a command that says it for other readers finds it by this)."""
    return f"{describe(pdb)} has no status (as a manifest writes it): the disruption controller's is "


READERS = "preemption and the Cluster Autoscaler's scale-down"     # who reads the status, said by `note`


def note(pdb: Mapping[str, Any], status: BudgetStatus, readers: str = READERS) -> str:
    """One budget's note: the status it was given as the disruption controller computes it, which
    `readers` read."""
    head = note_head(pdb)
    if status.failed is not None:
        return head + f"disruptionsAllowed 0 (its sync fails: {status.failed}), which {readers} read"
    text = head + (f"disruptionsAllowed {status.disruptions_allowed} (currentHealthy {status.current_healthy}, "
                   f"desiredHealthy {status.desired_healthy}, expectedPods {status.expected_pods}), which "
                   f"{readers} read")
    if status.unmanaged:
        pods = ", ".join(status.unmanaged[:3]) + (f" and {len(status.unmanaged) - 3} more"
                                                  if len(status.unmanaged) > 3 else "")
        text += (f"; UnmanagedPods: {pods} have no controller, so they count for no expected pod (set "
                 "\".spec.minAvailable\" to an integer to count them)")
    return text
