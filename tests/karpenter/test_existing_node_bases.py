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

    def register_all(self, key: str, values: list[str]) -> None:
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


class _Registering(_Topology):
    def __init__(self) -> None:
        self.registered: list[str] = []

    def register(self, key: str, value: str) -> None:
        self.registered.append(value)

    def register_all(self, key: str, values: list[str]) -> None:
        self.registered.extend(values)


def _states() -> list[StateNode]:
    """A plain node, a tainted one, a managed one not initialized (its NodeClaim's capacity, its startup
    taint left out), in an order the scheduler's sort changes."""
    tainted = {**NODE, "metadata": {"name": "n0", "labels": {"kubernetes.io/hostname": "n0",
                                                             "karpenter.sh/nodepool": "default"}},
               "spec": {"taints": [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]}}
    fresh = {**NODE, "metadata": {"name": "m1", "labels": {"kubernetes.io/hostname": "m1",
                                                           "karpenter.sh/nodepool": "default",
                                                           "karpenter.sh/registered": "true"}},
             "spec": {"taints": [{"key": "boot", "effect": "NoSchedule"}]}}
    claim = {"metadata": {"name": "m1"}, "spec": {"startupTaints": [{"key": "boot", "effect": "NoSchedule"}]},
             "status": {"capacity": {"cpu": "4", "pods": "20"}, "allocatable": {"cpu": "3", "pods": "20"}}}
    out = []
    for obj, nc in ((NODE, None), (tainted, None), (fresh, claim)):
        state = StateNode(obj, nc)
        state.pod_requests.append(resources.parse_list({"cpu": "500m"}))
        state.host_port_usage, state.volume_usage = HostPortUsage(), VolumeUsage()
        out.append(state)
    return out


def _seen(nodes: list[ExistingNode]) -> list[tuple]:
    return [(n.name(), n.remaining_resources, n.requirements, n.taints, n.pods, n.version, n.initialized(),
             n.host_port_usage, n.volume_usage) for n in nodes]


def _made(states: list[StateNode], daemons: list[PodInfo], bases: NodeBases | None
          ) -> tuple[list[ExistingNode], dict, list[str]]:
    from kexplain.karpenter.provisioning.scheduling.scheduler import Scheduler

    holder = SimpleNamespace(remaining_resources={"default": {resources.CPU: 100_000_000_000}})
    topology = _Registering()
    nodes = Scheduler._existing_nodes(holder, states, topology, daemons, bases)
    return nodes, holder.remaining_resources, topology.registered


def _sized(cpu: str, tolerations: list | None = None) -> PodInfo:
    spec: dict = {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}
    if tolerations is not None:
        spec["tolerations"] = tolerations
    return PodInfo({"metadata": {"name": "ds", "namespace": "kube-system"}, "spec": spec})


DAEMON_SETS = [[], [_sized("250m")], [_sized("250m", [{"key": "dedicated", "operator": "Exists"}])],
               [_sized("100m")],        # (the tolerations of the first, other requests: not its starts)
               [_sized("250m"), _sized("50m", [{"operator": "Exists"}])], [_sized("250m")]]


def test_a_schedulers_nodes_made_from_the_starts_are_those_made_afresh() -> None:
    """Every scheduler of a pass after the first starts its existing nodes from the starts the first
    made for equal DaemonSet pods (`NodeBases.starts`): the nodes, the NodePools' remaining resources and
    the hostnames registered (in the nodes' order before the sort) are those a scheduler without them
    makes, for DaemonSet pods that differ in their tolerations or only in their requests."""
    states, bases = _states(), NodeBases()
    for daemons in DAEMON_SETS + DAEMON_SETS[::-1]:
        fresh = _made(states, daemons, None)
        for _ in range(2):
            nodes, remaining, registered = _made(states, daemons, bases)
            assert _seen(nodes) == _seen(fresh[0]) and remaining == fresh[1] and registered == fresh[2]
    assert registered == ["n1", "n0", "m1"] and [n.name() for n in nodes] == ["n0", "n1", "m1"]
    assert [n.remaining_resources[resources.CPU] for n in _made(states, [_sized("100m")], bases)[0]] == \
        [1_500_000_000, 1_400_000_000, 1_400_000_000]


def test_what_one_scheduler_adds_to_a_node_is_not_in_the_next_ones() -> None:
    """A start is shared by the schedulers of a pass: the pods, room, requirements, version and host
    ports one adds to its node stay its own (copied at the first pod), the next scheduler's node is as
    made afresh."""
    states, bases = _states(), NodeBases()
    daemons = [_sized("250m")]
    first = _made(states, daemons, bases)[0][1]
    fresh = _seen(_made(states, daemons, None)[0])
    pod = PodInfo({"metadata": {"name": "p", "namespace": "default"}, "spec": {"containers": [
        {"name": "c", "resources": {"requests": {"cpu": "1"}},
         "ports": [{"containerPort": 80, "hostPort": 8080, "protocol": "TCP"}]}]}})
    narrowed = type(first.requirements)(first.requirements)
    narrowed.add(new_requirement("team", "In", "x"))
    first.add(pod, SimpleNamespace(requests=resources.parse_list({"cpu": "1"})), narrowed, {})
    assert first.pods == [pod] and first.version == 1 and "team" in first.requirements
    again = _made(states, daemons, bases)[0]
    assert _seen(again) == fresh and again[1] is not first
    assert again[1].host_port_usage is states[0].host_port_usage is not first.host_port_usage
