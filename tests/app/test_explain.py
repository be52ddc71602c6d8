"""The wiring of `kexplain POD` below the command line (`kexplain.app.explain`): one pod left
pending gets CA's answer over its pass (and CA's suggestions replace add-node); one that fits
gets no autoscaler key; a batch's autoscalers run once over the gathered pass."""
from __future__ import annotations

from kexplain.app.explain import (AutoscalerOptions, Autoscalers, BatchPass, autoscalers_of, batch_of, explain_single,
                                  read_files, run_options)
from kexplain.explain.request import Request
from kexplain.suggest.add_node import ADD_NODE
from tests.support.paths import FIXTURES

CA = FIXTURES / "autoscaler"
POD = (CA / "pod.yaml").read_text()     # needs 3 CPUs: no node has them free


def _single(tmp_path, text: str, **opts):
    path = tmp_path / "pod.yaml"
    path.write_text(text)
    req = Request(pod_path=str(path), node_paths=(str(CA / "cluster.yaml"),), node_groups=str(CA / "nodegroups.yaml"))
    files = read_files(req, None)
    options = AutoscalerOptions(**opts)
    return explain_single(files, run_options(False, None), True, autoscalers_of(req, files, options, print),
                          options)


def test_a_pending_pod_gets_the_cluster_autoscalers_answer(tmp_path):
    done = _single(tmp_path, POD)
    assert done.trace["result"]["status"] == "Unschedulable"
    assert done.trace["autoscaler"]["nodeGroups"]
    assert [a["autoscaler"] for a in done.trace["autoscalers"]] == ["ClusterAutoscaler"]
    assert done.trace["suggestions"] and all(s.get("kind") != ADD_NODE for s in done.trace["suggestions"])


def test_a_pod_that_fits_gets_no_autoscaler_key(tmp_path):
    done = _single(tmp_path, POD.replace('cpu: "3"', "cpu: 100m"))
    assert done.trace["result"]["status"] == "Scheduled"
    assert "autoscaler" not in done.trace and "autoscalers" not in done.trace


def test_a_batch_without_autoscalers_gathers_nothing_and_runs_none(tmp_path):
    path = tmp_path / "two.yaml"
    path.write_text(POD + "\n---\n" + POD.replace("name: ", "name: second-", 1))
    req = Request(pod_path=str(path), node_paths=(str(FIXTURES / "cluster.yaml"),))
    files = read_files(req, None)
    assert files.loaded.single is None
    gathered = BatchPass(files.loaded, Autoscalers(), AutoscalerOptions())
    batch = batch_of(files.loaded, run_options(False, None), False, Autoscalers(), stored=False,
                     refused=lambda *_: None)
    for outcome in batch:
        gathered.add(outcome)
    assert not gathered.active and gathered.run(batch) is None
