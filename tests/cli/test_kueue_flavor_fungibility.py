"""`featureGates: {FlavorFungibility: false}` on `kexplain kueue`: modelled (the flavor assigner's
search as Kueue's with the gate off), so no longer said as not modelled."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.kueue.builders import cluster_queue, flavor, local_queue, workload
from tests.support.cli_helpers import run_cli

NOW = ["--now", "2026-01-01T00:00:00Z"]


@pytest.fixture()
def files(tmp_path: Path) -> Path:
    """Flavor a needs preemption (the ClusterQueue may stop there), flavor b fits."""
    cq = cluster_queue("cq", {"a": {"cpu": "4"}, "b": {"cpu": "8"}}, flavorFungibility={"whenCanPreempt": "MayStopSearch"},
                       preemption={"withinClusterQueue": "LowerPriority"})
    (tmp_path / "cluster.yaml").write_text("---\n".join([
        flavor("a"), flavor("b"), local_queue("q", "cq"), cq,
        workload("old", "q", {"cpu": "3"}, admitted_in="cq", flavors={"cpu": "a"})]))
    (tmp_path / "job.yaml").write_text(workload("w", "q", {"cpu": "2"}, priority=10))
    for name, gate in (("on", True), ("off", False)):
        (tmp_path / f"{name}.yaml").write_text(yaml.safe_dump({
            "apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
            "featureGates": {"FlavorFungibility": gate}}))
    return tmp_path


@pytest.mark.parametrize(("gate", "exit_code", "flavors", "preempted"), [
    ("on", 1, {}, True),                # w preempts old in a, and waits for it to go
    ("off", 0, {"cpu": "b"}, False),    # the policy ignored: b fits, admitted there
])
def test_the_gate_off_is_modelled_and_not_said(files: Path, gate: str, exit_code: int, flavors: dict,
                                               preempted: bool) -> None:
    code, out, err = run_cli("kueue", str(files / "job.yaml"), "--nodes", str(files / "cluster.yaml"),
                             "--kueue-config", str(files / f"{gate}.yaml"), "-o", "json", *NOW)
    doc = json.loads(out)
    by_name = {w["name"]: w for w in doc["workloads"]}
    assert code == exit_code and "configurationNote" not in doc and "FlavorFungibility" not in err
    assert by_name["old"]["preempted"] is preempted
    assert {k: v for ps in by_name["w"].get("podSetAssignments", ()) for k, v in ps["flavors"].items()} == flavors


def test_the_text_says_why_the_search_went_on(files: Path) -> None:
    """Flavor b too small, a needs preemption: with the gate off the search goes past a (only a fit
    stops it), finds no fit, and takes a's preemption; w pending, the text says why it went on past a,
    in words, not its key."""
    cluster = (files / "cluster.yaml").read_text().replace("nominalQuota: '8'", "nominalQuota: '1'")
    assert cluster != (files / "cluster.yaml").read_text()
    (files / "small-b.yaml").write_text(cluster)
    _, out, _ = run_cli("kueue", str(files / "job.yaml"), "--nodes", str(files / "small-b.yaml"),
                        "--kueue-config", str(files / "off.yaml"), *NOW)
    words = " ".join(out.split())
    assert "the search went on (the FlavorFungibility gate is off: only a flavor that fits stops the search)" in words
    assert "FlavorFungibility=false" not in words
