"""The node tree's zone interleaving, numFeasibleNodesToFind, and the heap's pick among ties."""
import pytest

from kexplain.framework.search import SortedScores, num_feasible_nodes_to_find
from kexplain.model.nodeinfo import Node
from kexplain.model.snapshot import node_tree_order, zone_key


def node(name, zone=None, region=None, beta=False):
    labels = {}
    if zone is not None:
        labels["failure-domain.beta.kubernetes.io/zone" if beta else "topology.kubernetes.io/zone"] = zone
    if region is not None:
        labels["topology.kubernetes.io/region"] = region
    return Node.from_obj({"metadata": {"name": name, "labels": labels}})


def test_documented_six_node_two_zone_example():
    """Kubernetes docs: nodes 1-4 in zone X, 5-6 in zone Y -> 1, 5, 2, 6, 3, 4."""
    nodes = [node("node-1", "x"), node("node-2", "x"), node("node-3", "x"), node("node-4", "x"),
             node("node-5", "y"), node("node-6", "y")]
    assert [n.name for n in node_tree_order(nodes)] == ["node-1", "node-5", "node-2", "node-6", "node-3", "node-4"]


def test_zones_in_order_of_first_appearance_and_unzoned_nodes_form_a_zone():
    nodes = [node("a1"), node("b1", "b"), node("a2"), node("c1", "c"), node("b2", "b")]
    assert [n.name for n in node_tree_order(nodes)] == ["a1", "b1", "c1", "a2", "b2"]


def test_zone_key_prefers_beta_labels_and_includes_region():
    assert zone_key({}) == ""
    assert zone_key({"topology.kubernetes.io/zone": "z"}) == ":\x00:z"
    assert zone_key({"topology.kubernetes.io/zone": "z", "failure-domain.beta.kubernetes.io/zone": "old"}) \
        == ":\x00:old"
    assert zone_key({"topology.kubernetes.io/region": "r", "topology.kubernetes.io/zone": "z"}) == "r:\x00:z"


@pytest.mark.parametrize("n, expected", [
    (50, 50),        # below 100 nodes: every node
    (99, 99),
    (100, 100),      # 50 - 0 = 50% of 100 = 50 -> at least 100
    (101, 100),      # 50% of 101 = 50 -> 100
    (1000, 420),     # 50 - 8 = 42%
    (5000, 500),     # 50 - 40 = 10%
    (6000, 300),     # 50 - 48 = 2% -> at least 5% = 300
])
def test_adaptive_percentage(n, expected):
    assert num_feasible_nodes_to_find(n, None, None) == expected


@pytest.mark.parametrize("n, profile, global_, expected", [
    (1000, 100, None, 1000),
    (1000, 30, 70, 300),      # the profile's wins
    (1000, None, 70, 700),    # else the global one
    (1000, 5, None, 100),     # never fewer than 100
    (1000, 0, 70, 420),       # 0 in the profile means adaptive, not "use global"
    (50, 10, None, 50),       # below 100 nodes the percentage is not read
    (5000, 1, None, 100),
])
def test_configured_percentage(n, profile, global_, expected):
    assert num_feasible_nodes_to_find(n, profile, global_) == expected


def heap_top(names, totals):
    return SortedScores(names, totals).pop()


def test_heap_top_is_the_max_and_ties_follow_go_heap_order():
    assert heap_top(["a", "b", "c"], [1, 3, 2]) == "b"
    # All tied: heap.Init leaves index 0 on top.
    assert heap_top(["a", "b", "c", "d"], [5, 5, 5, 5]) == "a"
    # Tie between index 2 and 3: sift-down from index 1 lifts n3 there, then the root takes it
    # (its left child), not n2: the pick is not the first of the tied nodes.
    assert heap_top(["n0", "n1", "n2", "n3"], [1, 1, 4, 4]) == "n3"
    assert heap_top(["n0", "n1", "n2", "n3"], [1, 2, 1, 4]) == "n3"


def test_later_pops_follow_go_heap_pop():
    # Worked by hand with container/heap: Init over [a1 b3 c2 d3 e1] gives [b3 d3 c2 a1 e1];
    # Pop swaps the root with the last, sifts e1 down (d3 up), and returns b; and so on.
    ranking = SortedScores(["a", "b", "c", "d", "e"], [1, 3, 2, 3, 1])
    assert [ranking.pop() for _ in range(len(ranking))] == ["b", "d", "c", "a", "e"]
    # All tied: after the root, Pop moves the last element up, so the order is not the input's.
    tied = SortedScores(["n0", "n1", "n2", "n3"], [7, 7, 7, 7])
    assert [tied.pop() for _ in range(4)] == ["n0", "n3", "n2", "n1"]


def _go_heap_order(names, totals):
    """container/heap's Init then Pop until empty, Less(i, j) = total i > total j, written out."""
    h = list(zip(names, totals))

    def down(i, n):
        while 2 * i + 1 < n:
            j = 2 * i + 1
            if j + 1 < n and h[j + 1][1] > h[j][1]:
                j += 1
            if not h[j][1] > h[i][1]:
                return
            h[i], h[j] = h[j], h[i]
            i = j

    for i in range(len(h) // 2 - 1, -1, -1):
        down(i, len(h))
    out = []
    while h:
        h[0], h[-1] = h[-1], h[0]
        down(0, len(h) - 1)
        out.append(h.pop()[0])
    return out


def test_the_top_without_the_heap_and_every_pop_after_it_follow_go_heap_order():
    """The first pop reads the top without building the heap; a clone or a later pop builds it:
    every order of pops, clones and lengths matches container/heap, ties of every kind among them."""
    import random
    rng = random.Random(7)
    for _ in range(600):
        n = rng.randint(1, 70)
        totals = [rng.choice((300, 300, 299, rng.randint(0, 300))) for _ in range(n)]
        names = [f"n{i}" for i in range(n)]
        expected = _go_heap_order(names, totals)
        ranking = SortedScores(names, totals)
        got = []
        while len(ranking):
            assert len(ranking) == n - len(got)
            if rng.random() < 0.2:
                twin = ranking.clone()
                assert [twin.pop() for _ in range(len(twin))] == expected[len(got):]
            got.append(ranking.pop())
        assert got == expected, totals
