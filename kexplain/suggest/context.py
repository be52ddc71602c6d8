"""What the trace says, as every fix family reads it: which plugins rejected which nodes, and why
(a node a plugin could not judge is left out: no change can be shown to open it)."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Iterable, Mapping

from kexplain.explain.pod_inputs import Inputs
from kexplain.explain.request import RunOptions
from kexplain.framework.status import Code
from kexplain.framework.trace import Trace
from kexplain.model.nodeinfo import NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot

REJECTED = (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
# The bounds every family keeps to, so that the candidates stay few and cheap to verify.
MAX_PER_REASON = 2         # alternatives offered for one reason
MAX_GROUPS = 5             # distinct per-node fixes compared when choosing the best ones

# node -> rejecting plugin -> its status (`code`, `reasons`)
Blocked = Mapping[str, Mapping[str, Mapping[str, Any]]]


def blocked_nodes(filter_all: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> dict[str, dict[str, dict[str, Any]]]:
    """The rejected nodes and, for each, the plugins that rejected it (nodes with an Error left out).
    Nodes with the same statuses share filterAll's entry (`kexplain.framework.schedule`), and
    then their rejections too, read once (read only, as `Blocked` says)."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    read: dict[int, tuple[Mapping[str, Any], dict[str, dict[str, Any]]]] = {}     # id(entry) -> (entry, rejections)
    for node, plugins in filter_all.items():
        found = read.get(id(plugins))
        if found is None:
            found = read[id(plugins)] = (plugins, _rejecting(plugins))
        if found[1]:
            out[node] = found[1]
    return out


def _rejecting(plugins: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """The rejecting plugins of one node's filterAll entry, each status copied; none when one
    failed with an Error."""
    if any(st.get("code") == Code.ERROR for st in plugins.values()):
        return {}
    return {p: dict(st) for p, st in plugins.items() if st.get("code") in REJECTED}


@dataclass(frozen=True)
class Context:
    """The pod, the cluster and the rejections a fix family proposes changes from."""

    inputs: Inputs
    options: RunOptions             # how the pod was run (where the round-robin started)
    trace: Trace
    blocked: Blocked

    @property
    def pod(self) -> PodInfo:
        return self.inputs.pod

    @property
    def pod_target(self) -> str:
        """The `target` of a change to the pod."""
        return f"pod {self.pod.key}"

    @property
    def snapshot(self) -> Snapshot:
        return self.inputs.snapshot

    @cached_property
    def _by_plugins(self) -> dict[frozenset[str], list[str]]:
        """The rejected nodes by the set of plugins rejecting each, in `blocked`'s order (nodes with the same
        statuses share one rejection, `blocked_nodes`: its set made once)."""
        sets: dict[int, frozenset[str]] = {}
        out: dict[frozenset[str], list[str]] = {}
        for node, rejection in self.blocked.items():
            names = sets.get(id(rejection))
            if names is None:
                names = sets[id(rejection)] = frozenset(rejection)
            out.setdefault(names, []).append(node)
        return out

    def only(self, *plugins: str) -> list[str]:
        """Nodes rejected by these plugins and no other (each of them rejecting)."""
        return list(self._by_plugins.get(frozenset(plugins), ()))

    def within(self, plugins: Iterable[str]) -> list[str]:
        """Nodes rejected by some of these plugins and no other, in `blocked`'s order."""
        allowed = set(plugins)
        groups = [nodes for names, nodes in self._by_plugins.items() if names <= allowed]
        if len(groups) <= 1:
            return list(groups[0]) if groups else []
        wanted = set().union(*groups)
        return [n for n in self.blocked if n in wanted]

    def reasons(self, node: str, plugin: str) -> list[str]:
        return list((self.blocked.get(node, {}).get(plugin) or {}).get("reasons") or ())

    def info(self, node: str) -> NodeInfo | None:
        return self.snapshot.get(node)
