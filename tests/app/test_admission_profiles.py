"""The admission plugins a cluster's API server runs, recognised from its nodes once as the files are
read (`admission.providers`), and followed by every pass that admits pods: `kexplain POD`'s one pod
and its pool, Karpenter's pass. On fixtures/admission (GKE) and fixtures/karpenter (EKS by providerID)."""
from __future__ import annotations

from kexplain.app.explain import read_files
from kexplain.explain.inputs import load_pool
from kexplain.explain.request import Request, VersionChoice
from kexplain.features import KubeVersion
from kexplain.karpenter.pending import load_pods_pass
from tests.support.paths import FIXTURES

GKE = FIXTURES / "admission"
EKS = FIXTURES / "karpenter"
GPU = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


def test_one_pod_is_admitted_by_the_recognised_api_server():
    req = Request(pod_path=str(GKE / "gpu-pod.yaml"), node_paths=(str(GKE / "gke-cluster.yaml"),))
    single = read_files(req, None).loaded.single
    assert single is not None
    assert single.config.kube.admission.profile == "GKE"
    assert GPU in single.pod.obj["spec"]["tolerations"]


def test_a_pool_keeps_the_version_it_was_admitted_as():
    pool = load_pool((str(GKE / "gke-cluster.yaml"),), version=VersionChoice())
    assert (pool.kube.admission.profile, pool.kube.admission.source) == ("GKE", "node labels")
    said = load_pool((str(GKE / "gke-cluster.yaml"),), version=VersionChoice(admission_plugins=("default", "test")))
    assert said.kube.admission.profile is None and not said.kube.admission.recognise


def test_karpenters_pass_reads_the_pod_as_ekss_api_server_admits_it():
    inputs, _ = load_pods_pass(str(EKS / "trainer-untolerating.yaml"), (str(EKS / "cluster.yaml"),
                               str(EKS / "nodepools.yaml")), None, KubeVersion(), max_bytes=10**8, max_objects=10**5)
    assert inputs.kube.admission.profile == "EKS"
    assert [GPU in p.obj["spec"].get("tolerations", []) for p in inputs.pending] == [True]
