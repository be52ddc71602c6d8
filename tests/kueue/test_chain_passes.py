"""Kueue's chain on a stored snapshot without Kueue's objects: every `kexplain POD` run hands it the
cluster, and it answers from the kinds the dump holds (indexed once) without a pass over the dump
for each kind Kueue reads (issue 77, item 28: 22 passes over 150,000 rows a run). With Kueue's
objects in the dump it still reads them and holds the job."""
from __future__ import annotations

import yaml

from kexplain.errors import Source
from kexplain.kueue.chain import Chain
from tests.apimachinery.test_rows_kinds import cluster, counted
from tests.kueue.builders import cluster_queue, flavor, local_queue

FILE = Source("pod.yaml")
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "a"},
       "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
JOB = {"apiVersion": "batch/v1", "kind": "Job",
       "metadata": {"name": "train", "namespace": "a", "labels": {"kueue.x-k8s.io/queue-name": "q"}},
       "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
           {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}]}}}}


def test_a_snapshot_without_kueues_objects_is_not_passed_over_per_kind() -> None:
    for objs in ([(POD, FILE)], [(JOB, FILE)]):
        dump, kinds = counted(cluster())
        chain = Chain()
        assert chain(objs, dump) == objs
        assert kinds.count <= 1             # (the index of the kinds held, at most)
        assert chain.answers == {}


def test_a_snapshot_with_kueues_objects_is_read() -> None:
    texts = (flavor("default"), cluster_queue("cq", {"default": {"cpu": 8}}), local_queue("q", "cq", namespace="a"))
    stored = [(yaml.safe_load(text), Source("cluster.json")) for text in texts]
    dump, _ = counted([*cluster(), *stored])
    chain = Chain()
    chain([(JOB, FILE)], dump)
    assert ("Job", "a", "train") in chain.answers
