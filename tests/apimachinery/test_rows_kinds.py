"""What the passes over a dump ask of its kinds is indexed once (`columns.Rows.held_kinds`,
`Rows.positions`): a kind the dump does not hold costs no pass over its rows, one it holds one pass
however often it is asked, and each answer is the plain scan's. Issue 77, item 28: Kueue's chain asked
22 kinds of every stored snapshot, a pass over 150,000 rows each, on every `kexplain POD` run."""
from __future__ import annotations

from itertools import compress

from kexplain.apimachinery import columns
from kexplain.app.autoscalers import kinds_of
from kexplain.errors import Source

SRC = Source("cluster.json")


class Passes(list):  # type: ignore[type-arg]
    """A column that counts each pass over it (each `iter`: `map`, `zip`, a loop)."""

    def __init__(self, values: list) -> None:
        super().__init__(values)
        self.count = 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        self.count += 1
        return super().__iter__()


def counted(pairs: list) -> tuple[columns.Dump, Passes]:
    """`pairs` as a dump whose kinds column counts the passes over it."""
    dump = columns.Dump(pairs)
    kinds = dump.rows.kinds = Passes(dump.rows.kinds)
    return dump, kinds


def cluster(pods: int = 200) -> list:
    out = [({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}", "resourceVersion": "1"}}, SRC)
           for i in range(5)]
    out += [({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "namespace": "a",
                                                             "resourceVersion": "1"}}, SRC) for i in range(pods)]
    out.insert(3, ({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a", "resourceVersion": "1"}}, SRC))
    return out


def test_a_kind_not_held_costs_no_pass_and_a_held_one_a_single_pass() -> None:
    dump, kinds = counted(cluster())
    columns.of_kind(dump, dump.rows, "Node")          # (the first question indexes the kinds held)
    indexed = kinds.count
    for kind in ("ConfigMap", "Workload", "ClusterQueue", "ResourceFlavor", "LocalQueue", "Topology"):
        assert columns.of_kind(dump, dump.rows, kind) == []
    assert kinds.count == indexed
    for _ in range(5):
        assert [o["metadata"]["name"] for o, _ in columns.of_kind(dump, dump.rows, "Namespace")] == ["a"]
    assert kinds.count == indexed + 1
    assert not columns.holds(dump.rows, frozenset({"Workload", "Cohort"}))
    assert columns.holds(dump.rows, frozenset({"Workload", "Pod"}))
    assert kinds_of(dump) == {"Node", "Namespace", "Pod"}
    assert kinds.count == indexed + 1


def test_each_answer_is_the_plain_scans() -> None:
    pairs = cluster(30)
    pairs.insert(10, ({"apiVersion": "example.com/v1", "kind": "Node", "metadata": {"name": "cr"}}, SRC))
    dump = columns.Dump(pairs)
    for kind in ("Node", "Pod", "Namespace", "ConfigMap", ""):
        assert columns.of_kind(dump, dump.rows, kind) == [p for p in pairs if p[0]["kind"] == kind]
        assert dump.rows.positions(kind) == list(compress(range(len(pairs)), (p[0]["kind"] == kind for p in pairs)))


def test_a_kind_that_is_no_key_is_compared_row_by_row() -> None:
    """Rows read as they are (`Rows.of`) may hold a kind that is a list: no index, the same answers."""
    odd = [({"apiVersion": "v1", "kind": ["Pod"], "metadata": {"name": "x"}}, SRC), *cluster(3)]
    dump = columns.Dump(odd)
    assert [o["metadata"]["name"] for o, _ in columns.of_kind(dump, dump.rows, "Pod")] == ["p0", "p1", "p2"]
    assert columns.holds(dump.rows, frozenset({"Namespace"}))
    assert not columns.holds(dump.rows, frozenset({"Workload"}))
