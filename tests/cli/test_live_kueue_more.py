"""Kueue's other kinds read live (kexplain/load/live.py `KUEUE`, `KUEUE_CONFIG`): Topologies,
AdmissionChecks, ProvisioningRequestConfigs, ProvisioningRequests and the manager ConfigMap (its
Configuration) from the stand-in API server; a refusal or a missing CRD said once; `kexplain
snapshot` keeps them for every command; a Workload holding quota while its admission checks wait
is held too (the --pending / -A list), its stored check states beside Kueue's answer."""
from __future__ import annotations

import json

import pytest
import yaml

from kexplain.load.live import KUEUE, RESOURCES
from tests.cli.test_live_kueue import CLUSTER_QUEUES, WORKLOADS, api, held  # noqa: F401 (fixtures)
from tests.support.live_server import Rbac, isolated, run_cli  # noqa: F401 (isolated: autouse)

CONFIG_MAP = "/api/v1/namespaces/kueue-system/configmaps/kueue-manager-config"
TOPOLOGIES = "/apis/kueue.x-k8s.io/v1beta2/topologies"
EVERY_KIND = frozenset(r.plural for r in (*RESOURCES, *KUEUE)) | {"daemonsets", "nodepools", "nodeclaims",
                                                                 "configmaps"}


def config_map(**configuration) -> dict:
    text = yaml.safe_dump({"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration", **configuration})
    return {"kind": "ConfigMap", "apiVersion": "v1",
            "metadata": {"name": "kueue-manager-config", "namespace": "kueue-system", "uid": "cm-1",
                         "resourceVersion": "1", "creationTimestamp": "2025-11-01T08:00:00Z"},
            "data": {"controller_manager_config.yaml": text}}


def test_snapshot_keeps_the_new_kinds_and_the_config_map(api, capsys, tmp_path) -> None:
    api.objects[CONFIG_MAP] = config_map(fairSharing={"preemptionStrategies": ["LessThanInitialShare"]})
    snap = tmp_path / "cluster.json"
    code, _, err = run_cli(capsys, "snapshot", "-o", str(snap), "--kubeconfig", api.kubeconfig)
    assert code == 0, err
    items = json.loads(snap.read_text())["items"]
    kinds = {item.get("kind") for item in items}
    assert {"Topology", "AdmissionCheck", "ProvisioningRequestConfig", "ProvisioningRequest"} <= kinds
    [cm] = [i for i in items if i.get("kind") == "ConfigMap" and i["metadata"]["name"] == "kueue-manager-config"]
    assert "LessThanInitialShare" in cm["data"]["controller_manager_config.yaml"]
    assert CONFIG_MAP in api.paths()


def test_a_configuration_kueue_refuses_is_one_line_live_and_from_the_snapshot(api, capsys, tmp_path) -> None:
    """The ConfigMap's Configuration goes through Kueue's pass: one Kueue's loader refuses stops it, exit 2,
    live and when the snapshot is read back."""
    api.objects[CONFIG_MAP] = config_map(fairSharing={"preemptionStrategies": ["Fastest"]})
    code, out, err = run_cli(capsys, "pod", "notebook", "-n", "shop", "--kubeconfig", api.kubeconfig)
    line, = [ln for ln in err.splitlines() if ln.startswith("error:")]
    assert code == 2 and "ConfigMap kueue-system/kueue-manager-config controller_manager_config.yaml" in line
    assert 'Unsupported value: []v1beta2.PreemptionStrategy{"Fastest"}' in line
    snap = tmp_path / "cluster.json"
    assert run_cli(capsys, "snapshot", "-o", str(snap), "--kubeconfig", api.kubeconfig)[0] == 0
    job = tmp_path / "job.yaml"
    job.write_text(yaml.safe_dump({"apiVersion": "batch/v1", "kind": "Job", "metadata": {
        "name": "j", "namespace": "shop", "labels": {"kueue.x-k8s.io/queue-name": "shop-queue"}},
        "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "b"}]}}}}))
    code, _, err = run_cli(capsys, "kueue", str(job), "--nodes", str(snap))
    assert code == 2 and "Fastest" in err


def test_no_config_map_is_a_note(api, capsys) -> None:
    _, _, err = run_cli(capsys, "pod", "notebook", "-n", "shop", "--kubeconfig", api.kubeconfig)
    assert err.count("no ConfigMap kueue-system/kueue-manager-config: Kueue's Configuration is taken as its "
                     "defaults") == 1


def test_a_refused_topology_read_is_said_once_and_the_rest_goes_on(api, capsys) -> None:
    api.faults.rbac = Rbac(cluster=EVERY_KIND - {"topologies"})
    code, out, err = run_cli(capsys, "pod", "notebook", "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json")
    assert err.count("list topologies: Kueue's Topologies") == 1, err
    assert json.loads(out)["kueue"]["verdict"] == "Admitted"


def test_a_missing_crd_is_a_note_once(api, capsys) -> None:
    del api.collections[TOPOLOGIES]
    code, out, err = run_cli(capsys, "pod", "notebook", "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json")
    assert err.count("topologies are not served (kueue.x-k8s.io/v1beta2, kueue.x-k8s.io/v1beta1, "
                     "kueue.x-k8s.io/v1alpha1: the Topology CRD is not installed): none read") == 1, err
    assert json.loads(out)["kueue"]["verdict"] == "Admitted"


@pytest.fixture
def waiting(held):
    """The held Job's Workload holding quota in shop-cq (QuotaReserved=True, no Admitted) while shop-cq's
    admission check `capacity` is Pending for it."""
    cq = held.collections[CLUSTER_QUEUES]["items"][0]
    cq["spec"]["admissionChecksStrategy"] = {"admissionChecks": [{"name": "capacity"}]}
    wl = held.collections[WORKLOADS]["items"][0]
    wl["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "1"
    wl["status"] = {
        "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                        "message": "Quota reserved in ClusterQueue shop-cq",
                        "lastTransitionTime": "2025-11-03T10:00:02Z"}],
        "admission": {"clusterQueue": "shop-cq", "podSetAssignments": [
            {"name": "main", "flavors": {"cpu": "zone-a", "memory": "zone-a"},
             "resourceUsage": {"cpu": "3", "memory": "3Gi"}, "count": 3}]},
        "admissionChecks": [{"name": "capacity", "state": "Pending", "message": "waiting for capacity",
                             "lastTransitionTime": "2025-11-03T10:00:03Z"}]}
    return held


def test_a_workload_waiting_for_its_checks_is_held(waiting, capsys) -> None:
    code, out, err = run_cli(capsys, "pod", "-A", "--kubeconfig", waiting.kubeconfig, "-o", "json")
    [found] = json.loads(out)["kueueHeld"]
    assert code == 1, err
    kueue = found["kueue"]
    assert kueue["verdict"] == "QuotaReserved" and kueue["clusterQueue"] == "shop-cq"
    assert kueue["message"] == ("quota reserved in ClusterQueue shop-cq; waiting for admission checks: capacity "
                                "(Pending: waiting for capacity)")
    assert kueue["admissionChecks"][0]["state"] == "Pending"              # computed
    assert kueue["live"]["admissionChecks"][0]["state"] == "Pending"      # as stored, beside


def test_the_held_row_says_the_checks(waiting, capsys) -> None:
    code, out, _ = run_cli(capsys, "pod", "--pending", "-n", "shop", "--kubeconfig", waiting.kubeconfig)
    row = next(line for line in out.splitlines() if line.startswith("Job shop/train"))
    assert "QuotaReserved" in row and row.endswith("waiting for admission checks: capacity (Pending: waiting for "
                                                   "capacity); pod set main: quota reserved on flavor zone-a")
    assert code == 1


def test_an_admitted_workload_is_not_held(waiting, capsys) -> None:
    status = waiting.collections[WORKLOADS]["items"][0]["status"]
    status["conditions"].append({"type": "Admitted", "status": "True", "reason": "Admitted", "message": "ok",
                                 "lastTransitionTime": "2025-11-03T10:00:04Z"})
    status["admissionChecks"][0]["state"] = "Ready"
    code, out, _ = run_cli(capsys, "pod", "-A", "--kubeconfig", waiting.kubeconfig)
    assert out == "No pod in any namespace is Pending with PodScheduled=False.\n" and code == 0


def test_a_pods_stored_checks_and_topology_are_shown_beside(api, capsys) -> None:
    wl = api.collections[WORKLOADS]["items"][0]
    wl["status"]["admissionChecks"] = [{"name": "capacity", "state": "Retry", "message": "no capacity",
                                        "lastTransitionTime": "2025-11-03T10:00:03Z"}]
    wl["status"]["admission"] = {"clusterQueue": "shop-cq", "podSetAssignments": [
        {"name": "main", "flavors": {"cpu": "zone-a"}, "resourceUsage": {"cpu": "1"}, "count": 1,
         "topologyAssignment": {"levels": ["kubernetes.io/hostname"], "slices": [
             {"domainCount": 1, "valuesPerLevel": [{"universal": "node-a1"}], "podCounts": {"universal": 1}}]}}]}
    _, out, _ = run_cli(capsys, "pod", "notebook", "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json")
    live = json.loads(out)["kueue"]["live"]
    assert live["admissionChecks"][0]["state"] == "Retry"
    assert live["topologyDomains"]["main"]["domains"] == [{"values": ["node-a1"], "count": 1}]
    _, out, _ = run_cli(capsys, "pod", "notebook", "-n", "shop", "--kubeconfig", api.kubeconfig)
    flat = " ".join(out.split())
    assert "admission check capacity: Retry: no capacity" in flat
    assert "pod set main: topology kubernetes.io/hostname: node-a1 (1)" in flat
