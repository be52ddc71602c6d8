"""A namespace as `kubectl get all -o yaml` gives it: a workload beside the objects its controller
made. Each pod is explained once: the workload by the pods still to come, its pods by themselves."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kexplain.cli.app import main

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1"}},
        "status": {"allocatable": {"cpu": "2", "memory": "8Gi", "pods": "110"}}}
TEMPLATE = {"metadata": {"labels": {"app": "db"}},
            "spec": {"containers": [{"name": "db", "image": "postgres", "resources": {"requests": {"cpu": "4"}}}]}}
OWNER = {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db", "uid": "sts-1", "controller": True}


def _sts(replicas: int, policy: str = "OrderedReady") -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": "db", "namespace": "default", "uid": "sts-1"},
            "spec": {"replicas": replicas, "serviceName": "db", "podManagementPolicy": policy,
                     "selector": {"matchLabels": {"app": "db"}}, "template": TEMPLATE}}


def _pod(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": {"app": "db"}, "ownerReferences": [OWNER]},
            "spec": TEMPLATE["spec"], "status": {"phase": "Pending"}}


def _run(tmp_path: Path, capsys: pytest.CaptureFixture, *objs: dict[str, Any]) -> tuple[int, list[str], str]:
    pods = tmp_path / "ns.yaml"
    pods.write_text(yaml.safe_dump_all(objs))
    nodes = tmp_path / "nodes.yaml"
    nodes.write_text(yaml.safe_dump(NODE))
    code = main([str(pods), "--nodes", str(nodes)])
    out, err = capsys.readouterr()
    return code, [line for line in out.splitlines() if line.startswith(("=== ", "Why ", "Pod "))], err


ALONE = ["Pod default/db-0 (profile default-scheduler): Unschedulable"]     # the one pod explained
POD_DB0 = ["=== Pod default/db-0 (priority 0)", "Pod default/db-0 (profile default-scheduler): Unschedulable"]


def _set(fit: str, first: str) -> list[str]:
    return [f"=== StatefulSet default/db (priority 0): {fit}", f"Why {first} does not fit:",
            f"Pod default/{first} (profile default-scheduler): Unschedulable"]


@pytest.mark.parametrize("objs, explained, note", [
    ((_sts(1), _pod("db-0")), ALONE, "StatefulSet default/db: its controller creates no pod now"),
    ((_sts(3), _pod("db-0")), ALONE, "what it made is in the input already (db-0)"),
    ((_sts(3, "Parallel"), _pod("db-0")), _set("0 of 2 replicas fit", "db-1") + POD_DB0, ""),
    ((_sts(2),), _set("0 of 2 replicas fit", "db-0"), ""),
], ids=["all-made", "ordered-waits", "parallel-the-rest", "none-made"])
def test_each_pod_once(tmp_path: Path, capsys: pytest.CaptureFixture, objs: tuple[dict[str, Any], ...],
                       explained: list[str], note: str) -> None:
    code, names, err = _run(tmp_path, capsys, *objs)
    assert names == explained
    assert code in (0, 1)       # unschedulable pods, never bad input
    if note:
        assert "note: " in err and note in err
    else:
        assert "note:" not in err


@pytest.mark.parametrize("policy, findings", [
    ("OrderedReady", [("not-created", "StatefulSet"), ("unschedulable", "Pod")]),
    ("Parallel", [("unschedulable", "StatefulSet"), ("unschedulable", "Pod")]),
])
def test_lint_counts_each_pod_once(tmp_path: Path, capsys: pytest.CaptureFixture, policy: str,
                                   findings: list[tuple[str, str]]) -> None:
    pods = tmp_path / "ns.yaml"
    pods.write_text(yaml.safe_dump_all([_sts(3, policy), _pod("db-0")]))
    nodes = tmp_path / "nodes.yaml"
    nodes.write_text(yaml.safe_dump(NODE))
    main(["lint", str(pods), "--nodes", str(nodes), "-o", "json"])
    report = json.loads(capsys.readouterr().out)
    assert sorted((f["rule"], f["object"]["kind"]) for f in report["findings"]) == sorted(findings)
    if policy == "Parallel":        # db-1 and db-2: the ordinals its controller still makes
        sts = next(f for f in report["findings"] if f["object"]["kind"] == "StatefulSet")
        assert sts["message"].startswith("none of the 2 replicas fits")
