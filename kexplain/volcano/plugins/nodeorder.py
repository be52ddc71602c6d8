"""The nodeorder plugin (plugins/nodeorder): kube-scheduler's scores with Volcano's weights:
least-requested (cpu and memory, 50 each) 1, most-requested 0, balanced allocation (cpu, memory,
nvidia.com/gpu) 1, node affinity 2, inter-pod affinity 2, taint toleration 3, pod topology spread 2,
image locality 1; each plugin's scores normalized as its own, then weighted."""
from __future__ import annotations

from typing import Any

from kexplain.framework.cycle_state import CycleState
from kexplain.plugins import names as n
from kexplain.volcano.api.node import NodeInfo
from kexplain.volcano.api.task import TaskInfo
from kexplain.volcano.plugins import k8s
from kexplain.volcano.plugins.args import get_int

NAME = "nodeorder"
WEIGHTS = (("leastrequested.weight", 1), ("mostrequested.weight", 0), ("balancedresource.weight", 1),
           ("nodeaffinity.weight", 2), ("podaffinity.weight", 2), ("tainttoleration.weight", 3),
           ("podtopologyspread.weight", 2), ("imagelocality.weight", 1))


def _fit(strategy: str, weight: int) -> dict[str, Any]:
    return {"scoringStrategy": {"type": strategy, "resources": [{"name": "cpu", "weight": weight},
                                                                 {"name": "memory", "weight": weight}]}}


# weight key -> (kube-scheduler plugin, its args, whether its own normalizer runs)
PLUGINS: dict[str, tuple[str, dict[str, Any] | None, bool]] = {
    "leastrequested.weight": (n.NODE_RESOURCES_FIT, _fit("LeastAllocated", 50), False),
    "mostrequested.weight": (n.NODE_RESOURCES_FIT, _fit("MostAllocated", 1), False),
    "balancedresource.weight": (n.NODE_RESOURCES_BALANCED_ALLOCATION,
                                {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1},
                                               {"name": "nvidia.com/gpu", "weight": 1}]}, False),
    "nodeaffinity.weight": (n.NODE_AFFINITY, None, True),
    "podaffinity.weight": (n.INTER_POD_AFFINITY, None, True),
    "tainttoleration.weight": (n.TAINT_TOLERATION, None, True),
    "podtopologyspread.weight": (n.POD_TOPOLOGY_SPREAD, {"defaultingType": "System"}, True),
}


class NodeOrder:
    name = NAME

    def __init__(self, arguments: dict[str, Any]) -> None:
        self.arguments = arguments
        self.weights = {key: get_int(arguments, key, default) for key, default in WEIGHTS}
        self.batch: list[tuple[Any, int, bool]] = []
        self.image_locality: Any = None
        self.state = CycleState()          # ImageLocality's Score reads no state

    def on_session_open(self, ssn: Any) -> None:
        self.handle = k8s.Handle(ssn.k8s, ssn.kube)
        for key, (name, args, normalize) in PLUGINS.items():
            if self.weights[key]:
                self.batch.append((k8s.make(name, self.handle, args), self.weights[key], normalize))
        if self.weights["imagelocality.weight"]:
            self.image_locality = k8s.make(n.IMAGE_LOCALITY, self.handle)
        ssn.add("nodeOrder", NAME, self.node_order)
        ssn.add("batchNodeOrder", NAME, self.batch_node_order)

    def node_order(self, task: TaskInfo, node: NodeInfo) -> float:
        """NodeOrderFn: image locality, weighted, node by node."""
        if self.image_locality is None:
            return 0.0
        info = self.handle.snapshot.get(node.name)
        return float(self.image_locality.score(self.state, k8s.pod_info(task), info)
                     * self.weights["imagelocality.weight"])

    def batch_node_order(self, task: TaskInfo, nodes: list[NodeInfo]) -> dict[str, float]:
        pod = k8s.pod_info(task)
        names = [nd.name for nd in nodes]
        out = {nm: 0.0 for nm in names}
        for plugin, weight, normalize in self.batch:
            for nm, s in k8s.plugin_scores(plugin, pod, names, self.handle, weight, normalize).items():
                out[nm] += s
        return out

    def on_session_close(self, ssn: Any) -> None:
        pass


def New(arguments: dict[str, Any]) -> NodeOrder:
    return NodeOrder(arguments)
