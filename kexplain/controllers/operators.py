"""The jobs of Kubeflow's operators kexplain makes itself when Kueue does not hold them (no queue-name
label: `queued.held` says what Kueue holds), as `jobset.with_jobset_jobs` makes every JobSet's Jobs:
a TrainJob becomes the JobSet Kubeflow Trainer makes of it from its runtime (`trainjob.child_jobset`;
that JobSet's claims and Jobs follow), an MPIJob the MPI operator's workers and launcher Job
(`mpijob`). One the operator would not make, or kexplain cannot (its runtime is not among the
objects: a cluster's ClusterTrainingRuntime not given; the MPI operator's validation refuses it), is
kept and marked with why (`queued.NOT_EXPLAINED`): left out, said, counted as an object left out."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.apimachinery import columns
from kexplain.controllers import mpijob, trainjob
from kexplain.controllers.queued import NOT_EXPLAINED, queue_name
from kexplain.controllers.templates import mapping
from kexplain.errors import KexplainError

Objects = list[tuple[Any, Any]]


def _runtimes(objs: Objects, cluster: Objects) -> trainjob.Runtimes:
    """The training runtimes of the POD file and of the cluster (a dump's asked of its rows)."""
    rows = columns.rows_of(cluster)
    if rows is not None:
        given = [pair for kind in sorted(trainjob.RUNTIME_KINDS)
                 for pair in columns.of_kind(cluster, rows, kind)]  # type: ignore[arg-type]
    else:
        given = [(o, s) for o, s in cluster if isinstance(o, Mapping) and o.get("kind") in trainjob.RUNTIME_KINDS]
    return trainjob.runtimes_of([*objs, *given])


def _marked(obj: Mapping[str, Any], why: str) -> dict[str, Any]:
    """`obj` with kexplain's annotation saying why it is not explained."""
    meta = dict(mapping(obj.get("metadata")))
    meta["annotations"] = {**mapping(meta.get("annotations")), NOT_EXPLAINED: why}
    return {**obj, "metadata": meta}


def _trainjob(obj: Mapping[str, Any], src: Any, runtimes: trainjob.Runtimes) -> list[tuple[Any, Any]]:
    missing = trainjob.missing_runtime(obj, runtimes)
    if missing:
        return [(_marked(obj, f"Kubeflow Trainer makes its JobSet from its runtime, and {missing} (give it with "
                              "the file or --nodes): not explained"), src)]
    kind, _, namespace, name = trainjob.runtime_ref(obj)
    runtime, runtime_source = runtimes[(kind, namespace, name)]
    try:
        return [(trainjob.child_jobset(obj, src, runtime, runtime_source), src)]
    except KexplainError as err:        # (its runtime unreadable: said on the TrainJob)
        return [(_marked(obj, f"Kubeflow Trainer cannot make its JobSet: {err}: not explained"), src)]


def _mpijob(obj: Mapping[str, Any], src: Any) -> list[tuple[Any, Any]]:
    job = mpijob.defaulted(obj)
    refused = mpijob.validation_error(job)
    if refused:
        return [(_marked(obj, f"the MPI operator creates nothing (its ValidationError event: {refused}): "
                              "not explained"), src)]
    return [(made, src) for made in mpijob.operator_objects(job)]


def with_operator_objects(objs: Objects, cluster: Objects = ()) -> Objects:
    """`objs` with each TrainJob and MPIJob Kueue does not hold replaced, at its place, by what its
    operator makes of it (or marked `NOT_EXPLAINED` with why); the runtimes are the file's and the
    cluster's."""
    if not any(trainjob.is_trainjob(o) or mpijob.is_mpijob(o) for o, _ in objs):
        return objs
    runtimes = _runtimes(objs, cluster) if any(trainjob.is_trainjob(o) for o, _ in objs) else {}
    out: Objects = []
    for obj, src in objs:
        if queue_name(obj) or not (trainjob.is_trainjob(obj) or mpijob.is_mpijob(obj)):
            out.append((obj, src))      # (Kueue holds one of its queue: `queued.held`)
        elif trainjob.is_trainjob(obj):
            out.extend(_trainjob(obj, src, runtimes))
        else:
            out.extend(_mpijob(obj, src))
    return out
