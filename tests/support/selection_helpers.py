"""Small constructors for the node-selection plugin tests (NodeAffinity, TaintToleration,
NodePorts, ImageLocality, DynamicResources)."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from kexplain.framework.cycle_state import CycleState
from kexplain.framework.interface import NodeScoreList, ScoreExtensions
from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot


def node_obj(name: str, labels: dict | None = None, taints: list | None = None,
             images: list | None = None) -> dict[str, Any]:
    obj: dict[str, Any] = {"apiVersion": "v1", "kind": "Node",
                           "metadata": {"name": name, "labels": dict(labels or {})},
                           "spec": {}, "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
    if taints:
        obj["spec"]["taints"] = taints
    if images:
        obj["status"]["images"] = images
    return obj


def node(name: str, labels: dict | None = None, **kw) -> Node:
    return Node.from_obj(node_obj(name, labels, **kw))


def node_info(name: str, labels: dict | None = None, **kw) -> NodeInfo:
    return NodeInfo(node(name, labels, **kw))


def pod(name: str = "p", namespace: str = "default", spec: dict | None = None,
        status: dict | None = None) -> PodInfo:
    s = {"containers": [{"name": "c", "image": "busybox"}]}
    s.update(spec or {})
    obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}"},
           "spec": s, "status": dict(status or {})}
    return PodInfo(obj)


def taint(key: str, effect: str, value: str = "") -> dict:
    t = {"key": key, "effect": effect}
    if value:
        t["value"] = value
    return t


def handle(node_infos: list[NodeInfo]) -> SimpleNamespace:
    return SimpleNamespace(snapshot=Snapshot(node_infos), profile_name="default-scheduler")


def status_tuple(status) -> tuple[str, tuple[str, ...]]:
    return (status.code.value, tuple(status.reasons))


def score_all(plugin, state: CycleState, p: PodInfo, infos: list[NodeInfo]) -> tuple[dict, dict]:
    """Raw scores and, when the plugin normalises, the normalised ones, by node name."""
    scores = NodeScoreList([ni.name for ni in infos], [plugin.score(state, p, ni) for ni in infos])
    raw = dict(zip(scores.names, scores.scores))
    if isinstance(plugin, ScoreExtensions):
        plugin.normalize_score(state, p, scores)
    return raw, dict(zip(scores.names, scores.scores))
