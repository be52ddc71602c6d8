"""VolumeBinding: a pod may only go where every PersistentVolumeClaim it uses can be satisfied: a
bound claim by its volume's node affinity, a WaitForFirstConsumer claim by a free fitting volume
or a provisioning class, any other unbound claim nowhere. "Bound" is the binder's isPVCFullyBound
(volumeName and the bind-completed annotation; docs/internals/plugins.md); scoring needs the
alpha StorageCapacityScoring gate, else PreScore skips."""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Mapping

from kexplain.apimachinery.display import format_expression, format_quantity
from kexplain.framework.interface import (Explainer, FilterPlugin, PreBindPlugin, PreFilterPlugin, PreScorePlugin,
                                          ReservePlugin, ScorePlugin, SignPlugin)
from kexplain.framework import signers
from kexplain.framework.status import SKIP, SUCCESS, Code, Status
from kexplain.model.labels import SelectorError, parse_selector
from kexplain.plugins import names
from kexplain.plugins.helper.normalize_score import go_div
from kexplain.plugins.helper.unbound_claims import unbound_claims
from kexplain.apimachinery.labels import ANN_SELECTED_NODE
from kexplain.plugins.volumes import (
    ANN_BIND_COMPLETED, CLAIM_LOST, MIGRATION_ON, NOT_SUPPORTED_PROVISIONER,
    PVC_RESOURCE, VOLUME_AVAILABLE, WAIT_FOR_FIRST_CONSUMER, Obj, TranslationError, VolumeIndex,
    access_modes, affinity_selector, annotations, attributes_class, binding_mode, claim_class,
    claim_of_volume, ephemeral_owner_error, is_fully_bound, match_topology_terms,
    migrated_plugins, meta, name_of, namespace_of, not_found, pod_volumes, pv_plugin,
    selector_admits, spec, storage_request, translate_pv, volume_capacity, volume_class,
    volume_index, volume_mode,
)

ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NODE_CONFLICT = "node(s) didn't match PersistentVolume's node affinity"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
ERR_REASON_PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
ERR_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"
# PreFilter's messages about one claim (a missing one is `volumes.not_found`'s text).
ERR_EPHEMERAL_PENDING = 'waiting for ephemeral volume controller to create the persistentvolumeclaim "{}"'
ERR_CLAIM_LOST = 'persistentvolumeclaim "{}" bound to non-existent persistentvolume "{}"'
ERR_CLAIM_DELETING = 'persistentvolumeclaim "{}" is being deleted'

MAX_UTILIZATION = 100
MAX_CUSTOM_PRIORITY_SCORE = 10
MAX_NODE_SCORE = 100


@dataclass(frozen=True)
class Candidate:
    """A volume of the claim's class that passes every check not depending on the node."""

    pv: Obj
    capacity: Fraction
    prebound: bool   # its claimRef already names this claim


def affinity_guard(pv: Obj) -> list[tuple[str, frozenset[str]]] | None:
    """A necessary condition for the volume's node affinity to admit a node: one `key In values` per term;
    None when there is no such shortcut (no required affinity, or a term without an `In`)."""
    required = (spec(pv).get("nodeAffinity") or {}).get("required")
    if required is None:
        return None
    guards: list[tuple[str, frozenset[str]]] = []
    for term in required.get("nodeSelectorTerms") or ():
        exprs = term.get("matchExpressions") or ()
        if not exprs and not term.get("matchFields"):
            continue   # an empty term selects nothing
        first_in = next((e for e in exprs if e.get("operator") == "In"), None)
        if first_in is None:
            return None
        guards.append((str(first_in.get("key") or ""),
                       frozenset(str(v) for v in first_in.get("values") or ())))
    return guards


@dataclass
class DelayedClaim:
    """An unbound WaitForFirstConsumer claim and the volumes that could take it, indexed
    by the node labels their affinity needs so that a node only looks at its own."""

    pvc: Obj
    request: Fraction
    candidates: list[Candidate]
    _always: list[int] = field(default_factory=list, repr=False)
    _by_label: dict[str, dict[str, list[int]]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for i, cand in enumerate(self.candidates):
            guards = None if cand.prebound else affinity_guard(cand.pv)
            if guards is None:
                self._always.append(i)
                continue
            for key, values in guards:
                by_value = self._by_label.setdefault(key, {})
                for v in values:
                    by_value.setdefault(v, []).append(i)

    def candidates_for(self, node_labels: Mapping[str, str]) -> list[Candidate]:
        """The candidates a node can possibly take, in their original order."""
        if not self._by_label:
            return self.candidates
        picked = set(self._always)
        for key, by_value in self._by_label.items():
            value = node_labels.get(key)
            if value is not None:
                picked.update(by_value.get(value, ()))
        return [self.candidates[i] for i in sorted(picked)]


@dataclass
class PodVolumes:
    """What Filter found for one node: volumes to bind and claims to provision."""

    static_bindings: list[tuple[Obj, Obj]] = field(default_factory=list)  # (pvc, pv)
    dynamic_provisions: list[Obj] = field(default_factory=list)


@dataclass
class VolumeBindingState:
    """PreFilter's sorting of the pod's claims, shared by every node."""

    bound_claims: list[Obj] = field(default_factory=list)
    delayed_claims: list[DelayedClaim] = field(default_factory=list)
    pod_volumes_by_node: dict[str, PodVolumes] = field(default_factory=dict)
    has_static_bindings: bool = False

    def clone(self) -> "VolumeBindingState":
        return self  # the scheduler shares it between clones too


def claim_is_prebound_to(pv: Obj, pvc: Obj) -> bool:
    """IsVolumeBoundToClaim: the volume's claimRef names this claim (and its UID, if set)."""
    ref = spec(pv).get("claimRef")
    if not isinstance(ref, dict):
        return False
    if (ref.get("name") or "") != name_of(pvc) or (ref.get("namespace") or "") != namespace_of(pvc):
        return False
    uid = ref.get("uid") or ""
    return not uid or uid == (meta(pvc).get("uid") or "")


def candidates_for(pvc: Obj, volumes: list[Obj]) -> list[Candidate]:
    """FindMatchingVolume's node-independent checks, in its order, for one claim."""
    request = storage_request(pvc)
    modes = access_modes(pvc)
    claim_vac = attributes_class(pvc)
    cls = claim_class(pvc)
    raw_selector = spec(pvc).get("selector")
    try:
        selector = parse_selector(raw_selector) if raw_selector is not None else None
    except SelectorError:
        selector = None
        bad_selector = True
    else:
        bad_selector = False
    out: list[Candidate] = []
    for pv in volumes:
        prebound = claim_is_prebound_to(pv, pvc)
        if spec(pv).get("claimRef") is not None and not prebound:
            continue
        capacity = volume_capacity(pv)
        if capacity < request:
            continue
        if volume_mode(pvc) != volume_mode(pv):
            continue
        if claim_vac != attributes_class(pv):
            continue
        if meta(pv).get("deletionTimestamp") is not None:
            continue
        if not prebound:
            if ((pv.get("status") or {}).get("phase") or "Pending") != VOLUME_AVAILABLE:
                continue
            if bad_selector:
                continue
            if selector is not None:
                pv_labels = {str(k): str(v) for k, v in (meta(pv).get("labels") or {}).items()}
                if not selector.matches(pv_labels):
                    continue
            if volume_class(pv) != cls:
                continue
            pv_modes = set(access_modes(pv))
            if any(m not in pv_modes for m in modes):
                continue
        out.append(Candidate(pv, capacity, prebound))
    return out


class VolumeBinding(PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin,
                    ReservePlugin, PreBindPlugin, Explainer, SignPlugin):
    name = names.VOLUME_BINDING

    def sign_pod(self, pod) -> signers.Fragments | None:
        """The pod's volume sources."""
        return [(signers.VOLUMES, signers.volumes(pod))]

    def __init__(self, args, handle) -> None:
        super().__init__(args, handle)
        self.shape = [(int(p.get("utilization", 0)), int(p.get("score", 0)) *
                       (MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE))
                      for p in self.args.get("shape") or ()]

    @property
    def index(self) -> VolumeIndex:
        return volume_index(self.handle.snapshot)

    # -- PreFilter -----------------------------------------------------------------
    def _claims_problem(self, pod) -> tuple[bool, str | None]:
        """Whether the pod uses claims at all, and why one of them cannot be used now."""
        idx = self.index
        has_claims = False
        for vol in pod_volumes(pod):
            ref = claim_of_volume(pod, vol)
            if ref is None:
                continue
            has_claims = True
            claim, ephemeral = ref
            pvc = idx.pvc(pod.namespace, claim)
            if pvc is None:
                if ephemeral:
                    return True, ERR_EPHEMERAL_PENDING.format(claim)
                return True, not_found(PVC_RESOURCE, claim)
            if (pvc.get("status") or {}).get("phase") == CLAIM_LOST:
                return True, ERR_CLAIM_LOST.format(name_of(pvc), spec(pvc).get("volumeName") or "")
            if meta(pvc).get("deletionTimestamp") is not None:
                return True, ERR_CLAIM_DELETING.format(name_of(pvc))
            if ephemeral:
                err = ephemeral_owner_error(pod, pvc)
                if err:
                    return True, err
        return has_claims, None

    def pre_filter(self, state, pod, nodes):
        has_claims, problem = self._claims_problem(pod)
        if problem is not None:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (problem,))
        if not has_claims:
            state.write(self.name, VolumeBindingState())
            return None, SKIP
        idx = self.index
        bound: list[Obj] = []
        delayed: list[Obj] = []
        immediate = False
        for vol in pod_volumes(pod):
            ref = claim_of_volume(pod, vol)
            if ref is None:
                continue
            pvc = idx.pvc(pod.namespace, ref[0])
            if pvc is None:   # cannot happen after _claims_problem
                return None, Status.error(f'error getting PVC "{pod.namespace}/{ref[0]}"')
            if is_fully_bound(pvc):
                bound.append(pvc)
                continue
            delay, err = self._delay_binding(pvc)
            if err:
                return None, Status.error(err)
            if delay and not spec(pvc).get("volumeName"):
                delayed.append(pvc)
            else:
                immediate = True
        if immediate:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_UNBOUND_IMMEDIATE,))
        delayed_claims = [DelayedClaim(pvc, storage_request(pvc),
                                       candidates_for(pvc, idx.volumes_of_class(claim_class(pvc))))
                          for pvc in delayed]
        state.write(self.name, VolumeBindingState(bound, delayed_claims))
        return None, SUCCESS

    def _delay_binding(self, pvc: Obj) -> tuple[bool, str | None]:
        """IsDelayBindingMode: the claim's class exists and waits for the first consumer."""
        cls_name = claim_class(pvc)
        if not cls_name:
            return False, None
        sc = self.index.storage_class(cls_name)
        if sc is None:
            return False, None
        mode = binding_mode(sc)
        if mode is None:
            return False, f'VolumeBindingMode not set for StorageClass "{cls_name}"'
        return mode == WAIT_FOR_FIRST_CONSUMER, None

    # -- Filter --------------------------------------------------------------------
    def filter(self, state, pod, node_info) -> Status:
        st: VolumeBindingState | None = state.get(self.name)
        if st is None:
            return Status.error(f'error reading "{self.name}" from cycleState: not found')
        node = node_info.node
        reasons: list[str] = []
        pod_vols = PodVolumes()
        try:
            bound_ok, pvs_found = self._check_bound(st.bound_claims, node)
            unbound_ok = self._check_unbound(st.delayed_claims, node, pod_vols)
        except TranslationError as err:
            return Status.error(str(err))
        except _ProvisionError as err:
            return Status.error(str(err))
        if not bound_ok:
            reasons.append(ERR_REASON_NODE_CONFLICT)
        if not unbound_ok:
            reasons.append(ERR_REASON_BIND_CONFLICT)
        if not pvs_found:
            reasons.append(ERR_REASON_PV_NOT_EXIST)
        if reasons:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, tuple(reasons))
        st.pod_volumes_by_node[node.name] = pod_vols
        st.has_static_bindings = st.has_static_bindings or bool(pod_vols.static_bindings)
        return SUCCESS

    def _check_bound(self, claims: list[Obj], node) -> tuple[bool, bool]:
        """checkBoundClaims: (node affinity satisfied, every bound volume exists), stopping at the first miss.
        Only the claim's volumeName is read: neither its phase nor the volume's claimRef."""
        if not claims:
            return True, True
        idx = self.index
        migrated = migrated_plugins(idx.csinode(node.name))
        for pvc in claims:
            pv = idx.pv(spec(pvc).get("volumeName") or "")
            if pv is None:
                return True, False
            if not self._bound_volume_admits(pv, node, migrated):
                return False, True
        return True, True

    def _bound_volume_admits(self, pv: Obj, node, migrated: frozenset[str]) -> bool:
        """CheckNodeAffinity of a bound claim's volume, seen through CSI migration when its
        in-tree plugin is migrated on the node (tryTranslatePVToCSI)."""
        plugin = pv_plugin(pv)
        if plugin is not None and plugin.plugin in MIGRATION_ON and plugin.plugin in migrated:
            try:
                translated = translate_pv(plugin, pv)
            except TranslationError as err:
                raise TranslationError(f"could not translate pv: {err}") from None
            return selector_admits(affinity_selector(translated), node.labels)
        return self.index.pv_admits(pv, node.labels)

    def _check_unbound(self, claims: list[DelayedClaim], node, out: PodVolumes) -> bool:
        """Whether every waiting claim finds a volume on, or can be provisioned for, the node."""
        if not claims:
            return True
        to_match: list[DelayedClaim] = []
        to_provision: list[Obj] = []
        for dc in claims:
            selected = annotations(dc.pvc).get(ANN_SELECTED_NODE)
            if selected is not None:
                if selected != node.name:
                    return False
                to_provision.append(dc.pvc)
            else:
                to_match.append(dc)
        satisfied = True
        if to_match:
            satisfied, unmatched = self._match_volumes(to_match, node, out)
            to_provision.extend(unmatched)
        if to_provision:
            satisfied = self._can_provision(to_provision, node, out)
        return satisfied

    def _match_volumes(self, claims: list[DelayedClaim], node,
                       out: PodVolumes) -> tuple[bool, list[Obj]]:
        """Smallest fitting free volume per claim, claims by increasing request."""
        idx = self.index
        chosen: set[int] = set()
        unmatched: list[Obj] = []
        found = True
        for dc in sorted(claims, key=lambda c: c.request):
            best: Candidate | None = None
            for cand in dc.candidates_for(node.labels):
                if id(cand.pv) in chosen:
                    continue
                admits = idx.pv_admits(cand.pv, node.labels)
                if cand.prebound:
                    best = cand if admits else None
                    break
                if not admits:
                    continue
                if best is None or best.capacity > cand.capacity:
                    best = cand
            if best is None:
                unmatched.append(dc.pvc)
                found = False
                continue
            chosen.add(id(best.pv))
            out.static_bindings.append((dc.pvc, best.pv))
        return found, unmatched

    def _can_provision(self, claims: list[Obj], node, out: PodVolumes) -> bool:
        """Every claim's class has a provisioner whose allowed topologies include the node."""
        idx = self.index
        provisions: list[Obj] = []
        for pvc in claims:
            cls_name = claim_class(pvc)
            if not cls_name:
                raise _ProvisionError(f'no class for claim "{namespace_of(pvc)}/{name_of(pvc)}"')
            sc = idx.storage_class(cls_name)
            if sc is None:
                raise _ProvisionError(f'failed to find storage class "{cls_name}"')
            provisioner = sc.get("provisioner") or ""
            if not provisioner or provisioner == NOT_SUPPORTED_PROVISIONER:
                return False
            if not match_topology_terms(sc.get("allowedTopologies"), node.labels):
                return False
            # Storage capacity: only CSIDrivers that opt in are checked, and scenarios
            # carry neither CSIDriver nor CSIStorageCapacity objects.
            provisions.append(pvc)
        out.dynamic_provisions.extend(provisions)
        return True

    # -- PreScore / Score ----------------------------------------------------------
    def pre_score(self, state, pod, nodes) -> Status:
        if not self.shape:
            return SKIP   # StorageCapacityScoring is off: no scorer
        if state.get(self.name) is None:
            return Status.error(f'error reading "{self.name}" from cycleState: not found')
        return SUCCESS

    def score(self, state, pod, node_info) -> int:
        st: VolumeBindingState | None = state.get(self.name)
        if not self.shape or st is None:
            return 0
        pv = st.pod_volumes_by_node.get(node_info.name)
        if pv is None:
            return 0
        by_class: dict[str, list[int]] = {}
        for pvc, vol in pv.static_bindings:
            acc = by_class.setdefault(volume_class(vol), [0, 0])
            acc[0] += _ceil(storage_request(pvc))
            acc[1] += _ceil(volume_capacity(vol))
        # Dynamic provisions count only with a CSIStorageCapacity, which scenarios lack.
        if not by_class:
            return 0
        total = sum(self._class_score(req, cap) for req, cap in by_class.values())
        return _round_half_away(Fraction(total, len(by_class)))

    def _class_score(self, requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return self._broken_linear(MAX_UTILIZATION)
        return self._broken_linear(go_div(requested * MAX_UTILIZATION, capacity))

    def _broken_linear(self, p: int) -> int:
        shape = self.shape
        for i, (util, score) in enumerate(shape):
            if p <= util:
                if i == 0:
                    return shape[0][1]
                pu, ps = shape[i - 1]
                return ps + go_div((score - ps) * (p - pu), util - pu)
        return shape[-1][1]

    # -- explanation (kexplain) ----------------------------------------------------
    def rejection(self, state, pod) -> dict | None:
        """The claims PreFilter stopped at, each with why it is missing or unbound (`helper.unbound_claims`):
        what "pod has unbound immediate PersistentVolumeClaims" does not say."""
        idx = self.index
        claims = unbound_claims(idx, pod, lambda pvc: candidates_for(pvc, idx.volumes_of_class(claim_class(pvc))))
        return {"claims": claims} if claims else None

    def explain(self, state, pod, node_info) -> dict | None:
        """Per claim of the pod: its phase, class and binding mode, a named volume's binding and node
        affinity (as Filter checks it), or a waiting claim's candidate volumes and provisioning."""
        idx = self.index
        labels = node_info.node.labels
        st: VolumeBindingState | None = state.get(self.name)
        waiting = {id(dc.pvc): dc for dc in st.delayed_claims} if st is not None else {}
        claims = []
        for vol in pod_volumes(pod):
            ref = claim_of_volume(pod, vol)
            if ref is None:
                continue
            entry: dict = {"volume": vol.get("name") or "", "claim": f"{pod.namespace}/{ref[0]}"}
            claims.append(entry)
            pvc = idx.pvc(pod.namespace, ref[0])
            if pvc is None:
                entry["found"] = False
                continue
            cls_name = claim_class(pvc)
            sc = idx.storage_class(cls_name) if cls_name else None
            entry.update(found=True, phase=(pvc.get("status") or {}).get("phase") or "Pending",
                         storageClass=cls_name or None, bindingMode=binding_mode(sc) if sc is not None else None,
                         request=format_quantity("storage", _ceil(storage_request(pvc))))
            if cls_name and sc is None:
                entry["classExists"] = False
            pv_name = spec(pvc).get("volumeName") or ""
            if pv_name:
                entry.update(self._named_volume_facts(pvc, pv_name, node_info.node))
                continue
            dc = waiting.get(id(pvc))
            if dc is not None:
                here = [name_of(c.pv) for c in dc.candidates_for(labels) if idx.pv_admits(c.pv, labels)]
                entry.update(availableVolumes=len(dc.candidates), volumesForNode=here)
            if sc is not None:
                entry.update(provisioner=sc.get("provisioner") or "",
                             classAllowsNode=match_topology_terms(sc.get("allowedTopologies"), labels))
        return {"claims": claims} if claims else None

    def _named_volume_facts(self, pvc: Obj, pv_name: str, node) -> dict:
        """A claim naming a volume: `bindCompleted` (isPVCFullyBound: only then `boundVolume` and Filter's
        check; else pre-bound, an unbound Immediate claim), with the volume's claimRef and node affinity
        to say what a hand-written binding lacks."""
        idx = self.index
        pv = idx.pv(pv_name)
        completed = ANN_BIND_COMPLETED in annotations(pvc)
        out: dict = {"volumeName": pv_name, "bindCompleted": completed, "volumeExists": pv is not None}
        if completed:
            out["boundVolume"] = pv_name
        if pv is None:
            return out
        ref = spec(pv).get("claimRef")
        if isinstance(ref, dict):
            out["volumeClaimRef"] = {k: str(ref[k]) for k in ("namespace", "name", "uid") if ref.get(k)}
        else:
            out["volumeClaimRef"] = None
        out["claimRefMatches"] = claim_is_prebound_to(pv, pvc)
        out["volumeNodeAffinity"] = node_affinity_text(pv)
        try:
            out["volumeAdmitsNode"] = self._bound_volume_admits(
                pv, node, migrated_plugins(idx.csinode(node.name)))
        except TranslationError as err:
            out["volumeError"] = str(err)
        return out


def node_affinity_text(pv: Obj) -> str | None:
    """A volume's required node affinity in one line (terms joined by "or"), None without one."""
    required = (spec(pv).get("nodeAffinity") or {}).get("required")
    if not isinstance(required, dict):
        return None
    terms = [", ".join(format_expression(dict(e)) for e in t.get("matchExpressions") or ())
             for t in required.get("nodeSelectorTerms") or ()]
    return " or ".join(f"({t})" if len(terms) > 1 else t for t in terms if t) or None


class _ProvisionError(Exception):
    """An internal error of the provisioning check (a claim without a usable class)."""


def _ceil(q: Fraction) -> int:
    return -((-q.numerator) // q.denominator)


def _round_half_away(x: Fraction) -> int:
    """math.Round: halves away from zero."""
    n = abs(x)
    r = int(n + Fraction(1, 2))
    return r if x >= 0 else -r


__all__ = ["VolumeBinding", "ERR_REASON_BIND_CONFLICT", "ERR_REASON_NODE_CONFLICT",
           "ERR_REASON_NOT_ENOUGH_SPACE", "ERR_REASON_PV_NOT_EXIST", "ERR_UNBOUND_IMMEDIATE"]
