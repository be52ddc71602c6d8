"""A search whose first batch's verdicts all came from the node memo (a copy's cycle after the first)
filters the rest of the nodes as one batch: the trace is the one a cold search writes, node for node."""
from __future__ import annotations

from pathlib import Path

import pytest

from kexplain.explain.inputs import load_inputs
from kexplain.explain.request import Request, RunOptions
from kexplain.explain.run import framework_for
from kexplain.framework.schedule import MIN_FILTER_BATCH, Options, schedule_pod
from tests.support.generated import generated_cluster


def _framework(tmp_path: Path, role: str):
    paths = generated_cluster(tmp_path, "classic", nodes=300, pods_per_node=6)
    req = Request(pod_path=str(paths[role]), node_paths=(str(paths["json"]),), run=RunOptions())
    inputs = load_inputs(req)
    return inputs, framework_for(inputs, req)


# A plain pod; one with required anti-affinity and zone spread, whose Filters read their PreFilter
# state only (`Plugin.filter_from_state`): they run on every node of the warm batch.
@pytest.mark.parametrize("role", ["pod-plain", "pod"])
def test_a_warm_search_traces_what_a_cold_one_does(tmp_path: Path, role: str) -> None:
    for start in (0, 17, 299):
        inputs, fw = _framework(tmp_path / str(start), role)     # (a new snapshot: its node memo empty)
        sizes: list[int] = []
        run = fw.run_filter_nodes

        def spy(state, pod, nodes, every=False):
            sizes.append(len(nodes))
            return run(state, pod, nodes, every)

        fw.run_filter_nodes = spy
        options = Options(start_index=start, filter_all=False)
        cold = schedule_pod(fw, inputs.pod, options).to_json()
        cold_sizes = list(sizes)
        sizes.clear()
        warm = schedule_pod(fw, inputs.pod, options).to_json()
        assert warm == cold, start
        to_find = cold["search"]["numFeasibleNodesToFind"]
        assert max(cold_sizes) <= max(MIN_FILTER_BATCH, to_find + 1), (start, cold_sizes)   # cold: as needed
        assert len(sizes) == 2 and sizes[1] == 300 - sizes[0], (start, sizes)    # warm: the rest at once
        assert cold["search"]["numNodesSearched"] < 300      # the cut, not the batch, ends the search
