"""VolumeRestrictions: some volumes cannot be shared: an inline GCE PD, EBS volume, RBD image or
iSCSI target in use on a node (unless read-only on both sides; EBS not even then), or a
ReadWriteOncePod claim in use anywhere, keeps the pod out."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from kexplain.framework.interface import Explainer, FilterPlugin, PreFilterExtensions, PreFilterPlugin, SignPlugin
from kexplain.framework import signers
from kexplain.framework.status import SKIP, SUCCESS, Code, Status
from kexplain.plugins import names
from kexplain.plugins.helper.explain_memo import ExplainMemo
from kexplain.plugins.helper.unbound_claims import MISSING, unbound_claims
from kexplain.plugins.volumes import PVC_RESOURCE, READ_WRITE_ONCE_POD, access_modes, not_found, pod_volumes, volume_index

ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT = (
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode "
    "already in-use by another pod")
# The ReadWriteOncePod reason before 1.34 (the same rule, older words).
ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT_OLD = (
    "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode")
RWOP_REASON_REWORDED_SINCE = "1.34"

PRE_FILTER_STATE_KEY = "PreFilterVolumeRestrictions"
USED_PVCS_KEY = "VolumeRestrictions/usedPVCs"
RESTRICTED_KEY = "VolumeRestrictions/restrictedVolumes"
EXPLAIN_STATE_KEY = "ExplainVolumeRestrictions"      # an `ExplainMemo` of `ClaimUsers`
ClaimUsers = tuple[tuple[str, tuple[str, ...]], ...]     # (claim, its users as "ns/name (on node)")

# Volume sources that cannot be shared between nodes.
RESTRICTED_SOURCES = ("gcePersistentDisk", "awsElasticBlockStore", "rbd", "iscsi")
DEFAULT_RBD_POOL = "rbd"


@dataclass
class VolumeRestrictionsState:
    """The pod's ReadWriteOncePod claim names and how many scheduled pods use them."""

    rwop_claims: frozenset[str]
    conflicting_refs: int

    def clone(self) -> "VolumeRestrictionsState":
        return VolumeRestrictionsState(self.rwop_claims, self.conflicting_refs)

    def update_with_pod(self, other, sign: int) -> None:
        # Claims are matched by name only, whatever the other pod's namespace.
        n = sum(1 for v in pod_volumes(other)
                if isinstance(v.get("persistentVolumeClaim"), dict)
                and (v["persistentVolumeClaim"].get("claimName") or "") in self.rwop_claims)
        self.conflicting_refs += sign * n


def needs_restrictions_check(vol: Mapping[str, Any]) -> bool:
    return any(isinstance(vol.get(s), dict) for s in RESTRICTED_SOURCES)


def _overlap(a: list, b: list) -> bool:
    return bool(set(a or ()) & set(b or ()))


def volumes_conflict(vol: Mapping[str, Any], existing: Mapping[str, Any]) -> bool:
    """Whether two pod volumes name the same unshareable disk."""
    gce, egce = vol.get("gcePersistentDisk"), existing.get("gcePersistentDisk")
    if isinstance(gce, dict) and isinstance(egce, dict):
        if (gce.get("pdName") or "") == (egce.get("pdName") or "") and not (
                gce.get("readOnly") and egce.get("readOnly")):
            return True
    ebs, eebs = vol.get("awsElasticBlockStore"), existing.get("awsElasticBlockStore")
    if isinstance(ebs, dict) and isinstance(eebs, dict):
        if (ebs.get("volumeID") or "") == (eebs.get("volumeID") or ""):
            return True
    iscsi, eiscsi = vol.get("iscsi"), existing.get("iscsi")
    if isinstance(iscsi, dict) and isinstance(eiscsi, dict):
        if (iscsi.get("iqn") or "") == (eiscsi.get("iqn") or "") and not (
                iscsi.get("readOnly") and eiscsi.get("readOnly")):
            return True
    rbd, erbd = vol.get("rbd"), existing.get("rbd")
    if isinstance(rbd, dict) and isinstance(erbd, dict):
        if (_overlap(rbd.get("monitors"), erbd.get("monitors"))
                and (rbd.get("pool") or DEFAULT_RBD_POOL) == (erbd.get("pool") or DEFAULT_RBD_POOL)
                and (rbd.get("image") or "") == (erbd.get("image") or "")
                and not (rbd.get("readOnly") and erbd.get("readOnly"))):
            return True
    return False


_IDENTITY = {"gcePersistentDisk": "pdName", "awsElasticBlockStore": "volumeID", "iscsi": "iqn", "rbd": "image"}

Keyed = tuple[tuple[str, str], Mapping[str, Any]]


def restricted_volumes(pod) -> tuple[Keyed, ...]:
    """The pod's volumes that could conflict with another pod's, each with the (source,
    disk) pair two volumes must share to conflict at all."""
    out = []
    for v in pod_volumes(pod):
        for source in RESTRICTED_SOURCES:
            src = v.get(source)
            if isinstance(src, dict):
                out.append(((source, str(src.get(_IDENTITY[source]) or "")), v))
    return tuple(out)


def _used_after_bind(old: frozenset[str], new: Any, pod: Any, before: Any, after: Any) -> frozenset[str]:
    """The claims in use after `pod` is bound: its own join them."""
    return old | {f"{pod.namespace}/{claim}" for claim in pod.pvc_names} if pod.pvc_names else old


class VolumeRestrictions(PreFilterPlugin, PreFilterExtensions, FilterPlugin, Explainer, SignPlugin):
    name = names.VOLUME_RESTRICTIONS

    def sign_pod(self, pod) -> signers.Fragments | None:
        """The pod's volume sources."""
        return [(signers.VOLUMES, signers.volumes(pod))]

    def __init__(self, args, handle) -> None:
        super().__init__(args, handle)
        self._rwop_conflict = Status(Code.UNSCHEDULABLE, (
            ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT if self.kube.since(RWOP_REASON_REWORDED_SINCE)
            else ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT_OLD,))

    def _used_pvcs(self) -> frozenset[str]:
        """`namespace/claim` of every claim some scheduled pod uses (the snapshot's usedPVCSet)."""
        snap = self.handle.snapshot
        return snap.cached(USED_PVCS_KEY, lambda: frozenset(
            key for ni in snap.node_infos for key in ni.pvc_ref_counts), _used_after_bind)

    def _restricted(self, pod) -> tuple[Keyed, ...]:
        """restricted_volumes, computed once per scheduled pod."""
        cache: dict = self.handle.snapshot.cached(RESTRICTED_KEY, dict)
        key = (pod.uid, pod.namespace, pod.name)
        if key not in cache:
            cache[key] = restricted_volumes(pod)
        return cache[key]

    def pre_filter(self, state, pod, nodes):
        needs_check = any(needs_restrictions_check(v) for v in pod_volumes(pod))
        idx = volume_index(self.handle.snapshot)
        rwop: set[str] = set()
        for vol in pod_volumes(pod):
            ref = vol.get("persistentVolumeClaim")
            if not isinstance(ref, dict):
                continue
            claim = ref.get("claimName") or ""
            pvc = idx.pvc(pod.namespace, claim)
            if pvc is None:
                return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (not_found(PVC_RESOURCE, claim),))
            if READ_WRITE_ONCE_POD in access_modes(pvc):
                rwop.add(claim)
        used = self._used_pvcs()
        conflicts = sum(1 for c in rwop if f"{pod.namespace}/{c}" in used)
        if not needs_check and conflicts == 0:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, VolumeRestrictionsState(frozenset(rwop), conflicts))
        state.write(EXPLAIN_STATE_KEY, ExplainMemo())
        return None, SUCCESS

    def add_pod(self, state, pod, other, node_info) -> Status:
        st: VolumeRestrictionsState | None = state.get(PRE_FILTER_STATE_KEY)
        if st is None:
            return Status.error(f'cannot read "{PRE_FILTER_STATE_KEY}" from cycleState')
        st.update_with_pod(other, 1)
        return SUCCESS

    def remove_pod(self, state, pod, other, node_info) -> Status:
        st: VolumeRestrictionsState | None = state.get(PRE_FILTER_STATE_KEY)
        if st is None:
            return Status.error(f'cannot read "{PRE_FILTER_STATE_KEY}" from cycleState')
        st.update_with_pod(other, -1)
        return SUCCESS

    def filter(self, state, pod, node_info) -> Status:
        mine = restricted_volumes(pod)
        if mine:
            keys = {k for k, _ in mine}
            for other in node_info.pods:
                for key, ev in self._restricted(other):
                    if key in keys and any(volumes_conflict(v, ev) for k, v in mine if k == key):
                        return Status(Code.UNSCHEDULABLE, (ERR_REASON_DISK_CONFLICT,))
        st: VolumeRestrictionsState | None = state.get(PRE_FILTER_STATE_KEY)
        if st is None:
            return Status.error(f'cannot read "{PRE_FILTER_STATE_KEY}" from cycleState')
        if st.conflicting_refs > 0:
            return self._rwop_conflict
        return SUCCESS

    def _claim_users(self, state, st: VolumeRestrictionsState, namespace: str) -> ClaimUsers:
        """The scheduled pods using each of the pod's ReadWriteOncePod claims: the same for
        every node, so found once per cycle (PreFilter's `ExplainMemo`), not once per node."""
        def find() -> ClaimUsers:
            users: dict[str, list[str]] = {c: [] for c in sorted(st.rwop_claims)}
            for ni in self.handle.snapshot.node_infos:
                for other in ni.pods:
                    if other.namespace != namespace:
                        continue
                    for claim in other.pvc_names:
                        if claim in users:
                            users[claim].append(f"{other.key} (on {ni.name})")
            return tuple((c, tuple(by)) for c, by in users.items())
        memo: ExplainMemo[ClaimUsers] | None = state.get(EXPLAIN_STATE_KEY)
        return memo.get(find) if memo is not None else find()

    def rejection(self, state, pod) -> dict | None:
        """The claims of the pod that are not in the input, which its PreFilter stops at
        (`persistentvolumeclaim "x" not found` names one; this names each, with its volume)."""
        claims = [c for c in unbound_claims(volume_index(self.handle.snapshot), pod, lambda pvc: ())
                  if c["cause"] == MISSING]
        return {"claims": claims} if claims else None

    def explain(self, state, pod, node_info) -> dict | None:
        """The pod's ReadWriteOncePod claims and the scheduled pods using them; the pods on the
        node using one of the pod's unshareable disks."""
        facts: dict[str, Any] = {}
        st: VolumeRestrictionsState | None = state.get(PRE_FILTER_STATE_KEY)
        if st is not None and st.rwop_claims:
            users = self._claim_users(state, st, pod.namespace)
            facts["readWriteOncePod"] = [{"claim": f"{pod.namespace}/{c}", "usedBy": list(by)} for c, by in users]
        mine = restricted_volumes(pod)
        if mine:
            conflicts = []
            for other in node_info.pods:
                for key, ev in self._restricted(other):
                    for k, v in mine:
                        if k == key and volumes_conflict(v, ev):
                            conflicts.append({"volume": v.get("name") or "", "source": key[0], "disk": key[1],
                                              "pod": other.key})
            facts["diskConflicts"] = conflicts
        return facts or None
