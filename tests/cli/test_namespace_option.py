"""`-n/--namespace` on every command that reads manifest files (explain, lint, autoscale,
karpenter), as `kubectl apply -n NS -f DIR`: the files' namespace-less namespaced objects go in
NS (a LimitRange or ResourceQuota written without one acts in NS), an object of another namespace
is refused in kubectl's words, the cluster (--nodes) is not changed. Live `kexplain pod` has its
own -n (the namespace to read)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer

from kexplain.cli.app import app, main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES

REFUSED = ('the namespace from the provided object "a" does not match the namespace "team". You must pass '
           "'--namespace=a' to perform this operation.")

POD = """\
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: c, image: nginx, resources: {requests: {cpu: "1", memory: 1Gi}}}]
"""
ELSEWHERE = """\
apiVersion: v1
kind: Pod
metadata: {name: other, namespace: a}
spec:
  containers: [{name: c, image: nginx, resources: {requests: {cpu: "1", memory: 1Gi}}}]
"""
# a namespace-less LimitRange: with -n team it caps the pod's namespace's containers
LIMIT = """\
apiVersion: v1
kind: LimitRange
metadata: {name: small}
spec:
  limits: [{type: Container, max: {cpu: 500m}}]
"""

# command -> (args before the file, after it, how to find (namespace, name) of the pods in -o json)
COMMANDS = {
    "explain": ([], ["--nodes", str(FIXTURES / "cluster.yaml")],
                lambda doc: [(t["pod"]["namespace"], t["pod"]["name"]) for t in doc.get("items", [doc])]),
    "autoscale": (["autoscale"], ["--nodes", str(FIXTURES / "autoscaler" / "cluster.yaml"), "--node-groups",
                                  str(FIXTURES / "autoscaler" / "nodegroups.yaml")],
                  lambda doc: [(p["namespace"], p["name"]) for p in doc["pods"]]),
    "karpenter": (["karpenter"], ["--nodes", str(FIXTURES / "karpenter" / "cluster.yaml"), "--nodes",
                                  str(FIXTURES / "karpenter" / "nodepools.yaml")],
                  lambda doc: [tuple(p["pod"].split("/")) for p in doc["pods"]]),
}


def run(*args: str) -> tuple[int, str, str]:
    env = TestEnvironment()
    code = main(list(args), env=env)
    return code, env.out, env.err


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "app.yaml"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_namespace_less_pod_goes_in_the_namespace_given(tmp_path, command):
    before, after, pods = COMMANDS[command]
    path = write(tmp_path, POD)
    code, out, err = run(*before, path, *after, "-n", "team", "-o", "json")
    assert "error" not in err and code in (0, 1), err
    assert pods(json.loads(out)) == [("team", "web")]
    code, out, err = run(*before, path, *after, "-o", "json")       # without -n: default, as kubectl's context
    assert pods(json.loads(out)) == [("default", "web")]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_an_object_of_another_namespace_is_refused_as_kubectl_refuses_it(tmp_path, command):
    before, after, _ = COMMANDS[command]
    path = write(tmp_path, ELSEWHERE)
    code, out, err = run(*before, path, *after, "--namespace", "team", "-o", "json")
    assert code == 2
    assert err.splitlines()[0] == f"error: {path}: document 1: Pod a/other: {REFUSED}"
    assert "Traceback" not in err


def test_explain_explains_the_rest_as_kubectl_applies_the_rest(tmp_path):
    path = write(tmp_path, POD + "---\n" + ELSEWHERE)
    code, out, err = run(path, "--nodes", str(FIXTURES / "cluster.yaml"), "-n", "team", "-o", "json",
                         "--no-suggestions")
    assert code == 2 and err == f"error: {path}: document 2: Pod a/other: {REFUSED}\n"
    assert (json.loads(out)["pod"]["namespace"], json.loads(out)["pod"]["name"]) == ("team", "web")


def test_a_namespace_less_limit_range_acts_in_the_namespace_given(tmp_path):
    path = write(tmp_path, LIMIT + "---\n" + POD)
    code, out, err = run(path, "--nodes", str(FIXTURES / "cluster.yaml"), "-n", "team", "-o", "json")
    assert code == 2 and "must be less than or equal to cpu limit of 500m" in err, err


def test_lint_reports_the_refused_object_and_lints_the_rest(tmp_path):
    path = write(tmp_path, POD + "---\n" + ELSEWHERE)
    code, out, err = run("lint", path, "--nodes", str(FIXTURES / "cluster.yaml"), "-n", "team", "-o", "json",
                         "-v")
    assert code == 1, err
    findings = json.loads(out)["findings"]
    assert [(f["rule"], f["object"]["namespace"], f["object"]["name"]) for f in findings] == [
        ("fits", "team", "web"), ("namespace-mismatch", "a", "other")]
    assert findings[1]["message"] == REFUSED and findings[1]["line"] == 9    # its metadata.namespace


def test_a_namespace_that_is_no_name_is_bad_usage(tmp_path):
    code, out, err = run("lint", write(tmp_path, POD), "-n", "Team_A")
    assert code == 2 and "'Team_A' is no namespace name" in err


def test_every_command_that_reads_manifest_files_takes_it():
    group = typer.main.get_command(app)
    for name in ("explain", "lint", "autoscale", "karpenter", "pod"):
        opts = {o for p in group.commands[name].get_params(typer.Context(group.commands[name])) for o in p.opts}
        assert {"-n", "--namespace"} <= opts, name
