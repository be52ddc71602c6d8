"""A tie at the top score, said with the rule that breaks it: kube-scheduler before 1.35 draws
one of the tied nodes at random (selectHost's reservoir sampling), from 1.35 it pops the top of
its ranking heap. Where the search left out nodes that would only tie with the winner, "could
they win?" says so, with that rule, in the terminal, in `--node` and on the page."""
from __future__ import annotations

import pytest

from kexplain.features import KubeVersion
from kexplain.render.html import render_page
from kexplain.render.views import random_ties, search_figures, tie_rule
from tests.support.html_pages import visible_text
from tests.support.render_helpers import section, squeeze, text_of, tied_trace

HEAP = ("the node on top of kube-scheduler {}'s ranking heap (the scored nodes in the order Filter found them "
        "feasible; no random draw)")
DRAWN = "one of the tied nodes drawn at random (kube-scheduler {}'s selectHost: reservoir sampling)"


@pytest.fixture(scope="module", params=["1.34", "1.35", "1.36"])
def tied(request, tmp_path_factory):
    return tied_trace(tmp_path_factory.mktemp("tied"), KubeVersion(request.param))


def rule(trace) -> str:
    release = trace["kubernetesVersion"]["scheduler"]
    return (DRAWN if trace["kubernetesVersion"]["minor"] < "1.35" else HEAP).format(release)


def test_the_rule_follows_the_version(tied):
    assert random_ties(tied) == (tied["kubernetesVersion"]["minor"] in ("1.33", "1.34"))
    assert tie_rule(tied) == rule(tied)
    assert tie_rule({}) == HEAP.format("").replace("kube-scheduler 's", "kube-scheduler's")


def test_the_nodes_left_out_would_only_tie(tied):
    fig = search_figures(tied)
    assert fig.never_examined == 19 and fig.unexamined_feasible == 19 and fig.dropped == "node-101"
    assert fig.best_unexamined_total == fig.winner_total and fig.higher == ()
    rows = " ".join(section(text_of(tied), "The search"))
    assert (f"could they win? only by a tie: scored together with the nodes that were scored, the best of them, "
            f"{fig.best_unexamined}, gets {fig.winner_total}, as much as the winner ({fig.winner}); the tie would go "
            f"to {rule(tied)}") in rows
    assert "could they win? no" not in rows


def test_a_node_never_examined_says_it_would_tie(tied):
    text = " ".join(squeeze(text_of(tied, node="node-110")))
    winner = tied["unexamined"]["winner"]
    assert (f"got {winner['total']}: as much as the winner {winner['node']}, a tie that would go to "
            f"{rule(tied)}.") in text


def test_the_verdict_says_how_the_tie_at_the_top_is_broken(tied):
    text = " ".join(squeeze(text_of(tied)))
    if random_ties(tied):
        assert "picked at random: node-001, node-002" in text
    else:
        assert f"tied with 99 other nodes: the tie goes to {rule(tied)}" in text


def test_the_page_says_it_too(tied):
    text = visible_text(render_page(tied))
    fig = search_figures(tied)
    assert (f"could they win? only by a tie: scored together with the nodes that were scored, the best of them, "
            f"{fig.best_unexamined} , gets {fig.winner_total}, as much as the winner's ({fig.winner_total}); the tie "
            f"would go to {rule(tied)}") in text
    assert f"the tie goes to {rule(tied)}" in text
