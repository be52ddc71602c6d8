"""The state kept across the copies of a pod equals a from-scratch recomputation after every bind.

Copies of a pod are bound one after another, and the indexes cached on a snapshot follow each
bind (`Snapshot.cached(..., on_bind=...)`: the pod index, InterPodAffinity's existing terms,
PodTopologySpread's eligible domains, the lists of nodes with affinity pods) instead of being
rebuilt. On conformance clusters, each copy's PreFilter and PreScore state, and its whole trace
(filterAll, scores, every plugin's facts on every node), computed on the snapshot the copy was
scheduled in, must equal what a snapshot built again from the same objects gives. The same
holds on the benchmark generator's clusters (`generated`), where preferred terms and spread
selectors match label groups many pods share (a tier, a team) and pods come in many shapes.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from kexplain.explain.carryover import Carryover
from kexplain.explain.inputs import load
from kexplain.explain.pod_inputs import Inputs
from kexplain.explain.placement import iter_placements
from kexplain.explain.request import Request, RunOptions
from kexplain.explain.run import explain, framework_for
from kexplain.framework.cycle_state import CycleState
from kexplain.model.pod_index import POD_INDEX_KEY
from kexplain.model.snapshot import Snapshot
from kexplain.plugins import inter_pod_affinity as ipa
from kexplain.plugins import pod_topology_spread as pts
from tests.support.generated import generated_cluster
from tests.support.paths import BUNDLED_CONFORMANCE, conformance_roots

COPIES = 5
FAMILIES = ("sequence", "interpod", "spread")     # state counted over the cluster's pods


def _cases() -> list[Path]:
    """Every bundled case of those families, and every 20th shared one when that set is present."""
    out: list[Path] = []
    for root in conformance_roots():
        step = 1 if root == BUNDLED_CONFORMANCE else 20
        for family in FAMILIES:
            out += sorted(root.glob(f"{family}-*"))[::step]
    return out


CASES = _cases()


def _inputs(case: Path, tmp_path: Path) -> Inputs:
    """The case's pod (a sequence's first pod) against its cluster, as the CLI loads them."""
    pod_file = case / "pod.yaml"
    if not pod_file.exists():
        first = next(d for d in yaml.safe_load_all((case / "pods.yaml").read_text()) if d)
        pod_file = tmp_path / "pod.yaml"
        pod_file.write_text(yaml.safe_dump(first))
    config = case / "scheduler-config.yaml"
    loaded = load(Request(str(pod_file), (str(case / "cluster.yaml"),),
                          config_path=str(config) if config.exists() else None))
    assert loaded.single is not None
    return loaded.single


def _rebuilt(snapshot: Snapshot) -> Snapshot:
    """The same cluster built again from its objects: no index carried from anywhere."""
    nodes = [(ni.node.obj, None) for ni in snapshot.node_infos]
    pods = [p.obj for ni in snapshot.node_infos for p in ni.pods]
    out = Snapshot.build(nodes, pods)       # type: ignore[arg-type]
    assert [ni.name for ni in out.node_infos] == [ni.name for ni in snapshot.node_infos]
    return Snapshot(out.node_infos, snapshot.namespaces, snapshot.objects)


def _facts(value: Any) -> Any:
    """A plugin's state as plain data (what decides Filter and Score)."""
    if isinstance(value, pts.PreFilterState):
        return {"counts": value.tp_value_to_match_num,
                "min": [value.min_match_num(i, c.min_domains) for i, c in enumerate(value.constraints)]}
    if isinstance(value, pts.PreScoreState):
        return {"counts": value.topology_value_to_pod_counts, "ignored": value.ignored_nodes,
                "weights": value.topology_normalizing_weight, "hosts": value.host_counts}
    if isinstance(value, ipa.PreFilterState):
        return {"existing": dict(value.existing_anti_affinity_counts), "affinity": dict(value.affinity_counts),
                "anti": dict(value.anti_affinity_counts)}
    if isinstance(value, ipa.PreScoreState):
        return {k: {v: n for v, n in by.items() if n} for k, by in value.topology_score.items()}
    return value


KEYS = (pts.PRE_FILTER_STATE_KEY, pts.PRE_SCORE_STATE_KEY, ipa.PRE_FILTER_STATE_KEY, ipa.PRE_SCORE_STATE_KEY)


def _states(inputs: Inputs) -> dict[str, Any]:
    """PreFilter over the cluster, then PreScore over every node, of the pod in `inputs`."""
    fw = framework_for(inputs, RunOptions())
    state = CycleState()
    pre = fw.run_pre_filter(state, inputs.pod)
    out: dict[str, Any] = {"preFilter": pre.status.code.value}
    if pre.status.is_success:
        fw.run_pre_score(state, inputs.pod, inputs.snapshot.node_infos)
    out.update({key: _facts(state.get(key)) for key in KEYS})
    return out


def test_every_family_has_cases() -> None:
    """The bundled subset alone covers each family (a clone without ../shared runs these too)."""
    bundled = [c for c in CASES if c.parent == BUNDLED_CONFORMANCE]
    assert {c.name.split("-")[0] for c in bundled} == set(FAMILIES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.parent.parent.name}/{c.name}")
def test_state_after_every_bind_equals_recomputed(case: Path, tmp_path: Path) -> None:
    _check_every_bind(_inputs(case, tmp_path))


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Path]]:
    return {shape: generated_cluster(tmp_path_factory.mktemp(shape), shape) for shape in ("teams", "wide")}


@pytest.mark.parametrize("shape, role", [("teams", "pod"), ("teams", "pod-plain"), ("wide", "pod"),
                                         ("wide", "pod-plain")])
def test_state_after_every_bind_equals_recomputed_on_generated_clusters(
        generated: dict[str, dict[str, Path]], shape: str, role: str) -> None:
    """The pending pods' preferred (anti-)affinity over a tier or a team (hundreds of pods
    here), the existing pods' preferred terms over theirs, spread over a team: every count
    followed through the binds equals a recount."""
    paths = generated[shape]
    loaded = load(Request(str(paths[role]), (str(paths["json"]),)))
    assert loaded.single is not None
    inputs = loaded.single
    tier = [p for ni in inputs.snapshot.node_infos for p in ni.pods if p.labels.get("tier") == "web"]
    assert len(tier) > 50        # the preferred terms' selector matches a large group
    _check_every_bind(inputs)
    states = _states(inputs)
    if role == "pod" or shape == "wide":            # its own terms over the group, or the wide pods' over it
        assert states[ipa.PRE_SCORE_STATE_KEY]
    if role == "pod":
        assert states[ipa.PRE_FILTER_STATE_KEY] and states[pts.PRE_FILTER_STATE_KEY]


def _check_every_bind(inputs: Inputs) -> None:
    placements = list(iter_placements(inputs, RunOptions(), COPIES, carry=Carryover()))
    assert placements
    names = frozenset(ni.name for ni in inputs.snapshot.node_infos)
    full = RunOptions(details=True, explain_nodes=names, unexamined=True)
    for p in placements:
        carried = p.inputs                                       # indexes followed through the binds
        fresh = replace(p.inputs, snapshot=_rebuilt(p.inputs.snapshot))
        assert _states(carried) == _states(fresh), f"copy {p.index}"
        got = explain(carried, full.at(p.start_index)).to_json()
        want = explain(fresh, full.at(p.start_index)).to_json()
        assert got == want, f"copy {p.index}"


def test_indexes_follow_a_bind(tmp_path: Path) -> None:
    """After a bind, the new snapshot starts with the indexes patched, not empty."""
    case = next(c for c in CASES if c.name.startswith("interpod"))
    inputs = _inputs(case, tmp_path)
    placements = list(iter_placements(inputs, RunOptions(), 2, carry=Carryover()))
    if len(placements) < 2 or placements[0].node is None:
        pytest.skip("the first copy does not fit")
    second = placements[1].inputs.snapshot
    assert POD_INDEX_KEY in second._cache
    assert any(str(k[0]).startswith("ipa/") for k in second._cache[POD_INDEX_KEY]._tallies)
    # what the patched pod index counts equals a fresh count
    rebuilt = _rebuilt(second)
    from kexplain.model.pod_index import pod_index
    pod = placements[1].inputs.pod
    for key in pod.labels:
        for ns in {pod.namespace}:
            sel = pts.parse_selector({"matchExpressions": [{"key": key, "operator": "In",
                                                            "values": [pod.labels[key]]}]})
            assert pod_index(second).count_per_node(ns, sel) == pod_index(rebuilt).count_per_node(ns, sel)
