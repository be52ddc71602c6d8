"""A PodDisruptionBudget at `policy/v1beta1` (removed in Kubernetes 1.25; kubernetes/examples'
CockroachDB still ships one): `kexplain FILE` says the API server no longer serves it, and so do
`evict drain`, `evict taints` (stderr, `readWarnings` in JSON, the page) and lint: one mechanism,
the read's own check (`load.manifests.check_objects`), never the budget dropped in silence."""
from __future__ import annotations

import json

import pytest

from kexplain.cli.app import main
from tests.eviction.drain_cluster import cluster, write
from tests.support.cli_helpers import TestEnvironment

NOW = "2026-01-01T00:00:00Z"
SAID = ('PodDisruptionBudget default/web-pdb: apiVersion: no matches for kind "PodDisruptionBudget" in version '
        '"policy/v1beta1": Kubernetes 1.36 does not serve it (use policy/v1)')


def objects() -> list[dict]:
    out = cluster({"maxUnavailable": 0})
    for obj in out:
        if obj["kind"] == "PodDisruptionBudget" and obj["metadata"]["name"] == "web-pdb":
            obj["apiVersion"] = "policy/v1beta1"
    return out


def run(*args: str) -> tuple[int, str, str]:
    env = TestEnvironment()
    code = main(list(args), env)
    return code, env.out, env.err


@pytest.mark.parametrize("family", ["drain", "taints"])
def test_evict_says_the_budget_is_not_served(tmp_path, family):
    path = str(write(tmp_path / "cluster.yaml", objects()))
    code, out, err = run("evict", family, "node-a", "--nodes", path, "--now", NOW, "-o", "json")
    doc = json.loads(out)
    assert [w for w in doc["readWarnings"] if SAID in w], doc.get("readWarnings")
    assert SAID in err and "skipped" in err
    page = tmp_path / "page.html"
    run("evict", family, "node-a", "--nodes", path, "--now", NOW, "--html", str(page))
    assert "does not serve it (use policy/v1)" in page.read_text()


POD = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec: {containers: [{name: c, image: x}]}\n"


def test_drain_and_kexplain_file_say_the_same(tmp_path):
    path = str(write(tmp_path / "cluster.yaml", objects()))
    pod = tmp_path / "pod.yaml"
    pod.write_text(POD)
    _, _, drained = run("evict", "drain", "node-a", "--nodes", path, "--now", NOW)
    _, _, explained = run(str(pod), "--nodes", path)
    said = next(line for line in explained.splitlines() if SAID in line)
    assert said in drained.splitlines()


def test_lint_says_it_of_a_pool_and_of_its_files(tmp_path):
    path = str(write(tmp_path / "cluster.yaml", objects()))
    pod = tmp_path / "pod.yaml"
    pod.write_text(POD)
    _, out, _ = run("lint", str(pod), "--nodes", path)
    assert SAID in out and "skipped" in out
    code, out, _ = run("lint", path)
    assert code == 1 and "[unknown-api-version]" in out and SAID in out
    assert "[pdb-blocks-drain]" not in out      # the budget the API server refuses blocks nothing
