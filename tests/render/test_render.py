"""The default and wide views: the figures they show (ranks, grouped reasons, the search)
and how they are printed (plain text at 80 columns, colours on a terminal, exports)."""
from __future__ import annotations

import json
import re

import pytest

from kexplain.cli.app import main
from kexplain.render.suggestions import suggestion_rows
from kexplain.render.views import deciding_plugins, ranking, rejection_groups, search_figures
from kexplain.explain.inputs import load_inputs
from kexplain.explain.request import Request, RunOptions
from kexplain.features import DEFAULT_MINOR, RELEASES
from kexplain.explain.run import explain
from tests.support.render_helpers import FIXTURES, fixture_paths, section, squeeze, table_rows, text_of, trace_of

ANSI = re.compile(r"\x1b\[")


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


# -- ranks ----------------------------------------------------------------------------------------------

def test_ranking_of_the_web_pod():
    ranked = ranking(trace_of("pod-web"))
    assert [(r.rank, r.node, r.zone, r.total, r.chosen) for r in ranked] == [
        (1, "node-2", "zone-a", 461, True), (2, "node-1", "zone-a", 399, False)]
    # node-2 is emptier: LeastAllocated (+50) and a better balance (+12) decide.
    assert ranked[0].against == "node-1"
    assert ranked[0].deciding == (("NodeResourcesFit", 50), ("NodeResourcesBalancedAllocation", 12))
    assert ranked[1].against == "node-2"
    assert ranked[1].deciding == (("NodeResourcesFit", -50), ("NodeResourcesBalancedAllocation", -12))


def test_ranked_table():
    text = text_of(trace_of("pod-web"))
    rows = section(text, "Feasible nodes, best first")
    assert rows[1] == "# node zone score why this rank"
    assert rows[3] == "1* node-2 zone-a 461 Fit +50, Balanced +12 (over #2)"
    assert rows[4] == "2 node-1 zone-a 399 Fit -50, Balanced -12 (behind #1)"
    assert "Would be bound to node-2 (score 461, best of 2 scored nodes)" in squeeze(text)
    assert "Plugins: Fit = NodeResourcesFit, Balanced = NodeResourcesBalancedAllocation" in " ".join(squeeze(text))


@pytest.mark.parametrize("mine, other, want", [
    ({"A": {"weighted": 10}, "B": {"weighted": 5}}, {"A": {"weighted": 10}, "B": {"weighted": 9}}, (("B", -4),)),
    ({"A": {"weighted": 3}}, {"A": {"weighted": 1}, "C": {"weighted": 7}}, (("C", -7), ("A", 2))),
    ({"A": {"weighted": 1}}, {"A": {"weighted": 1}}, ()),
    ({p: {"weighted": i} for i, p in enumerate("ABCD")}, {}, (("D", 3), ("C", 2), ("B", 1))),
], ids=["one plugin differs", "missing plugin counts as 0", "identical", "at most three"])
def test_deciding_plugins(mine, other, want):
    assert deciding_plugins(mine, other) == want


def test_ties_name_the_scheduler_pick_and_the_top_ten():
    trace = trace_of("large-cluster")
    ranked = ranking(trace)
    assert len(ranked) == 100 and ranked[0].node == "node-001" and ranked[0].chosen
    assert all(r.total == 424 and r.selected for r in ranked)
    text = text_of(trace)
    rows = section(text, "Feasible nodes, best first")
    assert rows[3] == "1* node-001 424 tied with #2"
    assert rows[12] == "10 node-010 424 tied with #1"
    assert "... and 90 more (-o wide lists every node)" in squeeze(text)
    release = trace["kubernetesVersion"]["scheduler"]
    assert ("Would be bound to node-001 (score 424, best of 100 scored nodes); tied with 99 other nodes: the tie "
            f"goes to the node on top of kube-scheduler {release}'s ranking heap (the scored nodes in the order "
            "Filter found them feasible; no random draw)") in " ".join(squeeze(text))


# -- rejections ------------------------------------------------------------------------------------------

def test_rejections_grouped_by_reason():
    groups = rejection_groups(trace_of("pod-too-big"))
    assert [(g.plugin, g.reason, g.nodes, g.reported) for g in groups] == [
        ("NodeResourcesFit", "Insufficient cpu", ["node-1", "node-2", "node-5"], ["node-1", "node-2", "node-5"]),
        ("TaintToleration", "node(s) had untolerated taint(s)", ["node-4", "node-6"], ["node-4", "node-6"]),
        ("NodeUnschedulable", "node(s) were unschedulable", ["node-3"], ["node-3"]),
    ]
    rows = table_rows(text_of(trace_of("pod-too-big")), "Rejected nodes, by reason")
    assert rows[3] == "Insufficient cpu NodeResourcesFit 3 node-1*, node-2*, node-5*"
    assert rows[4] == "node(s) had untolerated taint(s) TaintToleration 2 node-4*, node-6*"
    assert rows[5] == "node(s) were unschedulable NodeUnschedulable 1 node-3*"


HAND_TRACE = {
    "apiVersion": "kexplain/v1", "kind": "SchedulingTrace", "pod": {"namespace": "default", "name": "p"},
    "profile": "default-scheduler", "preEnqueue": [], "preFilter": [], "preFilterNodeNames": None,
    "search": {"numAllNodes": 2, "numFeasibleNodesToFind": 2, "startIndex": 0, "order": ["n1", "n2"],
               "nextStartIndex": 0, "numNodesSearched": 2, "numFilterSuccess": 0},
    "filter": {"n1": {"plugin": "TaintToleration", "code": "UnschedulableAndUnresolvable",
                      "reasons": ["node(s) had untolerated taint(s)"]},
               "n2": {"plugin": "NodeResourcesFit", "code": "Unschedulable", "reasons": ["Insufficient cpu"]}},
    "filterAll": {
        "n1": {"NodeUnschedulable": {"code": "Success"},
               "TaintToleration": {"code": "UnschedulableAndUnresolvable",
                                   "reasons": ["node(s) had untolerated taint(s)"]},
               "NodeAffinity": {"code": "UnschedulableAndUnresolvable",
                                "reasons": ["node(s) didn't match Pod's node affinity/selector"]},
               "NodeResourcesFit": {"code": "Unschedulable", "reasons": ["Insufficient cpu", "Insufficient memory"]}},
        "n2": {"NodeUnschedulable": {"code": "Success"}, "TaintToleration": {"code": "Success"},
               "NodeAffinity": {"code": "Success"},
               "NodeResourcesFit": {"code": "Unschedulable", "reasons": ["Insufficient cpu"]}}},
    "score": None, "postFilter": None,
    "result": {"status": "Unschedulable", "selectedNodes": [], "message": "0/2 nodes are available: ..."},
}


def test_a_node_rejected_by_three_plugins_is_under_all_three():
    groups = {(g.plugin, g.reason): g for g in rejection_groups(HAND_TRACE)}
    assert groups[("NodeResourcesFit", "Insufficient cpu")].nodes == ["n1", "n2"]
    assert groups[("NodeResourcesFit", "Insufficient cpu")].reported == ["n2"]
    assert groups[("NodeResourcesFit", "Insufficient memory")].nodes == ["n1"]
    assert groups[("TaintToleration", "node(s) had untolerated taint(s)")].reported == ["n1"]
    assert groups[("NodeAffinity", "node(s) didn't match Pod's node affinity/selector")].reported == []
    assert sum("n1" in g.nodes for g in groups.values()) == 4   # three plugins, four reasons
    rows = table_rows(text_of(HAND_TRACE), "Rejected nodes, by reason")
    assert "Insufficient cpu NodeResourcesFit 2 n1, n2*" in rows
    assert "Insufficient memory NodeResourcesFit 1 n1" in rows


def test_volume_zone_node_is_under_both_volume_plugins():
    groups = {g.plugin: g for g in rejection_groups(trace_of("volume-zone"))}
    assert groups["VolumeBinding"].nodes == ["a-1", "a-2"] and groups["VolumeBinding"].reported == ["a-1", "a-2"]
    assert groups["VolumeZone"].nodes == ["a-1", "a-2"] and groups["VolumeZone"].reported == []
    assert groups["VolumeZone"].reason == "node(s) had no available volume zone"


def test_prefilter_rejection_is_one_unnamed_group():
    from tests.support.render_helpers import ROOT
    from kexplain.explain.inputs import load_inputs
    from kexplain.explain.request import Request
    from kexplain.explain.run import explain
    case = ROOT / "tests" / "conformance" / "hand-f-pvc-immediate-unbound"
    req = Request(pod_path=str(case / "pod.yaml"), node_paths=(str(case / "cluster.yaml"),))
    trace = explain(load_inputs(req), req).to_json()
    [group] = rejection_groups(trace)
    assert (group.plugin, group.reason, group.named) == (
        "VolumeBinding", "pod has unbound immediate PersistentVolumeClaims", False)
    assert trace["search"] is None and group.count == int(trace["result"]["message"].split("/")[1].split()[0])
    text = " ".join(squeeze(text_of(trace)))
    assert "PreFilter stopped the cycle before any node was examined: VolumeBinding" in text
    assert "VolumeBinding 2 (every node)" in text


# -- the search ---------------------------------------------------------------------------------------------

def test_search_figures_when_every_node_is_examined():
    fig = search_figures(trace_of("pod-web"))
    assert (fig.num_all_nodes, fig.num_feasible_nodes_to_find, fig.start_node, fig.stop_node, fig.examined,
            fig.never_examined, fig.feasible_found, fig.dropped) == (6, 6, "node-1", "node-6", 6, 0, 2, None)


def test_search_figures_when_the_search_stops_early():
    fig = search_figures(trace_of("large-cluster"))
    assert fig.num_all_nodes == 120 and fig.num_feasible_nodes_to_find == 100
    assert (fig.start_index, fig.start_node, fig.stop_node, fig.next_start_index) == (0, "node-001", "node-101", 100)
    assert (fig.examined, fig.never_examined, fig.feasible_found, fig.dropped) == (101, 19, 101, "node-101")
    # The 19 never-examined nodes and the dropped one are empty: each beats the busy winner.
    assert fig.evaluated and fig.unexamined_feasible == 19
    assert (fig.winner, fig.winner_total) == ("node-001", 424)
    assert (fig.best_unexamined, fig.best_unexamined_total) == ("node-101", 474)
    assert set(fig.higher) == {f"node-{i:03d}" for i in range(101, 121)}


def test_search_section():
    rows = section(text_of(trace_of("large-cluster")), "The search")
    text = "\n".join(rows)
    assert "nodes in the cluster 120" in rows
    assert "feasible nodes to find 100 (numFeasibleNodesToFind: from" in text
    assert "round-robin started at index 0 (node-001)" in rows
    assert "stopped at node-101, after 101 node(s)" in rows
    assert "passed Filter 101 (node-101 was one too many: dropped, not scored," in text
    assert "next pod starts at index 100" in rows
    assert "never examined 19: the search stopped once it had found enough feasible" in text
    assert "would pass Filter 19 of the 19" in rows
    assert "could they win? yes: 20 of the nodes left out (the dropped node-101 and" in text
    joined = " ".join(rows)
    assert "the best of them, node-101, gets 474 against the winner's 424 (node-001)" in joined


def test_search_section_without_the_evaluation():
    rows = section(text_of(trace_of("large-cluster", unexamined=False)), "The search")
    assert "could they win? not evaluated" in rows


# -- the summary ------------------------------------------------------------------------------------------

def test_failed_scheduling_event_as_kubectl_describe_shows_it():
    trace = trace_of("pod-too-big")
    lines = text_of(trace).splitlines()
    at = lines.index("Events:")
    assert lines[at + 1].split() == ["Type", "Reason", "From", "Message"]
    assert lines[at + 3] == f"  Warning  FailedScheduling  default-scheduler  {trace['result']['message']}"


def test_gated_pod():
    from tests.support.render_helpers import ROOT
    from kexplain.explain.inputs import load_inputs
    from kexplain.explain.request import Request
    from kexplain.explain.run import explain
    case = ROOT / "tests" / "conformance" / "hand-e-gated"
    req = Request(pod_path=str(case / "pod.yaml"), node_paths=(str(case / "cluster.yaml"),))
    text = text_of(explain(load_inputs(req), req).to_json())
    assert squeeze(text)[0].endswith("Gated")
    assert squeeze(text)[1] == f"Kubernetes {DEFAULT_MINOR} (kube-scheduler {RELEASES[DEFAULT_MINOR]})"
    assert squeeze(text)[2].startswith("Not scheduled: held back by SchedulingGates:")
    assert "The search" not in text


# -- wide -----------------------------------------------------------------------------------------------------

def test_wide_shows_every_plugin_score_and_the_resources():
    text = text_of(trace_of("pod-web"), wide=True)
    rows = section(text, "Feasible nodes, best first")
    assert rows[1] == "# node zone score Taint Fit DRA Balanced Image"
    assert rows[3] == "1* node-2 zone-a 461 300 71 0 90 0"
    assert rows[4] == "2 node-1 zone-a 399 300 21 0 78 0"
    joined = " ".join(squeeze(text))
    assert "Taint = TaintToleration (weight 3)" in joined and "DRA = DynamicResources (weight 2)" in joined
    res = section(text, "Resources")
    assert res[1] == "node cpu memory pods nvidia.com/gpu"
    assert "node-2 500m/4 2Gi/16Gi 1/110 -" in res and "node-4 0/16 0/64Gi 0/110 0/2" in res
    assert "Each cell: requested by the node's pods / allocatable. The pod requests cpu 1, memory 1Gi." in joined


# -- how it is printed ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["pod-too-big", "pod-web", "large-cluster", "preemption"])
@pytest.mark.parametrize("wide", [False, True], ids=["table", "wide"])
def test_plain_text_fits_80_columns(name, wide):
    trace = trace_of(name)
    text = text_of(trace, wide=wide)
    assert not ANSI.search(text)
    for line in text.splitlines():
        assert line == line.rstrip()
        if not line.startswith("  Warning  FailedScheduling"):
            assert len(line) <= 80, line


def test_colours_on_a_terminal_and_no_color(monkeypatch):
    trace = trace_of("pod-too-big")
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert ANSI.search(text_of(trace, terminal=True, width=100))
    monkeypatch.setenv("NO_COLOR", "1")
    coloured = text_of(trace, terminal=True, width=100)
    assert not re.search(r"\x1b\[[0-9;]*3[0-9]m", coloured)     # no foreground colours
    assert "Insufficient cpu" in coloured


def test_svg_and_html_export(capsys, tmp_path):
    pod, cluster = fixture_paths("pod-web")
    svg, html = tmp_path / "web.svg", tmp_path / "web.html"
    code, out, _ = run(capsys, str(pod), "--nodes", str(cluster), "--svg", str(svg), "--html", str(html))
    assert code == 0 and "Feasible nodes, best first" in out
    assert svg.read_text().lstrip().startswith("<svg") and "node-2" in svg.read_text()
    assert "<html" in html.read_text() and "Feasible nodes, best first" in html.read_text()


def test_export_to_an_unwritable_file_is_one_error_line(capsys, tmp_path):
    pod, cluster = fixture_paths("pod-web")
    code, _, err = run(capsys, str(pod), "--nodes", str(cluster), "--svg", str(tmp_path / "no" / "such" / "x.svg"))
    assert code == 2 and len(err.strip().splitlines()) == 1 and err.startswith("error: ")


def test_json_has_the_extra_keys_only_when_asked(capsys):
    pod, cluster = fixture_paths("pod-web")
    _, out, _ = run(capsys, str(pod), "--nodes", str(cluster), "-o", "json")
    trace = json.loads(out)
    assert "details" not in trace and "unexamined" not in trace
    _, out, _ = run(capsys, str(pod), "--nodes", str(cluster), "-o", "json", "--node", "node-1")
    details = json.loads(out)["details"]
    assert details["pod"] == {"priority": 0, "requests": {"cpu": "1", "memory": "1Gi"}}
    assert details["nodes"]["node-1"]["examined"] is True
    assert details["nodes"]["node-1"]["plugins"]["NodeUnschedulable"] == {
        "unschedulable": False, "taint": "node.kubernetes.io/unschedulable:NoSchedule", "tolerated": False}
    assert [n for n, f in details["nodes"].items() if "plugins" in f] == ["node-1"]


def test_several_pods_render_one_section_each(capsys, tmp_path):
    pods = tmp_path / "pods.yaml"
    pods.write_text((FIXTURES / "pod-web.yaml").read_text() + "\n---\n" + (FIXTURES / "pod-too-big.yaml").read_text())
    code, out, _ = run(capsys, str(pods), "--nodes", str(FIXTURES / "cluster.yaml"), "--no-suggestions")
    assert code == 1
    assert "Pod default/web (profile default-scheduler): Scheduled" in out
    assert "Pod default/analytics (profile default-scheduler): Unschedulable" in out
    assert "Rejected nodes, by reason" in out


# -- suggestions -------------------------------------------------------------------------------------------------

def test_suggestions_pod_changes_first_then_the_cluster():
    trace = {"suggestions": [
        {"target": "node n3", "description": "uncordon node n3", "nodesOpened": 1, "nodesOpenedExact": True,
         "openedNodes": ["n3"]},
        {"target": "pod default/p", "description": "lower the cpu request from 6 to 3", "nodesOpened": 7,
         "nodesOpenedExact": False, "openedNodes": [f"n{i}" for i in range(7)]},
    ]}
    assert suggestion_rows(trace) == [
        ("On the pod:", ""),
        ("1.", "lower the cpu request from 6 to 3: opens at least 7 nodes (n0, n1, n2, n3, n4, ... (+2 more))"),
        ("On the cluster:", ""),
        ("2.", "uncordon node n3: opens 1 node (n3)"),
    ]


# -- reading the output: long node names, quantities, the scheduler's own words ------------------------------------

LONG = "gke-prod-pool-1-abcdef-0"      # + a digit: 25 characters, as cloud node names are


def long_named(tmp_path, name: str, prefix: str = "node-") -> tuple[str, str, list[str]]:
    """The fixture with its nodes renamed to 25-character names: (pod, cluster, the names)."""
    pod, cluster = fixture_paths(name)
    text = re.sub(rf"\b{prefix}([0-9])\b", rf"{LONG}\1", cluster.read_text())
    path = tmp_path / "cluster.yaml"
    path.write_text(text)
    return str(pod), str(path), sorted(set(re.findall(rf"{LONG}[0-9]", text)))


def node_names_in(text: str) -> list[str]:
    """Every word of the text that starts like a long node name, as printed."""
    return re.findall(rf"(?<![\w-]){LONG[:8]}[\w.-]*", text)


@pytest.mark.parametrize("name, prefix", [("pod-too-big", "node-"), ("pod-web", "node-"), ("preemption", "pr-"),
                                          ("taints", "db-")])
@pytest.mark.parametrize("wide", [False, True], ids=["table", "wide"])
def test_long_node_names_are_never_broken_at_80_columns(capsys, tmp_path, name, prefix, wide):
    pod, cluster, names = long_named(tmp_path, name, prefix)
    assert names and all(len(n) == 25 for n in names)
    code, out, _ = run(capsys, pod, "--nodes", cluster, *(["-o", "wide"] if wide else []))
    assert code in (0, 1)
    for line in out.splitlines():
        assert len(line) <= 80 or line.startswith("  Warning  FailedScheduling"), line
    printed = node_names_in(out)
    assert printed and {p.rstrip("*,") for p in printed} <= {*names, *(f"new-node-like-{n}" for n in names)}, printed


def test_rejected_node_names_wrap_between_names(capsys, tmp_path):
    pod, cluster, _ = long_named(tmp_path, "pod-too-big")
    _, out, _ = run(capsys, pod, "--nodes", cluster, "--no-suggestions")
    lines = section(out, "Rejected nodes, by reason")
    assert lines[3:6] == [f"Insufficient cpu NodeResourcesFit 3 {LONG}1*,", f"{LONG}2*,", f"{LONG}5*"]
    assert lines[6:8] == [f"node(s) had TaintToleration 2 {LONG}4*,", f"untolerated taint(s) {LONG}6*"]


@pytest.mark.parametrize("width", [60, 100, 160])
def test_long_node_names_on_a_terminal(tmp_path, width):
    pod, cluster, names = long_named(tmp_path, "pod-too-big")
    req = Request(pod_path=pod, node_paths=(cluster,))
    trace = explain(load_inputs(req), RunOptions(details=True, unexamined=True)).to_json()
    text = text_of(trace, terminal=True, width=width, color=False)
    assert all(p.rstrip("*,") in names for p in node_names_in(text))
    rejected = text.split("Rejected nodes, by reason", 1)[1].split("The search", 1)[0]
    assert sorted(p.rstrip("*,") for p in node_names_in(rejected)) == sorted(names)


def test_names_too_long_for_a_column_go_under_the_reason(capsys, tmp_path):
    pod, cluster = fixture_paths("pod-too-big")
    text = re.sub(r"\bnode-([0-9])\b", r"ip-10-0-1-2\1.eu-west-1.compute.internal", cluster.read_text())
    (tmp_path / "c.yaml").write_text(text)
    _, out, _ = run(capsys, str(pod), "--nodes", str(tmp_path / "c.yaml"), "--no-suggestions")
    lines = section(out, "Rejected nodes, by reason")
    assert lines[1] == "reason (node names below) plugin nodes"
    assert lines[3:7] == ["Insufficient cpu NodeResourcesFit 3", "ip-10-0-1-21.eu-west-1.compute.internal*,",
                          "ip-10-0-1-22.eu-west-1.compute.internal*,", "ip-10-0-1-25.eu-west-1.compute.internal*"]


def test_wide_view_puts_plugin_scores_apart_when_names_need_the_room(capsys, tmp_path):
    pod, cluster, _ = long_named(tmp_path, "pod-web")
    # 1.35's scores, as the other views of pod-web here (tests.support.render_helpers.RENDERED_VERSION)
    _, out, _ = run(capsys, pod, "--nodes", cluster, "-o", "wide", "--kubernetes-version", "1.35")
    assert section(out, "Feasible nodes, best first")[1:5] == [
        "# node zone score", "-" * 47, f"1* {LONG}2 zone-a 461", f"2 {LONG}1 zone-a 399"]
    assert section(out, "Weighted scores per plugin, by rank")[1:5] == [
        "# Taint Fit DRA Balanced Image", "-" * 41, "1* 300 71 0 90 0", "2 300 21 0 78 0"]


@pytest.mark.parametrize("resource, amount, shown", [
    ("memory", "95551679853", "88.99Gi"), ("ephemeral-storage", "95551679853", "88.99Gi"),
    ("memory", "16Gi", "16Gi"), ("memory", "1536Mi", "1536Mi"), ("memory", "30208Mi", "29.5Gi"),
    ("memory", "13137412Ki", "12.53Gi"), ("memory", "1G", "953.67Mi"), ("memory", "1073741823", "1.00Gi"),
    ("memory", "0", "0"), ("memory", "512", "512"), ("hugepages-2Mi", "4194304", "4Mi"),
    ("storage", "10737418240", "10Gi"), ("cpu", "3500m", "3500m"), ("pods", "110", "110"),
    ("nvidia.com/gpu", "2", "2"), ("memory", None, "-"),
])
def test_quantities_as_people_read_them(resource, amount, shown):
    from kexplain.render.style import quantity
    assert quantity(resource, amount) == shown


RAW_CLUSTER = """apiVersion: v1
kind: Node
metadata: {name: raw-1, labels: {kubernetes.io/hostname: raw-1}}
status:
  capacity: {cpu: "4", memory: 16393220Ki, ephemeral-storage: "95551679853", pods: "110"}
  allocatable: {cpu: 3920m, memory: 13137412Ki, ephemeral-storage: "95551679853", pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: used, namespace: default}
spec:
  nodeName: raw-1
  containers: [{name: c, image: x, resources: {requests: {memory: 1000M, ephemeral-storage: 10G}}}]
"""
RAW_POD = """apiVersion: v1
kind: Pod
metadata: {name: big}
spec:
  containers: [{name: c, image: x, resources: {requests: {memory: "12345678901", ephemeral-storage: 90Gi}}}]
"""


def test_no_raw_byte_counts_in_the_human_views(capsys, tmp_path):
    pod, cluster = tmp_path / "pod.yaml", tmp_path / "cluster.yaml"
    pod.write_text(RAW_POD)
    cluster.write_text(RAW_CLUSTER)
    outputs = [run(capsys, str(pod), "--nodes", str(cluster), *extra)[1]
               for extra in ([], ["-o", "wide"], ["--node", "raw-1"])]
    for out in outputs:
        assert not re.search(r"\d{6,}", out.replace("Ki", "")), out
    table, wide, node = outputs
    assert "Requests memory 11.50Gi, ephemeral-storage 90Gi; priority 0" in table
    assert "raw-1 0/3920m 953.67Mi/12.53Gi 9.31Gi/88.99Gi 1/110" in squeeze(wide)
    words = " ".join(node.split())
    assert ("ephemeral-storage: the pod requests 90Gi, more than the node's whole allocatable (88.99Gi): evicting "
            "pods cannot help (9.31Gi requested by its pods, 79.68Gi free)") in words
    assert "ephemeral-storage 90Gi 9.31Gi 88.99Gi" in squeeze(node)


def test_amounts_that_round_alike_are_shown_exactly():
    from kexplain.render.facts import describe
    facts = {"resources": [{"name": "memory", "podRequest": "1073741825", "nodeRequested": "0",
                            "allocatable": "1073741824", "free": "1073741824", "fits": False}]}
    assert describe("NodeResourcesFit", facts) == [
        "memory: the pod requests 1073741825; the node has 1Gi allocatable, 0 requested by its pods: 1073741824 "
        "free - not enough"]


def test_unknown_plugin_facts_are_words_not_python():
    from kexplain.render.facts import describe
    assert describe("Example", {"ok": True, "missing": None, "items": ["a", "b"], "m": {"k": False}}) == [
        "ok: yes", "missing: -", "items: [a, b]", "m: {k: no}"]


def test_brackets_are_printed_not_taken_for_markup(capsys):
    pod, cluster = fixture_paths("node-affinity")
    _, text, _ = run(capsys, str(pod), "--nodes", str(cluster))
    assert "in the node affinity expression topology.kubernetes.io/zone In [zone-b]: opens 3 nodes" in " ".join(
        text.split())


MISSING_CLAIM = """apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: x}]
  volumes: [{name: d, persistentVolumeClaim: {claimName: missing}}]
"""


def test_the_trailing_not_found_is_explained(capsys, tmp_path):
    pod = tmp_path / "pod.yaml"
    pod.write_text(MISSING_CLAIM)
    code, out, _ = run(capsys, str(pod), "--nodes", str(FIXTURES / "cluster.yaml"))
    assert code == 1
    lines = out.splitlines()
    event = next(i for i, line in enumerate(lines) if line.startswith("  Warning  FailedScheduling"))
    assert lines[event].endswith('0/6 nodes are available: persistentvolumeclaim "missing" not found. not found')
    note = " ".join(" ".join(lines[event + 1:lines.index("", event)]).split())
    assert note == ('The trailing "not found" is the scheduler\'s own: its DynamicResources PostFilter found no '
                    "state because PreFilter stopped at VolumeRestrictions before DynamicResources' PreFilter ran; "
                    "it is not a missing object of yours.")
    _, out, _ = run(capsys, str(pod), "--nodes", str(FIXTURES / "cluster.yaml"), "-o", "json")
    assert json.loads(out)["result"]["message"].endswith(". not found")


def test_no_not_found_note_without_it():
    assert "The trailing" not in text_of(trace_of("pod-too-big"))
