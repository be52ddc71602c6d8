"""The expander strategy of `--expander` (CA's expander/factory/expander_factory.go), with CA's
refusals (a repeated name, a name after `random`, an unknown one); `price` and `grpc` need what
kexplain does not have and are refused too."""
from __future__ import annotations

from typing import Any, Callable, Mapping

from kexplain.autoscaler.expander import Filter
from kexplain.autoscaler.expander.chain import Chain
from kexplain.autoscaler.expander.least_nodes import LeastNodes
from kexplain.autoscaler.expander.least_waste import LeastWaste
from kexplain.autoscaler.expander.most_pods import MostPods
from kexplain.autoscaler.expander.priority import Priority
from kexplain.autoscaler.expander.random import Random
from kexplain.errors import InputError, Source

RANDOM = "random"
_UNSUPPORTED = {"price": "the cloud provider's prices", "grpc": "a gRPC expander server"}


def _filters(configmap: Mapping[str, Any] | None) -> dict[str, Callable[[], Filter]]:
    return {"least-nodes": LeastNodes, "least-waste": LeastWaste, "most-pods": MostPods,
            "priority": lambda: Priority(configmap), RANDOM: Random}   # type: ignore[dict-item]


def accepted_names() -> list[str]:
    """The expander names kexplain runs, sorted."""
    return sorted(_filters(None))


def build(expander: str, priority_configmap: Mapping[str, Any] | None = None, *,
          source: Source | None = None, field: str = "expander") -> Chain:
    """The strategy for `--expander` (a comma-separated chain; `priority_configmap`: the priority expander's
    ConfigMap if any); InputError naming `source` and `field` where CA would refuse to start."""
    known = _filters(priority_configmap)
    accepted = ", ".join(accepted_names())
    filters: list[Filter] = []
    seen: list[str] = []
    for name in expander.split(","):
        if name in seen:
            raise InputError(f"Expander {name} was specified multiple times, each expander must not be "
                             "specified more than once", source=source, field=field)
        if seen and seen[-1] == RANDOM:
            raise InputError(f"Expander {name} came after an expander {RANDOM} that will always return only one "
                             f"result, this is not allowed since {name} will never be used", source=source, field=field)
        seen.append(name)
        if name in _UNSUPPORTED:
            raise InputError(f"Expander {name} needs {_UNSUPPORTED[name]}, which kexplain does not have "
                             f"(accepted: {accepted})", source=source, field=field)
        if name not in known:
            raise InputError(f"Expander {name} not supported (accepted: {accepted})", source=source, field=field)
        if name != RANDOM:
            filters.append(known[name]())
    return Chain(filters)
