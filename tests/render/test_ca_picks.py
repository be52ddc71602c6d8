"""An expander tie whose draw decides a pod's answer (issue 37, item 4): CA draws one of the tied
options at random, so a pod's outcome that depends on the draw is never shown as settled. The
document says what each draw gives (`expansion.randomPick.picks`, and `byPick` on each pod whose
answer depends on it), and the terminal, `kexplain autoscale`, the pod's answers in `-o json`
and the page say it.

On fixtures/autoscaler/gke: least-waste ties default-pool's three MIGs (one per zone). shop/web
(2 CPUs anywhere) triggers a scale-up whichever MIG CA draws; shop/checkout (2 CPUs in zone b)
only when CA draws zone b's MIG, which takes both pods (else it awaits the next loop). Each
other draw is the rest of the scale-up from the draw on, apart from the one followed."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES

GKE = FIXTURES / "autoscaler" / "gke"
MIG = "https://www.googleapis.com/compute/v1/projects/shop-prod/zones/{}/instanceGroups/gke-prod-{}-grp"
A, B, C = (MIG.format("us-central1-a", "default-pool-1a2b3c4d"), MIG.format("us-central1-b", "default-pool-5e6f7a8b"),
           MIG.format("us-central1-c", "default-pool-9c0d1e2f"))
DEPENDS = "depends on CA's pick"      # a pod's outcome in a table when the draw decides it
GROUPS = ("--nodes", str(GKE / "cluster.yaml"), "--node-groups", str(GKE / "nodegroups.yaml"))


def run(*args: str) -> str:
    env = TestEnvironment()
    code = main(list(args), env=env)
    assert code in (0, 1), env.err
    return env.out


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The four pods of the GKE fixture in one file: batch, checkout, report, web."""
    path = tmp_path_factory.mktemp("shop") / "pods.yaml"
    path.write_text("\n---\n".join((GKE / f"{p}.yaml").read_text() for p in ("batch", "checkout", "report", "web")))
    return path


def flat(text: str) -> str:
    """`text` on one line, a name broken after a `/` joined again."""
    return " ".join(re.sub(r"/\n\s*", "/", text).split())


def records(doc: dict) -> dict[str, dict]:
    return {f"{p['namespace']}/{p['name']}": p for p in doc["pods"]}


def triggered(group: str, size: str) -> list[dict]:
    return [{"type": "Normal", "reason": "TriggeredScaleUp",
             "message": f"pod triggered scale-up: [{{{group} {size} (max: 5)}}]"}]


def test_the_document_says_what_each_draw_gives(shop: Path):
    doc = json.loads(run("autoscale", str(shop), *GROUPS, "-o", "json"))
    pick = doc["expansion"]["randomPick"]
    assert pick["among"] == [A, B, C] and pick["followed"] == A
    assert [(p["nodeGroup"], [(u["nodeGroup"], u["currentSize"], u["newSize"]) for u in p["scaleUps"]],
             p["podsTriggeredScaleUp"], p["podsAwaitEvaluation"]) for p in pick["picks"]] == [
        (A, [(A, 1, 2)], ["shop/web"], ["shop/checkout"]),
        (B, [(B, 1, 3)], ["shop/checkout", "shop/web"], []),
        (C, [(C, 0, 1)], ["shop/web"], ["shop/checkout"])]
    pods = records(doc)
    checkout = pods["shop/checkout"]
    assert checkout["outcome"] == "AwaitingEvaluation"      # the first draw's, kept as the cases define it
    assert checkout["byPick"] == [{"nodeGroup": A, "outcome": "AwaitingEvaluation", "events": []},
                                  {"nodeGroup": B, "outcome": "TriggeredScaleUp", "events": triggered(B, "1->3")},
                                  {"nodeGroup": C, "outcome": "AwaitingEvaluation", "events": []}]
    assert [p["events"] for p in pods["shop/web"]["byPick"]] == [triggered(A, "1->2"), triggered(B, "1->3"),
                                                                 triggered(C, "0->1")]
    assert "byPick" not in pods["shop/batch"] and "byPick" not in pods["shop/report"]     # alike under every draw
    # the other draws leave the one followed as it was: its sizes, its events
    assert [(g["name"], g["newTargetSize"]) for g in doc["nodeGroups"][:3]] == [(A, 2), (B, 1), (C, 0)]
    assert [e["message"] for e in doc["clusterEvents"]] == [
        f"Scale-up: setting group {A} size to 2 instead of 1 (max: 5)",
        f"Scale-up: group {A} size set to 2 instead of 1 (max: 5)"]


def test_no_tie_no_picks():
    doc = json.loads(run("autoscale", str(GKE / "checkout.yaml"), *GROUPS, "-o", "json"))
    assert "randomPick" not in doc["expansion"] and all("byPick" not in p for p in doc["pods"])


def test_autoscale_says_the_pods_answer_depends_on_the_draw(shop: Path):
    out = run("autoscale", str(shop), *GROUPS)
    text = " ".join(out.split())
    assert "shop/checkout depends on CA's pick if CA picks gke-prod-default-pool-1a2b3c4d-grp or " \
           "gke-prod-default-pool-9c0d1e2f-grp (2 of 3 tied options): AwaitingEvaluation: no event:" in text
    assert "if CA picks gke-prod-default-pool-5e6f7a8b-grp (1 of 3 tied options): TriggeredScaleUp: pod triggered " \
           "scale-up:" in text
    assert "(the same outcome whichever of the 3 tied options CA picks; its event names the scale-up picked)" in text
    assert "The pick decides the answer for shop/checkout, shop/web." in text
    assert not any(line.split()[:2] == ["shop/checkout", "AwaitingEvaluation"] for line in out.splitlines())


def test_explain_says_it_in_the_section_and_in_each_pods_answers(shop: Path):
    out = run(str(shop), *GROUPS, "--no-suggestions")
    section = " ".join(out[out.index("\nCluster autoscaler\n"):].split())
    assert f"shop/checkout {DEPENDS} if CA picks gke-prod-default-pool-1a2b3c4d-grp or" in section
    doc = json.loads(run(str(shop), *GROUPS, "--no-suggestions", "-o", "json"))
    answers = {a["pod"]: a for p in doc["placements"] for a in p["autoscalers"]}
    assert [(p["nodeGroup"], p["outcome"]) for p in answers["shop/checkout"]["byPick"]] == [
        (A, "AwaitingEvaluation"), (B, "TriggeredScaleUp"), (C, "AwaitingEvaluation")]
    assert "byPick" not in answers["shop/batch"]


def test_the_top_line_of_a_pod_whose_answer_the_draw_decides(tmp_path: Path):
    """checkout explained, web pending in the cluster: CA's loop holds both."""
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text((GKE / "cluster.yaml").read_text() + "\n---\n" + (GKE / "web.yaml").read_text())
    args = (str(GKE / "checkout.yaml"), "--nodes", str(cluster), "--node-groups", str(GKE / "nodegroups.yaml"),
            "--no-suggestions")
    out = run(*args)
    top = flat(out.split("\nKubernetes 1.")[0].split("\n", 1)[1])
    assert top == ("Cluster autoscaler: depends on its random pick among 3 tied node groups: if it picks "
                   "gke-prod-default-pool-1a2b3c4d-grp or gke-prod-default-pool-9c0d1e2f-grp (2 of 3), it adds no node "
                   "for it in this loop: a node group could take it, but CA scales up another for other pods and looks "
                   f"again in its next loop; if it picks gke-prod-default-pool-5e6f7a8b-grp (1 of 3), it scales up {B} "
                   "1 -> 3 for it.")
    section = flat(out[out.index("\nCluster autoscaler\n"):])
    assert ("It depends on CA's random pick among the 3 options the expander leaves tied: If CA picks "
            "gke-prod-default-pool-1a2b3c4d-grp or gke-prod-default-pool-9c0d1e2f-grp (2 of 3): No event: a node group "
            "could take it") in section
    assert f"If CA picks gke-prod-default-pool-5e6f7a8b-grp (1 of 3): Event: Normal TriggeredScaleUp: pod triggered " \
           f"scale-up: [{{{B} 1->3 (max: 5)}}]" in section
    trace = json.loads(run(*args, "-o", "json"))
    assert [p["outcome"] for p in trace["autoscalers"][0]["byPick"]] == ["AwaitingEvaluation", "TriggeredScaleUp",
                                                                         "AwaitingEvaluation"]


def test_the_page_says_it(shop: Path, tmp_path: Path):
    page = tmp_path / "page.html"
    run(str(shop), *GROUPS, "--no-suggestions", "--html", str(page))
    html = page.read_text()
    pods = html[html.index('class="ca-pods"'):]
    pods = pods[:pods.index("</table>")]
    assert f"<b>{DEPENDS.replace(chr(39), '&#x27;')}</b>" in pods
    assert pods.count('<span class="ca-line">if CA picks ') == 2


def test_pending_lists_line_says_it_too():
    """`pod --pending`'s list, where CA's packing parts from the scheduler's queue on a pod: the
    outcome in brackets is the pick's, not the first draw's alone."""
    from kexplain.render.queue import scheduler_why
    answer = {"autoscaler": "ClusterAutoscaler", "outcome": "AwaitingEvaluation",
              "byPick": [{"nodeGroup": A, "outcome": "AwaitingEvaluation", "events": []},
                         {"nodeGroup": B, "outcome": "TriggeredScaleUp", "events": triggered(B, "1->3")}],
              "scheduler": {"verdict": "Scheduled", "agrees": False, "why": "CA's loop finds no room left (order)"}}
    assert scheduler_why({"autoscalers": [answer]}) == f"but CA's loop finds no room left ({DEPENDS})"
