"""Karpenter's API objects (kexplain.karpenter.apis): the CRDs' rules in the API server's words,
Karpenter's runtime validation, NodePool readiness, the label vocabulary."""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Callable, Iterable

import pytest
import yaml

from kexplain.apimachinery import quantity
from kexplain.errors import AdmissionRejected, InputError, Source
from kexplain.karpenter.apis.ec2nodeclass import parse_ec2_node_class
from kexplain.karpenter.apis.labels import is_restricted_label
from kexplain.karpenter.apis.nodeclaim import NodeSelectorRequirementWithMinValues as NSR, parse_node_claim
from kexplain.karpenter.apis.nodepool import is_ready, node_pool_conditions, parse_node_pool, runtime_validate
from kexplain.karpenter.apis.status import Condition, ConditionSet

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "karpenter"
SRC = Source("pools.yaml", 1)
NOT_CHECKED = ("<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; "
               "correct the existing errors to complete validation")

NODE_POOL = yaml.safe_load("""
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    metadata:
      labels: {team: ml}
    spec:
      requirements:
      - {key: karpenter.k8s.aws/instance-family, operator: In, values: [g5, g4dn], minValues: 2}
      - {key: karpenter.k8s.aws/instance-cpu, operator: Gt, values: ["3"]}
      taints: [{key: nvidia.com/gpu, value: "true", effect: NoSchedule}]
      startupTaints: [{key: example.com/init, effect: NoExecute}]
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  limits: {cpu: "100", memory: 400Gi}
  weight: 10
""")

NODE_CLASS = yaml.safe_load("""
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  role: KarpenterNodeRole
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: test}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: test}}]
  kubelet: {maxPods: 110, kubeReserved: {cpu: 200m}, evictionHard: {memory.available: 5%}}
  blockDeviceMappings: [{deviceName: /dev/xvda, rootVolume: true, ebs: {volumeSize: 100Gi, volumeType: gp3}}]
""")


def not_true(conditions: Iterable[Condition]) -> list[str]:
    """Each condition that is not True, as `TYPE=STATUS (REASON: MESSAGE)`, in the given order."""
    return [str(c) for c in conditions if not c.is_true()]


def _set(path: str, value: Any) -> Callable[[dict], None]:
    def apply(obj: dict) -> None:
        *parents, last = path.split(".")
        for p in parents:
            obj = obj[int(p)] if isinstance(obj, list) else obj.setdefault(p, {})
        if isinstance(obj, list):
            obj[int(last)] = value
        elif value is None:
            obj.pop(last, None)
        else:
            obj[last] = value
    return apply


def _variant(base: dict, *changes: Callable[[dict], None]) -> dict:
    obj = copy.deepcopy(base)
    for change in changes:
        change(obj)
    return obj


# -- NodePool --------------------------------------------------------------------------------------
def test_node_pool_parsed_with_defaults() -> None:
    pool = parse_node_pool(NODE_POOL, SRC)
    spec = pool.spec.template.spec
    assert pool.name == "gpu" and pool.weight == 10 and not pool.is_static() and pool.is_managed()
    assert pool.spec.template.labels == {"team": "ml"}
    assert spec.requirements[0] == NSR("karpenter.k8s.aws/instance-family", "In", ("g5", "g4dn"), 2)
    assert spec.taints == ({"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"},)
    assert spec.startup_taints == ({"key": "example.com/init", "effect": "NoExecute"},)
    assert spec.expire_after == "720h" and spec.termination_grace_period is None
    assert (pool.spec.disruption.consolidate_after, pool.spec.disruption.consolidation_policy,
            [b.nodes for b in pool.spec.disruption.budgets]) == ("0s", "WhenEmptyOrUnderutilized", ["10%"])
    assert {k: str(v) for k, v in (pool.spec.limits or {}).items()} == {"cpu": "100", "memory": "400Gi"}
    assert runtime_validate(pool) is None
    assert parse_node_pool(_variant(NODE_POOL, _set("spec.weight", None)), SRC).weight == 0


def test_limits_exceeded_by() -> None:
    pool = parse_node_pool(NODE_POOL, SRC)
    q = quantity.parse
    assert pool.spec.exceeded_by({"cpu": q("100"), "memory": q("1Gi"), "pods": q("500")}) is None
    err = pool.spec.exceeded_by({"cpu": q("101"), "memory": q("1Gi")})
    assert err is not None and err.resource == "cpu"
    assert str(err) == "resource usage exceeds limit (limit=100, resource-name=cpu, usage=101)"
    assert parse_node_pool(_variant(NODE_POOL, _set("spec.limits", None)), SRC).spec.exceeded_by({"cpu": q("1e6")}) \
        is None


REQS = "spec.template.spec.requirements"


@pytest.mark.parametrize("change, errors", [
    (_set("spec.weight", 0),
     ["spec.weight: Invalid value: 0: spec.weight in body should be greater than or equal to 1"]),
    (_set("spec.weight", 101), ["spec.weight: Invalid value: 101: spec.weight in body should be less than or equal to "
                                "100"]),
    (_set(f"{REQS}.0", {"key": "karpenter.sh/team", "operator": "In", "values": ["a"]}),
     [f'{REQS}[0].key: Invalid value: "string": label domain "karpenter.sh" is restricted']),
    (_set(f"{REQS}.0", {"key": "team.karpenter.k8s.aws/x", "operator": "Exists"}),
     [f'{REQS}[0].key: Invalid value: "string": label domain "karpenter.k8s.aws" is restricted']),
    (_set(f"{REQS}.0", {"key": "karpenter.sh/nodepool", "operator": "In", "values": ["a"]}),
     [f'{REQS}[0].key: Invalid value: "string": label "karpenter.sh/nodepool" is restricted']),
    (_set(f"{REQS}.0", {"key": "kubernetes.io/hostname", "operator": "Exists"}),
     [f'{REQS}[0].key: Invalid value: "string": label "kubernetes.io/hostname" is restricted']),
    (_set(f"{REQS}.0", {"key": "team", "operator": "In"}),
     [f"{REQS}: Invalid value: \"array\": no such key: values evaluating rule: requirements with operator 'In' must "
      "have a value defined"]),
    (_set(f"{REQS}.0", {"key": "team", "operator": "In", "values": []}),
     [f"{REQS}: Invalid value: \"array\": requirements with operator 'In' must have a value defined"]),
    (_set(f"{REQS}.1", {"key": "karpenter.k8s.aws/instance-cpu", "operator": "Lt", "values": ["-1"]}),
     [f"{REQS}: Invalid value: \"array\": requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single "
      "positive integer value"]),
    (_set(f"{REQS}.1", {"key": "karpenter.k8s.aws/instance-cpu", "operator": "Gt", "values": ["four"]}),
     [f"{REQS}: Invalid value: \"array\": strconv.ParseInt: parsing \"four\": invalid syntax evaluating rule: "
      "requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value"]),
    (_set(f"{REQS}.0.minValues", 3),
     [f"{REQS}: Invalid value: \"array\": requirements with 'minValues' must have at least that many values "
      "specified in the 'values' field"]),
    (_set("spec.template.metadata.labels", {"karpenter.k8s.aws/instance-family": "g5", "x.karpenter.sh/y": "z"}),
     ['spec.template.metadata.labels: Invalid value: "object": label domain "karpenter.sh" is restricted']),
    (_set("spec.template.spec.taints.0.effect", "Sometimes"),
     ['spec.template.spec.taints[0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", '
      '"PreferNoSchedule", "NoExecute"', NOT_CHECKED]),
    (_set("spec.template.spec.expireAfter", "30d"),
     ["spec.template.spec.expireAfter: Invalid value: \"30d\": spec.template.spec.expireAfter in body should match "
      "'^(([0-9]+(s|m|h))+|Never)$'"]),
    (_set("spec.template.spec.nodeClassRef.name", ""),
     ['spec.template.spec.nodeClassRef.name: Invalid value: "string": name may not be empty']),
    (_set("spec.replicas", 2), ["spec: Invalid value: \"object\": only 'limits.nodes' is supported on static NodePools",
                                "spec: Invalid value: \"object\": 'weight' is not supported on static NodePools"]),
    (_set("spec.disruption", {"consolidateAfter": "1m", "budgets": [{"nodes": "10%", "schedule": "@daily"}]}),
     ["spec.disruption.budgets: Invalid value: \"array\": 'schedule' must be set with 'duration'"]),
])
def test_node_pool_value_violations_are_a_note_or_refused(change: Callable[[dict], None], errors: list[str]) -> None:
    obj = _variant(NODE_POOL, change)
    message = 'NodePool.karpenter.sh "gpu" is invalid: ' + (errors[0] if len(errors) == 1 else f"[{', '.join(errors)}]")
    with pytest.raises(AdmissionRejected) as refused:
        parse_node_pool(obj, SRC, invalid="refuse")
    assert str(refused.value) == f"pools.yaml: document 1: NodePool gpu: {message}"
    notes: list[str] = []
    pool = parse_node_pool(obj, SRC, warnings=notes)           # the recorded Karpenter used it as written
    assert pool.name == "gpu" and notes == [f"pools.yaml: document 1: NodePool gpu: the API server would refuse it "
                                            f"({message}); used as written"]


@pytest.mark.parametrize("change, message", [
    (_set("spec.template.spec.nodeClassRef", None),
     f"[spec.template.spec.nodeClassRef: Required value, {NOT_CHECKED}]"),
    (_set("spec.weight", "10"), '[spec.weight: Invalid value: "string": spec.weight in body must be of type integer: '
                                f'"string", {NOT_CHECKED}]'),
    (_set(f"{REQS}.0.values", "g5"), f'[{REQS}[0].values: Invalid value: "string": {REQS}[0].values in body must be '
                                     f'of type array: "string", {NOT_CHECKED}]'),
    (_set("metadata.name", None), "metadata.name: Required value: name or generateName is required"),
])
def test_node_pool_that_cannot_be_read_is_refused(change: Callable[[dict], None], message: str) -> None:
    with pytest.raises(AdmissionRejected) as refused:
        parse_node_pool(_variant(NODE_POOL, change), SRC)
    assert str(refused.value).endswith(f'is invalid: {message}')


def test_unknown_fields_follow_kubectl_validate() -> None:
    obj = _variant(NODE_POOL, _set("spec.template.spec.foo", 1), _set("spec.bar", True))
    with pytest.raises(InputError) as refused:
        parse_node_pool(obj, SRC)
    assert str(refused.value) == ('pools.yaml: document 1: NodePool gpu: NodePool in version "v1" cannot be handled as '
                                  'a NodePool: strict decoding error: unknown field "spec.template.spec.foo", unknown '
                                  'field "spec.bar"')
    warnings: list[str] = []
    pool = parse_node_pool(obj, SRC, validate="warn", warnings=warnings)
    assert pool.name == "gpu" and warnings == [
        'pools.yaml: document 1: NodePool gpu: spec.template.spec.foo: unknown field "spec.template.spec.foo"',
        'pools.yaml: document 1: NodePool gpu: spec.bar: unknown field "spec.bar"']
    assert parse_node_pool(obj, SRC, validate="ignore", warnings=warnings).name == "gpu" and len(warnings) == 2


@pytest.mark.parametrize("change, error", [
    (_set("spec.template.spec.startupTaints", [{"key": "nvidia.com/gpu", "value": "x", "effect": "NoSchedule"}]),
     "duplicate taint Key/Effect pair nvidia.com/gpu=NoSchedule"),
    (_set(f"{REQS}.0", {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["cheap"]}),
     "invalid value: no valid values found in [cheap] for karpenter.sh/capacity-type, expected one of: "
     "map[on-demand:{} reserved:{} spot:{}], got: [cheap] in requirements, restricted"),
    (_set(f"{REQS}.0", {"key": "karpenter.k8s.aws/instance-tenancy", "operator": "In", "values": ["default", "x"],
                        "minValues": 2}),
     "invalid value: not enough valid values found in [default x] for karpenter.k8s.aws/instance-tenancy, expected at "
     "least 2 valid values from: [dedicated default], got: 1 in requirements, restricted"),
    (_set("spec.template.spec.taints.0.value", "a b"),
     "invalid value: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
     "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
     "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') in taints"),
])
def test_runtime_validate(change: Callable[[dict], None], error: str) -> None:
    pool = parse_node_pool(_variant(NODE_POOL, change), SRC)
    assert runtime_validate(pool) == error
    conditions = node_pool_conditions(pool, Condition("Ready", "True"))
    assert not is_ready(conditions)
    assert not_true(conditions) == [f"ValidationSucceeded=False (NodePoolValidationFailed: {error})",
                                    "Ready=False (UnhealthyDependents: ValidationSucceeded=False)"]


@pytest.mark.parametrize("class_ready, found, not_ready", [
    (Condition("Ready", "True", "Ready"), True, []),
    (None, False, ["NodeClassReady=False (NodeClassNotFound: NodeClass not found on cluster)",
                   "Ready=False (UnhealthyDependents: NodeClassReady=False)"]),
    (Condition("Ready", "False", "SubnetsNotFound", "no subnets"), True,
     ["NodeClassReady=False (SubnetsNotFound: no subnets)", "Ready=False (UnhealthyDependents: NodeClassReady=False)"]),
    (Condition("Ready", "Unknown"), True,
     ["NodeClassReady=False (NodeClassReadinessUnknown: Node Class Readiness Unknown)",
      "Ready=False (UnhealthyDependents: NodeClassReady=False)"]),
])
def test_readiness(class_ready: Condition | None, found: bool, not_ready: list[str]) -> None:
    pool = parse_node_pool(NODE_POOL, SRC)
    conditions = node_pool_conditions(pool, class_ready, found=found)
    assert is_ready(conditions) is (not not_ready) and not_true(conditions) == not_ready
    assert [c.type for c in conditions][-1] == "Ready"


def test_readiness_given_by_the_input_is_kept_and_unmanaged_pools_stay_unknown() -> None:
    given = _set("status", {"conditions": [{"type": "Ready", "status": "False", "reason": "Paused", "message": "x"}]})
    pool = parse_node_pool(_variant(NODE_POOL, given), SRC)
    assert not_true(node_pool_conditions(pool, None, found=False)) == ["Ready=False (Paused: x)"]
    other = parse_node_pool(_variant(NODE_POOL, _set("spec.template.spec.nodeClassRef.kind", "AKSNodeClass")), SRC)
    assert not other.is_managed()
    assert not is_ready(node_pool_conditions(other, Condition("Ready", "True")))


def test_condition_set_orders_by_transition_with_the_root_last() -> None:
    cs = ConditionSet(["A", "B"])
    assert [str(c) for c in cs.conditions][-1] == "Ready=Unknown (ReconcilingDependents: A=Unknown, B=Unknown)"
    cs.set_false("B", "Broken", "b")
    cs.set_false("A", "Broken", "a")
    assert [c.type for c in cs.conditions] == ["B", "A", "Ready"]
    assert str(cs.get("Ready")) == "Ready=False (UnhealthyDependents: A=False, B=False)"
    cs.set_true("A")
    cs.set_true("B")
    assert cs.is_true("Ready") and str(cs.get("Ready")) == "Ready=True (Ready: )"


# -- NodeClaim -------------------------------------------------------------------------------------
def test_node_claim() -> None:
    claim = parse_node_claim(yaml.safe_load("""
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata:
  name: default-abcde
  labels: {karpenter.sh/nodepool: default, node.kubernetes.io/instance-type: m5.large}
spec:
  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}]
  resources: {requests: {cpu: 100m}}
status:
  providerID: aws:///test-zone-1a/i-0123
  capacity: {cpu: "2", memory: 7577Mi}
  allocatable: {cpu: 1930m, memory: 6903Mi}
  conditions:
  - {type: Launched, status: "True", reason: Launched, message: "", lastTransitionTime: "2026-01-01T10:00:00Z"}
"""), SRC)
    assert claim.node_pool_name == "default" and claim.status.node_name == ""
    assert any(c.type == "Launched" and c.is_true() for c in claim.status.conditions)
    assert claim.status.provider_id == "aws:///test-zone-1a/i-0123"
    assert {k: str(v) for k, v in claim.status.allocatable.items()} == {"cpu": "1930m", "memory": "6903Mi"}
    assert str(claim.requests["cpu"]) == "100m" and claim.expire_after == "720h"
    assert claim.requirements == (NSR("node.kubernetes.io/instance-type", "In", ("m5.large",)),)


# -- EC2NodeClass ----------------------------------------------------------------------------------
def test_ec2_node_class() -> None:
    nc = parse_ec2_node_class(NODE_CLASS, SRC)
    assert nc.ami_family() == "AL2023" and str(nc.alias()) == "AL2023@latest"
    kubelet = nc.spec.kubelet
    assert kubelet is not None and kubelet.max_pods == 110 and kubelet.kube_reserved == {"cpu": "200m"}
    assert kubelet.eviction_hard == {"memory.available": "5%"} and kubelet.pods_per_core is None
    (bdm,) = nc.spec.block_device_mappings
    assert bdm.root_volume and bdm.ebs is not None and str(bdm.ebs.volume_size) == "100Gi"
    assert nc.obj["spec"]["metadataOptions"]["httpTokens"] == "required"        # the CRD's default
    assert nc.status.subnets is None and nc.status.conditions is None      # left to be defaulted
    custom = parse_ec2_node_class(_variant(NODE_CLASS, _set("spec.amiFamily", "Custom")), SRC)
    assert custom.ami_family() == "Custom"
    listed = parse_ec2_node_class(_variant(NODE_CLASS, _set("spec.amiSelectorTerms", [{"id": "ami-123"}]),
                                           _set("spec.amiFamily", "Bottlerocket")), SRC)
    assert listed.alias() is None and listed.ami_family() == "Bottlerocket"


def test_ec2_node_class_status_and_ready_condition() -> None:
    status = {"subnets": [{"id": "subnet-1", "zone": "z1", "zoneID": "id1"}],
              "conditions": [{"type": "Ready", "status": "False", "reason": "AMINotFound", "message": "none"}]}
    nc = parse_ec2_node_class(_variant(NODE_CLASS, _set("status", status)), SRC)
    assert [(s.id, s.zone, s.zone_id) for s in nc.status.subnets or ()] == [("subnet-1", "z1", "id1")]
    assert str(nc.ready_condition()) == "Ready=False (AMINotFound: none)"
    partial = parse_ec2_node_class(_variant(NODE_CLASS, _set("status", {"conditions": [
        {"type": "SubnetsReady", "status": "True"}]})), SRC)
    ready = partial.ready_condition()
    assert ready is not None and ready.is_unknown()


SPEC = "spec"


@pytest.mark.parametrize("change, error", [
    (_set("spec.instanceProfile", "profile"), "spec: Invalid value: \"object\": must specify exactly one of ['role', "
                                              "'instanceProfile']"),
    (_set("spec.amiFamily", "Bottlerocket"), "spec: Invalid value: \"object\": if set, amiFamily must be 'AL2023' or "
                                             "'Custom' when using an AL2023 alias"),
    (_set("spec.amiSelectorTerms", [{"name": "my-ami"}]),
     "spec: Invalid value: \"object\": must specify amiFamily if amiSelectorTerms does not contain an alias"),
    (_set("spec.amiSelectorTerms", [{"alias": "ubuntu@latest"}]),
     "spec.amiSelectorTerms[0].alias: Invalid value: \"string\": family is not supported, must be one of the "
     "following: 'al2', 'al2023', 'bottlerocket', 'windows2019', 'windows2022', 'windows2025'"),
    (_set("spec.amiSelectorTerms", [{"alias": "windows2022@v1"}]),
     "spec.amiSelectorTerms[0].alias: Invalid value: \"string\": windows families may only specify version 'latest'"),
    (_set("spec.amiSelectorTerms", [{"alias": "al2023@latest"}, {"id": "ami-1"}]),
     "spec.amiSelectorTerms: Invalid value: \"array\": 'alias' is mutually exclusive, cannot be set with a "
     "combination of other amiSelectorTerms"),
    (_set("spec.subnetSelectorTerms", [{"id": "subnet-1", "tags": {"a": "b"}}]),
     "spec.subnetSelectorTerms: Invalid value: \"array\": 'id' is mutually exclusive, cannot be set with a "
     "combination of other fields in a subnet selector term"),
    (_set("spec.securityGroupSelectorTerms", [{"tags": {"a": ""}}]),
     "spec.securityGroupSelectorTerms[0].tags: Invalid value: \"object\": empty tag keys or values aren't supported"),
    (_set("spec.kubelet.kubeReserved", {"gpu": "1"}),
     "spec.kubelet.kubeReserved: Invalid value: \"object\": valid keys for kubeReserved are "
     "['cpu','memory','ephemeral-storage','pid']"),
    (_set("spec.kubelet.evictionHard", {"memory.free": "1Gi"}),
     "spec.kubelet.evictionHard: Invalid value: \"object\": valid keys for evictionHard are "
     "['memory.available','nodefs.available','nodefs.inodesFree','imagefs.available','imagefs.inodesFree',"
     "'pid.available']"),
    (_set("spec.kubelet.evictionSoft", {"memory.available": "1Gi"}),
     "spec.kubelet: Invalid value: \"object\": no such key: evictionSoftGracePeriod evaluating rule: evictionSoft "
     "OwnerKey does not have a matching evictionSoftGracePeriod"),
    (_set("spec.tags", {"kubernetes.io/cluster/x": "owned"}),
     "spec.tags: Invalid value: \"object\": tag contains a restricted tag matching kubernetes.io/cluster/"),
    (_set("spec.blockDeviceMappings.0.ebs", {"volumeType": "gp3"}),
     "spec.blockDeviceMappings[0].ebs: Invalid value: \"object\": snapshotID or volumeSize must be defined"),
    (_set("spec.blockDeviceMappings.0.ebs.volumeSize", "100Mi"),
     "spec.blockDeviceMappings[0].ebs.volumeSize: Invalid value: \"100Mi\": spec.blockDeviceMappings[0].ebs.volumeSize "
     "in body should match '^((?:[1-9][0-9]{0,3}|[1-4][0-9]{4}|[5][0-8][0-9]{3}|59000)Gi|(?:[1-9][0-9]{0,3}|"
     "[1-5][0-9]{4}|[6][0-3][0-9]{3}|64000)G|([1-9]||[1-5][0-7]|58)Ti|([1-9]||[1-5][0-9]|6[0-3]|64)T)$'"),
    (_set("spec.kubelet.maxPods", -1),
     "spec.kubelet.maxPods: Invalid value: -1: spec.kubelet.maxPods in body should be greater than or equal to 0"),
])
def test_ec2_node_class_rules(change: Callable[[dict], None], error: str) -> None:
    with pytest.raises(AdmissionRejected) as refused:
        parse_ec2_node_class(_variant(NODE_CLASS, change), SRC, invalid="refuse")
    assert str(refused.value) == f'pools.yaml: document 1: EC2NodeClass default: EC2NodeClass.karpenter.k8s.aws ' \
                                 f'"default" is invalid: {error}'


def test_ec2_node_class_missing_selector_terms_cannot_be_read() -> None:
    with pytest.raises(AdmissionRejected) as refused:
        parse_ec2_node_class(_variant(NODE_CLASS, _set("spec.subnetSelectorTerms", None)), SRC)
    assert "spec.subnetSelectorTerms: Required value" in str(refused.value)


# -- labels ----------------------------------------------------------------------------------------
def test_restricted_labels_and_known_values() -> None:
    assert is_restricted_label("karpenter.k8s.aws/instance-family") is None
    assert is_restricted_label("example.com/team") is None
    msg = is_restricted_label("kubernetes.io/hostname")
    assert msg is not None and msg.startswith("using label kubernetes.io/hostname is not allowed as it might interfere "
                                              "with the internal provisioning logic; specify a well known label: "
                                              "[karpenter.k8s.aws/capacity-reservation-id ")
    assert msg.endswith("topology.kubernetes.io/zone], or a custom label that does not use a restricted domain: "
                        "[karpenter.k8s.aws karpenter.sh]")
    assert is_restricted_label("sub.karpenter.sh/x") is not None and is_restricted_label("notkarpenter.sh/x") is None


def test_ignoring_pod_text_of_the_shared_cases() -> None:
    """A pod selecting the hostname is ignored with IsRestrictedLabel's text (as the shared cases
    record it, after `ignoring pod, `)."""
    want = ("using label kubernetes.io/hostname is not allowed as it might interfere with the internal provisioning "
            "logic; specify a well known label: [karpenter.k8s.aws/capacity-reservation-id karpenter.k8s.aws/"
            "capacity-reservation-interruptible karpenter.k8s.aws/capacity-reservation-type karpenter.k8s.aws/"
            "instance-accelerator-count karpenter.k8s.aws/instance-accelerator-manufacturer karpenter.k8s.aws/"
            "instance-accelerator-name karpenter.k8s.aws/instance-capability-flex karpenter.k8s.aws/instance-category "
            "karpenter.k8s.aws/instance-cpu karpenter.k8s.aws/instance-cpu-manufacturer karpenter.k8s.aws/instance-"
            "cpu-sustained-clock-speed-mhz karpenter.k8s.aws/instance-ebs-bandwidth karpenter.k8s.aws/instance-"
            "encryption-in-transit-supported karpenter.k8s.aws/instance-family karpenter.k8s.aws/instance-generation "
            "karpenter.k8s.aws/instance-gpu-count karpenter.k8s.aws/instance-gpu-manufacturer karpenter.k8s.aws/"
            "instance-gpu-memory karpenter.k8s.aws/instance-gpu-name karpenter.k8s.aws/instance-hypervisor "
            "karpenter.k8s.aws/instance-local-nvme karpenter.k8s.aws/instance-memory karpenter.k8s.aws/instance-"
            "network-bandwidth karpenter.k8s.aws/instance-size karpenter.k8s.aws/instance-tenancy karpenter.k8s.aws/"
            "placement-group-id karpenter.k8s.aws/placement-group-partition karpenter.sh/capacity-type karpenter.sh/"
            "nodepool kubernetes.io/arch kubernetes.io/os node.kubernetes.io/instance-type node.kubernetes.io/windows-"
            "build topology.k8s.aws/zone-id topology.kubernetes.io/region topology.kubernetes.io/zone], or a custom "
            "label that does not use a restricted domain: [karpenter.k8s.aws karpenter.sh]")
    assert is_restricted_label("kubernetes.io/hostname") == want


# -- every Karpenter object of the shared cases ----------------------------------------------------
def _shared_cases() -> list[Path]:
    if not SHARED.is_dir():
        return []
    return sorted(p.parent for p in SHARED.glob("**/expected-karpenter.json"))


@pytest.mark.skipif(not _shared_cases(), reason=f"{SHARED} is not present")
def test_shared_cases_objects_parse_and_pools_are_ready_as_recorded() -> None:
    checked = 0
    for case in _shared_cases():
        docs = [d for d in yaml.safe_load_all((case / "nodepools.yaml").read_text()) if d]
        if (case / "cluster.yaml").exists():
            for d in yaml.safe_load_all((case / "cluster.yaml").read_text()):
                if d and d.get("kind") == "NodeClaim":
                    parse_node_claim(d, Source(str(case / "cluster.yaml")))
        classes = {d["metadata"]["name"]: parse_ec2_node_class(d) for d in docs if d.get("kind") == "EC2NodeClass"}
        want = {p["name"]: p for p in json.loads((case / "expected-karpenter.json").read_text())["nodePools"]}
        for d in docs:
            if d.get("kind") != "NodePool":
                continue
            pool = parse_node_pool(d, warnings=[])
            node_class = classes.get(pool.spec.template.spec.node_class_ref.name)
            ready = None
            if node_class is not None:     # a class without conditions enters Ready (README)
                ready = node_class.ready_condition() if node_class.status.conditions is not None \
                    else Condition("Ready", "True", "Ready")
            conditions = node_pool_conditions(pool, ready, found=node_class is not None)
            got = {"weight": pool.weight, "ready": is_ready(conditions), "notReady": not_true(conditions)}
            expected = want[pool.name]
            assert got == {"weight": expected["weight"], "ready": expected["ready"],
                           "notReady": expected.get("notReady", [])}, f"{case.name}: {pool.name}"
            checked += 1
    assert checked > 100
