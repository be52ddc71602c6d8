"""The nodeorder plugin (plugins/nodeorder): kube-scheduler's scores with Volcano's weights:
least-requested (cpu and memory, 50 each) 1, most-requested 0, balanced allocation (cpu, memory,
nvidia.com/gpu) 1, node affinity 2, inter-pod affinity 2, taint toleration 3, pod topology spread 2,
image locality 1; each plugin's scores normalized as its own, then weighted."""
from __future__ import annotations

from itertools import repeat
from operator import add, mul
from typing import Any

from kexplain.framework.cycle_state import CycleState
from kexplain.plugins import names as n
from kexplain.volcano.api.node import NodeInfo
from kexplain.volcano.api.task import TaskInfo
from kexplain.volcano.plugins import k8s
from kexplain.volcano.plugins.args import get_int
from kexplain.volcano.plugins.memo import NAME as NODE_NAME, memo_of, node_keys

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
        self.ssn = ssn
        ssn.add("nodeOrder", NAME, NodeOrderFn(self.node_order, self.image_scores))
        ssn.add("batchNodeOrder", NAME, NodeOrderFn(self.batch_node_order, self.batch_scores))

    def node_order(self, task: TaskInfo, node: NodeInfo) -> float:
        """NodeOrderFn: image locality, weighted, node by node."""
        if self.image_locality is None:
            return 0.0
        info = self.handle.snapshot.get(node.name)
        return float(self.image_locality.score(self.state, k8s.pod_info(task), info)
                     * self.weights["imagelocality.weight"])

    def image_scores(self, task: TaskInfo, nodes: list[NodeInfo]) -> list[float]:
        """`node_order` of each node, kept per list of the pod's images (a session changes no node's
        images, nor how many nodes there are)."""
        memo = memo_of(self.ssn)
        if memo is None or self.image_locality is None:
            return [self.node_order(task, nd) for nd in nodes]
        spec = k8s.pod_info(task).spec
        images = tuple(str(c.get("image") or "") for key in ("initContainers", "containers")
                       for c in spec.get(key) or () if isinstance(c, dict))
        table = memo.scores.get((id(self.image_locality), images))
        found = list(map(table.get, map(NODE_NAME, nodes)))
        if None in found:
            for i, nd in enumerate(nodes):
                if found[i] is None:
                    found[i] = table[nd.name] = self.node_order(task, nd)
        return found       # type: ignore[return-value]

    def batch_node_order(self, task: TaskInfo, nodes: list[NodeInfo]) -> dict[str, float]:
        """BatchNodeOrderFn: `batch_scores` by node name."""
        return dict(zip([nd.name for nd in nodes], self.batch_scores(task, nodes)))

    def batch_scores(self, task: TaskInfo, nodes: list[NodeInfo]) -> list[float]:
        """Each plugin's weighted scores summed per node, in the nodes' order (the raw scores `memo` keeps
        normalized here; integral, so the order of the sums changes nothing: the kept ones are summed as
        ints and made floats at the end)."""
        pod = k8s.pod_info(task)
        keys = node_keys(nodes)
        names = keys[0]
        totals: list[Any] = [0] * len(names)
        memo = memo_of(self.ssn)
        snap = self.handle.snapshot
        for plugin, weight, normalize in self.batch:
            kept, raw = memo.raw_scores(plugin, task, pod, keys, snap) if memo is not None else (False, None)
            if kept:
                if raw is not None:
                    scores = k8s.normalized(plugin, pod, names, raw, normalize)
                    totals = list(map(add, totals, scores if weight == 1 else map(mul, scores, repeat(weight))))
                continue
            weighted = k8s.plugin_scores(plugin, pod, names, self.handle, weight, normalize)
            if weighted:
                totals = list(map(add, totals, map(weighted.__getitem__, names)))
        return list(map(float, totals))

    def on_session_close(self, ssn: Any) -> None:
        pass


class NodeOrderFn:
    """A nodeOrder (or batchNodeOrder) function that also answers as a list in the nodes' order
    (`Session.node_scores` asks `many`)."""

    def __init__(self, one: Any, many: Any) -> None:
        self.one, self.many = one, many

    def __call__(self, task: TaskInfo, node: Any) -> Any:
        return self.one(task, node)


def New(arguments: dict[str, Any]) -> NodeOrder:
    return NodeOrder(arguments)
