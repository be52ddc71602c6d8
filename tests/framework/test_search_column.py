"""A copy's search read by node position (`framework.search_column`) answers what the batches answer:
its window, fits and counts against brute force, and whole runs of copies with and without it."""
from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest
import yaml

from kexplain.cli.app import main
from kexplain.framework import search_column
from kexplain.framework.search_column import Column
from kexplain.framework.status import Code, Status
from tests.support.generated import generated_cluster

VERDICTS = [Status(), Status(Code.UNSCHEDULABLE, ("Too many pods",), "NodeResourcesFit"),
            Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) had untolerated taint",), "TaintToleration"),
            Status(Code.UNSCHEDULABLE, ("Insufficient cpu",), "NodeResourcesFit"),
            Status(Code.ERROR, ("broken",), "NodePorts")]


def _brute_window(verdicts: list[Status], start: int, need: int) -> tuple[int, list[int]]:
    n, fits = len(verdicts), []
    for step in range(n):
        p = (start + step) % n
        if verdicts[p].code is Code.SUCCESS:
            fits.append(p)
            if len(fits) == need:
                return step + 1, fits
    return n, fits


@pytest.mark.parametrize("seed", range(40))
def test_window_counts_and_fills_match_brute_force(seed: int) -> None:
    rnd = random.Random(seed)
    n = rnd.randint(1, 60)
    verdicts = [rnd.choice(VERDICTS) for _ in range(n)]
    col = Column(list(verdicts), set())
    for _ in range(6):      # binds: a position unknown, then filled with its new verdict
        p = rnd.randrange(n)
        verdicts[p] = rnd.choice(VERDICTS)
        col = col.without(p).filled({p: verdicts[p]})
        assert not col.unknown
        start, need = rnd.randrange(n), rnd.randint(1, n + 2)
        visited, fits = col.window(start, n, need)
        assert (visited, fits) == _brute_window(verdicts, start, need)
        seen = [verdicts[(start + k) % n] for k in range(visited)]
        assert sorted((id(v), k) for v, k in col.counts(start, visited)) == \
            sorted(Counter(map(id, seen)).items())
        assert search_column.rotated(verdicts, start, visited) == seen
        fresh = Column(list(verdicts), set())
        assert (col.fits, col.verdicts) == (fresh.fits, fresh.verdicts)
        assert {k: (v, list(w)) for k, (v, w) in col.spots.items()} == \
            {k: (v, list(w)) for k, (v, w) in fresh.spots.items()}


def test_a_column_is_never_changed_in_place() -> None:
    col = Column([VERDICTS[0], VERDICTS[1], VERDICTS[0]], set())
    before = (list(col.verdicts), list(col.fits), {k: list(w) for k, (_, w) in col.spots.items()})
    col.without(1).filled({1: VERDICTS[0], 2: VERDICTS[2]})
    assert (col.verdicts, col.fits, {k: list(w) for k, (_, w) in col.spots.items()}) == before


def _run(capsys, args: list[str]) -> tuple[int, str]:
    code = main(args)
    out, _ = capsys.readouterr()
    return code, out


def _with_and_without(capsys, monkeypatch, args: list[str]) -> None:
    calls: list[bool] = []
    real = search_column.searched

    def spy(*a, **k):
        found = real(*a, **k)
        calls.append(found is not None)
        return found

    monkeypatch.setattr(search_column, "searched", spy)
    with_column = _run(capsys, args)
    assert any(calls), "the copies never read the column"
    monkeypatch.setattr(search_column, "searched", lambda *a, **k: None)
    assert _run(capsys, args) == with_column


@pytest.mark.parametrize("output", [["-o", "json"], []])
def test_copies_of_a_generated_cluster(tmp_path: Path, capsys, monkeypatch, output: list[str]) -> None:
    paths = generated_cluster(tmp_path, "classic", nodes=300, pods_per_node=6)
    _with_and_without(capsys, monkeypatch, [str(paths["pod-plain"]), "--nodes", str(paths["json"]),
                                            "--replicas", "120", *output])


def _filling(tmp_path: Path, copies: int) -> list[str]:
    """40 nodes of 1-3 cpus, some tainted, and copies of a pod asking one cpu: the arguments."""
    nodes = [{"apiVersion": "v1", "kind": "Node",
              "metadata": {"name": f"n{i:02}", "labels": {"kubernetes.io/hostname": f"n{i:02}"}},
              "spec": {"taints": [{"key": "x", "value": "y", "effect": "NoSchedule"}]} if i % 7 == 3 else {},
              "status": {"capacity": {"cpu": str(1 + i % 3), "memory": "8Gi", "pods": "110"}}}
             for i in range(40)]
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}]}}
    (tmp_path / "nodes.yaml").write_text(yaml.safe_dump_all(nodes))
    (tmp_path / "pod.yaml").write_text(yaml.safe_dump(pod))
    return [str(tmp_path / "pod.yaml"), "--nodes", str(tmp_path / "nodes.yaml"), "--replicas", str(copies)]


def test_copies_that_fill_nodes_up(tmp_path: Path, capsys, monkeypatch) -> None:
    """Binds turn fitting nodes into full ones: the positions they change are filtered again, and the
    copies past the cluster's room fail with every node's reason."""
    args = _filling(tmp_path, 90)
    _with_and_without(capsys, monkeypatch, [*args, "-o", "json"])
    code, out = _run(capsys, [*args, "-o", "json"])
    room = sum(1 + i % 3 for i in range(40) if i % 7 != 3)
    assert code != 0 and json.loads(out)["placements"][0]["fit"] == room < 90     # the rest do not fit


def test_a_column_holds_one_object_per_distinct_verdict(tmp_path: Path, capsys, monkeypatch) -> None:
    """Every framework over a snapshot's line shares one pool of Filter statuses: each bind's node,
    filtered again and now full, gets the verdict object the column holds already, so a column's
    distinct verdicts stay a few however many copies fill nodes up (each added one before)."""
    columns: list[search_column.Column] = []
    counts = search_column.Column.counts

    def kept(self, start, visited):
        columns.append(self)
        return counts(self, start, visited)

    monkeypatch.setattr(search_column.Column, "counts", kept)
    _run(capsys, _filling(tmp_path, 50))
    last = columns[-1]
    distinct = {(v.code, v.reasons, v.plugin) for v in filter(None, last.verdicts)}
    assert len(columns) > 20 and len(distinct) >= 2
    assert len(last.spots) == len(distinct), (len(last.spots), distinct)
