"""ImageLocality: prefer nodes that already hold the pod's container images, so the pod starts without a long
pull. Large images count more, but an image present on many nodes counts less (its size is scaled by the share
of nodes having it), so that pods do not all pile onto the few nodes that happen to have an image."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kexplain.apimachinery.display import format_quantity
from kexplain.framework.interface import MAX_NODE_SCORE, Explainer, ScorePlugin, SignPlugin
from kexplain.framework import signers
from kexplain.model.images import normalized_image_name
from kexplain.model.snapshot import Snapshot, unchanged_by_bind
from kexplain.plugins import names

NAME = names.IMAGE_LOCALITY
CACHE_KEY = NAME + "/imageStates"
STATE_KEY = NAME

MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB
FULL_INDEX_AFTER = 8        # distinct image names sought node by node before all are indexed (`ImageStates`)


@dataclass(frozen=True)
class ImageState:
    """What the scheduler cache keeps per image name: a size and the nodes having it."""

    size: int
    nodes: frozenset[str]


class ImageStates:
    """The `ImageState` of an image name of the nodes' status.images, made when asked (a cluster lists
    tens of thousands, a pod asks a few): sought node by node, then indexed at once past
    FULL_INDEX_AFTER names; a name's size the first the nodes report, as the scheduler's cache keeps it."""

    __slots__ = ("_images", "_states", "_index")

    def __init__(self, images: list[tuple[str, list[dict[str, Any]]]]) -> None:
        self._images = images           # (node name, its status.images), in the snapshot's order
        self._states: dict[str, ImageState | None] = {}
        self._index: tuple[dict[str, int], dict[str, set[str]]] | None = None

    def get(self, name: str) -> ImageState | None:
        states = self._states
        if name in states:
            return states[name]
        if self._index is None and len(states) >= FULL_INDEX_AFTER:
            self._index = _index(self._images)
        state = states[name] = self._sought(name) if self._index is None else self._looked_up(name)
        return state

    def __getitem__(self, name: str) -> ImageState:
        state = self.get(name)
        if state is None:
            raise KeyError(name)
        return state

    def _sought(self, name: str) -> ImageState | None:
        return _state(_index(self._images, {name}), name)

    def _looked_up(self, name: str) -> ImageState | None:
        return _state(self._index, name)      # type: ignore[arg-type]


def _index(images: list[tuple[str, list[dict[str, Any]]]], wanted: set[str] | None = None
           ) -> tuple[dict[str, int], dict[str, set[str]]]:
    """Each name's first size and the nodes reporting it, in one pass: every name's, or only
    those of `wanted` (picked from each image's names in C)."""
    sizes: dict[str, int] = {}
    nodes: dict[str, set[str]] = {}
    for node, listed in images:
        for image in listed:
            names = image.get("names") or ()
            for name in (names if wanted is None else wanted.intersection(names)):
                if name not in sizes:
                    sizes[name] = int(image.get("sizeBytes") or 0)
                nodes.setdefault(name, set()).add(node)
    return sizes, nodes


def _state(index: tuple[dict[str, int], dict[str, set[str]]], name: str) -> ImageState | None:
    sizes, nodes = index
    return ImageState(sizes[name], frozenset(nodes[name])) if name in sizes else None


def build_image_states(snapshot: Snapshot) -> ImageStates:
    """The image states of the snapshot's nodes (read as the names are asked: `ImageStates`)."""
    return ImageStates([(ni.name, ni.node.images) for ni in snapshot.node_infos])


def scaled_image_score(state: ImageState, total_nodes: int) -> int:
    """The image's size times the fraction of nodes that have it (float math, truncated)."""
    spread = float(len(state.nodes)) / float(total_nodes)
    return int(float(state.size) * spread)


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    clamped = min(max(sum_scores, MIN_THRESHOLD), max_threshold)
    return MAX_NODE_SCORE * (clamped - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)


@dataclass(frozen=True)
class _PodImages:
    """Per pod: for each init and regular container whose image some node has, its scaled
    score and the nodes having it; and how many containers the pod has."""

    uid: str
    scored: tuple[tuple[int, frozenset[str]], ...]
    num_containers: int


class ImageLocality(ScorePlugin, Explainer, SignPlugin):
    name = NAME
    node_local = True      # reads only the pod and the node's NodeInfo (kexplain.framework.node_memo)
    pod_fields = ("initContainers", "containers")

    def sign_pod(self, pod) -> signers.Fragments | None:
        """The pod's images, normalised as ImageLocality looks them up."""
        return [(signers.IMAGE_NAMES, signers.image_names(pod))]

    def _pod_images(self, state, pod) -> _PodImages:
        cached = state.get(STATE_KEY)
        if cached is not None and cached.uid == pod.uid:
            return cached
        snapshot = self.handle.snapshot
        images = snapshot.cached(CACHE_KEY, lambda: build_image_states(snapshot),
                                 unchanged_by_bind)
        total = len(snapshot.node_infos)
        containers = [*(pod.spec.get("initContainers") or ()), *(pod.spec.get("containers") or ())]
        scored = []
        for c in containers:
            image_state = images.get(normalized_image_name(c.get("image") or ""))
            if image_state is not None:
                scored.append((scaled_image_score(image_state, total), image_state.nodes))
        out = _PodImages(pod.uid, tuple(scored), len(containers))
        state.write(STATE_KEY, out)
        return out

    def score(self, state, pod, node_info) -> int:
        return self.score_nodes(state, pod, (node_info,))[0]

    def score_nodes(self, state, pod, nodes) -> list[int]:
        """Per node, the scaled scores of the pod's images it has, summed image by image over
        the nodes having each (one pass per image, not per node and image)."""
        images = self._pod_images(state, pod)
        totals: dict[str, int] = {}
        for score, having in images.scored:
            for name in having:
                totals[name] = totals.get(name, 0) + score
        n = images.num_containers
        nothing = calculate_priority(0, n)
        return [calculate_priority(totals[ni.name], n) if ni.name in totals else nothing for ni in nodes]

    def explain(self, state, pod, node_info) -> dict | None:
        """Each container image of the pod: on the node or not, its size and how many nodes
        have it (the score counts size times that share)."""
        snapshot = self.handle.snapshot
        images = snapshot.cached(CACHE_KEY, lambda: build_image_states(snapshot),
                                 unchanged_by_bind)
        out = []
        for c in [*(pod.spec.get("initContainers") or ()), *(pod.spec.get("containers") or ())]:
            name = normalized_image_name(c.get("image") or "")
            known = images.get(name)
            out.append({"image": name, "onNode": known is not None and node_info.name in known.nodes,
                        "size": format_quantity("memory", known.size) if known is not None else None,
                        "nodesWithImage": len(known.nodes) if known is not None else 0})
        return {"images": out} if out else None
