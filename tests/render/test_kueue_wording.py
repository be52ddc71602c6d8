"""What `kexplain kueue` says beyond Kueue's own words, said so it cannot be misread: the table's
names as wide as the console allows, a flavor preemption could not open, borrowing under a
borrowingLimit of 0, a never-tried Workload that could never be admitted, a fix other Workloads
would take first, and the cluster's stored verdict against kexplain's."""
from __future__ import annotations

import io
import json

from kexplain.cli.app import main
from kexplain.render.consoles import text_console
from kexplain.render.kueue import _quota_lines, print_pass
from kexplain.render.kueue_chain import live_lines
from tests.support import kueue_scenes
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES

NOW = "2026-01-01T01:00:00Z"


def kueue(*args: str, width: int = 100) -> tuple[int, str]:
    env = TestEnvironment(width=width)
    code = main(["kueue", *args, "--now", NOW], env)
    return code, env.out


def flat(text: str) -> str:
    return " ".join(text.split())


def _table(doc: dict, width: int) -> list[str]:
    buf = io.StringIO()
    print_pass(doc, text_console(buf, width=width, force_terminal=False))
    lines = buf.getvalue().splitlines()
    start = lines.index("Workloads")
    return lines[start:start + 6]


LONG = "job-a-really-long-training-job-name-for-the-team-0e6ad"
DOC = {"kueueVersion": "v0.17.8", "cycles": 1, "jobs": [], "workloads": [
    {"namespace": "ml", "name": LONG, "queueName": "ml-q", "priority": 0, "quotaReserved": False,
     "conditions": [{"type": "QuotaReserved", "status": "False", "reason": "Pending"}]},
    {"namespace": "team-a", "name": "job-nightly-3f2c1", "queueName": "a-queue", "priority": 100,
     "quotaReserved": True, "inputAdmitted": True, "clusterQueue": "team-a-cq",
     "podSetAssignments": [{"flavors": {"cpu": "on-demand", "memory": "on-demand"}}]}]}


def test_the_workloads_table_keeps_names_whole_when_the_console_is_wide_enough() -> None:
    wide = _table(DOC, 160)
    assert any(f"ml/{LONG}" in line for line in wide)
    assert all(len(line) <= 160 for line in wide)
    narrow = _table(DOC, 60)
    assert not any(f"ml/{LONG}" in line for line in narrow)         # folded, nothing lost
    assert "".join(line.split()[0] for line in narrow[3:] if line and not line.startswith(" ")).startswith("ml/job")
    assert all(len(line) <= 60 for line in narrow)


def test_a_flavor_preemption_could_not_open_is_not_said_to_fit() -> None:
    kueue_dir = FIXTURES / "kueue"
    _, out = kueue(str(kueue_dir / "train.yaml"), "--nodes", str(kueue_dir / "cluster.yaml"))
    said = flat(out)
    assert "flavor on-demand: would fit only after preemption; the search went on (preemption could not make " \
           "room)" in said
    assert "fits after preemption; the search went on" not in said
    assert "would borrow from the cohort (level 1)" in said           # 4 more needed: it does not borrow yet


def test_borrowing_under_a_borrowing_limit_of_zero() -> None:
    q = {"resource": "cpu", "request": "4", "nominal": "4", "used": "2", "available": "2", "maxCapacity": "4",
         "borrowingLimit": "0", "borrowingLevel": 1, "preemptionMode": "preempt"}
    said = [text for _, text in _quota_lines(q)]
    assert "goes past its nominal quota: it cannot borrow from the cohort (borrowingLimit 0)" in said
    assert not any(text.startswith("borrows from the cohort") for text in said)
    fits = {**q, "borrowingLimit": "2", "used": "2", "available": "4", "maxCapacity": "6", "preemptionMode": "fit"}
    assert "borrows from the cohort (level 1)" in [text for _, text in _quota_lines(fits)]


def test_a_never_tried_workload_that_can_never_be_admitted_says_so(tmp_path) -> None:
    cluster = kueue_scenes.cluster(tmp_path, strategy="StrictFIFO")
    code, out = kueue(kueue_scenes.jobs(tmp_path, "jobs.yaml", 3, 5, 1), "--nodes", cluster)
    said = flat(out)
    assert code == 1
    assert "Why ml/job-job-1-" in said and "is pending, never tried: other Workloads are ahead of it in its queue; " \
        "and it can never be admitted" in said
    assert "no flavor of ClusterQueue ml-cq can take pod set main" in said
    assert "cpu: wants 10; nominal 4, used 0, available 4, at most 4 6 more than it could ever have" in said
    doc = json.loads(kueue(kueue_scenes.jobs(tmp_path, "jobs.yaml", 3, 5, 1), "--nodes", cluster, "-o", "json")[1])
    never = {w["workload"].split("-")[2]: w.get("neverAdmitted") for w in doc["explanation"]["workloads"]}
    assert never["1"]["podSet"] == "main" and never["1"]["trials"][0]["quotas"][0]["overCapacity"] == "6"
    assert never["2"] is None           # never tried, but it fits once its turn comes
    assert never["0"] is None           # tried: its trials say it


def test_a_fix_others_would_take_first_is_said(tmp_path) -> None:
    cluster = kueue_scenes.cluster(tmp_path)
    jobs = kueue_scenes.jobs(tmp_path, "jobs.yaml", 3, 3)
    _, out = kueue(jobs, "--nodes", cluster)
    said = flat(out)
    assert "Not enough alone (verified: Kueue admits other Workloads first)" in said
    second = next(w for w in said.split() if w.startswith("ml/job-job-1-")).rstrip(":")
    first = next(w for w in said.split() if w.startswith("ml/job-job-0-")).rstrip(":")
    assert (f"- {second}: Raise ClusterQueue ml-cq's nominalQuota of cpu in flavor a100 from 4 to 6 admits {first} "
            f"first; {second} would still wait behind it") in said
    doc = json.loads(kueue(jobs, "--nodes", cluster, "-o", "json")[1])
    assert [(w["workload"], w["verified"]["waitsBehind"]) for w in doc["suggestionsWaiting"]] == [(second, [first])]
    alone = json.loads(kueue(kueue_scenes.jobs(tmp_path, "one.yaml", 3), "--nodes", cluster, "-o", "json")[1])
    assert "suggestionsWaiting" not in alone


def _answer(verdict: str, stored: str) -> dict:
    return {"verdict": verdict, "clusterQueue": "ml-cq", "live": {
        "workload": "ml/job-a", "conditions": [{"type": "QuotaReserved", "status": stored, "reason": "Pending"}]}}


def test_kexplains_admission_against_a_stored_quota_reserved_false_is_a_disagreement() -> None:
    said = [text for _, text in live_lines(_answer("Admitted", "False"))]
    assert any(text.startswith("Disagreement: kexplain's pass admits it in ClusterQueue ml-cq, but the cluster's "
                               "Workload has QuotaReserved=False (Pending)") for text in said)
    assert any(text.startswith("Disagreement: kexplain's pass does not admit it")
               for _, text in live_lines(_answer("Pending", "True")))
    assert not any("Disagreement" in text for _, text in live_lines(_answer("Pending", "False")))
    assert not any("Disagreement" in text for _, text in live_lines(_answer("Admitted", "True")))


def test_an_admitted_jobs_sentence_names_what_kueue_sets() -> None:
    from kexplain.render.kueue_chain import summary
    answer = {"kueueVersion": "v0.17.8 (x)", "object": {"kind": "Job", "namespace": "ml", "name": "a"},
              "queueName": "ml-q", "workload": "ml/job-a", "verdict": "Admitted", "clusterQueue": "ml-cq",
              "podSets": [{"name": "main", "count": 2, "flavors": ["a100"],
                           "nodeSelector": {"gpu.example.com/model": "a100"}}]}
    assert summary(answer).endswith("its pods as Kueue sets them: Pod set main: 2 pods, flavor a100; "
                                    "nodeSelector gpu.example.com/model=a100")


LENDER = """---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: other-cq}
spec:
  cohortName: c
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: a100
      resources:
      - {name: cpu, nominalQuota: "8"}
"""


def test_a_queue_that_may_not_borrow_is_not_said_to_borrow(tmp_path) -> None:
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(kueue_scenes.CLUSTER.replace('{name: cpu, nominalQuota: "4"}',
                                                    '{name: cpu, nominalQuota: "4", borrowingLimit: "0"}')
                       .replace("  namespaceSelector: {}\n", "  namespaceSelector: {}\n  cohortName: c\n")
                       % {"label": "a100", "strategy": "BestEffortFIFO"} + LENDER)
    _, out = kueue(kueue_scenes.jobs(tmp_path, "jobs.yaml", 1, 2), "--nodes", str(cluster))
    said = flat(out)
    assert "cpu: wants 4; nominal 4, used 2, available 2, at most 4; borrowingLimit 0 2 more needed goes past its " \
           "nominal quota: it cannot borrow from the cohort (borrowingLimit 0)" in said
    assert "borrows from the cohort" not in said


def test_a_held_jobs_template_is_said_to_be_explained_where_it_is() -> None:
    """Quota reserved: on the reserved flavors' nodes, or without them when Kueue could not merge them
    (`reservedError`); not admitted: without a flavor."""
    from kexplain.render.kueue_chain import template_words
    reserved = {"verdict": "QuotaReserved", "reservedPodSets": [{"name": "main"}]}
    assert template_words(reserved).startswith("explained on the reserved flavors' nodes")
    broken = {"verdict": "QuotaReserved", "reservedError": "conflict for key=gpu"}
    assert template_words(broken) == ("explained without the reserved flavors' node labels and tolerations (Kueue "
                                      "could not set them when its checks pass: conflict for key=gpu)")
    assert template_words({"verdict": "Pending"}) == "explained without a flavor"
