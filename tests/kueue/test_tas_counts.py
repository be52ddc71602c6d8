"""The counts a TAS flavor's snapshot keeps per request shape (kexplain/kueue/cache/tas_counts.py)
and the usage it carries from cycle to cycle (`begin_cycle`): after random usage changes, new
cycles and placements, each count equals a recount from scratch done here leaf by leaf (`count_in`
against each leaf's remaining capacity), and every placement equals the one a snapshot built
afresh with the same usage finds."""
from __future__ import annotations

import random

import pytest

from kexplain.kueue.apis.topology import TopologyRequest
from kexplain.kueue.cache.tas_counts import ShapeCounts, Tree, from_scratch, group_from_scratch
from kexplain.kueue.cache.tas_snapshot import Exclusions, PodSetRequest, TASFlavorSnapshot, count_in

HOST = "kubernetes.io/hostname"
GPU = "nvidia.com/gpu"
TAINT = {"key": "maintenance", "value": "soon", "effect": "NoSchedule"}
TOLERATE = {"tolerations": [{"key": "maintenance", "operator": "Exists"}]}


def cluster(rng: random.Random, host_level: bool) -> tuple[tuple[str, ...], list[tuple[dict, dict]]]:
    """Uneven blocks, racks and hosts (three levels and the hostname, or three without it), some
    tainted, each with a random free capacity."""
    levels = ("block", "rack", "sub", HOST) if host_level else ("block", "rack", "sub")
    nodes = []
    for b in range(rng.randint(1, 3)):
        for r in range(rng.randint(1, 4)):
            for h in range(rng.randint(1, 6)):
                name = f"n-{b}-{r}-{h}"
                labels = {"block": f"b{b}", "rack": f"b{b}-r{r}", "sub": f"b{b}-r{r}-s{h % 2}", HOST: name}
                taints = [TAINT] if rng.random() < 0.15 else []
                node = {"metadata": {"name": name, "labels": labels}, "spec": {"taints": taints}}
                nodes.append((node, {"cpu": rng.choice([0, 2000, 8000, 16000]), GPU: rng.randint(0, 8),
                                     "pods": rng.randint(0, 20)}))
    return levels, nodes


def built(levels: tuple[str, ...], nodes: list[tuple[dict, dict]], usage: dict[str, dict]) -> TASFlavorSnapshot:
    snap = TASFlavorSnapshot("topo", levels)
    for node, allocatable in nodes:
        snap.add_node(node, dict(allocatable))
    snap.initialize()
    snap.begin_cycle((leaf, u, 1) for leaf, u in usage.items())
    return snap


def random_request(rng: random.Random, levels: tuple[str, ...]) -> PodSetRequest:
    single = {"cpu": rng.choice([0, 500, 1000, 4000]), GPU: rng.choice([0, 1, 2, 4])}
    kind = rng.choice(["required", "preferred", "unconstrained", "slices"])
    level = rng.choice(levels)
    if kind == "slices":
        request = TopologyRequest(required=levels[0], slice_topology=rng.choice(levels[1:]),
                                  slice_size=rng.choice([1, 2, 3]))
    else:
        request = TopologyRequest(**({kind: level} if kind != "unconstrained" else {"unconstrained": True}))
    spec = TOLERATE if rng.random() < 0.5 else {}
    return PodSetRequest("main", rng.randint(1, 12), single, spec, request, False)


def recount(snap: TASFlavorSnapshot, ps: PodSetRequest, assumed: dict, simulate_empty: bool
            ) -> tuple[list[int], dict[str, int]]:
    """Each leaf counted against its remaining capacity (less `assumed`), the parents summed."""
    requests = {**ps.single_pod, "pods": ps.single_pod.get("pods", 0) + 1}
    counts, short = {}, {}
    for leaf in snap.leaves.values():
        if snap.excluded(leaf):
            counts[leaf.id] = 0
            continue
        free = snap.remaining(leaf, simulate_empty)
        for k, v in assumed.get(leaf.id, {}).items():
            free[k] = max(0, free.get(k, 0) - v)
        fit, limiting = count_in(requests, free)
        counts[leaf.id] = fit
        if fit == 0:
            short[limiting] = short.get(limiting, 0) + 1

    def total(dom) -> int:
        return counts[dom.id] if not dom.children else sum(total(c) for c in dom.children)
    return [total(d) for d in snap.domains.values()], short


def change(rng: random.Random, snap: TASFlavorSnapshot, usage: dict[str, dict]) -> None:
    """Pods placed on or removed from a few random leaves (what admissions and preemptions do)."""
    for _ in range(rng.randint(1, 4)):
        leaf = rng.choice(list(snap.leaves))
        delta = {"cpu": rng.choice([500, 1000, 3000]), GPU: rng.randint(0, 3), "pods": rng.randint(1, 3)}
        sign = -1 if usage.get(leaf) and rng.random() < 0.4 else 1
        if sign < 0:
            delta = dict(usage[leaf])
        snap.update_tas_usage(leaf, delta, sign)
        kept = usage.setdefault(leaf, {})
        for k, v in delta.items():
            kept[k] = kept.get(k, 0) + sign * v
        if not any(kept.values()):
            del usage[leaf]


@pytest.mark.parametrize("seed", range(40))
def test_kept_counts_equal_a_recount_and_placements_a_fresh_snapshots(seed: int) -> None:
    rng = random.Random(seed)
    levels, nodes = cluster(rng, host_level=seed % 2 == 0)
    base: dict[str, dict] = {}          # the usage a cycle begins with
    usage: dict[str, dict] = {}         # and what the cycle made of it
    snap = built(levels, nodes, usage)
    shapes = [random_request(rng, levels) for _ in range(4)]      # (the same shapes met again and again)
    for _ in range(25):
        if rng.random() < 0.6:
            change(rng, snap, usage)
        if rng.random() < 0.15:         # a new cycle: this one's changes undone, the cache's made
            gone = [leaf for leaf in base if rng.random() < 0.3]
            added = {rng.choice(list(snap.leaves)): {"cpu": 1000, GPU: 1, "pods": 1} for _ in range(2)}
            snap.begin_cycle([*((leaf, base.pop(leaf), -1) for leaf in gone),
                              *((leaf, u, 1) for leaf, u in added.items())])
            for leaf, u in added.items():
                kept = base.setdefault(leaf, {})
                for k, v in u.items():
                    kept[k] = kept.get(k, 0) + v
            usage = {leaf: dict(u) for leaf, u in base.items()}
        ps, simulate_empty = rng.choice(shapes), rng.random() < 0.2
        assumed = {rng.choice(list(snap.leaves)): {"cpu": 1000, "pods": 1}} if rng.random() < 0.3 else {}
        placement = snap.find(ps, assumed, simulate_empty)
        fresh = built(levels, nodes, usage).find(ps, assumed, simulate_empty)
        assert (placement.assignment, placement.reason, placement.exclusions) == \
            (fresh.assignment, fresh.reason, fresh.exclusions)
        requests = {**ps.single_pod, "pods": 1}
        stats = Exclusions()
        snap.fill_in_counts(ps.spec, requests, assumed, simulate_empty, 1, len(levels) - 1, stats)
        state, short = recount(snap, ps, assumed, simulate_empty)
        assert [snap.count(d) for d in snap.domains.values()] == state
        assert stats.resources == short


def test_a_shapes_counts_carry_a_leafs_change_to_its_ancestors_and_slices() -> None:
    # a root (4) over two racks (2, 3) over three leaves (0, 1 | 2)
    tree = Tree(parent=(3, 3, 4, 5, 5, -1), depth=(2, 2, 2, 1, 1, 0), per_level=((5,), (3, 4), (0, 1, 2)),
                children=((), (), (), (0, 1), (2,), (3, 4)), leaves=3)
    columns = [[3, 5, 4], [4, 1, 9]]                       # cpu, pods per leaf
    wanted = (("cpu", 1), ("pods", 1))
    counts = ShapeCounts.build(tree, columns, wanted, [0, 1, 2], False, 0)
    assert counts.state == [3, 1, 4, 4, 4, 8] and counts.short == {}
    slices = counts.slices_of(tree, 2, 1)                    # racks in slices of 2
    assert slices == [0, 0, 0, 2, 2, 4]
    columns[0][1] = 0                                        # leaf 1 loses its cpu
    columns[1][2] = 7
    counts.update(tree, columns, [1, 2])
    assert (counts.state, counts.short, counts.limiting) == ([3, 0, 4, 3, 4, 7], {"cpu": 1}, {1: "cpu"})
    assert counts.slices[(2, 1)] == [0, 0, 0, 1, 2, 3]
    assert (counts.state, counts.short) == from_scratch(tree, columns, wanted, [0, 1, 2])


@pytest.mark.parametrize("seed", range(10))
def test_the_domains_and_leaves_a_failure_shows_are_those_a_sort_of_the_counts_gives(seed: int) -> None:
    rng = random.Random(seed)
    levels, nodes = cluster(rng, host_level=seed % 2 == 1)
    rng.shuffle(nodes)                  # (the leaves' places are their values' order, not the nodes')
    snap = built(levels, nodes, {})
    snap.find(random_request(rng, levels), {})

    def leaves(dom):
        return [dom] if not dom.children else [leaf for c in dom.children for leaf in leaves(c)]
    for idx in range(len(levels)):
        domains = snap.per_level[idx].values()
        assert snap.most(idx, 3) == sorted(domains, key=lambda d: (-snap.count(d), d.values))[:3]
        for dom in domains:
            under = sorted(leaves(dom), key=lambda leaf: (snap.count(leaf), leaf.values))
            assert snap.fewest_leaves(dom, 4) == (under[:4], len(under))


def random_group(rng: random.Random, levels: tuple[str, ...]) -> tuple[PodSetRequest, PodSetRequest]:
    """Workers and a leader of other requests (a LeaderWorkerSet's), required or preferred at a level."""
    kind, level = rng.choice(["required", "preferred"]), rng.choice(levels)
    request = TopologyRequest(**{kind: level}, pod_set_group="g")
    spec = TOLERATE if rng.random() < 0.5 else {}
    workers = PodSetRequest("workers", rng.randint(1, 12), {"cpu": rng.choice([500, 1000, 4000]),
                                                             GPU: rng.choice([0, 1, 2])}, spec, request, False)
    leader = PodSetRequest("leader", 1, {"cpu": rng.choice([0, 1000, 6000]), GPU: rng.choice([0, 1, 4])}, spec,
                           request, False)
    return workers, leader


def group_recount(snap: TASFlavorSnapshot, workers: PodSetRequest, leader: PodSetRequest, assumed: dict,
                  simulate_empty: bool) -> list[tuple[int, int, int]]:
    """Each domain's (workers, leader, workers beside the leader) counted from scratch over the
    leaves the last placement matched."""
    def free(i: int) -> dict[str, int]:
        leaf = snap._leaf_list[i]
        out = snap.remaining(leaf, simulate_empty)
        for k, v in assumed.get(leaf.id, {}).items():
            out[k] = out.get(k, 0) - v
        return out
    matched = [leaf.pos for leaf in snap._leaf_list if not snap.excluded(leaf)]
    wanted = tuple(sorted({**workers.single_pod, "pods": 1}.items()))
    leader_wanted = tuple(sorted({**leader.single_pod, "pods": 1}.items()))
    state, leads, beside = group_from_scratch(snap._tree, free, wanted, leader_wanted, matched)
    return [(state[d.pos], leads[d.pos], beside[d.pos]) for d in snap.domains.values()]


@pytest.mark.parametrize("seed", range(30))
def test_a_groups_kept_counts_equal_a_recount_and_placements_a_fresh_snapshots(seed: int) -> None:
    rng = random.Random(1000 + seed)
    levels, nodes = cluster(rng, host_level=seed % 2 == 0)
    usage: dict[str, dict] = {}
    snap = built(levels, nodes, usage)
    groups = [random_group(rng, levels) for _ in range(3)]
    for _ in range(20):
        if rng.random() < 0.6:
            change(rng, snap, usage)
        if rng.random() < 0.1:          # a new cycle: this one's changes undone
            snap.begin_cycle([])
            usage = {}
        (workers, leader), simulate_empty = rng.choice(groups), rng.random() < 0.2
        assumed = {rng.choice(list(snap.leaves)): {"cpu": 1000, "pods": 1}} if rng.random() < 0.3 else {}
        prioritized = rng.random() < 0.5
        placement = snap.find(workers, assumed, simulate_empty, leader, prioritized)
        fresh = built(levels, nodes, usage).find(workers, assumed, simulate_empty, leader, prioritized)
        assert (placement.assignment, placement.leader, placement.reason) == \
            (fresh.assignment, fresh.leader, fresh.reason)
        snap.fill_in_counts(workers.spec, {**workers.single_pod, "pods": 1}, assumed, simulate_empty, 1,
                            len(levels) - 1, Exclusions(), {**leader.single_pod, "pods": 1})
        assert [(snap.count(d), *snap.leader_count(d)) for d in snap.domains.values()] == \
            group_recount(snap, workers, leader, assumed, simulate_empty)


def test_a_groups_slices_beside_the_leader_are_the_childrens_less_the_fewest_a_leaders_child_loses() -> None:
    from kexplain.kueue.cache.tas_counts import leader_slices
    # a root (5) over two racks (3: leaves 0, 1; 4: leaf 2); slices of 2 at the rack level
    tree = Tree(parent=(3, 3, 4, 5, 5, -1), depth=(2, 2, 2, 1, 1, 0), per_level=((5,), (3, 4), (0, 1, 2)),
                children=((), (), (), (0, 1), (2,), (3, 4)), leaves=3)
    free = [{"cpu": 5, "pods": 9}, {"cpu": 2, "pods": 9}, {"cpu": 4, "pods": 9}]
    wanted, leader_wanted = (("cpu", 1), ("pods", 1)), (("cpu", 3), ("pods", 1))
    state, leads, beside = group_from_scratch(tree, lambda i: free[i], wanted, leader_wanted, [0, 1, 2])
    assert (state, leads, beside) == ([5, 2, 4, 7, 4, 11], [1, 0, 1, 1, 1, 1], [2, 2, 1, 4, 1, 8])
    slices = [0, 0, 0, 3, 2, 5]                     # (slice_counts at the rack level, size 2)
    assert leader_slices(tree, slices, leads, beside, 2, 1) == [0, 0, 0, 2, 0, 5 - 1]
