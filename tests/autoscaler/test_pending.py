"""The CA loop for pods the scheduler left pending (kexplain.autoscaler.pending): the pending
pods and bound copies it is given, and every Filter plugin on each group's template."""
from __future__ import annotations

from kexplain.autoscaler.pending import GroupsRequest, autoscaler_document, batch_pods, load_groups, with_pending
from kexplain.features import KubeVersion
from kexplain.model.pod import PodInfo
from tests.support.paths import FIXTURES

CASE = FIXTURES / "autoscaler"
KUBE = KubeVersion("1.35")


def pod(name: str = "worker", cpu: str = "3", **spec) -> PodInfo:
    return PodInfo({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
                    "spec": {"containers": [{"name": "c", "image": "worker:2.1",
                                             "resources": {"requests": {"cpu": cpu}}}], **spec}})


def loop_with(*pending: PodInfo, bound=()):
    req = GroupsRequest(str(CASE / "nodegroups.yaml"), node_paths=(str(CASE / "cluster.yaml"),))
    return with_pending(load_groups(req, KUBE), list(pending), bound)


def test_every_failing_plugin_on_a_template_and_the_first_one_ca_reports():
    doc = autoscaler_document(loop_with(pod(nodeSelector={"kubernetes.io/arch": "amd64"})))
    arm = doc["explained"]["nodeGroups"]["arm"]["filterAll"]
    failing = [p for p, st in arm.items() if st["code"] not in ("Success", "Skip")]
    assert failing == ["NodeAffinity", "NodeResourcesFit"]
    assert doc["pods"][0]["nodeGroups"]["arm"]["predicate"] == failing[0]
    assert doc["explained"]["nodeGroups"]["arm"]["plugins"]["NodeAffinity"]["nodeSelector"][0]["match"] is False


def test_a_template_left_out_by_prefilter():
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["general-1"]}]}]}}}
    doc = autoscaler_document(loop_with(pod(affinity=affinity)))
    compute = doc["explained"]["nodeGroups"]["compute"]
    assert compute["notAmong"] == ["NodeAffinity"]
    assert doc["pods"][0]["nodeGroups"]["compute"]["verdict"] == "rejected"


def test_bound_copies_take_their_room_and_only_the_pending_ones_are_listed():
    pending, bound = batch_pods([(pod(cpu="1500m"), [("w-0", "general-1"), ("w-1", "general-1"), ("w-2", None)])])
    assert [p.name for p in pending] == ["w-2"] and [p.spec["nodeName"] for p in bound] == ["general-1"] * 2
    doc = autoscaler_document(loop_with(*pending, bound=bound))
    # general-1 is full with the two copies, general-2 still has 1920m: CA packs w-2 there
    assert [(p["name"], p["outcome"], p.get("filteredBy")) for p in doc["pods"]] == \
        [("w-2", "FilteredOut", "FilterOutSchedulable")]
    pending, bound = batch_pods([(pod(cpu="1500m"), [("w-0", "general-1"), ("w-1", "general-2"), ("w-2", None)])])
    doc = autoscaler_document(loop_with(*pending, bound=bound))
    assert doc["pods"][0]["outcome"] == "TriggeredScaleUp"
