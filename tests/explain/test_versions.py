"""One pod under several Kubernetes versions (`kexplain.explain.versions`): the files read once,
each version loading and scheduling them as its own API server and scheduler would, and only
what differs kept.

The central case is a real one (conformance case gates-0148, copied under
tests/data/versions/balanced-allocation with the real schedulers' traces): v1.35.4 picks node-3
and v1.36.3 node-1, because 1.36's BalancedAllocation scores how the pod changes a node's
balance. What kexplain finds different is what differs between the two real traces.
"""
from __future__ import annotations

import json

import pytest

from kexplain.errors import KexplainError
from kexplain.explain.request import Request, RunOptions
from kexplain.explain.versions import PASSES, Run, compare_versions, differences
from kexplain.features import KubeVersion
from tests.support.paths import ROOT

DATA = ROOT / "tests" / "data" / "versions"
BALANCED = DATA / "balanced-allocation"
DECLARED = DATA / "declared-features"
TIE = DATA / "tie"


def request(case, **kw) -> Request:
    return Request(pod_path=str(case / "pod.yaml"), node_paths=(str(case / "cluster.yaml"),), **kw)


def kubes(*minors: str) -> list[KubeVersion]:
    return [KubeVersion(m) for m in minors]


def as_json(changes) -> list[dict]:
    return [c.to_json() for c in changes]


def test_the_chosen_node_and_the_scores_differ_as_between_the_real_schedulers():
    comparison = compare_versions(request(BALANCED), kubes("1.35", "1.36"), RunOptions())
    real = [Run(KubeVersion(m), json.loads((BALANCED / f"expected-v{m}.json").read_text())) for m in ("1.35", "1.36")]
    assert as_json(comparison.changes) == as_json(differences(real))
    changes = {(c.what, c.node, c.plugin): c.values for c in comparison.changes}
    assert changes[("node", None, None)] == {"1.35": "node-3", "1.36": "node-1"}
    balanced = changes[("score", "node-3", "NodeResourcesBalancedAllocation")]
    assert (balanced["1.35"]["weighted"], balanced["1.36"]["weighted"]) == (99, 78)
    assert changes[("score", "node-1", "total")] == {"1.35": 456, "1.36": 452}
    # what did not change is not listed: the verdict, the Filter reasons, NodeResourcesFit's scores
    assert {c.what for c in comparison.changes} == {"node", "score"}
    assert not any(c.plugin == "NodeResourcesFit" for c in comparison.changes)
    assert comparison.to_json()["verdicts"] == {"1.35": {"status": "Scheduled", "node": "node-3"},
                                                "1.36": {"status": "Scheduled", "node": "node-1"}}


def test_no_change_between_versions_that_schedule_alike():
    comparison = compare_versions(request(BALANCED), kubes("1.33", "1.34", "1.35"), RunOptions())
    assert comparison.same and comparison.to_json()["changes"] == []
    assert [r.trace["kubernetesVersion"]["minor"] for r in comparison.runs] == ["1.33", "1.34", "1.35"]


def test_a_plugin_one_version_does_not_run_counts_as_passing_and_adding_nothing():
    # The pod's RestartAllContainers rule is refused by 1.35's API server (its gate is off), so
    # the objects are given as stored: both schedulers see the rule, only 1.36's filters on it.
    comparison = compare_versions(request(DECLARED, stored=True), kubes("1.35", "1.36"), RunOptions())
    [rejected] = [c for c in comparison.changes if c.what == "filter"]
    assert (rejected.node, rejected.plugin) == ("old-kubelet", "NodeDeclaredFeatures")
    assert rejected.values == {"1.35": PASSES, "1.36": {"code": "UnschedulableAndUnresolvable",
                                                         "reasons": ["node(s) didn't match Pod's required features"]}}
    assert next(c for c in comparison.changes if c.what == "node").values == {"1.35": "old-kubelet",
                                                                              "1.36": "new-kubelet"}
    # 1.36 has one feasible node: nothing is scored, every score of 1.35 is a change
    totals = {c.node: c.values for c in comparison.changes if c.what == "score" and c.plugin == "total"}
    assert totals["old-kubelet"]["1.36"] is None and totals["new-kubelet"]["1.36"] is None
    # DynamicResources scores 0 from 1.35 and is no Score plugin before: not a change
    between_34_35 = compare_versions(request(DECLARED, stored=True), kubes("1.34", "1.35"), RunOptions())
    assert not any(c.plugin == "DynamicResources" for c in between_34_35.changes)


def test_a_random_tie_is_a_change():
    comparison = compare_versions(request(TIE), kubes("1.34", "1.35"), RunOptions())
    [tie] = [c for c in comparison.changes if c.what == "tie"]
    assert tie.values == {"1.34": ["twin-a", "twin-b"], "1.35": None}
    assert comparison.to_json()["verdicts"]["1.34"] == {"status": "Scheduled", "node": "twin-a",
                                                        "tiedNodes": ["twin-a", "twin-b"]}


def test_an_input_refused_under_one_version_only_is_a_change(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
                      "- plugins:\n    score:\n      enabled: [{name: DynamicResources, weight: 3}]\n")
    comparison = compare_versions(request(TIE, config_path=str(config)), kubes("1.34", "1.35"), RunOptions())
    refused = comparison.changes[0]
    assert refused.what == "refused" and refused.values["1.35"] is None
    assert 'plugin "DynamicResources" does not extend ScorePlugin plugin' in refused.values["1.34"]
    assert [c.what for c in comparison.changes] == ["refused"]     # nothing else to compare with
    assert comparison.to_json()["verdicts"]["1.35"]["status"] == "Scheduled"


def test_an_input_refused_alike_under_every_version_is_the_error(tmp_path):
    (tmp_path / "pod.yaml").write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: []}\n")
    (tmp_path / "cluster.yaml").write_text((TIE / "cluster.yaml").read_text())
    with pytest.raises(KexplainError, match="spec.containers: Required value"):
        compare_versions(request(tmp_path), kubes("1.35", "1.36"), RunOptions())


def test_a_file_of_several_pods_is_refused(tmp_path):
    pod = (TIE / "pod.yaml").read_text()
    (tmp_path / "pod.yaml").write_text(pod + "---\n" + pod.replace("name: api", "name: api-2"))
    (tmp_path / "cluster.yaml").write_text((TIE / "cluster.yaml").read_text())
    with pytest.raises(KexplainError, match="--compare-versions explains one pod, .* holds 2 Pods or workloads"):
        compare_versions(request(tmp_path), kubes("1.35", "1.36"), RunOptions())


def test_the_files_are_read_once(tmp_path):
    """stdin can be read once: `-` works under every version."""
    import io
    stdin = io.BytesIO((TIE / "pod.yaml").read_bytes())
    req = Request(pod_path="-", node_paths=(str(TIE / "cluster.yaml"),))
    comparison = compare_versions(req, kubes("1.34", "1.35", "1.36"), RunOptions(), stdin)
    assert all(r.trace is not None and r.trace["result"]["status"] == "Scheduled" for r in comparison.runs)
