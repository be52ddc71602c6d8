"""node-groups: when the Cluster Autoscaler's node groups are known, what would make CA add a
node for the pod, in place of "add a node like X" (add_node.py).

From the loop's document (`kexplain.autoscaler.pending`: CA's verdict per group, every plugin
on each group's template) three kinds of change are proposed, one per group where it is the only
thing in the way: raise the max size of a group CA skipped at its max size whose template takes
the pod; tolerate the taints of a group whose template rejects the pod only by TaintToleration;
change the pod's nodeSelector to a group's template labels when only NodeAffinity rejects it
there (a pod without required node affinity). Each is verified by running CA's loop again with
the change: kept only when the pod then triggers a scale-up (`verified.scaleUps`: CA's plan).
Nothing is proposed for a pod that already triggers one, or that CA finds room for.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Mapping, Sequence

from kexplain.autoscaler.inputs import LoopInputs
from kexplain.autoscaler.nodegroups import NodeGroup
from kexplain.autoscaler.status import MAX_LIMIT_REACHED, TRIGGERED
from kexplain.model.pod import PodInfo
from kexplain.model.taints import taint_to_string
from kexplain.plugins.names import NODE_AFFINITY, TAINT_TOLERATION
from kexplain.suggest.add_node import ADD_NODE
from kexplain.suggest.change import apply_ops, pod_op, pointer
from kexplain.suggest.tolerations import untolerated

ID = "node-groups"
RAISE_MAX_SIZE = "raise-max-size"
GROUP_TOLERATION = "group-toleration"
GROUP_NODE_SELECTOR = "group-node-selector"
KINDS = (RAISE_MAX_SIZE, GROUP_TOLERATION, GROUP_NODE_SELECTOR)
FAILED = ("Unschedulable", "UnschedulableAndUnresolvable", "Error")

Document = Callable[[LoopInputs], Mapping[str, Any]]


def with_group_suggestions(found: Sequence[Mapping[str, Any]], loop: LoopInputs, pod: PodInfo,
                           doc: Mapping[str, Any], document: Document) -> list[Mapping[str, Any]]:
    """The scheduler's verified suggestions without add-node, then the verified node-group ones."""
    return [s for s in found if s.get("kind") != ADD_NODE] + group_suggestions(loop, pod, doc, document)


def _record(doc: Mapping[str, Any], pod: PodInfo) -> Mapping[str, Any]:
    return next((p for p in doc.get("pods") or () if (p.get("namespace"), p.get("name")) == (pod.namespace, pod.name)),
                {})


def _failing(entry: Mapping[str, Any] | None) -> list[str] | None:
    """The plugins that fail on a template (None: a PreFilter rejection or narrowing, not a
    per-template verdict a change to one group can answer)."""
    if entry is None or entry.get("preFilter") is not None or entry.get("notAmong"):
        return None
    return [p for p, st in (entry.get("filterAll") or {}).items() if st.get("code") in FAILED]


def group_suggestions(loop: LoopInputs, pod: PodInfo, doc: Mapping[str, Any], document: Document) -> list[dict]:
    """Verified changes after which CA scales a group up for `pod` (`document(loop)`: the
    loop's document, run again for each change)."""
    record = _record(doc, pod)
    if not record or record.get("outcome") in (TRIGGERED, "FilteredOut", "NotListedAsUnschedulable"):
        return []
    verdicts: Mapping[str, Any] = record.get("nodeGroups") or {}
    explained: Mapping[str, Any] = (doc.get("explained") or {}).get("nodeGroups") or {}
    sizes = {g["name"]: g for g in doc.get("nodeGroups") or ()}
    out: list[dict] = []
    for group in loop.groups:
        verdict = verdicts.get(group.name) or {}
        failing = _failing(explained.get(group.name))
        if failing is None:
            continue
        if verdict.get("verdict") == "skipped" and MAX_LIMIT_REACHED in (verdict.get("reasons") or ()) and not failing:
            found = _raise_max(loop, pod, group, sizes[group.name]["targetSize"], document)
        elif verdict.get("verdict") == "rejected" and failing == [TAINT_TOLERATION]:
            found = _tolerate(loop, pod, group, document)
        elif verdict.get("verdict") == "rejected" and failing == [NODE_AFFINITY]:
            found = _select(loop, pod, group, document)
        else:
            found = None
        if found is not None:
            out.append(found)
    return out


def _scale_ups(doc: Mapping[str, Any], pod: PodInfo) -> list[dict[str, Any]] | None:
    """CA's plan when `pod` triggers a scale-up in `doc`, else None."""
    if _record(doc, pod).get("outcome") != TRIGGERED:
        return None
    return list((doc.get("expansion") or {}).get("scaleUps") or ())


def _suggestion(kind: str, target: str, description: str, change: list[dict], scale_ups: list[dict]) -> dict:
    return {"kind": kind, "target": target, "description": description, "change": change,
            "verified": {"by": "autoscaler", "outcome": TRIGGERED, "scaleUps": scale_ups}}


def _raise_max(loop: LoopInputs, pod: PodInfo, group: NodeGroup, target: int, document: Document) -> dict | None:
    """The smallest max size above the target size (up to one more node per pending pod) with
    which CA scales the group up for the pod: none when the largest does not; else found by
    halving the range (a larger max size lets the estimator place a superset of the pods), so
    that a loop of hundreds of pending pods runs again a few times, not once per pod."""
    def ups_with(size: int) -> list[dict] | None:
        groups = [replace(g, max_size=size) if g is group else g for g in loop.groups]
        return _scale_ups(document(replace(loop, groups=groups)), pod)

    high = target + max(1, len(loop.pending))
    found = ups_with(high)
    if found is None:
        return None
    # the plan's new size for the group is a max size that gives the same plan
    high = min([high, *(u["newSize"] for u in found if u.get("nodeGroup") == group.name and u["newSize"] > target)])
    low = target + 1            # the smallest size not yet known to fail
    while low < high:
        middle = (low + high) // 2
        ups = ups_with(middle)
        if ups is None:
            low = middle + 1
        else:
            high, found = middle, ups
    change = [{"op": "replace", "object": {"kind": "NodeGroup", "name": group.name}, "path": "/maxSize", "value": high}]
    return _suggestion(RAISE_MAX_SIZE, f"node group {group.name}",
                       f"raise node group {group.name}'s max size from {group.max_size} to {high}", change, found)


def _with_pod(loop: LoopInputs, pod: PodInfo, ops: list[dict]) -> tuple[LoopInputs, PodInfo]:
    changed = PodInfo(apply_ops(pod.obj, ops))
    return replace(loop, pending=[changed if p is pod else p for p in loop.pending]), changed


def _template_node(loop: LoopInputs, group: NodeGroup):
    from kexplain.autoscaler.templates import template_node_infos
    template = template_node_infos(loop).get(group.name)
    return template.node_info.node if template is not None else None


def _tolerate(loop: LoopInputs, pod: PodInfo, group: NodeGroup, document: Document) -> dict | None:
    from kexplain.suggest.tolerations import _toleration
    node = _template_node(loop, group)
    taints = untolerated(pod, node) if node is not None else []
    if not taints:
        return None
    ops = [pod_op(pod, "add", "/spec/tolerations/-", _toleration(t)) for t in taints]
    changed_loop, changed = _with_pod(loop, pod, ops)
    ups = _scale_ups(document(changed_loop), changed)
    if ups is None:
        return None
    plural = "s" if len(taints) > 1 else ""
    names = ", ".join(taint_to_string(t) for t in taints)
    return _suggestion(GROUP_TOLERATION, f"pod {pod.key}",
                       f"add a toleration{plural} for node group {group.name}'s taint{plural} {names}", ops, ups)


def _select(loop: LoopInputs, pod: PodInfo, group: NodeGroup, document: Document) -> dict | None:
    """The pod's nodeSelector set to the template's labels where they differ (a key the
    template lacks removed); not for a pod with required node affinity."""
    required = ((pod.spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution")
    node = _template_node(loop, group)
    if required or node is None:
        return None
    ops, words = [], []
    for key, want in (pod.spec.get("nodeSelector") or {}).items():
        have = node.labels.get(key)
        if have == str(want):
            continue
        path = pointer("spec", "nodeSelector", key)
        if have is None:
            ops.append(pod_op(pod, "remove", path))
            words.append(f"drop {key}={want}")
        else:
            ops.append(pod_op(pod, "replace", path, have))
            words.append(f"{key}={have} instead of {want}")
    if not ops:
        return None
    changed_loop, changed = _with_pod(loop, pod, ops)
    ups = _scale_ups(document(changed_loop), changed)
    if ups is None:
        return None
    return _suggestion(GROUP_NODE_SELECTOR, f"pod {pod.key}",
                       f"select node group {group.name}'s nodes: nodeSelector {', '.join(words)}", ops, ups)
