"""The one interface of an autoscaler answering the pending pods (`kexplain.app.autoscalers`):
both implementations satisfy it and are found by name; a cluster that calls for neither imports
neither; the Cluster Autoscaler's reads the command's one cluster state; their runs join."""
from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from typing import Optional

import pytest

from kexplain.app import autoscalers
from kexplain.app.autoscalers import ADAPTERS, Autoscaler, AutoscalerRun, adapter, run_all
from kexplain.app.cluster_autoscaler import ClusterAutoscaler
from kexplain.app.explain import AutoscalerOptions, autoscalers_of, read_files
from kexplain.app.karpenter import Karpenter
from kexplain.autoscaler.pending import CLUSTER_AUTOSCALER, DOCUMENT_KEY
from kexplain.errors import KexplainError
from kexplain.explain.pending_pass import PassAnswers, PassBuilder, PodAnswer
from kexplain.explain.request import Request
from kexplain.karpenter.inputs import NODEPOOL
from tests.support.paths import FIXTURES, ROOT

CA = FIXTURES / "autoscaler"
KARPENTER = FIXTURES / "karpenter"


def test_each_implementation_is_found_by_its_name_and_is_an_autoscaler():
    assert adapter("cluster-autoscaler").ClusterAutoscaler is ClusterAutoscaler
    assert adapter("karpenter").Karpenter is Karpenter
    assert set(ADAPTERS) == {ClusterAutoscaler.name, Karpenter.name}
    karpenter = Karpenter.of([], None, None)
    assert isinstance(karpenter, Autoscaler)
    ca = adapter("cluster-autoscaler").groups_request(
        adapter("cluster-autoscaler").read_node_groups(str(CA / "nodegroups.yaml"), 10 ** 8), None, 10 ** 8, "strict")
    assert isinstance(ca, Autoscaler)


def test_the_names_it_reads_without_importing_an_autoscaler_are_theirs():
    assert autoscalers.CA_DOCUMENT == DOCUMENT_KEY
    assert autoscalers.NODEPOOL == NODEPOOL


SCRIPT = """
import json, sys
from kexplain.app.autoscalers import has_node_pools, reports_node_groups
from kexplain.load.manifests import load_objects
cluster = load_objects(sys.argv[1:], 10 ** 8, None)
print(json.dumps({"pools": has_node_pools(cluster), "groups": reports_node_groups(cluster),
                  "modules": sorted(m for m in sys.modules if m.startswith(("kexplain.autoscaler", "kexplain.karpenter",
                                                                            "kexplain.app.")))}))
"""


def _asked(*paths: str) -> dict:
    out = subprocess.run([sys.executable, "-c", SCRIPT, *paths], cwd=ROOT, capture_output=True, text=True,
                         timeout=120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_cluster_calling_for_no_autoscaler_imports_none():
    got = _asked(str(FIXTURES / "cluster.yaml"))
    assert (got["pools"], got["groups"]) == (False, False)
    assert got["modules"] == ["kexplain.app.autoscalers"]


def test_nodepools_import_karpenter_and_only_it():
    got = _asked(str(KARPENTER / "cluster.yaml"), str(KARPENTER / "nodepools.yaml"))
    assert got["pools"] is True
    assert "kexplain.app.karpenter" in got["modules"]
    assert "kexplain.app.cluster_autoscaler" not in got["modules"]
    assert not any(m.startswith("kexplain.autoscaler") for m in got["modules"])


def test_karpenters_options_without_nodepools_are_refused():
    with pytest.raises(KexplainError, match="--aws-data is for Karpenter's NodePools"):
        autoscalers.node_pools([], "aws/", None)
    assert autoscalers.node_pools([], None, None) is None


def _files(pod: str, *nodes: str, node_groups: Optional[str] = None):
    req = Request(pod_path=pod, node_paths=tuple(nodes), node_groups=node_groups)
    files = read_files(req, None)
    return req, files


def test_the_cluster_autoscaler_reads_the_commands_one_cluster_state():
    req, files = _files(str(CA / "pod.yaml"), str(CA / "cluster.yaml"), node_groups=str(CA / "nodegroups.yaml"))
    picked = autoscalers_of(req, files, AutoscalerOptions(), say=lambda _: None)
    assert files.loaded.cluster_state is not None
    assert picked.groups.request.state is files.loaded.cluster_state
    assert picked.pools is None and picked.each == [picked.groups]


def test_karpenter_is_picked_for_a_cluster_with_nodepools():
    req, files = _files(str(KARPENTER / "pod.yaml"), str(KARPENTER / "cluster.yaml"), str(KARPENTER / "nodepools.yaml"))
    picked = autoscalers_of(req, files, AutoscalerOptions(node_pool="general"), say=lambda _: None)
    assert picked.groups is None
    assert isinstance(picked.pools, Karpenter) and picked.pools.node_pool == "general"


@dataclass(frozen=True)
class _Answering:
    """An autoscaler answering every pending pod alike (what `run_all` joins)."""

    name: str
    key: str

    def check(self, kube) -> None:
        pass

    def run(self, pp, kube, explained=None) -> AutoscalerRun:
        answers = {p.pod.key: PodAnswer(self.name, p.pod.key, "Answered") for p in pp.pending}
        return AutoscalerRun([PassAnswers(self.name, self.key, {"by": self.name}, answers)], pp)

    def explain_one(self, trace, pp, kube, pod) -> AutoscalerRun:
        return self.run(pp, kube, pod.key)


def test_runs_join_in_order_and_none_runs_without_autoscalers():
    pp = PassBuilder().build()
    assert isinstance(_Answering("a", "x"), Autoscaler)
    assert run_all([], pp, None) is None
    ran = run_all([_Answering(CLUSTER_AUTOSCALER, DOCUMENT_KEY), _Answering("Karpenter", "karpenter")], pp, None)
    assert ran.documents == {DOCUMENT_KEY: {"by": CLUSTER_AUTOSCALER}, "karpenter": {"by": "Karpenter"}}
    assert ran.document == {"by": CLUSTER_AUTOSCALER}
    assert run_all([_Answering("Karpenter", "karpenter")], pp, None).document == {}



def test_a_dump_is_told_by_its_rows_not_by_each_object(monkeypatch):
    """Every explanation asks whether its cluster calls for an autoscaler: a dump's kinds are its
    rows' (150,000 objects not asked one by one), so the dump itself reaches `kinds_of`."""
    from kexplain.apimachinery import columns
    from kexplain.errors import Source
    objs = [({"apiVersion": "v1", "kind": kind, "metadata": {"name": f"o{k}", "resourceVersion": "1"}},
             Source("c.json")) for k, kind in enumerate(("Node", "Pod", "Namespace"))]
    dump = columns.Dump(objs)
    assert columns.rows_of(dump) is not None
    seen: list = []
    kinds_of = autoscalers.kinds_of
    monkeypatch.setattr(autoscalers, "kinds_of", lambda objects: seen.append(objects) or kinds_of(objects))
    assert autoscalers.keeps_cluster(dump) is False
    assert seen and all(objects is dump for objects in seen)


def test_ca_not_counting_a_gated_pod_is_not_said_to_find_no_room() -> None:
    """A pod the cluster still gates (Kueue admitted it, its gate not yet lifted) is not CA's to
    pack: CA and the queue part for that reason, not for room."""
    from kexplain.app.cluster_autoscaler import CLUSTER_AUTOSCALER, with_scheduler
    answer = {"autoscaler": CLUSTER_AUTOSCALER, "outcome": "NotListedAsUnschedulable"}
    [said] = with_scheduler([answer], "Scheduled", "n1")
    why = said["scheduler"]["why"]
    assert not said["scheduler"]["agrees"] and "no room left" not in why
    assert why.startswith("CA's loop does not count it as unschedulable") and why.endswith("places it on n1")
    packed = {"autoscaler": CLUSTER_AUTOSCALER, "outcome": "TriggeredScaleUp"}
    [said] = with_scheduler([packed], "Scheduled", "n1")
    assert "finds no room left for it" in said["scheduler"]["why"]
