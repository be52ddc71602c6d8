"""The scheduling trace (../shared/trace-format.md): what every plugin call returned.

This is the contract renderers and scripts read; the engine fills it and never prints.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

API_VERSION = "kexplain/v1"

SCHEDULED, UNSCHEDULABLE, GATED, ERROR = "Scheduled", "Unschedulable", "Gated", "Error"


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


@dataclass
class Trace:
    """One scheduling attempt. JSON-ready parts are plain dicts and lists."""

    pod: dict[str, str]
    profile: str
    pre_enqueue: list[dict[str, Any]] = field(default_factory=list)
    pre_filter: list[dict[str, Any]] | None = None
    pre_filter_node_names: list[str] | None = None
    search: Search | None = None
    filter: dict[str, dict[str, Any]] | None = None
    filter_all: dict[str, dict[str, dict[str, Any]]] | None = None
    score: dict[str, dict[str, Any]] | None = None
    post_filter: dict[str, Any] | None = None
    result: Result = field(default_factory=lambda: Result(ERROR))
    extra: dict[str, Any] = field(default_factory=dict)   # kexplain's own additions (ignored by conformance)

    def to_json(self) -> dict[str, Any]:
        out = {
            "apiVersion": API_VERSION,
            "kind": "SchedulingTrace",
            "pod": self.pod,
            "profile": self.profile,
            "preEnqueue": self.pre_enqueue,
            "preFilter": self.pre_filter,
            "preFilterNodeNames": self.pre_filter_node_names,
            "search": self.search.to_json() if self.search else None,
            "filter": self.filter,
            "filterAll": self.filter_all,
            "score": self.score,
            "postFilter": self.post_filter,
            "result": self.result.to_json(),
        }
        out.update(self.extra)
        return out


# -- facts behind the verdicts (extra keys `details` and `unexamined`) --------------------------
#
# Renderers show quantities as Kubernetes writes them; facts carry them as quantity strings
# ("3500m", "16Gi", "110") so that neither JSON readers nor renderers need to know a unit.

_BINARY_SUFFIXES = (("Ei", 1 << 60), ("Pi", 1 << 50), ("Ti", 1 << 40), ("Gi", 1 << 30), ("Mi", 1 << 20),
                    ("Ki", 1 << 10))
_DECIMAL_SUFFIXES = (("E", 10**18), ("P", 10**15), ("T", 10**12), ("G", 10**9), ("M", 10**6), ("k", 10**3))


def format_quantity(name: str, amount: int) -> str:
    """An integer amount of resource `name` as a quantity string: cpu is given in millicores
    ("500m", "4"), memory, storage and hugepages in bytes ("16Gi", "1536Mi", "1G"), anything
    else as a plain count."""
    if name == "cpu":
        return str(amount // 1000) if amount % 1000 == 0 else f"{amount}m"
    if amount and (name in ("memory", "ephemeral-storage", "storage") or name.startswith("hugepages-")):
        for suffix, size in (*_BINARY_SUFFIXES, *_DECIMAL_SUFFIXES):
            if amount % size == 0:
                return f"{amount // size}{suffix}"
    return str(amount)


def zone_of(labels: dict[str, str]) -> str:
    """The node's zone label (GA, else beta), "" when it has none."""
    return labels.get("topology.kubernetes.io/zone") or labels.get("failure-domain.beta.kubernetes.io/zone") or ""


def format_expression(expr: dict[str, Any]) -> str:
    """A selector requirement (`{key, operator, values}`: label selector, node selector or
    matchFields) as kubectl would write it: `disktype In [ssd]`, `gpu Exists`."""
    key, op = str(expr.get("key") or ""), str(expr.get("operator") or "")
    values = expr.get("values") or []
    if op in ("Exists", "DoesNotExist") or not values:
        return f"{key} {op}".strip()
    return f"{key} {op} [{', '.join(str(v) for v in values)}]"


def format_label_selector(raw: Any) -> str:
    """A LabelSelector (matchLabels and matchExpressions) as one line: `app=web, tier In [db]`;
    `<none>` for a null selector (matches nothing), `<all>` for an empty one."""
    if not isinstance(raw, dict):
        return "<none>"
    parts = [f"{k}={v}" for k, v in sorted((raw.get("matchLabels") or {}).items())]
    parts += [format_expression(e) for e in raw.get("matchExpressions") or () if isinstance(e, dict)]
    return ", ".join(parts) if parts else "<all>"


def format_toleration(tol: dict[str, Any]) -> str:
    """A toleration as one line: `key=value:NoSchedule`, `key:Exists`, `Exists` (every taint)."""
    key, value = str(tol.get("key") or ""), str(tol.get("value") or "")
    effect = f":{tol['effect']}" if tol.get("effect") else ""
    if (tol.get("operator") or "Equal") == "Exists":
        return f"{key}:Exists{effect}" if key else f"Exists{effect}"
    return f"{key}={value}{effect}"


def format_parsed_selector(selector: Any) -> str:
    """A parsed label selector (`kexplain.model.labels.LabelSelector`) as one line, as
    `format_label_selector` writes a raw one."""
    if selector.nothing:
        return "<none>"
    if not selector.requirements:
        return "<all>"
    return ", ".join(f"{r.key}={next(iter(r.values))}" if r.op == "In" and len(r.values) == 1 else
                     format_expression({"key": r.key, "operator": r.op, "values": sorted(r.values)})
                     for r in selector.requirements)
