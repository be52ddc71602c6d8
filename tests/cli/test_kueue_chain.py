"""The chain from Kueue to the node (`kexplain POD --nodes CLUSTER` with Kueue's objects): a Job,
a gated Pod and a JobSet with the queue-name label get Kueue's answer first, and once admitted
their pods carry the flavor's node labels; text, `-o json` and the page. Without Kueue's objects
the output is what it was."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli_helpers import run_cli
from tests.support.paths import FIXTURES

CASE = FIXTURES / "kueue"
CLUSTER = ["--nodes", str(CASE / "cluster.yaml"), "--nodes", str(CASE / "nodes.yaml")]
SELECTOR = {"cloud.example.com/capacity": "on-demand"}


kexplain = run_cli


def _answer(doc: dict) -> dict:
    """Kueue's answer of a pod explained alone (the trace) or of a batch's first object."""
    return doc["kueue"] if "kueue" in doc else doc["placements"][0]["kueue"]


@pytest.mark.parametrize(("fixture", "kind", "verdict", "code", "pods"), [
    ("eval.yaml", "Job", "Admitted", 0, 2),
    ("notebook.yaml", "Pod", "Admitted", 0, 1),
    ("sim.yaml", "JobSet", "Admitted", 0, 1),
    ("train.yaml", "Job", "Pending", 1, 0),
])
def test_json_carries_kueues_answer(fixture, kind, verdict, code, pods) -> None:
    got, out, err = kexplain(str(CASE / fixture), *CLUSTER, "-o", "json")
    assert got == code, err
    doc = json.loads(out)
    answer = _answer(doc)
    assert answer["object"]["kind"] == kind and answer["verdict"] == verdict
    assert "v0.17.8" in answer["kueueVersion"]
    if verdict == "Admitted":
        assert answer["clusterQueue"] in ("team-a-cq", "team-b-cq")
        assert all(ps["nodeSelector"] == SELECTOR for ps in answer["podSets"])
        traces = [doc] if "kueue" in doc else doc["items"]
        for trace in traces:        # the pods as Kueue started them: ungated, only where the flavor's label is
            assert trace["result"]["status"] == "Scheduled"
            assert trace["filterAll"]["spot-1"]["NodeAffinity"]["code"] == "UnschedulableAndUnresolvable"
        placements = doc.get("placements") or []
        if placements:
            assert placements[0]["fit"] == pods and "idle" not in placements[0]
    else:
        placement = doc["placements"][0]
        assert placement["idle"].startswith("spec.suspend is true")
        assert answer["message"].startswith("couldn't assign flavors to pod set main")
        assert answer["explanation"]["verdict"] == "Pending"


def test_the_flavor_node_label_reaches_the_scheduler() -> None:
    """Without Kueue's objects the pod's selector is its own: spot-1 fails only its taint."""
    _, out, _ = kexplain(str(CASE / "notebook.yaml"), "--nodes",
                         str(CASE / "nodes.yaml"), "-o", "json")
    doc = json.loads(out)
    assert "kueue" not in doc and doc["result"]["status"] == "Gated"


def test_a_held_pod_keeps_kueues_gates() -> None:
    """Not admitted (its LocalQueue missing), the pod keeps Kueue's gates: the scheduler never tries it."""
    pod = (CASE / "notebook.yaml").read_text().replace("b-queue", "b-queu")
    path = Path(__file__).parent / "_held_notebook.yaml"
    try:
        path.write_text(pod)
        code, out, _ = kexplain(str(path), *CLUSTER, "-o", "json")
    finally:
        path.unlink()
    doc = json.loads(out)
    assert code == 1
    assert doc["kueue"]["verdict"] == "Inadmissible" and doc["kueue"]["message"] == "LocalQueue b-queu doesn't exist"
    assert doc["result"]["status"] == "Gated"


@pytest.mark.parametrize(("fixture", "said"), [
    ("eval.yaml", ["Kueue v0.17.8, LocalQueue a-queue: Workload team-a/job-eval-d4816 is admitted in ClusterQueue",
                   "nodeSelector cloud.example.com/capacity=on-demand", "0  eval-"]),
    ("notebook.yaml", ["the Pod is ungated, as Kueue sets it:", "Would be bound to od-1"]),
    ("sim.yaml", ["=== Job team-b/sim-workers-1", "(JobSet team-b/sim)", "Pod set workers: 2 pods, flavor on-demand"]),
    ("train.yaml", ["is not admitted; the Job stays suspended", "Why team-a/job-train-101b2 is pending",
                    "Its pod template, explained without a flavor"]),
])
def test_text_says_kueues_answer_before_the_schedulers(fixture, said) -> None:
    _, out, _ = kexplain(str(CASE / fixture), *CLUSTER)
    flat = " ".join(out.split())
    for words in said:
        assert " ".join(words.split()) in flat, words
    assert flat.index("Kueue v0.17.8") < flat.index("Copies, in the order" if fixture == "eval.yaml" else "Pod team-")


@pytest.mark.parametrize("fixture", ["eval.yaml", "notebook.yaml", "sim.yaml", "train.yaml"])
def test_the_page_has_kueues_answer(fixture, tmp_path) -> None:
    page = tmp_path / "page.html"
    kexplain(str(CASE / fixture), *CLUSTER, "--html", str(page))
    html = " ".join(page.read_text().split())        # (the answer's text wraps where the job is named)
    assert "Kueue v0.17.8, LocalQueue" in html
    assert ("is admitted in ClusterQueue" in html) == (fixture != "train.yaml")


def test_without_kueues_objects_the_output_is_unchanged() -> None:
    """The queue-name label alone (no Kueue object given) changes nothing: no key, the Job idle."""
    _, out, _ = kexplain(str(CASE / "train.yaml"), "--nodes", str(CASE / "nodes.yaml"), "-o", "json")
    doc = json.loads(out)
    assert "kueue" not in json.dumps(doc["placements"]).replace("kueue.x-k8s.io", "")
    assert doc["placements"][0]["idle"].startswith("spec.suspend is true")


@pytest.mark.parametrize(("flag", "release", "message"), [
    ([], "v0.17.8", "Workload namespace doesn't match ClusterQueue selector"),
    (["--kueue-version", "0.17"], "v0.17.8", "Workload namespace doesn't match ClusterQueue selector"),
    (["--kueue-version", "v0.19.2"], "v0.19.2", "workload namespace doesn't match ClusterQueue selector"),
])
def test_kueue_version_picks_the_release_that_answers(tmp_path, flag, release, message) -> None:
    # the ClusterQueues select no namespace: Kueue's nominate step says so, in each release's words
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text((CASE / "cluster.yaml").read_text().replace(
        "namespaceSelector: {}", "namespaceSelector: {matchLabels: {team: none}}"))
    got, out, err = kexplain(str(CASE / "eval.yaml"), "--nodes", str(cluster), "--nodes", str(CASE / "nodes.yaml"),
                             "-o", "json", *flag)
    answer = _answer(json.loads(out))
    assert got == 1, err
    assert answer["verdict"] == "Pending" and answer["message"] == message
    assert answer["kueueVersion"].startswith(release)


def test_kueue_version_admits_as_the_release_does() -> None:
    got, out, err = kexplain(str(CASE / "notebook.yaml"), *CLUSTER, "-o", "json", "--kueue-version", "0.19")
    assert got == 0, err
    doc = json.loads(out)
    assert doc["kueue"]["verdict"] == "Admitted" and doc["kueue"]["kueueVersion"].startswith("v0.19.2")
    assert doc["result"]["status"] == "Scheduled"


@pytest.mark.parametrize("command", [[str(CASE / "eval.yaml"), *CLUSTER], ["pod", "notebook"]])
def test_a_bad_kueue_version_is_a_one_line_error(command) -> None:
    got, out, err = kexplain(*command, "--kueue-version", "0.18")
    assert got == 2 and out == ""
    assert err.strip() == ("error: --kueue-version 0.18: not a Kueue version kexplain follows; supported: "
                           "0.17 (v0.17.8), 0.19 (v0.19.2)")
