"""A pod as the scheduler holds it (`PodInfo`): the admitted object plus what is read often.

Parsed once per pod: labels, priority, requests, host ports and the pod
(anti-)affinity terms with their selectors, so per-node work never re-parses.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, TypeVar

from msgspec import UNSET

from kexplain.apimachinery.stored_pods import ADMISSION_ANNOTATIONS, StoredPod, spec_value
from kexplain.model.labels import LabelSelector, parse_selector
from kexplain.model.resources import Amount, PodResource, amount_of, pod_resource
from kexplain.model.shapes import facts_key, shape_key


@dataclass(frozen=True)
class AffinityTerm:
    """A processed PodAffinityTerm: which namespaces, which labels, which topology key."""

    namespaces: frozenset[str]
    selector: LabelSelector
    topology_key: str
    namespace_selector: LabelSelector
    weight: int = 0

    def matches(self, pod: "PodInfo", ns_labels: Mapping[str, str]) -> bool:
        if pod.namespace in self.namespaces or self.namespace_selector.matches(ns_labels):
            return self.selector.matches(pod.labels)
        return False


_TERM_CACHE: dict[tuple[Any, ...], AffinityTerm] = {}
_TERMS_CACHE: dict[tuple[Any, ...], tuple[AffinityTerm, ...]] = {}
_TERM_CACHE_MAX = 65536
T = TypeVar("T")


def _interned(cache: dict[tuple[Any, ...], T], context: tuple[Any, ...], raw: Any, build: Callable[[], T]) -> T:
    """build()'s value, one frozen object per context and equal `raw` (`shape_key`), compared by identity."""
    found = shape_key(raw)
    if found is None:
        return build()
    key = (*context, found)
    got = cache.get(key)
    if got is None:
        got = build()
        if len(cache) < _TERM_CACHE_MAX:
            cache[key] = got
    return got


def _terms(pod_ns: str, raw: Any, required: bool) -> tuple[AffinityTerm, ...]:
    """A pod's terms of one kind, the tuple shared by a workload's pods so per-term-list work is keyed by
    its identity and done once per workload."""
    if required:
        return _interned(_TERMS_CACHE, (pod_ns, True), raw, lambda: tuple(_term(pod_ns, t) for t in raw))
    return _interned(_TERMS_CACHE, (pod_ns, False), raw, lambda: tuple(
        _term(pod_ns, t.get("podAffinityTerm") or {}, int(t.get("weight") or 0)) for t in raw))


def _term(pod_ns: str, raw: Mapping, weight: int = 0) -> AffinityTerm:
    """The processed term."""
    return _interned(_TERM_CACHE, (pod_ns, weight), raw, lambda: _new_term(pod_ns, raw, weight))


def _new_term(pod_ns: str, raw: Mapping, weight: int = 0) -> AffinityTerm:
    ns_sel_raw = raw.get("namespaceSelector")
    namespaces = raw.get("namespaces") or []
    if not namespaces and ns_sel_raw is None:
        nss = frozenset([pod_ns])
    else:
        nss = frozenset(namespaces)
    return AffinityTerm(nss, parse_selector(raw.get("labelSelector")), raw.get("topologyKey", ""),
                        parse_selector(ns_sel_raw), weight)


class lazy:
    """`functools.cached_property` without the lock Python 3.11 takes on every first read
    (dropped in 3.12): computed once, then an ordinary instance attribute."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn
        self.name = fn.__name__
        self.__doc__ = fn.__doc__

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.fn(obj)
        return value


@dataclass(frozen=True)
class HostPort:
    ip: str
    protocol: str
    port: int


class PodInfo:
    """Read-only view of one admitted pod (`obj`: the full object); a dump's bound pod is a
    `StoredPodInfo`, its object made only when more is asked."""

    __slots__ = ("obj", "namespace", "name", "node_name", "spec", "status", "_facts", "__dict__")

    def __new__(cls, obj: Mapping[str, Any]) -> "PodInfo":
        return object.__new__(StoredPodInfo if type(obj) is StoredPod and cls is PodInfo else cls)

    def __init__(self, obj: dict[str, Any]) -> None:
        meta = obj.get("metadata") or {}
        self.obj = obj
        self._facts: PodFacts | None = None
        self.namespace: str = meta.get("namespace") or "default"
        self.name: str = meta.get("name") or ""
        spec = obj.get("spec") or {}
        self.spec: dict[str, Any] = spec
        self.status: dict[str, Any] = obj.get("status") or {}
        self.node_name: str = spec.get("nodeName") or ""
        labels = meta.get("labels")
        if labels and type(labels) is not dict:     # (what it holds is read when asked: `labels`)
            raise TypeError(f"labels of pod {self.namespace}/{self.name} are not a mapping")

    @lazy
    def labels(self) -> dict[str, str]:
        """Its labels (read for few of a cluster's pods: those a selector is matched against)."""
        labels = self.metadata.get("labels") or {}
        # Admission (or the API server) made every label a string; anything else is copied as
        # text (joining them is the check, in C: it refuses anything but strings).
        try:
            if type(labels) is not dict:
                raise TypeError
            "".join(labels)
            "".join(labels.values())
        except TypeError:
            labels = {str(k): str(v) for k, v in labels.items()}
        return labels

    @lazy
    def priority(self) -> int:
        prio = self.spec.get("priority")
        return prio if type(prio) is int else int(prio) if isinstance(prio, int) else 0

    @property       # (read once per pod, by the snapshot's build: not kept, which would give each pod a dict)
    def phase(self) -> Any:
        return self.status.get("phase")

    def annotation(self, key: str) -> Any:
        """The value of its annotation `key` (None without): Karpenter's disruption asks every pod
        for two (do-not-disrupt, the deletion cost)."""
        notes = self.metadata.get("annotations")
        return notes.get(key) if type(notes) is dict else None

    def condition_status(self, kind: str) -> Any:
        """The status of its first condition of type `kind` (None without one; "" for one without a status)."""
        for condition in self.status.get("conditions") or ():
            if isinstance(condition, dict) and condition.get("type") == kind:
                status = condition.get("status")
                return status if status is not None else ""
        return None

    @property
    def has_volumes(self) -> bool:
        """Whether its spec names volumes (even none: `volumes: []`): only then are claims counted."""
        return "volumes" in self.spec

    may_claim = has_volumes     # (whether `pvc_names` may name any: a stored pod's answers by its text)
    may_use_claims = has_volumes    # (whether a volume may use a claim, its own or a generic ephemeral one's)

    def __repr__(self) -> str:
        return f"PodInfo({self.key})"

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def metadata(self) -> dict[str, Any]:
        return self.obj.get("metadata") or {}

    @lazy
    def uid(self) -> str:
        """The object's uid, or its namespace/name when it has none (read by few plugins: not
        worked out for each of a cluster's pods)."""
        return self.metadata.get("uid") or f"{self.namespace}/{self.name}"

    @property
    def facts(self) -> "PodFacts":
        """This pod's `PodFacts` (the snapshot shares one per shape); a slot, so no pod is a dict."""
        facts = self._facts
        if facts is None:
            facts = self._facts = PodFacts(self)
        return facts

    @lazy
    def resource(self) -> PodResource:
        return self.facts.resource

    @lazy
    def affinity(self) -> Mapping[str, Any]:
        return self.spec.get("affinity") or {}

    @lazy
    def required_affinity_terms(self) -> tuple[AffinityTerm, ...]:
        return self.facts.required_affinity_terms

    @lazy
    def required_anti_affinity_terms(self) -> tuple[AffinityTerm, ...]:
        return self.facts.required_anti_affinity_terms

    @lazy
    def preferred_affinity_terms(self) -> tuple[AffinityTerm, ...]:
        return self.facts.preferred_affinity_terms

    @lazy
    def preferred_anti_affinity_terms(self) -> tuple[AffinityTerm, ...]:
        return self.facts.preferred_anti_affinity_terms

    @lazy
    def has_affinity(self) -> bool:
        """Pod affinity or anti-affinity of any kind (NodeInfo.PodsWithAffinity)."""
        return self.facts.has_affinity

    def index_terms(self) -> None:
        """Parse every (anti-)affinity term now, while the pod is indexed, not mid-explanation."""
        self.facts.index_terms()

    @lazy
    def has_required_anti_affinity(self) -> bool:
        return self.facts.has_required_anti_affinity

    @lazy
    def host_ports(self) -> tuple[HostPort, ...]:
        """Ports with a hostPort: restartable (sidecar) init containers, then containers."""
        return self.facts.host_ports

    @lazy
    def tolerations(self) -> tuple[Mapping[str, Any], ...]:
        return tuple(self.spec.get("tolerations") or ())

    @lazy
    def volumes(self) -> Any:
        """spec.volumes as written."""
        return self.spec.get("volumes")

    @lazy
    def pvc_names(self) -> tuple[str, ...]:
        return tuple(v["persistentVolumeClaim"].get("claimName", "")
                     for v in self.volumes or ()
                     if isinstance(v.get("persistentVolumeClaim"), dict))

    @lazy
    def owner_references(self) -> Any:
        """metadata.ownerReferences as written (read for most of a cluster's pods, by the autoscalers)."""
        return self.metadata.get("ownerReferences")

    @property
    def deletion_timestamp(self) -> str | None:
        return self.metadata.get("deletionTimestamp")

    @property
    def creation_timestamp(self) -> Any:
        """metadata.creationTimestamp as written."""
        return self.metadata.get("creationTimestamp")

    @property
    def nominated_node_name(self) -> str:
        return self.status.get("nominatedNodeName") or ""

    @property
    def start_time(self) -> Any:
        """status.startTime as written (read for the pods preemption sorts)."""
        return self.status.get("startTime")

    @property
    def preemption_policy(self) -> str:
        return self.spec.get("preemptionPolicy") or "PreemptLowerPriority"


def may_claim(volumes: Any) -> bool:
    """Whether a stored pod's volumes' text (`volumes`) may name a claim (`pvc_names`): nearly every pod
    mounts its service account's token (`kube-api-access-x7k2p`, a name of its own), few a claim."""
    if not volumes:
        return False
    text = bytes(volumes)
    return b"persistentVolumeClaim" in text or b"\\u" in text        # (a key may be written with escapes)


def may_use_claims(volumes: Any) -> bool:
    """`may_claim`, or a generic ephemeral volume (its claim named after the pod and the volume)."""
    return may_claim(volumes) or bool(volumes) and b"ephemeral" in bytes(volumes)


_STORED_FACTS: dict[bytes, "PodFacts"] = {}     # `shapes.facts_key` of a stored pod -> its facts


class StoredPodInfo(PodInfo):
    """A `PodInfo` of a dump's bound pod: what every pod is read for comes from `StoredPod.view`, the
    spec and status of its object only when asked."""

    __slots__ = ("view",)

    def __init__(self, obj: StoredPod) -> None:
        view = self.view = obj.view
        meta = view.metadata
        self.obj = obj
        self._facts = None
        self.namespace = meta.namespace or "default"
        self.name = meta.name or ""
        self.node_name = view.spec.nodeName

    @lazy
    def spec(self) -> dict[str, Any]:       # type: ignore[override]
        return self.obj.get("spec") or {}

    @lazy
    def status(self) -> dict[str, Any]:     # type: ignore[override]
        return self.obj.get("status") or {}

    @lazy
    def labels(self) -> dict[str, str]:
        return self.view.metadata.labels or {}

    @lazy
    def priority(self) -> int:
        prio = self.view.spec.priority
        return prio if prio is not None else 0

    @lazy
    def uid(self) -> str:
        return self.view.metadata.uid or f"{self.namespace}/{self.name}"

    @property
    def phase(self) -> Any:
        status = self.view.status
        return status.phase if status is not None and status.phase is not UNSET else None

    @property
    def may_claim(self) -> bool:
        return may_claim(self.view.spec.volumes)

    @property
    def may_use_claims(self) -> bool:
        return may_use_claims(self.view.spec.volumes)

    def annotation(self, key: str) -> Any:
        """`PodInfo.annotation` off the view while the object is not made (nor the key one admission
        writes: `ADMISSION_ANNOTATIONS`), so that asking every pod does not decode every pod."""
        obj = self.obj
        if obj.decoded or key in ADMISSION_ANNOTATIONS:
            return PodInfo.annotation(self, key)
        return self.view.annotation(key)

    def condition_status(self, kind: str) -> Any:
        """`PodInfo.condition_status` read off the view (the status is not decoded for it)."""
        status = self.view.status
        for condition in (status.conditions if status is not None else None) or ():
            if condition.type == kind:
                return condition.status if condition.status is not None else ""
        return None

    @lazy
    def volumes(self) -> Any:
        return self.view.volumes()

    @property
    def facts(self) -> "PodFacts":
        """`PodInfo.facts`, shared by every stored pod of its shape (`shapes.facts_key`), wherever its
        PodInfo was made (the autoscalers make their own of a cluster's pods)."""
        facts = self._facts
        if facts is None:
            key = facts_key(self)
            facts = _STORED_FACTS.get(key)
            if facts is None:
                facts = PodFacts(self)
                if key is not None and len(_STORED_FACTS) < _TERM_CACHE_MAX:
                    _STORED_FACTS[key] = facts
            self._facts = facts
        return facts

    @lazy
    def owner_references(self) -> Any:
        return self.view.owner_references()

    @property
    def deletion_timestamp(self) -> str | None:
        return self.view.metadata.deletionTimestamp

    @property
    def creation_timestamp(self) -> Any:
        return self.view.metadata.creationTimestamp

    @property
    def nominated_node_name(self) -> str:
        return (self.view.status.nominatedNodeName if self.view.status is not None else None) or ""

    @property
    def start_time(self) -> Any:
        return self.view.status.startTime if self.view.status is not None else None


_new = object.__new__


def stored_pod_info(obj: StoredPod) -> StoredPodInfo:
    """`PodInfo(obj)` of a stored pod, made by `StoredPodInfo.__init__` without the type's dispatch
    (a snapshot's build makes one for each of 150,000 pods)."""
    pod = _new(StoredPodInfo)
    _init_stored(pod, obj)
    return pod


_init_stored = StoredPodInfo.__init__


_FACT_FIELDS = ("affinity", "resources", "overhead", "initContainers", "containers")   # (`shapes.facts_key`'s)


def facts_spec(view: Any) -> dict[str, Any]:
    """The fields of a stored pod's spec its facts read (`_FACT_FIELDS`), decoded from its view's texts (those of
    its object: an unstored pod's as admitted): the pods whose facts key is new are not decoded whole."""
    spec = view.spec
    return {name: spec_value(text) for name in _FACT_FIELDS if (text := getattr(spec, name))}


def _reports_containers(status: Any) -> bool:
    return status is not None and bool(status.containerStatuses or status.initContainerStatuses)


class PodFacts:
    """What a pod's shape decides (requests, host ports, affinity terms), worked out once per
    `shapes.facts_key` and shared: 150,000 pods have a few hundred."""

    __slots__ = ("pod", "__dict__")

    def __init__(self, pod: PodInfo) -> None:
        self.pod = pod

    @lazy
    def spec(self) -> Mapping[str, Any]:
        """The pod's spec as far as its facts read it: a stored pod's from its view (`facts_spec`), not decoded,
        unless its requests read its object (its status reports containers: a resize)."""
        pod = self.pod
        return facts_spec(pod.view) if type(pod) is StoredPodInfo and not _reports_containers(pod.view.status) \
            else pod.spec

    @lazy
    def resource(self) -> PodResource:
        pod = self.pod
        if type(pod) is StoredPodInfo and not _reports_containers(pod.view.status):
            return pod_resource({"spec": self.spec})        # (requests read a status for its containers only)
        return pod_resource(pod.obj)

    @lazy
    def amount(self) -> Amount:
        """Its requests' value, shared with every shape that requests alike (what NodeInfo adds up)."""
        return amount_of(self.resource)

    @lazy
    def affinity(self) -> Mapping[str, Any]:
        return self.spec.get("affinity") or {}

    def _terms(self, kind: str, required: bool) -> tuple[AffinityTerm, ...]:
        block = self.affinity.get(kind) or {}
        raw = block.get("requiredDuringSchedulingIgnoredDuringExecution" if required else
                        "preferredDuringSchedulingIgnoredDuringExecution") or ()
        return _terms(self.pod.namespace, raw, required) if raw else ()

    @lazy
    def required_affinity_terms(self) -> tuple[AffinityTerm, ...]:
        return self._terms("podAffinity", True)

    @lazy
    def required_anti_affinity_terms(self) -> tuple[AffinityTerm, ...]:
        return self._terms("podAntiAffinity", True)

    @lazy
    def preferred_affinity_terms(self) -> tuple[AffinityTerm, ...]:
        return self._terms("podAffinity", False)

    @lazy
    def preferred_anti_affinity_terms(self) -> tuple[AffinityTerm, ...]:
        return self._terms("podAntiAffinity", False)

    @lazy
    def has_affinity(self) -> bool:
        a = self.affinity
        return a.get("podAffinity") is not None or a.get("podAntiAffinity") is not None

    def index_terms(self) -> None:
        _ = (self.required_affinity_terms, self.required_anti_affinity_terms,
             self.preferred_affinity_terms, self.preferred_anti_affinity_terms)

    @lazy
    def has_required_anti_affinity(self) -> bool:
        anti = self.affinity.get("podAntiAffinity") or {}
        return bool(anti.get("requiredDuringSchedulingIgnoredDuringExecution"))

    @lazy
    def host_ports(self) -> tuple[HostPort, ...]:
        spec = self.spec
        if "initContainers" not in spec:          # the common case: no port at all
            for c in spec.get("containers") or ():
                if "ports" in c:
                    break
            else:
                return ()
        out = []
        sidecars = [c for c in spec.get("initContainers") or () if c.get("restartPolicy") == "Always"]
        for c in [*sidecars, *(spec.get("containers") or ())]:
            for p in c.get("ports") or ():
                hp = p.get("hostPort") or 0
                if hp <= 0:
                    continue
                out.append(HostPort(p.get("hostIP") or "0.0.0.0", p.get("protocol") or "TCP", int(hp)))
        return tuple(out)

    @lazy
    def indexed(self) -> bool:
        """Whether `NodeInfo.add_pods` looks at each pod of this shape on its own: pod
        (anti-)affinity or host ports (the rest it adds up per shape)."""
        return self.has_affinity or self.has_required_anti_affinity or bool(self.host_ports)
