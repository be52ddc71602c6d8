"""The Job the CronJob controller creates when the schedule fires (v1.36 pkg/controller/cronjob,
getJobFromTemplate2): the jobTemplate's labels, annotations and spec, the CronJob its controlling
owner, named `<cronjob>-<scheduled time>`, the scheduled time a word (`CRONJOB_JOB_PLACEHOLDER`:
kexplain does not know when the schedule fires, so the scheduled-timestamp annotation and the
creation time are left out)."""
from __future__ import annotations

import copy
from typing import Any, Mapping

from kexplain.apimachinery.identity import as_dict, object_uid
from kexplain.controllers.workloads import CRONJOB_JOB_PLACEHOLDER, workload_name

KIND = "CronJob"


def is_cronjob(obj: Any) -> bool:
    """A batch CronJob."""
    return (isinstance(obj, Mapping) and obj.get("kind") == KIND
            and str(obj.get("apiVersion") or "").split("/", 1)[0] == "batch")


def job_template_labels(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    """The labels the CronJob's Jobs get (`spec.jobTemplate.metadata.labels`)."""
    labels = as_dict(as_dict(as_dict(as_dict(obj.get("spec")).get("jobTemplate")).get("metadata")).get("labels"))
    return labels


def cronjob_job(obj: Mapping[str, Any]) -> dict[str, Any]:
    """The Job the CronJob controller creates of `obj` (see the module's words)."""
    spec = as_dict(obj.get("spec"))
    template = as_dict(spec.get("jobTemplate"))
    tmeta = as_dict(template.get("metadata"))
    meta = as_dict(obj.get("metadata"))
    name = workload_name(dict(obj))
    job_meta: dict[str, Any] = {"name": f"{name}-{CRONJOB_JOB_PLACEHOLDER}",
                                "ownerReferences": [{"apiVersion": str(obj.get("apiVersion") or "batch/v1"),
                                                     "kind": KIND, "name": name, "uid": object_uid(dict(obj)),
                                                     "controller": True, "blockOwnerDeletion": True}]}
    if meta.get("namespace"):
        job_meta["namespace"] = meta["namespace"]
    for key in ("labels", "annotations"):
        if tmeta.get(key):
            job_meta[key] = dict(tmeta[key])
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": job_meta,
            "spec": copy.deepcopy(as_dict(template.get("spec")))}
