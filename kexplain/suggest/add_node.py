"""add-node: add a node like an existing one, without the taints or with the labels the pod needs.

Offered for a node whose every rejection an empty, uncordoned copy would not have (room, ports,
pod affinity, spread, volume limits), taints or node selection; the copy `new-node-like-<node>`
brings copies of its ResourceSlices, all devices free (docs/internals/suggest.md)."""
from __future__ import annotations

import copy
from typing import Any, Mapping

from kexplain.apimachinery.labels import LABEL_HOSTNAME
from kexplain.apimachinery.quantity import format_bytes, format_milli
from kexplain.framework.status import Code
from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.nodeselector import DOES_NOT_EXIST, EXISTS, GT, IN, LT, NOT_IN, is_empty_term, parse_int64
from kexplain.model.taints import taint_to_string
from kexplain.plugins.names import DYNAMIC_RESOURCES, INTER_POD_AFFINITY, NODE_AFFINITY, NODE_PORTS, NODE_RESOURCES_FIT, \
    NODE_UNSCHEDULABLE, NODE_VOLUME_LIMITS, POD_TOPOLOGY_SPREAD, TAINT_TOLERATION
from kexplain.suggest.change import Candidate, node_ref
from kexplain.suggest.context import Context
from kexplain.suggest.dra import node_facts, pending_requests
from kexplain.suggest.node_selection import REQUIRED_PATH, selection_only
from kexplain.suggest.parsed_terms import by_labels, compiled_expression, compiled_term, selection_label_keys
from kexplain.suggest.tolerations import taint_key, untolerated
from kexplain.suggest.uncordon import CORDON_TAINT_KEY

ID = "add-node"
ADD_NODE = "add-node"
KINDS = (ADD_NODE,)

# Reasons an empty copy of a node does not have: room, ports, pods of its own.
FRESH_NODE_FIXES = frozenset({NODE_RESOURCES_FIT, NODE_PORTS, INTER_POD_AFFINITY, POD_TOPOLOGY_SPREAD,
                              NODE_VOLUME_LIMITS, DYNAMIC_RESOURCES})
# Of those, the ones a copy may still meet (other pods' anti-affinity, the spread, the volumes,
# devices that do not match the pod's claims).
UNCERTAIN = frozenset({INTER_POD_AFFINITY, POD_TOPOLOGY_SPREAD, NODE_VOLUME_LIMITS, DYNAMIC_RESOURCES})
NEW_NODE_PREFIX = "new-node-like-"
MAX_NODE_NAME = 253     # a Node's name is a DNS subdomain


def new_node_name(like: str, taken: set[str] | frozenset[str] = frozenset()) -> str:
    """`new-node-like-<like>` (then `-2`, `-3`, ... when taken), a valid DNS subdomain of at most 253
    characters (a long name's end cut, without a trailing `-` or `.`)."""
    for i in range(1, 1000):
        suffix = "" if i == 1 else f"-{i}"
        base = (NEW_NODE_PREFIX + like)[:MAX_NODE_NAME - len(suffix)].rstrip("-.")
        name = base + suffix
        if name not in taken:
            return name
    return name  # pragma: no cover - a thousand suggested nodes like one


def _labels_for(ctx: Context, node: Node) -> dict[str, str | None] | None:
    """Label changes (None: remove) after which the pod's node selector and required node
    affinity select the node; None when labels cannot do it."""
    changes: dict[str, str | None] = {}
    for k, v in (ctx.pod.spec.get("nodeSelector") or {}).items():
        if node.labels.get(k) != str(v):
            changes[k] = str(v)
    required = ((ctx.pod.spec.get("affinity") or {}).get("nodeAffinity") or {}).get(REQUIRED_PATH[-1])
    if required is not None:
        best: dict[str, str | None] | None = None
        for term in required.get("nodeSelectorTerms") or []:
            if is_empty_term(term) or compiled_term(term).errors or term.get("matchFields"):
                continue
            edits = _term_labels(term, node)
            if edits is not None and (best is None or len(edits) < len(best)):
                best = edits
        if best is None:
            return None
        for k, v in best.items():
            if k in changes and changes[k] != v:
                return None
            changes[k] = v
    if LABEL_HOSTNAME in changes:
        return None
    return changes


def _term_labels(term: Mapping[str, Any], node: Node) -> dict[str, str | None] | None:
    edits: dict[str, str | None] = {}
    for expr in term.get("matchExpressions") or []:
        if compiled_expression(expr).matches(node):
            continue
        op, key, values = expr.get("operator"), expr.get("key", ""), [str(v) for v in expr.get("values") or []]
        if op == IN:
            edits[key] = values[0]
        elif op == EXISTS:
            edits[key] = "true"
        elif op in (NOT_IN, DOES_NOT_EXIST):
            edits[key] = None
        elif op in (GT, LT):
            bound = parse_int64(values[0]) if values else None
            if bound is None:
                return None
            edits[key] = str(bound + 1 if op == GT else bound - 1)
        else:
            return None
    return edits


def _new_node(info: NodeInfo, name: str, drop_taints: list[dict[str, Any]],
              labels: dict[str, str | None]) -> dict[str, Any]:
    """An empty node of the same shape: its labels (changed as asked), capacity and allocatable,
    the taints that were not dropped; not cordoned."""
    src = info.node.obj
    new_labels = dict(info.node.labels)
    for k, v in labels.items():
        if v is None:
            new_labels.pop(k, None)
        else:
            new_labels[k] = v
    if LABEL_HOSTNAME in new_labels:
        new_labels[LABEL_HOSTNAME] = name
    dropped = {taint_key(t) for t in drop_taints}
    taints = [copy.deepcopy(t) for t in info.node.taints
              if taint_key(t) not in dropped and t.get("key") != CORDON_TAINT_KEY]
    status = src.get("status") or {}
    obj: dict[str, Any] = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": new_labels},
                           "spec": {}, "status": {k: copy.deepcopy(status[k]) for k in ("capacity", "allocatable")
                                                  if k in status}}
    if taints:
        obj["spec"]["taints"] = taints
    return obj


def _renamed(text: str, old: str, new: str) -> str:
    """`text` with the node's name replaced by the copy's, or the copy's name appended."""
    return text.replace(old, new) if old and old in text else f"{text}-{new}"


def slice_copies(ctx: Context, node: str, name: str) -> list[dict[str, Any]]:
    """Copies of `node`'s ResourceSlices for the new node `name`, renamed and in a pool of their own
    (two nodes sharing a driver's pool name would make one pool of both)."""
    out = []
    for s in ctx.snapshot.of_kind("ResourceSlice"):
        spec = s.get("spec") or {}
        if spec.get("nodeName") != node:
            continue
        meta = s.get("metadata") or {}
        pool = dict(spec.get("pool") or {})
        pool["name"] = _renamed(str(pool.get("name") or ""), node, name)
        new_spec = {**copy.deepcopy(spec), "nodeName": name, "pool": pool}
        out.append({"apiVersion": s.get("apiVersion", "resource.k8s.io/v1"), "kind": "ResourceSlice",
                    "metadata": {"name": _renamed(str(meta.get("name") or ""), node, name)}, "spec": new_spec})
    return out


def _shape(info: NodeInfo) -> str:
    alloc = info.allocatable
    return f"cpu {format_milli(alloc.milli_cpu)}, memory {format_bytes(alloc.memory)}"


def _fresh_fixable(ctx: Context, node: str) -> bool:
    nrf = ctx.blocked[node].get(NODE_RESOURCES_FIT)
    return nrf is None or nrf.get("code") != Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def _devices_free_on_copy(facts: Mapping[str, Any] | None) -> bool:
    """Would the node's devices serve every request of the pod's claims once all are free
    (a copy's devices are)? Only use by other claims may keep them."""
    if facts is None:
        return False
    for _, req in pending_requests(facts):
        reasons = req.get("reasons") or {}
        usable = reasons.get("free", 0) + reasons.get("inUse", 0)
        if usable == 0 or (req.get("allocationMode") != "All" and usable < int(req.get("count") or 1)):
            return False
        if req.get("allocationMode") == "All" and usable < sum(reasons.values()):
            return False
    return True


def candidates(ctx: Context) -> list[Candidate]:
    """A new node like an existing one, without the taints or with the labels the pod needs."""
    allowed = FRESH_NODE_FIXES | {TAINT_TOLERATION, NODE_AFFINITY, NODE_UNSCHEDULABLE}
    shapes: dict[str, tuple[tuple[int, int], str, list[dict[str, Any]], dict[str, str | None]]] = {}
    nodes = ctx.within(allowed)
    devices = node_facts(ctx, [n for n in nodes if DYNAMIC_RESOURCES in ctx.blocked[n]])
    labels_for = by_labels(selection_label_keys(ctx.pod.spec), lambda n: _labels_for(ctx, n))
    # what a node's rejection allows, read once per rejection nodes share (`blocked_nodes`)
    read: dict[int, tuple[frozenset[str], bool]] = {}
    for position, node in enumerate(nodes):
        rejection = ctx.blocked[node]
        found = read.get(id(rejection))
        if found is None:
            plugins = frozenset(rejection)
            found = read[id(rejection)] = (plugins, _fresh_fixable(ctx, node) and not plugins <= {NODE_UNSCHEDULABLE}
                                           and (NODE_AFFINITY not in plugins or selection_only(ctx, node)))
        plugins, fixable = found
        info = ctx.info(node)
        if info is None or not fixable:
            continue
        if DYNAMIC_RESOURCES in plugins and not _devices_free_on_copy(devices.get(node)):
            continue
        drop = untolerated(ctx.pod, info.node) if TAINT_TOLERATION in plugins else []
        labels: dict[str, str | None] = {}
        if NODE_AFFINITY in plugins:
            labels = labels_for(info.node)
            if not labels:
                continue
        group = "label" if labels else "taint" if drop else "capacity"
        rank = (len(plugins & UNCERTAIN), position)
        if group not in shapes or rank < shapes[group][0]:
            shapes[group] = (rank, node, drop, labels)
    out = []
    taken = {ni.name for ni in ctx.snapshot.node_infos}
    for group in ("taint", "label", "capacity"):
        if group not in shapes or (group == "capacity" and len(shapes) > 1):
            continue
        _, node, drop, labels = shapes[group]
        info = ctx.info(node)
        name = new_node_name(node, taken)
        obj = _new_node(info, name, drop, labels)
        words = [f"add a node like {node} ({_shape(info)})"]
        if drop:
            words.append(f"without the taint{'s' if len(drop) > 1 else ''} "
                         f"{', '.join(taint_to_string(t) for t in drop)}")
        if labels:
            words.append("labelled " + ", ".join(f"{k}={v}" if v is not None else f"without {k}"
                                                 for k, v in labels.items()))
        slices = slice_copies(ctx, node, name)
        if slices:
            words.append(f"with copies of its {len(slices)} ResourceSlice{'s' if len(slices) > 1 else ''} "
                         f"({', '.join(s['metadata']['name'] for s in slices)}): its devices, all free")
        ops = [{"op": "create", "object": node_ref(name), "value": obj}]
        ops += [{"op": "create", "object": {"kind": "ResourceSlice", "name": s["metadata"]["name"]}, "value": s}
                for s in slices]
        out.append(Candidate(ADD_NODE, "cluster", " ".join(words), tuple(ops)))
    return out
