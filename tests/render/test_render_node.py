"""`--node NAME` and the preemption section: one node's verdict plugin by plugin with the
facts behind it (issue 5's claim, volume, zone or limit at fault among them), and the
preemption dry run's victims and the reasons every other node was not chosen."""
from __future__ import annotations


import pytest

from kexplain.explain.inputs import load_inputs
from kexplain.explain.request import Request, RunOptions
from kexplain.explain.run import explain
from kexplain.render.preemption import Victim, preemption_view
from tests.support.render_helpers import fixture_paths, section, squeeze, text_of, trace_of


def node_text(name: str, node: str) -> str:
    """The `--node` view as one line per paragraph-ish chunk: squeezed and joined."""
    return " ".join(squeeze(text_of(trace_of(name, node), node=node)))


# (fixture, node, what the view must say)
NODE_VIEWS = [
    ("pod-too-big", "node-1", [
        "Rejected by NodeResourcesFit (UnschedulableAndUnresolvable): Insufficient cpu",
        "NodeResourcesFit * UnschedulableAndUnresolvable: Insufficient cpu",
        "cpu: the pod requests 6, more than the node's whole allocatable (4): evicting pods cannot help (3 "
        "requested by its pods, 1 free)",
        "memory: the pod requests 4Gi; the node has 16Gi allocatable, 8Gi requested by its pods: 8Gi free",
        "pods: the node runs 1 of at most 110 pods",
        "Preemption: not chosen here: evicting pods cannot help (UnschedulableAndUnresolvable): Insufficient cpu.",
    ]),
    ("resources", "mem-2", [
        "NodeResourcesFit * Unschedulable: Too many pods",
        "pods: the node runs 2 of at most 2 pods - not enough",
    ]),
    ("taints", "db-1", [
        "TaintToleration * UnschedulableAndUnresolvable: node(s) had untolerated taint(s)",
        "taint dedicated=database:NoSchedule: not tolerated; the pod would need the toleration {key: dedicated, "
        "operator: Equal, value: database, effect: NoSchedule}",
    ]),
    ("taints", "old-1", [
        "taint maintenance:NoExecute: not tolerated; the pod would need the toleration {key: maintenance, "
        "operator: Exists, effect: NoExecute}",
    ]),
    ("taints", "spot-1", [
        "taint spot=true:PreferNoSchedule: not tolerated (PreferNoSchedule: lowers the score only)",
        "cpu: the pod requests 1; the node has 2 allocatable, 1500m requested by its pods: 500m free - not enough",
    ]),
    ("node-affinity", "b-hdd", [
        "NodeAffinity * UnschedulableAndUnresolvable: node(s) didn't match Pod's node affinity/selector",
        "nodeSelector disktype=ssd: the node has disktype=hdd",
        "required node affinity: matches",
    ]),
    ("node-affinity", "a-ssd", [
        "Rejected by NodeUnschedulable",
        "cordoned (spec.unschedulable: true, kubectl cordon); the pod does not tolerate "
        "node.kubernetes.io/unschedulable:NoSchedule",
        "nodeSelector disktype=ssd: matches",
        "required node affinity: does not match: topology.kubernetes.io/zone In [zone-b] (node: zone-a)",
    ]),
    ("node-affinity", "b-plain", ["nodeSelector disktype=ssd: the node has no such label"]),
    ("pod-affinity", "a-1", [
        "InterPodAffinity * Unschedulable: node(s) didn't match pod anti-affinity rules",
        "required affinity to pods app=cache: 1 matching pod(s) in topology.kubernetes.io/zone=zone-a",
        "anti-affinity to pods app=web: shop/web-0 (on a-1) already run in kubernetes.io/hostname=a-1",
    ]),
    ("pod-affinity", "b-2", [
        "required affinity to pods app=cache: no matching pod runs in topology.kubernetes.io/zone=zone-b",
        "shop/report-0 (on b-2) has required anti-affinity to pods app=web over kubernetes.io/hostname, and this "
        "pod matches it",
    ]),
    ("spread", "a-2", [
        "PodTopologySpread * Unschedulable: node(s) didn't match pod topology spread constraints",
        "spread over topology.kubernetes.io/zone (maxSkew 1, pods app=shop): matching pods per domain: zone-a 2, "
        "zone-b 1, zone-c 1; global minimum 1; placing the pod in zone-a makes the skew 2: over maxSkew 1",
    ]),
    ("spread", "b-1", ["placing the pod in zone-b makes the skew 1: within maxSkew 1"]),
    ("ports", "edge-2", [
        "NodePorts * Unschedulable: node(s) didn't have free ports for the requested pod ports",
        "host port TCP 0.0.0.0:8080: already used by edge/ingress-1",
    ]),
    ("ports", "edge-3", ["host port TCP 0.0.0.0:8080: free", "taint dedicated=monitoring:NoSchedule: not tolerated"]),
    ("volume-zone", "a-1", [
        "VolumeBinding * UnschedulableAndUnresolvable: node(s) didn't match PersistentVolume's node affinity",
        "claim default/data: bound to pv-data, whose node affinity (topology.kubernetes.io/zone In [zone-b]) "
        "excludes this node",
        "VolumeZone UnschedulableAndUnresolvable: node(s) had no available volume zone",
        "PersistentVolume pv-data is in topology.kubernetes.io/zone=zone-b; the node: zone-a (does not match)",
    ]),
    ("volume-zone", "b-1", ["claim default/data: bound to pv-data, usable on this node"]),
    ("volume-binding", "w-2", [
        "VolumeBinding * UnschedulableAndUnresolvable: node(s) didn't find available persistent volumes to bind",
        "claim default/scratch (100Gi, class local-storage, WaitForFirstConsumer): 1 free volume(s) of the class, "
        "none usable on this node; the class cannot provision new volumes",
    ]),
    ("volume-binding", "w-3", [
        "Rejected by NodeUnschedulable",
        "1 free volume(s) of the class, usable here: local-w3",
    ]),
    ("pod-web", "node-1", [
        "Feasible: rank 2 of 2, score 399. Against node-2: NodeResourcesFit -50, NodeResourcesBalancedAllocation -12.",
        "Score plugins: raw score -> normalized x weight = weighted (total 399)",
        "NodeResourcesFit 21 -> 21 x 1 = 21",
        "score (LeastAllocated: the emptier, the higher): with the pod, cpu 100%, memory 56% of allocatable requested",
        "NodeResourcesBalancedAllocation 78 -> 78 x 1 = 78",
        "image nginx:1.27 is not on this node",
    ]),
    ("pod-web", "node-2", ["Feasible: rank 1 of 2, score 461 - the scheduler picks it."]),
    ("large-cluster", "node-110", [
        "Never examined: the search stopped once it had found enough feasible nodes. It would have passed Filter "
        "and, scored together with the others, got 474: higher than the winner node-001 (424).",
        "NodeResourcesFit Success",
    ]),
    ("large-cluster", "node-101", ["Feasible, but found after the search already had enough feasible nodes: "
                                   "dropped, not scored (first in line for the next pod)."]),
    ("preemption", "pr-2", ["Preemption: the pod would be nominated to this node, evicting default/batch-2 "
                            "(priority 0), default/batch-3 (priority 0)."]),
]


@pytest.mark.parametrize("name, node, says", NODE_VIEWS, ids=[f"{n}-{node}" for n, node, _ in NODE_VIEWS])
def test_node_view(name, node, says):
    text = node_text(name, node)
    for phrase in says:
        assert phrase in text, phrase


def test_node_view_lists_skipped_plugins_once():
    text = node_text("pod-web", "node-1")
    assert "Nothing to check for this pod (PreFilter returned Skip): NodeAffinity, NodePorts," in text
    assert "NodeAffinity Skip" not in text


def test_node_view_resources_table():
    rows = section(text_of(trace_of("pod-too-big", "node-1"), node="node-1"), "Resources")
    assert rows[1] == "resource the pod requests the node's pods request allocatable"
    assert rows[3:] == ["cpu 6 3 4", "memory 4Gi 8Gi 16Gi", "pods 1 1 110"]


def test_unknown_node():
    assert node_text("pod-web", "nope") == "There is no node named nope in the cluster."


def test_node_view_fits_80_columns():
    for name, node, _ in NODE_VIEWS:
        for line in text_of(trace_of(name, node), node=node).splitlines():
            assert len(line) <= 80, line


def test_node_outside_the_prefilter_narrowing(tmp_path):
    from tests.support.render_helpers import ROOT
    case = ROOT / "tests" / "conformance" / "hand-g-prefilter-narrowed"
    req = Request(pod_path=str(case / "pod.yaml"), node_paths=(str(case / "cluster.yaml"),))
    inputs = load_inputs(req)
    plain = explain(inputs, req).to_json()
    outside = next(ni.name for ni in inputs.snapshot.node_infos if ni.name not in plain["preFilterNodeNames"])
    trace = explain(inputs, RunOptions(details=True, explain_nodes=frozenset([outside]))).to_json()
    facts = trace["details"]["nodes"][outside]
    assert facts["examined"] is False
    assert facts["filterAll"]["NodeAffinity"]["code"] == "UnschedulableAndUnresolvable"
    text = " ".join(squeeze(text_of(trace, node=outside)))
    assert "Never examined: not among the nodes PreFilter narrowed the search to." in text
    assert "NodeAffinity UnschedulableAndUnresolvable: node(s) didn't match Pod's node affinity/selector" in text


# -- preemption ---------------------------------------------------------------------------------------------

def test_preemption_victims_and_why_not_the_others():
    view = preemption_view(trace_of("preemption"))
    assert view.nominated == "pr-2"
    assert view.victims == [Victim("default/batch-2", 0, "pr-2"), Victim("default/batch-3", 0, "pr-2")]
    assert view.why_not == {
        "a candidate too (2 victim(s): default/ledger-0, default/report-0; violates default/ledger), but pr-2 wins "
        "on fewer PodDisruptionBudget violations": ["pr-1"],
        "no pod of lower priority runs there": ["pr-3"],
        "evicting pods cannot help (UnschedulableAndUnresolvable): node(s) had untolerated taint(s)": ["pr-4"],
    }
    text = text_of(trace_of("preemption"))
    rows = section(text, "Preemption (DefaultPreemption dry run: nothing is evicted)")
    assert rows[1:3] == ["Would nominate pr-2 and evict 2 pod(s); the pod is scheduled there once they are",
                         "gone."]
    assert rows[3] == "victim priority node PodDisruptionBudget violated"
    assert rows[5:] == ["default/batch-2 0 pr-2 -", "default/batch-3 0 pr-2 -"]
    why = " ".join(section(text, "Why not the other nodes"))
    assert "a candidate too (2 victim(s): default/ledger-0, default/report-0; pr-1 violates default/ledger), " \
           "but pr-2 wins on fewer PodDisruptionBudget violations" in why
    assert "no pod of lower priority runs there pr-3" in why


def test_preemption_victim_breaking_a_budget(tmp_path):
    """With pr-2 tainted, only pr-1 helps: its victims include the ledger, whose budget breaks."""
    pod, cluster = fixture_paths("preemption")
    text = cluster.read_text().replace(
        "  name: pr-2\n  labels: {kubernetes.io/hostname: pr-2}\n",
        "  name: pr-2\n  labels: {kubernetes.io/hostname: pr-2}\nspec:\n  taints:\n"
        "  - {key: dedicated, value: ci, effect: NoSchedule}\n")
    (tmp_path / "cluster.yaml").write_text(text)
    req = Request(pod_path=str(pod), node_paths=(str(tmp_path / "cluster.yaml"),))
    trace = explain(load_inputs(req), req).to_json()
    view = preemption_view(trace)
    assert view.nominated == "pr-1"
    assert view.victims == [Victim("default/ledger-0", 100, "pr-1", ("default/ledger",)),
                            Victim("default/report-0", 100, "pr-1")]
    assert view.why_not["evicting pods cannot help (UnschedulableAndUnresolvable): node(s) had untolerated "
                        "taint(s)"] == ["pr-2", "pr-4"]


def test_preemption_policy_never(tmp_path):
    pod, cluster = fixture_paths("preemption")
    never = tmp_path / "pod.yaml"
    never.write_text(pod.read_text().replace("priorityClassName: critical", "priorityClassName: critical-never"))
    (tmp_path / "cluster.yaml").write_text(
        cluster.read_text() + "---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
        "metadata: {name: critical-never}\nvalue: 1000000\npreemptionPolicy: Never\n")
    req = Request(pod_path=str(never), node_paths=(str(tmp_path / "cluster.yaml"),))
    trace = explain(load_inputs(req), req).to_json()
    view = preemption_view(trace)
    assert view.nominated == "" and view.victims == []
    text = " ".join(squeeze(text_of(trace)))
    assert "Would not help: not eligible due to preemptionPolicy=Never." in text


def test_no_preemption_section_when_it_did_not_run(tmp_path):
    pod, cluster = fixture_paths("pod-too-big")
    req = Request(pod_path=str(pod), node_paths=(str(cluster),), run=RunOptions(preemption=False))
    trace = explain(load_inputs(req), req).to_json()
    assert preemption_view(trace) is None and "Preemption" not in text_of(trace)


def test_facts_are_in_the_json_trace():
    facts = trace_of("volume-binding", "w-3")["details"]["nodes"]["w-3"]["plugins"]
    assert facts["VolumeBinding"] == {"claims": [{
        "volume": "scratch", "claim": "default/scratch", "found": True, "phase": "Pending",
        "storageClass": "local-storage", "bindingMode": "WaitForFirstConsumer", "request": "100Gi",
        "availableVolumes": 1, "volumesForNode": ["local-w3"], "provisioner": "kubernetes.io/no-provisioner",
        "classAllowsNode": True}]}
    spread = trace_of("spread", "a-2")["details"]["nodes"]["a-2"]["plugins"]["PodTopologySpread"]["hard"][0]
    assert spread["domains"] == [{"domain": "zone-a", "matchingPods": 2, "skew": 2},
                                 {"domain": "zone-b", "matchingPods": 1, "skew": 1},
                                 {"domain": "zone-c", "matchingPods": 1, "skew": 1}]
    assert (spread["globalMinimum"], spread["skew"], spread["satisfied"]) == (1, 2, False)
    fit = trace_of("pod-too-big", "node-5")["details"]["nodes"]["node-5"]["plugins"]["NodeResourcesFit"]
    assert fit["resources"][0] == {"name": "cpu", "podRequest": "6", "nodeRequested": "1500m", "allocatable": "2",
                                   "free": "500m", "fits": False, "exceedsAllocatable": True}


def test_scored_node_when_prescore_skipped_every_score_plugin():
    trace = {
        "apiVersion": "kexplain/v1", "kind": "SchedulingTrace", "pod": {"namespace": "default", "name": "p"},
        "profile": "default-scheduler", "preEnqueue": [], "preFilter": [], "preFilterNodeNames": None,
        "search": {"numAllNodes": 2, "numFeasibleNodesToFind": 2, "startIndex": 0, "order": ["n1", "n2"],
                   "nextStartIndex": 0, "numNodesSearched": 2, "numFilterSuccess": 2},
        "filter": {"n1": {"code": "Success"}, "n2": {"code": "Success"}},
        "filterAll": {"n1": {"NodeUnschedulable": {"code": "Success"}},
                      "n2": {"NodeUnschedulable": {"code": "Success"}}},
        "score": {"n1": {"total": 0, "plugins": {}}, "n2": {"total": 0, "plugins": {}}},
        "postFilter": None,
        "result": {"status": "Scheduled", "selectedNodes": ["n1", "n2"], "message": "", "suggestedHost": "n1"},
    }
    text = " ".join(squeeze(text_of(trace, node="n2")))
    assert ("Feasible: rank 2 of 2, score 0 - tied at the top: the tie goes to the node on top of kube-scheduler's "
            "ranking heap (the scored nodes in the order Filter found them feasible; no random draw).") in text
    assert "none: PreScore skipped every Score plugin, so every node scores 0" in text
    assert "tied with 1 other" not in text_of(trace)
    assert "tied with n2: the tie goes to the node on top of kube-scheduler's ranking heap" in " ".join(
        squeeze(text_of(trace)))
