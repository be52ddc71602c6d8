"""volcano.details: the tasks' details `--html` asks the session for. Nodes refusing a task alike are one
group, in the nodes' order, with every reason; the best scores only (`SCORES_KEPT`, more when more nodes
tie at the best), `scored` saying of how many nodes; the node chosen."""
from __future__ import annotations

from pathlib import Path

from kexplain.app.volcano import explain
from kexplain.volcano.details import SCORES_KEPT
from tests.render.html.test_volcano_page import GROUP, node, page_of, pod, write


def details(tmp_path: Path, objects: list) -> list[dict]:
    return explain([write(tmp_path, objects)], None, max_bytes=10**8, max_objects=10**5, details=True)["tasks"]


def test_the_best_scores_are_kept_and_how_many_nodes_were_scored(tmp_path: Path) -> None:
    # One task of 1 cpu, 14 nodes of 2 to 15 cpu: every node fits, the emptiest scores best.
    objects = [*(node(f"n{c:02d}", str(c)) for c in range(2, 16)), {**GROUP, "spec": {"minMember": 1}},
               pod("train-0", "1", 1)]
    (task,) = details(tmp_path, objects)
    assert task["scored"] == 14 and task["chosen"] == "n15"
    scores = [s["score"] for s in task["scores"]]
    assert len(scores) == SCORES_KEPT and scores == sorted(scores, reverse=True)
    assert task["scores"][0]["node"] == "n15"
    text, _ = page_of(tmp_path, "--nodes", write(tmp_path, objects))
    assert f"The {SCORES_KEPT} best of the 14 nodes scored" in text


def test_nodes_tied_at_the_best_are_all_kept(tmp_path: Path) -> None:
    objects = [*(node(f"n{i:02d}", "4") for i in range(14)), {**GROUP, "spec": {"minMember": 1}},
               pod("train-0", "1", 1)]
    (task,) = details(tmp_path, objects)
    assert task["scored"] == 14 and len(task["scores"]) == 14
    assert sorted(task["candidates"]) == [f"n{i:02d}" for i in range(14)]
