"""The CA loop for pods the scheduler left pending (kexplain.autoscaler.pending): the pending
pods and bound copies it is given, and every Filter plugin on each group's template."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kexplain.autoscaler.cloudprovider import Discovery
from tests.support.ca_loop import ca_loop
from kexplain.autoscaler.pending import GroupsRequest, autoscaler_document, load_groups, run_pass, with_pending
from kexplain.explain.inputs import load_pool
from kexplain.explain.pending_pass import PendingPass, PendingPod
from kexplain.features import KubeVersion
from kexplain.model.pod import PodInfo
from tests.support.paths import FIXTURES, ROOT, TESTS

CASE = FIXTURES / "autoscaler"
BUNDLED = TESTS / "autoscaler" / "cases"
SHARED = ROOT.parent / "shared" / "autoscaler"
# the bundled real CA cases, and the shared ones beside the checkout when present
CASES = sorted(p for root in (BUNDLED, SHARED) if root.is_dir() for p in root.iterdir()
               if (p / "expected-ca.json").exists() and (p / "pods.yaml").exists()
               and '"ClusterAutoscalerScaleUp"' in (p / "expected-ca.json").read_text())
KUBE = KubeVersion("1.35")


def pod(name: str = "worker", cpu: str = "3", **spec) -> PodInfo:
    return PodInfo({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
                    "spec": {"containers": [{"name": "c", "image": "worker:2.1",
                                             "resources": {"requests": {"cpu": cpu}}}], **spec}})


def loop_with(*pending: PodInfo, bound=()):
    return with_pending(base(), list(pending), bound)


def base():
    return load_groups(GroupsRequest(Discovery.from_file(str(CASE / "nodegroups.yaml")), state=pool()), KUBE)


def pool():
    """The cluster's one state (`explain.inputs.load_pool`), which CA's loop reads."""
    return load_pool((str(CASE / "cluster.yaml"),), kube=KUBE)


def on(node: str, p: PodInfo) -> PodInfo:
    return PodInfo({**p.obj, "spec": {**p.spec, "nodeName": node}})


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
    copy = pod(cpu="1500m")
    w0, w1, w2 = (PodInfo({**copy.obj, "metadata": {**copy.metadata, "name": f"w-{i}"}}) for i in range(3))
    pp = PendingPass((PendingPod(w2, "Pod default/w"),), (on("general-1", w0), on("general-1", w1)))
    _, _, answers = run_pass(base(), pp)
    # general-1 is full with the two copies, general-2 still has 1920m: CA packs w-2 there
    assert [(p["name"], p["outcome"], p.get("filteredBy")) for p in answers.document["pods"]] == \
        [("w-2", "FilteredOut", "FilterOutSchedulable")]
    assert answers.answer("default/w-2").reasons == ("FilterOutSchedulable",)
    pp = PendingPass((PendingPod(w2, "Pod default/w"),), (on("general-1", w0), on("general-2", w1)))
    _, _, answers = run_pass(base(), pp)
    assert answers.answer("default/w-2").outcome == "TriggeredScaleUp"


def _first_failing(entry: dict) -> str | None:
    if entry.get("preFilter"):
        return entry["preFilter"]["plugin"]
    if entry.get("notAmong"):
        return entry["notAmong"][0]
    return next((p for p, st in entry["filterAll"].items()
                 if st.get("code") in ("Unschedulable", "UnschedulableAndUnresolvable", "Error")), None)


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_every_plugin_on_a_template_agrees_with_ca_on_the_first(case: Path):
    """On each real CA case: for every pod class and group CA judged, the first failing plugin
    of kexplain's filterAll on the template (placed in the snapshot the scale-up started from)
    is the plugin CA reported, and a template CA says fits passes every plugin."""
    expected = json.loads((case / "expected-ca.json").read_text())
    params = case / "params.yaml"
    loop = ca_loop(str(case / "pods.yaml"), (str(case / "cluster.yaml"),), Discovery.from_file(str(case / "nodegroups.yaml")),
                     str(params) if params.exists() else None, KubeVersion("1.36"), max_bytes=1 << 26,
                     max_objects=100_000)
    pods = {p.key: p for p in loop.pending}
    seen = set()
    checked = 0
    for record in expected["pods"]:
        pod = pods[f"{record['namespace']}/{record['name']}"]
        classes = [(g, v) for g, v in (record.get("nodeGroups") or {}).items()
                   if v["verdict"] in ("fits", "rejected") and (record["equivalenceClass"], g) not in seen]
        if not classes:
            continue
        doc = autoscaler_document(loop, pod)
        for group, verdict in classes:
            seen.add((record["equivalenceClass"], group))
            entry = doc["explained"]["nodeGroups"][group]
            assert _first_failing(entry) == verdict.get("predicate"), (group, record["name"])
            checked += 1
    assert checked or not seen


def test_node_groups_are_one_discovery_from_a_file_or_found():
    """A file's groups find their members by nodeSelector once the nodes are read; groups found
    in the cluster bring theirs: the loop reads both through `Discovery.members_among`."""
    from dataclasses import replace as changed

    from kexplain.autoscaler.cloudprovider import Discovery

    read = Discovery.from_file(str(CASE / "nodegroups.yaml"))
    assert read.file and not read.members
    loop = base()
    assert loop.group_members == {"general": ["general-1", "general-2"], "gpu": [], "arm": [], "compute": []}
    found = Discovery(read.groups, {"general": ("general-2",)}, sources=("status ConfigMap",))
    other = load_groups(GroupsRequest(found, state=pool()), KUBE)
    assert other.group_members == {"general": ["general-2"], "gpu": [], "arm": [], "compute": []}
    assert changed(read, notes=("x",)).with_notes(["y"]).file == read.file
