"""node-groups: with the Cluster Autoscaler's node groups known, what would make CA add a node for the pod, in
place of add-node: raise a group's max size, or change the pod (tolerations, requests, node selection) where a
group's template rejects it only for that; each kept only when CA's loop run again with it scales up
(`verified.scaleUps`). Costs and cases: docs/internals/suggest.md."""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence

from kexplain.autoscaler.document import triggered
from kexplain.autoscaler.plan import scale_up_plan
from kexplain.autoscaler.inputs import LoopInputs
from kexplain.autoscaler.nodegroups import NodeGroup
from kexplain.autoscaler.status import MAX_LIMIT_REACHED, TRIGGERED
from kexplain.model.nodeinfo import NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.model.taints import taint_to_string
from kexplain.plugins.names import NODE_AFFINITY, NODE_RESOURCES_FIT, TAINT_TOLERATION
from kexplain.plugins.node_affinity import ERR_REASON_POD
from kexplain.suggest.add_node import ADD_NODE
from kexplain.suggest.change import Op, apply_ops, pod_op, pointer
from kexplain.suggest.node_selection import required_edits
from kexplain.suggest.resources import INSUFFICIENT, _lowered, fit_request, free, lower_ops, round_down
from kexplain.suggest.tolerations import _toleration, untolerated
from kexplain.autoscaler.templates import template_node_infos

ID = "node-groups"
RAISE_MAX_SIZE = "raise-max-size"
GROUP_TOLERATION = "group-toleration"
GROUP_NODE_SELECTOR = "group-node-selector"
GROUP_NODE_AFFINITY = "group-node-affinity"       # a value of the template (its zone) allowed
GROUP_LOWER_REQUEST = "group-lower-request"
GROUP_CHANGES = "group-changes"                   # several of the pod's changes above, for one group
KINDS = (RAISE_MAX_SIZE, GROUP_TOLERATION, GROUP_NODE_SELECTOR, GROUP_NODE_AFFINITY, GROUP_LOWER_REQUEST,
         GROUP_CHANGES)
FAILED = ("Unschedulable", "UnschedulableAndUnresolvable", "Error")
# The plugins whose rejection of a template a change of the pod answers, in the order they are worded.
ANSWERED = (TAINT_TOLERATION, NODE_AFFINITY, NODE_RESOURCES_FIT)

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


@dataclass
class PodChange:
    """One change of the pod, answering one or more groups' templates (the same operations)."""

    parts: list[tuple[str, str]]          # (kind, words) per plugin answered (a toleration's: the taints)
    ops: list[Op]
    groups: list[str] = field(default_factory=list)

    @property
    def kind(self) -> str:
        kinds = {k for k, _ in self.parts}
        return kinds.pop() if len(kinds) == 1 else GROUP_CHANGES

    def description(self) -> str:
        who = (f"node group {self.groups[0]}" if len(self.groups) == 1
               else "node groups " + ", ".join(self.groups[:-1]) + f" and {self.groups[-1]}")
        if len(self.parts) == 1:
            kind, words = self.parts[0]
            plural = "s" if sum(1 for op in self.ops if op["path"] == "/spec/tolerations/-") > 1 else ""
            return {GROUP_TOLERATION: f"add a toleration{plural} for {who}'s taint{plural} {words}",
                    GROUP_NODE_SELECTOR: f"select {who}'s nodes: nodeSelector {words}",
                    GROUP_NODE_AFFINITY: f"{words}, to take the template of {who}",
                    GROUP_LOWER_REQUEST: f"lower {words} to fit the template of {who}"}[kind]
        return f"for the template of {who}: " + "; ".join(
            ("lower " if kind == GROUP_LOWER_REQUEST else "tolerate " if kind == GROUP_TOLERATION else
             "nodeSelector " if kind == GROUP_NODE_SELECTOR else "") + words for kind, words in self.parts)


def group_suggestions(loop: LoopInputs, pod: PodInfo, doc: Mapping[str, Any], document: Document) -> list[dict]:
    """Verified changes after which CA scales a group up for `pod` (`document(loop)`: the
    loop's document, run again for each distinct change)."""
    record = _record(doc, pod)
    if not record or triggered(record) or record.get("outcome") in ("FilteredOut", "NotListedAsUnschedulable"):
        return []
    verdicts: Mapping[str, Any] = record.get("nodeGroups") or {}
    explained: Mapping[str, Any] = (doc.get("explained") or {}).get("nodeGroups") or {}
    sizes = {g["name"]: g for g in doc.get("nodeGroups") or ()}
    templates = None
    out: list[dict | PodChange] = []
    changes: dict[str, PodChange] = {}
    for group in loop.groups:
        verdict = verdicts.get(group.name) or {}
        entry = explained.get(group.name)
        failing = _failing(entry)
        if failing is None:
            continue
        if verdict.get("verdict") == "skipped" and MAX_LIMIT_REACHED in (verdict.get("reasons") or ()) and not failing:
            found = _raise_max(loop, pod, group, sizes[group.name]["targetSize"], document)
            if found is not None:
                out.append(found)
        elif verdict.get("verdict") == "rejected" and failing and set(failing) <= set(ANSWERED):
            if templates is None:
                templates = template_node_infos(loop)
            template = templates.get(group.name)
            change = _pod_change(pod, failing, entry or {}, template.node_info) if template is not None else None
            if change is None:
                continue
            key = json.dumps(change.ops, sort_keys=True)
            if key not in changes:
                changes[key] = change
                out.append(change)
            changes[key].groups.append(group.name)
    # One run of the loop per distinct change; a change doing several things (a toleration and
    # lower requests...) only when no change doing one thing makes CA scale up for the pod.
    verified: dict[int, dict] = {i: s for i, s in enumerate(out) if isinstance(s, dict)}
    for several in (False, True):
        if several and any(isinstance(out[i], PodChange) for i in verified):
            break
        for i, change in enumerate(out):
            if isinstance(change, PodChange) and (len(change.parts) > 1) == several:
                changed_loop, changed = _with_pod(loop, pod, change.ops)
                plan = _verified(document(changed_loop), changed)
                if plan is not None:
                    verified[i] = _suggestion(change.kind, f"pod {pod.key}", change.description(), change.ops, plan)
    return [verified[i] for i in sorted(verified)]


def _pod_change(pod: PodInfo, failing: list[str], entry: Mapping[str, Any], template: NodeInfo) -> PodChange | None:
    """The pod changed to pass every failing plugin on `template`, or None when one of them
    cannot be answered by a change of the pod."""
    parts: list[tuple[str, str]] = []
    ops: list[Op] = []
    for plugin in ANSWERED:
        if plugin not in failing:
            continue
        reasons = list(((entry.get("filterAll") or {}).get(plugin) or {}).get("reasons") or ())
        fix = (_tolerate(pod, template) if plugin == TAINT_TOLERATION else
               _select(pod, template, reasons) if plugin == NODE_AFFINITY else _lower(pod, template, reasons))
        if fix is None:
            return None
        parts += fix[0]
        ops += fix[1]
    return PodChange(parts, ops) if ops else None


Fix = tuple[list[tuple[str, str]], list[Op]]


def _tolerate(pod: PodInfo, template: NodeInfo) -> Fix | None:
    """A toleration for each of the template's taints the pod does not tolerate."""
    taints = untolerated(pod, template.node)
    if not taints:
        return None
    return ([(GROUP_TOLERATION, ", ".join(taint_to_string(t) for t in taints))],
            [pod_op(pod, "add", "/spec/tolerations/-", _toleration(t)) for t in taints])


def _select(pod: PodInfo, template: NodeInfo, reasons: list[str]) -> Fix | None:
    """The pod's own node selection made to take the template: nodeSelector set to its labels (a key it
    lacks removed), and in the required affinity term needing the fewest edits its value allowed."""
    if reasons != [ERR_REASON_POD]:         # the profile's enforced affinity: not the pod's to change
        return None
    node = template.node
    parts: list[tuple[str, str]] = []
    ops: list[Op] = []
    words = []
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
    if words:
        parts.append((GROUP_NODE_SELECTOR, ", ".join(words)))
    required = required_edits(pod, node)
    if required is None:
        return None
    ops += required[0]
    if required[1]:
        parts.append((GROUP_NODE_AFFINITY, "; ".join(required[1])))
    return (parts, ops) if ops else None


def _lower(pod: PodInfo, template: NodeInfo, reasons: list[str]) -> Fix | None:
    """The requests the template lacks room for lowered to the room it has (its allocatable
    less its DaemonSet pods'), the least, taken from the largest containers first."""
    names = [r[len(INSUFFICIENT):] for r in reasons if r.startswith(INSUFFICIENT)]
    if not names or len(names) != len(reasons):        # "Too many pods" or another reason: not the requests
        return None
    request = fit_request(pod.spec)
    parts: list[tuple[str, str]] = []
    ops: list[Op] = []
    for name in names:
        target = round_down(name, free(template, name))
        if target <= 0 or target >= request.get(name):
            return None
        lowered = lower_ops(pod, name, target)
        if lowered is None:
            return None
        ops += lowered[0]
        parts.append((GROUP_LOWER_REQUEST, _lowered(name, request, target, lowered[1])))
    return parts, ops


def _verified(doc: Mapping[str, Any], pod: PodInfo) -> dict[str, Any] | None:
    """When `pod` triggers a scale-up in `doc`: `verified`, CA's plan (`scaleUps`) and, on an expander
    tie, the groups CA draws from (`randomPickAmong`; the plan is the first's). Else None."""
    if not triggered(_record(doc, pod)):
        return None
    expansion = doc.get("expansion") or {}
    out: dict[str, Any] = {"by": "autoscaler", "outcome": TRIGGERED, "scaleUps": scale_up_plan(doc)}
    if expansion.get("randomPick"):
        out["randomPickAmong"] = list(expansion["randomPick"].get("among") or ())
    return out


def _suggestion(kind: str, target: str, description: str, change: list[dict], verified: dict[str, Any]) -> dict:
    return {"kind": kind, "target": target, "description": description, "change": change, "verified": verified}


def _raise_max(loop: LoopInputs, pod: PodInfo, group: NodeGroup, target: int, document: Document) -> dict | None:
    """The smallest max size above the target size (up to one node per pending pod) with which CA scales
    the group up for the pod, found by halving the range (a larger max places a superset), so a big
    loop runs again a few times; None when the largest does not."""
    def ups_with(size: int) -> dict | None:
        groups = [replace(g, max_size=size) if g is group else g for g in loop.groups]
        return _verified(document(replace(loop, groups=groups)), pod)

    high = target + max(1, len(loop.pending))
    found = ups_with(high)
    if found is None:
        return None
    # the plan's new size for the group is a max size that gives the same plan
    high = min([high, *(u["newSize"] for u in found["scaleUps"]
                        if u.get("nodeGroup") == group.name and u["newSize"] > target)])
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
