"""The human views name the Kubernetes version followed (and the feature gates changed from its
defaults), and before 1.35, where a tie among the top-scored nodes is broken at random, they
say so instead of naming one winner."""
from __future__ import annotations

import re

import pytest

from kexplain.cli.app import main
from kexplain.features import DEFAULT_MINOR, RELEASES
from kexplain.render.live import summary
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import ROOT
from tests.support.render_helpers import squeeze, table_rows

TIE = ROOT / "tests" / "data" / "versions" / "tie"     # twin-a and twin-b score alike
ARGS = [str(TIE / "pod.yaml"), "--nodes", str(TIE / "cluster.yaml"), "--no-suggestions"]


@pytest.fixture(autouse=True)
def no_version_from_the_environment(monkeypatch):
    monkeypatch.delenv("KEXPLAIN_KUBERNETES_VERSION", raising=False)


def kexplain(*args: str) -> tuple[int, str, str]:
    env = TestEnvironment()
    code = main(list(args), env=env)
    return code, env.out, env.err


def test_the_heading_names_the_default_version():
    code, out, _ = kexplain(*ARGS)
    assert code == 0
    assert squeeze(out)[:2] == ["Pod default/api (profile default-scheduler): Scheduled",
                                f"Kubernetes {DEFAULT_MINOR} (kube-scheduler {RELEASES[DEFAULT_MINOR]})"]


def test_the_heading_names_the_version_and_the_gates_changed():
    _, out, _ = kexplain(*ARGS, "--kubernetes-version", "v1.36.1", "--feature-gates",
                         "DRADeviceTaints=false,DRAConsumableCapacity=false")
    assert " ".join(out.split("\n\n")[0].splitlines()[1:3]).startswith(
        "Kubernetes 1.36 (kube-scheduler v1.36.3, feature gates DRAConsumableCapacity=false,DRADeviceTaints=false)")


def test_the_node_view_names_the_version_too():
    _, out, _ = kexplain(*ARGS, "--kubernetes-version", "1.33", "--node", "small")
    assert squeeze(out)[1] == "Kubernetes 1.33 (kube-scheduler v1.33.3)"


@pytest.mark.parametrize("minor", ["1.33", "1.34"])
def test_a_random_tie_names_no_winner(minor):
    _, out, _ = kexplain(*ARGS, "--kubernetes-version", minor)
    text = " ".join(squeeze(out))
    assert ("Would be bound to one of the 2 nodes tied at the top (score 474, best of 3 scored nodes), picked at "
            "random: twin-a, twin-b") in text
    rows = table_rows(out, "Feasible nodes, best first")
    assert [r.split()[:2] for r in rows[3:6]] == [["1*", "twin-a"], ["2*", "twin-b"], ["3", "small"]]
    assert "* = the nodes tied at the top: the scheduler picks one of them at random" in text
    assert "the node the scheduler picks" not in text
    _, out, _ = kexplain(*ARGS, "--kubernetes-version", minor, "--node", "twin-b")
    assert (f"score 474 - tied at the top: the tie goes to one of the tied nodes drawn at random (kube-scheduler "
            f"{RELEASES[minor]}'s selectHost: reservoir sampling).") in " ".join(squeeze(out))


@pytest.mark.parametrize("minor", ["1.35", "1.36"])
def test_a_tie_broken_by_the_heap_names_the_pick(minor):
    _, out, _ = kexplain(*ARGS, "--kubernetes-version", minor)
    text = " ".join(squeeze(out))
    assert re.search(r"Would be bound to twin-a \(score \d+, best of 3 scored nodes\); tied with twin-b: the tie "
                     rf"goes to the node on top of kube-scheduler {RELEASES[minor]}'s ranking heap \(the scored nodes "
                     r"in the order Filter found them feasible; no random draw\)", text)
    rows = table_rows(out, "Feasible nodes, best first")
    assert [r.split()[:2] for r in rows[3:6]] == [["1*", "twin-a"], ["2", "twin-b"], ["3", "small"]]


def test_the_pending_list_names_no_winner_of_a_random_tie():
    import json
    env = TestEnvironment()
    main([*ARGS, "--kubernetes-version", "1.34", "-o", "json"], env=env)
    trace = json.loads(env.out)
    assert trace["tieBreak"] == "random"
    assert summary(trace)[3] == "fits now: would be bound to one of twin-a, twin-b, picked at random"


@pytest.mark.parametrize("minor", ["1.33", "1.34"])
def test_copies_placed_after_a_random_tie_are_said_to_be_one_possible_outcome(minor):
    _, out, _ = kexplain(*ARGS, "--replicas", "3", "--kubernetes-version", minor)
    text = " ".join(squeeze(out))
    assert ("of these copies went to one of several nodes tied at the top, which this version's scheduler picks "
            "among at random: from api-0 on, where the copies go is one possible outcome.") in text
    _, out, _ = kexplain(*ARGS, "--replicas", "3", "--kubernetes-version", "1.35")
    assert "picks among at random" not in out


def test_each_copy_s_summary_counts_the_nodes_a_random_pick_was_among():
    _, out, _ = kexplain(*ARGS, "--replicas", "3", "--kubernetes-version", "1.34", "-o", "json")
    import json
    [placement] = json.loads(out)["placements"]
    assert placement["pods"][0]["summary"]["randomPickAmong"] == 2
    _, out, _ = kexplain(*ARGS, "--replicas", "3", "--kubernetes-version", "1.35", "-o", "json")
    assert all("randomPickAmong" not in p["summary"] for p in json.loads(out)["placements"][0]["pods"])
