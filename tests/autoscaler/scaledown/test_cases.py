"""The scale-down cases (`mode: scaledown`) against the real CA's `scaleDown` key.

The bundled copies in tests/autoscaler/cases always run; every shared case of
../shared/autoscaler runs too when that folder is there. Utilization ratios compare within
1e-6, as the comparison tool compares them; everything else exactly.
"""
from __future__ import annotations

import json
import math
from datetime import datetime
from pathlib import Path

import pytest

from kexplain.autoscaler.inputs import load_loop
from kexplain.autoscaler.document import build_document
from kexplain.autoscaler.loop import run_once
from kexplain.features import KubeVersion
from tests.support.paths import ROOT, TESTS

BUNDLED = TESTS / "autoscaler" / "cases"
SHARED = ROOT.parent / "shared" / "autoscaler"


def _cases(root: Path) -> list[Path]:
    out = []
    for case in sorted(root.glob("*/params.yaml")) if root.is_dir() else ():
        if "mode: scaledown" in case.read_text():
            out.append(case.parent)
    return out


def _scale_down(case: Path) -> dict:
    pods = case / "pods.yaml"
    loop = load_loop(str(pods) if pods.exists() else None, (str(case / "cluster.yaml"),), str(case / "nodegroups.yaml"),
                     str(case / "params.yaml"), KubeVersion("1.36"), max_bytes=10**8, max_objects=10**6)
    return build_document(loop, run_once(loop))["scaleDown"]


def _same(want: object, got: object, path: str = "scaleDown") -> list[str]:
    """The differences, with ratios under `utilization` compared within 1e-6."""
    if isinstance(want, dict) and isinstance(got, dict):
        out = []
        for key in sorted(set(want) | set(got)):
            out += _same(want.get(key), got.get(key), f"{path}.{key}")
        return out
    if isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        return [d for i, (w, g) in enumerate(zip(want, got)) for d in _same(w, g, f"{path}[{i}]")]
    if ".utilization." in path and isinstance(want, (int, float)) and isinstance(got, (int, float)) \
            and not isinstance(want, bool):
        return [] if math.isclose(want, got, rel_tol=0, abs_tol=1e-6) else [f"{path}: want {want}, got {got}"]
    return [] if want == got else [f"{path}: want {want!r}, got {got!r}"]


@pytest.mark.parametrize("case", _cases(BUNDLED), ids=lambda p: p.name)
def test_bundled_case(case: Path) -> None:
    want = json.loads((case / "expected-ca.json").read_text())["scaleDown"]
    assert _same(want, _scale_down(case)) == []


@pytest.mark.skipif(not SHARED.is_dir(), reason=f"{SHARED} is not present (a clone outside the workspace)")
@pytest.mark.parametrize("case", _cases(SHARED), ids=lambda p: p.name)
def test_shared_case(case: Path) -> None:
    want = json.loads((case / "expected-ca.json").read_text())["scaleDown"]
    assert _same(want, _scale_down(case)) == []


def test_the_comparison_sees_a_difference() -> None:
    want = {"nodes": [{"reason": "BlockedByPod", "utilization": {"cpu": 0.25}}]}
    assert _same(want, {"nodes": [{"reason": "BlockedByPod", "utilization": {"cpu": 0.2500000001}}]}) == []
    assert _same(want, {"nodes": [{"reason": "NotUnderutilized", "utilization": {"cpu": 0.26}}]}) == [
        "scaleDown.nodes[0].reason: want 'BlockedByPod', got 'NotUnderutilized'",
        "scaleDown.nodes[0].utilization.cpu: want 0.25, got 0.26"]


def test_scale_down_disabled_is_not_tried(tmp_path: Path) -> None:
    case = BUNDLED / "scaledown-0009"
    params = tmp_path / "params.yaml"
    params.write_text("mode: scaledown\nflags:\n  scale-down-enabled: false\n")
    loop = load_loop(None, (str(case / "cluster.yaml"),), str(case / "nodegroups.yaml"), str(params),
                     KubeVersion("1.36"), max_bytes=10**8, max_objects=10**6)
    got = build_document(loop, run_once(loop))["scaleDown"]
    assert got["result"] == "ScaleDownNotTried" and got["unneeded"] == []
    assert [(n["name"], n["candidate"], n["reason"]) for n in got["nodes"]][:2] == [
        ("ip-10-0-64-10.ec2.internal", False, ""), ("ip-10-0-65-11.ec2.internal", False, "")]
