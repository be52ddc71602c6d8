"""Hierarchical DRF (plugins/drf with `enableHierarchy`): the queues' `volcano.sh/hierarchy` paths
(`root/eng/dev`) and `volcano.sh/hierarchy-weights` (`100/50/50`) make a tree whose leaves are the jobs.
A node's allocation is its children's, each unsaturated child scaled to the smallest dominant share among
them (so a child's weight in the sum is its share of the scarcest fair split), a saturated one as it is;
queues are ordered by share over weight from the root down, saturated nodes last."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from kexplain.volcano.api.resource import Resource

HIERARCHY = "volcano.sh/hierarchy"
WEIGHTS = "volcano.sh/hierarchy-weights"


@dataclass
class Attr:
    """drfAttr: a job's (or a node's) allocation and its dominant share."""

    allocated: Resource = field(default_factory=Resource)
    share: float = 0.0
    dominant: str = ""


@dataclass(eq=False)
class HNode:
    """hierarchicalNode: a level of the tree (children by name) or a job (children None)."""

    name: str
    weight: float
    attr: Attr
    request: Resource
    children: dict[str, "HNode"] | None
    saturated: bool = False

    def clone(self) -> "HNode":
        """Clone: the attributes copied (a job's too), the subtree cloned."""
        return HNode(self.name, self.weight, Attr(self.attr.allocated.clone(), self.attr.share, self.attr.dominant),
                     self.request.clone(), None if self.children is None
                     else {k: c.clone() for k, c in self.children.items()}, self.saturated)


def new_root() -> HNode:
    return HNode("root", 1.0, Attr(), Resource(), {})


def queue_path(queue: Any) -> tuple[str, str]:
    """QueueInfo's Hierarchy and Weights: the queue's two annotations ("" when absent)."""
    annotations = ((getattr(queue, "obj", None) or {}).get("metadata") or {}).get("annotations") or {}
    return str(annotations.get(HIERARCHY) or ""), str(annotations.get(WEIGHTS) or "")


def _weight(weights: list[str], i: int) -> float:
    """strconv.ParseFloat of the level's weight, at least 1 (Go indexes the list: a shorter one panics
    the scheduler; kexplain takes 1)."""
    try:
        w = float(weights[i]) if i < len(weights) else 1.0
    except ValueError:
        w = 0.0
    return w if w >= 1 else 1.0


def resource_saturated(allocated: Resource, request: Resource, demanding: set[str]) -> bool:
    """resourceSaturated: the job holds all it asks of a resource, or asks for one the cluster has no
    more of."""
    for rn in allocated.resource_names():
        a, r = allocated.get(rn), request.get(rn)
        if a != 0 and r != 0 and a >= r:
            return True
        if rn not in demanding and r != 0:
            return True
    return False


class Tree:
    """The hierarchy over the cluster's `total`, its share function (calculateShare) given."""

    def __init__(self, total: Resource, share_of: Callable[[Resource], tuple[str, float]]) -> None:
        self.total = total
        self.share_of = share_of

    def build(self, root: HNode, job_uid: str, attr: Attr, request: Resource, hierarchy: str, weights: str) -> None:
        """buildHierarchy: the path's levels made where missing, the job's leaf (re)placed under the last."""
        node, paths, ws = root, hierarchy.split("/"), weights.split("/")
        for i in range(1, len(paths)):
            assert node.children is not None
            child = node.children.get(paths[i])
            if child is None:
                child = node.children[paths[i]] = HNode(paths[i], _weight(ws, i), Attr(), Resource(), {})
            node = child
        assert node.children is not None
        node.children[job_uid] = HNode(job_uid, 1.0, attr, request.clone(), None)

    def refresh(self, node: HNode, demanding: set[str]) -> None:
        """updateHierarchicalShare: bottom up, each level's allocation from its scaled children."""
        if node.children is None:
            node.saturated = resource_saturated(node.attr.allocated, node.request, demanding)
            return
        mdr = 1.0
        for child in node.children.values():
            self.refresh(child, demanding)
            if child.attr.share != 0 and not child.saturated:
                mdr = min(mdr, self.share_of(child.attr.allocated)[1])
        allocated = Resource()
        for child in node.children.values():
            if child.attr.share != 0:
                allocated.add(child.attr.allocated if child.saturated
                              else child.attr.allocated.clone().multi(mdr / child.attr.share))
        dominant, share = self.share_of(allocated)
        node.attr = Attr(allocated, share, dominant)
        node.saturated = all(c.saturated for c in node.children.values())

    def update(self, root: HNode, total_allocated: Resource, job_uid: str, attr: Attr, request: Resource,
               queue: Any) -> None:
        """UpdateHierarchicalShare: the resources the cluster still has room of, the job placed, the tree
        refreshed."""
        demanding = {rn for rn in self.total.resource_names() if total_allocated.get(rn) < self.total.get(rn)}
        self.build(root, job_uid, attr, request, *queue_path(queue))
        self.refresh(root, demanding)


def compare_queues(root: HNode, lqueue: Any, rqueue: Any) -> float:
    """compareQueues: down both paths while share over weight ties; a saturated node after a demanding one.
    A level without jobs is not in the tree (Go would dereference nil there; kexplain calls it a tie)."""
    lpaths, rpaths = queue_path(lqueue)[0].split("/"), queue_path(rqueue)[0].split("/")
    lnode: HNode | None = root
    rnode: HNode | None = root
    depth = min(len(lpaths), len(rpaths))
    for i in range(depth):
        if lnode is None or rnode is None:
            return 0.0
        if not lnode.saturated and rnode.saturated:
            return -1.0
        if lnode.saturated and not rnode.saturated:
            return 1.0
        lv, rv = lnode.attr.share / lnode.weight, rnode.attr.share / rnode.weight
        if lv != rv:
            return lv - rv
        if i < depth - 1:
            lnode = (lnode.children or {}).get(lpaths[i + 1])
            rnode = (rnode.children or {}).get(rpaths[i + 1])
    return 0.0
