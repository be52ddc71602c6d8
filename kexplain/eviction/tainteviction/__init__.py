"""The taint eviction controller (`pkg/controller/tainteviction`) over one node, one pass.

`evaluate` runs what happened to each pod before it: DefaultTolerationSeconds on its create
(`kexplain.admission.defaulttolerationseconds`: the 300 s not-ready / unreachable tolerations),
then the controller's handleNodeUpdate on the node's NoExecute taints (`taint_eviction`), its
timed workers run to their end (`timed_workers`), each deletion's condition and event. The
toleration matching is `helper`'s; `taint_spec` reads `--taint` as kubectl taint does.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Mapping, Sequence

from kexplain.admission.defaulttolerationseconds import missing
from kexplain.eviction.tainteviction.helper import COMPARISON_OPERATORS_GATE
from kexplain.eviction.tainteviction.taint_eviction import (OBSERVED_GENERATION_GATE, Controller, Deletion,
                                                            PodDecision, no_execute_taints)
from kexplain.features import KubeVersion


@dataclass(frozen=True)
class PodAnswer:
    """One pod: its key (namespace/name), the tolerations DefaultTolerationSeconds added, the
    controller's decision and, when it deletes the pod, the deletion."""

    key: str
    namespace: str
    name: str
    added: tuple[dict, ...]
    decision: PodDecision
    deletion: Deletion | None


@dataclass(frozen=True)
class TaintPass:
    """The pass: the node's NoExecute taints, every pod sorted by namespace then name, and the
    deletions in the order the workers fire."""

    taints: tuple[dict, ...]
    pods: tuple[PodAnswer, ...]
    deletions: tuple[Deletion, ...]


def _meta(pod: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = pod.get("metadata")
    return meta if isinstance(meta, dict) else {}


def pod_key(pod: Mapping[str, Any]) -> tuple[str, str]:
    meta = _meta(pod)
    return meta.get("namespace") or "default", meta.get("name") or ""


def evaluate(node: Mapping[str, Any], pods: Sequence[Mapping[str, Any]], kube: KubeVersion,
             now: datetime) -> TaintPass:
    """The controller's pass over `node` and the pods bound to it (in the order the lister gives)."""
    controller = Controller(kube.enabled(COMPARISON_OPERATORS_GATE), kube.enabled(OBSERVED_GENERATION_GATE))
    added: dict[str, tuple[dict, ...]] = {}
    inputs: list[tuple[str, list]] = []
    generations: dict[str, int] = {}
    for pod in pods:
        key = "/".join(pod_key(pod))
        tolerations = (pod.get("spec") or {}).get("tolerations")
        own = list(tolerations) if isinstance(tolerations, list) else []
        added[key] = tuple(missing(own))
        inputs.append((key, own + list(added[key])))
        generation = _meta(pod).get("generation")
        generations[key] = generation if isinstance(generation, int) else 0
    decisions = {d.key: d for d in controller.handle_node_update(node, inputs, now)}
    deletions = tuple(controller.delete_pods(generations))
    deleted = {d.key: d for d in deletions}
    answers = [PodAnswer(key, *key.split("/", 1), added[key], decisions[key], deleted.get(key))
               for key in dict.fromkeys(k for k, _ in inputs)]
    answers.sort(key=lambda a: (a.namespace, a.name))
    return TaintPass(tuple(no_execute_taints((node.get("spec") or {}).get("taints"))), tuple(answers), deletions)
