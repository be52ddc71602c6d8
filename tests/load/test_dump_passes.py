"""How often `kexplain POD --nodes DUMP` passes over a stored dump's rows (each pass a C loop over
150,000 objects on a real snapshot): the passes are the load's own questions, asked once, not one per
kind that some mode of the command might read. Issue 77, item 28: a wave made it 40 passes where
743acba made 15 (Kueue's chain asked each of the 22 kinds it reads, JobSets' PriorityClasses were
looked up with no JobSet to explain), 1.19x the CPU of reading the snapshot; now 12.
`benchmarks/against_bench.py` times the same against a previous commit."""
from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from kexplain.apimachinery import columns
from kexplain.cli.app import main
from kexplain.load.manifests import DUMP_OBJECTS

PASSES_AT_743ACBA = 15
NODES = 50


class _Passes(list):  # type: ignore[type-arg]
    count = 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        _Passes.count += 1
        return super().__iter__()


def _snapshot(tmp_path: Path) -> tuple[str, str]:
    items: list[dict] = [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "value": 1000,
                          "metadata": {"name": "high", "resourceVersion": "1"}},
                         {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a", "resourceVersion": "1"}}]
    items += [{"apiVersion": "v1", "kind": "Node",
               "metadata": {"name": f"n{i}", "resourceVersion": "1", "labels": {"kubernetes.io/hostname": f"n{i}"}},
               "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                          "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}} for i in range(NODES)]
    items += [{"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": f"p{i}", "namespace": "a", "resourceVersion": "1", "labels": {"app": "x"}},
               "spec": {"nodeName": f"n{i % NODES}", "containers": [{"name": "c", "image": "nginx",
                                                                   "resources": {"requests": {"cpu": "1m"}}}]},
               "status": {"phase": "Running"}} for i in range(2 * DUMP_OBJECTS)]
    cluster = tmp_path / "cluster.json"
    cluster.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    pod = tmp_path / "pod.yaml"
    pod.write_text(json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "a"},
                               "spec": {"containers": [{"name": "c", "image": "nginx"}]}}))
    return str(pod), str(cluster)


def test_a_stored_dump_is_passed_over_no_more_than_before_the_wave(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    pod, cluster = _snapshot(tmp_path)
    made = columns.Rows.__init__

    def counting(self: columns.Rows, kinds: list, *args: object) -> None:
        made(self, _Passes(kinds) if len(kinds) > DUMP_OBJECTS else kinds, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(columns.Rows, "__init__", counting)
    _Passes.count = 0
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([pod, "--nodes", cluster, "-o", "json"])
    assert code == 0 and json.loads(out.getvalue())["result"]["status"] == "Scheduled"
    assert 0 < _Passes.count <= PASSES_AT_743ACBA
