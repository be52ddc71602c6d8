"""`kexplain volcano`'s wiring: the submitted files and the cluster's read and admitted once as
kube-apiserver would (Volcano's own PodGroups and Queues kept aside: admission does not read them),
the Volcano Jobs among them made into their PodGroups and pods as Volcano's job controller makes them
(`app.volcano_jobs`), then one session of Volcano's scheduler over them (`volcano.run`), with its
configuration from `--scheduler-conf`, else the scheduler's ConfigMap among the inputs, else
Volcano's default (`volcano.conf`)."""
from __future__ import annotations

import copy
from typing import Any, BinaryIO, Iterable, Optional

from kexplain.admission import admit
from kexplain.app import volcano_jobs
from kexplain.controllers.volcanojob import is_volcano_job
from kexplain.load.manifests import load_objects
from kexplain.volcano import conf as volcano_conf
from kexplain.volcano.cache import check_quantities, is_volcano_object
from kexplain.volcano.run import run_session
from kexplain.volcano.versions import DEFAULT, VolcanoVersion

ROUNDS = 3      # sessions at most: the second one, without a waiting Job's pods, decides as the first


def explain(nodes: Iterable[str], scheduler_conf: str | None, *, max_bytes: int, max_objects: int,
            files: Iterable[str] = (), stdin: Optional[BinaryIO] = None,
            version: VolcanoVersion = DEFAULT) -> dict[str, Any]:
    """The session's document over the files `files` (submitted) and `nodes` (the cluster), with the
    configuration file, the ConfigMap among them or Volcano's default; a `jobs` entry per Volcano Job."""
    submitted = load_objects(list(files), max_bytes=max_bytes, max_objects=max_objects, stdin=stdin)
    cluster = load_objects(list(nodes), max_bytes=max_bytes, max_objects=max_objects, stdin=stdin)
    every = [*submitted, *cluster]
    conf = volcano_conf.chosen(scheduler_conf, every)
    volcano = [o for o, _ in every if is_volcano_object(o)]
    for obj, src in every:
        if is_volcano_object(obj):
            check_quantities(obj, src)
    jobs = volcano_jobs.make(submitted, cluster, volcano)
    volcano = jobs.volcano(volcano)
    core = [(o, s) for o, s in every if not is_volcano_object(o) and not is_volcano_job(o)] + jobs.claims
    existing = frozenset(volcano_jobs.key_of(o) for o, _ in core if o.get("kind") == "Pod")
    waiting: frozenset[str] = frozenset()
    for _ in range(ROUNDS):
        admitted = admit([*core, *jobs.pods_for(waiting, existing)], None)
        doc = run_session([o for o, _ in admitted.objects], copy.deepcopy(volcano), conf, version)
        now = volcano_jobs.waiting_pod_groups(doc, jobs)
        if now == waiting:
            break
        waiting = now
    if jobs.each:
        doc["jobs"] = volcano_jobs.answers(jobs, doc)
    warnings = [*conf.warnings, *admitted.warnings]
    if warnings:
        doc["readWarnings"] = warnings
    return doc
