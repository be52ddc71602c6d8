"""`kexplain kueue`'s command line: the options, the exit codes (0 all admitted, 1 some pending,
2 bad input in one line, never a traceback), and `-o json`."""
from __future__ import annotations

import json

import pytest

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES

CASE = FIXTURES / "kueue"
CLUSTER = ["--nodes", str(CASE / "cluster.yaml"), "--now", "2026-01-01T00:00:00Z"]


def kexplain(*args: str, stdin: str = "") -> tuple[int, str, str]:
    env = TestEnvironment(width=100, stdin=stdin.encode())
    code = main(["kueue", *args], env)
    return code, env.out, env.err


def test_help_describes_the_options() -> None:
    code, out, _ = kexplain("--help")
    assert code == 0
    for option in ("--nodes", "--now", "--kueue-version", "--output", "--suggestions", "--validate"):
        assert option in out


def test_json_and_exit_codes() -> None:
    code, out, err = kexplain(str(CASE / "train.yaml"), *CLUSTER, "-o", "json", "--no-suggestions")
    assert code == 1 and not err
    doc = json.loads(out)
    assert "v0.17.8" in doc["kueueVersion"] and "suggestions" not in doc
    assert doc["jobs"] == [{"kind": "Job", "namespace": "team-a", "name": "train", "queueName": "a-queue",
                            "workload": "job-train-101b2"}]
    fits = ("apiVersion: batch/v1\nkind: Job\nmetadata: {name: small, namespace: team-b, uid: u1, "
            "labels: {kueue.x-k8s.io/queue-name: b-queue}}\nspec: {suspend: true, template: {spec: "
            "{restartPolicy: Never, containers: [{name: c, image: x, resources: {requests: {cpu: '1'}}}]}}}\n")
    code, out, err = kexplain("-", *CLUSTER, "-o", "json", stdin=fits)
    assert code == 0, err


@pytest.mark.parametrize(("args", "stdin", "said"), [
    (["-", "--kueue-version", "0.18"], "", "--kueue-version 0.18: not a Kueue version kexplain follows"),
    (["-", "--now", "yesterday"], "", "--now yesterday: not an RFC 3339 time"),
    (["-"], "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\n"
            "spec: {queueingStrategy: LIFO}\n", 'spec.queueingStrategy: Unsupported value: "LIFO"'),
    (["-"], "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: q}\nspec: [1]\n",
     "spec in body must be of type object"),
    (["/nonexistent.yaml"], "", "nonexistent.yaml"),
])
def test_bad_input_is_one_line(args, stdin, said) -> None:
    code, out, err = kexplain(*CLUSTER, *args, stdin=stdin)
    assert code == 2 and not out
    assert said in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


MISSING_CLASS = ("metadata: {{name: {name}, namespace: team-a, uid: u-{name}, "
                 "labels: {{kueue.x-k8s.io/queue-name: a-queue}}}}\n")


def test_a_missing_priority_class() -> None:
    """A Job's template naming a PriorityClass that does not exist gets Kueue's error; a Pod naming
    one is refused as the API server refuses it."""
    job = ("apiVersion: batch/v1\nkind: Job\n" + MISSING_CLASS.format(name="j") +
           "spec: {suspend: true, template: {spec: {priorityClassName: nope, restartPolicy: Never, "
           "containers: [{name: c, image: x, resources: {requests: {cpu: '1'}}}]}}}\n")
    code, out, err = kexplain("-", *CLUSTER, "-o", "json", stdin=job)
    assert json.loads(out)["jobs"][0]["error"] == 'priorityclasses.scheduling.k8s.io "nope" not found'
    pod = ("apiVersion: v1\nkind: Pod\n" + MISSING_CLASS.format(name="p") +
           "spec: {priorityClassName: nope, containers: [{name: c, image: x}]}\n")
    code, out, err = kexplain("-", *CLUSTER, "-o", "json", stdin=pod)
    assert code == 2 and "no PriorityClass with name nope was found" in err and len(err.splitlines()) == 1


NAMESPACE_LESS = ("apiVersion: batch/v1\nkind: Job\nmetadata: {name: small, uid: u1, "
                  "labels: {kueue.x-k8s.io/queue-name: b-queue}}\nspec: {suspend: true, template: {spec: "
                  "{restartPolicy: Never, containers: [{name: c, image: x, resources: {requests: {cpu: '1'}}}]}}}\n")


@pytest.mark.parametrize(("flag", "code", "said"), [
    (["-n", "team-b"], 0, "team-b"),        # in team-b, b-queue exists: admitted
    ([], 1, "default"),                      # in default: no LocalQueue b-queue there
])
def test_namespace_flag_places_namespace_less_objects(flag, code, said) -> None:
    got, out, err = kexplain("-", *CLUSTER, *flag, "-o", "json", "--no-suggestions", stdin=NAMESPACE_LESS)
    assert got == code, err
    assert json.loads(out)["jobs"][0]["namespace"] == said


def test_namespace_flag_refuses_an_object_of_another_namespace() -> None:
    code, out, err = kexplain(str(CASE / "typo.yaml"), *CLUSTER, "--namespace", "team-a")
    assert code == 2 and not out
    assert ('the namespace from the provided object "team-b" does not match the namespace "team-a"' in err
            and len(err.strip().splitlines()) == 1)
