"""`kexplain cluster`'s report: the cluster read once (`inputs.read`), then each section chosen, in
order, over that one state; a section whose inputs are missing is said in one line and skipped,
never an empty section read as "all clear". The document is `kind: ClusterReport`."""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable, Optional

from kexplain.apimachinery import columns
from kexplain.app.autoscalers import has_node_pools, reports_node_groups
from kexplain.app.cluster.access import refused_line
from kexplain.app.cluster.inputs import ClusterInputs, ClusterRequest, read
from kexplain.app.eviction.request import read_warnings
from kexplain.errors import KexplainError
from kexplain.load.gcpolicy import bulk_load

API_VERSION, KIND = "kexplain/v1", "ClusterReport"


@dataclass(frozen=True)
class Section:
    """A section: its name (`--section NAME`), what it needs of the inputs (None: there; else why
    it is skipped) and its module (`kexplain.app.cluster.NAME`, whose `section(inputs)` is its
    document), imported only when it runs: a cluster without NodePools loads no Karpenter."""

    name: str
    title: str
    missing: Callable[[ClusterInputs], Optional[str]]

    def run(self, inputs: ClusterInputs) -> dict:
        return importlib.import_module(f"kexplain.app.cluster.{self.name}").section(inputs)


def _holds(objects: list, kind: str) -> bool:
    """Whether an object of `objects` is of `kind` (a dump's asked of its rows: no pass over its objects)."""
    rows = columns.rows_of(objects)
    if rows is not None:
        return columns.holds(rows, frozenset({kind}))
    return any(o.get("kind") == kind for o, _ in objects)


def _no_pods(inputs: ClusterInputs) -> Optional[str]:
    if not _holds(inputs.state.objects, "Pod"):
        return "no Pod among the inputs: nothing tells which pods are pending"
    return None


def _no_budgets(inputs: ClusterInputs) -> Optional[str]:
    state = inputs.state
    if _holds(state.objects, "PodDisruptionBudget") or _holds(state.other_kinds, "PodDisruptionBudget"):
        return None
    return "no PodDisruptionBudget among the inputs"


def _no_nodes(inputs: ClusterInputs) -> Optional[str]:
    return None if inputs.state.snapshot.node_infos else "no Node among the inputs: no drain to check"


def _no_nodes_to_evict(inputs: ClusterInputs) -> Optional[str]:
    return None if inputs.state.snapshot.node_infos else "no Node among the inputs: no eviction to foresee"


def _no_node_pools(inputs: ClusterInputs) -> Optional[str]:
    if has_node_pools(inputs.objects):
        return None
    return "no Karpenter NodePool (karpenter.sh/v1) among the inputs"


def _no_kueue(inputs: ClusterInputs) -> Optional[str]:
    objects = inputs.objects
    if _holds(objects, "ClusterQueue") and any(      # (a dump holding none: asked of its rows alone)
            o.get("kind") == "ClusterQueue" and str(o.get("apiVersion") or "").startswith("kueue.x-k8s.io/")
            for o, _ in objects):
        return None
    return "no Kueue ClusterQueue (kueue.x-k8s.io) among the inputs"


NO_NODE_GROUPS = ("no Cluster Autoscaler node group among the inputs (--node-groups FILE, CA's status "
                  "ConfigMap kube-system/cluster-autoscaler-status or Cluster API's objects)")


def _no_node_groups(inputs: ClusterInputs) -> Optional[str]:
    return None if inputs.request.node_groups or reports_node_groups(inputs.objects) else NO_NODE_GROUPS


# The sections, in the order the report runs them (the points 1, 2, 6, 4, 3 for CA then Karpenter, 5).
SECTIONS = (Section("pending", "Pending pods", _no_pods),
            Section("queued", "Queued work", _no_kueue),
            Section("budgets", "Budgets that block everything", _no_budgets),
            Section("drains", "Drains that would block", _no_nodes),
            Section("scaledown", "Nodes the Cluster Autoscaler will not remove", _no_node_groups),
            Section("karpenter", "Nodes Karpenter will not remove", _no_node_pools),
            Section("evictions", "Evictions coming", _no_nodes_to_evict))
NAMES = tuple(s.name for s in SECTIONS)


def chosen(names: tuple[str, ...]) -> list[Section]:
    """The sections `--section` names (every one when none is named), in the report's order."""
    unknown = [n for n in names if n not in NAMES]
    if unknown:
        raise KexplainError(f"--section {unknown[0]}: not a section (one of {', '.join(NAMES)})")
    return [s for s in SECTIONS if not names or s.name in names]


def report(req: ClusterRequest) -> dict:
    """The report's document: the cluster read once, every chosen section over it, the cyclic collector
    paused throughout (`report_of`: between the sections too)."""
    sections = chosen(req.sections)
    with bulk_load():
        return report_of(read(req), sections)


def report_of(inputs: ClusterInputs, sections: list[Section]) -> dict:
    """The report over inputs read already. The sections run with the cyclic collector paused, as the
    read does (`bulk_load`): each makes millions of objects (the autoscalers' states, the scheduler's
    memos) and next to no cycles, and each full collection walked them all again (a quarter of the
    report's CPU at 5,000 nodes, for about 3% more peak memory)."""
    docs = []
    for s in sections:
        why = refused_line(s.name, inputs.refused, bool(inputs.request.node_groups)) or s.missing(inputs)
        if why:
            docs.append({"name": s.name, "title": s.title, "skipped": why})
            continue
        with bulk_load():
            docs.append(s.run(inputs))
    return {"apiVersion": API_VERSION, "kind": KIND, "kubernetesVersion": inputs.state.kube.minor,
            "now": inputs.request.now.isoformat().replace("+00:00", "Z"), "held": held(docs), "sections": docs,
            **read_warnings(inputs.state)}


def held(sections: list[dict]) -> bool:
    """Whether anything is held: a row in any section that ran."""
    return any(s.get("held") for s in sections)


PAGE_ONLY = ("trace",)      # a row's keys only `--html` asks for (`ClusterRequest.html`)


def as_written(doc: dict) -> dict:
    """The document `-o json|yaml` writes: without the rows' keys only the page shows, so that -o
    json is the same with or without --html."""
    sections = [{**s, "rows": [{k: v for k, v in r.items() if k not in PAGE_ONLY} for r in s["rows"]]}
                if any(k in r for r in s.get("rows") or () for k in PAGE_ONLY) else s for s in doc["sections"]]
    return {**doc, "sections": sections}
