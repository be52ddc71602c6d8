"""A copy's cycle after the first reads its node-local Filter verdicts by node position and filters
no node again in batches (`framework.search_column`; PodTopologySpread and InterPodAffinity judge the
node-local fits): the trace is the one a cold search writes, node for node."""
from __future__ import annotations

from pathlib import Path

import pytest

from kexplain.explain.inputs import load_inputs
from kexplain.explain.request import Request, RunOptions
from kexplain.explain.run import framework_for
from kexplain.framework.schedule import MIN_FILTER_BATCH, Options, schedule_pod
from tests.support.generated import generated_cluster


SPREAD = """apiVersion: v1
kind: Pod
metadata: {name: spread, namespace: default, labels: {app: spread}}
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: 250m, memory: 256Mi}}}]
  nodeSelector: {pool: general}
  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule,
     labelSelector: {matchLabels: {app: spread}}}
"""


def _framework(tmp_path: Path, role: str):
    paths = generated_cluster(tmp_path, "classic", nodes=300, pods_per_node=6)
    paths["pod-spread"] = tmp_path / "spread.yaml"
    paths["pod-spread"].write_text(SPREAD)
    req = Request(pod_path=str(paths[role]), node_paths=(str(paths["json"]),), run=RunOptions())
    inputs = load_inputs(req)
    return inputs, framework_for(inputs, req)


# A plain pod; one with a hostname spread, whose Filter judges the node-local fits; one too big
# for any node: its search visits every node.
@pytest.mark.parametrize("role", ["pod-plain", "pod-spread", "pod-unschedulable"])
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
        assert sizes == [] < cold_sizes, (start, cold_sizes)       # warm: read by position
        searched = cold["search"]["numNodesSearched"]
        assert searched < 300 if role != "pod-unschedulable" else searched == 300     # the cut, or every node
