"""InterPodAffinity's facts per node, gathered once per cycle by topology domain, equal the
facts read straight off the cluster's pods for each node (what `explain` did before)."""
from __future__ import annotations

import copy
import random
from typing import Any

from kexplain.admission.match_label_keys import merge_label_keys
from kexplain.apimachinery.display import format_parsed_selector
from kexplain.framework.cycle_state import CycleState
from kexplain.framework.status import Code
from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.model.pod_index import NO_LABELS
from kexplain.model.snapshot import Snapshot
from kexplain.plugins.inter_pod_affinity import MAX_PODS_NAMED, PRE_FILTER_STATE_KEY, InterPodAffinity, Neighbours

HOST, ZONE, RACK = "kubernetes.io/hostname", "topology.kubernetes.io/zone", "example.com/rack"
NAMESPACES = {ns: {"kubernetes.io/metadata.name": ns, **extra} for ns, extra in
              (("default", {}), ("team-x", {"team": "x"}), ("team-y", {"team": "y"}), ("ops", {"team": "x"}))}


def straightforward(pl: InterPodAffinity, state: CycleState, pod: PodInfo, ni: NodeInfo) -> dict | None:
    """The facts of one node found by looking through every pod of the cluster."""
    s = state.get(PRE_FILTER_STATE_KEY)
    labels, snapshot = ni.node.labels, pl.handle.snapshot
    facts: dict[str, list] = {}
    if s.affinity_terms:
        facts["affinity"] = [{"topologyKey": t.topology_key, "nodeDomain": labels.get(t.topology_key),
                              "matchingPods": s.affinity_counts.get((t.topology_key, labels.get(t.topology_key)), 0)}
                             for t in s.affinity_terms]
    if s.anti_affinity_terms:
        anti = []
        for t in s.anti_affinity_terms:
            value, named = labels.get(t.topology_key), []
            for other in snapshot.node_infos:
                if value is None or other.node.labels.get(t.topology_key) != value:
                    continue
                named += [f"{p.key} (on {other.name})" for p in other.pods if t.matches(p, NO_LABELS)]
            anti.append({"topologyKey": t.topology_key, "nodeDomain": value, "conflictingPods": named[:MAX_PODS_NAMED]})
        facts["antiAffinity"] = anti
    existing = [{"pod": p.key, "node": other.name, "topologyKey": t.topology_key,
                 "selector": format_parsed_selector(t.selector)}
                for other in snapshot.node_infos for p in other.pods for t in p.required_anti_affinity_terms
                if labels.get(t.topology_key) is not None
                and other.node.labels.get(t.topology_key) == labels.get(t.topology_key)
                and t.matches(pod, s.namespace_labels)]
    if existing:
        facts["existingAntiAffinity"] = existing
    return facts or None


def comparable(facts: dict | None) -> dict | None:
    """The facts the straightforward reading gives (the terms' own descriptions left out)."""
    if facts is None:
        return None
    keep = {"affinity": ("topologyKey", "nodeDomain", "matchingPods"),
            "antiAffinity": ("topologyKey", "nodeDomain", "conflictingPods")}
    return {part: [{k: e[k] for k in keep[part]} for e in entries] if part in keep else entries
            for part, entries in facts.items()}


def random_term(rnd: random.Random, pod_labels: dict[str, str]) -> dict[str, Any]:
    t: dict[str, Any] = {"topologyKey": rnd.choice([HOST, ZONE, RACK]),
                         "labelSelector": {"matchLabels": {"app": rnd.choice(["web", "db", "cache"])}}
                         if rnd.random() < 0.8 else {}}
    where = rnd.random()
    if where < 0.25:
        t["namespaces"] = rnd.sample(sorted(NAMESPACES), rnd.randint(1, 2))
    elif where < 0.5:
        t["namespaceSelector"] = {"matchLabels": {"team": "x"}}
    elif where < 0.6:
        t["namespaceSelector"] = {}
    if rnd.random() < 0.4 and "tier" in pod_labels:
        t["matchLabelKeys"] = ["tier"]
    return t


def random_pod(rnd: random.Random, name: str, node: str = "") -> PodInfo:
    labels = {"app": rnd.choice(["web", "db", "cache"]), **({"tier": rnd.choice(["fe", "be"])} if rnd.random() < 0.7 else {})}
    spec: dict[str, Any] = {"containers": [{"name": "c"}]}
    if node:
        spec["nodeName"] = node
    aff: dict[str, Any] = {}
    for kind in ("podAffinity", "podAntiAffinity"):
        if rnd.random() < (0.15 if node else 0.8):
            aff[kind] = {"requiredDuringSchedulingIgnoredDuringExecution":
                         [random_term(rnd, labels) for _ in range(rnd.randint(1, 2))]}
    if aff:
        spec["affinity"] = aff
    obj = {"metadata": {"name": name, "namespace": rnd.choice(sorted(NAMESPACES)), "labels": labels}, "spec": spec}
    merge_label_keys(obj)
    return PodInfo(copy.deepcopy(obj))


def random_cluster(rnd: random.Random) -> Snapshot:
    infos = []
    for i in range(24):
        labels = {HOST: f"n{i}"}
        if i % 7:
            labels[ZONE] = f"z{i % 3}"
        if i % 5:
            labels[RACK] = f"r{i % 4}"
        infos.append(NodeInfo(Node.from_obj({"metadata": {"name": f"n{i}", "labels": labels}})))
    for k in range(240):        # enough pods per domain that MAX_PODS_NAMED cuts the lists short
        ni = rnd.choice(infos)
        ni.add_pod(random_pod(rnd, f"p{k}", ni.name))
    return Snapshot(infos, dict(NAMESPACES))


def test_facts_gathered_by_domain_equal_the_facts_of_a_scan_of_every_pod(monkeypatch):
    """Each node asked on its own clone of the cycle state, as a page records them: the pods
    are gathered once per cycle, and every node's facts are what a scan of every pod says."""
    gathered: list[int] = []
    real = Neighbours.__init__

    def counted(self, snapshot, s):
        gathered.append(1)
        real(self, snapshot, s)
    monkeypatch.setattr(Neighbours, "__init__", counted)
    rnd = random.Random(26)
    compared = {"antiAffinity": 0, "existingAntiAffinity": 0, "cut": 0}
    for trial in range(40):
        snap = random_cluster(rnd)
        pl = InterPodAffinity(None, type("Handle", (), {"snapshot": snap})())
        incoming = random_pod(rnd, "incoming")
        state = CycleState()
        _, status = pl.pre_filter(state, incoming, snap.node_infos)
        if status.code is not Code.SUCCESS:
            continue
        gathered.clear()
        for ni in snap.node_infos:
            got = pl.explain(state.clone(), incoming, ni)
            assert comparable(got) == straightforward(pl, state, incoming, ni), (trial, ni.name)
            for part in ("antiAffinity", "existingAntiAffinity"):
                compared[part] += bool(got and got.get(part))
            compared["cut"] += any(len(e["conflictingPods"]) == MAX_PODS_NAMED for e in (got or {}).get("antiAffinity", ()))
        assert len(gathered) == 1
    assert all(compared.values()), compared     # the cases compared do have each kind of fact
