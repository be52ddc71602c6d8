"""`kexplain volcano`'s wiring: the submitted files and the cluster's read and admitted once as
kube-apiserver would (Volcano's own PodGroups and Queues kept aside: admission does not read them),
the Volcano Jobs among them made into their PodGroups and pods as Volcano's job controller makes them
(`app.volcano_jobs`), then one session of Volcano's scheduler over them (`volcano.run`), with its
configuration from `--scheduler-conf`, else the scheduler's ConfigMap among the inputs, else
Volcano's default (`volcano.conf`)."""
from __future__ import annotations

import copy
from datetime import datetime
from typing import Any, BinaryIO, Iterable, Optional

from kexplain.admission import admit
from kexplain.admission.resourcequota import QuotaLedger
from kexplain.app import volcano_jobs, volcano_pod
from kexplain.app.volcano_pod import writable
from kexplain.controllers.volcanojob import is_volcano_job
from kexplain.errors import AdmissionRejected
from kexplain.load.manifests import load_objects
from kexplain.volcano import conf as volcano_conf
from kexplain.volcano.api.task import GROUP_NAME_ANNOTATION
from kexplain.volcano.cache import check_quantities, is_volcano_object
from kexplain.suggest import volcano as fixes
from kexplain.volcano.details import task_details
from kexplain.volcano.run import run_kept, session_clock
from kexplain.volcano.versions import DEFAULT, VolcanoVersion

ROUNDS = 3      # sessions at most: the second one, without a waiting Job's pods, decides as the first


def explain(nodes: Iterable[str], scheduler_conf: str | None, *, max_bytes: int, max_objects: int,
            files: Iterable[str] = (), stdin: Optional[BinaryIO] = None,
            version: VolcanoVersion = DEFAULT, suggestions: bool = True, details: bool = False,
            now: Optional[datetime] = None) -> dict[str, Any]:
    """The session's document over the files `files` (submitted) and `nodes` (the cluster), with the
    configuration file, the ConfigMap among them or Volcano's default; a `jobs` entry per Volcano Job;
    with `suggestions`, the verified fixes of each PodGroup it leaves waiting (key `fixes`); with
    `details`, each task's predicates and scores (`tasks`, for the `--html` page). `now`: the clock of
    every session it runs (the job controller's rounds, each fix's), else the wall clock read once."""
    clock = session_clock(now)
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
        refused: dict[str, str] = {}        # (the quota each round's pods leave)
        admitted = _admitted(core, jobs.pods_for(waiting, existing), refused)
        objects = [o for o, _ in admitted.objects]
        if jobs.each:       # (a session writes to its pods: another round starts from them as created)
            objects = [copy.deepcopy(o) if o.get("kind") == "Pod" else o for o in objects]
        base = fixes.pristine(objects, volcano, conf, version, clock) if suggestions else None
        doc, ssn, cluster = run_kept(objects, copy.deepcopy(volcano), conf, version, clock)
        left = volcano_jobs.waiting_pod_groups(doc, jobs)
        if left == waiting:
            break
        waiting = left
    if jobs.each:
        doc["jobs"] = volcano_jobs.answers(jobs, doc, refused)
    if base is not None and any(fixes.waiting(pg) for pg in doc["podGroups"]):
        doc["fixes"] = fixes.fixes(base, doc, ssn, cluster)
    if details:
        doc["tasks"] = task_details(ssn, cluster)
    warnings = [*conf.warnings, *admitted.warnings]
    if warnings:
        doc["readWarnings"] = warnings
    return doc


def _admitted(core: list[tuple[dict[str, Any], Any]], made: list[tuple[dict[str, Any], Any]],
              refused: dict[str, str]) -> Any:
    """The cluster and the pods the job controller creates admitted as kube-apiserver admits them: a
    pod it refuses (a quota exceeded, a LimitRange) is not created, its message kept in `refused`
    (by namespace/name) and the rest admitted again without it; another refusal is the input's."""
    while True:
        pods = [(p, s) for p, s in made if volcano_jobs.key_of(p) not in refused]
        try:
            return _within_quota(admit([*core, *pods], None), {volcano_jobs.key_of(p) for p, _ in pods}, refused)
        except AdmissionRejected as err:
            obj = err.obj if isinstance(err.obj, dict) else {}
            key = volcano_jobs.key_of(obj) if obj.get("kind") == "Pod" else None
            if key is None or key not in {volcano_jobs.key_of(p) for p, _ in pods}:
                raise
            refused[key] = err.message


def _within_quota(admitted: Any, made: set[str], refused: dict[str, str]) -> Any:
    """The made pods (`made`, by namespace/name) charged to their namespace's ResourceQuotas as they
    are created, in order, over what the cluster's pods use: one a quota refuses is not created
    (`refused`, the API server's message) and left out of `admitted`."""
    def ours(obj: dict[str, Any]) -> bool:
        return obj.get("kind") == "Pod" and volcano_jobs.key_of(obj) in made
    ledger = QuotaLedger.of(o for o, _ in admitted.objects if not ours(o))
    if ledger is None:
        return admitted
    over = set()
    for obj, _ in admitted.objects:
        if ours(obj):
            said = ledger.create(obj)
            if said:
                refused[volcano_jobs.key_of(obj)] = said
                over.add(volcano_jobs.key_of(obj))
    if over:
        admitted.objects = [(o, s) for o, s in admitted.objects if not (ours(o) and volcano_jobs.key_of(o) in over)]
    return admitted


def answer_pods(pods: list[tuple[dict[str, Any], Any]], cluster: list[tuple[dict[str, Any], Any]],
                file_objects: list[tuple[dict[str, Any], Any]], *, stored: bool = False,
                conf: Optional[volcano_conf.SchedulerConf] = None,
                version: VolcanoVersion = DEFAULT, now: Optional[datetime] = None) -> list[dict[str, Any]]:
    """The SchedulingTrace of each of several pods Volcano schedules (`kexplain POD` with a file of
    several, `kexplain pod --pending`), from ONE session over the cluster with all of them, as they
    are created together (`app.volcano_pod` answers one pod alike): each pod admitted with the
    cluster (unless `stored`), a pod without a PodGroup given the one Volcano's PodGroup controller
    makes. The configuration: `conf`, else the scheduler's ConfigMap among the objects, else the default;
    `now`: the session's clock (else the wall clock)."""
    every = [*cluster, *file_objects]
    conf = conf or volcano_conf.chosen(None, every)
    keys = {volcano_jobs.key_of(p) for p, _ in pods}
    volcano = [copy.deepcopy(o) for o, _ in every if is_volcano_object(o)]
    core = [(o, s) for o, s in cluster if not is_volcano_object(o)
            and not (o.get("kind") == "Pod" and volcano_jobs.key_of(o) in keys)]
    admitted = admit([*core, *pods], None, stored=stored)
    mine = {volcano_jobs.key_of(o): o for o, _ in admitted.objects if o.get("kind") == "Pod" and volcano_jobs.key_of(o) in keys}
    objects = [writable(o) for o, _ in admitted.objects if not (o.get("kind") == "Pod"
                                                                        and volcano_jobs.key_of(o) in keys)]
    placed, made_for = [], {}
    for pod, _ in pods:
        grouped, volcano, made = volcano_pod.with_pod_group(copy.deepcopy(mine[volcano_jobs.key_of(pod)]), volcano)
        group = ((grouped.get("metadata") or {}).get("annotations") or {}).get(GROUP_NAME_ANNOTATION)
        if made is not None:
            made_for[group] = made
        placed.append((grouped, made_for.get(group)))
    doc, ssn, snap = volcano_pod.session([*objects, *(p for p, _ in placed)], volcano, conf, version,
                                         session_clock(now))
    if conf.warnings:       # (said with each pod's answer)
        doc["notes"] = [*conf.warnings, *doc.get("notes", [])]
    return [volcano_pod.pod_document(p, doc, ssn, snap, made, version) for p, made in placed]

