"""kube-scheduler's plugins as Volcano's predicates and nodeorder hand them a framework handle
(plugins/util/k8s.NewFramework): kexplain's own plugins, at the Kubernetes minor Volcano links, over
the session's kube-scheduler view (`cache.K8sView`)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Iterator, Mapping

from kexplain.features.kube_version import KubeVersion
from kexplain.framework.cycle_state import CycleState
from kexplain.framework.interface import NodeScoreList
from kexplain.model.pod import PodInfo
from kexplain.plugins import plugin_class


class Handle:
    """The handle the plugins read: the view's current snapshot and the Kubernetes version."""

    profile_name = "volcano"
    preemption_offset = 0

    def __init__(self, view: Any, kube: KubeVersion) -> None:
        self.view = view
        self.kube = kube

    @property
    def snapshot(self) -> Any:
        return self.view.snapshot


def make(name: str, handle: Handle, args: Mapping[str, Any] | None = None) -> Any:
    return plugin_class(name)(dict(args or {}), handle)


def pod_info(task: Any) -> PodInfo:
    """The task's pod as kube-scheduler's plugins read it, made once per task."""
    if task.k8s_pod is None:
        task.k8s_pod = PodInfo(task.pod)
    return task.k8s_pod


def plugin_scores(plugin: Any, pod: PodInfo, names: list[str], handle: Handle, weight: int,
                  normalize: bool) -> dict[str, float]:
    """nodescore.CalculatePluginScore: PreScore (Skip: no scores), Score per node, the plugin's
    normalizer (or none), each score times the weight."""
    state = CycleState()
    infos = LazyInfos(handle.snapshot, names)
    status = plugin.pre_score(state, pod, infos) if hasattr(plugin, "pre_score") else None
    if status is not None and status.is_skip:
        return {}
    scores = normalized(plugin, pod, names, [int(plugin.score(state, pod, ni)) for ni in infos], normalize, state)
    return {n: float(s * weight) for n, s in zip(names, scores)}


class LazyInfos(Sequence):
    """The NodeInfos of `names`, looked up when first read (a PreScore that skips reads none of them)."""

    def __init__(self, snapshot: Any, names: list[str]) -> None:
        self._snapshot, self._names, self._infos = snapshot, names, None

    def _all(self) -> list[Any]:
        if self._infos is None:
            self._infos = list(map(self._snapshot.get, self._names))
        return self._infos

    def __len__(self) -> int:
        return len(self._names)

    def __getitem__(self, i: Any) -> Any:
        return self._all()[i]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._all())


def normalized(plugin: Any, pod: PodInfo, names: list[str], raw: list[int], normalize: bool,
               state: CycleState | None = None) -> list[int]:
    """The raw scores through the plugin's normalizer (when it runs one), as a new list."""
    scores = NodeScoreList(list(names), list(raw))
    if normalize and hasattr(plugin, "normalize_score"):
        plugin.normalize_score(state if state is not None else CycleState(), pod, scores)
    return scores.scores
