"""A pod of a group read live (`kexplain pod NAME`, `--pending`): Kueue loads the group whole, so the
answer for one pod is the group's Workload, built of every pod of the group the cluster holds."""
from __future__ import annotations

import copy
import json

from tests.support.live_server import isolated, recorded_api, run_cli  # noqa: F401 (isolated: autouse)

ROLE = {"metadata": {"namespace": "shop", "creationTimestamp": "2025-11-03T10:00:00Z",
                     "labels": {"kueue.x-k8s.io/queue-name": "shop-queue", "kueue.x-k8s.io/managed": "true",
                                "kueue.x-k8s.io/pod-group-name": "trainers"},
                     "annotations": {"kueue.x-k8s.io/pod-group-total-count": "3"}},
        "spec": {"containers": [{"name": "main", "image": "registry.example.com/train:1",
                                 "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}],
                 "schedulingGates": [{"name": "kueue.x-k8s.io/admission"}],
                 "schedulerName": "default-scheduler", "priority": 0, "restartPolicy": "Never",
                 "preemptionPolicy": "PreemptLowerPriority", "serviceAccountName": "default"},
        "status": {"phase": "Pending", "qosClass": "Burstable"}}


def member(name: str, uid: str) -> dict:
    pod = copy.deepcopy(ROLE)
    pod["metadata"].update(name=name, uid=uid, resourceVersion="600" + uid[-1])
    return pod


def test_one_pod_of_a_group_is_answered_with_the_groups_workload(tmp_path, capsys) -> None:
    with recorded_api(tmp_path, collections=("kueue",)) as api:
        items = api.collections["/api/v1/pods"]["items"]
        items += [member(f"trainers-{i}", f"0d9a6c1e-5b2f-4e3a-9c7d-8f1e2a3b4c5{i}") for i in range(3)]
        code, out, err = run_cli(capsys, "pod", "trainers-1", "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json")
        kueue = json.loads(out)["kueue"]
        assert kueue["workload"] == "shop/trainers", (kueue, err)
        assert kueue["podGroup"]["pods"] == ["trainers-0", "trainers-1", "trainers-2"]
        assert kueue["verdict"] == "Admitted"
        del items[-1]       # two of three: the group waits, whichever pod is asked about
        code, out, err = run_cli(capsys, "pod", "trainers-0", "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json")
        kueue = json.loads(out)["kueue"]
        assert kueue["verdict"] == "NotCreated" and kueue["error"] == "'trainers' group has fewer runnable pods than expected"
