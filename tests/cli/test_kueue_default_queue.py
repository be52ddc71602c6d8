"""The default LocalQueue on every command: a job without a queue name in a namespace with a LocalQueue
named `default` is Kueue's, queued there, for `kexplain`, `kexplain kueue` and `lint` alike; one in
another namespace runs as written (lint says nothing of Kueue for it)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.kueue.builders import cluster_queue, flavor, local_queue
from tests.kueue.test_config_management import job
from tests.support.cli_helpers import run_cli
from tests.support.paths import FIXTURES

NODES = str(FIXTURES / "kueue" / "nodes.yaml")


@pytest.fixture()
def files(tmp_path: Path) -> Path:
    """One CPU of quota, the `default` LocalQueue in team-a; `small` fits it, `big` (2 pods) does not."""
    (tmp_path / "cluster.yaml").write_text("---\n".join([
        flavor("default"), cluster_queue("cq", {"default": {"cpu": "1"}}), local_queue("default", "cq", namespace="team-a")]))
    (tmp_path / "small.yaml").write_text(job("small", ns="team-a"))
    big = yaml.safe_load(job("big", ns="team-a"))
    big["spec"]["parallelism"] = 2
    (tmp_path / "big.yaml").write_text(yaml.safe_dump(big))
    (tmp_path / "elsewhere.yaml").write_text(job("elsewhere"))
    return tmp_path


def test_kueue_queues_the_job_to_the_default_local_queue(files: Path) -> None:
    code, out, err = run_cli("kueue", str(files / "small.yaml"), "--nodes", str(files / "cluster.yaml"), "-o", "json",
                             "--now", "2026-01-01T00:00:00Z")
    doc = json.loads(out)
    assert code == 0, err
    assert doc["jobs"][0]["queueName"] == "default" and doc["workloads"][0]["quotaReserved"] is True


def test_the_chain_says_the_same(files: Path) -> None:
    _, out, _ = run_cli(str(files / "small.yaml"), "--nodes", str(files / "cluster.yaml"), "--nodes", NODES)
    assert "LocalQueue default: Workload team-a/job-small-" in " ".join(out.split())


def test_lint_holds_the_job_that_does_not_fit_and_leaves_the_others_alone(files: Path) -> None:
    code, out, _ = run_cli("lint", str(files / "big.yaml"), "--nodes", str(files / "cluster.yaml"), "--nodes", NODES)
    assert "[kueue-held] Job team-a/big: Kueue holds it" in out
    code, out, _ = run_cli("lint", str(files / "elsewhere.yaml"), "--nodes", str(files / "cluster.yaml"), "--nodes", NODES)
    assert code == 0 and "kueue" not in out.lower()


def test_a_job_in_another_namespace_gets_no_kueue_line(files: Path) -> None:
    """The `default` LocalQueue is team-a's: Kueue's webhook leaves a job elsewhere unlabelled and the
    reconciler leaves it alone, so `kexplain` gives it no Kueue answer at all (not 'not managed')."""
    code, out, err = run_cli(str(files / "elsewhere.yaml"), "--nodes", str(files / "cluster.yaml"), "--nodes", NODES,
                             "-o", "json")
    doc = json.loads(out)
    assert "kueue" not in json.dumps(doc).lower(), err
