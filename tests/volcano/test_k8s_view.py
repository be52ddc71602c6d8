"""The session's kube-scheduler view (`cache.K8sView`): a placement patches the snapshot the plugins
read instead of having it made again, and what it holds is what a snapshot made afresh holds."""
from __future__ import annotations

from typing import Any

from kexplain.model.snapshot import Snapshot
from kexplain.volcano.api.task import new_task
from kexplain.volcano.cache import K8sView


def _node(name: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def _pod(name: str, namespace: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": namespace, "uid": name,
                         "annotations": {"scheduling.k8s.io/group-name": "g"}},
            "spec": {"schedulerName": "volcano", "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]},
            "status": {"phase": "Pending"}}


def _held(snap: Snapshot) -> dict[str, list[tuple[str, str]]]:
    return {ns: sorted((p.name, node.name) for p, node in members) for ns, members in snap.pods_by_namespace.items()}


def test_a_placement_patches_the_snapshot_and_its_pod_index() -> None:
    view = K8sView([_node("n1"), _node("n2")], {"a": {}, "b": {}})
    view.add(new_task(_pod("before", "a")), "n1")             # (no snapshot read yet: the view's own)
    first = view.snapshot
    assert _held(first) == {"a": [("before", "n1")]}
    view.add(new_task(_pod("p1", "a")), "n2")
    view.add(new_task(_pod("p2", "b")), "n2")
    patched = view.snapshot
    assert patched is not first and patched._by_namespace is not None     # (carried over, patched)
    fresh = Snapshot(list(view.infos.values()), view.namespaces)
    assert _held(patched) == _held(fresh) == {"a": [("before", "n1"), ("p1", "n2")], "b": [("p2", "n2")]}
    assert [len(ni.pods) for ni in patched.node_infos] == [1, 2]
    assert _held(first) == {"a": [("before", "n1")]}          # (an earlier snapshot is not changed)
    view.remove(new_task(_pod("p1", "a")), "n2")
    assert _held(view.snapshot) == {"a": [("before", "n1")], "b": [("p2", "n2")]}
