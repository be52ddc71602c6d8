"""The Jobs the JobSet controller makes of a JobSet Kueue holds or starts, for the chain
(`kueue.started`): the controller's Jobs (`kexplain.controllers.jobset`), suspended while Kueue
holds the JobSet, each pod template merged with its pod set's info once Kueue starts it (by TAS,
each Job's pods pinned to their domains, `pinned`)."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.controllers.jobset import (   # noqa: F401  (the names the chain and its tests read)
    EXCLUSIVE, JOB_KEY, JOBSET_NAME, JOBSET_UID, NAMESPACED_JOB, NO_SCHEDULE_TAINT, NODE_SELECTOR_STRATEGY, PRIORITY,
    REPLICATED_JOB_NAME, job_key, jobset_jobs as controller_jobs, pod_priority, volume_claims,
)
from kexplain.kueue.apis.priorityclass import PriorityClass
from kexplain.kueue.pinned import pin
from kexplain.kueue.podset import PodSetInfo, merged


def jobset_jobs(obj: Mapping[str, Any], pod_sets: list[PodSetInfo] | None,
                priority_classes: Mapping[str, PriorityClass] | None = None) -> list[dict[str, Any]]:
    """The Jobs of a JobSet, each pod template merged with its pod set's info once Kueue started it
    (`pod_sets`; None: held, suspended)."""
    if pod_sets is None:
        return controller_jobs(obj, suspend=True, priority_classes=priority_classes)
    infos = pod_sets
    jobs = controller_jobs(obj, suspend=False, priority_classes=priority_classes,
                           template=lambda i, t: merged(t, infos[i]) if i < len(infos) else t)
    for info in infos:      # (by TAS: each Job's pods pinned as Kueue's topology ungater pins them)
        pin([j for j in jobs if (j["metadata"].get("labels") or {}).get(REPLICATED_JOB_NAME) == info.name], info)
    return jobs
