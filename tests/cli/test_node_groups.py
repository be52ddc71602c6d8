"""`kexplain POD --node-groups`: the "Cluster autoscaler" section after the scheduler's verdict
(the event CA would emit, every group with every failing plugin on its template, CA's own
marked, the expander's choice), the trace's `autoscaler` key, `--node-group NAME`, replicas,
and the errors of the options. On fixtures/autoscaler, Kubernetes 1.35 pinned."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kexplain.cli.app import main
from kexplain.load.manifests import load_objects
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import DATA, FIXTURES
from kexplain.features import KubeVersion
from tests.support.copies import copy_names

CASE = FIXTURES / "autoscaler"
BASE = [str(CASE / "pod.yaml"), "--nodes", str(CASE / "cluster.yaml"), "--kubernetes-version", "1.35",
        "--no-suggestions"]
GROUPS = ["--node-groups", str(CASE / "nodegroups.yaml")]
DEPLOYMENT = (DATA / "autoscaler" / "worker-deployment.yaml").read_text()   # 3 replicas on amd64 nodes
KUBE = KubeVersion("1.35")      # (BASE's: a Deployment's pod-template-hash, in its pods' names, is the version's)


def kexplain(*args: str) -> tuple[int, str, str]:
    env = TestEnvironment(width=100)
    code = main(list(args), env=env)
    return code, env.out, env.err


def section(out: str) -> str:
    assert "\nCluster autoscaler\n" in out
    return out[out.index("\nCluster autoscaler\n"):]


def test_the_section_follows_the_verdict():
    code, out, err = kexplain(*BASE, *GROUPS)
    assert code == 1, err
    assert out.index("Rejected nodes, by reason") < out.index("\nCluster autoscaler\n")
    text = section(out)
    assert "Event: Normal TriggeredScaleUp: pod triggered scale-up: [{compute 0->1 (max: 4)}]" in text
    assert "the scheduler plugins inside it follow Kubernetes 1.35" in " ".join(text.split())
    assert "70920d3c6f5f" in text
    rows = {line.split()[0]: line for line in text.splitlines()
            if line.split() and line.split()[0] in ("general", "gpu", "arm", "compute")}
    assert "skipped" in rows["general"] and "max node group size reached" in rows["general"]
    assert "rejected" in rows["gpu"] and "fits" in rows["compute"] and "0 -> 1" in rows["compute"]
    # each group's template named, first: the member node it was built from, or the file's
    assert "template: the template in --node-groups (us-east-1a," in rows["gpu"]
    assert "template: member node general-1 (us-east-1a, m5.xlarge)" in " ".join(text.split())
    # every failing plugin on arm's template, CA's first one marked
    text = " ".join(text.split())
    assert "NodeAffinity*: node(s) didn't match Pod's node affinity/selector" in text
    assert "NodeResourcesFit: Insufficient cpu" in text
    assert "NodeResourcesFit*" not in text
    assert "TaintToleration*: node(s) had untolerated taint(s)" in text
    assert "taint nvidia.com/gpu=present:NoSchedule: not tolerated" in text
    assert "its template would take the pod" in text
    assert "Expander least-waste chose compute: 1 node for 1 pod; compute 0 -> 1 (max 4)." in text


def test_json_has_the_document_under_autoscaler():
    code, out, _ = kexplain(*BASE, *GROUPS, "-o", "json")
    assert code == 1
    trace = json.loads(out)
    doc = trace["autoscaler"]
    assert doc["kind"] == "ClusterAutoscalerScaleUp" and doc["result"] == "ScaleUpSuccessful"
    pod = doc["pods"][0]
    assert pod["outcome"] == "TriggeredScaleUp"
    assert pod["nodeGroups"]["arm"] == {"verdict": "rejected", "predicate": "NodeAffinity",
                                        "reasons": ["node(s) didn't match Pod's node affinity/selector"]}
    explained = doc["explained"]
    assert explained["pod"] == "default/worker" and explained["kubernetes"] == "1.35"
    arm = explained["nodeGroups"]["arm"]["filterAll"]
    assert arm["NodeAffinity"]["code"] == "UnschedulableAndUnresolvable"
    assert arm["NodeResourcesFit"]["reasons"] == ["Insufficient cpu"]
    assert explained["nodeGroups"]["compute"]["filterAll"]["NodeResourcesFit"] == {"code": "Success"}
    assert doc["expansion"]["bestOption"]["nodeGroup"] == "compute"


def test_no_section_without_node_groups_or_when_the_pod_schedules(tmp_path: Path):
    _, out, _ = kexplain(*BASE)
    assert "Cluster autoscaler" not in out
    small = tmp_path / "small.yaml"
    small.write_text((CASE / "pod.yaml").read_text().replace('cpu: "3"', "cpu: 500m"))
    code, out, _ = kexplain(str(small), *BASE[1:], *GROUPS, "-o", "json")
    assert code == 0 and "autoscaler" not in json.loads(out)


def test_node_group_shows_every_plugin_on_the_template():
    code, out, err = kexplain(*BASE, *GROUPS, "--node-group", "arm")
    assert code == 1, err
    assert out.startswith("Node group arm for pod default/worker: rejected\n")
    assert "Rejected by NodeAffinity (CA's first failing plugin)" in out
    assert "NodeAffinity *" in out and "NodeResourcesFit" in out
    assert "nodeSelector kubernetes.io/arch=amd64: the node has kubernetes.io/arch=arm64" in out
    assert "cpu: the pod requests 3, more than the node's whole allocatable (1930m)" in " ".join(out.split())
    assert "labels" in out and "kubernetes.io/arch=arm64" in out
    assert "Rejected nodes, by reason" not in out


def test_node_group_skipped_for_max_size():
    code, out, _ = kexplain(*BASE, *GROUPS, "--node-group", "general")
    assert "Node group general for pod default/worker: skipped" in out
    assert "Skipped by CA: max node group size reached" in out
    assert "members: general-1, general-2; template: member node general-1 (us-east-1a, m5.xlarge)" in \
        " ".join(out.split())
    assert "built from member node general-1" in out
    assert "NodeResourcesFit    Success" in out


@pytest.mark.parametrize("args, message", [
    (["--node-group", "arm"], "--node-group needs node groups: --node-groups FILE, or CA's status ConfigMap "
                              "kube-system/cluster-autoscaler-status or Cluster API's objects among --nodes (none is "
                              "there)"),
    (["--autoscaler-config", "x.yaml"], "--autoscaler-config needs node groups: --node-groups FILE, or CA's status"),
    ([*GROUPS, "--node-group", "comput"],
     "--node-group comput: no node group of that name among the 4 node groups of --node-groups; the closest: compute"),
    ([*GROUPS, "--node-group", "arm", "--node", "general-1"], "--node and --node-group each show one verdict"),
    ([*GROUPS, "--nodes", "-"], "--node-groups reads the cluster of --nodes a second time"),
])
def test_bad_options_are_one_line_errors(args, message):
    code, out, err = kexplain(*BASE, *args)
    assert code == 2 and out == ""
    assert err.startswith("error: " + message) and err.count("\n") == 1


def test_replicas_the_copies_that_did_not_fit_are_pending(tmp_path: Path):
    workload = tmp_path / "worker.yaml"
    workload.write_text(DEPLOYMENT)
    args = [str(workload), *BASE[1:], *GROUPS]
    code, out, _ = kexplain(*args, "-o", "json")
    doc = json.loads(out)["autoscaler"]
    # two copies fit (one per node), the third is CA's only pending pod
    assert [p["name"] for p in doc["pods"]] == [copy_names(DEPLOYMENT, 3, kube=KUBE)[2]]
    assert doc["pods"][0]["outcome"] == "TriggeredScaleUp"
    code, out, _ = kexplain(*args)
    assert "Event: Normal TriggeredScaleUp" in section(out)


def test_a_pod_that_schedules_with_node_group(tmp_path: Path):
    small = tmp_path / "small.yaml"
    small.write_text((CASE / "pod.yaml").read_text().replace('cpu: "3"', "cpu: 500m"))
    code, out, _ = kexplain(str(small), *BASE[1:], *GROUPS, "--node-group", "arm")
    assert code == 0
    assert out.startswith("Node group arm for pod default/worker: its template rejects the pod\n")
    assert "CA finds room for it on an existing node (FilterOutSchedulable" in " ".join(out.split())
    code, out, _ = kexplain(str(small), *BASE[1:], *GROUPS, "--node-group", "compute")
    assert out.startswith("Node group compute for pod default/worker: its template takes the pod\n")


def test_a_bad_node_groups_file_is_refused_whatever_the_verdict(tmp_path: Path):
    bad = tmp_path / "groups.yaml"
    bad.write_text("nodeGroups:\n- name: x\n  minSize: a\n")
    small = tmp_path / "small.yaml"
    small.write_text((CASE / "pod.yaml").read_text().replace('cpu: "3"', "cpu: 500m"))
    for pod in (str(small), str(CASE / "pod.yaml")):
        code, out, err = kexplain(pod, *BASE[1:], "--node-groups", str(bad))
        assert code == 2 and out == ""
        assert err == f"error: {bad}: nodeGroups[0] (x).minSize: expected an integer >= 0, found 'a'\n"


def test_replicas_that_all_fit_have_no_section_but_a_bad_file_is_refused(tmp_path: Path):
    workload = tmp_path / "worker.yaml"
    workload.write_text(DEPLOYMENT.replace("replicas: 3", "replicas: 2"))
    code, out, _ = kexplain(str(workload), *BASE[1:], *GROUPS)
    assert code == 0 and "Cluster autoscaler" not in out
    bad = tmp_path / "groups.yaml"
    bad.write_text("nodeGroups: [{name: x, minSize: 0, maxSize: -1}]\n")
    code, _, err = kexplain(str(workload), *BASE[1:], "--node-groups", str(bad))
    assert code == 2 and err.startswith(f"error: {bad}: nodeGroups[0] (x).maxSize")


def test_replicas_no_add_node_suggestion_with_node_groups(tmp_path: Path):
    workload = tmp_path / "worker.yaml"
    workload.write_text(DEPLOYMENT)
    args = [str(workload), "--nodes", str(CASE / "cluster.yaml"), "--kubernetes-version", "1.35", "-o", "json"]

    def kinds(*more: str) -> set[str]:
        items = json.loads(kexplain(*args, *more)[1])["items"]
        return {s["kind"] for t in items for s in t.get("suggestions") or ()}
    assert "add-node" in kinds()
    assert "add-node" not in kinds(*GROUPS) and kinds(*GROUPS)


def test_svg_has_the_section(tmp_path: Path):
    svg = tmp_path / "out.svg"
    code, _, _ = kexplain(*BASE, *GROUPS, "--svg", str(svg))
    assert code == 1 and "Cluster" in svg.read_text() and "autoscaler" in svg.read_text()
    workload = tmp_path / "worker.yaml"
    workload.write_text(DEPLOYMENT)
    kexplain(str(workload), *BASE[1:], *GROUPS, "--svg", str(svg))
    assert "TriggeredScaleUp" in svg.read_text()


# -- one loop over every pending pod of the input (kexplain.explain.pending_pass) ----------------
def web(replicas: int, cpu: str = "3") -> str:
    """A Deployment whose copies (`cpu` each) do not fit the two busy nodes (1920m free each)."""
    return DEPLOYMENT.replace("name: worker", "name: web").replace("replicas: 3", f"replicas: {replicas}") \
        .replace("cpu: 1500m", f'cpu: "{cpu}"')


def test_every_copy_that_did_not_fit_is_in_the_loop(tmp_path: Path):
    """Ten copies of 3 CPUs: compute's template (7910m) takes two each, so CA wants five nodes and
    its max size (4) caps the scale-up; every copy gets its own answer in its placements entry."""
    workload = tmp_path / "web.yaml"
    workload.write_text(web(10))
    code, out, _ = kexplain(str(workload), *BASE[1:], *GROUPS, "-o", "json")
    listed = json.loads(out)
    doc = listed["autoscaler"]
    names = copy_names(web(10), 10, kube=KUBE)
    assert [p["name"] for p in doc["pods"]] == names
    assert doc["expansion"]["scaleUps"] == [{"nodeGroup": "compute", "currentSize": 0, "newSize": 4, "maxSize": 4}]
    answers = listed["placements"][0]["autoscalers"]
    assert [a["pod"] for a in answers] == [f"default/{n}" for n in names]
    assert [a["outcome"] for a in answers] == ["TriggeredScaleUp"] * 8 + ["NoEvent"] * 2
    assert {a["equivalenceClass"] for a in answers} == {0}      # one controller, one spec: one class
    assert doc["pendingPass"]["pods"][f"default/{names[9]}"] == {"standsFor": "Deployment default/web", "copy": 9}
    code, out, _ = kexplain(str(workload), *BASE[1:], *GROUPS)
    lines = [line.split() for line in section(out).splitlines()]
    for first, last, count, outcome in ((names[0], names[7], "(8", "TriggeredScaleUp"),
                                        (names[8], names[9], "(2", "NoEvent")):     # the rows of a class, wrapped
        at = lines.index([f"default/{first}", "...", outcome])
        assert lines[at + 1][:2] == [last, count]
    text = " ".join(section(out).split())
    assert "Expander least-waste chose compute: 4 nodes for 8 pods; compute 0 -> 4 (max 4)." in text


def test_several_pods_each_its_answer(tmp_path: Path):
    """A pod no group takes, in a loop that scales up for the others: no event on it."""
    gpu = (CASE / "pod-gpu.yaml").read_text()
    both = tmp_path / "both.yaml"
    both.write_text(gpu + "\n---\n" + web(2))
    code, out, _ = kexplain(str(both), *BASE[1:], *GROUPS, "-o", "json")
    listed = json.loads(out)
    answers = {a["pod"]: a for p in listed["placements"] for a in p["autoscalers"]}
    web_0, web_1 = copy_names(web(2), 2, kube=KUBE)
    assert {k: a["outcome"] for k, a in answers.items()} == {
        "default/trainer": "RemainsUnschedulableNoEvent", f"default/{web_0}": "TriggeredScaleUp",
        f"default/{web_1}": "TriggeredScaleUp"}
    assert answers["default/trainer"]["events"] == [] and answers["default/trainer"]["reasons"]
    alone = json.loads(kexplain(str(CASE / "pod-gpu.yaml"), *BASE[1:], *GROUPS, "-o", "json")[1])
    assert alone["autoscalers"][0]["outcome"] == "NotTriggerScaleUp"      # on its own, CA would record an event
    code, out, _ = kexplain(str(both), *BASE[1:], *GROUPS)
    text = section(out)
    assert ["default/trainer", "RemainsUnschedulableNoEvent"] in [line.split() for line in text.splitlines()]
    assert "no event: no group can take it" in " ".join(text.split())
    assert "Node groups, for pod default/trainer" in text


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_each_pods_answers_on_its_item_as_live(tmp_path: Path, fmt: str):
    """A file of several pods: each item (a pod's trace) carries its pod's answers, `items[].
    autoscalers`, as `pod --pending` gives them live; the placements keep theirs."""
    import yaml
    both = tmp_path / "both.yaml"
    both.write_text((CASE / "pod-gpu.yaml").read_text() + "\n---\n" + web(2))
    listed = yaml.safe_load(kexplain(str(both), *BASE[1:], *GROUPS, "-o", fmt)[1])
    answers = {a["pod"]: a for p in listed["placements"] for a in p["autoscalers"]}
    items = {f"{i['pod']['namespace']}/{i['pod']['name']}": i for i in listed["items"]}
    pending = [k for k, i in items.items() if i["result"]["status"] == "Unschedulable"]
    assert "default/trainer" in pending and len(pending) >= 2
    for key in pending:
        assert items[key]["autoscalers"] == [answers[key]], key
    assert list(items["default/trainer"])[-1] == "autoscalers"      # added after the trace's own keys


STORAGE = (DATA / "autoscaler" / "storage.yaml").read_text()


def test_the_loop_sees_the_sets_claims(tmp_path: Path):
    """A StatefulSet's claims (each copy its own: Parallel, every copy exists at once), a claim
    of the file, an ephemeral volume's claim: CA finds them all, in explain, autoscale and lint
    alike."""
    path = tmp_path / "storage.yaml"
    path.write_text(STORAGE.replace("  serviceName: db\n", "  serviceName: db\n  podManagementPolicy: Parallel\n"))
    code, out, err = kexplain(str(path), *BASE[1:], *GROUPS, "-o", "json")
    doc = json.loads(out)["autoscaler"]
    assert {p["name"]: p["outcome"] for p in doc["pods"]} == {
        "db-0": "TriggeredScaleUp", "db-1": "TriggeredScaleUp", "db-2": "TriggeredScaleUp",
        "uses-scratch": "TriggeredScaleUp", "eph": "TriggeredScaleUp"}
    code, out, err = kexplain("autoscale", str(path), "--nodes", str(CASE / "cluster.yaml"), *GROUPS,
                              "--kubernetes-version", "1.35", "-o", "json")
    assert code == 0, err
    assert {p["name"]: p["outcome"] for p in json.loads(out)["pods"]} == {
        "uses-scratch": "TriggeredScaleUp", "eph": "TriggeredScaleUp", "db-0": "TriggeredScaleUp",
        "db-1": "TriggeredScaleUp", "db-2": "TriggeredScaleUp"}
    code, out, err = kexplain("lint", str(path), "--nodes", str(CASE / "cluster.yaml"), *GROUPS,
                              "--kubernetes-version", "1.35")
    assert "no-node-group" not in out, out


STS_ONLY = STORAGE.split("---\napiVersion: v1\nkind: PersistentVolumeClaim")[0]   # the StorageClass and the StatefulSet


def test_an_ordered_ready_statefulset_has_one_pending_pod(tmp_path: Path):
    """OrderedReady (the default): with db-0 pending its controller has not created db-1 and db-2,
    so CA's loop holds one pod (compute 0->1, not 0->2) and the others get no answer, said so in
    text and -o json; Karpenter's pass alike. Parallel: every copy is pending."""
    path = tmp_path / "sts.yaml"
    path.write_text(STS_ONLY)
    code, out, _ = kexplain(str(path), *BASE[1:], *GROUPS, "-o", "json")
    listed = json.loads(out)
    assert [p["name"] for p in listed["autoscaler"]["pods"]] == ["db-0"]
    assert listed["autoscaler"]["expansion"]["scaleUps"] == [
        {"nodeGroup": "compute", "currentSize": 0, "newSize": 1, "maxSize": 4}]
    placement = listed["placements"][0]
    assert [a["pod"] for a in placement["autoscalers"]] == ["default/db-0"]
    assert placement["notYetCreated"]["pods"] == ["default/db-1", "default/db-2"]
    assert "OrderedReady" in placement["notYetCreated"]["why"]
    code, out, _ = kexplain(str(path), *BASE[1:], *GROUPS)
    lines = [line.split() for line in section(out).splitlines()]
    assert ["default/db-1", "...", "db-2", "(2", "pods", "of", "StatefulSet", "not", "created", "(no", "answer)"] in lines
    assert "compute 0 -> 1 (max 4)" in " ".join(section(out).split())
    karpenter = [str(path), "--nodes", str(FIXTURES / "karpenter" / "cluster.yaml"), "--nodes",
                 str(FIXTURES / "karpenter" / "nodepools.yaml"), "--no-suggestions", "--kubernetes-version", "1.35"]
    listed = json.loads(kexplain(*karpenter, "-o", "json")[1])
    assert [p["pod"] for p in listed["karpenter"]["pods"]] == ["default/db-0"]
    assert listed["placements"][0]["notYetCreated"]["pods"] == ["default/db-1", "default/db-2"]
    assert "not created (no answer)" in kexplain(*karpenter)[1]
    path.write_text(STS_ONLY.replace("  serviceName: db\n", "  serviceName: db\n  podManagementPolicy: Parallel\n"))
    listed = json.loads(kexplain(str(path), *BASE[1:], *GROUPS, "-o", "json")[1])
    assert [p["name"] for p in listed["autoscaler"]["pods"]] == ["db-0", "db-1", "db-2"]
    assert "notYetCreated" not in listed["placements"][0]


VIP = str(CASE / "vip.yaml")     # preemption nominates general-2, evicting default/api-2


def test_a_pod_preemption_nominates_gets_no_scale_up(tmp_path: Path):
    """The scheduler's PostFilter nominates the pod before CA looks: CA lists it as nominated
    (not unschedulable) and puts it on general-2, so no scale-up for it; Karpenter skips a pod
    that is preempting. Said on the top line, in the section and in -o json."""
    code, out, _ = kexplain(VIP, *BASE[1:], *GROUPS)
    assert code == 1
    top = " ".join(out[:out.index("Kubernetes 1.35")].split())
    assert ("Cluster autoscaler: adds no node for it: the scheduler's preemption nominates general-2 for it, and CA "
            "counts it there while its victims go.") in top
    text = " ".join(section(out).split())
    assert "nominates general-2 for it (status.nominatedNodeName), evicting default/api-2" in text
    assert "scales up" not in out and "TriggeredScaleUp" not in out
    trace = json.loads(kexplain(VIP, *BASE[1:], *GROUPS, "-o", "json")[1])
    [answer] = trace["autoscalers"]
    assert (answer["outcome"], answer["nominatedNodeName"], answer["events"]) == \
        ("NotListedAsUnschedulable", "general-2", [])
    assert answer["reasons"][0].startswith("status.nominatedNodeName general-2: CA lists it as nominated")
    assert trace["autoscaler"]["result"] == "ScaleUpNotNeeded"
    assert trace["autoscaler"]["pendingPass"]["preempting"] == {
        "default/vip": {"nominatedNodeName": "general-2", "victims": ["default/api-2"]}}
    small = tmp_path / "vip.yaml"       # Karpenter's node (1930m) takes 1 CPU once api-0 (1500m) is gone
    small.write_text(Path(VIP).read_text().replace('cpu: "3"', 'cpu: "1"'))
    karpenter = [str(small), "--nodes", str(FIXTURES / "karpenter" / "cluster.yaml"), "--nodes",
                 str(FIXTURES / "karpenter" / "nodepools.yaml"), "--no-suggestions", "--kubernetes-version", "1.35"]
    trace = json.loads(kexplain(*karpenter, "-o", "json")[1])
    [answer] = trace["autoscalers"]
    assert answer["outcome"] == "NotProvisionable" and "preempting" in answer["reasons"][0]
    assert trace["karpenter"]["nodeClaims"] == []
    out = kexplain(*karpenter)[1]
    assert "Karpenter: NotProvisionable (not a pod Karpenter provisions for): status.nominatedNodeName is set" in \
        " ".join(out[:out.index("Kubernetes 1.35")].split())


def test_the_sets_daemonsets_run_on_the_templates(tmp_path: Path):
    """A DaemonSet of the file takes 5 CPUs on every new node: compute's template (7910m) no
    longer takes a pod of 3; its own pods that do not fit are CA's FilterOutDaemonSet."""
    path = tmp_path / "ds.yaml"
    path.write_text("""apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: a, image: agent:1, resources: {requests: {cpu: "5"}}}]
---
""" + (CASE / "pod.yaml").read_text())
    code, out, _ = kexplain(str(path), *BASE[1:], *GROUPS, "-o", "json")
    doc = json.loads(out)["autoscaler"]
    outcomes = {p["name"]: (p["outcome"], p.get("filteredBy")) for p in doc["pods"]}
    agent_0, agent_1 = copy_names(path, 2, kube=KUBE)
    assert outcomes == {agent_0: ("FilteredOut", "FilterOutDaemonSet"), agent_1: ("FilteredOut", "FilterOutDaemonSet"),
                        "worker": ("NotTriggerScaleUp", None)}
    compute = next(g for g in doc["nodeGroups"] if g["name"] == "compute")
    assert compute["template"]["pods"] == ["DaemonSet kube-system/agent"]
    worker = next(p for p in doc["pods"] if p["name"] == "worker")
    assert worker["nodeGroups"]["compute"] == {"verdict": "rejected", "predicate": "NodeResourcesFit",
                                               "reasons": ["Insufficient cpu"]}


def test_autoscale_takes_workloads(tmp_path: Path):
    """`kexplain autoscale` schedules a workload's copies as explain does: those that fit are
    bound, the others pending (it used to drop them: ScaleUpNotNeeded)."""
    workload = tmp_path / "worker.yaml"
    workload.write_text(DEPLOYMENT)
    code, out, err = kexplain("autoscale", str(workload), "--nodes", str(CASE / "cluster.yaml"), *GROUPS,
                              "--kubernetes-version", "1.35", "-o", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert [(p["name"], p["outcome"]) for p in doc["pods"]] == [(copy_names(DEPLOYMENT, 3, kube=KUBE)[2],
                                                                 "TriggeredScaleUp")]
    assert doc["expansion"]["scaleUps"] == [{"nodeGroup": "compute", "currentSize": 0, "newSize": 1, "maxSize": 4}]


def test_autoscale_settles_the_version_as_every_command(tmp_path: Path):
    snapshot = tmp_path / "cluster.json"
    objects = list(load_objects([str(CASE / "cluster.yaml")], 1 << 20))
    snapshot.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [o for o, _ in objects] + [
        {"apiVersion": "kexplain/v1", "kind": "ServerVersion", "metadata": {}, "gitVersion": "v1.99.1"}]}))
    args = ["autoscale", str(CASE / "pod.yaml"), "--nodes", str(snapshot), *GROUPS, "-o", "json"]
    code, out, err = kexplain(*args)
    assert code == 0 and "the snapshot was taken of Kubernetes v1.99.1" in err
    code, out, err = kexplain(*args, "--kubernetes-version", "1.35")
    assert code == 0 and err == ""
    code, out, err = kexplain(*args, "--feature-gates", "NoSuchGate=true")
    assert code == 2 and "NoSuchGate" in err
