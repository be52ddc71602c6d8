"""`--kueue-config FILE` (kexplain/kueue/config_file.py): Kueue's Configuration from its own file, on
`kexplain kueue`, plain `kexplain` and `kexplain lint`; the same as the document given among the
cluster's objects, and what Kueue's loader refuses a one-line error, exit 2."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.kueue.builders import workload
from tests.kueue.test_fair_sharing import admitted, config, queues
from tests.support.cli_helpers import run_cli
from tests.support.paths import FIXTURES

NOW = ["--now", "2026-01-01T00:00:00Z"]
BAD = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
       "fairSharing": {"preemptionStrategies": ["LessThanInitialShare", "LessThanOrEqualToFinalShare"]}}


kexplain = run_cli


@pytest.fixture()
def fair(tmp_path: Path) -> Path:
    """b borrows past its quota; a's job needs it back: a fair-sharing preemption only with the Configuration."""
    (tmp_path / "cluster.yaml").write_text("---\n".join([*queues(), admitted("a-1", "a", "8"),
                                                        admitted("b-1", "b", "12"), admitted("b-2", "b", "4")]))
    (tmp_path / "job.yaml").write_text(workload("a-job", "a-q", {"cpu": "4"}, namespace="a"))
    (tmp_path / "config.yaml").write_text(config(strategies=["LessThanInitialShare"]))
    (tmp_path / "with-config.yaml").write_text((tmp_path / "cluster.yaml").read_text() + "\n---\n"
                                               + (tmp_path / "config.yaml").read_text())
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(BAD))
    return tmp_path


def _preempted(out: str) -> list[str]:
    doc = json.loads(out)
    return sorted(f"{w['namespace']}/{w['name']}" for w in doc["workloads"]
                  if any(c.get("type") == "Preempted" and c.get("status") == "True" for c in w.get("conditions") or ()))


def test_the_option_is_the_document_among_the_objects(fair: Path) -> None:
    job = str(fair / "job.yaml")
    _, given, _ = kexplain("kueue", job, "--nodes", str(fair / "with-config.yaml"), "-o", "json", *NOW)
    _, option, err = kexplain("kueue", job, "--nodes", str(fair / "cluster.yaml"), "--kueue-config",
                              str(fair / "config.yaml"), "-o", "json", *NOW)
    _, none, _ = kexplain("kueue", job, "--nodes", str(fair / "cluster.yaml"), "-o", "json", *NOW)
    assert option == given, err
    assert option != none


@pytest.mark.parametrize("command", [
    ["kueue", "{job}", "--nodes", "{cluster}"],
    [str(FIXTURES / "kueue" / "eval.yaml"), "--nodes", str(FIXTURES / "kueue" / "cluster.yaml"), "--nodes",
     str(FIXTURES / "kueue" / "nodes.yaml")],
    ["lint", str(FIXTURES / "kueue" / "eval.yaml"), "--nodes", str(FIXTURES / "kueue" / "cluster.yaml")],
])
def test_what_kueue_refuses_is_one_line_exit_2(fair: Path, command: list[str]) -> None:
    args = [a.format(job=fair / "job.yaml", cluster=fair / "cluster.yaml") for a in command]
    code, out, err = kexplain(*args, "--kueue-config", str(fair / "bad.yaml"))
    assert code == 2 and not out
    line, = err.strip().splitlines()
    assert "bad.yaml" in line and "fairSharing.preemptionStrategies: Unsupported value" in line


def test_a_file_of_another_kind_is_refused(fair: Path) -> None:
    code, _, err = kexplain("kueue", str(fair / "job.yaml"), "--nodes", str(fair / "cluster.yaml"),
                            "--kueue-config", str(fair / "cluster.yaml"))
    assert code == 2 and "--kueue-config: one Configuration document expected" in err


@pytest.mark.parametrize("command", [
    [str(FIXTURES / "kueue" / "eval.yaml"), "--nodes", str(FIXTURES / "kueue" / "cluster.yaml"), "--nodes",
     str(FIXTURES / "kueue" / "nodes.yaml"), "-o", "json"],
    ["lint", str(FIXTURES / "kueue" / "eval.yaml"), "--nodes", str(FIXTURES / "kueue" / "cluster.yaml"),
     "-o", "json"],
])
def test_a_good_configuration_reaches_kueues_pass(fair: Path, command: list[str]) -> None:
    """The Configuration is Kueue's: plain kexplain and lint answer as they do without it (fair
    sharing changes nothing for a Job that fits)."""
    without = kexplain(*command)
    given = kexplain(*command, "--kueue-config", str(fair / "config.yaml"))
    assert given[0] == without[0] and given[1] == without[1]


def test_plain_kexplain_follows_the_configuration(fair: Path) -> None:
    """A Job of team a under the fair fixture: with the Configuration Kueue preempts b's Workload for it
    (pending the preemption); without, a's reclaim is classical and nothing is preempted."""
    job = {"apiVersion": "batch/v1", "kind": "Job",
           "metadata": {"name": "a-job", "namespace": "a", "labels": {"kueue.x-k8s.io/queue-name": "a-q"},
                        "creationTimestamp": "2025-12-31T23:50:00Z"},
           "spec": {"suspend": True, "template": {"spec": {"restartPolicy": "Never", "containers": [
               {"name": "main", "image": "busybox", "resources": {"requests": {"cpu": "4"}}}]}}}}
    (fair / "a-job.yaml").write_text(yaml.safe_dump(job))
    args = [str(fair / "a-job.yaml"), "--nodes", str(fair / "cluster.yaml"), "--nodes",
            str(FIXTURES / "kueue" / "nodes.yaml"), "-o", "json"]
    _, out, err = kexplain(*args, "--kueue-config", str(fair / "config.yaml"))
    given = json.loads(out)["placements"][0]["kueue"]
    _, out, _ = kexplain(*args)
    without = json.loads(out)["placements"][0]["kueue"]
    assert (given["verdict"], without["verdict"]) == ("PendingPreemption", "Pending"), err
    assert given["message"].endswith("Pending the preemption of 1 workload(s)")


def test_what_is_not_modelled_is_said_in_the_answer(fair: Path) -> None:
    """A field Kueue's decisions read but kexplain does not model: in Kueue's answer (JSON and text) and
    in `kexplain kueue`'s document, and on its stderr."""
    (fair / "manage.yaml").write_text(yaml.safe_dump({"apiVersion": "config.kueue.x-k8s.io/v1beta2",
                                                      "kind": "Configuration", "featureGates": {"PrioritySortingWithinCohort": False}}))
    args = [str(FIXTURES / "kueue" / "eval.yaml"), "--nodes", str(FIXTURES / "kueue" / "cluster.yaml"), "--nodes",
            str(FIXTURES / "kueue" / "nodes.yaml"), "--kueue-config", str(fair / "manage.yaml")]
    _, out, _ = kexplain(*args, "-o", "json")
    note = json.loads(out)["placements"][0]["kueue"]["configurationNote"]
    assert note.startswith("the Configuration's featureGates.PrioritySortingWithinCohort: read and validated as Kueue's "
                           "loader does, not modelled")
    _, out, _ = kexplain(*args)
    assert "Note: the Configuration's featureGates.PrioritySortingWithinCohort" in " ".join(out.split())
    code, out, err = kexplain("kueue", str(fair / "job.yaml"), "--nodes", str(fair / "cluster.yaml"),
                              "--kueue-config", str(fair / "manage.yaml"), "-o", "json", *NOW)
    assert json.loads(out)["configurationNote"] == note and f"warning: {note}" in err


@pytest.mark.parametrize("command", [
    ["kueue", str(FIXTURES / "kueue" / "eval.yaml"), "--nodes", str(FIXTURES / "kueue" / "cluster.yaml")],
    [str(FIXTURES / "kueue" / "eval.yaml"), "--nodes", str(FIXTURES / "kueue" / "cluster.yaml"), "--nodes",
     str(FIXTURES / "kueue" / "nodes.yaml")],
    ["lint", str(FIXTURES / "kueue" / "eval.yaml"), "--nodes", str(FIXTURES / "kueue" / "cluster.yaml")],
])
def test_a_feature_gate_kueue_does_not_know_is_one_line_exit_2(tmp_path: Path, command: list[str]) -> None:
    """featureGates are checked by the pass against the release it runs (`--kueue-version`)."""
    (tmp_path / "gates.yaml").write_text(yaml.safe_dump({**BAD, "fairSharing": None,
                                                         "featureGates": {"NoSuchGate": True}}))
    code, out, err = kexplain(*command, "--kueue-config", str(tmp_path / "gates.yaml"))
    assert code == 2 and not out
    line, = err.strip().splitlines()
    assert line.endswith('featureGates: Invalid value: {"NoSuchGate":true}: unrecognized feature gate: NoSuchGate')
