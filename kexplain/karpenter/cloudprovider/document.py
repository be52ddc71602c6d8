"""Instance types as the Karpenter document prints them (its `instanceTypes` entries), in Go's formats."""
from __future__ import annotations

from typing import Any, Iterable, Mapping

from kexplain.apimachinery.quantity import Quantity, canonical
from kexplain.karpenter.cloudprovider.types import InstanceType, Offering, format_price


def resource_list_document(rl: Mapping[str, Quantity], drop_zero: bool = False,
                           known: dict[Any, Any] | None = None) -> dict[str, str]:
    """A resource list by name, each quantity's String(), zeros left out when `drop_zero`; `known`:
    the texts of the quantities met before, by value, format and text (a catalog repeats a few hundred)."""
    known = {} if known is None else known
    return {name: known.get(key := (q.value.numerator, q.value.denominator, q.fmt, q.text)) or known.setdefault(key, canonical(q))
            for name, q in sorted(rl.items()) if not (drop_zero and q.value == 0)}


def offering_text(o: Offering) -> str:
    """`ZONE CAPACITYTYPE PRICE`, with ` unavailable` for an offering that is not available."""
    text = f"{o.zone()} {o.capacity_type()} {format_price(o.price)}"
    return text if o.available else text + " unavailable"


def offerings_document(offerings: Iterable[Offering]) -> list[str]:
    """The available offerings' texts sorted, then the unavailable ones' sorted."""
    offerings = list(offerings)
    return (sorted(offering_text(o) for o in offerings if o.available)
            + sorted(offering_text(o) for o in offerings if not o.available))


def instance_type_document(it: InstanceType, known: dict[Any, Any] | None = None) -> dict[str, Any]:
    """One `instanceTypes` entry: name, capacity, overhead parts, allocatable, offerings. `known`: the
    texts met before in the same document (quantities'; offerings lists', by their offerings' ids: the
    classes' types share them)."""
    known = {} if known is None else known
    out: dict[str, Any] = {"name": it.name, "capacity": resource_list_document(it.capacity, True, known)}
    for key, rl in (("kubeReserved", it.overhead.kube_reserved), ("systemReserved", it.overhead.system_reserved),
                    ("evictionThreshold", it.overhead.eviction_threshold)):
        if rl:
            out[key] = resource_list_document(rl, False, known)
    out["allocatable"] = resource_list_document(it.allocatable(), True, known)
    ids = tuple(map(id, it.offerings))
    out["offerings"] = known.get(ids) or known.setdefault(ids, offerings_document(it.offerings))
    return out
