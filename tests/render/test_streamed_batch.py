"""Many pods at scale (issue 18), the output side: `-o json`/`-o yaml` written pod by pod as
the pods are scheduled (one SchedulingTraceList, valid once closed), the counts of many copies
in the heading and the copies table grouped by node or zone, lint's verdict in counts, and the
progress bar on a terminal's stderr, never on stdout."""
from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import yaml

from kexplain.cli.app import main
from kexplain.cli.env import Environment
from kexplain.explain.batch import API_VERSION, LIST_KIND, explain_batch, to_json
from kexplain.explain.inputs import load
from kexplain.explain.request import Request
from kexplain.lint.linter import LintOptions, lint
from kexplain.render.structured import ListWriter
from kexplain.features import KubeVersion
from tests.support.copies import copy_names

Obj = dict[str, Any]
ZONES = ["us-east-1a", "us-east-1b", "us-east-1c"]


def node(name: str, zone: str | None = None, pods: str = "110", cpu: str = "4") -> Obj:
    labels = {"kubernetes.io/hostname": name}
    if zone:
        labels["topology.kubernetes.io/zone"] = zone
    room = {"cpu": cpu, "memory": "16Gi", "pods": pods}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
            "status": {"capacity": room, "allocatable": dict(room)}}


def nodes(count: int, zoned: bool = True, **kwargs: Any) -> list[Obj]:
    return [node(f"node-{i:02d}", ZONES[i % 3] if zoned else None, **kwargs) for i in range(count)]


def deployment(name: str, replicas: int, cpu: str = "10m") -> Obj:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "shop"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "x",
                                                           "resources": {"requests": {"cpu": cpu}}}]}}}}


HIGH = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 100}


def pod(name: str, cpu: str = "100m", priority_class: str | None = None) -> Obj:
    spec: Obj = {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu}}}]}
    if priority_class is not None:
        spec["priorityClassName"] = priority_class
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "shop"}, "spec": spec}


def write(tmp_path: Path, name: str, *objs: Obj) -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(objs))
    return str(path)


def run(*args: str, terminal_stderr: bool = False) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err, is_terminal=False, stderr_is_terminal=terminal_stderr, color=False)
    code = main(list(args), env)
    return code, out.getvalue(), err.getvalue()


# --- the streamed document -------------------------------------------------------------------------

def test_json_and_yaml_are_one_list_items_in_scheduling_order_then_placements(tmp_path):
    pods = write(tmp_path, "pods.yaml", HIGH, pod("low"), deployment("web", 3), pod("high", priority_class="high"))
    pool = write(tmp_path, "pool.yaml", *nodes(3))
    code, out, _ = run(pods, "--nodes", pool, "-o", "json")
    assert code == 0
    doc = json.loads(out)
    assert list(doc) == ["apiVersion", "kind", "items", "placements"]
    assert (doc["apiVersion"], doc["kind"]) == (API_VERSION, LIST_KIND)
    # PrioritySort: the high-priority pod first, then file order; one item per pod, copies in order
    web_names = copy_names(deployment("web", 3), 3)
    assert [t["pod"]["name"] for t in doc["items"]] == ["high", "low", *web_names]
    assert all(t["kind"] == "SchedulingTrace" for t in doc["items"])
    assert [p["object"]["name"] for p in doc["placements"]] == ["high", "low", "web"]
    web = doc["placements"][2]
    assert [p["name"] for p in web["pods"]] == web_names
    assert sum(web["zones"].values()) == web["fit"] == 3 and set(web["zones"]) <= set(ZONES)
    assert all(p["zone"] in ZONES for p in web["pods"])
    # the same document in YAML, and the same the engine gives in memory
    code, out_yaml, _ = run(pods, "--nodes", pool, "-o", "yaml")
    assert code == 0 and yaml.safe_load(out_yaml) == doc
    loaded = load(Request(pod_path=pods, node_paths=(pool,)))
    in_memory = to_json(explain_batch(loaded.batch, loaded.pool, Request(pod_path=pods, node_paths=(pool,)).run))
    assert [i["pod"] for i in in_memory["items"]] == [i["pod"] for i in doc["items"]]
    assert in_memory["placements"] == doc["placements"]


def test_each_trace_is_written_when_its_pod_is_scheduled(tmp_path):
    """When the engine reports pod i done, i items are already out (the writer keeps none)."""
    pods = write(tmp_path, "pods.yaml", deployment("web", 6), pod("last"))
    req = Request(pod_path=pods, node_paths=(write(tmp_path, "pool.yaml", *nodes(2)),))
    loaded = load(req)
    for fmt in ("json", "yaml"):
        out = io.StringIO()
        writer = ListWriter(out, fmt, {"apiVersion": API_VERSION, "kind": LIST_KIND})
        written: list[int] = []
        batch = explain_batch(loaded.batch, loaded.pool, req.run, sink=lambda p: writer.item(p.trace.to_json()),
                              progress=lambda done, planned: written.append(writer.count))
        outcomes = []
        for outcome in batch:
            outcomes.append(outcome.to_json())
            assert writer.count == sum(len(o["pods"]) for o in outcomes)      # nothing waits for the end
        writer.close({"placements": outcomes})
        assert written == list(range(1, 8))
        doc = json.loads(out.getvalue()) if fmt == "json" else yaml.safe_load(out.getvalue())
        assert [t["pod"]["name"] for t in doc["items"]] == copy_names(deployment("web", 6), 6) + ["last"]


def test_a_batch_with_nothing_to_schedule_is_still_a_whole_document(tmp_path):
    ds = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "shop"},
          "spec": {"selector": {"matchLabels": {"a": "b"}},
                   "template": {"metadata": {"labels": {"a": "b"}},
                                "spec": {"nodeSelector": {"gpu": "yes"}, "containers": [{"name": "c", "image": "x"}]}}}}
    pods = write(tmp_path, "pods.yaml", ds, pod("p"))
    pool = write(tmp_path, "pool.yaml", node("n1"))
    for fmt, parse in (("json", json.loads), ("yaml", yaml.safe_load)):
        code, out, _ = run(pods, "--nodes", pool, "-o", fmt)
        doc = parse(out)
        assert code == 0 and [t["pod"]["name"] for t in doc["items"]] == ["p"]
        assert [p["fit"] for p in doc["placements"]] == [0, 1]


# --- many copies, in counts ----------------------------------------------------------------------------

def test_a_thousand_copies_the_heading_counts_them_per_zone_and_the_table_groups_by_zone(tmp_path):
    pods = write(tmp_path, "web.yaml", deployment("web", 1000, cpu="1m"))
    code, out, _ = run(pods, "--nodes", write(tmp_path, "pool.yaml", *nodes(25, pods="40")), "--no-suggestions")
    assert code == 0
    lines = out.splitlines()
    assert lines[:2] == ["=== Deployment shop/web (priority 0): 1,000 of 1,000 replicas fit on 25 nodes:",
                         "    us-east-1a 360, us-east-1b 320, us-east-1c 320"]
    first = copy_names(deployment("web", 1000, cpu="1m"), 1)[0]
    assert lines[2].startswith(f"Labels of {first}: app=web,pod-template-hash=")     # its controller's label
    assert lines[3] == "Copies by zone, in the order they were placed (1,000 copies):"
    assert lines[4].split() == ["zone", "nodes", "copies", "first", "last"]
    rows = [line.split() for line in lines[5:]]
    assert [r[:3] for r in rows] == [["us-east-1a", "9", "360"], ["us-east-1b", "8", "320"],
                                     ["us-east-1c", "8", "320"]]
    assert rows[0][3] == "#0" and all(r[3].startswith("#") and r[4].startswith("#") for r in rows)
    assert "#999" in {r[4] for r in rows}
    assert len(lines) == 8 and all(len(line) <= 80 for line in lines)


def test_many_nodes_without_zones_list_the_first_and_last_nodes(tmp_path):
    pods = write(tmp_path, "web.yaml", deployment("web", 60, cpu="1m"))
    # 1.35 spreads the copies two per node; 1.36's BalancedAllocation scores an empty node 74 and
    # one holding a copy 75 (its balance, truncated to 99, does not change), so it packs them on 15
    code, out, _ = run(pods, "--nodes", write(tmp_path, "pool.yaml", *nodes(30, zoned=False)), "--no-suggestions",
                       "--kubernetes-version", "1.35")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "=== Deployment shop/web (priority 0): 60 of 60 replicas fit on 30 nodes"
    first = copy_names(deployment("web", 60, cpu="1m"), 1, kube=KubeVersion("1.35"))[0]
    assert lines[1].startswith(f"Labels of {first}: app=web,")
    assert lines[2] == "Copies by node, in the order they were placed (60 copies, 10 nodes not listed):"
    assert lines[3].split() == ["node", "copies", "first", "last"]
    table = lines[4:]
    assert len(table) == 21 and table[10] == " ... (10 more nodes)"
    assert all(r.split()[1] == "2" for r in table[:10] + table[11:])


def test_the_first_copy_that_does_not_fit_keeps_its_full_explanation(tmp_path):
    pods = write(tmp_path, "web.yaml", deployment("web", 100, cpu="1"))
    code, out, _ = run(pods, "--nodes", write(tmp_path, "pool.yaml", *nodes(6, cpu="4")), "--no-suggestions")
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith("=== Deployment shop/web (priority 0): 24 of 100 replicas fit on 6 nodes:")
    unfit = copy_names(deployment("web", 100, cpu="1"), 25)[24]
    assert lines[-1] != "" and f"Why {unfit} does not fit:" in lines
    why = lines[lines.index(f"Why {unfit} does not fit:"):]
    assert why[1].startswith(f"Pod shop/{unfit} (profile default-scheduler): Unschedulable")
    assert any("FailedScheduling" in line and "6 Insufficient cpu" in line for line in why)
    table = lines[lines.index("Copies by node, in the order they were placed (25 copies):") + 1:lines.index(why[0])]
    assert table[-1].split() == ["(does", "not", "fit:", "Unschedulable)", "1", "#24"]
    assert sum(int(r.split()[2]) for r in table[1:-1]) == 24      # node, zone, copies, first, last


def test_lint_counts_many_nodes_instead_of_naming_each(tmp_path):
    path = write(tmp_path, "web.yaml", deployment("web", 1000, cpu="1m"))
    report = lint(LintOptions((path,), (write(tmp_path, "pool.yaml", *nodes(25, pods="40")),)))
    (finding,) = report.findings
    assert finding.rule == "fits"
    assert finding.message == "all 1,000 replicas fit on 25 nodes: us-east-1a 360, us-east-1b 320, us-east-1c 320"
    assert len(finding.details["nodes"]) == 1000


# --- the progress bar ---------------------------------------------------------------------------------

def test_the_progress_bar_goes_to_a_terminal_stderr_never_to_stdout(tmp_path):
    pods = write(tmp_path, "web.yaml", deployment("web", 30))
    pool = write(tmp_path, "pool.yaml", *nodes(3))
    code, out, err = run(pods, "--nodes", pool, "-o", "json", terminal_stderr=True)
    assert code == 0 and len(json.loads(out)["items"]) == 30
    assert "scheduling pods" in err
    code, out_plain, err_plain = run(pods, "--nodes", pool, "-o", "json")
    assert out_plain == out and err_plain == ""           # no terminal: no bar
    code, _, err = run("lint", pods, "--nodes", pool, terminal_stderr=True)
    assert "scheduling pods" in err
