"""One Karpenter pass from loaded inputs to the document: the cluster state, the AWS cloud
provider over the EC2 world (`AWSCloud`), the provisioner, the document.

`AWSCloud` is what the provisioner asks of the cloud provider and the NodePools: each NodePool's
instance types (`GetInstanceTypes` of its EC2NodeClass), the price order and minValues checks of
InstanceTypes, whether a NodePool is ready, its limits.
"""
from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from kexplain.karpenter.inputs import PassInputs
from kexplain.karpenter.provisioning.scheduling.scheduler import Options
from kexplain.karpenter.scheduling.requirements import Requirements
from kexplain.karpenter.utils import resources
from kexplain.karpenter.utils.resources import ResourceList

_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")
# AMIFamilyFromAlias: an alias's family name (`al2023@latest`)
_ALIAS_FAMILIES = {"al2": "AL2", "al2023": "AL2023", "bottlerocket": "Bottlerocket", "windows2019": "Windows2019",
                   "windows2022": "Windows2022", "windows2025": "Windows2025"}


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _snake(value: Any) -> Any:
    """A JSON value with its keys in snake_case, as the provider reads an EC2NodeClass's parts."""
    if isinstance(value, dict):
        return {_CAMEL.sub(r"_\1", str(k)).lower(): _snake(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_snake(v) for v in value]
    return value


class EC2NodeClassView:
    """An EC2NodeClass object read through the provider's NodeClass interface; its status is the
    input's, or the README's default where the input leaves it out."""

    def __init__(self, obj: Mapping[str, Any], default_status: Mapping[str, Any]) -> None:
        self.obj = obj
        meta = _dict(obj.get("metadata"))
        self.name = meta.get("name") or ""
        self.deletion_timestamp = meta.get("deletionTimestamp")
        self.spec = _dict(obj.get("spec"))
        status = _dict(obj.get("status"))
        self.status = {**default_status, **status}

    def ami_family(self) -> str:
        if self.spec.get("amiFamily"):
            return str(self.spec["amiFamily"])
        for term in self.spec.get("amiSelectorTerms") or ():
            alias = _dict(term).get("alias")
            if isinstance(alias, str) and alias:
                return _ALIAS_FAMILIES.get(alias.split("@", 1)[0].lower(), "")
        return "Custom"

    def block_device_mappings(self) -> Any:
        return _snake(self.spec.get("blockDeviceMappings")) if self.spec.get("blockDeviceMappings") else None

    def capacity_reservations(self) -> Any:
        return _snake(self.status.get("capacityReservations") or [])

    def cpu_options(self) -> Any:
        return _snake(self.spec.get("cpuOptions")) if self.spec.get("cpuOptions") else None

    def instance_store_policy(self) -> str | None:
        return self.spec.get("instanceStorePolicy")

    def network_interfaces(self) -> Any:
        return _snake(self.spec.get("networkInterfaces")) if self.spec.get("networkInterfaces") else None

    def kubelet_configuration(self) -> Any:
        return _snake(self.spec.get("kubelet")) if self.spec.get("kubelet") else None

    def zone_info(self) -> Any:
        from kexplain.karpenter.aws.instancetype.instancetype import zone_info
        return zone_info(self.status.get("subnets") or [])

    def connection_tracking(self) -> Any:
        return None

    def placement_group_selector(self) -> Any:
        return None

    def ready(self) -> tuple[str, str, str]:
        """The status's Ready condition: (status, reason, message)."""
        for c in self.status.get("conditions") or ():
            if isinstance(c, dict) and c.get("type") == "Ready":
                return c.get("status") or "Unknown", c.get("reason") or "", c.get("message") or ""
        return "Unknown", "", ""


class AWSCloud:
    """The AWS cloud provider and the NodePools' status, as the provisioner asks them."""

    def __init__(self, inputs: PassInputs, world: Any) -> None:
        from kexplain.karpenter.aws.instancetype.instancetype import InstanceTypeProvider
        from kexplain.karpenter.aws.instancetype.types import Options as ProviderOptions
        from kexplain.karpenter.aws.nodeclass import default_status
        from kexplain.karpenter.aws.unavailableofferings import from_entries

        settings = inputs.settings
        if settings.instance_types is not None:
            world = world.keep_instance_types(settings.instance_types)
        self.world = world
        self.settings = settings
        self.provider = InstanceTypeProvider(
            world, ProviderOptions(settings.vm_memory_overhead_percent, settings.reserved_enis),
            from_entries((o.instance_type, o.zone, o.capacity_type) for o in settings.unavailable_offerings),
            settings.feature_gates.reserved_capacity)
        status = default_status(world, settings.zones)
        self.node_classes = {c.name: c for c in (EC2NodeClassView(o, status) for o in inputs.node_classes)}
        self._types: dict[str, tuple[list[Any], Any]] = {}

    # -- the NodePool's class --------------------------------------------------------------------
    def node_class_of(self, node_pool: Mapping[str, Any]) -> EC2NodeClassView | None:
        ref = _dict(_dict(_dict(_dict(node_pool.get("spec")).get("template")).get("spec")).get("nodeClassRef"))
        return self.node_classes.get(ref.get("name") or "")

    def get_instance_types(self, node_pool: Mapping[str, Any]) -> tuple[list[Any], BaseException | None]:
        from kexplain.karpenter.aws.cloudprovider import get_instance_types
        name = _dict(node_pool.get("metadata")).get("name") or ""
        if name not in self._types:
            self._types[name] = get_instance_types(node_pool, self.node_class_of(node_pool), self.provider)
        its, err = self._types[name]
        return list(its), err

    def node_pool_conditions(self, node_pool: Mapping[str, Any]) -> list[dict[str, str]]:
        """Its status conditions: the input's, else those Karpenter's NodePool readiness controller
        sets (NodeClassReady from its EC2NodeClass, Ready from its dependents)."""
        given = [c for c in _dict(node_pool.get("status")).get("conditions") or () if isinstance(c, dict)]
        if given:
            return given
        node_class = self.node_class_of(node_pool)
        if node_class is None:
            klass = {"type": "NodeClassReady", "status": "False", "reason": "NodeClassNotFound",
                     "message": "NodeClass not found on cluster"}
        elif node_class.deletion_timestamp:
            klass = {"type": "NodeClassReady", "status": "False", "reason": "NodeClassTerminating",
                     "message": "NodeClass is Terminating"}
        else:
            status, reason, message = node_class.ready()
            if status == "True":
                klass = {"type": "NodeClassReady", "status": "True", "reason": "NodeClassReady", "message": ""}
            elif status == "False":
                klass = {"type": "NodeClassReady", "status": "False", "reason": reason, "message": message}
            else:
                klass = {"type": "NodeClassReady", "status": "False", "reason": "NodeClassReadinessUnknown",
                         "message": "Node Class Readiness Unknown"}
        if klass["status"] == "True":
            ready = {"type": "Ready", "status": "True", "reason": "Ready", "message": ""}
        else:
            ready = {"type": "Ready", "status": "False", "reason": "UnhealthyDependents", "message": "NodeClassReady=False"}
        return [klass, ready]

    def node_pool_ready(self, node_pool: Mapping[str, Any]) -> bool:
        return any(c.get("type") == "Ready" and c.get("status") == "True" for c in self.node_pool_conditions(node_pool))

    # -- InstanceTypes -----------------------------------------------------------------------
    def order_by_price(self, instance_types: list[Any], requirements: Requirements) -> list[Any]:
        from kexplain.karpenter.cloudprovider.types import InstanceTypes
        return InstanceTypes(instance_types).order_by_price(requirements)

    def satisfies_min_values(self, instance_types: list[Any], requirements: Requirements) -> tuple[int, Any, Any]:
        from kexplain.karpenter.cloudprovider.types import InstanceTypes
        return InstanceTypes(instance_types).satisfies_min_values(requirements)

    def truncate(self, instance_types: list[Any], requirements: Requirements, max_items: int
                 ) -> tuple[list[Any], BaseException | None]:
        from kexplain.karpenter.cloudprovider.types import InstanceTypes
        return InstanceTypes(instance_types).truncate(requirements, max_items, self.settings.min_values_policy)

    def price_of(self, it: Any, requirements: Requirements) -> str:
        from kexplain.karpenter.cloudprovider.types import format_price
        price = it.cheapest_price(requirements)
        return "none" if price == float("inf") or price >= 1.7976931348623157e308 else format_price(price)

    # -- limits ------------------------------------------------------------------------------
    def limits(self, node_pool: Mapping[str, Any]) -> ResourceList | None:
        raw = _dict(node_pool.get("spec")).get("limits")
        return resources.parse_list(raw) if isinstance(raw, dict) else None

    def limits_exceeded_by(self, node_pool: Mapping[str, Any], usage: ResourceList) -> BaseException | None:
        from kexplain.karpenter.provisioning.provisioner import TextError
        limits = self.limits(node_pool)
        if not limits:
            return None
        for name, used in usage.items():
            limit = limits.get(name)
            if limit is not None and used.value > limit.value:
                # serrors.Wrap(..., "resource-name", name, "usage", usage.AsDec(), "limit", limit.AsDec())
                return TextError(f"resource usage exceeds limit (limit={_dec(limit)}, resource-name={name}, "
                                 f"usage={_dec(used)})")
        return None

    def validate_requirement(self, requirement: Mapping[str, Any]) -> BaseException | None:
        from kexplain.karpenter.apis.labels import is_restricted_label
        from kexplain.karpenter.provisioning.provisioner import TextError
        msg = is_restricted_label(str(requirement.get("key") or ""))
        return TextError(msg) if msg else None

    # -- the document's provider keys ------------------------------------------------------------
    def node_pools_key(self, node_pools: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        from kexplain.karpenter.aws.document import node_pool_instance_types
        out = []
        for np in node_pools:
            spec = _dict(np.get("spec"))
            weight = spec.get("weight")
            conditions = self.node_pool_conditions(np)
            doc: dict[str, Any] = {"name": _dict(np.get("metadata")).get("name") or "",
                                   "weight": weight if isinstance(weight, int) and not isinstance(weight, bool) else 0,
                                   "ready": self.node_pool_ready(np)}
            not_ready = [f"{c.get('type')}={c.get('status')} ({c.get('reason') or ''}: {c.get('message') or ''})"
                         for c in conditions if c.get("status") != "True"]
            if not_ready:
                doc["notReady"] = not_ready
            doc.update(node_pool_instance_types(np, self.node_class_of(np), self.provider))
            out.append(doc)
        return out

    def instance_types_key(self) -> dict[str, Any]:
        from kexplain.karpenter.aws.document import instance_types_key
        return instance_types_key(self.node_classes.values(), self.provider)


def _dec(q: Any) -> str:
    """Quantity.AsDec().String(): the value as a plain decimal."""
    from fractions import Fraction
    value: Fraction = q.value
    if value.denominator == 1:
        return str(value.numerator)
    text = f"{float(value):f}".rstrip("0")
    return text


def options_of(inputs: PassInputs) -> Options:
    s = inputs.settings
    return Options(strict_reserved_offerings=True, ignore_preferences=s.preference_policy == "Ignore",
                   min_values_best_effort=s.min_values_policy == "BestEffort",
                   reserved_capacity=s.feature_gates.reserved_capacity)


def run_pass(inputs: PassInputs, world: Any) -> dict[str, Any]:
    """The document of one pass over the loaded inputs and the EC2 world."""
    from kexplain.karpenter.document import build_document
    from kexplain.karpenter.provisioning.provisioner import schedule_pass
    from kexplain.karpenter.state.cluster import new_cluster

    cloud = AWSCloud(inputs, world)
    cluster = new_cluster(inputs)
    result = schedule_pass(inputs.pending, inputs.node_pools, inputs.daemonsets, cluster, cloud, options_of(inputs),
                           inputs.settings.preference_policy)
    return build_document(result, cloud.node_pools_key(inputs.node_pools), cloud.instance_types_key(), cloud.price_of)
