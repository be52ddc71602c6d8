"""`kexplain volcano`'s wiring: the cluster's files read and admitted once as kube-apiserver would
(Volcano's own PodGroups and Queues kept aside: admission does not read them), then one session of
Volcano's scheduler over them (`volcano.run`)."""
from __future__ import annotations

from typing import Any, Iterable

from kexplain.admission import admit
from kexplain.load.manifests import load_objects
from kexplain.volcano import conf as volcano_conf
from kexplain.volcano.cache import check_quantities, is_volcano_object
from kexplain.volcano.details import task_details
from kexplain.volcano.run import run_kept
from kexplain.volcano.versions import DEFAULT


def explain(nodes: Iterable[str], scheduler_conf: str | None, *, max_bytes: int, max_objects: int,
            details: bool = False) -> dict[str, Any]:
    """The session's document over the files `nodes`, with the configuration file or Volcano's default;
    `details`: with each task's predicates and scores (`tasks`, for the `--html` page)."""
    conf = volcano_conf.read(scheduler_conf)
    loaded = load_objects(list(nodes), max_bytes=max_bytes, max_objects=max_objects)
    volcano = [o for o, _ in loaded if is_volcano_object(o)]
    for obj, src in loaded:
        if is_volcano_object(obj):
            check_quantities(obj, src)
    jobs = [(o, s) for o, s in loaded if _is_volcano_job(o)]
    core = [(o, s) for o, s in loaded if not is_volcano_object(o) and not _is_volcano_job(o)]
    admitted = admit(core, None)
    objects = [o for o, _ in admitted.objects]
    doc, ssn, cluster = run_kept(objects, volcano, conf, DEFAULT)
    if details:
        doc["tasks"] = task_details(ssn, cluster)
    warnings = [f"{src}: Job {_name(o)} (batch.volcano.sh): kexplain does not make a Volcano Job's PodGroup and "
                "pods yet (as its job controller makes them): give them among the objects" for o, src in jobs]
    warnings += admitted.warnings
    if warnings:
        doc["readWarnings"] = warnings
    return doc


def _is_volcano_job(obj: dict[str, Any]) -> bool:
    return obj.get("kind") == "Job" and str(obj.get("apiVersion") or "").startswith("batch.volcano.sh/")


def _name(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name', '')}"
