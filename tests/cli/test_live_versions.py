"""The Kubernetes version in live mode and in snapshots, end to end against the stand-in API
server (tests/support/live_server.py) answering /version as the test chooses.

Live mode asks /version before anything else and follows the cluster's minor unless
--kubernetes-version (or $KEXPLAIN_KUBERNETES_VERSION) says another; a minor newer than the
newest kexplain follows is explained as that one, with a warning; an older one is refused.
A snapshot records the server's version, and its replay follows it.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kexplain.features import NEWEST, SUPPORTED
from tests.support.live_server import api, isolate, run_cli  # noqa: F401 (api: a fixture)

CHECKOUT = "checkout-6b8d9f7c4-lm3np"         # unschedulable in namespace shop
WEB_PENDING = "web-5f6d8c7b9-x9n2k"           # the scheduler's message differs from kexplain's (stale)
ENV = "KEXPLAIN_KUBERNETES_VERSION"
DRA_AT_SCORE = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      enabled:
      - name: DynamicResources
        weight: 3
"""


@pytest.fixture(autouse=True)
def isolated(monkeypatch, tmp_path):
    isolate(monkeypatch, tmp_path / "home", ENV)


def pod_json(capsys, api, *args: str, name: str = CHECKOUT) -> tuple[int, dict, str]:
    code, out, err = run_cli(capsys, "pod", name, "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json", *args)
    assert out, err
    return code, json.loads(out), err


def followed(trace: dict) -> str:
    return trace["kubernetesVersion"]["minor"]


# --- live mode follows the cluster ------------------------------------------------------------

@pytest.mark.parametrize("git_version, minor", [("v1.36.3", "1.36"), ("v1.34.1", "1.34"),
                                                ("v1.33.0-gke.1200", "1.33")])
def test_live_follows_the_servers_minor(capsys, api, git_version, minor):
    api.serve_version(git_version)
    code, trace, err = pod_json(capsys, api)
    assert followed(trace) == minor
    assert trace["live"]["serverVersion"] == git_version
    assert "another scheduler version" not in " ".join(trace["live"]["notes"])
    assert api.paths()[0] == "/version", "the version is asked before anything else"


def test_the_table_names_the_version_followed(capsys, api):
    api.serve_version("v1.36.3")
    code, out, _ = run_cli(capsys, "pod", CHECKOUT, "-n", "shop", "--kubeconfig", api.kubeconfig)
    assert code == 1
    assert out.splitlines()[1] == "Kubernetes 1.36 (kube-scheduler v1.36.3)"


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_a_version_given_wins_over_the_clusters(capsys, api, monkeypatch, how):
    api.serve_version("v1.36.3")
    if how == "flag":
        monkeypatch.setenv(ENV, "1.33")      # the flag wins over the environment too
        code, trace, _ = pod_json(capsys, api, "--kubernetes-version", "1.34", name=WEB_PENDING)
    else:
        monkeypatch.setenv(ENV, "1.34")
        code, trace, _ = pod_json(capsys, api, name=WEB_PENDING)
    assert followed(trace) == "1.34"
    assert any(n.startswith("another scheduler version: the cluster runs Kubernetes v1.36.3, kexplain followed "
                            "Kubernetes 1.34") for n in trace["live"]["notes"])


def test_a_newer_minor_is_explained_as_the_newest_with_a_warning(capsys, api):
    api.serve_version("v1.37.2")
    code, trace, err = pod_json(capsys, api)
    assert followed(trace) == NEWEST
    [warning] = err.splitlines()
    assert warning.startswith(f"warning: Kubernetes 1.37 is newer than the newest version kexplain follows; "
                              f"explained as {NEWEST}")


def test_an_older_minor_is_refused(capsys, api):
    api.serve_version("v1.32.9")
    code, out, err = run_cli(capsys, "pod", CHECKOUT, "-n", "shop", "--kubeconfig", api.kubeconfig)
    assert code == 2 and out == ""
    [line] = err.splitlines()
    assert line == (f"error: {api.url} runs Kubernetes v1.32.9: Kubernetes 1.32 is not supported: kexplain follows "
                    f"{', '.join(SUPPORTED)} (the oldest is {SUPPORTED[0]}); explain it as a supported version with "
                    "--kubernetes-version")
    assert api.paths() == ["/version"], "nothing else is read"
    code, trace, _ = pod_json(capsys, api, "--kubernetes-version", "1.35")
    assert code == 1 and followed(trace) == "1.35"


def test_the_configuration_is_read_as_the_clusters_scheduler_reads_it(capsys, api, tmp_path):
    """DynamicResources scores from 1.35 on: enabling it at score is refused by a 1.34 scheduler."""
    config = tmp_path / "config.yaml"
    config.write_text(DRA_AT_SCORE)
    args = ("pod", CHECKOUT, "-n", "shop", "--kubeconfig", api.kubeconfig, "--config", str(config))
    api.serve_version("v1.34.7")
    code, _, err = run_cli(capsys, *args)
    assert code == 2 and 'plugin "DynamicResources" does not extend ScorePlugin plugin' in err
    assert len(err.splitlines()) == 1
    assert "/api/v1/nodes" not in api.paths(), "a refused configuration reads no cluster"
    api.serve_version("v1.35.4")
    code, _, err = run_cli(capsys, *args)
    assert code == 1, err


def test_pending_pods_follow_the_cluster_too(capsys, api):
    api.serve_version("v1.36.3")
    code, out, _ = run_cli(capsys, "pod", "--pending", "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json")
    items = json.loads(out)["items"]
    assert items and {followed(t) for t in items} == {"1.36"}
    code, out, _ = run_cli(capsys, "pod", "--pending", "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json",
                       "--kubernetes-version", "1.33")
    assert {followed(t) for t in json.loads(out)["items"]} == {"1.33"}


def test_the_live_scheduler_comparison_blames_no_version_when_they_match(capsys, api):
    api.serve_version("v1.35.1")        # another patch release of the minor followed
    _, trace, _ = pod_json(capsys, api, name=WEB_PENDING)
    assert trace["live"]["agrees"] is False and trace["live"]["notes"][0].startswith("stale:")
    assert not any("another scheduler version" in n for n in trace["live"]["notes"])
    _, trace, _ = pod_json(capsys, api, "--kubernetes-version", "1.36", name=WEB_PENDING)
    assert any(n.startswith("another scheduler version: the cluster runs Kubernetes v1.35.1, kexplain followed "
                            "Kubernetes 1.36 (kube-scheduler v1.36.3)") for n in trace["live"]["notes"])


# --- snapshots record the version, their replay follows it -----------------------------------

def take_snapshot(capsys, api, tmp_path: Path, git_version: str) -> tuple[Path, Path]:
    api.serve_version(git_version)
    out = tmp_path / f"cluster-{git_version}.json"
    code, _, err = run_cli(capsys, "snapshot", CHECKOUT, "-n", "shop", "-o", str(out), "--kubeconfig", api.kubeconfig)
    assert code == 0, err
    assert f"(Kubernetes {git_version}, which a replay follows)" in err
    return out, tmp_path / f"cluster-{git_version}.pod.json"


def replay(capsys, pod: Path, cluster: Path, *args: str) -> tuple[int, dict, str]:
    code, out, err = run_cli(capsys, str(pod), "--nodes", str(cluster), "--stored", "-o", "json", *args)
    return code, json.loads(out) if out else {}, err


def test_a_snapshots_replay_follows_the_version_it_recorded(capsys, api, tmp_path):
    cluster, pod = take_snapshot(capsys, api, tmp_path, "v1.34.7")
    _, live, _ = pod_json(capsys, api)
    code, trace, _ = replay(capsys, pod, cluster)
    assert followed(trace) == followed(live) == "1.34"
    assert trace == {k: v for k, v in live.items() if k != "live"}
    _, trace, _ = replay(capsys, pod, cluster, "--kubernetes-version", "1.36")
    assert followed(trace) == "1.36"


def test_a_snapshot_of_an_unsupported_version_is_refused_unless_told_another(capsys, api, tmp_path):
    cluster, pod = take_snapshot(capsys, api, tmp_path, "v1.31.4")
    code, _, err = replay(capsys, pod, cluster)
    assert code == 2
    assert err.splitlines() == [
        f"error: {cluster}: document 1: the snapshot was taken of Kubernetes v1.31.4: Kubernetes 1.31 is not "
        f"supported: kexplain follows {', '.join(SUPPORTED)} (the oldest is {SUPPORTED[0]}); explain it as a "
        "supported version with --kubernetes-version"]
    code, trace, _ = replay(capsys, pod, cluster, "--kubernetes-version", "1.33")
    assert code == 1 and followed(trace) == "1.33"


def test_a_snapshot_of_a_newer_version_replays_as_the_newest(capsys, api, tmp_path):
    cluster, pod = take_snapshot(capsys, api, tmp_path, "v1.38.0")
    code, trace, err = replay(capsys, pod, cluster)
    assert followed(trace) == NEWEST
    assert err.splitlines() == [f"warning: {cluster}: document 1: the snapshot was taken of Kubernetes v1.38.0: "
                                f"Kubernetes 1.38 is newer than the newest version kexplain follows; explained as "
                                f"{NEWEST}"]


def test_snapshots_of_two_versions_are_refused_together(capsys, api, tmp_path):
    old, pod = take_snapshot(capsys, api, tmp_path, "v1.34.7")
    new = tmp_path / "more.yaml"        # more objects, from a cluster of another version
    new.write_text("apiVersion: kexplain/v1\nkind: ServerVersion\nmetadata: {}\n"
                   "gitVersion: v1.36.3\n")
    code, _, err = replay(capsys, pod, old, "--nodes", str(new))
    assert code == 2
    assert err.splitlines() == [f"error: {old}: document 1 and {new}: document 1 record different Kubernetes "
                                "versions (v1.34.7, v1.36.3): choose the one to follow with --kubernetes-version"]
    code, trace, _ = replay(capsys, pod, old, "--nodes", str(new), "--kubernetes-version", "1.35")
    assert followed(trace) == "1.35"


def lint_json(capsys, pod: Path, cluster: Path, *args: str) -> tuple[int, dict, str]:
    code, out, err = run_cli(capsys, "lint", str(pod), "--nodes", str(cluster), "--stored", "-o", "json", *args)
    return code, json.loads(out) if out else {}, err


def test_lint_against_a_snapshot_follows_the_version_it_recorded(capsys, api, tmp_path):
    cluster, pod = take_snapshot(capsys, api, tmp_path, "v1.34.7")
    _, report, _ = lint_json(capsys, pod, cluster)
    assert report["kubernetesVersion"] == "1.34"
    _, report, _ = lint_json(capsys, pod, cluster, "--kubernetes-version", "1.36")
    assert report["kubernetesVersion"] == "1.36"
    _, report, _ = lint_json(capsys, pod, cluster, "--compare-versions", "1.33,1.36")
    assert report["kubernetesVersion"] == "1.36"


def test_lint_refuses_a_snapshot_of_an_unsupported_version_as_a_replay_does(capsys, api, tmp_path):
    cluster, pod = take_snapshot(capsys, api, tmp_path, "v1.31.4")
    code, _, lint_err = lint_json(capsys, pod, cluster)
    _, _, replay_err = replay(capsys, pod, cluster)
    assert code == 2 and lint_err == replay_err and "the snapshot was taken of Kubernetes v1.31.4" in lint_err
    code, report, _ = lint_json(capsys, pod, cluster, "--kubernetes-version", "1.33")
    assert code != 2 and report["kubernetesVersion"] == "1.33"


def test_lint_against_a_snapshot_of_a_newer_version_warns_and_follows_the_newest(capsys, api, tmp_path):
    cluster, pod = take_snapshot(capsys, api, tmp_path, "v1.38.0")
    _, report, err = lint_json(capsys, pod, cluster)
    assert report["kubernetesVersion"] == NEWEST
    assert "the snapshot was taken of Kubernetes v1.38.0" in err + json.dumps(report)
