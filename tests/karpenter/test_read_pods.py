"""`ReadPods`: a second pass at the same clock over the same stored pods (`kexplain cluster`'s
pending pass, then its Karpenter section) takes the first's defaulted pods and `PodInfo`s, and
reads them exactly as a pass of its own would; another clock, or too many pods, start again."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import msgspec
import pytest

from kexplain.apimachinery.stored_pods import StoredPod, decode_view
from kexplain.errors import Source
from kexplain.karpenter import inputs as ki

NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


def stored(name: str, **meta) -> StoredPod:
    obj = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name, "namespace": "ns", "resourceVersion": "7", **meta},
           "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "x"}]}}
    raw = msgspec.json.encode(obj)
    return StoredPod(msgspec.Raw(raw), decode_view(raw))


def objects() -> list:
    complete = stored("a", uid="u-a", creationTimestamp="2025-12-31T00:00:00Z")
    complete = StoredPod(complete.raw, msgspec.structs.replace(
        complete.view, status=msgspec.structs.replace(ki._PHASE_RUNNING)))
    return [(complete, Source("f")), (stored("b"), Source("f")), (stored("c", uid="u-c"), Source("f"))]


@pytest.fixture
def counted(monkeypatch):
    calls = {"deferred": 0, "pod_info": 0}
    deferred, pod_info = ki._deferred, ki.pod_info

    def count_deferred(*args):
        calls["deferred"] += 1
        return deferred(*args)

    def count_pod_info(obj):
        calls["pod_info"] += 1
        return pod_info(obj)
    monkeypatch.setattr(ki, "_deferred", count_deferred)
    monkeypatch.setattr(ki, "pod_info", count_pod_info)
    monkeypatch.setattr(ki, "_read_pods", ki.ReadPods())
    return calls


def read(objs: list, now: datetime = NOW) -> tuple[list, list]:
    defaulted = ki.defaulted_objects(objs, now)
    return defaulted, ki._read_pods.pod_infos(o for o, _ in defaulted)


def test_a_second_pass_at_the_clock_takes_the_first_ones_pods(counted):
    objs = objects()
    first, first_infos = read(objs)
    assert counted == {"deferred": 3, "pod_info": 3}
    again, infos = read(list(objs))
    assert counted == {"deferred": 3, "pod_info": 3}         # neither looked at nor made again
    assert all(a[0] is b[0] for a, b in zip(first, again))
    assert all(a is b for a, b in zip(first_infos, infos))


def test_the_pods_kept_read_as_a_pass_of_its_own_reads_them(counted):
    objs = objects()
    read(objs)
    _, kept = read(objs)
    ki._read_pods = ki.ReadPods()
    _, own = read(objs)
    assert [(p.uid, p.phase, p.key, p.obj.get("metadata")) for p in kept] == \
        [(p.uid, p.phase, p.key, p.obj.get("metadata")) for p in own]


def test_another_clock_or_too_many_pods_start_again(counted):
    objs = objects()
    read(objs)
    read(objs, NOW + timedelta(seconds=1))
    assert counted["deferred"] == 6
    ki._read_pods = ki.ReadPods(kept=4)
    read(objs)
    read(objs)          # (3 kept, 3 coming: more than 4)
    assert counted["deferred"] == 12
