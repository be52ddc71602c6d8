"""The table view's scale-down part: the result, the unneeded nodes, a row per node."""
from __future__ import annotations

from rich.console import Console

from kexplain.render.autoscale import print_scale_up


def test_scale_down_rows():
    doc = {"result": "ScaleUpNotNeeded", "pods": [], "nodeGroups": [], "expansion": None, "clusterEvents": [],
           "scaleDown": {"result": "ScaleDownNoNodeDeleted", "unneeded": ["n2"], "scaledDown": [], "nodes": [
               {"name": "n1", "nodeGroup": "g", "candidate": True, "unneeded": False, "reason": "BlockedByPod",
                "blockingPod": {"pod": "default/scratch", "reason": "LocalStorageRequested"},
                "utilization": {"cpu": 0.25, "memory": 0.1, "gpu": 0, "resourceName": "cpu", "utilization": 0.25}},
               {"name": "n2", "nodeGroup": "g", "candidate": True, "unneeded": True, "reason": "NotUnneededLongEnough"},
               {"name": "n3", "nodeGroup": "", "candidate": False, "unneeded": False, "reason": ""}]}}
    console = Console(record=True, width=200)
    print_scale_up(doc, console)
    text = console.export_text()
    assert "Scale-down: ScaleDownNoNodeDeleted" in text and "unneeded: n2" in text
    rows = {line.split()[0]: line for line in text.splitlines() if line.strip().startswith("n")}
    assert "BlockedByPod: default/scratch (LocalStorageRequested)" in rows["n1"] and "cpu 25.0%" in rows["n1"]
    assert "yes" in rows["n2"] and "NotUnneededLongEnough" in rows["n2"]
    assert "not a candidate" in rows["n3"]
    doc.pop("scaleDown")
    console = Console(record=True, width=200)
    print_scale_up(doc, console)
    assert "Scale-down" not in console.export_text()
