"""One scheduling session (scheduler.go runOnce): the snapshot, OpenSession, every configured action in
order, CloseSession; the document of what it decided."""
from __future__ import annotations

from typing import Any

from kexplain.features.kube_version import KubeVersion
from kexplain.load.gcpolicy import bulk_load
from kexplain.volcano import cache
from kexplain.volcano.actions import allocate, backfill, enqueue, gangpreempt, gangreclaim, preempt, reclaim, shuffle
from kexplain.volcano.conf import SchedulerConf
from kexplain.volcano.document import document
from kexplain.volcano.framework.framework import close_session, open_session
from kexplain.volcano.framework.session import Session
from kexplain.volcano.versions import DEFAULT, VolcanoVersion

EXECUTE = {"enqueue": enqueue.execute, "allocate": allocate.execute, "backfill": backfill.execute,
           "preempt": preempt.execute, "reclaim": reclaim.execute, "gangpreempt": gangpreempt.execute,
           "gangreclaim": gangreclaim.execute, "shuffle": shuffle.execute}


def run_session(objects: list[dict[str, Any]], volcano: list[dict[str, Any]], conf: SchedulerConf,
                version: VolcanoVersion = DEFAULT) -> dict[str, Any]:
    """The document of one session over admitted core `objects` and Volcano's `volcano` objects."""
    return run_kept(objects, volcano, conf, version)[0]


def run_kept(objects: list[dict[str, Any]], volcano: list[dict[str, Any]], conf: SchedulerConf,
             version: VolcanoVersion = DEFAULT) -> tuple[dict[str, Any], Session, cache.ClusterInfo]:
    """One session's document, with the session and its snapshot kept: a task's fit errors on each
    node are the session's, not the document's (`app/volcano_pod.py` reads them). The cyclic collector
    is paused meanwhile: a session makes millions of objects and no cycles to speak of, and each full
    collection walked every object of the cluster again (a tenth of a large session's time, issue 93)."""
    with bulk_load():
        return _run_kept(objects, volcano, conf, version)


def _run_kept(objects: list[dict[str, Any]], volcano: list[dict[str, Any]], conf: SchedulerConf,
              version: VolcanoVersion) -> tuple[dict[str, Any], Session, cache.ClusterInfo]:
    pods = [o for o in objects if o.get("kind") == "Pod"]
    cluster = cache.build(objects, volcano)
    before = {f"{pg.namespace}/{pg.name}": pg.phase for pg in cluster.pod_groups}
    ssn = open_session(cluster, conf, KubeVersion(version.kubernetes))
    notes = []
    for action in conf.actions:
        fn = EXECUTE.get(action)
        if fn is None:
            notes.append(f"action {action} is Volcano's, not modelled by kexplain yet: skipped")
            continue
        fn(ssn)
    doc = document(version, conf, cluster, ssn, before, pods, close_session(ssn))
    if notes:
        doc["notes"] = notes
    return doc, ssn, cluster
