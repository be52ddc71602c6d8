"""A pod group in the chain from Kueue to the node (`kexplain PODS --nodes CLUSTER`, lint, the page):
one Workload for the group's pods, each pod started with its own role's pod set (the flavor's node
labels and tolerations) or held gated; the group's answer in full once, the other pods Kueue's
message; an incomplete group said, never all clear."""
from __future__ import annotations

import json
from pathlib import Path

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment, run_cli
from tests.support.paths import FIXTURES

CASE = FIXTURES / "kueue"
CLUSTER = ["--nodes", str(CASE / "cluster.yaml"), "--nodes", str(CASE / "nodes.yaml")]
ON_DEMAND = {"cloud.example.com/capacity": "on-demand"}
SPOT = {"cloud.example.com/capacity": "spot"}


kexplain = run_cli


def answers(*args: str) -> tuple[int, dict[str, dict], dict]:
    code, out, err = kexplain(*args, *CLUSTER, "-o", "json")
    assert code in (0, 1), err
    doc = json.loads(out)
    return code, {p["kueue"]["object"]["name"]: p["kueue"] for p in doc["placements"]}, doc


def two_flavors(tmp_path: Path) -> Path:
    """ray-group.yaml in team-a: the head (2 cpu) fits on-demand; the workers (3 cpu each, tolerating
    the spot taint: another role) only on spot."""
    parts = (CASE / "ray-group.yaml").read_text().replace("team-b", "team-a").replace("b-queue", "a-queue") \
        .split("---\n")
    parts[0] = parts[0].replace('cpu: "1"', 'cpu: "2"')
    for i in (1, 2):
        parts[i] = parts[i].replace('cpu: "1"', 'cpu: "3"').replace(
            "  containers:", "  tolerations: [{key: cloud.example.com/spot, operator: Exists}]\n  containers:")
    path = tmp_path / "group.yaml"
    path.write_text("---\n".join(parts))
    return path


def test_an_admitted_group_is_one_workload_and_its_pods_go_to_the_scheduler() -> None:
    code, got, doc = answers(str(CASE / "ray-group.yaml"))
    assert code == 0 and set(got) == {"ray-demo-head", "ray-demo-worker-0", "ray-demo-worker-1"}
    assert {a["workload"] for a in got.values()} == {"team-b/ray-demo"}
    assert {a["verdict"] for a in got.values()} == {"Admitted"}
    group = got["ray-demo-head"]["podGroup"]
    assert group == {"name": "ray-demo", "namespace": "team-b", "totalCount": "3",
                     "pods": ["ray-demo-head", "ray-demo-worker-0", "ray-demo-worker-1"]}
    assert got["ray-demo-worker-0"]["podSet"] == got["ray-demo-worker-1"]["podSet"] != got["ray-demo-head"]["podSet"]
    for trace in doc["items"]:        # ungated, only where the flavor's node label is
        assert trace["result"]["status"] == "Scheduled"
        assert trace["filterAll"]["spot-1"]["NodeAffinity"]["code"] == "UnschedulableAndUnresolvable"


def test_each_pod_gets_its_own_roles_flavor(tmp_path: Path) -> None:
    code, got, doc = answers(str(two_flavors(tmp_path)))
    assert code == 0
    flavors = {name: [ps for ps in a["podSets"] if ps["name"] == a["podSet"]][0] for name, a in got.items()}
    assert flavors["ray-demo-head"]["nodeSelector"] == ON_DEMAND
    assert flavors["ray-demo-worker-0"]["nodeSelector"] == flavors["ray-demo-worker-1"]["nodeSelector"] == SPOT
    nodes = {t["pod"]["name"]: t["result"].get("suggestedHost") for t in doc["items"]}
    assert nodes["ray-demo-head"] in ("od-1", "od-2")
    assert nodes["ray-demo-worker-0"] == nodes["ray-demo-worker-1"] == "spot-1"
    _, text, _ = kexplain(str(two_flavors(tmp_path)), *CLUSTER)
    assert "(pod group ray-demo, Pod team-a/ray-demo-worker-0): Workload team-a/ray-demo is admitted" \
        in " ".join(text.split())


def test_a_held_group_is_answered_in_full_once(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text((CASE / "ray-group.yaml").read_text().replace('cpu: "1"', 'cpu: "3"'))
    code, got, _ = answers(str(path))
    assert code == 1 and {a["verdict"] for a in got.values()} == {"Pending"}
    assert "explanation" in got["ray-demo-head"] and "suggestions" in got["ray-demo-head"]
    for other in ("ray-demo-worker-0", "ray-demo-worker-1"):
        assert "explanation" not in got[other] and "suggestions" not in got[other]
        assert got[other]["message"] == got["ray-demo-head"]["message"]
    _, text, _ = kexplain(str(path), *CLUSTER)
    assert text.count("Why team-b/ray-demo is pending") == 1
    assert " ".join(text.split()).count("Workload team-b/ray-demo is not admitted; the Pod keeps its scheduling "
                                        "gate") == 3


def test_an_incomplete_group_is_said_and_its_pods_stay_gated() -> None:
    code, got, doc = answers(str(CASE / "ray-group-short.yaml"))
    assert code == 1
    assert {a["verdict"] for a in got.values()} == {"NotCreated"}
    assert {a["error"] for a in got.values()} == {"'ray-demo' group has fewer runnable pods than expected"}
    assert {t["result"]["status"] for t in doc["items"]} == {"Gated"}
    _, text, _ = kexplain(str(CASE / "ray-group-short.yaml"), *CLUSTER)
    assert "no Workload for pod group team-b/ray-demo (3 pod(s), total count 4): 'ray-demo' group has fewer " \
           "runnable pods than expected; the Pod keeps its scheduling gate" in " ".join(text.split())


def test_lint_says_an_incomplete_group_and_schedules_a_whole_one() -> None:
    env = TestEnvironment(width=200)
    main(["lint", str(CASE / "ray-group-short.yaml"), *CLUSTER, "-o", "json"], env)
    findings = [f for f in json.loads(env.out)["findings"] if f["object"]["name"].startswith("ray-demo")]
    assert len(findings) == 3 and {f["rule"] for f in findings} == {"gated"}
    assert all("group has fewer runnable pods than expected" in f["message"] for f in findings)
    env = TestEnvironment(width=200)
    main(["lint", str(CASE / "ray-group.yaml"), *CLUSTER, "-o", "json"], env)
    findings = [f for f in json.loads(env.out)["findings"] if f["object"]["name"].startswith("ray-demo")]
    assert {f["rule"] for f in findings} == {"fits"}
    assert {f["details"]["kueue"]["workload"] for f in findings} == {"team-b/ray-demo"}


def test_the_page_answers_the_group_once(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text((CASE / "ray-group.yaml").read_text().replace('cpu: "1"', 'cpu: "3"'))
    page = tmp_path / "page.html"
    code, _, err = kexplain(str(path), *CLUSTER, "--html", str(page))
    assert code == 1, err
    html = page.read_text()
    assert html.count("Kueue: pod group team-b/ray-demo") == 1
