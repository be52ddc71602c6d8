"""Reading the output (issue 15): replica headings that fit 80 columns with where the copies went
below them, plain copies tables, lint's gated reasons, a workload's refused pods said of the
workload, suggested node names, namespaces as the API server stores them, and lint's count of
objects actually scheduled."""
from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from rich.console import Console

from kexplain.cli.app import main
from kexplain.lint.linter import LintOptions, ObjectRef, lint
from kexplain.render.lint_formats import render_text, summary_line
from kexplain.suggest.add_node import new_node_name
from tests.support.copies import copy_names

Obj = dict[str, Any]
LONG = "ip-10-0-12-141.ec2.internal"        # a node name as EKS gives them


def node(name: str, cpu: str = "4", zone: str | None = None, pods: str = "110") -> Obj:
    labels = {"kubernetes.io/hostname": name}
    if zone:
        labels["topology.kubernetes.io/zone"] = zone
    room = {"cpu": cpu, "memory": "16Gi", "pods": pods}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
            "status": {"capacity": room, "allocatable": dict(room)}}


def template(cpu: str = "100m", **spec: Any) -> Obj:
    return {"metadata": {"labels": {"app": "w"}},
            "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu}}}], **spec}}


def workload(kind: str, name: str, replicas: int | None = None, cpu: str = "100m", namespace: str | None = None,
             **spec: Any) -> Obj:
    body: Obj = {"selector": {"matchLabels": {"app": "w"}}, "template": template(cpu, **spec)}
    if kind == "Job":
        body = {"parallelism": replicas, "completions": replicas, "template": template(cpu, restartPolicy="Never",
                                                                                      **spec)}
    elif replicas is not None and kind != "DaemonSet":
        body["replicas"] = replicas
    if kind == "StatefulSet":
        body["serviceName"] = name
    meta: Obj = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    group = "batch/v1" if kind == "Job" else "apps/v1"
    return {"apiVersion": group, "kind": kind, "metadata": meta, "spec": body}


def write(tmp_path: Path, name: str, *objs: Obj) -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(objs))
    return str(path)


def kexplain(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def assert_readable(out: str, width: int = 80) -> None:
    """No trailing blanks; no line wider than `width` but the FailedScheduling event (kept whole
    to be grepped) and a line that is one name too long for any line."""
    for line in out.splitlines():
        assert line == line.rstrip(), f"trailing blanks: {line!r}"
        if len(line) > width:
            assert line.lstrip().startswith("Warning  FailedScheduling"), line


def eks_nodes(count: int, **kwargs: Any) -> list[Obj]:
    zones = ["us-east-1a", "us-east-1b", "us-east-1c"]
    return [node(f"ip-10-0-{10 * (i % 3 + 1) + i // 3}-{100 + i}.ec2.internal", zone=zones[i % 3], **kwargs)
            for i in range(count)]


# --- 1. the replica heading, where the copies went, the copies table -------------------------------

def test_replica_heading_is_short_and_the_nodes_wrap_between_names(capsys, tmp_path):
    nodes = eks_nodes(6)
    names = [n["metadata"]["name"] for n in nodes]
    pods = write(tmp_path, "job.yaml", workload("Job", "job-success", 10))
    code, out, _ = kexplain(capsys, pods, "--nodes", write(tmp_path, "pool.yaml", *nodes))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "=== Job default/job-success (priority 0): 10 of 10 replicas fit"
    assert lines[1].startswith("On 6 nodes: ")
    assert_readable(out)
    # the list of nodes, joined again, names each node whole, with its count
    where = []
    for line in lines[1:]:
        if line.startswith("By zone:"):
            break
        where.append(line.strip())
    listed = " ".join(where).removeprefix("On 6 nodes: ").split(", ")
    counted = {e.split(" ×")[0]: int(e.split(" ×")[1]) if " ×" in e else 1 for e in listed}
    assert set(counted) == set(names) and sum(counted.values()) == 10
    (zones,) = [line for line in lines if line.startswith("By zone: ")]
    by_zone = dict(e.split(" ×") for e in zones.removeprefix("By zone: ").split(", "))
    assert set(by_zone) == {"us-east-1a", "us-east-1b", "us-east-1c"} and sum(map(int, by_zone.values())) == 10
    # the copies table: plain, aligned, every copy
    start = lines.index("Copies, in the order they were placed:")
    copies = copy_names(workload("Job", "job-success", 10), 10)      # job-success-<5 characters>
    assert lines[start + 1] == f" #  {'pod'.ljust(max(map(len, copies)))}  node"
    rows = lines[start + 2:start + 12]
    assert [r.split()[1] for r in rows] == copies
    assert all(r.split()[2] in names for r in rows)


def test_a_thousand_copies_on_many_nodes_read_in_a_few_lines(capsys, tmp_path):
    """Many copies are read in counts (issue 18): the heading counts them per zone, the table
    has a row per node with the first and last copy there, then the copy that does not fit."""
    nodes = eks_nodes(12, pods="60")
    names = {n["metadata"]["name"] for n in nodes}
    pods = write(tmp_path, "web.yaml", workload("Deployment", "web", 1000, cpu="1m", namespace="shop"))
    code, out, _ = kexplain(capsys, pods, "--nodes", write(tmp_path, "pool.yaml", *nodes), "--no-suggestions")
    assert code == 1
    lines = out.splitlines()
    assert lines[:2] == ["=== Deployment shop/web (priority 0): 720 of 1,000 replicas fit on 12 nodes:",
                         "    us-east-1a 240, us-east-1b 240, us-east-1c 240"]
    assert_readable(out)
    start = lines.index("Copies by node, in the order they were placed (721 copies):")
    copies = copy_names(workload("Deployment", "web", 1000, cpu="1m", namespace="shop"), 721)
    table = lines[start + 1:lines.index(f"Why {copies[720]} does not fit:")]
    assert table[0].split() == ["node", "zone", "copies", "first", "last"]
    rows = [r.split() for r in table[1:-1]]
    assert {r[0] for r in rows} == names and all(r[2] == "60" for r in rows)
    # the first and last copy on each node by number (#i: the i-th placed), their names too long for a row
    assert rows[0][3] == "#0" and max(int(r[4].removeprefix("#")) for r in rows) == 719
    assert table[-1].split() == ["(does", "not", "fit:", "Unschedulable)", "1", "#720"]
    assert len(out.splitlines()) < 80


def test_copies_are_text_not_markup(capsys, tmp_path):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "[x]", "namespace": "default"},
           "spec": {"containers": [{"name": "c", "image": "x"}]}}
    code, out, _ = kexplain(capsys, write(tmp_path, "p.yaml", pod), "--nodes",
                            write(tmp_path, "pool.yaml", node("n1")), "--replicas", "2", "--stored")
    assert code == 0
    assert out.splitlines() == ["=== Pod default/[x] (priority 0): 2 of 2 replicas fit", "On 1 node: n1 ×2",
                                "Copies, in the order they were placed:", " #  pod    node", " 0  [x]-0  n1",
                                " 1  [x]-1  n1"]


def test_long_names_go_under_their_pods_never_cut(capsys, tmp_path):
    name = "a-very-long-workload-name-for-the-copies-table"
    nodes = [node("node-with-a-rather-long-name-" + "x" * 20)]
    code, out, _ = kexplain(capsys, write(tmp_path, "w.yaml", workload("Deployment", name, 2)), "--nodes",
                            write(tmp_path, "pool.yaml", *nodes))
    assert code == 0
    assert_readable(out)
    lines = out.splitlines()
    start = lines.index("Copies, in the order they were placed:")
    first, second = copy_names(workload("Deployment", name, 2), 2)
    assert lines[start + 1:start + 6] == [" #  pod / node", f" 0  {first}", f"      {nodes[0]['metadata']['name']}",
                                          f" 1  {second}", f"      {nodes[0]['metadata']['name']}"]


def test_on_a_terminal_the_heading_is_a_rule_and_names_stay_text(tmp_path):
    from kexplain.explain.batch import explain_batch
    from kexplain.explain.inputs import load
    from kexplain.explain.request import Request
    from kexplain.render.batch import print_batch

    pods = write(tmp_path, "job.yaml", workload("Job", "job", 4))
    req = Request(pod_path=pods, node_paths=(write(tmp_path, "pool.yaml", *eks_nodes(3)),))
    loaded = load(req)
    outcomes = explain_batch(loaded.batch, loaded.pool, req.run)
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=70, color_system=None)
    print_batch(outcomes, console)
    text = out.getvalue()
    assert "Job default/job (priority 0): 4 of 4 replicas fit" in text.splitlines()[0]
    assert "On 3 nodes: " in text and "By zone: " in text
    assert all(len(line) <= 70 for line in text.splitlines())


# --- 2. lint's gated reason -----------------------------------------------------------------------------

def test_gated_by_a_missing_resource_claim_says_so(tmp_path):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "gpu-metadata-reader"},
           "spec": {"resourceClaims": [{"name": "my-gpu", "resourceClaimName": "gpu-claim"}],
                    "containers": [{"name": "c", "image": "x", "resources": {"claims": [{"name": "my-gpu"}]}}]}}
    report = lint(LintOptions((write(tmp_path, "p.yaml", pod),), node_paths=(write(tmp_path, "n.yaml", node("n1")),)))
    assert sorted(f.rule for f in report.findings) == ["gated", "missing-resource-claim"]
    (finding,) = [f for f in report.findings if f.rule == "gated"]
    assert finding.message == 'held back by DynamicResources: could not find ResourceClaim "default/gpu-claim"'
    assert finding.details["plugin"] == "DynamicResources"
    assert "Pod default/gpu-metadata-reader: held back by DynamicResources" in render_text(report)


def test_gated_by_scheduling_gates_names_them(tmp_path):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "g"},
           "spec": {"schedulingGates": [{"name": "example.com/a"}, {"name": "example.com/b"}],
                    "containers": [{"name": "c", "image": "x"}]}}
    report = lint(LintOptions((write(tmp_path, "p.yaml", pod),), node_paths=(write(tmp_path, "n.yaml", node("n1")),)))
    (finding,) = report.findings
    assert (finding.rule, finding.message) == ("gated", "waits for its scheduling gates (example.com/a, example.com/b)")


# --- 3. a workload's pods refused -----------------------------------------------------------------------

@pytest.mark.parametrize("kind, controller", [("Deployment", "replicaset-controller"),
                                              ("DaemonSet", "daemonset-controller"), ("Job", "job-controller"),
                                              ("ReplicaSet", "replicaset-controller")])
def test_a_workload_whose_pods_are_refused_is_explained_with_its_failed_create(capsys, tmp_path, kind, controller):
    """The API server stores the workload and refuses each pod its controller asks it for (no
    such PriorityClass): none is created. The workload is explained as that, its controller's
    FailedCreate event in its own words, exit code 1 (before: exit 2, as bad input, `the API
    server would refuse its pods`, nothing on stdout)."""
    obj = workload(kind, "placeholder", 2, priorityClassName="low-priority")
    path = write(tmp_path, "w.yaml", obj)
    pool = write(tmp_path, "n.yaml", node("n1"))
    asked = 1 if kind == "DaemonSet" else 2      # (a DaemonSet: a pod for each eligible node)
    code, out, err = kexplain(capsys, path, "--nodes", pool)
    assert code == 1 and err == ""
    heading, said = out.splitlines()[0], " ".join(" ".join(out.splitlines()[1:]).split())    # (wrapped at 80)
    first = re.fullmatch(rf'0 of {asked} pods created \(FailedCreate: Error creating: pods "(?P<pod>[^"]+)" is '
                         r'forbidden: no PriorityClass with name low-priority was found\)', said)
    counted = f"fits on 0 of {asked} eligible nodes" if kind == "DaemonSet" else f"0 of {asked} replicas fit"
    assert heading == f"=== {kind} default/placeholder: {counted}" and first is not None
    assert first["pod"].startswith("placeholder-")      # its controller's name for it
    (finding,) = lint(LintOptions((path,), node_paths=(pool,))).findings
    assert (finding.rule, finding.headline()) == (
        "admission", f"{kind} default/placeholder: {controller} creates 0 of {asked} pods: FailedCreate: Error "
                     f'creating: pods "{first["pod"]}" is forbidden: no PriorityClass with name low-priority was found')


def test_a_statefulset_s_pods_keep_their_real_names(capsys, tmp_path):
    path = write(tmp_path, "s.yaml", workload("StatefulSet", "db", 2, namespace="data", priorityClassName="nope"))
    (finding,) = lint(LintOptions((path,), node_paths=(write(tmp_path, "n.yaml", node("n1")),))).findings
    assert finding.headline() == ('StatefulSet data/db: statefulset-controller creates 0 of 2 pods: FailedCreate: '
                                  'create Pod db-0 in StatefulSet db failed error: pods "db-0" is forbidden: no '
                                  'PriorityClass with name nope was found')


def test_an_invalid_template_refuses_the_workload_itself(capsys, tmp_path):
    obj = workload("Deployment", "web", 2, tolerations=[{"key": "a", "operator": "Maybe"}])
    path = write(tmp_path, "w.yaml", obj)
    pool = write(tmp_path, "n.yaml", node("n1"))
    code, _, err = kexplain(capsys, path, "--nodes", pool)
    assert code == 2
    assert err.startswith(f'error: {path}: document 1: Deployment default/web: Deployment.apps "web" is invalid: '
                          'spec.template.spec.tolerations[0].operator: Unsupported value: "Maybe"')
    (finding,) = lint(LintOptions((path,), node_paths=(pool,))).findings
    assert f"error: {path}: document 1: {finding.headline()}" == err.rstrip("\n")


# --- 4. suggested node names ----------------------------------------------------------------------------

DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


@pytest.mark.parametrize("like, taken, expected", [
    ("ip-10-0-11-23.ec2.internal", set(), "new-node-like-ip-10-0-11-23.ec2.internal"),
    ("n1", {"new-node-like-n1"}, "new-node-like-n1-2"),
    ("n1", {"new-node-like-n1", "new-node-like-n1-2"}, "new-node-like-n1-3"),
])
def test_new_node_names(like, taken, expected):
    assert new_node_name(like, taken) == expected


def test_a_new_node_name_stays_a_valid_node_name():
    like = ".".join(["a" * 62 + "b"] * 4)[:253].rstrip(".")
    for taken in (set(), {new_node_name(like)}):
        name = new_node_name(like, taken)
        assert len(name) <= 253 and DNS_SUBDOMAIN.fullmatch(name), name


def test_the_suggestion_names_the_new_node_plainly(capsys, tmp_path):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"nodeSelector": {"disk": "ssd"}, "containers": [{"name": "c", "image": "x"}]}}
    code, out, _ = kexplain(capsys, write(tmp_path, "p.yaml", pod), "--nodes", write(tmp_path, "n.yaml", node(LONG)))
    assert code == 1
    flat = " ".join(out.split())
    assert f"add a node like {LONG}" in flat and f"(new-node-like-{LONG})" in flat
    assert f"{LONG}-new" not in out


# --- 5. namespaces ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("obj, namespace", [
    ({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}}, "default"),
    ({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "shop"}}, "shop"),
    ({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}, ""),
    ({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv", "namespace": "x"}}, ""),
    ({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "sc"}}, ""),
    ({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "pc"}}, ""),
    ({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}}, ""),
    ({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}, ""),     # scope unknown
])
def test_the_namespace_is_the_api_server_s(obj, namespace):
    assert ObjectRef.of(obj).namespace == namespace


def test_lint_json_and_explain_name_the_object_alike(capsys, tmp_path):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"},
           "spec": {"priorityClassName": "missing", "containers": [{"name": "c", "image": "x"}]}}
    path = write(tmp_path, "p.yaml", pod)
    pool = write(tmp_path, "n.yaml", node("n1"))
    report = lint(LintOptions((path,), node_paths=(pool,)))
    data = report.to_json()
    assert data["findings"][0]["object"] == {"apiVersion": "v1", "kind": "Pod", "namespace": "default", "name": "x"}
    code, _, err = kexplain(capsys, path, "--nodes", pool)
    assert code == 2
    assert err == f"error: {path}: document 1: {report.findings[0].headline()}\n"
    assert err.startswith(f"error: {path}: document 1: Pod default/x: ")


def test_explain_names_an_object_refused_before_defaulting_with_its_namespace(capsys, tmp_path):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "t"},
           "spec": {"terminationGracePeriodSeconds": "soon", "containers": [{"name": "c", "image": "x"}]}}
    path = write(tmp_path, "p.yaml", pod)
    code, _, err = kexplain(capsys, path, "--nodes", write(tmp_path, "n.yaml", node("n1")))
    assert code == 2 and err.startswith(f"error: {path}: document 1: Pod default/t: ")


# --- 6. lint's count of scheduled objects ------------------------------------------------------------------

def test_refused_objects_are_not_counted_as_scheduled(tmp_path):
    good = workload("Deployment", "good", 1)
    refused = workload("Deployment", "refused", 1, priorityClassName="missing")
    pinned = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bound"},
              "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "x"}]}}
    paths = (write(tmp_path, "a.yaml", good), write(tmp_path, "b.yaml", refused), write(tmp_path, "c.yaml", pinned))
    report = lint(LintOptions(paths, node_paths=(write(tmp_path, "n.yaml", node("n1")),)))
    assert [f.rule for f in report.findings] == ["fits", "admission", "not-scheduled"]
    assert report.summary()["scheduled"] == 1
    assert summary_line(report) == "3 objects in 3 files, 1 scheduled against the pool: 1 error, 0 warnings"
    assert json.loads(json.dumps(report.to_json()))["summary"]["scheduled"] == 1
