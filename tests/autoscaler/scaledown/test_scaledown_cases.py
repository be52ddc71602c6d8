"""The scale-down cases (`mode: scaledown`): `kexplain autoscale` against the real CA's documents.

The bundled copies in tests/autoscaler/cases always run; every shared case of
../shared/autoscaler runs too when that folder is there. The whole document is compared as the
cases' comparison does it (tests/support/autoscaler_compare.py), and the `scaleDown` key field
by field, its utilization ratios within 1e-6, so that a failure names the node and field.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from kexplain.autoscaler.document import build_document
from kexplain.autoscaler.cloudprovider import Discovery
from tests.support.ca_loop import ca_loop
from kexplain.autoscaler.loop import run_once
from kexplain.cli.app import main
from kexplain.features import KubeVersion
from tests.support.autoscaler_compare import case_inputs, differences
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import ROOT, TESTS

BUNDLED = TESTS / "autoscaler" / "cases"
SHARED = ROOT.parent / "shared" / "autoscaler"


def _cases(root: Path) -> list[Path]:
    out = []
    for case in sorted(root.glob("*/params.yaml")) if root.is_dir() else ():
        if "mode: scaledown" in case.read_text():
            out.append(case.parent)
    return out


def _check(case: Path) -> None:
    env = TestEnvironment()
    code = main(case_inputs(case), env)
    assert code == 0, f"{case.name}: exit {code}: {env.err}"
    got = json.loads(env.out)
    want = json.loads((case / "expected-ca.json").read_text())
    assert got["kind"] == "ClusterAutoscalerScaleDown"
    assert _same(want["scaleDown"], got["scaleDown"]) == []
    assert differences(want, got) == []


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
    _check(case)


@pytest.mark.skipif(not SHARED.is_dir(), reason=f"{SHARED} is not present (a clone outside the workspace)")
@pytest.mark.parametrize("case", _cases(SHARED), ids=lambda p: p.name)
def test_shared_case(case: Path) -> None:
    _check(case)


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
    loop = ca_loop(None, (str(case / "cluster.yaml"),), Discovery.from_file(str(case / "nodegroups.yaml")), str(params),
                     KubeVersion("1.36"), max_bytes=10**8, max_objects=10**6)
    got = build_document(loop, run_once(loop))["scaleDown"]
    assert got["result"] == "ScaleDownNotTried" and got["unneeded"] == []
    assert [(n["name"], n["candidate"], n["reason"]) for n in got["nodes"]][:2] == [
        ("ip-10-0-64-10.ec2.internal", False, ""), ("ip-10-0-65-11.ec2.internal", False, "")]


def test_an_unhealthy_cluster_is_not_tried(tmp_path: Path) -> None:
    """More than 3 unready nodes, and more than 45%: the loop ends before scale-down."""
    import yaml
    case = BUNDLED / "scaledown-0011"
    docs = [d for d in yaml.safe_load_all((case / "cluster.yaml").read_text()) if d]
    nodes = [d for d in docs if d["kind"] == "Node"]
    for node in nodes[:4]:
        node["status"]["conditions"] = [{"type": "Ready", "status": "False", "reason": "KubeletNotReady"}]
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(yaml.safe_dump_all(docs))
    loop = ca_loop(None, (str(cluster),), Discovery.from_file(str(case / "nodegroups.yaml")), str(case / "params.yaml"),
                     KubeVersion("1.36"), max_bytes=10**8, max_objects=10**6)
    got = build_document(loop, run_once(loop))["scaleDown"]
    assert got["result"] == "ScaleDownNotTried" and got["unneeded"] == []
    assert [n["name"] for n in got["nodes"]] == [n["metadata"]["name"] for n in nodes]
    assert not any(n["candidate"] or n["reason"] for n in got["nodes"])


@pytest.mark.parametrize("local", [False, True])
def test_after_a_scale_up(tmp_path: Path, local: bool) -> None:
    """A loop that scales up is in scale-down cooldown (--scale-down-delay-after-add); with
    --scale-down-delay-type-local only the group that grew waits, and its nodes are no candidates."""
    case = TESTS / "autoscaler" / "cases" / "expendable-0015"
    params = tmp_path / "params.yaml"
    params.write_text("mode: scaledown\n" + ("flags:\n  scale-down-delay-type-local: true\n" if local else ""))
    loop = ca_loop(str(case / "pods.yaml"), (str(case / "cluster.yaml"),), Discovery.from_file(str(case / "nodegroups.yaml")),
                     str(params), KubeVersion("1.36"), max_bytes=10**8, max_objects=10**6)
    doc = build_document(loop, run_once(loop))
    assert doc["result"] == "ScaleUpSuccessful"
    grown = {g["name"] for g in doc["nodeGroups"] if g["newTargetSize"] > g["targetSize"]}
    got = doc["scaleDown"]
    assert got["result"] == ("ScaleDownNoNodeDeleted" if local else "ScaleDownInCooldown")
    in_grown = [n for n in got["nodes"] if n["nodeGroup"] in grown]
    assert in_grown and all(n["candidate"] is not local for n in in_grown)


def test_bound_pods_without_a_creation_time_are_half_an_hour_old(tmp_path: Path) -> None:
    """The inputs' default age of a bound pod decides a kube-system pod against a shorter
    --blocking-system-pod-distruption-timeout."""
    case = BUNDLED / "scaledown-0011"

    def blocking(timeout: str) -> dict:
        params = tmp_path / "params.yaml"
        params.write_text(f"mode: scaledown\nflags:\n  blocking-system-pod-distruption-timeout: {timeout}\n")
        loop = ca_loop(None, (str(case / "cluster.yaml"),), Discovery.from_file(str(case / "nodegroups.yaml")), str(params),
                         KubeVersion("1.36"), max_bytes=10**8, max_objects=10**6)
        nodes = build_document(loop, run_once(loop))["scaleDown"]["nodes"]
        return {n["name"]: (n.get("blockingPod") or {}).get("reason") for n in nodes}

    assert blocking("31m")["ip-10-0-32-13.ec2.internal"] == "UnmovableKubeSystemPod"
    assert blocking("29m")["ip-10-0-32-13.ec2.internal"] is None
