"""Plugin protocols: the extension points a plugin may implement, with kube-scheduler's names.

A plugin is a class with a `name`, the set of `extension_points` it implements, a
constructor taking `(args, handle)`, and the methods of those extension points:

    preEnqueue   pre_enqueue(pod) -> Status
    queueSort    less(a, b) -> bool
    preFilter    pre_filter(state, pod, nodes) -> (PreFilterResult | None, Status)
                 and, when `has_pre_filter_extensions`, add_pod/remove_pod(state, pod, other, node_info) -> Status
    filter       filter(state, pod, node_info) -> Status
    postFilter   post_filter(state, pod, statuses: NodeToStatus) -> (PostFilterResult | None, Status)
    preScore     pre_score(state, pod, nodes) -> Status
    score        score(state, pod, node_info) -> int, and normalize_score(state, pod, scores) when
                 `has_normalize_score` (scores: list[NodeScore], changed in place)

Other extension points (reserve, permit, preBind, bind, postBind) are named so that
configuration can be validated, but never run: kexplain stops before binding.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Iterable, Mapping, Protocol

from kexplain.framework.status import Code, Status

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.model.nodeinfo import NodeInfo
    from kexplain.model.pod import PodInfo
    from kexplain.model.snapshot import Snapshot

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0


@dataclass(frozen=True)
class PreFilterResult:
    """Node names a PreFilter narrowed the search to; None means all nodes."""

    node_names: frozenset[str] | None = None

    @property
    def all_nodes(self) -> bool:
        return self.node_names is None

    def merge(self, other: "PreFilterResult | None") -> "PreFilterResult":
        if other is None or other.all_nodes:
            return self
        if self.all_nodes:
            return other
        return PreFilterResult(self.node_names & other.node_names)


@dataclass
class NodeScore:
    name: str
    score: int


@dataclass
class NodeToStatus:
    """Statuses of rejected nodes, and the status every node not listed shares."""

    statuses: dict[str, Status] = field(default_factory=dict)
    absent: Status = field(default_factory=lambda: Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE))

    def get(self, name: str) -> Status:
        return self.statuses.get(name, self.absent)

    def set(self, name: str, status: Status) -> None:
        self.statuses[name] = status

    def __len__(self) -> int:
        return len(self.statuses)

    def nodes_for_status_code(self, nodes: Iterable["NodeInfo"], code: Code) -> list["NodeInfo"]:
        return [n for n in nodes if self.get(n.name).code is code]


@dataclass(frozen=True)
class PostFilterResult:
    nominated_node_name: str = ""
    mode: str = "Override"   # "Noop" when the plugin does not want to change the nomination
    victims: tuple[str, ...] = ()
    details: Mapping[str, Any] = field(default_factory=dict)


class Handle(Protocol):
    """What the framework offers plugins (kube-scheduler's framework.Handle, the parts we need)."""

    snapshot: "Snapshot"
    profile_name: str

    def run_filter_plugins_with_nominated_pods(self, state, pod: "PodInfo",
                                               node_info: "NodeInfo") -> Status: ...

    def run_pre_filter_extension_add_pod(self, state, pod: "PodInfo", other: "PodInfo",
                                         node_info: "NodeInfo") -> Status: ...

    def run_pre_filter_extension_remove_pod(self, state, pod: "PodInfo", other: "PodInfo",
                                            node_info: "NodeInfo") -> Status: ...


class Plugin:
    """Base class: names the plugin and the extension points it implements.

    Besides `filter(state, pod, node_info)` and `score(state, pod, node_info)`, a plugin may
    offer `filter_nodes(state, pod, nodes) -> list[Status]` and `score_nodes(state, pod,
    nodes) -> list[int]`: the same answers for a whole node list, with the per-pod work done
    once. The runner prefers them; tests/test_batch_plugins.py holds each to its per-node twin."""

    name: ClassVar[str] = ""
    extension_points: ClassVar[frozenset[str]] = frozenset()
    has_pre_filter_extensions: ClassVar[bool] = False
    has_normalize_score: ClassVar[bool] = False

    def __init__(self, args: Mapping[str, Any] | None, handle: Handle) -> None:
        self.args: Mapping[str, Any] = args or {}
        self.handle = handle


def points(*names: str) -> frozenset[str]:
    return frozenset(names)
