"""EC2NodeClass (karpenter.k8s.aws/v1, the AWS provider's `pkg/apis/v1/ec2nodeclass.go` and
ec2nodeclass_status.go): what the provider reads to size and launch instances, and its status."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from kexplain.apimachinery import quantity
from kexplain.errors import InputError, Source
from kexplain.karpenter.apis import schema as s
from kexplain.karpenter.apis.labels import (AMI_FAMILY_AL2, AMI_FAMILY_AL2023, AMI_FAMILY_BOTTLEROCKET,
                                            AMI_FAMILY_CUSTOM, AMI_FAMILY_WINDOWS2019, AMI_FAMILY_WINDOWS2022,
                                            AMI_FAMILY_WINDOWS2025, AWS_GROUP)
from kexplain.karpenter.apis.nodeclaim import admit
from kexplain.karpenter.apis.status import CONDITION_READY, Condition, ConditionSet, parse_conditions

KIND = "EC2NodeClass"
QUALIFIED_KIND = "EC2NodeClass.karpenter.k8s.aws"
# The node classes the AWS cloud provider supports (GetSupportedNodeClasses), as (group, kind).
SUPPORTED_NODE_CLASSES = frozenset({(AWS_GROUP, KIND)})

# amiFamilyFromAlias's families (no Custom), matched by their lower-case names.
ALIAS_FAMILIES = (AMI_FAMILY_AL2, AMI_FAMILY_AL2023, AMI_FAMILY_BOTTLEROCKET, AMI_FAMILY_WINDOWS2019,
                  AMI_FAMILY_WINDOWS2022, AMI_FAMILY_WINDOWS2025)
EVICTION_SIGNALS = ("memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available",
                    "imagefs.inodesFree", "pid.available")
RESERVED_RESOURCES = ("cpu", "memory", "ephemeral-storage", "pid")

CONDITION_SUBNETS_READY = "SubnetsReady"
CONDITION_SECURITY_GROUPS_READY = "SecurityGroupsReady"
CONDITION_AMIS_READY = "AMIsReady"
CONDITION_INSTANCE_PROFILE_READY = "InstanceProfileReady"
CONDITION_VALIDATION_SUCCEEDED = "ValidationSucceeded"
CONDITION_PLACEMENT_GROUP_READY = "PlacementGroupReady"
# StatusConditions' dependents (capacity reservations only with that feature on, off here).
STATUS_DEPENDENTS = (CONDITION_AMIS_READY, CONDITION_SUBNETS_READY, CONDITION_SECURITY_GROUPS_READY,
                     CONDITION_INSTANCE_PROFILE_READY, CONDITION_VALIDATION_SUCCEEDED,
                     CONDITION_PLACEMENT_GROUP_READY)


# -- the objects -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class SelectorTerm:
    """An AMI selector term: its alias, the one field the pass reads (the schema checks the rest)."""

    alias: str = ""


@dataclass(frozen=True)
class KubeletConfiguration:
    """The kubelet settings that shape instance types (the instance-type provider reads these)."""

    max_pods: int | None = None
    pods_per_core: int | None = None
    system_reserved: Mapping[str, str] | None = None
    kube_reserved: Mapping[str, str] | None = None
    eviction_hard: Mapping[str, str] | None = None


@dataclass(frozen=True)
class BlockDevice:
    volume_size: quantity.Quantity | None = None


@dataclass(frozen=True)
class BlockDeviceMapping:
    device_name: str | None = None
    ebs: BlockDevice | None = None
    root_volume: bool = False


@dataclass(frozen=True)
class NetworkInterface:
    network_card_index: int
    device_index: int
    interface_type: str


@dataclass(frozen=True)
class Alias:
    family: str
    version: str

    def __str__(self) -> str:
        return f"{self.family}@{self.version}"


@dataclass(frozen=True)
class EC2NodeClassSpec:
    """What the instance-type provider reads of the spec (the stored object keeps all of it)."""

    ami_selector_terms: tuple[SelectorTerm, ...]
    ami_family: str | None = None
    kubelet: KubeletConfiguration | None = None
    block_device_mappings: tuple[BlockDeviceMapping, ...] = ()
    instance_store_policy: str | None = None
    network_interfaces: tuple[NetworkInterface, ...] = ()


@dataclass(frozen=True)
class Subnet:
    id: str
    zone: str
    zone_id: str = ""


CAPACITY_RESERVATION_TYPE_DEFAULT = "default"
CAPACITY_RESERVATION_STATE_ACTIVE = "active"
CAPACITY_RESERVATION_STATE_EXPIRING = "expiring"


@dataclass(frozen=True)
class CapacityReservation:
    """One of `status.capacityReservations` (Go's v1.CapacityReservation; the CRD's defaults set)."""

    id: str
    instance_type: str
    availability_zone: str
    instance_match_criteria: str = ""
    owner_id: str = ""
    reservation_type: str = CAPACITY_RESERVATION_TYPE_DEFAULT
    interruptible: bool = False
    state: str = CAPACITY_RESERVATION_STATE_ACTIVE
    end_time: str | None = None


@dataclass(frozen=True)
class EC2NodeClassStatus:
    """The status as the input writes it: each part None when left out (to be defaulted)."""

    subnets: tuple[Subnet, ...] | None = None
    conditions: tuple[Condition, ...] | None = None
    capacity_reservations: tuple[CapacityReservation, ...] | None = None


@dataclass(frozen=True)
class EC2NodeClass:
    name: str
    generation: int
    deleting: bool
    spec: EC2NodeClassSpec
    status: EC2NodeClassStatus
    obj: Mapping[str, Any] = field(repr=False, compare=False, default_factory=dict)

    def alias(self) -> Alias | None:
        """Alias: the first amiSelectorTerm's alias (`al2023@latest`), family in its proper case."""
        term = next((t for t in self.spec.ami_selector_terms if t.alias), None)
        if term is None:
            return None
        family, _, version = term.alias.partition("@")
        proper = next(f for f in ALIAS_FAMILIES if f.lower() == family)     # the schema checked it
        return Alias(proper, version)

    def ami_family(self) -> str:
        """AMIFamily: spec.amiFamily, else the alias's family, else Custom."""
        if self.spec.ami_family is not None:
            return self.spec.ami_family
        alias = self.alias()
        return alias.family if alias is not None else AMI_FAMILY_CUSTOM

    def ready_condition(self) -> Condition | None:
        """StatusConditions().Get(Ready): the status's Ready condition, else what the condition set
        computes from the dependents (Unknown while any is missing)."""
        conditions = self.status.conditions or ()
        ready = next((c for c in conditions if c.type == CONDITION_READY), None)
        if ready is not None:
            return ready
        return ConditionSet(STATUS_DEPENDENTS, conditions, generation=self.generation).get(CONDITION_READY)


# -- the CRD ---------------------------------------------------------------------------------------
_TAGS_RULES = ((lambda tags: all(k != "" and v != "" for k, v in tags.items()),
                "empty tag keys or values aren't supported"),)


def _exactly_one_alias_family(family: str, alias: str) -> s.Rule:
    def rule(spec: Any) -> bool:
        if "amiFamily" not in spec:
            return True
        uses = any("alias" in t and (re.match(r"[^@]+", t["alias"]) or [""])[0] == alias
                   for t in s.get(spec, "amiSelectorTerms"))
        return spec["amiFamily"] in ("Custom", family) if uses else True
    article = "an" if family.startswith("A") else "a"
    return rule, f"if set, amiFamily must be '{family}' or 'Custom' when using {article} {family} alias"


def _ami_terms_rules() -> tuple[s.Rule, ...]:
    def fields(t: Any, *names: str) -> bool:
        return any(n in t for n in names)
    return (
        (lambda terms: all(fields(t, "tags", "id", "name", "alias", "ssmParameter") for t in terms),
         "expected at least one, got none, ['tags', 'id', 'name', 'alias', 'ssmParameter']"),
        (lambda terms: not any("id" in t and fields(t, "alias", "tags", "name", "owner") for t in terms),
         "'id' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms"),
        (lambda terms: not any("alias" in t and fields(t, "id", "tags", "name", "owner") for t in terms),
         "'alias' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms"),
        (lambda terms: not (any("alias" in t for t in terms) and len(terms) != 1),
         "'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms"),
    )


_ALIAS_FAMILY_NAMES = ("al2", "al2023", "bottlerocket", "windows2019", "windows2022", "windows2025")
_WINDOWS = ("windows2019", "windows2022", "windows2025")

_ALIAS_RULES = (
    (lambda a: re.search(r"^[a-zA-Z0-9]+@.+$", a) is not None,
     "'alias' is improperly formatted, must match the format 'family@version'"),
    (lambda a: a.split("@")[0] in _ALIAS_FAMILY_NAMES,
     "family is not supported, must be one of the following: 'al2', 'al2023', 'bottlerocket', 'windows2019', "
     "'windows2022', 'windows2025'"),
    (lambda a: _windows_latest(a), "windows families may only specify version 'latest'"),
)


def _windows_latest(alias: str) -> bool:
    parts = alias.split("@")
    if parts[0] not in _WINDOWS:
        return True
    if len(parts) < 2:
        raise s.RuleError("index out of bounds: 1")
    return parts[1] == "latest"


def _reserved_rules(name: str) -> tuple[s.Rule, ...]:
    return ((lambda m: all(k in RESERVED_RESOURCES for k in m),
             f"valid keys for {name} are ['cpu','memory','ephemeral-storage','pid']"),
            (lambda m: all(not v.startswith("-") for v in m.values()),
             f"{name} value cannot be a negative resource quantity"))


_SIGNALS_TEXT = "[" + ",".join(f"'{x}'" for x in EVICTION_SIGNALS) + "]"


def _eviction_rules(name: str) -> tuple[s.Rule, ...]:
    return ((lambda m: all(k in EVICTION_SIGNALS for k in m), f"valid keys for {name} are {_SIGNALS_TEXT}"),)


def _soft_matches(k: Any) -> bool:
    if "evictionSoft" not in k:
        return True
    grace = s.get(k, "evictionSoftGracePeriod")
    return all(e in grace for e in k["evictionSoft"])


def _grace_matches(k: Any) -> bool:
    if "evictionSoftGracePeriod" not in k:
        return True
    soft = s.get(k, "evictionSoft")
    return all(e in soft for e in k["evictionSoftGracePeriod"])


_KUBELET_RULES = (
    (lambda k: k["imageGCHighThresholdPercent"] > k["imageGCLowThresholdPercent"]
     if "imageGCHighThresholdPercent" in k and "imageGCLowThresholdPercent" in k else True,
     "imageGCHighThresholdPercent must be greater than imageGCLowThresholdPercent"),
    (_soft_matches, "evictionSoft OwnerKey does not have a matching evictionSoftGracePeriod"),
    (_grace_matches, "evictionSoftGracePeriod OwnerKey does not have a matching evictionSoft"),
)

_EBS_RULES = (
    (lambda e: "snapshotID" in e or "volumeSize" in e, "snapshotID or volumeSize must be defined"),
    (lambda e: "volumeInitializationRate" not in e or e.get("snapshotID", "") != "",
     "snapshotID must be set when volumeInitializationRate is set"),
)


def _network_interfaces_rules() -> tuple[s.Rule, ...]:
    def primary(nics: list) -> bool:
        return len(nics) == 0 or any(s.get(x, "deviceIndex") == 0 and s.get(x, "networkCardIndex") == 0
                                     and s.get(x, "interfaceType") == "interface" for x in nics)

    def unique(nics: list) -> bool:
        for x in nics:
            same = [y for y in nics if y["networkCardIndex"] == x["networkCardIndex"] and
                    y["deviceIndex"] == x["deviceIndex"]]
            efa = [y for y in nics if y["networkCardIndex"] == x["networkCardIndex"] and
                   y["interfaceType"] == "efa-only"]
            if len(same) != 1 or (x["interfaceType"] == "efa-only" and len(efa) != 1):
                return False
        return True
    return ((primary, "networkInterfaces must include a primary interface with interfaceType='interface'"),
            (unique, "networkInterfaces must not have duplicate networkCardIndex and deviceIndex pairs, and can "
                     "have at most one efa device per network card"))


def _selector_terms_rules(fields_rule: tuple[str, ...], what: str, exclusive: tuple[tuple[str, tuple[str, ...]], ...],
                          empty_message: str | None,
                          wording: str = "cannot be set with a combination of other fields in") -> tuple[s.Rule, ...]:
    rules: list[s.Rule] = []
    if empty_message:
        rules.append((lambda terms: len(terms) != 0, empty_message))
    names = ", ".join(f"'{f}'" for f in fields_rule)
    rules.append((lambda terms: all(any(f in t for f in fields_rule) for t in terms),
                  f"expected at least one, got none, [{names}]"))
    for key, others in exclusive:
        # The CRD writes these as `!self.all(...)`: refused only when every term mixes them.
        rules.append((lambda terms, key=key, others=others:
                      not all(key in t and any(o in t for o in others) for t in terms),
                      f"'{key}' is mutually exclusive, {wording} {what}"))
    return tuple(rules)


SPEC_RULES: tuple[s.Rule, ...] = (
    (lambda spec: ("role" in spec) != ("instanceProfile" in spec),
     "must specify exactly one of ['role', 'instanceProfile']"),
    _exactly_one_alias_family("AL2", "al2"),
    _exactly_one_alias_family("AL2023", "al2023"),
    _exactly_one_alias_family("Bottlerocket", "bottlerocket"),
    _exactly_one_alias_family("Windows2019", "windows2019"),
    _exactly_one_alias_family("Windows2022", "windows2022"),
    _exactly_one_alias_family("Windows2025", "windows2025"),
    (lambda spec: True if any("alias" in t for t in s.get(spec, "amiSelectorTerms")) else "amiFamily" in spec,
     "must specify amiFamily if amiSelectorTerms does not contain an alias"),
)

_RESTRICTED_TAGS = (
    (lambda tags: all(k != "" for k in tags), "empty tag keys aren't supported"),
    (lambda tags: all(k != "eks:eks-cluster-name" for k in tags),
     "tag contains a restricted tag matching eks:eks-cluster-name"),
    (lambda tags: all(not k.startswith("kubernetes.io/cluster") for k in tags),
     "tag contains a restricted tag matching kubernetes.io/cluster/"),
    (lambda tags: all(k != "karpenter.sh/nodepool" for k in tags),
     "tag contains a restricted tag matching karpenter.sh/nodepool"),
    (lambda tags: all(k != "karpenter.sh/nodeclaim" for k in tags),
     "tag contains a restricted tag matching karpenter.sh/nodeclaim"),
    (lambda tags: all(k != "karpenter.k8s.aws/ec2nodeclass" for k in tags),
     "tag contains a restricted tag matching karpenter.k8s.aws/ec2nodeclass"),
)

_RULES: dict[str, tuple[s.Rule, ...]] = {
    "EC2NodeClass.tags": _TAGS_RULES,
    "EC2NodeClass.spec.subnetSelectorTerms": _selector_terms_rules(
        ("tags", "id"), "a subnet selector term", (("id", ("tags",)),), "subnetSelectorTerms cannot be empty"),
    "EC2NodeClass.spec.securityGroupSelectorTerms": _selector_terms_rules(
        ("tags", "id", "name"), "a security group selector term", (("id", ("tags", "name")), ("name", ("tags", "id"))),
        "securityGroupSelectorTerms cannot be empty"),
    "EC2NodeClass.spec.capacityReservationSelectorTerms": _selector_terms_rules(
        ("tags", "id", "instanceMatchCriteria"), "a capacity reservation selector term",
        (("id", ("tags", "ownerID", "instanceMatchCriteria")),), None, "cannot be set along with other fields in"),
    "EC2NodeClass.spec.placementGroupSelector": (
        (lambda p: "name" in p or "id" in p, "expected at least one, got none, ['name', 'id']"),
        (lambda p: not ("name" in p and "id" in p), "'name' and 'id' are mutually exclusive")),
    "EC2NodeClass.spec.amiSelectorTerms[].alias": _ALIAS_RULES,
    "EC2NodeClass.spec.amiSelectorTerms": _ami_terms_rules(),
    "EC2NodeClass.spec.role": ((lambda r: r != "", "role cannot be empty"),),
    "EC2NodeClass.spec.instanceProfile": ((lambda r: r != "", "instanceProfile cannot be empty"),),
    "EC2NodeClass.spec.tags": _RESTRICTED_TAGS,
    "EC2NodeClass.spec.kubelet.systemReserved": _reserved_rules("systemReserved"),
    "EC2NodeClass.spec.kubelet.kubeReserved": _reserved_rules("kubeReserved"),
    "EC2NodeClass.spec.kubelet.evictionHard": _eviction_rules("evictionHard"),
    "EC2NodeClass.spec.kubelet.evictionSoft": _eviction_rules("evictionSoft"),
    "EC2NodeClass.spec.kubelet.evictionSoftGracePeriod": _eviction_rules("evictionSoftGracePeriod"),
    "EC2NodeClass.spec.kubelet": _KUBELET_RULES,
    "EC2NodeClass.spec.blockDeviceMappings[].ebs": _EBS_RULES,
    "EC2NodeClass.spec.blockDeviceMappings": ((lambda m: sum(1 for x in m if x.get("rootVolume") is True) <= 1,
                                               "must have only one blockDeviceMappings with rootVolume"),),
    "EC2NodeClass.spec.networkInterfaces": _network_interfaces_rules(),
    "EC2NodeClass.spec.connectionTracking": (
        (lambda c: any(k in c for k in ("tcpEstablishedTimeout", "udpStreamTimeout", "udpTimeout")),
         "at least one of tcpEstablishedTimeout, udpStreamTimeout, or udpTimeout must be set"),),
    "EC2NodeClass.spec": SPEC_RULES,
}
EC2_NODE_CLASS_SCHEMA = s.load_schemas(__package__, "ec2nodeclass", _RULES)["EC2NodeClass"]   # data/ec2nodeclass.json


# -- parsing ---------------------------------------------------------------------------------------
def _kubelet(raw: Mapping[str, Any] | None) -> KubeletConfiguration | None:
    if raw is None:
        return None

    def m(key: str) -> dict[str, str] | None:
        return dict(raw[key]) if key in raw else None
    return KubeletConfiguration(
        max_pods=raw.get("maxPods"), pods_per_core=raw.get("podsPerCore"), system_reserved=m("systemReserved"),
        kube_reserved=m("kubeReserved"), eviction_hard=m("evictionHard"))


def _block_device_mapping(raw: Mapping[str, Any]) -> BlockDeviceMapping:
    ebs = raw.get("ebs")
    device = None
    if ebs is not None:
        device = BlockDevice(quantity.parse(ebs["volumeSize"]) if "volumeSize" in ebs else None)
    return BlockDeviceMapping(raw.get("deviceName"), device, bool(raw.get("rootVolume", False)))


def _capacity_reservation(raw: Mapping[str, Any]) -> CapacityReservation:
    """A status capacity reservation read by its JSON names (the schema checked their types)."""
    return CapacityReservation(
        id=raw.get("id", ""), instance_type=raw.get("instanceType", ""),
        availability_zone=raw.get("availabilityZone", ""),
        instance_match_criteria=raw.get("instanceMatchCriteria", ""), owner_id=raw.get("ownerID", ""),
        reservation_type=raw.get("reservationType", CAPACITY_RESERVATION_TYPE_DEFAULT),
        interruptible=bool(raw.get("interruptible", False)),
        state=raw.get("state", CAPACITY_RESERVATION_STATE_ACTIVE), end_time=raw.get("endTime"))


def _status(raw: Mapping[str, Any]) -> EC2NodeClassStatus:
    def part(key: str, build: Any) -> Any:
        return tuple(build(x) for x in raw[key] if x is not None) if key in raw else None
    return EC2NodeClassStatus(
        subnets=part("subnets", lambda x: Subnet(x.get("id", ""), x.get("zone", ""), x.get("zoneID", ""))),
        conditions=parse_conditions(raw["conditions"]) if "conditions" in raw else None,
        capacity_reservations=part("capacityReservations", _capacity_reservation))


def parse_ec2_node_class(obj: Mapping[str, Any], source: Source | None = None, *, validate: str = "strict",
                         invalid: str = "note", warnings: list[str] | None = None) -> EC2NodeClass:
    """An EC2NodeClass as the API server would store it (else AdmissionRejected or InputError)."""
    stored = admit(obj, EC2_NODE_CLASS_SCHEMA, QUALIFIED_KIND, source, validate, invalid, warnings)
    meta = stored.get("metadata") or {}
    spec = stored.get("spec") or {}
    try:
        bdms = tuple(_block_device_mapping(b) for b in spec.get("blockDeviceMappings") or ())
    except quantity.QuantityError as e:
        raise InputError(str(e), source=source, obj=obj) from None
    return EC2NodeClass(
        name=meta["name"], generation=int(meta.get("generation") or 0), deleting=bool(meta.get("deletionTimestamp")),
        spec=EC2NodeClassSpec(
            ami_selector_terms=tuple(SelectorTerm(t.get("alias", "")) for t in spec.get("amiSelectorTerms") or ()),
            ami_family=spec.get("amiFamily"), kubelet=_kubelet(spec.get("kubelet")),
            block_device_mappings=bdms, instance_store_policy=spec.get("instanceStorePolicy"),
            network_interfaces=tuple(NetworkInterface(n["networkCardIndex"], n["deviceIndex"], n["interfaceType"])
                                     for n in spec.get("networkInterfaces") or ())),
        status=_status(stored.get("status") or {}),
        obj=stored,
    )
