"""What a workload's controller still creates when what it made is in the input already."""
from __future__ import annotations

from typing import Any

import pytest

from kexplain.controllers.existing import Children, ToCreate, still_to_create


def _ref(kind: str, name: str, uid: str | None = None) -> dict[str, Any]:
    ref: dict[str, Any] = {"apiVersion": "apps/v1", "kind": kind, "name": name, "controller": True}
    if uid:
        ref["uid"] = uid
    return ref


def _pod(name: str, owner: dict[str, Any] | None, phase: str = "Pending", ready: bool = False) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "shop"}
    if owner:
        meta["ownerReferences"] = [owner]
    status: dict[str, Any] = {"phase": phase}
    if ready:
        status["conditions"] = [{"type": "Ready", "status": "True"}]
    return {"kind": "Pod", "metadata": meta, "status": status}


def _workload(kind: str, name: str, uid: str | None = None, **spec: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "shop"}
    if uid:
        meta["uid"] = uid
    return {"kind": kind, "metadata": meta, "spec": spec}


RUNNING = {"phase": "Running", "ready": True}

CASES = [
    # (what, workload, children, expected)
    ("no child: as written", _workload("ReplicaSet", "rs", replicas=3), [], None),
    ("a ReplicaSet with 1 of 3 pods", _workload("ReplicaSet", "rs", replicas=3),
     [_pod("rs-a", _ref("ReplicaSet", "rs"))], ToCreate(2)),
    ("a ReplicaSet's terminated pods do not count", _workload("ReplicaSet", "rs", replicas=2),
     [_pod("rs-a", _ref("ReplicaSet", "rs"), phase="Failed")], ToCreate(2)),
    ("a ReplicaSet with all its pods", _workload("ReplicaSet", "rs", replicas=1),
     [_pod("rs-a", _ref("ReplicaSet", "rs"))], ToCreate(0)),
    ("another object's pods (uid differs)", _workload("ReplicaSet", "rs", uid="u-2", replicas=1),
     [_pod("rs-a", _ref("ReplicaSet", "rs", uid="u-1"))], None),
    ("another kind's pods", _workload("ReplicaSet", "rs", replicas=1),
     [_pod("rs-a", _ref("StatefulSet", "rs"))], None),
    ("a Deployment with its ReplicaSet", _workload("Deployment", "web"),
     [{"kind": "ReplicaSet", "metadata": {"name": "web-1", "namespace": "shop",
                                          "ownerReferences": [_ref("Deployment", "web")]}}], ToCreate(0)),
    ("a Job's active pods", _workload("Job", "j", parallelism=3),
     [_pod("j-a", _ref("Job", "j"))], ToCreate(2)),
    ("a StatefulSet waits for a pending pod (OrderedReady)", _workload("StatefulSet", "db", replicas=3),
     [_pod("db-0", _ref("StatefulSet", "db"))], ToCreate(0)),
    ("a StatefulSet makes the next ordinal once the lower are ready", _workload("StatefulSet", "db", replicas=3),
     [_pod("db-0", _ref("StatefulSet", "db"), **RUNNING)], ToCreate(1, 1)),
    ("Parallel: every missing ordinal of the first run", _workload("StatefulSet", "db", replicas=4,
                                                                   podManagementPolicy="Parallel"),
     [_pod("db-0", _ref("StatefulSet", "db")), _pod("db-1", _ref("StatefulSet", "db"))], ToCreate(2, 2)),
    ("ordinals from spec.ordinals.start", _workload("StatefulSet", "db", replicas=2, ordinals={"start": 5}),
     [_pod("db-5", _ref("StatefulSet", "db"), **RUNNING)], ToCreate(1, 1)),
    ("a StatefulSet with all its pods", _workload("StatefulSet", "db", replicas=1),
     [_pod("db-0", _ref("StatefulSet", "db"))], ToCreate(0)),
    ("a DaemonSet is left as written", _workload("DaemonSet", "ds"),
     [_pod("ds-a", _ref("DaemonSet", "ds"))], None),
]


@pytest.mark.parametrize("workload, children, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_still_to_create(workload: dict[str, Any], children: list[dict[str, Any]], expected: ToCreate | None) -> None:
    assert still_to_create(workload, Children(children)) == expected
