"""OpportunisticBatching's pod signatures: equal exactly when the real scheduler's plugins sign the
pods alike (SignPod). Not a promise that no Score plugin tells them apart: NodeResourcesFit signs
the requests' totals, its Score reads the non-zero requests."""
from __future__ import annotations

import pytest

from kexplain.config import load_config
from kexplain.framework.runtime import Framework
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot
from kexplain.plugins import implements, known, plugin_class

LIST = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler",
                      "pluginConfig": [{"name": "PodTopologySpread", "args": {"defaultingType": "List"}}]}]}


def _framework(raw: dict | None = LIST) -> Framework:
    profile = load_config(raw, implements=implements, known=known).profile_for("default-scheduler")
    registry = {name: plugin_class(name) for names in profile.plugins.values() for name in names}
    return Framework(profile, registry, Snapshot([]))


def _pod(**spec) -> PodInfo:
    base = {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "500m"}}}]}
    return PodInfo({"metadata": {"name": "p", "namespace": "default", "labels": {"app": "web"}},
                    "spec": {**base, **spec}})


def test_every_default_plugin_that_filters_or_scores_can_sign():
    assert _framework()._signers is not None


def test_the_system_default_spread_makes_no_pod_signable():
    assert _framework(None).sign_pod(_pod()) is None
    assert _framework().sign_pod(_pod()) is not None


T1 = {"key": "a", "operator": "Exists", "effect": "NoSchedule"}
T2 = {"key": "b", "operator": "Equal", "value": "x", "effect": "NoSchedule"}
REQ = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b", "a"]}]}]}
REQ_SORTED = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]}]}


@pytest.mark.parametrize("a, b", [
    (dict(tolerations=[T1, T2]), dict(tolerations=[T2, T1])),
    (dict(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": REQ}}),
     dict(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": REQ_SORTED}})),
    (dict(volumes=[{"name": "cfg", "configMap": {"name": "x"}}]), dict()),
    (dict(volumes=[{"name": "v1", "emptyDir": {}}]), dict(volumes=[{"name": "v2", "emptyDir": {}}])),
])
def test_what_no_plugin_tells_apart_signs_alike(a, b):
    fw = _framework()
    assert fw.sign_pod(_pod(**a)) == fw.sign_pod(_pod(**b))


@pytest.mark.parametrize("a, b", [
    (dict(), dict(containers=[{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "600m"}}}])),
    (dict(), dict(containers=[{"name": "c", "image": "nginx:1.27", "resources": {"requests": {"cpu": "500m"}}}])),
    (dict(), dict(nodeSelector={"zone": "a"})),
    (dict(), dict(tolerations=[T1])),
    (dict(), dict(volumes=[{"name": "v1", "emptyDir": {}}])),
    (dict(), dict(schedulerName="other")),
])
def test_what_a_plugin_reads_signs_differently(a, b):
    fw = _framework()
    assert fw.sign_pod(_pod(**a)) != fw.sign_pod(_pod(**b))


def test_labels_sign_unless_existing_pods_preferred_terms_are_ignored():
    other = PodInfo({**_pod().obj, "metadata": {"name": "q", "namespace": "default", "labels": {"app": "db"}}})
    assert _framework().sign_pod(_pod()) != _framework().sign_pod(other)
    ignoring = {**LIST, "profiles": [{"schedulerName": "default-scheduler", "pluginConfig": [
        *LIST["profiles"][0]["pluginConfig"],
        {"name": "InterPodAffinity", "args": {"ignorePreferredTermsOfExistingPods": True}}]}]}
    assert _framework(ignoring).sign_pod(_pod()) == _framework(ignoring).sign_pod(other)


@pytest.mark.parametrize("spec", [
    dict(affinity={"podAntiAffinity": {}}),
    dict(affinity={"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": []}}),
    dict(topologySpreadConstraints=[{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]),
    dict(resourceClaims=[{"name": "gpu", "resourceClaimName": "gpu"}]),
])
def test_pods_the_scheduler_never_batches(spec):
    assert _framework().sign_pod(_pod(**spec)) is None


SIDE = {"name": "side", "image": "nginx"}          # a container that requests nothing


def _containers(*requests: dict) -> list[dict]:
    return [{"name": f"c{i}", "image": "nginx", "resources": {"requests": r}} for i, r in enumerate(requests)]


@pytest.mark.parametrize("a, b", [
    # the same totals; the second pod's non-zero cpu and memory are larger (GetNonzeroRequests: 100m, 200Mi
    # for each container that requests none), or its memory smaller (requested as 0, which stays 0)
    (dict(), dict(containers=[*_containers({"cpu": "500m"}), SIDE])),
    (dict(), dict(initContainers=[{**SIDE, "restartPolicy": "Always"}])),
    (dict(containers=_containers({"cpu": "50m"})), dict(containers=_containers({"cpu": "50m"}), initContainers=[SIDE])),
    (dict(), dict(containers=_containers({"cpu": "500m", "memory": "0"}))),
])
def test_pods_that_only_the_non_zero_defaults_tell_apart_sign_alike(a, b):
    # The real scheduler signs what NodeResourcesFit's PreFilter reads (computePodResourceRequest: the
    # totals), not what its Score reads (the non-zero requests). OpportunisticBatching may then hand the
    # second pod a node of the first pod's ranking: tests/explain/test_batch_nonzero.py.
    fw = _framework()
    fit = next(pl for pl in fw.score_plugins if pl.name == "NodeResourcesFit")
    assert fit.scorer.pod_requests(_pod(**a)) != fit.scorer.pod_requests(_pod(**b))
    assert fw.sign_pod(_pod(**a)) == fw.sign_pod(_pod(**b)) is not None


def test_overhead_signs_differently():
    # Overhead is in the totals too (PodRequests adds it), unlike a container's missing requests.
    fw = _framework()
    assert fw.sign_pod(_pod()) != fw.sign_pod(_pod(overhead={"cpu": "100m"}))
