"""The command line end to end: exit codes, output formats, and one clear line for bad input."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kexplain.cli.app import main
from tests.support.cli_helpers import NODE, POD
from tests.support.paths import FIXTURES



def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_fixture_fits_and_json_trace(capsys):
    code, out, _ = run(capsys, str(FIXTURES / "pod-web.yaml"), "--nodes", str(FIXTURES / "cluster.yaml"), "-o", "json")
    trace = json.loads(out)
    assert code == 0
    assert trace["kind"] == "SchedulingTrace"
    assert trace["result"]["status"] == "Scheduled"
    assert trace["result"]["suggestedHost"] in {"node-2", "node-5", "node-1"}


def test_fixture_unschedulable_exit_1_and_message(capsys):
    code, out, _ = run(capsys, str(FIXTURES / "pod-too-big.yaml"), "--nodes", str(FIXTURES / "cluster.yaml"),
                       "-o", "json")
    trace = json.loads(out)
    assert code == 1
    assert trace["result"]["message"].startswith(
        "0/6 nodes are available: 1 node(s) were unschedulable, 2 node(s) had untolerated taint(s), 3 Insufficient cpu.")


def test_table_output_names_the_rejections(capsys):
    code, out, _ = run(capsys, str(FIXTURES / "pod-too-big.yaml"), "--nodes", str(FIXTURES / "cluster.yaml"))
    assert code == 1
    assert "Insufficient cpu" in out and "node(s) were unschedulable" in out


def test_yaml_output(capsys, tmp_path):
    code, out, _ = run(capsys, write(tmp_path, "p.yaml", POD), "--nodes", write(tmp_path, "n.yaml", NODE),
                       "-o", "yaml")
    assert code == 0
    assert "kind: SchedulingTrace" in out


def test_stdin_for_the_pod(capsys, tmp_path, monkeypatch):
    import io
    import sys
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(POD.encode())))
    code, out, _ = run(capsys, "-", "--nodes", write(tmp_path, "n.yaml", NODE), "-o", "json")
    assert code == 0 and json.loads(out)["pod"] == {"namespace": "default", "name": "p"}


def test_directory_and_list_inputs(capsys, tmp_path):
    d = tmp_path / "cluster"
    (d / "sub").mkdir(parents=True)
    (d / "sub" / "nodes.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"},
         "status": {"capacity": {"cpu": "1", "memory": "1Gi", "pods": "10"}}}]}))
    (d / "a.yaml").write_text(NODE)
    (d / "ignored.txt").write_text("not yaml: [")
    code, out, _ = run(capsys, write(tmp_path, "p.yaml", POD), "--nodes", str(d), "-o", "json")
    assert code == 0
    assert json.loads(out)["search"]["order"] == ["n1", "n2"]


def test_workload_template_is_explained(capsys, tmp_path):
    deploy = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: nginx, resources: {requests: {cpu: "4"}}}]
"""
    code, out, _ = run(capsys, write(tmp_path, "d.yaml", deploy), "--nodes", write(tmp_path, "n.yaml", NODE),
                       "-o", "json")
    trace = json.loads(out)
    assert code == 1
    assert trace["pod"]["namespace"] == "shop"
    assert "Insufficient cpu" in trace["result"]["message"]


BAD = [
    ("yaml syntax", "p.yaml", "kind: Pod\nmetadata: {name: [\n", "invalid YAML: line"),
    ("not a mapping", "p.yaml", "- a\n- b\n", "not a Kubernetes object"),
    ("missing kind", "p.yaml", "apiVersion: v1\nmetadata: {name: x}\n", "object has no kind"),
    ("no pod", "p.yaml", NODE, "no Pod or workload to explain (found Node)"),
    ("empty", "p.yaml", "", "the input is empty"),
    ("binary", "p.yaml", "\x00\x01\x02", "not a text file"),
]


@pytest.mark.parametrize("what, name, text, expected", BAD, ids=[b[0] for b in BAD])
def test_bad_pod_input_is_one_clear_line(capsys, tmp_path, what, name, text, expected):
    path = write(tmp_path, name, text)
    code, out, err = run(capsys, path, "--nodes", write(tmp_path, "n.yaml", NODE))
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"error: {path}")
    assert expected in lines[0]


def test_missing_file(capsys, tmp_path):
    code, _, err = run(capsys, str(tmp_path / "nope.yaml"), "--nodes", write(tmp_path, "n.yaml", NODE))
    assert code == 2 and "no such file or directory" in err


def test_duplicate_node_names(capsys, tmp_path):
    """The same node twice alike is one node (one apply); twice differently, it is applied twice and
    the later manifest wins (`kubectl apply`), with or without admission."""
    nodes = write(tmp_path, "n.yaml", NODE + "---\n" + NODE)
    code, _, err = run(capsys, write(tmp_path, "p.yaml", POD), "--nodes", nodes)
    assert code == 0, err
    other = NODE.replace('cpu: "2"', 'cpu: "4"')
    assert other != NODE
    nodes = write(tmp_path, "n.yaml", NODE + "---\n" + other)
    code, out, err = run(capsys, write(tmp_path, "p.yaml", POD), "--nodes", nodes, "-o", "json", "--node", "n1")
    assert (code, err) == (0, "")
    trace = json.loads(out)
    assert trace["search"]["numAllNodes"] == 1
    assert trace["details"]["nodes"]["n1"]["resources"]["cpu"]["allocatable"] == "4"    # the later one
    # stored objects skip admission, not the reading of the files (a stored node without allocatable
    # has none: admission's allocatable := capacity is skipped too)
    code, out, err = run(capsys, write(tmp_path, "p.yaml", POD), "--nodes", nodes, "--stored", "-o", "json")
    assert (code, err) == (1, "") and json.loads(out)["search"]["numAllNodes"] == 1


def test_invalid_quantity_names_the_field(capsys, tmp_path):
    bad = POD.replace("cpu: 500m", "cpu: lots")
    code, _, err = run(capsys, write(tmp_path, "p.yaml", bad), "--nodes", write(tmp_path, "n.yaml", NODE))
    assert code == 2
    assert "spec.containers[0].resources.requests" in err


def test_size_limit(capsys, tmp_path):
    code, _, err = run(capsys, write(tmp_path, "p.yaml", POD), "--nodes", write(tmp_path, "n.yaml", NODE),
                       "--max-input-size", "10")
    assert code == 2 and "over the limit" in err


def test_alias_bomb_is_refused(capsys, tmp_path):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i-1}"] * 10) + "]")
    bomb = "apiVersion: v1\nkind: Pod\nmetadata: {name: b}\n" + "\n".join(lines) + "\nspec: {containers: []}\n"
    code, _, err = run(capsys, write(tmp_path, "p.yaml", bomb), "--nodes", write(tmp_path, "n.yaml", NODE))
    assert code == 2 and "alias" in err


def test_unknown_profile(capsys, tmp_path):
    pod = POD.replace("spec:\n", "spec:\n  schedulerName: my-scheduler\n")
    code, out, err = run(capsys, write(tmp_path, "p.yaml", pod), "--nodes", write(tmp_path, "n.yaml", NODE))
    assert code == 2 and out == ""
    assert err == (f"error: {tmp_path / 'p.yaml'}: document 1: profile not found for scheduler name "
                   '"my-scheduler": the pod\'s spec.schedulerName is not a profile of the scheduler configuration '
                   '(profiles: "default-scheduler"); pass a KubeSchedulerConfiguration with a profile for '
                   '"my-scheduler" with --config\n')


def test_unknown_profile_names_the_profiles_of_the_config(capsys, tmp_path):
    pod = POD.replace("spec:\n", "spec:\n  schedulerName: my-scheduler\n")
    cfg = ("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
           "- schedulerName: default-scheduler\n- schedulerName: gpu-scheduler\n")
    code, _, err = run(capsys, write(tmp_path, "p.yaml", pod), "--nodes", write(tmp_path, "n.yaml", NODE),
                       "--config", write(tmp_path, "c.yaml", cfg))
    assert code == 2 and len(err.splitlines()) == 1
    assert '(profiles: "default-scheduler", "gpu-scheduler")' in err and "with --config" in err


# -- version ----------------------------------------------------------------------------------------

def test_version_option_prints_what_the_version_command_prints(capsys):
    code, by_command, _ = run(capsys, "version")
    lines = by_command.splitlines()
    assert code == 0 and lines[0].startswith("kexplain ")
    assert lines[1:] == [
        "Kubernetes versions it follows (--kubernetes-version X.Y), each verified against the",
        "conformance cases' traces of its own kube-scheduler:",
        "  1.33  kube-scheduler v1.33.3",
        "  1.34  kube-scheduler v1.34.7",
        "  1.35  kube-scheduler v1.35.4",
        "  1.36  kube-scheduler v1.36.3  (the default)",
        "Without --kubernetes-version: $KEXPLAIN_KUBERNETES_VERSION, else the cluster's own",
        "(live mode's /version, the version a snapshot recorded), else the default."]
    assert run(capsys, "--version") == (0, by_command, "")


def test_kubectl_plugin_version_option(capsys, monkeypatch):
    from kexplain.cli.app import kubectl_args, kubectl_main

    assert kubectl_args(["--version"]) == ["--version"]
    monkeypatch.setattr("sys.argv", ["kubectl-kexplain", "--version"])
    assert kubectl_main() == 0
    assert capsys.readouterr().out.startswith("kexplain ")


# -- a cluster without nodes --------------------------------------------------------------------------

def test_without_nodes_the_table_says_why(capsys):
    code, out, _ = run(capsys, str(FIXTURES / "pod-web.yaml"))
    assert code == 1
    lines = out.splitlines()
    assert "  Warning  FailedScheduling  default-scheduler  no nodes available to schedule pods" in lines
    assert " ".join(out.split("no nodes available to schedule pods\n", 1)[1].split()) == (
        "The cluster has no nodes: --nodes was not given. Pass the cluster's Nodes (and its bound Pods, PVCs, "
        "...) with --nodes FILE|DIR, for example the output of kubectl get nodes -o yaml.")


def test_nodes_without_a_node_object(capsys, tmp_path):
    empty = write(tmp_path, "pvc.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n")
    code, out, _ = run(capsys, str(FIXTURES / "pod-web.yaml"), "--nodes", empty)
    assert code == 1
    assert f"The cluster has no nodes: the --nodes input ({empty}) holds no Node object." in " ".join(out.split())
    code, out, err = run(capsys, str(FIXTURES / "pod-web.yaml"), "--node", "node-1")
    assert code == 2 and out == ""
    assert err.startswith("error: --node node-1: no node of that name. The cluster has no nodes: --nodes was not "
                          "given. Pass the cluster's Nodes") and err.count("\n") == 1


def test_without_nodes_the_trace_is_the_scheduler_s(capsys):
    code, out, _ = run(capsys, str(FIXTURES / "pod-web.yaml"), "-o", "json")
    assert code == 1
    assert json.loads(out)["result"]["message"] == "no nodes available to schedule pods"
    assert "--nodes" not in out


def test_bad_config(capsys, tmp_path):
    cfg = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n" \
          "- schedulerName: default-scheduler\n  plugins:\n    score:\n      enabled: [{name: NoSuchPlugin}]\n"
    code, _, err = run(capsys, write(tmp_path, "p.yaml", POD), "--nodes", write(tmp_path, "n.yaml", NODE),
                       "--config", write(tmp_path, "c.yaml", cfg))
    assert code == 2 and "NoSuchPlugin" in err


def test_statefulset_without_uid_is_explained(capsys, tmp_path):
    """Owner references need a uid; a manifest without one gets a stable derived uid."""
    sts = """apiVersion: apps/v1
kind: StatefulSet
metadata: {name: pg}
spec:
  selector: {matchLabels: {app: pg}}
  template:
    metadata: {labels: {app: pg}}
    spec:
      containers: [{name: c, image: postgres, resources: {requests: {cpu: 100m}}}]
"""
    code, out, err = run(capsys, write(tmp_path, "s.yaml", sts), "--nodes", write(tmp_path, "n.yaml", NODE),
                         "-o", "json")
    assert code == 0, err
    assert json.loads(out)["pod"]["name"] == "pg-0"
