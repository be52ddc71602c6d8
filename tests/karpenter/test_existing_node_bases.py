"""The disruption pass starts every simulation's existing nodes from one `NodeBase` per state node
(`NodeBases`): what one simulation adds to a node (pods, the room they take, the requirements they
narrow) must not reach the base nor the next simulation's node."""
from __future__ import annotations

from types import SimpleNamespace

from kexplain.karpenter.provisioning.scheduling.existingnode import ExistingNode, NodeBases
from kexplain.karpenter.scheduling.hostportusage import HostPortUsage
from kexplain.karpenter.scheduling.requirement import new_requirement
from kexplain.karpenter.scheduling.volumeusage import VolumeUsage
from kexplain.karpenter.state.statenode import StateNode
from kexplain.karpenter.utils import resources
from kexplain.model.pod import PodInfo

NODE = {"metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1", "topology.kubernetes.io/zone": "a"}},
        "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "10"},
                   "capacity": {"cpu": "2", "memory": "4Gi", "pods": "10"}}}


class _Topology:
    def register(self, key: str, value: str) -> None:
        pass

    def record(self, pod, taints, requirements) -> None:
        pass


def _state() -> StateNode:
    state = StateNode(NODE, None)
    state.pod_requests.append(resources.parse_list({"cpu": "500m"}))
    state.host_port_usage, state.volume_usage = HostPortUsage(), VolumeUsage()
    return state


def test_a_simulation_leaves_the_base_and_the_next_simulations_node_as_they_were() -> None:
    state, bases = _state(), NodeBases()
    first = ExistingNode(state, _Topology(), [], {}, bases.of(state))
    fresh_room = dict(first.remaining_resources)
    assert fresh_room[resources.CPU] == 1_500_000_000_000 // 1000         # 2 CPUs less the bound pod's 500m
    pod = PodInfo({"metadata": {"name": "p", "namespace": "default"}, "spec": {"containers": [
        {"name": "c", "resources": {"requests": {"cpu": "1"}}}]}})
    narrowed = type(first.requirements)(first.requirements)
    narrowed.add(new_requirement("topology.kubernetes.io/zone", "In", "b"), new_requirement("team", "In", "x"))
    first.add(pod, SimpleNamespace(requests=resources.parse_list({"cpu": "1"})), narrowed, {})
    assert first.remaining_resources[resources.CPU] < fresh_room[resources.CPU]

    assert bases.of(state) is bases.of(state)                  # one base per state node
    second = ExistingNode(state, _Topology(), [], {}, bases.of(state))
    assert second.remaining_resources == fresh_room
    assert second.pods == [] and second.version == 0
    assert "team" not in second.requirements and "team" not in bases.of(state).requirements
    assert second.requirements["topology.kubernetes.io/zone"].value_set == {"a"}
    assert bases.of(state).available == state.available_nanos()


def test_a_base_is_the_same_as_a_node_made_without_one() -> None:
    state = _state()
    made = ExistingNode(state, _Topology(), [], {})
    based = ExistingNode(state, _Topology(), [], {}, NodeBases().of(state))
    assert made.remaining_resources == based.remaining_resources
    assert made.requirements == based.requirements


def _daemon(tolerations: list | None) -> PodInfo:
    spec: dict = {"containers": [{"name": "c", "resources": {"requests": {"cpu": "250m"}}}]}
    if tolerations is not None:
        spec["tolerations"] = tolerations
    return PodInfo({"metadata": {"name": "ds", "namespace": "kube-system"}, "spec": spec})


def _existing(state: StateNode, daemons: list[PodInfo], bases: NodeBases) -> ExistingNode:
    from kexplain.karpenter.provisioning.scheduling.scheduler import Scheduler

    holder = SimpleNamespace(remaining_resources={})
    return Scheduler._existing_nodes(holder, [state], _Topology(), daemons, bases)[0]


def test_a_nodes_daemonset_pods_are_those_of_the_scheduler_asking() -> None:
    """The base keeps which DaemonSet pods land on its node by what their compatibility reads: a
    scheduler whose DaemonSet pod tolerates the node's taint (another NodePool's relaxation, another
    pass) is not handed the answer made for one that does not."""
    tainted = {**NODE, "spec": {"taints": [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]}}
    state = StateNode(tainted, None)
    state.host_port_usage, state.volume_usage = HostPortUsage(), VolumeUsage()
    bases = NodeBases()
    refused = _existing(state, [_daemon(None)], bases)
    assert refused.remaining_resources[resources.CPU] == 2_000_000_000
    tolerating = _existing(state, [_daemon([{"key": "dedicated", "operator": "Exists"}])], bases)
    assert tolerating.remaining_resources[resources.CPU] == 1_750_000_000
    again = _existing(state, [_daemon(None)], bases)
    assert again.remaining_resources[resources.CPU] == 2_000_000_000


def test_the_room_is_shared_until_a_pod_is_added() -> None:
    """Every simulation's node starts from the base's room for its DaemonSet overhead (one per
    overhead), and takes its own copy at the first pod added."""
    state, bases = _state(), NodeBases()
    overhead = resources.parse_list({"cpu": "250m"})
    first = ExistingNode(state, _Topology(), [], overhead, bases.of(state))
    second = ExistingNode(state, _Topology(), [], overhead, bases.of(state))
    bare = ExistingNode(state, _Topology(), [], {}, bases.of(state))
    assert first.remaining_resources[resources.CPU] == 1_250_000_000
    assert bare.remaining_resources[resources.CPU] == 1_500_000_000
    pod = PodInfo({"metadata": {"name": "p", "namespace": "default"}, "spec": {"containers": [{"name": "c"}]}})
    first.add(pod, SimpleNamespace(requests=resources.parse_list({"cpu": "1"})), first.requirements, {})
    assert first.remaining_resources[resources.CPU] == 250_000_000
    assert second.remaining_resources[resources.CPU] == 1_250_000_000
    assert ExistingNode(state, _Topology(), [], overhead, bases.of(state)).remaining_resources[resources.CPU] \
        == 1_250_000_000
