"""A live pod's stored Workload, when Kueue admitted (or holds) the job that made it: a Job's, a
JobSet's, a RayJob's, ... pod carries no queue-name label, yet Kueue decided for it. Read from the
pod alone, as Kueue's own indexes read it: the `kueue.x-k8s.io/workload` annotation Kueue sets in
the templates of a job it starts (pkg/controller/jobframework getPodSetsInfoFromStatus), the
prebuilt-workload label (LeaderWorkerSet, pod groups), then the pod's owner chain: its
ownerReferences (followed through the owners among the objects read), and the well-known labels
each operator puts on its pods, matched to a Workload's controller ownerReference (kind, name, uid
when both carry one). Parents need not be read: a live read lists no Job, JobSet nor RayCluster."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from kexplain.kueue.objects import Objects, kind_of, meta_of, of_kinds

WORKLOAD_ANNOTATION = "kueue.x-k8s.io/workload"             # kueue.WorkloadAnnotation
PREBUILT_LABEL = "kueue.x-k8s.io/prebuilt-workload-name"    # constants.PrebuiltWorkloadAnnotation (a label on pods)
POD_SET_LABEL = "kueue.x-k8s.io/podset"                   # constants.PodSetLabel, on the pods Kueue starts
COMPONENT_INDEX = "kueue.x-k8s.io/component-workload-index"   # a LeaderWorkerSet group's Workload
LWS_GROUP_INDEX = "leaderworkerset.sigs.k8s.io/group-index"
KUBEFLOW = ("PyTorchJob", "TFJob", "XGBoostJob", "PaddleJob", "JAXJob", "MPIJob")
RAY_CRD, RAY_CR_NAME = "ray.io/originated-from-crd", "ray.io/originated-from-cr-name"
# The labels an operator puts on the pods it makes, and the kinds (Kueue's integrations) they name,
# nearest owner first: JobSet (a TrainJob's JobSet has its name), RayCluster (a RayJob's or a
# RayService's), LeaderWorkerSet, the Kubeflow training operator's and MPI operator's, AppWrapper.
OWNER_LABELS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("batch.kubernetes.io/job-name", ("Job",)),
    ("jobset.sigs.k8s.io/jobset-name", ("JobSet", "TrainJob")),
    ("ray.io/cluster", ("RayCluster",)),
    ("leaderworkerset.sigs.k8s.io/name", ("LeaderWorkerSet",)),
    ("training.kubeflow.org/job-name", KUBEFLOW),
    ("workload.codeflare.dev/appwrapper", ("AppWrapper",)),
)
MAX_DEPTH = 4       # pod → Job → JobSet → TrainJob: no chain Kueue manages is longer
# the kinds whose objects, when read, lead on to their own controller (a live read lists ReplicaSets
# and StatefulSets; a file may give Jobs, JobSets, RayClusters)
PARENTS = frozenset({"ReplicaSet", "StatefulSet", "Job", "JobSet", "RayCluster"})

Owner = tuple[str, str, str]        # kind, name, uid ("" when not known)


@dataclass(frozen=True)
class Link:
    """The stored Workload a pod belongs to and how it was found (`by`: the annotation, the label,
    or the owner `Kind/name`)."""

    workload: Mapping[str, Any]
    by: str


class Workloads:
    """The cluster's stored Workloads, by name and by their controller owner."""

    def __init__(self, workloads: Iterable[Mapping[str, Any]], cluster: Objects = ()) -> None:
        self.by_name: dict[tuple[str, str], Mapping[str, Any]] = {}
        self.by_owner: dict[tuple[str, str, str], list[tuple[str, Mapping[str, Any]]]] = {}
        for wl in workloads:
            meta = meta_of(wl)
            namespace = str(meta.get("namespace") or "default")
            self.by_name[(namespace, str(meta.get("name") or ""))] = wl
            ref = controller_ref(meta)
            if ref is not None:
                self.by_owner.setdefault((namespace, ref[0], ref[1]), []).append((ref[2], wl))
        # the owners among the objects read (a ReplicaSet, a StatefulSet): their own controllers
        self.objects = {(kind_of(o), str(meta_of(o).get("namespace") or "default"), str(meta_of(o).get("name") or "")): o
                        for o, _ in of_kinds(cluster, PARENTS) if isinstance(o, Mapping)}

    def link(self, pod: Mapping[str, Any]) -> Link | None:
        """The stored Workload of `pod` (None: no sign of Kueue on it nor a Workload of its owners)."""
        meta = meta_of(pod)
        namespace = str(meta.get("namespace") or "default")
        labels = _mapping(meta.get("labels"))
        for key, value in ((WORKLOAD_ANNOTATION, _mapping(meta.get("annotations")).get(WORKLOAD_ANNOTATION)),
                           (PREBUILT_LABEL, labels.get(PREBUILT_LABEL))):
            if value:
                found = self.by_name.get((namespace, str(value)))
                if found is not None:
                    return Link(found, key)
        owners = self.owners(pod)
        for kind, name, uid in owners:
            found = self._owned(namespace, kind, name, uid, labels)
            if found is not None:
                return Link(found, f"{kind}/{name}")
        return None

    def unlinked(self, pod: Mapping[str, Any]) -> str:
        """Why a pod `link` found no stored Workload for, when Kueue started it (its workload
        annotation): the Workload it names and the owners it was looked for by ("" for any other pod)."""
        meta = meta_of(pod)
        named = _mapping(meta.get("annotations")).get(WORKLOAD_ANNOTATION)
        if not named:
            return ""
        namespace = str(meta.get("namespace") or "default")
        owners = ", ".join(f"{kind} {namespace}/{name}" for kind, name, _ in self.owners(pod))
        return (f"pod {namespace}/{meta.get('name')}: Kueue started it for Workload {namespace}/{named} (its "
                f"{WORKLOAD_ANNOTATION} annotation), but the cluster stores neither that Workload nor one owned by "
                f"{owners or 'an owner the pod names'}: no Kueue answer for it")

    def owners(self, pod: Mapping[str, Any]) -> list[Owner]:
        """The pod's owner chain, nearest first: its controller references (and theirs, for the owners
        among the objects read), then the kinds its operators' labels name."""
        meta = meta_of(pod)
        namespace = str(meta.get("namespace") or "default")
        out: list[Owner] = []
        current: Mapping[str, Any] | None = meta
        for _ in range(MAX_DEPTH):
            ref = controller_ref(current) if current is not None else None
            if ref is None or ref in out:
                break
            out.append(ref)
            parent = self.objects.get((ref[0], namespace, ref[1]))
            current = meta_of(parent) if parent is not None else None
        labels = _mapping(meta.get("labels"))
        named = [(str(labels[RAY_CRD]), str(labels[RAY_CR_NAME]))] if labels.get(RAY_CRD) and labels.get(RAY_CR_NAME) \
            else []
        named += [(kind, str(labels[key])) for key, kinds in OWNER_LABELS if labels.get(key) for kind in kinds]
        known = {(kind, name) for kind, name, _ in out}       # (a reference's uid decides for its owner)
        return out + [(kind, name, "") for kind, name in named if (kind, name) not in known]

    def _owned(self, namespace: str, kind: str, name: str, uid: str,
               labels: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The Workload whose controller is (kind, name), the uids agreeing when both are known; of a
        LeaderWorkerSet's, its group's (the pod's group index)."""
        found = [wl for owner_uid, wl in self.by_owner.get((namespace, kind, name), ())
                 if not (uid and owner_uid and uid != owner_uid)]
        if kind == "LeaderWorkerSet" and labels.get(LWS_GROUP_INDEX) is not None:
            found = [wl for wl in found if str(_mapping(meta_of(wl).get("annotations")).get(COMPONENT_INDEX))
                     == str(labels[LWS_GROUP_INDEX])]
        return found[0] if found else None


def controller_ref(meta: Mapping[str, Any]) -> Owner | None:
    """The controller ownerReference of `meta` (kind, name, uid), else its only reference."""
    refs = [r for r in meta.get("ownerReferences") or () if isinstance(r, Mapping)]
    ref = next((r for r in refs if r.get("controller")), refs[0] if len(refs) == 1 else None)
    if ref is None or not ref.get("kind") or not ref.get("name"):
        return None
    return str(ref["kind"]), str(ref["name"]), str(ref.get("uid") or "")


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}
