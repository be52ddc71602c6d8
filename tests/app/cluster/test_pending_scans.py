"""The pending section's own passes over the cluster's objects: each pod asked once whether the
scheduler left it pending (`live.tried_pods`, read for the pods explained and the queue alike), the
owners' controllers chosen off a dump's rows, and CA's node groups for Kueue looked for only when
Kueue's pass runs."""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Iterator, Mapping

from kexplain.apimachinery.columns import Dump, Rows
from kexplain.app import cluster_autoscaler, live
from kexplain.app.cluster import pending
from kexplain.errors import Source
from tests.app.cluster.helpers import SHOP, inputs_of

CASE = Path(__file__).parents[2] / "autoscaler" / "cases" / "scaledown-0011"


def test_each_pod_is_asked_once_whether_it_is_pending(monkeypatch) -> None:
    asked: Counter = Counter()
    real = live.is_pending_unschedulable

    def counted(pod: Any) -> bool:
        asked[id(pod)] += 1
        return real(pod)
    monkeypatch.setattr(live, "is_pending_unschedulable", counted)
    section = pending.section(inputs_of(SHOP))
    assert section["pods"] == 5 and asked and set(asked.values()) == {1}


class _Unasked(Mapping):
    """An object the rows say is not a controller: reading it is a test failure."""

    def __getitem__(self, key: str) -> Any:
        raise AssertionError(f"asked for {key}")

    def get(self, key: str, default: Any = None) -> Any:
        raise AssertionError(f"asked for {key}")

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


def _dump_inputs() -> Any:
    """The report's inputs read from a dump whose objects but one ReplicaSet must not be read."""
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {
        "name": "web-1", "namespace": "shop",
        "ownerReferences": [{"kind": "Deployment", "name": "web", "controller": True}]}}
    objs = [(_Unasked(), Source("a")), (rs, Source("a")), (_Unasked(), Source("a"))]
    rows = Rows(["Pod", "ReplicaSet", "Node"], ["v1", "apps/v1", "v1"], ["p", "web-1", "n"], ["shop", "shop", ""],
                [True, True, True], True)
    dump = Dump(objs, rows)
    return SimpleNamespace(state=SimpleNamespace(read=dump), objects=list(dump),
                           request=SimpleNamespace(namespace=None))


def test_the_kinds_that_may_report_node_groups_are_asked_of_a_dumps_rows() -> None:
    assert pending.live_of(_dump_inputs()).node_groups is None


def test_the_owners_controllers_are_chosen_off_a_dumps_rows() -> None:
    owners = pending.Owners.of(_dump_inputs())
    assert owners.refs == {("ReplicaSet", "shop", "web-1"): ("Deployment", "web")}
    pod = {"metadata": {"namespace": "shop", "ownerReferences": [{"kind": "ReplicaSet", "name": "web-1",
                                                                  "controller": True}]}}
    assert owners.owner(pod) == {"kind": "Deployment", "namespace": "shop", "name": "web"}


def test_cas_groups_are_not_looked_for_for_kueue_without_kueue(monkeypatch) -> None:
    made: list[Any] = []
    real = cluster_autoscaler.kueue_provisioner

    def counted(*args: Any, **kwargs: Any) -> Any:
        made.append(args)
        return real(*args, **kwargs)
    monkeypatch.setattr(cluster_autoscaler, "kueue_provisioner", counted)
    section = pending.section(inputs_of(CASE / "cluster.yaml", node_groups=str(CASE / "nodegroups.yaml")))
    assert section["name"] == "pending" and "rows" in section
    assert made == []
