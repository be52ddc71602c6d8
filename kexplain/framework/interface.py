"""The plugin contract: one interface per extension point, with kube-scheduler's names (`fwk.FilterPlugin`)."""
from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass, field
from enum import Enum
from itertools import compress, repeat
from operator import attrgetter, is_not
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Iterable, Mapping, Protocol, Self, Sequence

from kexplain.errors import FrameworkError
from kexplain.features import DEFAULT as DEFAULT_VERSION, KubeVersion
from kexplain.framework.cycle_state import CycleState
from kexplain.framework.status import Code, Status

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.model.nodeinfo import NodeInfo
    from kexplain.model.pod import PodInfo
    from kexplain.model.snapshot import Snapshot

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0
# The args of a plugin configured without: one read-only mapping, so that the frameworks of a
# workload's copies share it (`NodeMemo.configured` knows a plugin's configuration by its args' id).
_NO_ARGS: Mapping[str, Any] = MappingProxyType({})


class ExtensionPoint(str, Enum):
    """The extension points, by their KubeSchedulerConfiguration field names, in the v1 API's order."""

    PRE_ENQUEUE = "preEnqueue"
    QUEUE_SORT = "queueSort"
    PRE_FILTER = "preFilter"
    FILTER = "filter"
    POST_FILTER = "postFilter"
    PRE_SCORE = "preScore"
    SCORE = "score"
    RESERVE = "reserve"
    PERMIT = "permit"
    PRE_BIND = "preBind"
    BIND = "bind"
    POST_BIND = "postBind"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class PreFilterResult:
    """Node names a PreFilter narrowed the search to; None means all nodes."""

    node_names: frozenset[str] | None = None

    @property
    def all_nodes(self) -> bool:
        return self.node_names is None

    def merge(self, other: "PreFilterResult | None") -> "PreFilterResult":
        if other is None or other.node_names is None:
            return self
        if self.node_names is None:
            return other
        return PreFilterResult(self.node_names & other.node_names)


@dataclass(slots=True)
class NodeScoreList:
    """Go's NodeScoreList as two columns in node order (names, scores), which normalizers rewrite in place."""

    names: list[str]
    scores: list[int]


@dataclass
class NodeToStatus:
    """Statuses of rejected nodes, and the status every node not listed shares. A search read by node
    position (`framework.search_column`) hands its visited nodes over as they are (`defer`): most
    cycles of a workload's copies fit, and only the number of rejected nodes is read."""

    _known: dict[str, Status] = field(default_factory=dict)
    absent: Status = field(default_factory=lambda: Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE))
    _deferred: list[tuple[list[str], list[Status]]] = field(default_factory=list, repr=False)
    _rejected: int = 0      # of the deferred nodes

    @property
    def statuses(self) -> dict[str, Status]:
        known = self._known
        for names, verdicts in self._deferred:
            known.update(compress(zip(names, verdicts), map(is_not, map(_CODE, verdicts), repeat(Code.SUCCESS))))
        self._deferred, self._rejected = [], 0
        return known

    def defer(self, names: list[str], verdicts: list[Status], rejected: int) -> None:
        """Nodes visited (none of them listed yet), `rejected` of them not Success."""
        self._deferred.append((names, verdicts))
        self._rejected += rejected

    def get(self, name: str) -> Status:
        return self.statuses.get(name, self.absent)

    def set(self, name: str, status: Status) -> None:
        self.statuses[name] = status

    def __len__(self) -> int:
        return len(self._known) + self._rejected


_CODE = attrgetter("code")


@dataclass(frozen=True)
class PostFilterResult:
    nominated_node_name: str = ""
    mode: str = "Override"   # "Noop" when the plugin does not want to change the nomination
    victims: tuple[str, ...] = ()
    details: Mapping[str, Any] = field(default_factory=dict)


class Handle(Protocol):
    """kube-scheduler's framework.Handle (the parts we need), plus DefaultPreemption's `preemption_offset`."""

    snapshot: "Snapshot"
    profile_name: str
    preemption_offset: int

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: "PodInfo",
                                               node_info: "NodeInfo") -> Status: ...

    def run_pre_filter_extension_add_pod(self, state: CycleState, pod: "PodInfo", other: "PodInfo",
                                         node_info: "NodeInfo") -> Status: ...

    def run_pre_filter_extension_remove_pod(self, state: CycleState, pod: "PodInfo", other: "PodInfo",
                                            node_info: "NodeInfo") -> Status: ...


class Plugin:
    """kube-scheduler's fwk.Plugin: a name, its profile's args and the handle."""

    name: ClassVar[str] = ""
    # Filter status and raw Score depend only on the pod, args and that NodeInfo (`framework.node_memo`).
    node_local: ClassVar[bool] = False
    # The spec fields a node-local plugin reads of the pod: its memo answers are keyed by them alone
    # (`model.shapes.fields_key`); None: by the whole pod (`model.shapes.plugin_key`).
    pod_fields: ClassVar[tuple[str, ...] | None] = None
    extension_points: ClassVar[frozenset[ExtensionPoint]] = frozenset()
    _point: ClassVar[ExtensionPoint | None] = None   # set by each extension point's interface
    __abstractmethods__: ClassVar[frozenset[str]]    # set for each subclass, below

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.extension_points = frozenset(p for p in (vars(b).get("_point") for b in cls.__mro__) if p is not None)
        # What ABCMeta does (a class that leaves an interface method unimplemented cannot be
        # instantiated), without its metaclass: its isinstance costs several times a plain
        # class's, and the framework checks every plugin at each of its points.
        cls.__abstractmethods__ = frozenset(
            n for n in dir(cls) if getattr(getattr(cls, n, None), "__isabstractmethod__", False))

    def __init__(self, args: Mapping[str, Any] | None, handle: Handle) -> None:
        self.args: Mapping[str, Any] = args or _NO_ARGS
        self.handle = handle
        # The version to follow (Go hands plugins feature.Features); default for a handle naming none.
        self.kube: KubeVersion = getattr(handle, "kube", DEFAULT_VERSION)

    @classmethod
    def points_at(cls, kube: "KubeVersion") -> frozenset[ExtensionPoint]:
        """The extension points this plugin implements in `kube`'s minor (overridden where they changed)."""
        return cls.extension_points

    @classmethod
    def listed(cls, plugins: Mapping[str, "Plugin"], names: Iterable[str]) -> list[Self]:
        """The plugins `names`, in order, as this interface; FrameworkError for one that does not declare it."""
        out: list[Self] = []
        for name in names:
            pl = plugins[name]
            if not isinstance(pl, cls):
                raise FrameworkError(f'plugin "{name}" does not extend {cls.__name__} plugin')
            out.append(pl)
        return out


class PreEnqueuePlugin(Plugin):
    _point = ExtensionPoint.PRE_ENQUEUE

    @abstractmethod
    def pre_enqueue(self, pod: "PodInfo") -> Status: ...


class QueueSortPlugin(Plugin):
    _point = ExtensionPoint.QUEUE_SORT

    @abstractmethod
    def less(self, a: "PodInfo", b: "PodInfo") -> bool: ...


class PreFilterPlugin(Plugin):
    _point = ExtensionPoint.PRE_FILTER

    @abstractmethod
    def pre_filter(self, state: CycleState, pod: "PodInfo",
                   nodes: Sequence["NodeInfo"]) -> tuple[PreFilterResult | None, Status]: ...


class PreFilterExtensions(Plugin):
    """kube-scheduler's PreFilterExtensions(): state following pods added to or removed from a node."""

    @abstractmethod
    def add_pod(self, state: CycleState, pod: "PodInfo", other: "PodInfo", node_info: "NodeInfo") -> Status: ...

    @abstractmethod
    def remove_pod(self, state: CycleState, pod: "PodInfo", other: "PodInfo", node_info: "NodeInfo") -> Status: ...


class FilterPlugin(Plugin):
    _point = ExtensionPoint.FILTER

    @abstractmethod
    def filter(self, state: CycleState, pod: "PodInfo", node_info: "NodeInfo") -> Status: ...

    def filter_nodes(self, state: CycleState, pod: "PodInfo", nodes: Sequence["NodeInfo"]) -> list[Status]:
        """`filter` on each of `nodes`, in order; overridden to do per-pod work once for the list."""
        filter_one = self.filter
        return [filter_one(state, pod, ni) for ni in nodes]


class PostFilterPlugin(Plugin):
    _point = ExtensionPoint.POST_FILTER

    @abstractmethod
    def post_filter(self, state: CycleState, pod: "PodInfo",
                    statuses: NodeToStatus) -> tuple[PostFilterResult | None, Status]: ...


class PreScorePlugin(Plugin):
    _point = ExtensionPoint.PRE_SCORE

    @abstractmethod
    def pre_score(self, state: CycleState, pod: "PodInfo", nodes: Sequence["NodeInfo"]) -> Status: ...


class ScorePlugin(Plugin):
    _point = ExtensionPoint.SCORE

    @abstractmethod
    def score(self, state: CycleState, pod: "PodInfo", node_info: "NodeInfo") -> int: ...

    def score_nodes(self, state: CycleState, pod: "PodInfo", nodes: Sequence["NodeInfo"]) -> list[int]:
        """`score` on each of `nodes`, in order: the runner's call, overridden as `filter_nodes` is."""
        score_one = self.score
        return [int(score_one(state, pod, ni)) for ni in nodes]


class ScoreExtensions(Plugin):
    """A Score plugin that rescales its raw scores (kube-scheduler's ScoreExtensions())."""

    @abstractmethod
    def normalize_score(self, state: CycleState, pod: "PodInfo", scores: NodeScoreList) -> Status: ...


class ReservePlugin(Plugin):
    _point = ExtensionPoint.RESERVE


class PermitPlugin(Plugin):
    _point = ExtensionPoint.PERMIT


class PreBindPlugin(Plugin):
    _point = ExtensionPoint.PRE_BIND


class BindPlugin(Plugin):
    _point = ExtensionPoint.BIND


class PostBindPlugin(Plugin):
    _point = ExtensionPoint.POST_BIND


class SignPlugin(Plugin):
    """kube-scheduler's SignPlugin: the pod's parts this plugin's verdicts depend on, or None (never batched)."""

    @abstractmethod
    def sign_pod(self, pod: "PodInfo") -> list[tuple[str, Any]] | None: ...


class Explainer(Plugin):
    """kexplain's own: the JSON-ready facts behind a plugin's verdict on one node (`run_explain`)."""

    # Explained for every visited node in the human views (`record_details`), from one copy of the
    # cycle's state shared by those nodes: such an `explain` reads the state, never writes it.
    in_overview: ClassVar[bool] = False

    @abstractmethod
    def explain(self, state: CycleState, pod: "PodInfo", node_info: "NodeInfo") -> dict[str, Any] | None: ...

    def notes(self, state: CycleState, pod: "PodInfo") -> list[str]:
        """What the plugin could not reproduce for this cycle (the trace's `notes`); none by default."""
        return []

    def rejection(self, state: CycleState, pod: "PodInfo") -> dict[str, Any] | None:
        """The facts behind this plugin's PreFilter rejection that its message does not name (`rejection`)."""
        return None


INTERFACES: dict[ExtensionPoint, type[Plugin]] = {
    cls._point: cls for cls in (PreEnqueuePlugin, QueueSortPlugin, PreFilterPlugin, FilterPlugin, PostFilterPlugin,
                                PreScorePlugin, ScorePlugin, ReservePlugin, PermitPlugin, PreBindPlugin, BindPlugin,
                                PostBindPlugin) if cls._point is not None}
# The optional interfaces, and the points a plugin must declare to have them asked.
OPTIONAL: dict[type[Plugin], frozenset[ExtensionPoint]] = {
    PreFilterExtensions: frozenset({ExtensionPoint.PRE_FILTER}),
    ScoreExtensions: frozenset({ExtensionPoint.SCORE}),
    SignPlugin: frozenset({ExtensionPoint.PRE_FILTER, ExtensionPoint.FILTER, ExtensionPoint.PRE_SCORE,
                           ExtensionPoint.SCORE}),
    Explainer: frozenset({ExtensionPoint.PRE_FILTER, ExtensionPoint.FILTER, ExtensionPoint.PRE_SCORE,
                          ExtensionPoint.SCORE}),
}


def _methods(interface: type[Plugin]) -> frozenset[str]:
    return frozenset(n for n, v in vars(interface).items() if callable(v) and not n.startswith("_"))


def check_plugin(cls: type[Plugin]) -> None:
    """Raise TypeError unless `cls` is named and declares exactly the interfaces it implements."""
    if not cls.name:
        raise TypeError(f"plugin class {cls.__qualname__} has no name")
    missing = sorted(cls.__abstractmethods__)
    if missing:
        raise TypeError(f'plugin "{cls.name}" does not implement {", ".join(missing)}')
    for interface in (*INTERFACES.values(), *OPTIONAL):
        if not issubclass(cls, interface):
            found = sorted(m for m in _methods(interface) if hasattr(cls, m))
            if found:
                raise TypeError(f'plugin "{cls.name}" has {", ".join(found)} but does not declare '
                                f'{interface.__name__}')
    for interface, points in OPTIONAL.items():
        if issubclass(cls, interface) and not points & cls.extension_points:
            raise TypeError(f'plugin "{cls.name}" declares {interface.__name__} without '
                            f'{" or ".join(sorted(INTERFACES[p].__name__ for p in points))}')
