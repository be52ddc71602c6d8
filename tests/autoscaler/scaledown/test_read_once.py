"""What scale-down's eligibility check reads of a node, read once per node: its GPU configuration (the
utilization and the threshold), its allocatable (cpu and memory), and each shape's requests in whole
thousandths (`Requested.milli`), the node's sum of them added in integers."""
from __future__ import annotations

from typing import Any, Callable

import pytest

from kexplain.apimachinery.quantity import parse_quantity
from kexplain.autoscaler.nodegroups import NodeGroup
from kexplain.autoscaler.scaledown import eligibility, utilization
from kexplain.autoscaler.scaledown.config import ScaleDownConfig
from kexplain.autoscaler.scaledown.utilization import PodRequests, Requested, _milli_sum
from tests.autoscaler.scaledown.objects import NOW_NS, node, node_info, pod


def _counting(monkeypatch: pytest.MonkeyPatch, module: Any, name: str, calls: list[str]) -> None:
    real: Callable[..., Any] = getattr(module, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(name)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)


def test_a_nodes_gpu_configuration_and_allocatable_are_read_once_per_check(monkeypatch: pytest.MonkeyPatch) -> None:
    info = node_info(node("n1", cpu="4", memory="4Gi"), pod("a", cpu="1", memory="1Gi"))
    group = NodeGroup("g", 0, 10, None, {})
    expected = eligibility.check(info, group, ScaleDownConfig(), NOW_NS, PodRequests())
    calls: list[str] = []
    for module in (eligibility, utilization):
        _counting(monkeypatch, module, "node_gpu_config", calls)
    _counting(monkeypatch, utilization, "resource_list", calls)
    assert eligibility.check(info, group, ScaleDownConfig(), NOW_NS, PodRequests()) == expected
    assert sorted(calls) == ["node_gpu_config", "resource_list"]      # not twice each


def test_whole_thousandths_are_kept_per_shape_and_summed_from_them() -> None:
    shape = Requested({"cpu": parse_quantity("250m"), "memory": parse_quantity("1Gi")})
    assert shape.milli == {"cpu": 250, "memory": 1024**3 * 1000}
    assert Requested({"cpu": parse_quantity("0.0005")}).milli == {}     # finer than a thousandth: the exact sum
    shape.amounts = {}              # (the node's sum reads the shape's thousandths, not its amounts again)
    assert _milli_sum({shape: 3}, "cpu") == 750
