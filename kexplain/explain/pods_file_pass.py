"""The pending pass of an autoscaler command's PODS file, built as `kexplain POD` builds it. Never prints."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kexplain.admission.workloads import WORKLOAD_KINDS
from kexplain.errors import KexplainError, LeftOutNote, Source
from kexplain.explain.batch import explain_batch
from kexplain.explain.inputs import load_read
from kexplain.state.cluster import ClusterState
from kexplain.state.objects import is_bound_pod, of_kinds
from kexplain.explain.pass_objects import ephemeral_claims
from kexplain.explain.pending_pass import PassBuilder, PendingPass, object_ref
from kexplain.explain.placement import chosen_node
from kexplain.explain.request import Request, RunOptions
from kexplain.explain.run import explain
from kexplain.features import KubeVersion
from kexplain.load.problems import Problems
from kexplain.controllers.ephemeral import writes_volume_claims_for
from kexplain.controllers.workloads import workload_name

Objects = list[tuple[dict[str, Any], Source]]


@dataclass(frozen=True)
class PodsFilePass:
    """What the autoscaler reads of a PODS file: the pass, the pods as given, warnings and the state used."""

    pending_pass: PendingPass | None
    pods: Objects
    warnings: tuple[str, ...] = ()
    state: ClusterState | None = None

    @property
    def workloads(self) -> bool:
        """Whether the file held workloads, whose pods the pass holds (not `pods`)."""
        return self.pending_pass is not None and bool(self.pending_pass.pending or self.pending_pass.bound
                                                      or self.pending_pass.not_created)


def pods_file_pass(path: str, pod_objs: Objects, cluster: Objects, kube: KubeVersion, *, max_bytes: int,
                   max_objects: int, validate: str) -> PodsFilePass:
    """The pass of the PODS file `path` (its objects read, `pod_objs`) against `cluster`."""
    pending = [(o, s) for o, s in pod_objs if o.get("kind") == "Pod" and not is_bound_pod(o)]
    claims = [c for o, s in pending if writes_volume_claims_for(o) for c in ephemeral_claims(o, s)]
    builder = PassBuilder()
    builder.add_objects((), claims)         # the ephemeral volume controller's claims for the Pods
    if not of_kinds(pod_objs, WORKLOAD_KINDS):
        return PodsFilePass(builder.build() if claims else None, pod_objs)

    given = {id(o) for o, _ in pending}
    rest = [(o, s) for o, s in pod_objs if id(o) not in given]
    req = Request(pod_path=path, max_bytes=max_bytes, max_objects=max_objects, validate=validate, kube=kube)
    notes = _Notes()
    loaded = load_read(req, rest, cluster, notes, keep_state=True)
    warnings: list[str] = [str(note) for note in notes.found]
    if loaded.empty:        # every workload left out (its controllers create no pod now: a note each)
        return PodsFilePass(builder.build() if claims else None, pending, tuple(warnings))
    options = RunOptions(filter_all=False)
    builder.add_objects(loaded.set_objects, loaded.set_created)
    if loaded.single is not None:       # the pod of the file's one workload (its given Pods are not explained)
        single = loaded.single
        warnings += single.warnings
        trace = explain(single, options)
        builder.add_pod(single.pod, single.pod_source, stands_for=_stands_for(of_kinds(rest, WORKLOAD_KINDS)),
                        node=chosen_node(trace), claims=single.claims_from_templates, post_filter=trace.post_filter)
    else:
        assert loaded.pool is not None
        warnings += loaded.pool.warnings
        batch = explain_batch(loaded.batch, loaded.pool, options)
        for outcome in batch:
            builder.add_outcome(outcome)
        builder.settle(batch.retried)       # the queue's retry placed them: not pending
    return PodsFilePass(builder.build(), pending, tuple(warnings), loaded.cluster_state)


@dataclass
class _Notes(Problems):
    """What is left out with a note (`LeftOutNote`: a workload whose controllers create no pod now),
    collected; bad input raised, as without it."""

    keep: bool = True

    def add(self, err: KexplainError) -> None:
        if not isinstance(err, LeftOutNote):
            raise err
        self.found.append(err)


def _stands_for(workloads: Objects) -> str | None:
    """What the one pod explained stands for: the file's one workload, else None."""
    if len(workloads) != 1:
        return None
    workload = workloads[0][0]
    meta = workload.get("metadata") if isinstance(workload.get("metadata"), dict) else {}
    return object_ref(str(workload.get("kind")), str(meta.get("namespace") or "default"), workload_name(workload))
