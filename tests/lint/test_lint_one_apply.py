"""lint takes the files of its paths as one apply, as `kexplain DIR` and `kubectl apply -f DIR`
do (issue 23, items 3 and 7): an object in one file finds what a sibling file creates, an object
given twice is one object, with the later manifest's contents when they differ.
Each finding stays at its own object's file and line."""
from __future__ import annotations

import json
from pathlib import Path

from kexplain.cli.app import main
from kexplain.lint.linter import LintOptions, lint
from tests.support.lint_helpers import deployment, pool, write

NODES = """\
apiVersion: v1
kind: Node
metadata:
  name: gpu-node-1
  labels:
    kubernetes.io/hostname: gpu-node-1
status:
  capacity: {cpu: "16", memory: 64Gi, pods: "110"}
  allocatable: {cpu: "16", memory: 64Gi, pods: "110"}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: gpu-node-1-gpu.example.com
spec:
  driver: gpu.example.com
  nodeName: gpu-node-1
  pool:
    name: gpu-node-1
    generation: 1
    resourceSliceCount: 1
  devices:
  - name: gpu-0
    attributes:
      model: {string: L4}
  - name: gpu-1
    attributes:
      model: {string: L4}
"""

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: trainer
        image: registry.example.com/trainer:2.1
        resources:
          requests: {cpu: "4", memory: 8Gi}
          claims:
          - name: gpu
      resourceClaims:
      - name: gpu
        resourceClaimTemplateName: single-gpu
"""

GPU = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == 'gpu.example.com'
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: single-gpu
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
"""


def training(tmp_path: Path, gpu: str = GPU) -> tuple[Path, str]:
    """The job's directory (the Job in one file, its template and class in a sibling) and the nodes."""
    app = tmp_path / "app"
    app.mkdir()
    (app / "job.yaml").write_text(JOB)
    (app / "gpu.yaml").write_text(gpu)
    nodes = tmp_path / "nodes.yaml"
    nodes.write_text(NODES)
    return app, str(nodes)


def explained(capsys, *args: str, code: int = 0) -> dict:
    """`kexplain ARGS -o json`'s trace, the command ending with `code` (1: not scheduled)."""
    got = main([*args, "-o", "json"])
    out, err = capsys.readouterr()
    assert got == code, err
    return json.loads(out)


def test_a_job_finds_its_claim_template_in_a_sibling_file(tmp_path, capsys):
    app, nodes = training(tmp_path)
    trace = explained(capsys, str(app), "--nodes", nodes)
    assert trace["result"]["status"] == "Scheduled" and trace["result"]["selectedNodes"] == ["gpu-node-1"]
    for given in ((str(app),), (str(app / "job.yaml"), str(app / "gpu.yaml"))):
        report = lint(LintOptions(given, (nodes,)))
        assert [(f.rule, f.obj.kind, f.location.path, f.location.line) for f in report.findings] == [
            ("fits", "Job", str(app / "job.yaml"), 1)]
        assert report.findings[0].message == "fits: gpu-node-1"
    # a file given twice (itself, and in its directory) is read once
    twice = lint(LintOptions((str(app), str(app / "job.yaml")), (nodes,)))
    assert [(f.rule, f.location.path) for f in twice.findings] == [("fits", str(app / "job.yaml"))]
    assert (twice.files, twice.objects) == (2, 3)
    # each file alone is what lint judged before: the template missing, the Job held back
    alone = lint(LintOptions((str(app / "job.yaml"),), (nodes,)))
    assert sorted(f.rule for f in alone.findings) == ["gated", "missing-resource-claim-template"]


def test_findings_stay_at_their_own_file_and_line(tmp_path, capsys):
    """A template naming a class nobody has: its finding is at its own file's line, the Job's at the Job's."""
    app, nodes = training(tmp_path, GPU.replace("deviceClassName: gpu.example.com", "deviceClassName: gpu.exmaple.com"))
    report = lint(LintOptions((str(app),), (nodes,)))
    where = {f.rule: (f.location.path, f.location.line, f.field) for f in report.findings}
    assert where["missing-device-class"] == (str(app / "gpu.yaml"), 20,
                                              "spec.spec.devices.requests[0].exactly.deviceClassName")
    assert where["unschedulable"][:2] == (str(app / "job.yaml"), 1)
    (unschedulable,) = [f for f in report.findings if f.rule == "unschedulable"]
    trace = explained(capsys, str(app), "--nodes", nodes, code=1)
    assert trace["result"]["status"] == "Unschedulable"
    assert trace["result"]["message"] == unschedulable.message


# -- the same object twice -------------------------------------------------------------------------
def namespace(labels: str = "{team: a}") -> str:
    return f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n  labels: {labels}\n"


def team_a(tmp_path: Path, second_namespace: str) -> Path:
    """Two apps of a team, each with the team's Namespace beside its Deployment."""
    for app, ns in (("api", namespace()), ("web", second_namespace)):
        d = tmp_path / "team-a" / app
        d.mkdir(parents=True)
        (d / "namespace.yaml").write_text(ns)
        work = deployment(app, replicas=1, cpu="500m")
        work["metadata"]["namespace"] = "team-a"
        write(d, "deployment.yaml", work)
    return tmp_path / "team-a"


def test_a_namespace_in_two_files_alike_is_one_namespace(tmp_path, capsys):
    team = team_a(tmp_path, namespace())
    nodes = pool(tmp_path)
    report = lint(LintOptions((str(team),), (nodes,)))
    assert [(f.rule, f.obj.name) for f in report.findings] == [("fits", "api"), ("fits", "web")]
    assert report.objects == 4
    code = main([str(team), "--nodes", nodes, "-o", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert [p["fit"] for p in json.loads(out)["placements"]] == [1, 1]


def test_a_namespace_in_two_files_differently_is_the_later_one(tmp_path, capsys):
    """Applied twice, as `kubectl apply -f DIR` applies it: the later manifest's labels are the
    namespace's (what a namespace selector of the pool would read); no finding, no error."""
    team = team_a(tmp_path, namespace("{team: b}"))
    report = lint(LintOptions((str(team),), (pool(tmp_path),)))
    assert [(f.rule, f.obj.name) for f in report.findings] == [("fits", "api"), ("fits", "web")]
    assert report.objects == 4
    code = main([str(team), "--nodes", pool(tmp_path), "-o", "json"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert [p["fit"] for p in json.loads(out)["placements"]] == [1, 1]


def test_a_deployment_in_two_files_differently_is_scheduled_once_as_the_later_one(tmp_path):
    """The earlier manifest asks for more than a node has, the later one fits: lint schedules the
    object once, as the later manifest has it, and says so at the later file; both are linted."""
    app = tmp_path / "app"
    write(app, "a.yaml", deployment("web", replicas=1, cpu="6"))
    write(app, "b.yaml", deployment("web", replicas=1, cpu="1"))
    report = lint(LintOptions((str(app),), (pool(tmp_path),)))
    assert [(f.rule, f.location.path) for f in report.findings] == [("fits", str(app / "b.yaml"))]
    assert (report.objects, report.scheduled_objects) == (2, 1)
    write(app, "b.yaml", deployment("web", replicas=1, cpu="6"))
    write(app, "a.yaml", deployment("web", replicas=1, cpu="1"))
    report = lint(LintOptions((str(app),), (pool(tmp_path),)))
    assert [(f.rule, f.location.path) for f in report.findings] == [("unschedulable", str(app / "b.yaml"))]


def test_lint_help_says_what_lint_does_with_an_object_given_twice(tmp_path, capsys):
    """`kexplain lint --help` (and the man page) say what the run above does: the later manifest
    patches the first; no copy is refused as `already exists` (`kubectl create`'s answer)."""
    from tests.support.paths import ROOT

    team = team_a(tmp_path, namespace("{team: b}"))
    report = lint(LintOptions((str(team),), (pool(tmp_path),)))
    assert not any("already exists" in f.message for f in report.findings)
    assert main(["lint", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    man = " ".join((ROOT / "man" / "kexplain.1").read_text().split())
    for said in (text, man):
        assert "already exists" not in said
        assert "given twice differently the later manifest patches the first" in said
