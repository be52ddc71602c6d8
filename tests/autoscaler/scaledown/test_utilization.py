"""Node utilization as CA's scale-down computes it (float64 of milli-values)."""
from __future__ import annotations

import pytest

from kexplain.autoscaler.scaledown.utilization import UtilizationError, calculate, gpu_resource
from tests.autoscaler.scaledown.objects import NOW_NS, node, node_info, pod

DAEMON = dict(namespace="kube-system", owner=("DaemonSet", "ds"))


def test_the_larger_of_cpu_and_memory_decides():
    info = node_info(node("n1", cpu="3920m", memory="14691Mi"), pod("a", cpu="975m", memory="1Gi"))
    util = calculate(info, False, False, NOW_NS)
    assert util.cpu == 975000 / 3920000 and util.memory == (1024 * 1048576 * 1000) / (14691 * 1048576 * 1000)
    assert util.resource_name == "cpu" and util.utilization == util.cpu and util.gpu == 0
    tie = calculate(node_info(node("n1", cpu="2", memory="2Gi"), pod("a", cpu="1", memory="1Gi")), False, False, NOW_NS)
    assert tie.resource_name == "memory" and tie.utilization == 0.5


def test_sum_is_rounded_up_once_to_milli_units():
    info = node_info(node("n1", cpu="1"), pod("a", cpu="0.0005"), pod("b", cpu="0.0005"))
    assert calculate(info, False, False, NOW_NS).cpu == 1 / 1000      # 0.001 summed, not 2 x 1m


def test_daemonset_and_mirror_pods_leave_both_sides_when_ignored():
    info = node_info(node("n1", cpu="4", memory="4Gi"), pod("ds", cpu="1", memory="0", **DAEMON),
                     pod("m", cpu="1", memory="0", owner=None, annotations={"kubernetes.io/config.mirror": "x"}),
                     pod("a", cpu="1", memory="0"))
    assert calculate(info, False, False, NOW_NS).cpu == 3 / 4
    assert calculate(info, True, False, NOW_NS).cpu == 2 / 3
    assert calculate(info, True, True, NOW_NS).cpu == 1 / 2


def test_long_terminating_pods_do_not_count():
    leaving = pod("old", cpu="2")
    leaving["metadata"]["deletionTimestamp"] = "2020-01-01T00:00:00Z"
    info = node_info(node("n1", cpu="4"), leaving, pod("a", cpu="1"))
    assert calculate(info, False, False, NOW_NS).cpu == 1 / 4


def test_a_gpu_node_is_measured_by_its_gpu_alone():
    gpu_node = node("g1", allocatable={"nvidia.com/gpu": "4"})
    assert gpu_resource(gpu_node) == "nvidia.com/gpu" and gpu_resource(node("n1")) is None
    busy = pod("train", cpu="3")
    busy["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"] = "1"
    util = calculate(node_info(gpu_node, busy), False, False, NOW_NS)
    assert (util.cpu, util.memory, util.gpu, util.resource_name, util.utilization) == \
        (0.0, 0.0, 0.25, "nvidia.com/gpu", 0.25)
    labelled = node("g2", metadata={"labels": {"TestGPULabel/accelerator": "nvidia-tesla-k80"}})
    unready = calculate(node_info(labelled), False, False, NOW_NS)       # labelled, no GPU allocatable yet
    assert unready.resource_name == "nvidia.com/gpu" and unready.utilization == 0


def test_a_missing_resource_is_an_error():
    bare = node("n1")
    del bare["status"]["allocatable"]["memory"]
    with pytest.raises(UtilizationError):
        calculate(node_info(bare), False, False, NOW_NS)


def test_json_writes_whole_ratios_as_go_does():
    util = calculate(node_info(node("n1", cpu="2", memory="2Gi"), pod("a", cpu="2", memory="0")), False, False, NOW_NS)
    assert util.to_json() == {"cpu": 1, "memory": 0, "gpu": 0, "resourceName": "cpu", "utilization": 1}
    assert all(type(v) is int for k, v in util.to_json().items() if k != "resourceName")


def _shared_shape_node():
    """A node whose pods come in two shapes, each shape's pods sharing one `PodFacts` (as the snapshot
    shares them), one DaemonSet pod and one deleted long ago among them."""
    from kexplain.autoscaler.scaledown.utilization import PodRequests
    pods = [pod(f"a{i}", cpu="250m", memory="1Gi") for i in range(4)] + \
        [pod(f"b{i}", cpu="0.0005", memory="3") for i in range(3)] + [pod("ds", cpu="1", memory="1", **DAEMON)]
    pods[1]["metadata"]["deletionTimestamp"] = "2020-01-01T00:00:00Z"
    info = node_info(node("n1", cpu="4", memory="16Gi"), *pods)
    a, b = info.pods[0].facts, info.pods[4].facts
    for p in info.pods[:4]:
        p._facts = a
    for p in info.pods[4:7]:
        p._facts = b
    return info, PodRequests


def test_requests_are_worked_out_once_per_shape_and_sum_as_pod_by_pod():
    from fractions import Fraction

    from kexplain.apimachinery.quantity import milli_value
    from kexplain.model.resources import pod_requests
    info, PodRequests = _shared_shape_node()
    requests = PodRequests()
    util = calculate(info, True, False, NOW_NS, requests=requests)
    assert requests.worked_out == 3          # two shapes and the DaemonSet pod, not 8 pods x 2 resources
    # the same figures as the pods' requests added one by one (CalculateUtilizationOfResource's loop)
    live = [p for p in info.pods[:7] if p.name != "a1"]
    cpu = sum((pod_requests(p.obj)["cpu"] for p in live), Fraction(0))
    mem = sum((pod_requests(p.obj)["memory"] for p in live), Fraction(0))
    assert util.cpu == milli_value(cpu) / (4000 - 1000)
    assert util.memory == milli_value(mem) / (16 * 1024**3 * 1000 - 1000)
    assert calculate(info, True, False, NOW_NS) == util       # without the loop's index: the same answer
    calculate(info, False, False, NOW_NS, requests=requests)
    assert requests.worked_out == 3          # a second read of the node works nothing out again
