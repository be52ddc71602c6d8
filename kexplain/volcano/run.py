"""One scheduling session (scheduler.go runOnce): the snapshot, OpenSession, every configured action in
order, CloseSession; the document of what it decided."""
from __future__ import annotations

import time
from datetime import datetime
from typing import Any, Optional

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


def session_clock(now: Optional[datetime]) -> int:
    """A session's clock in ns since the epoch (Volcano's plugins read time.Now()): `now`, else the
    wall clock, read once, so that every session of one answer judges by the same time."""
    if now is None:
        return time.time_ns()
    return int(now.timestamp()) * 10**9 + now.microsecond * 1000


def run_session(objects: list[dict[str, Any]], volcano: list[dict[str, Any]], conf: SchedulerConf,
                version: VolcanoVersion = DEFAULT, now: int | None = None) -> dict[str, Any]:
    """The document of one session over admitted core `objects` and Volcano's `volcano` objects."""
    return run_kept(objects, volcano, conf, version, now)[0]


def run_kept(objects: list[dict[str, Any]], volcano: list[dict[str, Any]], conf: SchedulerConf,
             version: VolcanoVersion = DEFAULT, now: int | None = None
             ) -> tuple[dict[str, Any], Session, cache.ClusterInfo]:
    """One session's document, with the session and its snapshot kept: a task's fit errors on each
    node are the session's, not the document's (`app/volcano_pod.py` reads them). The cyclic collector
    is paused meanwhile: a session makes millions of objects and no cycles to speak of, and each full
    collection walked every object of the cluster again (a tenth of a large session's time, issue 93).
    `now`: the session's clock (ns since the epoch; None: the wall clock)."""
    with bulk_load():
        return _run_kept(objects, volcano, conf, version, now)


def _run_kept(objects: list[dict[str, Any]], volcano: list[dict[str, Any]], conf: SchedulerConf,
              version: VolcanoVersion, now: int | None) -> tuple[dict[str, Any], Session, cache.ClusterInfo]:
    pods = [o for o in objects if o.get("kind") == "Pod"]
    cluster = cache.build(objects, volcano)
    before = {f"{pg.namespace}/{pg.name}": pg.phase for pg in cluster.pod_groups}
    ssn = open_session(cluster, conf, KubeVersion(version.kubernetes), now)
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
