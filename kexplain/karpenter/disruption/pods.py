"""What disruption asks of a pod (utils/pod), of the PodDisruptionBudgets (utils/pdb) and what moving
it costs (utils/disruption). Functions that read `karpenter.sh/do-not-disrupt` publish Karpenter's
events through the recorder given, every time they are asked, as Go's do."""
from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Mapping, Sequence

from kexplain.apimachinery.fielderrors import go_quote
from kexplain.config._decode import parse_duration
from kexplain.karpenter.disruption import events as ev
from kexplain.karpenter.inputs import parse_time
from kexplain.karpenter.scheduling.taints import Taints
from kexplain.karpenter.state.cluster import is_owned_by, is_owned_by_daemonset, is_owned_by_node
from kexplain.model.labels import SelectorError, parse_selector
from kexplain.model.pod import PodInfo, StoredPodInfo
from kexplain.model.selector_index import SelectorIndex

DO_NOT_DISRUPT = "karpenter.sh/do-not-disrupt"
POD_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
DISRUPTED_TAINT = Taints([{"key": "karpenter.sh/disrupted", "effect": "NoSchedule"}])


def is_terminal(pod: PodInfo) -> bool:
    return pod.phase in ("Failed", "Succeeded")


def is_terminating(pod: PodInfo) -> bool:
    return bool(pod.deletion_timestamp)


def is_active(pod: PodInfo) -> bool:
    return not is_terminal(pod) and not is_terminating(pod)


def is_reschedulable(pod: PodInfo) -> bool:
    """IsReschedulable: active (or a terminating StatefulSet pod), not a DaemonSet's, not a mirror pod."""
    return ((is_active(pod) or (is_owned_by(pod, "apps/v1", "StatefulSet") and is_terminating(pod)))
            and not is_owned_by_daemonset(pod) and not is_owned_by_node(pod))


def _go_rfc3339(t: datetime) -> str:
    return t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


_UNITS = {"ns": 1, "us": 10**3, "µs": 10**3, "μs": 10**3, "ms": 10**6, "s": 10**9, "m": 60 * 10**9,
          "h": 3600 * 10**9}


def go_duration_error(orig: str) -> str:
    """The error text of Go's time.ParseDuration for `orig`, "" when it parses (a value beyond an
    int64 of nanoseconds is Go's invalid duration too)."""
    invalid = f"time: invalid duration {time_quote(orig)}"
    neg = orig[:1] == "-"
    s = orig[1:] if orig[:1] in "+-" else orig
    if s == "0":
        return ""
    if not s:
        return invalid
    total = 0
    while s:
        if not (s[0] == "." or s[0].isdigit()):
            return invalid
        i = 0
        while i < len(s) and "0" <= s[i] <= "9":
            i += 1
        whole, s = s[:i], s[i:]
        if whole and int(whole) > _MAX_NS:          # leadingInt's overflow
            return invalid
        fraction = ""
        if s[:1] == ".":
            s = s[1:]
            i = 0
            while i < len(s) and "0" <= s[i] <= "9":
                i += 1
            fraction, s = s[:i], s[i:]
        if not whole and not fraction:
            return invalid
        i = 0
        while i < len(s) and not (s[i] == "." or "0" <= s[i] <= "9"):
            i += 1
        if i == 0:
            return f"time: missing unit in duration {time_quote(orig)}"
        unit, s = s[:i], s[i:]
        if unit not in _UNITS:
            return f"time: unknown unit {time_quote(unit)} in duration {time_quote(orig)}"
        scale = _UNITS[unit]
        value = int(whole or "0")
        if value > _MAX_NS // scale:
            return invalid
        total += value * scale + _fraction_ns(fraction, scale)
        if total > _MAX_NS:
            return invalid
    return invalid if not neg and total > _MAX_NS - 1 else ""


_MAX_NS = 1 << 63


def time_quote(text: str) -> str:
    """The quoting of Go's time package errors (not strconv's): each byte of a character outside
    printable ASCII as `\\xNN`, `"` and `\\` escaped."""
    out = []
    for ch in text:
        if ch < " " or ch >= "\x80":
            out.extend(f"\\x{b:02x}" for b in ch.encode("utf-8", "surrogatepass"))
        else:
            out.append("\\" + ch if ch in '"\\' else ch)
    return '"' + "".join(out) + '"'


def _fraction_ns(digits: str, unit: int) -> int:
    """leadingFraction's part in nanoseconds: the digits kept while they fit, times unit / scale
    (in float64, as Go: nanosecond-exact for fractions of an hour)."""
    f, scale = 0, 1.0
    for c in digits:
        if f > (_MAX_NS - 1) // 10:     # (Go stops taking digits once they would overflow)
            break
        f, scale = f * 10 + int(c), scale * 10
    return int(float(f) * (float(unit) / scale)) if f else 0


def parse_do_not_disrupt(value: str) -> tuple[int | None, str]:
    """parseDoNotDisrupt: the duration in nanoseconds, or the error text."""
    ns = parse_duration(value)
    if ns is None or go_duration_error(value):
        return None, f"failed to parse {go_quote(value)} as a duration: {go_duration_error(value) or 'time: invalid duration'}"
    if ns <= 0:
        return None, f"duration {go_quote(value)} must be positive"
    return ns, ""


def do_not_disrupt_active(pod: PodInfo, now: datetime, recorder: ev.Recorder) -> bool:
    """IsDoNotDisruptActive: "true", or a duration not yet elapsed since the pod's startTime (no
    startTime: active); an invalid value is ignored, with an event."""
    value = pod.annotation(DO_NOT_DISRUPT)
    if value is None:
        return False
    if value == "true":
        return True
    ns, err = parse_do_not_disrupt(str(value))
    if ns is None:
        recorder.publish(ev.invalid_do_not_disrupt(pod, err))
        return False
    started = parse_time(pod.start_time)
    if started is None:
        return True
    until = started + timedelta(microseconds=ns // 1000)
    active = now < until
    recorder.publish(ev.do_not_disrupt_until(pod, _go_rfc3339(until)) if active else ev.do_not_disrupt_elapsed(pod))
    return active


def ignored_do_not_disrupt(pod: PodInfo) -> ev.Event | None:
    """The InvalidDoNotDisruptAnnotation event Karpenter publishes for an active pod whose
    do-not-disrupt it cannot read (`"True"`, `"false"`, `"4 hours"`): it ignores the annotation, so
    the pod is protected by nothing of it. None when the value is read (or absent, or the pod not active)."""
    value = pod.annotation(DO_NOT_DISRUPT)
    if value is None or value == "true" or not is_active(pod):
        return None
    ns, err = parse_do_not_disrupt(str(value))
    return ev.invalid_do_not_disrupt(pod, err) if ns is None else None


def is_disruptable(pod: PodInfo, now: datetime, recorder: ev.Recorder) -> bool:
    return not is_active(pod) or not do_not_disrupt_active(pod, now, recorder)


def tolerates_disrupted(tolerations: Any) -> bool:
    """ToleratesDisruptedNoScheduleTaint over a pod's `spec.tolerations` (a pod template's alike): a pod
    tolerating `karpenter.sh/disrupted:NoSchedule` (an `Exists` without a key tolerates every taint) is
    not IsEvictable, so Karpenter never evicts it and pdb.Limits skips its budgets. The one rule the
    pass and lint's `pdb-blocks-karpenter-disruption` read."""
    return bool(tolerations) and DISRUPTED_TAINT.tolerates(tolerations) is None


def _tolerations(pod: PodInfo) -> Any:
    """The pod's spec.tolerations: off a dump's view while its object is not made (the pass's bound
    pods: a stored one's as written, one admitted by its shape its shape's admitted; Karpenter's
    defaults, `inputs._BoundDefaults`, leave them), one list shared by the pods writing them alike."""
    if isinstance(pod, StoredPodInfo) and not pod.obj.decoded:
        return pod.view.tolerations()
    return pod.spec.get("tolerations")


@dataclass(frozen=True, slots=True)
class PodTraits:
    """What disruption reads of a pod that no clock or budget changes, read once per pod and pass
    (`Limits.traits`): every node's verdict in both classes, each method's candidates and each
    simulation ask it again of the same pods. The do-not-disrupt value stays raw: asking whether
    it is active publishes events, every time, as Go's."""

    active: bool                # IsActive
    reschedulable: bool         # IsReschedulable
    evictable: bool             # IsEvictable but for its do-not-disrupt check: active, not tolerating
    #                             the disrupted taint, not a mirror pod
    do_not_disrupt: Any         # the annotation's value (None: none)
    cost: float                 # EvictionCost
    budgets: list[PdbItem]      # its PodDisruptionBudgets (pdb.Limits)


def pod_traits(pod: PodInfo, tolerates_disrupted: bool, budgets: list[PdbItem],
               owned: tuple[bool, bool, bool] | None = None, cost: float | None = None) -> PodTraits:
    """The pod's `PodTraits`; `tolerates_disrupted`: ToleratesDisruptedNoScheduleTaint's answer;
    `owned` and `cost`: its `ownership` and EvictionCost, when worked out already."""
    return traits_of(bool(pod.deletion_timestamp), pod.phase,
                     owned if owned is not None else ownership(pod.owner_references), tolerates_disrupted,
                     pod.annotation(DO_NOT_DISRUPT), _eviction_cost(pod, pod.priority) if cost is None else cost,
                     budgets)


def traits_of(terminating: bool, phase: Any, owned: tuple[bool, bool, bool], tolerates_disrupted: bool,
              do_not_disrupt: Any, cost: float, budgets: list[PdbItem]) -> PodTraits:
    """`PodTraits` of what they are read from: whether the pod is terminating, its phase, its `ownership`,
    ToleratesDisruptedNoScheduleTaint's answer, its do-not-disrupt value, its EvictionCost, its budgets."""
    active = not terminating and phase not in ("Failed", "Succeeded")
    return PodTraits(active, reschedulable_of(terminating, phase, owned), active and not tolerates_disrupted
                     and not owned[0], do_not_disrupt, cost, budgets)


def reschedulable_of(terminating: bool, phase: Any, owned: tuple[bool, bool, bool]) -> bool:
    """IsReschedulable of what it reads: whether the pod is terminating, its phase, its `ownership`."""
    mirror, daemon, stateful = owned
    return (terminating and stateful or not terminating and phase not in ("Failed", "Succeeded")) \
        and not mirror and not daemon


def _workload_key(pod: PodInfo) -> tuple[tuple, tuple]:
    """What `PodTraits` are read from, as a key (pods with equal keys have equal traits), and the
    objects it names by identity (to be the same ones for a hit: the id of one gone may be reused).
    A dump's pod not decoded: the texts of its view (its owner references, tolerations and annotations
    as written: `PodView`), read without its object or a `lazy` attribute; else the values, the shared
    lists (owner references, tolerations: a controller's pods share them) by identity."""
    if isinstance(pod, StoredPodInfo) and not pod.obj.decoded:
        view = pod.view
        meta, spec = view.metadata, view.spec
        labels = meta.labels
        return ((type(pod), pod.namespace, tuple(labels.items()) if labels else (), bytes(meta.ownerReferences),
                 bytes(spec.tolerations), bytes(meta.annotations), spec.priority, meta.deletionTimestamp,
                 pod.phase), ())
    refs, tolerations = pod.owner_references, _tolerations(pod)
    return ((None, pod.namespace, tuple(pod.labels.items()), id(refs), id(tolerations),
             pod.annotation(DO_NOT_DISRUPT), pod.annotation(POD_DELETION_COST), pod.priority,
             pod.deletion_timestamp, pod.phase), (refs, tolerations))


def ownership(refs: Any) -> tuple[bool, bool, bool]:
    """IsOwnedBy a Node (a mirror pod), a DaemonSet, a StatefulSet: any of the owner references `refs`."""
    mirror = daemon = stateful = False
    for ref in refs or ():
        if isinstance(ref, dict):
            owner = (ref.get("apiVersion"), ref.get("kind"))
            mirror = mirror or owner == ("v1", "Node")
            daemon = daemon or owner == ("apps/v1", "DaemonSet")
            stateful = stateful or owner == ("apps/v1", "StatefulSet")
    return mirror, daemon, stateful


@dataclass(frozen=True)
class PdbItem:
    namespace: str
    name: str
    selector: Any
    disruptions_allowed: int
    fully_blocking: bool
    always_evict_unhealthy: bool

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


def _pdb(obj: Mapping[str, Any]) -> PdbItem:
    meta, spec, status = obj.get("metadata") or {}, obj.get("spec") or {}, obj.get("status") or {}
    mu, ma = spec.get("maxUnavailable"), spec.get("minAvailable")
    fully = ((isinstance(mu, int) and not isinstance(mu, bool) and mu == 0) or mu == "0%" or ma == "100%")
    allowed = status.get("disruptionsAllowed")
    return PdbItem(meta.get("namespace") or "default", str(meta.get("name") or ""), parse_selector(spec.get("selector")),
                   allowed if isinstance(allowed, int) else 0, fully,
                   spec.get("unhealthyPodEvictionPolicy") == "AlwaysAllow")


class Limits:
    """pdb.Limits over the cluster's PodDisruptionBudgets (listed by namespace and name)."""

    def __init__(self, pdbs: Sequence[Mapping[str, Any]]) -> None:
        items = []
        for obj in pdbs:
            try:
                items.append(_pdb(obj))
            except SelectorError:
                continue
        self.items = sorted(items, key=lambda p: (p.namespace, p.name))
        # per namespace, its budgets filed by the label pairs their selectors require: a pod reads only
        # the budgets its own labels name, not every budget of its namespace
        self._by_namespace: dict[str, SelectorIndex[PdbItem]] = {}
        for p in self.items:
            self._by_namespace.setdefault(p.namespace, SelectorIndex()).add(p, p.selector)
        # a pod's budgets, by its namespace and labels (a workload's pods share them; the selectors
        # read nothing else)
        self._matched: dict[tuple[str, tuple[tuple[str, str], ...]], list[PdbItem]] = {}
        # a pod's traits, by the pod's identity (the pod kept beside them so the id stays its own),
        # and by what they are read from (`_workload_key`: a workload's pods share one), and whether a
        # list of tolerations tolerates the disrupted taint (a workload's pods share one)
        self._traits: dict[int, tuple[PodInfo, PodTraits]] = {}
        self._by_workload: dict[tuple, tuple[tuple, PodTraits]] = {}
        self._tolerating: dict[int, tuple[Any, bool]] = {}
        # a list of owner references' `ownership` (a controller's pods share one list), and the
        # EvictionCost of a deletion cost's text and a priority
        self._owned: dict[int, tuple[Any, tuple[bool, bool, bool]]] = {}
        self._costs: dict[tuple[Any, Any], float] = {}
        # the same of a dump's pods, by their texts (`_view_traits`); and their two annotations' values
        self._tolerating_text: dict[bytes, bool] = {}
        self._owned_text: dict[bytes, tuple[bool, bool, bool]] = {}
        self._notes_text: dict[bytes, tuple[Any, Any]] = {}

    def matching(self, pod: PodInfo) -> list[PdbItem]:
        if not self._by_namespace.get(pod.namespace):
            return []
        labels = pod.labels
        return self._matching(pod.namespace, tuple(labels.items()), labels)

    def _matching(self, namespace: str, pairs: tuple[tuple[str, str], ...], labels: Mapping[str, str]
                  ) -> list[PdbItem]:
        """`matching` of a pod in `namespace` with `labels` (their `pairs`, in order)."""
        index = self._by_namespace.get(namespace)
        if not index:
            return []
        key = (namespace, pairs)
        found = self._matched.get(key)
        if found is None:
            found = self._matched[key] = [p for p in index.candidates(labels) if p.selector.matches(labels)]
        return found

    def traits(self, pod: PodInfo) -> PodTraits:
        """The pod's `PodTraits`, worked out at its first ask in the pass, once for the pods that
        write alike all they are read from (`_workload_key`)."""
        hit = self._traits.get(id(pod))
        if hit is not None and hit[0] is pod:
            return hit[1]
        key, held = _workload_key(pod)
        try:
            shared = self._by_workload.get(key)
        except TypeError:               # (a value no key can hold: worked out for the pod alone)
            key, shared = None, None
        if shared is not None and (not held or all(a is b for a, b in zip(shared[0], held))):
            traits = shared[1]
        else:
            traits = self._read_traits(pod) if held or key is None else self._view_traits(pod, key)
            if key is not None:
                self._by_workload[key] = (held, traits)
        self._traits[id(pod)] = (pod, traits)
        return traits

    def reschedulable(self, pod: PodInfo) -> bool:
        """Its traits' `reschedulable` (IsReschedulable), off those read already, else off what it
        reads alone: whether the pod is terminating, its phase, its `ownership` (kept by the owner
        references' text, or list)."""
        hit = self._traits.get(id(pod))
        if hit is not None and hit[0] is pod:
            return hit[1].reschedulable
        if isinstance(pod, StoredPodInfo) and not pod.obj.decoded:
            meta = pod.view.metadata
            text = bytes(meta.ownerReferences)
            owned = self._owned_text.get(text)
            if owned is None:
                owned = self._owned_text[text] = ownership(pod.view.owner_references())
            terminating, phase = bool(meta.deletionTimestamp), pod.phase
        else:
            refs = pod.owner_references
            kept = self._owned.get(id(refs))
            if kept is None or kept[0] is not refs:
                kept = self._owned[id(refs)] = (refs, ownership(refs))
            owned, terminating, phase = kept[1], bool(pod.deletion_timestamp), pod.phase
        return reschedulable_of(terminating, phase, owned)

    def _read_traits(self, pod: PodInfo) -> PodTraits:
        """The pod's `PodTraits`, read of the pod (each part kept by what it is read from)."""
        tolerations = _tolerations(pod)
        tolerates = False
        if tolerations:
            seen = self._tolerating.get(id(tolerations))
            if seen is None or seen[0] is not tolerations:
                seen = self._tolerating[id(tolerations)] = (tolerations, tolerates_disrupted(tolerations))
            tolerates = seen[1]
        refs = pod.owner_references
        owned = self._owned.get(id(refs))
        if owned is None or owned[0] is not refs:
            owned = self._owned[id(refs)] = (refs, ownership(refs))
        priority = pod.priority
        text = pod.annotation(POD_DELETION_COST)
        key = (text if text is None or type(text) is str else repr(text),
               priority if type(priority) is int else repr(priority))
        cost = self._costs.get(key)
        if cost is None:
            cost = self._costs[key] = _eviction_cost(pod, priority)
        return pod_traits(pod, tolerates, self.matching(pod), owned[1], cost)

    def _view_traits(self, pod: StoredPodInfo, key: tuple) -> PodTraits:
        """`_read_traits` of a dump's pod not decoded, off its `_workload_key`: each part kept by the
        text it is read from (its tolerations, owner references, annotations as written), so that a
        workload of one pod costs a few lookups more than its key."""
        _, namespace, pairs, refs_text, tolerations_text, notes_text, priority, deleting, phase = key
        view = pod.view
        tolerates = self._tolerating_text.get(tolerations_text)
        if tolerates is None:
            tolerations = view.tolerations()
            tolerates = self._tolerating_text[tolerations_text] = tolerates_disrupted(tolerations)
        owned = self._owned_text.get(refs_text)
        if owned is None:
            owned = self._owned_text[refs_text] = ownership(view.owner_references())
        notes = self._notes_text.get(notes_text)
        if notes is None:
            notes = self._notes_text[notes_text] = (view.annotation(DO_NOT_DISRUPT), view.annotation(POD_DELETION_COST))
        do_not_disrupt, text = notes
        priority = priority if priority is not None else 0          # (`StoredPodInfo.priority`)
        cost_key = (text if text is None or type(text) is str else repr(text), priority)
        cost = self._costs.get(cost_key)
        if cost is None:
            cost = self._costs[cost_key] = _cost_of(text, priority)
        return traits_of(bool(deleting), phase, owned, tolerates, do_not_disrupt, cost,
                         self._matching(namespace, pairs, view.metadata.labels or {}))

    def is_disruptable(self, pod: PodInfo, now: datetime, recorder: ev.Recorder, t: PodTraits | None = None) -> bool:
        """`is_disruptable` off the pod's traits `t` (a pod without the annotation publishes nothing)."""
        t = t if t is not None else self.traits(pod)
        return not t.active or t.do_not_disrupt is None or not do_not_disrupt_active(pod, now, recorder)

    def is_evictable(self, pod: PodInfo, now: datetime, recorder: ev.Recorder, t: PodTraits | None = None) -> bool:
        """IsEvictable: its traits' answer, then no active do-not-disrupt."""
        t = t if t is not None else self.traits(pod)
        return t.evictable and (t.do_not_disrupt is None or not do_not_disrupt_active(pod, now, recorder))

    def _evictable(self, pod: PodInfo, t: PodTraits, now: datetime, recorder: ev.Recorder, fully: bool
                   ) -> tuple[list[str], bool]:
        if not self.is_evictable(pod, now, recorder, t):
            return [], True
        found = t.budgets
        if len(found) > 1:
            return [p.key for p in found], False
        for p in found:
            if p.always_evict_unhealthy and any(isinstance(c, dict) and c.get("type") == "Ready"
                                                and c.get("status") == "False"
                                                for c in pod.status.get("conditions") or ()):
                return [], True
            if (p.fully_blocking if fully else p.disruptions_allowed == 0):
                return [p.key], False
        return [], True

    def can_evict_pods(self, pods: Sequence[PodInfo], now: datetime, recorder: ev.Recorder,
                       traits: Sequence[PodTraits] | None = None) -> tuple[list[str], bool]:
        """CanEvictPods; `traits`: the pods' (`traits`), read already."""
        for pod, t in zip(pods, traits if traits is not None else map(self.traits, pods)):
            keys, ok = self._evictable(pod, t, now, recorder, False)
            if not ok:
                return keys, False
        return [], True

    def is_currently_reschedulable(self, pod: PodInfo, now: datetime, recorder: ev.Recorder) -> bool:
        t = self.traits(pod)
        _, evictable = self._evictable(pod, t, now, recorder, True)
        return t.reschedulable and self.is_disruptable(pod, now, recorder, t) and evictable


def eviction_cost(pod: PodInfo) -> float:
    """EvictionCost: 1 + deletion cost / 2^27 + priority / 2^25, clamped to [-10, 10]."""
    return _eviction_cost(pod, pod.priority)


def _eviction_cost(pod: PodInfo, priority: Any) -> float:
    """`priority`: the pod's (`PodInfo.priority`: 0 without one, as admission leaves a pod)."""
    return _cost_of(pod.annotation(POD_DELETION_COST), priority)


def _cost_of(text: Any, priority: Any) -> float:
    """EvictionCost of a pod whose deletion cost annotation is `text` (None: none) with `priority`."""
    cost = 1.0
    if text is not None:
        try:
            cost += float(str(text)) / math.pow(2, 27.0)
        except ValueError:
            pass
    if isinstance(priority, int) and not isinstance(priority, bool):
        cost += float(priority) / math.pow(2, 25)
    return min(max(cost, -10.0), 10.0)


def lifetime_remaining(now: datetime, node_claim: Mapping[str, Any]) -> float:
    """LifetimeRemaining: the share of the NodeClaim's expireAfter still ahead (1 with `Never`)."""
    expire = ((node_claim.get("spec") or {}).get("expireAfter"))
    ns = parse_duration(str(expire)) if expire is not None and expire != "Never" else None
    if ns is None:
        return 1.0
    created = parse_time((node_claim.get("metadata") or {}).get("creationTimestamp"))
    age = (now - created).total_seconds() if created is not None else 0.0
    total = ns / 1e9
    if total == 0:
        return 1.0 if age <= 0 else 0.0
    return min(max((total - age) / total, 0.0), 1.0)



def under_consolidate_after(node_pool: Any, node_claim: Mapping[str, Any] | None, now: datetime) -> bool:
    """IsUnderConsolidateAfter (v1.14): the NodePool's consolidateAfter (not Never, not 0) has not
    passed since the NodeClaim's last pod event (else since it was Initialized)."""
    if node_pool is None or node_claim is None:
        return False
    after = node_pool.spec.disruption.consolidate_after
    ns = parse_duration(str(after)) if after != "Never" else None
    if not ns:
        return False
    status = node_claim.get("status") or {}
    initialized = next((c for c in status.get("conditions") or ()
                        if isinstance(c, dict) and c.get("type") == "Initialized"), None)
    if initialized is None or initialized.get("status") != "True":
        return False
    since = parse_time(status.get("lastPodEventTime")) or parse_time(initialized.get("lastTransitionTime"))
    if since is None:           # Go's zero time: long past
        return False
    return (now - since).total_seconds() * 1e9 < ns
