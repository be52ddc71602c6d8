"""Manifests as `kubectl apply -f` takes them (issue 32): custom resources told apart from the
built-in kinds by API group, one bad file or object never hiding the rest, objects named by
generateName, and streams of JSON values. The inputs in tests/data/manifests/ are shaped after
the projects where each case was met (Volcano, kueue, istio's bookinfo, `jq -c` output)."""
from __future__ import annotations

import io
import json

import pytest

from kexplain.apimachinery.identity import generated_name
from kexplain.apimachinery.kinds import is_builtin_kind
from kexplain.cli.app import main
from kexplain.cli.env import Environment
from kexplain.errors import InputError
from kexplain.explain.inputs import load
from kexplain.explain.request import Request
from kexplain.lint.linter import LintOptions, lint
from kexplain.load import yaml_io
from kexplain.load.manifests import load_objects, named, objects_from_text
from kexplain.load.problems import Problems
from tests.support.paths import DATA
from tests.support.copies import copy_names

SETS = DATA / "manifests"
VOLCANO = SETS / "volcano"
CLUSTER = str(DATA / "as-written" / "cluster.yaml")


def explain(capsys, *args: str) -> tuple[int, dict | None, str]:
    code = main([*args, "-o", "json"])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out else None, err


def pod_names(doc: dict) -> list[str]:
    return [i["pod"]["name"] for i in doc["items"]] if doc.get("kind") == "SchedulingTraceList" \
        else [doc["pod"]["name"]]


# -- item 3: API group and kind, not kind alone ---------------------------------------------------
@pytest.mark.parametrize("api_version, kind, builtin", [
    ("v1", "Pod", True), ("batch/v1", "Job", True), ("apps/v1", "Deployment", True), ("v1", "Node", True),
    ("storage.k8s.io/v1", "StorageClass", True), ("resource.k8s.io/v1beta2", "DeviceClass", True),
    ("batch.volcano.sh/v1alpha1", "Job", False), ("example.com/v1", "Pod", False), ("example.com/v1", "Node", False),
    ("kubeflow.org/v1", "PyTorchJob", False), ("apps/v1", "Pod", False), ("v1", "Deployment", False),
    (None, "Pod", True),            # no apiVersion: the API server's refusal of it is said later
])
def test_builtin_kind_is_group_and_kind(api_version, kind, builtin):
    assert is_builtin_kind(api_version, kind) is builtin


def test_a_volcano_job_is_a_custom_resource_not_a_workload(capsys, tmp_path):
    """Volcano's `batch.volcano.sh` Job beside a Pod: the Pod is explained, the Job is ignored
    as any kind kexplain does not read (today's error was "workload has no pod template");
    lint skips it as a custom resource, with the same rule."""
    app = tmp_path / "app"
    app.mkdir()
    for name in ("job.yaml", "web.yaml"):
        (app / name).write_text((VOLCANO / name).read_text())
    code, trace, err = explain(capsys, str(app), "--nodes", CLUSTER)
    assert (code, err) == (0, "")
    assert pod_names(trace) == ["web"]
    code, _, err = explain(capsys, str(app / "job.yaml"), "--nodes", CLUSTER)
    assert code == 2 and err.strip().endswith(
        "no Pod or workload to explain (found Job (batch.volcano.sh, a custom resource))")
    report = lint(LintOptions((str(app),), (CLUSTER,)))
    assert sorted((f.rule, f.obj.kind) for f in report.findings) == [("fits", "Pod"), ("unknown-kind", "Job")]


def test_a_custom_pod_is_not_explained_and_a_custom_node_is_not_a_node(capsys):
    """An `example.com/v1` Pod is not a pod to explain, and an `example.com/v1` Node with 256
    CPUs is not a node the pod (3 CPUs) could be placed on."""
    pod_file, nodes = SETS / "nodes-with-crd" / "pod.yaml", SETS / "nodes-with-crd" / "nodes.yaml"
    code, trace, err = explain(capsys, str(pod_file), "--nodes", str(nodes), "--replicas", "3")
    assert code == 1, err
    assert trace["placements"][0]["object"]["name"] == "analytics"
    assert trace["placements"][0]["fit"] == 2 and sorted(trace["placements"][0]["nodes"]) == ["worker-1", "worker-2"]
    assert {i["search"]["numAllNodes"] for i in trace["items"]} == {2}
    code, trace, err = explain(capsys, str(pod_file), "--nodes", str(nodes))      # one pod: the single path
    assert (code, err) == (0, "") and trace["pod"]["name"] == "analytics"
    assert trace["search"]["numAllNodes"] == 2


# -- item 4: one bad object never hides the rest ---------------------------------------------------
def test_a_directory_with_bad_files_and_objects_explains_the_rest(capsys):
    """The Volcano examples directory: a file that does not parse, a kustomization.yaml, a pod
    the API server refuses, a Deployment for the volcano scheduler and a custom Job, beside one
    good Pod. Each is said on stderr with its file and object, the Pod is explained, and the
    exit code is the worst (2: bad input)."""
    code, trace, err = explain(capsys, str(VOLCANO), "--nodes", CLUSTER)
    assert code == 2
    assert pod_names(trace) == ["web"] and trace["items"][0]["result"]["status"] == "Scheduled"
    lines = err.splitlines()
    assert lines == [
        f"error: {VOLCANO / 'broken.yaml'}: invalid YAML: line 5, column 1: found character that cannot start any "
        "token",
        f"error: {VOLCANO / 'kustomization.yaml'}: document 1: not a Kubernetes object: no apiVersion and no kind "
        "(a kustomization.yaml, Helm values, another tool's file?)",
        f"note: {VOLCANO / 'deployment-with-volcano.yaml'}: document 1: Deployment default/deploy-with-volcano: not "
        'scheduled by this kube-scheduler: profile not found for scheduler name "volcano": the pod\'s '
        'spec.schedulerName is not a profile of the scheduler configuration (profiles: "default-scheduler"); pass a '
        'KubeSchedulerConfiguration with a profile for "volcano" with --config',
        f"error: {VOLCANO / 'priority-too-high.yaml'}: document 1: Pod default/urgent: pods \"urgent\" is forbidden: "
        "the integer value of priority (1000) must not be provided in pod spec; priority admission controller "
        "computed 0 from the given PriorityClass name",
    ]


def test_a_pod_of_another_scheduler_is_not_bad_input_beside_others(capsys, tmp_path):
    """Only notes: the exit code is the explained pods' (0), and the Deployment's pods are not
    explained as unschedulable. With a profile for volcano (--config), they are explained."""
    app = tmp_path / "app"
    app.mkdir()
    for name in ("deployment-with-volcano.yaml", "web.yaml"):
        (app / name).write_text((VOLCANO / name).read_text())
    code, trace, err = explain(capsys, str(app), "--nodes", CLUSTER)
    assert code == 0 and err.startswith("note: ") and "not scheduled by this kube-scheduler" in err
    assert pod_names(trace) == ["web"]
    code, trace, err = explain(capsys, str(app / "deployment-with-volcano.yaml"), "--nodes", CLUSTER)
    assert code == 2 and trace["items"] == [] and err.startswith("note: ")     # nothing explained: as one pod alone
    config = tmp_path / "config.yaml"
    config.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                      "profiles:\n- schedulerName: default-scheduler\n- schedulerName: volcano\n")
    code, trace, err = explain(capsys, str(app), "--nodes", CLUSTER, "--config", str(config))
    assert (code, err) == (0, "")
    assert sorted(pod_names(trace)) == sorted([*copy_names(VOLCANO / "deployment-with-volcano.yaml", 2), "web"])


def test_a_bad_object_in_nodes_is_left_out_of_the_cluster(capsys, tmp_path):
    """A Node the API server refuses (a taint effect it does not know) among good ones: said,
    left out, and the pod explained against the rest; exit 2."""
    nodes = tmp_path / "nodes.yaml"
    good = (SETS / "nodes-with-crd" / "nodes.yaml").read_text()
    nodes.write_text(good + "---\napiVersion: v1\nkind: Node\nmetadata: {name: worker-3}\n"
                            "spec: {taints: [{key: k, effect: Sometimes}]}\n"
                            "status: {capacity: {cpu: '4', memory: 16Gi, pods: '110'}}\n")
    code, trace, err = explain(capsys, str(VOLCANO / "web.yaml"), "--nodes", str(nodes))
    assert code == 2 and trace["search"]["numAllNodes"] == 2
    assert err.count("\n") == 1 and err.startswith(f"error: {nodes}: document 4: Node worker-3: ")
    assert 'Unsupported value: "Sometimes"' in err


def test_load_raises_the_first_problem_unless_it_collects():
    req = Request(pod_path=str(VOLCANO), node_paths=(CLUSTER,))
    with pytest.raises(InputError, match="invalid YAML"):
        load(req)
    loaded = load(req, collect=True)
    assert [e.source.path.rsplit("/", 1)[1] for e in loaded.problems] == ["broken.yaml", "kustomization.yaml"]
    # the pods are admitted as they are scheduled (`Batch`): the refused one is said then
    assert sorted(e.name for e in loaded.batch) == ["deploy-with-volcano", "urgent", "web"]


def test_objects_before_a_bad_document_are_kept_when_collecting():
    text = "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n- just\n- a list\n---\n" \
           "apiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n---\nkind: [\n"
    problems = Problems(keep=True)
    objs = objects_from_text(text, "ns.yaml", problems=problems)
    assert [o["metadata"]["name"] for o, _ in objs] == ["a", "b"]
    assert [str(e) for e in problems.found] == [
        "ns.yaml: document 2: document is a list, not a Kubernetes object (a mapping)",
        "ns.yaml: invalid YAML: line 13, column 1: did not find expected node content"]
    with pytest.raises(InputError, match="document is a list"):
        objects_from_text(text, "ns.yaml")


# -- item 7: generateName --------------------------------------------------------------------------
def test_a_pod_with_only_generate_name_is_accepted(capsys):
    code, trace, err = explain(capsys, str(SETS / "kueue" / "sample-pod.yaml"), "--nodes", CLUSTER)
    assert (code, err) == (0, "")
    name = trace["pod"]["name"]
    assert name.startswith("kueue-sleep-") and len(name) == len("kueue-sleep-") + 5


def test_objects_of_one_generate_name_get_distinct_names_every_run(capsys):
    objs = load_objects([str(SETS / "kueue" / "sample-job.yaml")])
    names = [o["metadata"]["name"] for o, _ in objs]
    assert len(set(names)) == 3 and all(n.startswith("sample-job-") and len(n) == 16 for n in names)
    assert names[0] == generated_name(objs[0][0])          # the first keeps the name it always had
    assert names == [o["metadata"]["name"] for o, _ in load_objects([str(SETS / "kueue" / "sample-job.yaml")])]
    code, trace, err = explain(capsys, str(SETS / "kueue" / "sample-job.yaml"), "--nodes", CLUSTER)
    assert (code, err) == (0, "")
    assert [p["object"]["name"] for p in trace["placements"]] == names
    report = lint(LintOptions((str(SETS / "kueue"),), (CLUSTER,)))          # lint names them alike
    fits = [f for f in report.findings if f.rule == "fits"]
    assert sorted(f.obj.name for f in fits if f.obj.kind == "Job") == sorted(names)
    # and warns that `kubectl apply` refuses them (`kubectl create` creates them)
    assert {f.rule for f in report.findings} == {"fits", "generate-name"}
    assert sorted(f.obj.name for f in report.findings if f.rule == "generate-name" and f.obj.kind == "Job") \
        == sorted(names)


def test_named_leaves_named_objects_alone():
    objs = [({"kind": "Pod", "metadata": {"name": "a", "generateName": "x-"}}, None),
            ({"kind": "Pod", "metadata": {"generateName": "x-"}}, None),
            ({"kind": "Pod", "metadata": {"generateName": "x-", "namespace": "other"}}, None)]
    out = named(objs)
    assert out[0] is objs[0] and "name" not in objs[1][0]["metadata"]
    # counted per kind, namespace and prefix: each is the first of its own
    assert [o["metadata"]["name"] for o, _ in out[1:]] == [generated_name(objs[1][0]), generated_name(objs[2][0])]


# -- item 8: a stream of JSON values ---------------------------------------------------------------
@pytest.mark.parametrize("name", ["pods.json", "pods-one-line.json"])
def test_a_stream_of_json_values_is_read_value_by_value(capsys, monkeypatch, name):
    path = SETS / "jq" / name
    assert [o["metadata"]["name"] for o, _ in load_objects([str(path)])] == ["api-0", "api-1", "api-2"]
    code, trace, err = explain(capsys, str(path), "--nodes", CLUSTER)
    assert (code, err) == (0, "") and pod_names(trace) == ["api-0", "api-1", "api-2"]
    env = Environment(stdin=io.BytesIO(path.read_bytes()), stdout=io.StringIO(), stderr=io.StringIO())
    assert main(["-", "--nodes", CLUSTER, "-o", "json"], env) == 0
    assert pod_names(json.loads(env.stdout.getvalue())) == ["api-0", "api-1", "api-2"]


def test_a_broken_value_of_a_stream_names_its_position(capsys):
    """The values before it are read (and explained), as kubectl's decoder applies them before
    it meets the broken one; the error names the value's position and its line and column."""
    path = SETS / "jq" / "pods-second-broken.json"
    code, trace, err = explain(capsys, str(path), "--nodes", CLUSTER)
    assert code == 2 and pod_names(trace) == ["api-0"]
    assert err == (f"error: {path}: document 2: invalid JSON: line 2, column 33: Expecting property name enclosed "
                   "in double quotes\n")


def test_one_json_document_keeps_the_fast_path(monkeypatch):
    """A single document is parsed whole (`json_parse`), never value by value."""
    def stream(*_):
        raise AssertionError("read as a stream")
    monkeypatch.setattr(yaml_io, "_json_prefix", stream)
    doc = json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}})
    assert [d.value["metadata"]["name"] for d in yaml_io.parse_documents(doc, "p.json")] == ["p"]


def test_json_values_separated_by_yaml_document_markers_stay_yaml():
    text = '{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}\n---\n' \
           '{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "b"}}\n'
    assert [d.value["metadata"]["name"] for d in yaml_io.parse_documents(text, "ns.yaml")] == ["a", "b"]
