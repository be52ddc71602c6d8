"""`--admission-plugins`: the cluster's API server's admission plugins, as kube-apiserver's
`--enable-admission-plugins` names them or a provider's profile, else recognised from the nodes'
labels; said in the answer (text, JSON). On fixtures/admission (a GKE cluster with a tainted GPU
node pool, a GPU pod written as GKE's samples write it, without the toleration)."""
from __future__ import annotations

import json

import pytest

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES

CASE = FIXTURES / "admission"
POD, CLUSTER = str(CASE / "gpu-pod.yaml"), ["--nodes", str(CASE / "gke-cluster.yaml")]
LINE = "Admission: GKE profile (from node labels): ExtendedResourceToleration added nvidia.com/gpu:Exists:NoSchedule"


def kexplain(*args: str) -> tuple[int, str, str]:
    env = TestEnvironment(width=200)
    code = main(list(args), env)
    return code, env.out, env.err


def test_on_gke_the_gpu_pod_tolerates_its_node_pools_taint_and_says_why():
    code, out, err = kexplain(POD, *CLUSTER, "--no-suggestions")
    assert code == 0, err
    assert "Scheduled" in out.splitlines()[0]
    assert LINE in out
    code, out, err = kexplain(POD, *CLUSTER, "--no-suggestions", "-o", "json")
    trace = json.loads(out)
    assert trace["admission"] == {"enabled": ["NodeRestriction", "ExtendedResourceToleration"], "profile": "GKE",
                                  "from": "node labels", "added": [{"plugin": "ExtendedResourceToleration",
                                  "toleration": {"key": "nvidia.com/gpu", "operator": "Exists",
                                                 "effect": "NoSchedule"}}]}


def test_the_page_says_it_too(tmp_path):
    page = tmp_path / "page.html"
    code, _, err = kexplain(POD, *CLUSTER, "--no-suggestions", "--html", str(page))
    assert code == 0, err
    assert '<p class="meta">' + LINE + "</p>" in page.read_text()


def test_default_is_plain_kube_apiserver_untolerated_taint():
    code, out, err = kexplain(POD, *CLUSTER, "--no-suggestions", "--admission-plugins", "default")
    assert code == 1, err
    assert "had untolerated taint" in out and "Admission:" not in out


def test_names_as_kube_apiserver_takes_them_from_the_flag_or_the_environment(tmp_path, monkeypatch):
    plain = tmp_path / "cluster.yaml"       # the same nodes without GKE's labels: nothing to recognise
    plain.write_text((CASE / "gke-cluster.yaml").read_text().replace("cloud.google.com/gke-nodepool", "pool")
                     .replace("gce://", "kind://"))
    code, out, _ = kexplain(POD, "--nodes", str(plain), "--no-suggestions")
    assert code == 1 and "Admission:" not in out
    code, out, err = kexplain(POD, "--nodes", str(plain), "--no-suggestions",
                              "--admission-plugins", "NodeRestriction,ExtendedResourceToleration")
    assert code == 0, err
    assert ("Admission: NodeRestriction, ExtendedResourceToleration (from --admission-plugins): "
            "ExtendedResourceToleration added nvidia.com/gpu:Exists:NoSchedule") in out
    monkeypatch.setenv("KEXPLAIN_ADMISSION_PLUGINS", "EKS")
    code, out, err = kexplain(POD, "--nodes", str(plain), "--no-suggestions")
    assert code == 0, err
    assert "Admission: EKS profile (from $KEXPLAIN_ADMISSION_PLUGINS)" in out


def test_an_unknown_plugin_is_bad_usage_in_kube_apiservers_words():
    code, out, err = kexplain(POD, *CLUSTER, "--admission-plugins", "ExtendedResourceTolerations")
    assert code == 2 and out == ""
    assert 'enable-admission-plugins plugin "ExtendedResourceTolerations" is unknown' in err


def test_lint_follows_it_and_its_config_file_says_it(tmp_path):
    code, out, err = kexplain("lint", POD, *CLUSTER, "--format", "json")
    report = json.loads(out)
    assert code == 0 and [f["rule"] for f in report["findings"]] == ["fits"], err
    assert report["admissionPlugins"]["profile"] == "GKE"
    code, out, _ = kexplain("lint", POD, *CLUSTER, "--admission-plugins", "default")
    assert code == 1 and "untolerated taint" in out
    config = tmp_path / "lint.yaml"
    config.write_text("admissionPlugins: AKS\n")        # AKS does not run ExtendedResourceToleration
    code, out, _ = kexplain("lint", POD, *CLUSTER, "--lint-config", str(config))
    assert code == 1 and f"admission: AKS profile (from {config}: admissionPlugins)" in out
    config.write_text("admissionPlugins: [Bogus]\n")
    code, _, err = kexplain("lint", POD, *CLUSTER, "--lint-config", str(config))
    assert code == 2 and 'plugin "Bogus" is unknown' in err


@pytest.mark.parametrize("command", [["karpenter"], ["autoscale"], ["evict", "drain"], ["lint"], ["explain"]])
def test_every_command_that_admits_pods_takes_it(command: list[str]):
    code, out, _ = kexplain(*command, "--help")
    assert code == 0 and "--admission-plugins" in out


def test_evict_drains_replacement_is_admitted_as_the_cluster_admits_it(tmp_path):
    """A GPU ReplicaSet's pod on a drained GKE GPU node: its replacement (the template, no toleration)
    gets the toleration from GKE's API server and goes to the other GPU node."""
    nodes = (CASE / "gke-cluster.yaml").read_text()
    other = nodes.split("---\n")[1].replace("gke-demo-gpu-pool-3c4d", "gke-demo-gpu-pool-5e6f")
    owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "cuda-7d9f", "uid": "1-2-3", "controller": True}
    objects = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "cuda-7d9f", "uid": "1-2-3"},
                "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "cuda"}},
                         "template": {"metadata": {"labels": {"app": "cuda"}}, "spec": {"containers": [
                             {"name": "c", "image": "c", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}}},
               {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "cuda-7d9f-x", "labels": {"app": "cuda"},
                                                                "ownerReferences": [owner]},
                "spec": {"nodeName": "gke-demo-gpu-pool-3c4d", "tolerations": [
                    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                    "containers": [{"name": "c", "image": "c", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}]
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(nodes + "---\n" + other + "".join("---\n" + json.dumps(o) + "\n" for o in objects))
    args = ["evict", "drain", "gke-demo-gpu-pool-3c4d", "--nodes", str(cluster), "--now", "2026-01-01T00:00:00Z"]
    code, out, err = kexplain(*args, "-o", "json")
    (replacement,) = json.loads(out)["replacements"]
    assert replacement["node"] == "gke-demo-gpu-pool-5e6f", err
    assert replacement["admission"]["added"][0]["toleration"]["key"] == "nvidia.com/gpu"
    code, out, err = kexplain(*args, "--admission-plugins", "default", "-o", "json")
    (replacement,) = json.loads(out)["replacements"]
    assert replacement.get("node") is None and "admission" not in replacement, err


def test_karpenters_and_cas_passes_say_it_for_each_pod():
    karpenter = FIXTURES / "karpenter"
    code, out, err = kexplain("karpenter", str(karpenter / "trainer-untolerating.yaml"), "--nodes",
                              str(karpenter / "cluster.yaml"), "--nodes", str(karpenter / "nodepools.yaml"),
                              "--no-suggestions", "-o", "json")
    doc = json.loads(out)
    assert code == 0 and doc["summary"]["pods"] == {"NewNodeClaim": 1}, err
    assert (doc["admission"]["profile"], doc["admission"]["from"]) == ("EKS", "node providerIDs")
    assert doc["admission"]["added"][0]["pod"] == "default/trainer-untolerating"
    ca = FIXTURES / "autoscaler"       # an EKS model written by hand (no providerIDs): said with the flag
    args = ["autoscale", str(ca / "pod-gpu.yaml"), "--nodes", str(ca / "cluster.yaml"), "--node-groups",
            str(ca / "nodegroups.yaml")]
    code, out, _ = kexplain(*args)
    assert code == 1 and "Admission:" not in out
    code, out, err = kexplain(*args, "--admission-plugins", "EKS")
    assert code == 0, err
    assert ("Admission: EKS profile (from --admission-plugins): ExtendedResourceToleration added "
            "nvidia.com/gpu:Exists:NoSchedule to default/trainer") in out
