"""MultiKueue on the manager cluster (kexplain/kueue/controller/admissionchecks/multikueue.py,
apis/multikueue.py): a MultiKueue check is Active as Kueue's check controller sets it from its
MultiKueueConfig and MultiKueueClusters, so its ClusterQueue is active or not in Kueue's words; a
Workload reserved there waits with the check Pending, what the workers do not seen."""
from __future__ import annotations

import json

import pytest
import yaml

from kexplain.kueue.apis.admissioncheck import parse_admission_check
from kexplain.kueue.apis.multikueue import parse_multikueue_cluster, parse_multikueue_config
from kexplain.kueue.controller.admissionchecks.multikueue import active_condition, with_active_conditions
from kexplain.kueue.workload.workload import has_quota_reservation
from tests.kueue.builders import cluster_queue, flavor, local_queue, run, workload
from tests.support.cli_helpers import run_cli

MK = "kueue.x-k8s.io/multikueue"
REF = {"apiGroup": "kueue.x-k8s.io", "kind": "MultiKueueConfig", "name": "cfg"}


def check(params: dict | None = REF, status: dict | None = None) -> dict:
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "AdmissionCheck", "metadata": {"name": "mk"},
            "spec": {"controllerName": MK, **({"parameters": params} if params is not None else {})},
            **({"status": status} if status else {})}


def config(*clusters: str) -> dict:
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "MultiKueueConfig", "metadata": {"name": "cfg"},
            "spec": {"clusters": list(clusters)}}


def cluster(name: str, active: bool) -> dict:
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "MultiKueueCluster", "metadata": {"name": name},
            "status": {"conditions": [{"type": "Active", "status": str(active), "reason": "Active" if active else
                                       "ClientConnectionFailed", "message": "m"}]}}


@pytest.mark.parametrize(("params", "clusters", "want"), [
    (REF, {"w1": True, "w2": True}, (True, "Active", "The admission check is active")),
    (REF, {"w1": True}, (True, "SomeActiveClusters", "Missing clusters: [w2]")),
    (REF, {"w1": False, "w2": True}, (True, "SomeActiveClusters", "Inactive clusters: [w1]")),
    (REF, {"w2": False}, (False, "NoUsableClusters", "Missing clusters: [w1], Inactive clusters: [w2]")),
    (None, {}, (False, "BadConfig", "Cannot load the AdmissionChecks parameters: missing parameters reference")),
    ({**REF, "kind": "ProvisioningRequestConfig"}, {},
     (False, "BadConfig", 'Cannot load the AdmissionChecks parameters: wrong kind "ProvisioningRequestConfig", '
                          'expecting "MultiKueueConfig": bad parameters reference')),
    ({**REF, "name": "other"}, {},
     (False, "BadConfig", 'Cannot load the AdmissionChecks parameters: multikueueconfigs.kueue.x-k8s.io "other" '
                          'not found')),
])
def test_the_active_condition_in_kueues_words(params, clusters, want) -> None:
    ac = parse_admission_check(check(params))
    configs = {"cfg": parse_multikueue_config(config("w1", "w2"))}
    found = {n: parse_multikueue_cluster(cluster(n, a)) for n, a in clusters.items()}
    assert active_condition(ac, configs, found) == want


def test_a_stored_condition_stands_when_the_multikueue_objects_are_not_given() -> None:
    stored = parse_admission_check(check(status={"conditions": [{"type": "Active", "status": "True",
                                                                 "reason": "Active", "message": "ok"}]}))
    assert with_active_conditions({"mk": stored}, {}, {}, seen=False)["mk"].active
    assert not with_active_conditions({"mk": stored}, {}, {}, seen=True)["mk"].active
    bare = parse_admission_check(check())      # no condition: the controller would set one
    got = with_active_conditions({"mk": bare}, {}, {}, seen=False)["mk"]
    assert (got.active, got.inactive_reason) == (False, "BadConfig")


def docs(*mk: dict) -> list[str]:
    return [flavor("default"), cluster_queue("cq", {"default": {"cpu": "4"}},
                                             admissionChecksStrategy={"admissionChecks": [{"name": "mk"}]}),
            local_queue("q", "cq"), yaml.safe_dump(check()), *map(yaml.safe_dump, mk)]


JOB = workload("train", "q", {"cpu": "1"})


def test_a_workload_reserves_quota_and_waits_for_the_workers() -> None:
    done = run(*docs(config("w1", "w2"), cluster("w1", True)), submitted=(JOB,))
    wl = done.workloads["default/train"]
    assert has_quota_reservation(wl) and not wl.is_true("Admitted")
    assert [(c.name, c.state) for c in wl.admission_checks] == [("mk", "Pending")]


def test_no_usable_cluster_leaves_the_cluster_queue_inactive() -> None:
    done = run(*docs(config("w1"), cluster("w1", False)), submitted=(JOB,))
    wl = done.workloads["default/train"]
    assert not has_quota_reservation(wl)
    assert wl.find("QuotaReserved").message == "ClusterQueue cq is inactive"


def test_the_text_says_why(tmp_path) -> None:
    (tmp_path / "c.yaml").write_text("---\n".join(docs(config("w1"), cluster("w1", False))))
    (tmp_path / "w.yaml").write_text(JOB)
    code, out, _ = run_cli("kueue", str(tmp_path / "w.yaml"), "--nodes", str(tmp_path / "c.yaml"),
                           "--now", "2026-01-01T00:00:00Z")
    assert code == 1
    assert "admission check mk is not Active: NoUsableClusters: Inactive clusters: [w1]" in " ".join(out.split())
    (tmp_path / "c.yaml").write_text("---\n".join(docs(config("w1"), cluster("w1", True))))
    code, out, _ = run_cli("kueue", str(tmp_path / "w.yaml"), "--nodes", str(tmp_path / "c.yaml"),
                           "--now", "2026-01-01T00:00:00Z", "-o", "json")
    item, = [w for w in json.loads(out)["workloads"] if w["name"] == "train"]
    assert item["admissionChecks"] == [{"name": "mk", "state": "Pending", "controller": MK,
                                        "note": "dispatched to worker clusters; kexplain cannot see them"}]
    code, out, _ = run_cli("kueue", str(tmp_path / "w.yaml"), "--nodes", str(tmp_path / "c.yaml"),
                           "--now", "2026-01-01T00:00:00Z")
    assert "check mk Pending: dispatched to worker clusters; kexplain cannot see them" in " ".join(out.split())


def test_kueues_own_check_message_is_kept_from_the_stored_workload(tmp_path) -> None:
    """A Workload given as Kueue stored it (say, live), reserved with the check's message from the
    MultiKueue workload controller: that message is said beside what kexplain cannot see."""
    stored = yaml.safe_load(workload("train", "q", {"cpu": "1"}, admitted_in="cq"))
    stored["status"]["conditions"] = [c for c in stored["status"]["conditions"] if c["type"] == "QuotaReserved"]
    stored["status"]["admissionChecks"] = [{"name": "mk", "state": "Pending", "lastTransitionTime":
                                            "2025-12-31T23:00:00Z", "message": 'The workload got reservation on "w1"'}]
    (tmp_path / "c.yaml").write_text("---\n".join(docs(config("w1"), cluster("w1", True))))
    (tmp_path / "w.yaml").write_text(yaml.safe_dump(stored))
    code, out, _ = run_cli("kueue", str(tmp_path / "w.yaml"), "--nodes", str(tmp_path / "c.yaml"),
                           "--now", "2026-01-01T00:00:00Z")
    assert ('check mk Pending (The workload got reservation on "w1"): dispatched to worker clusters; kexplain '
            'cannot see them') in " ".join(out.split())
