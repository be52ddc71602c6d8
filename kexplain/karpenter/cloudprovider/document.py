"""Instance types as the Karpenter document prints them (its `instanceTypes` entries), in Go's formats."""
from __future__ import annotations

from typing import Any, Iterable, Mapping

from kexplain.apimachinery.quantity import Quantity
from kexplain.karpenter.cloudprovider.types import InstanceType, Offering, format_price
from kexplain.karpenter.utils.resources import to_json


def resource_list_document(rl: Mapping[str, Quantity], drop_zero: bool = False) -> dict[str, str]:
    """A resource list by name, each quantity's String(), zeros left out when `drop_zero`."""
    return to_json({name: q for name, q in rl.items() if not (drop_zero and q.value == 0)})


def offering_text(o: Offering) -> str:
    """`ZONE CAPACITYTYPE PRICE`, with ` unavailable` for an offering that is not available."""
    text = f"{o.zone()} {o.capacity_type()} {format_price(o.price)}"
    return text if o.available else text + " unavailable"


def offerings_document(offerings: Iterable[Offering]) -> list[str]:
    """The available offerings' texts sorted, then the unavailable ones' sorted."""
    offerings = list(offerings)
    return (sorted(offering_text(o) for o in offerings if o.available)
            + sorted(offering_text(o) for o in offerings if not o.available))


def instance_type_document(it: InstanceType, known: dict[tuple[int, ...], list[str]] | None = None) -> dict[str, Any]:
    """One `instanceTypes` entry: name, capacity, overhead parts, allocatable, offerings (`known`:
    the texts of offerings lists met before, by their offerings' ids: the classes' types share them)."""
    out: dict[str, Any] = {"name": it.name, "capacity": resource_list_document(it.capacity, drop_zero=True)}
    for key, rl in (("kubeReserved", it.overhead.kube_reserved), ("systemReserved", it.overhead.system_reserved),
                    ("evictionThreshold", it.overhead.eviction_threshold)):
        if rl:
            out[key] = resource_list_document(rl)
    out["allocatable"] = resource_list_document(it.allocatable(), drop_zero=True)
    key = tuple(map(id, it.offerings)) if known is not None else ()
    texts = known.get(key) if known is not None else None
    if texts is None:
        texts = offerings_document(it.offerings)
        if known is not None:
            known[key] = texts
    out["offerings"] = texts
    return out
