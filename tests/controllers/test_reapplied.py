"""What the controllers do with a Deployment or StatefulSet applied onto the one the cluster runs
(`controllers.reapplied`): the pods they create now, and the running pods they delete first."""
from __future__ import annotations

import copy
from typing import Any

import pytest

from kexplain.controllers.existing import Children
from kexplain.controllers.reapplied import Rollout, int_or_percent, rollout

TEMPLATE = {"metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "web", "image": "nginx:1", "resources": {"requests": {"cpu": "1"}}}]}}


def _template(image: str) -> dict[str, Any]:
    out = copy.deepcopy(TEMPLATE)
    out["spec"]["containers"][0]["image"] = image
    return out


def _deployment(replicas: int, image: str = "nginx:1", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop",
                                                                        "uid": "d-1"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}}, "template": _template(image),
                     **spec}}


def _ref(kind: str, name: str, uid: str) -> list[dict[str, Any]]:
    return [{"apiVersion": "apps/v1", "kind": kind, "name": name, "uid": uid, "controller": True}]


def _pod(name: str, owner: list[dict[str, Any]], node: str = "n1", ready: bool = True, day: int = 1) -> dict[str, Any]:
    return {"kind": "Pod", "metadata": {"name": name, "namespace": "shop", "ownerReferences": owner,
                                        "creationTimestamp": f"2026-01-{day:02d}T00:00:00Z"},
            "spec": {"nodeName": node},
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": str(ready)}]}}


def _replica_set(name: str, replicas: int, image: str = "nginx:1", ready: int | None = None) -> list[dict[str, Any]]:
    template = _template(image)
    template["metadata"]["labels"]["pod-template-hash"] = name.split("-")[-1]
    rs = {"kind": "ReplicaSet", "metadata": {"name": name, "namespace": "shop", "uid": name,
                                             "ownerReferences": _ref("Deployment", "web", "d-1")},
          "spec": {"replicas": replicas, "template": template}}
    ready = replicas if ready is None else ready
    return [rs, *(_pod(f"{name}-{i}", _ref("ReplicaSet", name, name), f"n{i}", i < ready, i + 1)
                  for i in range(replicas))]      # (the last the newest: deleted first)


def _run(applied: dict[str, Any], live: dict[str, Any], children: list[dict[str, Any]]) -> Rollout | None:
    return rollout(applied, live, Children(children))


def test_a_scale_creates_only_the_missing_pods() -> None:
    done = _run(_deployment(3), _deployment(2), _replica_set("web-a", 2))
    assert done is not None and (done.copies, done.deleted) == (1, ())
    assert done.said == ("exists on the cluster: scaled 2 -> 3, the same template: its ReplicaSet web-a creates "
                         "1 new pod beside its 2 running")


def test_the_same_deployment_creates_nothing() -> None:
    done = _run(_deployment(2), _deployment(2), _replica_set("web-a", 2))
    assert done is not None and done.copies == 0 and "no new pod" in done.said


def test_none_of_its_objects_on_the_cluster_is_as_written() -> None:
    assert _run(_deployment(2), _deployment(2), []) is None


@pytest.mark.parametrize("replicas, spec, copies, deleted", [
    (2, {}, 1, ()),                 # 25%: maxSurge 1, maxUnavailable 0
    (4, {}, 1, ()),                 # maxSurge 1: one above replicas
    (10, {}, 3, ()),                # maxSurge ceil(2.5) = 3
    # no surge: an old pod goes first (within maxUnavailable 1), then one new pod
    (2, {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}}}, 1,
     ("web-a-1",)),
    (2, {"strategy": {"type": "Recreate"}}, 2, ("web-a-0", "web-a-1")),
])
def test_a_new_template_rolls_out_as_the_strategy_says(replicas: int, spec: dict[str, Any], copies: int,
                                                        deleted: tuple[str, ...]) -> None:
    done = _run(_deployment(replicas, "nginx:2", **spec), _deployment(replicas), _replica_set("web-a", replicas))
    assert done is not None and (done.copies, done.deleted) == (copies, deleted)
    assert done.details["templateChanged"] is True


def test_an_old_unready_pod_goes_before_a_ready_one() -> None:
    """cleanupUnhealthyReplicas, then the ReplicaSet's deletion order: not ready first."""
    spec = {"strategy": {"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}}}
    done = _run(_deployment(3, "nginx:2", **spec), _deployment(3), _replica_set("web-a", 3, ready=2))
    assert done is not None and done.deleted == ("web-a-2",)


def test_a_paused_deployment_rolls_nothing_out() -> None:
    done = _run(_deployment(2, "nginx:2", paused=True), _deployment(2), _replica_set("web-a", 2))
    assert done is not None and done.copies == 0 and "paused" in done.said


def test_a_rollback_scales_the_old_replica_set_up() -> None:
    """The template of an old ReplicaSet: that one is the new ReplicaSet again (no ReplicaSet made)."""
    children = _replica_set("web-a", 0) + _replica_set("web-b", 2, "nginx:2")
    done = _run(_deployment(2), _deployment(2, "nginx:2"), children)
    assert done is not None and done.copies == 1 and done.details["replicaSet"] == "web-a"


def _sts(replicas: int, image: str = "nginx:1", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": "db", "namespace": "shop", "uid": "s-1"},
            "spec": {"replicas": replicas, "serviceName": "db", "template": _template(image), **spec}}


def _sts_pods(count: int, ready: bool = True) -> list[dict[str, Any]]:
    return [_pod(f"db-{i}", _ref("StatefulSet", "db", "s-1"), ready=ready) for i in range(count)]


@pytest.mark.parametrize("applied, pods, copies, skip, deleted", [
    (_sts(3), 2, 1, 2, ()),                                 # scaled: db-2
    (_sts(2), 2, 0, 0, ()),                                 # the same
    (_sts(2, "nginx:2"), 2, 1, 1, ("db-1",)),               # RollingUpdate: the highest ordinal first
    (_sts(2, "nginx:2", updateStrategy={"type": "OnDelete"}), 2, 0, 0, ()),
    (_sts(3, "nginx:2", updateStrategy={"rollingUpdate": {"partition": 3}}), 3, 0, 0, ()),
    (_sts(1), 2, 0, 0, ("db-1",)),                          # scaled down: db-1 deleted, nothing new
])
def test_a_statefulset(applied: dict[str, Any], pods: int, copies: int, skip: int, deleted: tuple[str, ...]) -> None:
    done = _run(applied, _sts(pods), _sts_pods(pods))
    assert done is not None and (done.copies, done.skip, done.deleted) == (copies, skip, deleted)


def test_an_ordered_statefulset_waits_for_a_pod_not_ready() -> None:
    done = _run(_sts(2, "nginx:2"), _sts(2), _sts_pods(2, ready=False))
    assert done is not None and done.copies == 0 and "waits for db-0" in done.said


@pytest.mark.parametrize("value, total, up, expected", [
    ("25%", 2, True, 1), ("25%", 2, False, 0), (3, 10, False, 3), ("25%", 10, True, 3), ("x", 4, True, 0)])
def test_int_or_percent(value: Any, total: int, up: bool, expected: int) -> None:
    assert int_or_percent(value, total, up) == expected


@pytest.mark.parametrize("replicas, copies, deleted", [(3, 1, ()), (2, 0, ()), (1, 0, ("web-a-1",))])
def test_a_replica_set(replicas: int, copies: int, deleted: tuple[str, ...]) -> None:
    rs, *pods = _replica_set("web-a", 2)
    applied = {**rs, "spec": {**rs["spec"], "replicas": replicas}}
    done = _run(applied, rs, pods)
    assert done is not None and (done.copies, done.deleted) == (copies, deleted)
