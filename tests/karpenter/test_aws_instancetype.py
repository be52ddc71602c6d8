"""The AWS provider's instance-type resolution (kexplain.karpenter.aws.instancetype) beyond what
the shared cases set: kubelet reservations and eviction thresholds, block device mappings and
RAID0, the AMI families' feature flags, reserved ENIs, the VM memory overhead, EFA-only
interfaces, the labels computeRequirements builds, offerings with the insufficient-capacity cache.
Expected values follow pkg/providers/instancetype/types.go by hand (see each comment)."""
from __future__ import annotations

from pathlib import Path

import pytest

from kexplain.karpenter.apis.ec2nodeclass import KubeletConfiguration
from kexplain.karpenter.aws.instancetype.instancetype import InstanceTypeProvider, StaticNodeClass, zone_info
from kexplain.karpenter.aws.instancetype.types import Options, go_sprint
from kexplain.karpenter.aws.nodeclass import default_status_subnets
from kexplain.karpenter.aws.unavailableofferings import from_entries
from kexplain.karpenter.aws.world import load_world
from kexplain.karpenter.cloudprovider.document import instance_type_document

AWS = Path(__file__).resolve().parent / "cases" / "aws-max-pods-0023" / "aws"
WORLD = load_world(AWS)
ZONES = tuple(zone_info(default_status_subnets(WORLD)))


def resolve(name: str, options: Options | None = None, unavailable=None, **fields):
    provider = InstanceTypeProvider(WORLD, options, unavailable)
    types, err = provider.list(StaticNodeClass("test", zones=fields.pop("zones", ZONES), **fields))
    assert err is None
    return next(t for t in types if t.name == name)


def doc(name: str, **kw) -> dict:
    return instance_type_document(resolve(name, **kw))


def test_kube_reserved_and_system_reserved_settings():
    d = doc("m5.large", kubelet=KubeletConfiguration(kube_reserved={"cpu": "200m", "memory": "1Gi"},
                                                      system_reserved={"cpu": "100m", "memory": "100Mi",
                                                                       "ephemeral-storage": "1Gi"}))
    assert d["kubeReserved"] == {"cpu": "200m", "ephemeral-storage": "1Gi", "memory": "1Gi"}
    assert d["systemReserved"] == {"cpu": "100m", "ephemeral-storage": "1Gi", "memory": "100Mi"}
    # 2 - 0.2 - 0.1 cores; 7577Mi - 1024Mi - 100Mi - 100Mi; 20Gi - 1Gi - 1Gi - 2Gi
    assert d["allocatable"] == {"cpu": "1700m", "ephemeral-storage": "16Gi", "memory": "6353Mi", "pods": "29",
                                "vpc.amazonaws.com/pod-eni": "9"}


def test_eviction_hard_percentages_print_as_go_prints_the_float():
    d = doc("m5.large", kubelet=KubeletConfiguration(eviction_hard={"memory.available": "5%", "nodefs.available": "15%"}))
    # ceil(7945060352 / 100 * 5) = 397253018 -> fmt.Sprint -> 3.97253018e+08, kept as parsed
    assert d["evictionThreshold"] == {"ephemeral-storage": "3.221225472e+09", "memory": "3.97253018e+08"}
    # 7945060352 - 601882624 - 397253018 bytes: no longer whole MiB, so printed in decimal
    assert d["allocatable"]["memory"] == "6945924710" and d["allocatable"]["ephemeral-storage"] == "16Gi"
    d = doc("m5.large", kubelet=KubeletConfiguration(eviction_hard={"memory.available": "500Mi", "nodefs.available": "100%"}))
    assert d["evictionThreshold"] == {"ephemeral-storage": "0", "memory": "500Mi"}   # 100% disables the threshold


def test_block_device_mappings_set_the_ephemeral_storage():
    root = {"device_name": "/dev/xvda", "root_volume": True, "ebs": {"volume_size": "100Gi"}}
    d = doc("m5.large", block_devices=(root,))
    # 10% of 100Gi = 10737418240 -> 1.073741824e+10, whose scale is not a multiple of 3: printed canonical
    assert d["capacity"]["ephemeral-storage"] == "100Gi"
    assert d["evictionThreshold"]["ephemeral-storage"] == "10737418240"
    assert d["allocatable"]["ephemeral-storage"] == "89Gi"
    xvda = {"device_name": "/dev/xvda", "ebs": {"volume_size": "50Gi"}}
    other = {"device_name": "/dev/xvdz", "ebs": {"volume_size": "500Gi"}}
    assert doc("m5.large", block_devices=(other, xvda))["capacity"]["ephemeral-storage"] == "50Gi"
    assert doc("m5.large", block_devices=(other,))["capacity"]["ephemeral-storage"] == "20Gi"
    assert doc("m5.large", family="Custom", block_devices=(xvda, other))["capacity"]["ephemeral-storage"] == "500Gi"


def test_raid0_uses_the_local_nvme_total():
    d = doc("g5.12xlarge", store_policy="RAID0")
    assert d["capacity"]["ephemeral-storage"] == "3800G"
    assert d["evictionThreshold"]["ephemeral-storage"] == "380e9"        # 3.8e+11 parsed: exponent form, scale 10
    assert d["allocatable"]["ephemeral-storage"] == "3418926258176"
    assert doc("m5.large", store_policy="RAID0")["capacity"]["ephemeral-storage"] == "20Gi"   # no instance storage


def test_reserved_enis_cut_pods_but_not_the_kube_reserved_memory():
    d = doc("m5.large", options=Options(reserved_enis=1))
    assert d["capacity"]["pods"] == "20"                  # (3 - 1) x (10 - 1) + 2
    assert d["kubeReserved"]["memory"] == "574Mi"         # 11 x 29 + 255: ENILimitedPods without reserved ENIs
    assert doc("m5.large", options=Options(reserved_enis=5))["capacity"].get("pods") is None   # zero: left out


def test_vm_memory_overhead_percent():
    # 8192Mi less 0Mi: a computed quantity prints canonical, 8Gi
    assert doc("m5.large", options=Options(vm_memory_overhead_percent=0))["capacity"]["memory"] == "8Gi"
    assert doc("m5.large", options=Options(vm_memory_overhead_percent=0.1))["capacity"]["memory"] == "7372Mi"
    assert doc("c6g.large")["capacity"]["memory"] == "3729Mi"     # arm64: 4096 - 64, less ceil(4032 x 0.075)


def test_max_pods_and_pods_per_core():
    assert doc("m5.large", kubelet=KubeletConfiguration(max_pods=8))["capacity"]["pods"] == "8"
    assert doc("m5.xlarge", kubelet=KubeletConfiguration(pods_per_core=2))["capacity"]["pods"] == "8"
    assert doc("m5.xlarge", kubelet=KubeletConfiguration(max_pods=200, pods_per_core=100))["capacity"]["pods"] == "200"


def test_bottlerocket():
    d = doc("m5.large", family="Bottlerocket", kubelet=KubeletConfiguration(max_pods=8, pods_per_core=1))
    assert d["capacity"]["pods"] == "8"                   # podsPerCore is not honoured
    assert d["kubeReserved"]["memory"] == "343Mi"         # 11 x 8 + 255: memory from the pods it runs
    assert d["capacity"]["ephemeral-storage"] == "20Gi"   # its data volume /dev/xvdb


def test_windows():
    it = resolve("m5.large", family="Windows2022")
    d = instance_type_document(it)
    assert d["capacity"]["pods"] == "110" and d["capacity"]["vpc.amazonaws.com/PrivateIPv4Address"] == "9"
    assert d["capacity"]["ephemeral-storage"] == "50Gi" and d["kubeReserved"]["memory"] == "1465Mi"
    assert it.requirements.get("kubernetes.io/os").values() == ["windows"]
    assert it.requirements.get("node.kubernetes.io/windows-build").values() == ["10.0.20348"]
    arm = resolve("c6g.large", family="Windows2022")
    assert arm.requirements.get("kubernetes.io/os").operator() == "DoesNotExist"
    assert "vpc.amazonaws.com/PrivateIPv4Address" not in arm.capacity


def test_efa_only_interfaces():
    efa = ({"network_card_index": 0, "device_index": 0, "interface_type": "interface"},
           {"network_card_index": 0, "device_index": 1, "interface_type": "efa-only"})
    it = resolve("g4dn.8xlarge", interfaces=efa)
    assert str(it.capacity["vpc.amazonaws.com/efa"]) == "1"
    assert str(it.capacity["pods"]) == "44"              # (4 - 1 EFA-only) x (15 - 1) + 2
    assert any(o.available for o in it.offerings)
    # a type without EFA cannot take the class: listed, nothing available
    assert not any(o.available for o in resolve("m5.large", interfaces=efa).offerings)


LABELS = {
    "m5.large": {"karpenter.k8s.aws/instance-category": "m", "karpenter.k8s.aws/instance-generation": "5",
                 "karpenter.k8s.aws/instance-family": "m5", "karpenter.k8s.aws/instance-size": "large",
                 "karpenter.k8s.aws/instance-cpu": "2", "karpenter.k8s.aws/instance-memory": "8192",
                 "karpenter.k8s.aws/instance-network-bandwidth": "750", "karpenter.k8s.aws/instance-ebs-bandwidth": "4750",
                 "karpenter.k8s.aws/instance-cpu-manufacturer": "intel",
                 "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz": "3100",
                 "karpenter.k8s.aws/instance-capability-flex": "false", "kubernetes.io/arch": "amd64",
                 "kubernetes.io/os": "linux", "topology.kubernetes.io/region": "us-west-2"},
    "m7i-flex.large": {"karpenter.k8s.aws/instance-capability-flex": "true",
                       "karpenter.k8s.aws/instance-family": "m7i-flex", "karpenter.k8s.aws/instance-category": "m",
                       "karpenter.k8s.aws/instance-generation": "7"},
    "g5.12xlarge": {"karpenter.k8s.aws/instance-gpu-name": "a10g", "karpenter.k8s.aws/instance-gpu-manufacturer": "nvidia",
                    "karpenter.k8s.aws/instance-gpu-count": "4", "karpenter.k8s.aws/instance-local-nvme": "3800"},
    "inf2.xlarge": {"karpenter.k8s.aws/instance-accelerator-name": "inferentia2",
                    "karpenter.k8s.aws/instance-accelerator-manufacturer": "aws",
                    "karpenter.k8s.aws/instance-accelerator-count": "1"},
    "c6g.large": {"kubernetes.io/arch": "arm64", "karpenter.k8s.aws/instance-cpu-manufacturer": "aws"},
}


@pytest.mark.parametrize("name", sorted(LABELS))
def test_labels(name):
    reqs = resolve(name).requirements
    assert {k: reqs.get(k).values() for k in LABELS[name]} == {k: [v] for k, v in LABELS[name].items()}
    assert reqs.get("karpenter.k8s.aws/instance-tenancy").values() == ["dedicated", "default"]
    assert reqs.get("karpenter.k8s.aws/capacity-reservation-id").operator() == "DoesNotExist"


def test_zones_are_the_offering_zones_with_a_subnet():
    it = resolve("g5.12xlarge")          # sold in 1a and 1b (and not 1c); the class has 1a, 1b, 1c
    assert it.requirements.get("topology.kubernetes.io/zone").values() == ["test-zone-1a", "test-zone-1b"]
    assert it.requirements.get("topology.k8s.aws/zone-id").values() == ["tstz1-1a", "tstz1-1b"]
    only_c = tuple(zone_info(default_status_subnets(WORLD, ["test-zone-1c"])))
    it = resolve("g5.12xlarge", zones=only_c)
    assert it.requirements.get("topology.kubernetes.io/zone").operator() == "DoesNotExist"
    assert not it.requirements.has("topology.k8s.aws/zone-id")
    assert not any(o.available for o in it.offerings)


def test_offerings_and_the_insufficient_capacity_cache():
    unavailable = from_entries([("m5.large", "test-zone-1b", "spot")])
    d = doc("m5.large", unavailable=unavailable)
    assert d["offerings"] == [
        "test-zone-1a on-demand 0.096", "test-zone-1a spot 0.096", "test-zone-1b on-demand 0.096",
        "test-zone-1c on-demand 0.096", "test-zone-1c spot 0.096",
        "test-zone-1a-local on-demand 0.096 unavailable", "test-zone-1a-local spot 0.096 unavailable",
        "test-zone-1b spot 0.096 unavailable"]


def test_no_subnets_is_the_providers_error():
    types, err = InstanceTypeProvider(WORLD).list(StaticNodeClass("empty"))
    assert types == [] and str(err) == "no subnets found"


@pytest.mark.parametrize("value,text", [(2147483648.0, "2.147483648e+09"), (100000.0, "100000"), (0.0, "0"),
                                        (1e6, "1e+06"), (12, "12")])
def test_go_sprint(value, text):
    assert go_sprint(value) == text


def test_a_bad_kubelet_setting_is_an_input_error_naming_the_class_and_field():
    from kexplain.errors import InputError
    with pytest.raises(InputError) as err:
        resolve("m5.large", kubelet=KubeletConfiguration(eviction_hard={"memory.available": "lots%"}))
    assert str(err.value) == ("EC2NodeClass test: spec.kubelet.evictionHard.memory.available: "
                              "expected percentage value to be a float but got lots%")
    with pytest.raises(InputError, match=r"spec\.kubelet\.kubeReserved\.cpu: 'x1'"):
        resolve("m5.large", kubelet=KubeletConfiguration(kube_reserved={"cpu": "x1"}))
