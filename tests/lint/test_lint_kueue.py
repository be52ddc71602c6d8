"""Kueue's lint rules: a job Kueue manages whose LocalQueue does not exist, or whose Workload
can never fit its ClusterQueue (even borrowing all it may), is an error; none without Kueue's
objects, none for a job that fits or waits only for quota in use."""
from __future__ import annotations

import json

import pytest

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES

CASE = FIXTURES / "kueue"
UNSUSPENDED = """apiVersion: batch/v1
kind: Job
metadata:
  name: report
  namespace: NS
  labels: {kueue.x-k8s.io/queue-name: QUEUE}
spec:
  parallelism: 3
  completions: 3
  template:
    spec:
      restartPolicy: Never
      SELECTOR
      containers:
      - {name: main, image: x, resources: {requests: {cpu: 100m, memory: 100Mi}}}
"""


def job(namespace: str = "team-b", queue: str = "b-queue", selector: str = "") -> str:
    """A Job of 3 small pods, written unsuspended (Kueue's webhook suspends it when created)."""
    return UNSUSPENDED.replace("NS", namespace).replace("QUEUE", queue).replace("SELECTOR", selector)

HUGE = """apiVersion: batch/v1
kind: Job
metadata:
  name: huge
  namespace: team-a
  labels: {kueue.x-k8s.io/queue-name: a-queue}
spec:
  parallelism: PODS
  completions: PODS
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: main, image: x, resources: {requests: {cpu: "1", memory: 1Gi}}}
"""


def lint(*args: str, stdin: str = "") -> tuple[int, list[dict]]:
    env = TestEnvironment(width=200, stdin=stdin.encode())
    code = main(["lint", *args, "-o", "json"], env)
    return code, [f for f in json.loads(env.out)["findings"] if f["rule"].startswith("kueue-")]


@pytest.mark.parametrize(("pods", "found"), [
    ("20", ["kueue-held", "kueue-never-fits"]),  # 20 cpu: at most 10 (8 nominal + 2 borrowable) on-demand; spot tainted
    ("10", ["kueue-held"]),             # at most 10: held now, it fits once the nightly batch is done
    ("4", []),                          # admitted: its 4 pods are scheduled (and fit nowhere: unschedulable)
])
def test_never_fits(pods, found) -> None:
    code, findings = lint("-", "--nodes", str(CASE / "cluster.yaml"), stdin=HUGE.replace("PODS", pods))
    assert [f["rule"] for f in findings] == found
    if "kueue-never-fits" in found:
        never = findings[-1]
        assert code == 1
        assert "cpu wants 20, at most 10 in flavor on-demand" in never["message"]
        assert never["details"]["clusterQueue"] == "team-a-cq"
    if found:
        assert findings[0]["severity"] == "warning" and findings[0]["message"].startswith("Kueue holds it (Workload ")


def test_a_missing_local_queue() -> None:
    _, findings = lint(str(CASE / "typo.yaml"), "--nodes", str(CASE / "cluster.yaml"))
    assert [(f["rule"], f["severity"], f["details"].get("localQueue")) for f in findings] == [
        ("kueue-held", "warning", None), ("kueue-local-queue", "error", "b-queu")]


def test_the_kueue_objects_may_be_in_the_set_itself() -> None:
    _, findings = lint(str(CASE / "typo.yaml"), str(CASE / "cluster.yaml"))
    assert [f["rule"] for f in findings] == ["kueue-local-queue"]


def test_no_kueue_finding_without_kueues_objects() -> None:
    code, findings = lint(str(CASE / "typo.yaml"), "--nodes", str(CASE / "nodes.yaml"))
    assert findings == [] and code == 0


def verdicts(*args: str) -> dict[str, dict]:
    """The scheduling verdict of each object linted, by name."""
    env = TestEnvironment(width=200)
    main(["lint", *args, "-o", "json"], env)
    return {f["object"]["name"]: f for f in json.loads(env.out)["findings"]
            if f["rule"] in ("fits", "unschedulable", "gated", "not-created", "kueue-held", "replicas")}


NODES = ["--nodes", str(CASE / "nodes.yaml")]


def test_lint_schedules_the_pods_kueue_starts() -> None:
    found = verdicts(str(CASE / "eval.yaml"), str(CASE / "notebook.yaml"), "--nodes", str(CASE / "cluster.yaml"),
                     *NODES)
    job, pod = found["eval"], found["notebook"]
    # the Job not a suspended template, the Pod not gated: the pods Kueue starts, on the flavor's nodes only
    assert (job["rule"], job["details"]["fit"]) == ("fits", 2) and "idle" not in job["details"]
    assert (pod["rule"], pod["details"]["status"]) == ("fits", "Scheduled")
    assert set(job["details"]["nodes"]) | set(pod["details"]["nodes"]) <= {"od-1", "od-2"}
    for f in (job, pod):
        assert f["details"]["kueue"]["verdict"] == "Admitted"
        assert f["details"]["kueue"]["podSets"][0]["nodeSelector"] == {"cloud.example.com/capacity": "on-demand"}
    assert job["details"]["kueue"]["clusterQueue"] == "team-a-cq"


def test_kueues_objects_in_the_set_start_them_too() -> None:
    found = verdicts(str(CASE / "notebook.yaml"), str(CASE / "cluster.yaml"), *NODES)
    assert found["notebook"]["rule"] == "fits" and found["notebook"]["details"]["kueue"]["clusterQueue"] == "team-b-cq"


def test_a_job_kueue_holds_stays_suspended_and_without_kueue_nothing_changes() -> None:
    held = verdicts(str(CASE / "train.yaml"), "--nodes", str(CASE / "cluster.yaml"), *NODES)["train"]
    # a warning, never "0 errors, 0 warnings" (an all-clear) while Kueue holds the Job
    assert held["rule"] == "kueue-held" and held["details"]["idle"].startswith("spec.suspend is true")
    assert held["details"]["kueue"]["verdict"] == "Pending"         # Kueue's answer: why it stays suspended
    assert held["message"].startswith("Kueue holds it (Workload team-a/job-train-")
    plain = verdicts(str(CASE / "notebook.yaml"), *NODES)["notebook"]       # no Kueue object: gated, as written
    assert plain["rule"] == "gated" and "kueue" not in plain["details"]


def jobset_findings(*args: str, cluster: str = str(CASE / "cluster.yaml")) -> list[dict]:
    """The findings of sim.yaml's JobSet, linted with Kueue's objects (`cluster`) and the nodes."""
    env = TestEnvironment(width=200)
    main(["lint", str(CASE / "sim.yaml"), "--nodes", cluster, *NODES, "-o", "json", *args], env)
    return [f for f in json.loads(env.out)["findings"] if f["object"]["name"] == "sim"]


def test_lint_schedules_the_jobs_of_a_jobset_kueue_starts() -> None:
    found = jobset_findings()
    verdicts = [f for f in found if f["rule"] != "unknown-kind"]
    # one verdict per Job the JobSet makes, each the JobSet's (its document, its object), on the flavor's nodes
    assert [(f["rule"], f["details"]["kueue"]["job"], f["details"]["kueue"]["podSet"]) for f in verdicts] == [
        ("fits", "sim-driver-0", "driver"), ("fits", "sim-workers-0", "workers"), ("fits", "sim-workers-1", "workers")]
    for f in verdicts:
        assert f["object"]["kind"] == "JobSet" and f["file"].endswith("sim.yaml") and f["document"] == 1
        assert f["message"].startswith(f"Job team-b/{f['details']['kueue']['job']}: fits: ")
        assert set(f["details"]["nodes"]) <= {"od-1", "od-2"}
        assert f["details"]["kueue"]["verdict"] == "Admitted" and f["details"]["kueue"]["clusterQueue"] == "team-b-cq"
        assert f["details"]["kueue"]["workload"].startswith("team-b/jobset-sim-")


def test_a_jobset_kueue_holds_is_its_jobs_held(tmp_path) -> None:
    cluster = tmp_path / "cluster.yaml"       # no ClusterQueue selects team-b: the Workload stays pending
    cluster.write_text((CASE / "cluster.yaml").read_text().replace(
        "namespaceSelector: {}", "namespaceSelector: {matchLabels: {team: none}}"))
    found = jobset_findings(cluster=str(cluster))
    # as `kexplain JOBSET` shows it: its Jobs made, suspended while Kueue holds the JobSet, none of them run
    assert [f["rule"] for f in found] == ["unknown-kind", "kueue-held", "kueue-held", "kueue-held"]
    for f in found[1:]:
        assert f["details"]["kueue"]["verdict"] == "Pending" and "job" in f["details"]["kueue"]
        assert f["message"].startswith(f"Job team-b/{f['details']['kueue']['job']}: Kueue holds it (Workload ")


@pytest.mark.parametrize(("flag", "release"), [([], "v0.17.8"), (["--kueue-version", "0.17"], "v0.17.8"),
                                               (["--kueue-version", "v0.19.2"], "v0.19.2")])
def test_kueue_version_picks_the_release_that_answers(flag, release) -> None:
    answers = [f["details"]["kueue"] for f in jobset_findings(*flag) if f["rule"] == "fits"]
    assert len(answers) == 3 and all(a["kueueVersion"].startswith(release + " ") for a in answers)


def test_a_bad_kueue_version_is_a_one_line_error() -> None:
    env = TestEnvironment(width=200)
    code = main(["lint", str(CASE / "sim.yaml"), "--kueue-version", "0.18"], env)
    assert code == 2 and env.out == ""
    assert env.err.strip() == ("error: --kueue-version 0.18: not a Kueue version kexplain follows; supported: "
                               "0.17 (v0.17.8), 0.19 (v0.19.2)")


def lint_all(*args: str, stdin: str = "") -> tuple[int, list[dict], dict]:
    """Exit code, every finding and the report of `kexplain lint ARGS -o json`."""
    env = TestEnvironment(width=200, stdin=stdin.encode())
    code = main(["lint", *args, "-o", "json"], env)
    report = json.loads(env.out)
    return code, report["findings"], report


def rules_of(findings: list[dict], name: str) -> list[str]:
    return [f["rule"] for f in findings if (f.get("object") or {}).get("name") == name]


def test_a_job_kueue_holds_is_suspended_by_kueue_however_written() -> None:
    # Kueue's webhook suspends every Job labelled for it: held (no LocalQueue b-queu), its pods are not
    # created, whatever the manifest says of spec.suspend; never "fits", beside "Kueue never admits"
    code, findings, _ = lint_all("-", "--nodes", str(CASE / "cluster.yaml"), *NODES, stdin=job(queue="b-queu"))
    assert sorted(rules_of(findings, "report")) == ["kueue-held", "kueue-local-queue"]
    held = next(f for f in findings if f["rule"] == "kueue-held")
    assert held["details"]["kueue"]["verdict"] == "Inadmissible"
    assert held["message"].startswith("Kueue holds it (Workload team-b/job-report-")
    assert "LocalQueue b-queu doesn't exist" in held["message"] and code == 1


def test_a_job_kueue_admits_is_started_however_written() -> None:
    code, findings, _ = lint_all("-", "--nodes", str(CASE / "cluster.yaml"), *NODES, stdin=job())
    fits = [f for f in findings if f["rule"] == "fits"]
    assert len(fits) == 1 and fits[0]["details"]["kueue"]["verdict"] == "Admitted" and code == 0


def test_never_fits_checks_the_flavors_too() -> None:
    # team-a-cq: on-demand (its label excluded by the nodeSelector) and spot (its taint not tolerated)
    selector = "nodeSelector: {cloud.example.com/capacity: spot}"
    code, findings, _ = lint_all("-", "--nodes", str(CASE / "cluster.yaml"), *NODES,
                                 stdin=job("team-a", "a-queue", selector))
    never = [f for f in findings if f["rule"] == "kueue-never-fits"]
    assert len(never) == 1 and code == 1
    assert never[0]["message"].endswith(
        "pod set main: flavor on-demand doesn't match node affinity; untolerated taint "
        "{cloud.example.com/spot true NoSchedule <nil>} in flavor spot")
    assert "fits" not in rules_of(findings, "report")


def test_a_flavor_that_takes_it_is_no_never_fits() -> None:
    selector = "nodeSelector: {cloud.example.com/capacity: on-demand}"
    _, findings, _ = lint_all("-", "--nodes", str(CASE / "cluster.yaml"), *NODES,
                              stdin=job("team-a", "a-queue", selector))
    assert "kueue-never-fits" not in rules_of(findings, "report")


REFUSED_CQ = ('{name: cpu, nominalQuota: "4", lendingLimit: "2"}', '{name: cpu, nominalQuota: "4", lendingLimit: "6"}')


def test_a_refused_kueue_object_is_reported_and_the_rest_checked(tmp_path) -> None:
    cluster = tmp_path / "kueue.yaml"       # team-b-cq lends more than its nominal quota: refused
    cluster.write_text((CASE / "cluster.yaml").read_text().replace(*REFUSED_CQ))
    code, findings, _ = lint_all("-", str(cluster), *NODES, stdin=job(queue="b-queu"))
    # refused by its schema and webhook as lint checks it (`lint.shipped`), once: not again by Kueue's pass
    refused = [f for f in findings if f["rule"] in ("schema", "admission")]
    assert [(f["rule"], f["object"]["kind"], f["object"]["name"]) for f in refused] == [
        ("schema", "ClusterQueue", "team-b-cq")]
    assert "lendingLimit: Invalid value: \"6\": must be less than or equal to the nominalQuota" in refused[0]["message"]
    assert sorted(rules_of(findings, "report")) == ["kueue-held", "kueue-local-queue"] and code == 1


def test_a_refused_kueue_object_of_the_pool_is_a_warning(tmp_path) -> None:
    cluster = tmp_path / "kueue.yaml"
    cluster.write_text((CASE / "cluster.yaml").read_text().replace(*REFUSED_CQ))
    code, findings, report = lint_all("-", "--nodes", str(cluster), *NODES, stdin=job(queue="b-queu"))
    assert sorted(rules_of(findings, "report")) == ["kueue-held", "kueue-local-queue"] and code == 1
    assert any("ClusterQueue team-b-cq" in w and "left out of Kueue's pass" in w for w in report["warnings"])


SELECTED = ("metadata: {name: team-b}", "metadata: {name: team-b, labels: {kueue: enabled}}",
            "namespaceSelector: {}\n  resourceGroups:\n  - coveredResources: [cpu, memory]\n    flavors:\n"
            "    - name: on-demand\n      resources:\n      - {name: cpu, nominalQuota: \"4\"",
            "namespaceSelector: {matchLabels: {kueue: enabled}}\n  resourceGroups:\n  - coveredResources: "
            "[cpu, memory]\n    flavors:\n    - name: on-demand\n      resources:\n      - {name: cpu, "
            "nominalQuota: \"4\"")


@pytest.mark.parametrize("where", ["pool", "set"])
def test_a_namespace_selector_sees_the_namespaces_labels(tmp_path, where) -> None:
    text = (CASE / "cluster.yaml").read_text()
    for old, new in (SELECTED[:2], SELECTED[2:]):
        assert old in text
        text = text.replace(old, new)
    cluster = tmp_path / "kueue.yaml"       # team-b-cq takes the namespaces labelled kueue=enabled: team-b
    cluster.write_text(text)
    given = ["--nodes", str(cluster)] if where == "pool" else [str(cluster)]
    code, findings, _ = lint_all("-", *given, *NODES, stdin=job())
    fits = [f for f in findings if f["rule"] == "fits"]
    assert len(fits) == 1 and fits[0]["details"]["kueue"]["clusterQueue"] == "team-b-cq" and code == 0


def test_a_pod_kueue_holds_is_gated_with_kueues_reason(tmp_path) -> None:
    cluster = tmp_path / "cluster.yaml"       # no ClusterQueue selects team-b: the Workload stays pending
    cluster.write_text((CASE / "cluster.yaml").read_text().replace(
        "namespaceSelector: {}", "namespaceSelector: {matchLabels: {team: none}}"))
    pod = verdicts(str(CASE / "notebook.yaml"), "--nodes", str(cluster), *NODES)["notebook"]
    assert pod["rule"] == "gated" and pod["details"]["kueue"]["verdict"] == "Pending"
    assert pod["message"].startswith("Kueue holds it (Workload team-b/pod-notebook-")
    assert "Workload namespace doesn't match ClusterQueue selector" in pod["message"]
