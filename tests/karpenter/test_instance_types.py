"""The AWS provider's instance types against the real Karpenter's: every case's `instanceTypes`
(per EC2NodeClass: each type's capacity, overhead, allocatable and offerings with prices) and each
NodePool's `instanceTypes`/`instanceTypeCount`, built in-process from the case's inputs (the
EC2NodeClasses, params.yaml's provider settings, the AWS data). The shared cases run when
../shared is there; the bundled copies under tests/karpenter/cases/aws-* always do."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kexplain.karpenter.aws.document import instance_types_key, node_pool_instance_types
from kexplain.karpenter.apis.ec2nodeclass import KubeletConfiguration
from kexplain.karpenter.aws.instancetype.instancetype import InstanceTypeProvider, StaticNodeClass, zone_info
from kexplain.karpenter.aws.instancetype.types import Options
from kexplain.karpenter.aws.nodeclass import default_status_subnets
from kexplain.karpenter.aws.unavailableofferings import from_entries
from kexplain.karpenter.aws.world import load_world
from tests.support.paths import ROOT

BUNDLED = Path(__file__).resolve().parent / "cases"
BUNDLED_AWS = BUNDLED / "sched-aws"         # the shared AWS data, copied: a clone needs nothing beside it
SHARED = ROOT.parent / "shared" / "karpenter"
ALIASES = {"al2023": "AL2023", "al2": "AL2", "bottlerocket": "Bottlerocket", "windows2019": "Windows2019",
           "windows2022": "Windows2022", "windows2025": "Windows2025"}


def _cases(root: Path) -> list[Path]:
    return sorted(p.parent for p in root.glob("**/expected-karpenter.json"))


def _node_class(raw: dict[str, Any], subnets: list[dict[str, str]]) -> StaticNodeClass:
    """The few EC2NodeClass fields the cases set (the test's own reading of the manifest)."""
    spec = raw.get("spec") or {}
    family = spec.get("amiFamily")
    if family is None:
        alias = next((t["alias"] for t in spec.get("amiSelectorTerms") or () if t.get("alias")), "")
        family = ALIASES.get(alias.split("@")[0], "Custom")
    k = spec.get("kubelet")
    kubelet = None if k is None else KubeletConfiguration(
        max_pods=k.get("maxPods"), pods_per_core=k.get("podsPerCore"), kube_reserved=k.get("kubeReserved"),
        system_reserved=k.get("systemReserved"), eviction_hard=k.get("evictionHard"))
    status_subnets = (raw.get("status") or {}).get("subnets", subnets)
    return StaticNodeClass(name=raw["metadata"]["name"], family=family, kubelet=kubelet,
                           zones=tuple(zone_info(status_subnets)))


def default_aws(case: Path) -> Path:
    """The AWS data a case without its own `aws/` reads: its set's (a shared case's
    ../shared/karpenter/aws; a bundled case's the copy in sched-aws)."""
    return BUNDLED_AWS if case.is_relative_to(BUNDLED) else SHARED / "aws"


def build(case: Path) -> tuple[dict, list[dict], dict]:
    """(the instanceTypes key, the NodePools' instance-type entries, the expected document)."""
    aws = case / "aws" if (case / "aws").is_dir() else default_aws(case)
    world = load_world(aws)
    params = yaml.safe_load((case / "params.yaml").read_text()) if (case / "params.yaml").exists() else {}
    if params.get("instanceTypes"):
        world = world.keep_instance_types(params["instanceTypes"])
    subnets = default_status_subnets(world, params.get("zones"))
    docs = [d for d in yaml.safe_load_all((case / "nodepools.yaml").read_text()) if d]
    classes = [_node_class(d, subnets) for d in docs if d.get("kind") == "EC2NodeClass"]
    by_name = {c.name: c for c in classes}
    provider = InstanceTypeProvider(
        world, Options(params.get("vmMemoryOverheadPercent", 0.075), params.get("reservedENIs", 0)),
        from_entries(tuple(e.split(":")) for e in params.get("unavailableOfferings", ())))
    pools = [{"name": d["metadata"]["name"],
              **node_pool_instance_types(d, by_name.get(d["spec"]["template"]["spec"]["nodeClassRef"]["name"]), provider)}
             for d in docs if d.get("kind") == "NodePool"]
    return instance_types_key(classes, provider), pools, json.loads((case / "expected-karpenter.json").read_text())


def _check(case: Path) -> None:
    got, pools, want = build(case)
    assert list(got) == list(want["instanceTypes"])
    for cls, types in want["instanceTypes"].items():
        assert [t["name"] for t in got[cls]] == [t["name"] for t in types], cls
        for g, w in zip(got[cls], types):
            assert g == w, f"{case.name}: {cls}/{w['name']}"
    want_pools = [{k: p.get(k) for k in ("name", "instanceTypes", "instanceTypeCount")} for p in want["nodePools"]]
    assert pools == want_pools


@pytest.mark.parametrize("case", _cases(BUNDLED), ids=lambda p: p.name)
def test_bundled_case(case: Path) -> None:
    _check(case)


@pytest.mark.skipif(not SHARED.is_dir(), reason=f"{SHARED} is not present (a clone outside the workspace)")
@pytest.mark.parametrize("case", _cases(SHARED) if SHARED.is_dir() else [], ids=lambda p: p.name)
def test_shared_case(case: Path) -> None:
    _check(case)


def test_bundled_cases_exercise_the_provider_settings() -> None:
    """The bundled copies are chosen to cover podsPerCore, params.zones and the insufficient-capacity cache."""
    names = {c.name for c in _cases(BUNDLED)}
    assert {"aws-max-pods-0023", "aws-zones-0030", "aws-capacity-type-0013"} <= names
    got, _, _ = build(BUNDLED / "aws-capacity-type-0013")
    t3 = next(t for t in got["default"] if t["name"] == "t3.large")
    assert "test-zone-1a spot 0.0832 unavailable" in t3["offerings"]
    got, _, _ = build(BUNDLED / "aws-max-pods-0023")
    m5 = next(t for t in got["default"] if t["name"] == "m5.large")
    assert m5["capacity"]["pods"] == "8"          # podsPerCore 4 x 2 vCPUs, below the ENI limit of 29
    assert m5["kubeReserved"]["memory"] == "574Mi"   # AL2023 reserves memory for the ENI-limited 29 pods


@pytest.mark.parametrize("case", ["sched-basic", "sched-workload-label"])
def test_bundled_cases_need_nothing_beside_the_clone(case: str, tmp_path: Path, monkeypatch) -> None:
    """A clone with no ../shared: the bundled cases read the AWS data bundled with them."""
    monkeypatch.setitem(globals(), "SHARED", tmp_path / "no-shared")
    _check(BUNDLED / case)
