"""One answer: each row of `kexplain cluster`'s report is the answer its single-object command gives.
A pending group's pods are each explained by `kexplain pod NAME`'s app function
(`app.live.explain_named`, over the same objects) and, where the pod's answer does not hang on the
pods queued before it, by `kexplain POD --nodes CLUSTER --stored`; a blocked drain is `kexplain evict
drain NODE -o json` to the key; a budget is the one those drains write; a held Workload is `kexplain
kueue`'s answer for it (over the cluster as stored, and given alone); a node under pressure is
`kexplain evict pressure NODE -o json`, a node NoExecute taints empty `kexplain evict taints NODE
-o json`, to the key, and every other node checked is one those commands evict nothing from."""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from kexplain.app.cluster.inputs import ClusterRequest, read
from kexplain.app.cluster.pending import live_of, pod_args
from kexplain.app.cluster.report import SECTIONS, report_of
from kexplain.app.live import explain_named
from kexplain.cli.exit_codes import for_result
from kexplain.features import KubeVersion
from kexplain.render.cluster import scaledown_reason
from tests.support.cli_helpers import run_cli
from tests.support.paths import DATA, FIXTURES

NOW = "2026-01-01T12:00:00Z"
RANKING = FIXTURES / "eviction" / "ranking-now"     # node-a under memory pressure: its Summary, its kubelet
CA_SCALE_DOWN = Path(__file__).parents[2] / "autoscaler" / "cases" / "scaledown-0011"
JSON = SimpleNamespace(human=False, value="json")


@dataclass(frozen=True)
class Cluster:
    name: str
    paths: tuple[Path, ...]
    options: dict[str, Any] = field(default_factory=dict)
    held: tuple[str, ...] = ()          # the sections that hold something: the test cannot pass empty

    def args(self) -> list[str]:
        out = [a for p in self.paths for a in ("--nodes", str(p))]
        if self.options.get("node_groups"):
            out += ["--node-groups", self.options["node_groups"]]
        if self.options.get("autoscaler_config"):
            out += ["--autoscaler-config", self.options["autoscaler_config"]]
        if self.options.get("drain_check"):
            out.append("--drain-check")
        out += [a for node, path in self.options.get("node_stats", ()) for a in ("--node-stats", f"{node}={path}")]
        if self.options.get("kubelet_config"):
            out += ["--kubelet-config", self.options["kubelet_config"]]
        return out + [f"--{f.replace('_', '-')}" for f in self.options.get("drain_flags", ())]

    def nodes(self) -> list[str]:
        return [a for p in self.paths for a in ("--nodes", str(p))]


CLUSTERS = [
    Cluster("cordoned-with-budget", (DATA / "cluster" / "shop.yaml",), held=("pending", "budgets", "drains")),
    Cluster("karpenter", (FIXTURES / "karpenter" / "cluster.yaml", FIXTURES / "karpenter" / "nodepools.yaml",
                          FIXTURES / "karpenter" / "shop.yaml"), held=("pending",)),
    Cluster("cluster-autoscaler", (FIXTURES / "autoscaler" / "cluster.yaml", DATA / "cluster" / "ca-pending.yaml"),
            {"node_groups": str(FIXTURES / "autoscaler" / "nodegroups.yaml")}, held=("pending",)),
    Cluster("karpenter-disruption", (FIXTURES / "karpenter-disruption" / "cluster.yaml",
                                     FIXTURES / "karpenter-disruption" / "nodepools.yaml"),
            held=("budgets", "karpenter")),
    Cluster("ca-scale-down", (CA_SCALE_DOWN / "cluster.yaml",),
            {"node_groups": str(CA_SCALE_DOWN / "nodegroups.yaml"),
             "autoscaler_config": str(CA_SCALE_DOWN / "params.yaml")}, held=("budgets", "scaledown", "evictions")),
    Cluster("every-drain", (FIXTURES / "eviction" / "drain.yaml",),
            {"drain_check": True, "drain_flags": ("ignore_daemonsets",)}, held=("drains",)),
    Cluster("karpenter-with-kueue", (FIXTURES / "karpenter" / "cluster.yaml", FIXTURES / "karpenter" / "nodepools.yaml",
                                     FIXTURES / "karpenter" / "shop.yaml", FIXTURES / "kueue" / "cluster.yaml",
                                     FIXTURES / "cluster" / "kueue-held.yaml"), held=("pending", "queued")),
    Cluster("pressure-and-cordoned", (RANKING / "cluster.yaml", FIXTURES / "eviction" / "taints.yaml",
                                      FIXTURES / "cluster" / "cordoned.yaml"),
            {"node_stats": (("node-a", str(RANKING / "stats.json")),),
             "kubelet_config": str(RANKING / "kubelet-config.yaml")}, held=("budgets", "drains", "evictions")),
]


def _report(cluster: Cluster) -> tuple[Any, dict]:
    req = ClusterRequest(tuple(str(p) for p in cluster.paths), datetime(2026, 1, 1, 12, tzinfo=timezone.utc),
                         KubeVersion("1.36"), False, (), bool(cluster.options.get("drain_check")),
                         drain_flags=tuple(cluster.options.get("drain_flags", ())),
                         node_groups=cluster.options.get("node_groups"),
                         node_stats=tuple(cluster.options.get("node_stats", ())),
                         kubelet_config=cluster.options.get("kubelet_config"),
                         autoscaler_config=cluster.options.get("autoscaler_config"))
    inputs = read(req)
    return inputs, report_of(inputs, list(SECTIONS))


def _section(doc: dict, name: str) -> dict:
    return next(s for s in doc["sections"] if s["name"] == name)


@pytest.fixture(scope="module", params=CLUSTERS, ids=lambda c: c.name)
def reported(request):
    cluster = request.param
    inputs, doc = _report(cluster)
    return cluster, inputs, doc


def test_the_sections_expected_to_hold_do(reported):
    cluster, _, doc = reported
    held = tuple(s["name"] for s in doc["sections"] if s.get("held"))
    assert held == cluster.held


def test_the_command_gives_the_report_and_its_exit_code(reported):
    cluster, _, doc = reported
    code, out, _ = run_cli("cluster", *cluster.args(), "--now", NOW, "-o", "json")
    assert code == (1 if doc["held"] else 0)
    got = json.loads(out)
    assert {**got, "now": None} == {**json.loads(json.dumps(doc)), "now": None}


def _pod(inputs, key: str) -> dict:
    namespace, name = key.split("/")
    return next(o for o, _ in inputs.objects if o.get("kind") == "Pod"
                and (o["metadata"].get("namespace") or "default") == namespace and o["metadata"]["name"] == name)


def test_each_pending_pod_is_answered_as_kexplain_pod_answers_it(reported):
    cluster, inputs, doc = reported
    rows = _section(doc, "pending").get("rows") or []
    for row in rows:
        for i, key in enumerate(row["pods"]):
            pod = _pod(inputs, key)
            live = live_of(inputs)
            live = type(live)(**{**live.__dict__, "pod": pod})
            args = replace(pod_args(inputs, key.split("/")[1]), output=JSON)     # (as `kexplain pod NAME -o json`)
            named = explain_named(args, live, inputs.state.config, lambda _: None)
            assert named.verdict["status"] == row["result"]["status"], key
            assert named.verdict.get("message", "") == row["result"].get("message", ""), key
            assert for_result(named.verdict["status"]) == 1
            post = (named.trace.get("queue") or {}).get("postFilter") or named.trace.get("postFilter") or {}
            assert bool(post.get("nominatedNodeName")) == row.get("preemptionHelps", False), key
            if i:
                continue        # the row's fix and autoscalers' answers are its first pod's
            fixes = [s["description"] for s in named.trace.get("suggestions") or ()]
            assert [s["description"] for s in row.get("suggestions") or ()] == fixes[:1], key
            outcomes = [(a.get("autoscaler"), a.get("outcome")) for a in named.trace.get("autoscalers") or ()]
            assert [(a.get("autoscaler"), a.get("outcome")) for a in row.get("autoscalers") or ()] == outcomes, key


def test_each_pending_pod_is_answered_as_kexplain_pod_file_answers_it(reported, tmp_path):
    cluster, inputs, doc = reported
    for row in _section(doc, "pending").get("rows") or []:
        key = row["pods"][0]
        pod = _pod(inputs, key)
        rest = [o for o, _ in inputs.objects if o is not pod and o.get("kind") != "ServerVersion"]
        (tmp_path / "pod.yaml").write_text(yaml.safe_dump(json.loads(json.dumps(pod))))
        (tmp_path / "cluster.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List",
                                                               "items": json.loads(json.dumps(rest))}))
        extra = ["--node-groups", cluster.options["node_groups"]] if cluster.options.get("node_groups") else []
        code, out, err = run_cli(str(tmp_path / "pod.yaml"), "--nodes", str(tmp_path / "cluster.yaml"), "--stored",
                                 *extra, "-o", "json")
        trace = json.loads(out)
        assert trace["result"]["status"] == row["result"]["status"], (key, err)
        assert trace["result"].get("message", "") == row["result"].get("message", ""), key
        assert code == 1


def test_each_blocked_drain_is_kexplain_evict_drain(reported):
    cluster, _, doc = reported
    section = _section(doc, "drains")
    flags = [f"--{f.replace('_', '-')}" for f in cluster.options.get("drain_flags", ())]
    for row in section.get("rows") or []:
        code, out, _ = run_cli("evict", "drain", row["node"], *[a for p in cluster.paths for a in ("--nodes", str(p))],
                               *flags, "--now", NOW, "-o", "json")
        assert code == 1
        assert json.loads(out) == json.loads(json.dumps(row["drain"]))


def test_each_budget_is_the_one_a_drain_reads(reported):
    cluster, inputs, doc = reported
    rows = _section(doc, "budgets").get("rows") or []
    if not rows:
        return
    node = inputs.state.snapshot.node_infos[0].name
    code, out, _ = run_cli("evict", "drain", node, *[a for p in cluster.paths for a in ("--nodes", str(p))],
                           "--now", NOW, "-o", "json")
    pdbs = {p["name"]: p for p in json.loads(out)["pdbs"]}
    for row in rows:
        assert {k: row[k] for k in ("name", "statusFrom", "status")} == pdbs[row["name"]]
        assert row["status"]["disruptionsAllowed"] == 0


def test_each_node_karpenter_keeps_is_karpenter_disruption_node(reported):
    cluster, _, doc = reported
    section = _section(doc, "karpenter")
    for row in section.get("rows") or []:
        code, out, _ = run_cli("karpenter", "--disruption", *[a for p in cluster.paths for a in ("--nodes", str(p))],
                               "--now", NOW, "--node", row["node"], "-o", "json")
        node = json.loads(out)["node"]
        assert code == 1 and node["verdict"] != "disrupted"
        assert node["checks"][0]["message"] == row["blocked"]
        assert node["checks"][0]["karpenter"] is True       # Karpenter's own words, not kexplain's


def _kueue_objects(inputs) -> list[dict]:
    return [json.loads(json.dumps(o)) for o, _ in inputs.objects if o.get("kind") != "ServerVersion"]


def test_each_held_workload_is_kexplain_kueues_answer_over_the_cluster(reported, tmp_path):
    cluster, _, doc = reported
    rows = _section(doc, "queued").get("rows") or []
    if not rows:
        return
    (tmp_path / "none.yaml").write_text("")         # nothing submitted: Kueue's pass over the cluster as stored
    code, out, err = run_cli("kueue", str(tmp_path / "none.yaml"), *cluster.nodes(), "--now", NOW, "-o", "json")
    assert code == 1, err
    answer = json.loads(out)
    items = {w["workload"]: w for w in answer["explanation"]["workloads"]}
    fixes = [*answer.get("suggestions", ()), *answer.get("suggestionsWaiting", ())]
    assert sorted(items) == sorted(r["workload"] for r in rows)
    for row in rows:
        assert row["kueue"]["explanation"] == items[row["workload"]], row["workload"]
        assert (row["verdict"], row["message"]) == (items[row["workload"]]["verdict"],
                                                    items[row["workload"]].get("message", "")), row["workload"]
        assert row["kueue"]["suggestions"] == [f for f in fixes if f["workload"] == row["workload"]], row["workload"]


def test_each_held_workload_given_alone_is_answered_the_same(reported, tmp_path):
    cluster, inputs, doc = reported
    objects = _kueue_objects(inputs)
    for row in _section(doc, "queued").get("rows") or []:
        namespace, name = row["workload"].split("/")
        mine = [o for o in objects if o["kind"] == "Workload" and o["metadata"]["name"] == name
                and o["metadata"].get("namespace") == namespace]
        rest = [o for o in objects if o not in mine]
        (tmp_path / "workload.yaml").write_text(yaml.safe_dump(mine[0]))
        (tmp_path / "rest.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": rest}))
        code, out, err = run_cli("kueue", str(tmp_path / "workload.yaml"), "--nodes", str(tmp_path / "rest.yaml"),
                                 "--now", NOW, "-o", "json", "--no-suggestions")
        assert code == 1, err
        item = next(w for w in json.loads(out)["explanation"]["workloads"] if w["workload"] == row["workload"])
        assert item == row["kueue"]["explanation"], row["workload"]


def _evict(cluster: Cluster, family: str, node: str, *extra: str) -> tuple[int, dict]:
    code, out, err = run_cli("evict", family, node, *cluster.nodes(), *extra, "--now", NOW, "-o", "json")
    assert code in (0, 1), err
    return code, json.loads(out)


def _pressure_flags(cluster: Cluster, node: str) -> list[str]:
    stats = dict(cluster.options.get("node_stats", ()))
    out = ["--stats", stats[node]] if node in stats else []
    return out + (["--kubelet-config", cluster.options["kubelet_config"]] if cluster.options.get("kubelet_config")
                  else [])


def test_each_node_under_pressure_is_kexplain_evict_pressure(reported):
    cluster, _, doc = reported
    section = _section(doc, "evictions")
    rows = [r for r in section.get("rows") or () if r["family"] == "pressure"]
    for row in rows:
        code, answer = _evict(cluster, "pressure", row["node"], *_pressure_flags(cluster, row["node"]))
        assert answer == json.loads(json.dumps(row["pressure"]))
        assert (code, row["evicts"], row["conditions"]) == (1 if row["evicts"] else 0,
                                                            [e["pod"] for e in answer["evicted"]],
                                                            answer["nodeConditions"])
    for node in dict(cluster.options.get("node_stats", ())):       # a node with stats and no row: no pressure
        if node not in {r["node"] for r in rows}:
            code, answer = _evict(cluster, "pressure", node, *_pressure_flags(cluster, node))
            assert (code, answer["nodeConditions"], answer["evicted"]) == (0, [], [])


def test_each_node_tainted_noexecute_is_kexplain_evict_taints(reported):
    cluster, inputs, doc = reported
    section = _section(doc, "evictions")
    if "skipped" in section:
        return
    rows = {r["node"]: r for r in section.get("rows") or () if r["family"] == "taints"}
    tainted = [ni.name for ni in inputs.state.snapshot.node_infos
               if any(t.get("effect") == "NoExecute" for t in (ni.node.obj.get("spec") or {}).get("taints") or ())]
    assert section["taintsChecked"] == len(tainted)
    for node in tainted:
        code, answer = _evict(cluster, "taints", node)
        if node not in rows:
            assert code == 0, node
            continue
        assert code == 1
        assert answer == json.loads(json.dumps(rows[node]["taints"]))
        assert sorted(rows[node]["evicts"]) == sorted(p["pod"] for p in answer["pods"] if p["decision"] != "keep")


def test_each_node_the_cluster_autoscaler_keeps_is_kexplain_autoscales_scale_down(reported, tmp_path):
    cluster, _, doc = reported
    section = _section(doc, "scaledown")
    if section.get("skipped"):
        assert not cluster.options.get("node_groups")
        return
    args = [a for p in cluster.paths for a in ("--nodes", str(p))]
    config = cluster.options.get("autoscaler_config")
    if config is None:          # (CA's defaults: the report's scale-down takes any mode as scaledown)
        config = str(tmp_path / "params.yaml")
        Path(config).write_text("mode: scaledown\n")
    args += ["--node-groups", cluster.options["node_groups"], "--autoscaler-config", config]
    code, out, _ = run_cli("autoscale", *args, "-o", "json")
    scale_down = json.loads(out)["scaleDown"]
    nodes = {n["name"]: n for n in scale_down["nodes"]}
    assert bool(section["rows"]) == ("scaledown" in cluster.held)
    for row in section["rows"]:
        assert row == nodes[row["name"]]        # the verdict: reason, blocking pod, utilization, to the key
    kept = [n for n in scale_down["nodes"] if n["candidate"] and not n["unneeded"]
            and n["reason"] not in ("NotUnderutilized", "CurrentlyBeingDeleted")]
    assert [r["name"] for r in section["rows"]] == [n["name"] for n in kept]
    assert (section["result"], section["unneeded"], section["scaledDown"]) == \
        (scale_down["result"], scale_down["unneeded"], scale_down["scaledDown"])
    _, text, _ = run_cli("autoscale", *args, width=400)
    _, ours, _ = run_cli("cluster", *cluster.args(), "--section", "scaledown", width=400)
    for row in section["rows"]:
        theirs = next(line for line in text.splitlines() if line.startswith(row["name"] + " "))
        words = scaledown_reason(row)
        assert words in theirs, (words, theirs)                 # the text: autoscale's table cell
        assert any(line.startswith(f"- {row['name']} ") and line.endswith(words) for line in ours.splitlines())
