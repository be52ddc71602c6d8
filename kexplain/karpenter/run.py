"""One Karpenter pass from loaded inputs to the document: the cluster state, the AWS cloud
provider over the EC2 world (`AWSCloud`), the provisioner (`schedule`: a `Pass`, which the fix
suggestions reuse), the document (`document`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from kexplain.admission.extendedresourcetoleration import noted
from kexplain.karpenter.apis.nodeclaim import NodeSelectorRequirementWithMinValues
from kexplain.karpenter.apis.nodepool import is_ready, node_pool_conditions, validate_requirement
from kexplain.karpenter.apis.status import Condition
from kexplain.karpenter.aws.cloudprovider import get_instance_types
from kexplain.karpenter.aws.document import instance_types_key, node_pool_instance_types
from kexplain.karpenter.aws.instancetype.instancetype import InstanceTypeProvider, StaticNodeClass, zone_info
from kexplain.karpenter.aws.instancetype.types import Options as ProviderOptions
from kexplain.karpenter.aws.nodeclass import default_status_subnets
from kexplain.karpenter.aws.unavailableofferings import from_entries
from kexplain.karpenter.cloudprovider.types import InstanceTypes, format_price
from kexplain.karpenter.disruption.controller import disrupt
from kexplain.karpenter.disruption.document import build_document as build_disruption_document
from kexplain.karpenter.disruption.helpers import shared_node_bases
from kexplain.karpenter.document import build_document
from kexplain.karpenter.errors import GoError, combine
from kexplain.karpenter.explain import explain_pass
from kexplain.karpenter.inputs import PassInputs
from kexplain.karpenter.provisioning.provisioner import schedule_pass
from kexplain.karpenter.provisioning.scheduling.scheduler import Options
from kexplain.karpenter.provisioning.scheduling.typeindex import TypeIndex
from kexplain.karpenter.scheduling.requirements import Requirements
from kexplain.karpenter.state.cluster import new_cluster
from kexplain.apimachinery.identity import as_dict
from kexplain.karpenter.utils.resources import ResourceList



class AWSCloud:
    """The AWS cloud provider and the NodePools' status, as the provisioner asks them (NodePools by
    their stored objects, parsed ones looked up by name)."""

    def __init__(self, inputs: PassInputs, world: Any) -> None:
        settings = inputs.settings
        if settings.instance_types is not None:
            world = world.keep_instance_types(settings.instance_types)
        self.world = world
        self.settings = settings
        shared = shared_provider(world, ProviderOptions(settings.vm_memory_overhead_percent, settings.reserved_enis),
                                 from_entries((o.instance_type, o.zone, o.capacity_type)
                                              for o in settings.unavailable_offerings),
                                 settings.feature_gates.reserved_capacity)
        self.provider = shared.provider
        default_subnets = default_status_subnets(world, settings.zones)
        self.node_classes = {c.name: c for c in inputs.node_classes}
        self.views = {c.name: shared.view(node_class_view(c, default_subnets)) for c in inputs.node_classes}
        self.node_pools = {np.name: np for np in inputs.node_pools}
        self._types: dict[str, tuple[list[Any], Any]] = {}
        # The scheduler's index of the instance types, shared by the passes that share the
        # provider (the suggestions' passes run again, another section's pass over the same
        # world and settings): see provisioning.scheduling.typeindex.
        self.type_index = shared.type_index
        self._conditions: dict[str, tuple[Any, ...]] = {}
        self._price_texts: dict[float, str] = {}    # (a few hundred prices, written for every NodeClaim's types)

    def _pool(self, node_pool: Mapping[str, Any]) -> Any:
        return self.node_pools[as_dict(node_pool.get("metadata")).get("name") or ""]

    # -- the NodePool's class --------------------------------------------------------------------
    def node_class_of(self, node_pool: Mapping[str, Any]) -> Any:
        """The provider's view of the NodePool's EC2NodeClass; None when it is missing or being
        deleted (GetInstanceTypes then resolves no types)."""
        name = self._pool(node_pool).spec.template.spec.node_class_ref.name
        node_class = self.node_classes.get(name)
        return None if node_class is None or node_class.deleting else self.views[name]

    def get_instance_types(self, node_pool: Mapping[str, Any]) -> tuple[list[Any], BaseException | None]:
        name = self._pool(node_pool).name
        if name not in self._types:
            self._types[name] = get_instance_types(node_pool, self.node_class_of(node_pool), self.provider)
        its, err = self._types[name]
        return list(its), err

    def node_pool_conditions(self, node_pool: Mapping[str, Any]) -> tuple[Any, ...]:
        """Its status conditions: the input's, else those Karpenter's NodePool validation and
        readiness controllers set."""
        np = self._pool(node_pool)
        if np.name not in self._conditions:
            node_class = self.node_classes.get(np.spec.template.spec.node_class_ref.name)
            self._conditions[np.name] = node_pool_conditions(
                np, node_class_ready(node_class) if node_class is not None else None, found=node_class is not None,
                terminating=node_class is not None and node_class.deleting)
        return self._conditions[np.name]

    def node_pool_ready(self, node_pool: Mapping[str, Any]) -> bool:
        return is_ready(self.node_pool_conditions(node_pool))

    # -- InstanceTypes -----------------------------------------------------------------------
    def satisfies_min_values(self, instance_types: list[Any], requirements: Requirements) -> tuple[int, Any, Any]:
        return InstanceTypes(instance_types).satisfies_min_values(requirements)

    def price_text(self, price: float) -> str:
        """A price as the document writes it (`none` for MaxFloat64: no offering)."""
        if price >= 1.7976931348623157e308:
            return "none"
        text = self._price_texts.get(price) if price > 0 else None      # (-0.0 == 0.0: not remembered)
        if text is None:
            text = format_price(price)
            if price > 0:
                self._price_texts[price] = text
        return text

    # -- limits and validation -----------------------------------------------------------------
    def limits(self, node_pool: Mapping[str, Any]) -> ResourceList | None:
        limits = self._pool(node_pool).spec.limits
        return dict(limits) if limits is not None else None

    def limits_exceeded_by(self, node_pool: Mapping[str, Any], usage: ResourceList) -> BaseException | None:
        err = self._pool(node_pool).spec.exceeded_by(usage)
        return GoError(str(err)) if err is not None else None

    def validate_requirement(self, requirement: Mapping[str, Any]) -> BaseException | None:
        """v1.ValidateRequirement of a pod's requirement, its errors combined as multierr does."""
        req = NodeSelectorRequirementWithMinValues(str(requirement.get("key") or ""),
                                                   str(requirement.get("operator") or ""),
                                                   tuple(str(v) for v in requirement.get("values") or ()))
        return combine([GoError(e) for e in validate_requirement(req)])

    # -- the document's provider keys ------------------------------------------------------------
    def node_pools_key(self, node_pools: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for obj in node_pools:
            np = self._pool(obj)
            conditions = self.node_pool_conditions(obj)
            doc: dict[str, Any] = {"name": np.name, "weight": np.weight, "ready": self.node_pool_ready(obj)}
            not_ready = [str(c) for c in conditions if not c.is_true()]
            if not_ready:
                doc["notReady"] = not_ready
            doc.update(node_pool_instance_types(obj, self.node_class_of(obj), self.provider))
            out.append(doc)
        return out

    def instance_types_key(self) -> dict[str, Any]:
        return instance_types_key(self.views.values(), self.provider)


@dataclass
class SharedProvider:
    """An instance-type provider with what it was made of, its NodeClass views and its `TypeIndex`:
    the passes of one process over an equal world with equal provider settings (`kexplain
    cluster`'s pending and Karpenter sections, `kexplain karpenter --disruption` after the
    pending pass) resolve and index the instance types once. Read only, as Go's cached types are."""

    world: Any
    options: ProviderOptions
    unavailable: Any
    reserved_capacity: bool
    provider: InstanceTypeProvider
    type_index: TypeIndex
    views: list[Any]

    def view(self, made: Any) -> Any:
        """The view equal to `made` made already (the provider's per-class cache is by identity),
        else `made`, kept."""
        for view in self.views:
            if view == made:
                return view
        if len(self.views) >= SHARED_VIEWS:
            del self.views[0]
        self.views.append(made)
        return made


SHARED_PROVIDERS = 4        # the providers kept (each holds its resolved types)
SHARED_VIEWS = 32           # the NodeClass views kept per provider
_shared: list[SharedProvider] = []      # (bounded: SHARED_PROVIDERS, the latest last)


def shared_provider(world: Any, options: ProviderOptions, unavailable: Any, reserved_capacity: bool) -> SharedProvider:
    """The provider made over an equal world with equal settings (equal by value: the world each
    section loads is its own object), else a new one, kept."""
    for i, entry in enumerate(_shared):
        if (entry.options == options and entry.unavailable == unavailable
                and entry.reserved_capacity == reserved_capacity and entry.world == world):
            _shared.append(_shared.pop(i))
            return entry
    entry = SharedProvider(world, options, unavailable, reserved_capacity,
                           InstanceTypeProvider(world, options, unavailable, reserved_capacity), TypeIndex(), [])
    _shared.append(entry)
    del _shared[:-SHARED_PROVIDERS]
    return entry


def node_class_ready(node_class: Any) -> Any:
    """The EC2NodeClass's Ready condition: its status's, or `Ready=True` where the input gives no
    conditions (the README's default status: its controller did not run)."""
    if node_class.status.conditions is None:
        return Condition("Ready", "True", "Ready")
    return node_class.ready_condition()


def node_class_view(node_class: Any, default_subnets: Sequence[Mapping[str, str]]) -> Any:
    """The provider's NodeClass of a stored EC2NodeClass: its spec, and its status subnets (the
    README's default where the input gives none)."""
    status = node_class.status
    subnets = [{"id": sn.id, "zone": sn.zone, "zoneID": sn.zone_id} for sn in status.subnets] \
        if status.subnets is not None else list(default_subnets)
    return StaticNodeClass(name=node_class.name, family=node_class.ami_family(),
                           kubelet=node_class.spec.kubelet, zones=tuple(zone_info(subnets)),
                           block_devices=node_class.spec.block_device_mappings or None,
                           store_policy=node_class.spec.instance_store_policy,
                           interfaces=node_class.spec.network_interfaces or None,
                           reservations=tuple(status.capacity_reservations or ()))


def options_of(inputs: PassInputs) -> Options:
    s = inputs.settings
    return Options(strict_reserved_offerings=True, ignore_preferences=s.preference_policy == "Ignore",
                   min_values_best_effort=s.min_values_policy == "BestEffort",
                   reserved_capacity=s.feature_gates.reserved_capacity)


EXPLAIN_UNPLACED = "unplaced"      # the `explained` key for the pods Karpenter does not place
EXPLAIN_ALL = "all"                # ... for every pending pod


@dataclass
class Pass:
    """One pass run: its inputs, the cloud provider and cluster state it ran over, and the
    provisioner's result (`PassResult`, the scheduler's final state with it)."""

    inputs: PassInputs
    cloud: AWSCloud
    cluster: Any
    result: Any


def schedule(inputs: PassInputs, world: Any, cloud: AWSCloud | None = None) -> Pass:
    """Karpenter's pass over the inputs and the EC2 world (`cloud`: a provider made for `inputs`); the
    cluster state's notes join `inputs.warnings`."""

    cloud = cloud if cloud is not None else AWSCloud(inputs, world)
    cluster = new_cluster(inputs)
    inputs.warnings.extend(cluster.warnings)
    result = schedule_pass(inputs.pending, [np.obj for np in inputs.node_pools], inputs.daemonsets, cluster, cloud,
                           options_of(inputs), inputs.settings.preference_policy, shared_node_bases(cluster))
    return Pass(inputs, cloud, cluster, result)


def document(done: Pass, explain: str | None = EXPLAIN_UNPLACED) -> dict[str, Any]:
    """The pass's document, with the explanation (`kexplain.karpenter.explain`) under
    `explained` unless `explain` is None."""

    cloud, result = done.cloud, done.result
    pools = [np.obj for np in done.inputs.node_pools]
    doc = build_document(result, cloud.node_pools_key(pools), cloud.instance_types_key(), cloud.price_text)
    if explain is not None:
        doc["explained"] = explain_pass(result, cloud, every_pod=explain == EXPLAIN_ALL)
    said = noted(done.inputs.kube.admission, [(f"{p.namespace}/{p.name}", p.obj.get("spec"))
                                              for p in done.inputs.pending])
    if said is not None:            # the tolerations the cluster's API server gave the pods (EKS, GKE)
        doc["admission"] = said
    return doc



def disruption(inputs: PassInputs, world: Any, now: Any = None, rules: Any = None) -> Any:
    """Karpenter's disruption pass over the inputs (`kexplain.karpenter.disruption.controller`):
    the cluster state, the AWS provider, the pending pods' nominations, every method in order, by
    the release's rules (`disruption.versions`; default v1.13.0).
    Returns the `DisruptionResult`; `disruption_document` makes its document."""
    cloud = AWSCloud(inputs, world)
    cluster = new_cluster(inputs)
    inputs.warnings.extend(cluster.warnings)
    return disrupt(inputs, cloud, cluster, now if now is not None else inputs.now, options=options_of(inputs),
                   **({"rules": rules} if rules is not None else {}))


def disruption_document(result: Any) -> dict[str, Any]:
    return build_disruption_document(result)
