"""A Workload as the cluster stores it, beside what the pass computes (kexplain/kueue/workload/stored.py,
topology_domains.py, document.py `stored_beside`, render/kueue.py `stored_blocks`): its admission check
states and each pod set's topology assignment read back as domains."""
from __future__ import annotations

import io

import yaml
from rich.console import Console

from kexplain.kueue.explain import explained_pass
from kexplain.kueue.workload.stored import stored_status
from kexplain.kueue.workload.topology_domains import stored_domains
from kexplain.render.kueue import print_pass
from tests.kueue.builders import cluster_queue, flavor, local_queue, run, workload

V1BETA2 = {"levels": ["cloud.com/block", "kubernetes.io/hostname"],
           "slices": [{"domainCount": 3,
                       "valuesPerLevel": [{"universal": "b1"},
                                          {"individual": {"prefix": "node-", "suffix": "-x",
                                                          "roots": ["a", "b", "c"]}}],
                       "podCounts": {"individual": [2, 1, 1]}},
                      {"domainCount": 2, "valuesPerLevel": [{"individual": {"roots": ["b2", "b3"]}},
                                                            {"universal": "n9"}],
                       "podCounts": {"universal": 4}}]}


def test_v1beta2_slices_read_back_as_domains() -> None:
    assert stored_domains(V1BETA2) == [
        {"values": ["b1", "node-a-x"], "count": 2}, {"values": ["b1", "node-b-x"], "count": 1},
        {"values": ["b1", "node-c-x"], "count": 1}, {"values": ["b2", "n9"], "count": 4},
        {"values": ["b3", "n9"], "count": 4}]


def test_v1beta1_domains_as_given() -> None:
    assert stored_domains({"levels": ["h"], "domains": [{"values": ["n1"], "count": 3}]}) == [
        {"values": ["n1"], "count": 3}]
    assert stored_domains(None) == [] and stored_domains({"levels": ["h"]}) == []


def _waiting(check_state: str = "Retry") -> str:
    """A Workload holding quota in cq, its check `capacity` stored in `check_state`, its pod set placed
    by a topology assignment."""
    obj = yaml.safe_load(workload("wl", "q", {"cpu": "1"}, admitted_in="cq", uid="uid-wl"))
    obj["status"]["conditions"] = obj["status"]["conditions"][:1]          # QuotaReserved only
    obj["status"]["admissionChecks"] = [{"name": "capacity", "state": check_state, "message": "no capacity yet",
                                         "lastTransitionTime": "2025-12-31T23:00:00Z"}]
    obj["status"]["admission"]["podSetAssignments"][0]["topologyAssignment"] = {
        "levels": ["kubernetes.io/hostname"],
        "slices": [{"domainCount": 1, "valuesPerLevel": [{"universal": "node-1"}], "podCounts": {"universal": 1}}]}
    return yaml.safe_dump(obj)


def test_stored_status_keeps_checks_and_topology() -> None:
    got = stored_status(yaml.safe_load(_waiting()))
    assert got["admissionChecks"][0]["state"] == "Retry"
    assert got["topologyDomains"] == {"main": {"levels": ["kubernetes.io/hostname"],
                                               "domains": [{"values": ["node-1"], "count": 1}]}}


def test_the_document_and_the_text_show_them_beside_the_computed() -> None:
    docs = [flavor("default"), cluster_queue("cq", {"default": {"cpu": "4"}}), local_queue("q", "cq"), _waiting()]
    doc = explained_pass(run(*docs))
    [item] = [w for w in doc["workloads"] if w["name"] == "wl"]
    assert item["stored"]["admissionChecks"][0]["state"] == "Retry"
    assert item["stored"]["topologyDomains"]["main"]["domains"] == [{"values": ["node-1"], "count": 1}]
    out = io.StringIO()
    print_pass(doc, Console(file=out, width=200, force_terminal=False))
    text = out.getvalue()
    assert "As stored, beside kexplain's pass" in text
    assert "- default/wl:" in text
    assert "check capacity: stored Retry (no capacity yet); now" in text
    assert "pod set main topology (kubernetes.io/hostname): stored node-1 (1); now" in text


def test_nothing_stored_nothing_shown() -> None:
    docs = [flavor("default"), cluster_queue("cq", {"default": {"cpu": "4"}}), local_queue("q", "cq"),
            workload("wl", "q", {"cpu": "1"}, admitted_in="cq")]
    doc = explained_pass(run(*docs))
    assert not any("stored" in w for w in doc["workloads"])
