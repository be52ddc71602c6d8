"""The line a live pod still gated by TAS gets (`render.kueue_chain.ungated_lines`): the domain Kueue's
topology ungater gives it, by its rank's index label or in order; nothing for any other answer."""
from __future__ import annotations

from kexplain.render.kueue_chain import ungated_lines

RACK = {"cloud.example.com/topology-rack": "b1-r2"}


def test_by_rank_the_index_label_is_named() -> None:
    given = {"podSet": "main", "nodeSelector": RACK, "by": "rank", "indexLabel": "batch.kubernetes.io/job-completion-index"}
    assert ungated_lines({"topologyUngated": given}) == [(1, (
        "Kueue's topology ungater gives this pod domain cloud.example.com/topology-rack=b1-r2 by its rank "
        "(batch.kubernetes.io/job-completion-index); explained ungated there (the cluster's pod is still gated)"))]


def test_in_order_said_greedily_and_no_line_without_it() -> None:
    [(_, line)] = ungated_lines({"topologyUngated": {"podSet": "main", "nodeSelector": RACK, "by": "order"}})
    assert "domain cloud.example.com/topology-rack=b1-r2 in order (greedily);" in line
    assert ungated_lines({"verdict": "Admitted"}) == []
