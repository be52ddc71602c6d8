"""The scheduling trace (../shared/trace-format.md): the contract renderers read; the engine never prints."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

from kexplain.framework.status import Status

# Not the trace's: framework/extras.py still imports it from here (it belongs to apimachinery).

API_VERSION = "kexplain/v1"

SCHEDULED, UNSCHEDULABLE, GATED, ERROR = "Scheduled", "Unschedulable", "Gated", "Error"
# kexplain's own: a pod bound by spec.nodeName that its node's kubelet rejects (`controllers.kubelet`)
FAILED = "Failed"


@dataclass
class Search:
    num_all_nodes: int
    num_feasible_nodes_to_find: int
    start_index: int
    order: list[str] = field(default_factory=list)
    next_start_index: int = 0
    num_nodes_searched: int = 0
    num_filter_success: int = 0
    order_deterministic: bool = True

    def to_json(self) -> dict[str, Any]:
        out = {"numAllNodes": self.num_all_nodes, "numFeasibleNodesToFind": self.num_feasible_nodes_to_find,
               "startIndex": self.start_index, "order": self.order, "nextStartIndex": self.next_start_index,
               "numNodesSearched": self.num_nodes_searched, "numFilterSuccess": self.num_filter_success}
        if not self.order_deterministic:
            out["orderDeterministic"] = False
        return out


@dataclass
class Result:
    status: str
    selected_nodes: list[str] = field(default_factory=list)
    message: str = ""
    suggested_host: str | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": self.status, "selectedNodes": self.selected_nodes,
                               "message": self.message}
        if self.suggested_host is not None:
            out["suggestedHost"] = self.suggested_host
        if self.error is not None:
            out["error"] = self.error
        return out


class NodeScores(Mapping[str, dict[str, Any]]):
    """The trace's `score` per node, built from Score's columns only when read."""

    __slots__ = ("_nodes", "_totals", "_plugins", "_weights", "_raw", "_normalized", "_at", "_made", "_entries")

    def __init__(self, nodes: list[str], totals: list[int], plugins: list[str], weights: list[int],
                 raw: list[list[int]], normalized: list[list[int]]) -> None:
        self._nodes, self._totals, self._plugins = nodes, totals, plugins
        self._weights, self._raw, self._normalized = weights, raw, normalized
        self._at: dict[str, int] | None = None
        self._made: dict[str, dict[str, Any]] = {}
        # one entry per plugin and distinct (raw, normalized), shared by the nodes that scored
        # it: JSON writes a container it meets again once (`render/json_text`)
        self._entries: dict[tuple[int, int, int], dict[str, int]] = {}

    def __getitem__(self, node: str) -> dict[str, Any]:
        made = self._made.get(node)
        if made is None:
            if self._at is None:
                self._at = {n: k for k, n in enumerate(self._nodes)}
            k = self._at[node]
            plugins = {}
            entries = self._entries
            for i, (p, w, raw, norm) in enumerate(zip(self._plugins, self._weights, self._raw, self._normalized)):
                key = (i, raw[k], norm[k])
                entry = entries.get(key)
                if entry is None:
                    entry = entries[key] = {"raw": key[1], "normalized": key[2], "weight": w, "weighted": key[2] * w}
                plugins[p] = entry
            made = self._made[node] = {"total": self._totals[k], "plugins": plugins}
        return made

    def __iter__(self) -> Iterator[str]:
        return iter(self._nodes)

    def __len__(self) -> int:
        return len(self._nodes)

    def totals(self) -> tuple[list[str], list[int]]:
        """The nodes and their totals, in order, without the per-plugin entries."""
        return self._nodes, self._totals


class NodeVerdicts(Mapping[str, dict[str, Any]]):
    """The trace's `filter`: each node visited, in order, with its verdict (its status's shared JSON),
    kept as the search's two columns, names and statuses, and made JSON and a dict only when read by node.
    A search visits thousands of nodes per cycle, and of a thousand copies' cycles most are only counted
    (`statuses`)."""

    __slots__ = ("_names", "_statuses", "_views", "_made", "_counts")

    def __init__(self) -> None:
        self._names: list[str] = []
        self._statuses: list[Status] = []
        self._views: list[dict[str, Any]] | None = []
        self._made: dict[str, dict[str, Any]] | None = None
        self._counts: list[tuple[Status, int]] | None = None

    def extend(self, names: list[str], statuses: list[Status],
               counts: list[tuple[Status, int]] | None = None) -> None:
        """More nodes visited (a node visited again keeps its place and takes its new verdict, as a dict);
        `counts`: each distinct status among them and how many nodes have it, when known already."""
        self._counts = counts if not self._names else None
        self._names += names
        self._statuses += statuses
        self._views = self._made = None

    def counts(self) -> list[tuple[Status, int]] | None:
        """Each distinct status and how many nodes have it, when the search knew (else None)."""
        return self._counts

    def statuses(self) -> list[Status]:
        """One status per node (its last, for a node visited twice). The search visits each node once:
        only the node checked before it (nominated, or the batch's hint) can come again."""
        names = self._names
        if not names or names.count(names[0]) == 1:
            return self._statuses
        return list(dict(zip(names, self._statuses)).values())

    def _verdicts(self) -> list[dict[str, Any]]:
        """Each status's shared JSON (`Status.json_view`), made once per distinct status."""
        views = self._views
        if views is None:
            statuses = self._statuses
            made = {key: s.json_view(with_plugin=True) for key, s in dict(zip(map(id, statuses), statuses)).items()}
            views = self._views = list(map(made.__getitem__, map(id, statuses)))
        return views

    def as_dict(self) -> dict[str, dict[str, Any]]:
        """The mapping as a dict, made once until more nodes are visited (read only)."""
        return self._dict()

    def _dict(self) -> dict[str, dict[str, Any]]:
        made = self._made
        if made is None:
            made = self._made = dict(zip(self._names, self._verdicts()))
        return made

    def __getitem__(self, node: str) -> dict[str, Any]:
        return self._dict()[node]

    def get(self, node: str, default: Any = None) -> Any:
        return self._dict().get(node, default)

    def __contains__(self, node: object) -> bool:
        return node in self._dict()

    def __iter__(self) -> Iterator[str]:
        return iter(self._dict())

    def __len__(self) -> int:
        return len(self._dict())

    def __bool__(self) -> bool:
        return bool(self._names)

    def items(self):  # type: ignore[override]
        return self._dict().items()

    def values(self):  # type: ignore[override]
        return self._dict().values()


def filter_json(verdicts: Mapping[str, dict[str, Any]] | None) -> dict[str, dict[str, Any]] | None:
    """The trace's `filter` as JSON: a plain mapping per node, in order; the same dict each time
    (read only): a trace shared by many pods is written once and its text reused (`render/json_text`)."""
    if verdicts is None or type(verdicts) is dict:
        return verdicts   # type: ignore[return-value]
    if isinstance(verdicts, NodeVerdicts):
        return verdicts.as_dict()
    return dict(verdicts.items())


def score_json(score: Mapping[str, dict[str, Any]] | None) -> dict[str, dict[str, Any]] | None:
    """The trace's `score` as JSON: a plain mapping per node, in order."""
    return score if score is None or type(score) is dict else {n: score[n] for n in score}


@dataclass
class Trace:
    """One scheduling attempt. JSON-ready parts are plain dicts and lists."""

    pod: dict[str, str]
    profile: str
    pre_enqueue: list[dict[str, Any]] = field(default_factory=list)
    pre_filter: list[dict[str, Any]] | None = None
    pre_filter_node_names: list[str] | None = None
    search: Search | None = None
    filter: Mapping[str, dict[str, Any]] | None = None     # node -> verdict (`NodeVerdicts`)
    filter_all: dict[str, dict[str, dict[str, Any]]] | None = None
    score: Mapping[str, dict[str, Any]] | None = None       # node -> total and plugins (`NodeScores`)
    post_filter: dict[str, Any] | None = None
    result: Result = field(default_factory=lambda: Result(ERROR))
    extra: dict[str, Any] = field(default_factory=dict)   # kexplain's own additions (ignored by conformance)
    kubernetes: dict[str, Any] | None = None   # the version followed: minor, scheduler release, gates changed

    def to_json(self) -> dict[str, Any]:
        out = {
            "apiVersion": API_VERSION,
            "kind": "SchedulingTrace",
            "pod": self.pod,
            "profile": self.profile,
            **({"kubernetesVersion": self.kubernetes} if self.kubernetes is not None else {}),
            "preEnqueue": self.pre_enqueue,
            "preFilter": self.pre_filter,
            "preFilterNodeNames": self.pre_filter_node_names,
            "search": self.search.to_json() if self.search else None,
            "filter": filter_json(self.filter),
            "filterAll": self.filter_all,
            "score": score_json(self.score),
            "postFilter": self.post_filter,
            "result": self.result.to_json(),
        }
        out.update(self.extra)
        return out
