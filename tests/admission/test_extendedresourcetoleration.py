"""ExtendedResourceToleration (plugin/pkg/admission/extendedresourcetoleration at v1.36.3): its own test
table (admission_test.go's TestAdmit), then the plugin in the admission run: off by kube-apiserver's
defaults, on by --admission-plugins or a provider's profile recognised from the nodes."""
from __future__ import annotations

import copy

import pytest

from kexplain.admission import admit, extendedresourcetoleration as ert, providers
from kexplain.errors import Source
from kexplain.features import KubeVersion
from kexplain.features.admission_plugins import AdmissionPluginsError, parse

CPU = {"name": "c", "resources": {"requests": {"cpu": "2"}}}
MEMORY = {"name": "m", "resources": {"requests": {"memory": "2048"}}}
EK, DO = "example.com/device-ek", "example.com/device-do"
WITH_EK = {"name": "e", "resources": {"requests": {EK: "1"}}}
WITH_DO = {"name": "d", "resources": {"requests": {DO: "2"}}}


def tolerates(key: str) -> dict:
    return {"key": key, "operator": "Exists", "effect": "NoSchedule"}


CASES = [
    ("empty pod", {}, None),
    ("no extended resource", {"containers": [CPU]}, None),
    ("init container without one", {"initContainers": [MEMORY]}, None),
    ("container with one", {"containers": [WITH_EK]}, [tolerates(EK)]),
    ("init container with one", {"initContainers": [WITH_DO]}, [tolerates(DO)]),
    ("existing toleration kept, new added",
     {"containers": [CPU, WITH_EK], "tolerations": [{"key": "foo", "operator": "Equal", "value": "bar",
                                                     "effect": "NoSchedule"}]},
     [{"key": "foo", "operator": "Equal", "value": "bar", "effect": "NoSchedule"}, tolerates(EK)]),
    ("several, sorted by key", {"containers": [MEMORY, WITH_EK], "initContainers": [CPU, WITH_DO]},
     [tolerates(DO), tolerates(EK)]),
    ("the same toleration already there: unchanged",
     {"containers": [CPU, MEMORY, WITH_EK], "tolerations": [tolerates(EK)]}, [tolerates(EK)]),
    ("same key, other effect and value: kept, new added",
     {"containers": [WITH_EK], "tolerations": [{"key": EK, "operator": "Equal", "value": "foo",
                                                "effect": "NoExecute"}]},
     [{"key": EK, "operator": "Equal", "value": "foo", "effect": "NoExecute"}, tolerates(EK)]),
    ("wildcard toleration kept, new added", {"containers": [WITH_EK], "tolerations": [{"operator": "Exists"}]},
     [{"operator": "Exists"}, tolerates(EK)]),
    # AddOrUpdateTolerationInPod: a match (key, effect, operator, value) that differs (its seconds) is replaced
    ("a matching toleration with seconds is replaced",
     {"containers": [WITH_EK], "tolerations": [{**tolerates(EK), "tolerationSeconds": 5}, {"key": "x"}]},
     [tolerates(EK), {"key": "x"}]),
    # native and prefixed-native resources, and quota names, are not extended resources
    ("native resources do not count",
     {"containers": [{"name": "n", "resources": {"requests": {"hugepages-2Mi": "2Mi",
                                                              "example.kubernetes.io/thing": "1",
                                                              "requests.example.com/x": "1"}}}]}, None),
]


@pytest.mark.parametrize("spec,expected", [(s, e) for _, s, e in CASES], ids=[d for d, _, _ in CASES])
def test_the_plugins_table(spec: dict, expected: list | None):
    pod = copy.deepcopy(spec)
    ert.admit(pod)
    assert pod.get("tolerations") == expected


def test_only_container_requests_count_not_limits_left_alone_or_pod_level_resources():
    spec = {"containers": [{"name": "a", "resources": {"limits": {EK: "1"}}}],
            "resources": {"requests": {DO: "1"}}}
    assert ert.requested(spec) == []          # (limits become requests in defaulting, before the plugin)


def _pod(resources: dict, **spec) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "trainer"},
            "spec": {"containers": [{"name": "t", "image": "trainer", "resources": resources}], **spec}}


def _node(labels: dict | None = None, provider_id: str | None = None) -> dict:
    node: dict = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": labels or {}},
                  "status": {"capacity": {"cpu": "4", "pods": "10"}}}
    if provider_id:
        node["spec"] = {"providerID": provider_id}
    return node


GPU = {"limits": {"nvidia.com/gpu": "1"}}     # a limit alone: defaulted into the request first


def _admitted(cluster: list[dict], kube: KubeVersion = KubeVersion()) -> tuple[list, KubeVersion]:
    admitted = admit([(o, Source("cluster.yaml")) for o in cluster], (_pod(GPU), Source("pod.yaml")), kube=kube)
    return admitted.pending["spec"]["tolerations"], admitted.kube


def test_kube_apiservers_defaults_leave_the_gpu_pod_untolerating():
    tolerations, kube = _admitted([_node()])
    assert tolerates("nvidia.com/gpu") not in tolerations
    assert kube.admission.profile is None and not kube.admission.said


@pytest.mark.parametrize("node,profile,told", [
    (_node({"eks.amazonaws.com/nodegroup": "gpu"}, "aws:///us-east-1a/i-0a1b"), "EKS", providers.FROM_LABELS),
    (_node({"cloud.google.com/gke-nodepool": "pool-1"}, "gce://p/z/n"), "GKE", providers.FROM_LABELS),
    (_node(provider_id="aws:///us-east-1a/i-0a1b"), "EKS", providers.FROM_PROVIDER_ID),
    (_node(provider_id="gce://project/zone/name"), "GKE", providers.FROM_PROVIDER_ID),
])
def test_an_eks_or_gke_node_gives_the_gpu_pod_its_toleration(node: dict, profile: str, told: str):
    tolerations, kube = _admitted([node])
    # after DefaultTolerationSeconds' two, as the server's plugin order has it
    assert [t["key"] for t in tolerations] == ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable",
                                               "nvidia.com/gpu"]
    assert tolerations[-1] == tolerates("nvidia.com/gpu")
    assert (kube.admission.profile, kube.admission.source) == (profile, told)


def test_an_aks_node_does_not():
    tolerations, kube = _admitted([_node({"kubernetes.azure.com/agentpool": "gpu"}, "azure:///sub/vm")])
    assert tolerates("nvidia.com/gpu") not in tolerations
    assert kube.admission.profile == "AKS"


def test_a_label_wins_over_a_provider_id_and_the_first_node_decides():
    found = providers.provider_of([_node(provider_id="aws:///x"),
                                   _node({"cloud.google.com/gke-nodepool": "p"}, "gce://p/z/n")])
    assert found == ("GKE", providers.FROM_LABELS)
    assert providers.provider_of([_node(provider_id="azure:///x"), _node(provider_id="aws:///y")]) == \
        ("AKS", providers.FROM_PROVIDER_ID)
    assert providers.provider_of([_node({"kubernetes.io/hostname": "n1"}, "kind://docker/kind/n1")]) is None


def test_a_node_no_provider_registered_tells_nothing_whatever_its_labels():
    """A hand-written node (no spec.providerID) with EKS's node group label, as the Cluster Autoscaler's
    cases write theirs: admitted as kube-apiserver's defaults admit, the GPU pod untolerating."""
    assert providers.provider_of([_node({"eks.amazonaws.com/nodegroup": "gpu"})]) is None
    tolerations, kube = _admitted([_node({"eks.amazonaws.com/nodegroup": "gpu"})])
    assert tolerates("nvidia.com/gpu") not in tolerations and kube.admission.recognise


def test_plugins_said_are_not_second_guessed_by_the_nodes():
    said = KubeVersion().with_admission(parse("default"))
    tolerations, kube = _admitted([_node({"eks.amazonaws.com/nodegroup": "gpu"}, "aws:///x")], said)
    assert tolerates("nvidia.com/gpu") not in tolerations and kube.admission.profile is None
    named = KubeVersion().with_admission(parse("ExtendedResourceToleration"))
    tolerations, _ = _admitted([_node()], named)
    assert tolerations[-1] == tolerates("nvidia.com/gpu")


def test_the_flags_names_as_kube_apiserver_takes_them():
    assert parse("eks").profile == "EKS" and parse("GKE").enabled("ExtendedResourceToleration")
    assert parse("NodeRestriction, ExtendedResourceToleration").beyond_defaults == (
        "NodeRestriction", "ExtendedResourceToleration")
    assert parse("Priority").beyond_defaults == ()          # a default: enabled already
    assert parse("PodNodeSelector").not_emulated == ("PodNodeSelector",)
    with pytest.raises(AdmissionPluginsError, match='enable-admission-plugins plugin "GPUToleration" is unknown'):
        parse("ExtendedResourceToleration,GPUToleration")
    with pytest.raises(AdmissionPluginsError):
        parse(" , ")
