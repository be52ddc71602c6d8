"""The document keys the AWS provider answers alone: `instanceTypes` per EC2NodeClass and each
NodePool's `instanceTypes`/`instanceTypeCount`."""
from __future__ import annotations

from typing import Any, Iterable

from kexplain.karpenter.aws.cloudprovider import get_instance_types
from kexplain.karpenter.aws.instancetype.instancetype import InstanceTypeProvider, NodeClass
from kexplain.karpenter.cloudprovider.document import instance_type_document


def instance_types_key(node_classes: Iterable[NodeClass], provider: InstanceTypeProvider) -> dict[str, list[dict[str, Any]]]:
    """`instanceTypes`: per EC2NodeClass (by name, in the order given), its types sorted by name;
    a class whose List fails (e.g. no subnets) is left out."""
    out: dict[str, list[dict[str, Any]]] = {}
    known: dict[Any, Any] = {}        # (texts met before: `instance_type_document`)
    for node_class in node_classes:
        types, err = provider.list(node_class)
        if err is None:
            out[node_class.name] = [instance_type_document(it, known) for it in sorted(types, key=lambda it: it.name)]
    return out


def node_pool_instance_types(node_pool: Any, node_class: NodeClass | None,
                             provider: InstanceTypeProvider) -> dict[str, Any]:
    """`nodePools[].instanceTypes` and `.instanceTypeCount` for one NodePool."""
    types, err = get_instance_types(node_pool, node_class, provider)
    names = [] if err is not None else sorted(it.name for it in types)
    return {"instanceTypes": names, "instanceTypeCount": len(names)}
