"""Karpenter's taint checks (kexplain.karpenter.scheduling.taints) against pkg/scheduling/taints.go
and the texts of the shared cases."""
from __future__ import annotations

import pytest

from kexplain.karpenter.errors import multierr_errors
from kexplain.karpenter.scheduling.taints import Taints, TaintNotToleratedError, is_known_ephemeral_taint
from kexplain.model.pod import PodInfo

GPU = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
BATCH = {"key": "dedicated", "value": "batch", "effect": "NoExecute"}
SOFT = {"key": "spot", "effect": "PreferNoSchedule"}


@pytest.mark.parametrize("tolerations, failing", [
    ([], ["nvidia.com/gpu=true:NoSchedule", "dedicated=batch:NoExecute", "spot:PreferNoSchedule"]),
    ([{"key": "nvidia.com/gpu", "operator": "Exists"}], ["dedicated=batch:NoExecute", "spot:PreferNoSchedule"]),
    ([{"operator": "Exists"}], []),
    ([{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"},
      {"key": "dedicated", "value": "batch"}, {"operator": "Exists", "effect": "PreferNoSchedule"}], []),
    ([{"key": "nvidia.com/gpu", "value": "false"}, {"key": "dedicated", "value": "batch", "effect": "NoSchedule"},
      {"key": "spot", "operator": "Equal"}], ["nvidia.com/gpu=true:NoSchedule", "dedicated=batch:NoExecute"]),
])
def test_tolerates_every_effect_in_taint_order(tolerations: list, failing: list) -> None:
    err = Taints([GPU, BATCH, SOFT]).tolerates(tolerations)
    parts = multierr_errors(err)
    assert all(isinstance(p, TaintNotToleratedError) for p in parts)
    assert [str(p) for p in parts] == [f"did not tolerate taint (taint={t})" for t in failing]
    if failing:
        assert str(err) == "; ".join(f"did not tolerate taint (taint={t})" for t in failing)
    else:
        assert err is None


@pytest.mark.parametrize("operator, value, taint_value, ok", [
    ("Gt", "3", "5", True), ("Gt", "5", "5", False), ("Lt", "10", "5", True), ("Lt", "5", "5", False),
    ("Gt", "03", "5", False), ("Gt", "3", "+5", False), ("Lt", "x", "1", False), ("Gt", "-1", "0", True),
])
def test_comparison_operators_are_enabled(operator: str, value: str, taint_value: str, ok: bool) -> None:
    taint = {"key": "example.com/tier", "value": taint_value, "effect": "NoSchedule"}
    toleration = {"key": "example.com/tier", "operator": operator, "value": value}
    assert (Taints([taint]).tolerates([toleration]) is None) is ok


def test_tolerates_pod_and_the_shared_cases_text() -> None:
    pod = PodInfo({"metadata": {"name": "trainer"}, "spec": {"containers": [{"name": "c"}]}})
    assert str(Taints([GPU]).tolerates_pod(pod)) == "did not tolerate taint (taint=nvidia.com/gpu=true:NoSchedule)"
    assert str(Taints([BATCH]).tolerates_pod(pod.obj)) == "did not tolerate taint (taint=dedicated=batch:NoExecute)"
    assert Taints([]).tolerates_pod(pod) is None


def test_merge_keeps_the_first_of_each_key_and_effect() -> None:
    mine = Taints([GPU, SOFT])
    other = [{"key": "nvidia.com/gpu", "value": "false", "effect": "NoSchedule"},
             {"key": "nvidia.com/gpu", "effect": "NoExecute"}, BATCH]
    assert list(mine.merge(other)) == [GPU, SOFT, {"key": "nvidia.com/gpu", "effect": "NoExecute"}, BATCH]


@pytest.mark.parametrize("taint, ephemeral", [
    ({"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}, True),
    ({"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule"}, True),
    ({"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}, False),
    ({"key": "node.cloudprovider.kubernetes.io/uninitialized", "value": "x", "effect": "NoSchedule"}, True),
    ({"key": "karpenter.sh/unregistered", "effect": "NoExecute"}, True),
    ({"key": "readiness.k8s.io/cni", "effect": "NoExecute"}, True),
    ({"key": "example.com/readiness.k8s.io/cni", "effect": "NoSchedule"}, False),
    (None, False),
])
def test_known_ephemeral_taints(taint: dict | None, ephemeral: bool) -> None:
    assert is_known_ephemeral_taint(taint) is ephemeral
