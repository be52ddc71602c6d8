"""explain/'s bottom: what every module that schedules reads (a pod's `Inputs`, the POD file's
`Entry`s, the set's objects and owners) imports no other module of explain/, so that loading
(`inputs.py`) can import what schedules without a cycle back (docs/development.md, Layout)."""
from __future__ import annotations

from tests.test_import_cycles import import_graph

BOTTOM = ("pod_inputs", "pod_file", "pass_objects", "request")


def test_the_bottom_of_explain_imports_nothing_of_explain():
    graph = import_graph()
    for name in BOTTOM:
        mine = sorted(m for m in graph[f"kexplain.explain.{name}"] if m.startswith("kexplain.explain"))
        assert mine == [], f"explain/{name}.py imports {mine}"


def test_loading_sits_above_what_schedules_and_below_the_batch():
    graph = import_graph()
    assert {"kexplain.explain.created", "kexplain.explain.pod_inputs"} <= graph["kexplain.explain.inputs"]
    for module in ("run", "placement", "carryover", "created", "kubelet", "retry", "dra_binding"):
        assert "kexplain.explain.inputs" not in graph[f"kexplain.explain.{module}"], module
