"""The change model: a candidate change as JSON-patch-like operations, and the inputs with it applied.

Paths are JSON pointers into the object as kexplain saw it (a workload's pod: its template); `apply_ops`
changes one object, `changed_inputs` the scheduling inputs; a changed ResourceClaimTemplate changes the pod's
unallocated claims made from it, as the resourceclaim controller would make them again."""
from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping, Sequence

from kexplain.explain.pod_inputs import Inputs
from kexplain.framework.node_memo import share_node_memo
from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot, node_tree_order

DRA_KINDS = frozenset({"ResourceClaim", "ResourceClaimTemplate", "ResourceSlice", "DeviceClass"})
STORAGE_KINDS = frozenset({"StorageClass", "PersistentVolumeClaim"})
OBJECT_KINDS = DRA_KINDS | STORAGE_KINDS        # changed as objects of the snapshot (`_changed_objects`)
CLUSTER_SCOPED = frozenset({"ResourceSlice", "DeviceClass", "StorageClass"})
POD_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/pod-claim-name"

Op = dict[str, Any]
# A pod family's fix for one node: the operations and, for each, what it does in plain words.
Fix = tuple[list[Op], list[str]]


@dataclass(frozen=True)
class Candidate:
    """A change a fix family proposes: only an idea until a re-run of the cycle verifies it."""

    kind: str                       # the suggestion kind ("lower-request", ...), the JSON `kind`
    target: str                     # "pod default/web", "node n3" or "cluster"
    description: str
    change: tuple[Op, ...]


# --- JSON-pointer operations --------------------------------------------------------------------

def pointer(*tokens: Any) -> str:
    """A JSON pointer from path tokens (`~` and `/` escaped)."""
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in tokens)


def _tokens(path: str) -> list[str]:
    if not path.startswith("/"):
        raise ValueError(f"not a JSON pointer: {path!r}")
    return [t.replace("~1", "/").replace("~0", "~") for t in path[1:].split("/")]


def apply_ops(obj: dict[str, Any], ops: Iterable[Op]) -> dict[str, Any]:
    """A copy of `obj` with the path operations (`add`, `replace`, `remove`) applied in order."""
    out = copy.deepcopy(obj)
    for op in ops:
        kind = op["op"]
        *parents, last = _tokens(op["path"])
        node: Any = out
        for i, tok in enumerate(parents):
            if isinstance(node, list):
                node = node[int(tok)]
                continue
            if tok not in node or node[tok] is None:
                if kind != "add":
                    raise KeyError(op["path"])
                following = parents[i + 1] if i + 1 < len(parents) else last
                node[tok] = [] if following == "-" or following.isdigit() else {}
            node = node[tok]
        if isinstance(node, list):
            if kind == "remove":
                del node[int(last)]
            elif last == "-":
                node.append(copy.deepcopy(op["value"]))
            elif kind == "add":
                node.insert(int(last), copy.deepcopy(op["value"]))
            else:
                node[int(last)] = copy.deepcopy(op["value"])
        elif kind == "remove":
            del node[last]
        else:
            node[last] = copy.deepcopy(op["value"])
    return out


def pod_ref(pod: PodInfo) -> dict[str, str]:
    return {"kind": "Pod", "namespace": pod.namespace, "name": pod.name}


def node_ref(name: str) -> dict[str, str]:
    return {"kind": "Node", "name": name}


def pod_op(pod: PodInfo, op: str, path: str, val: Any = None) -> Op:
    """A path operation on the pending pod (`remove` carries no value)."""
    out: Op = {"op": op, "object": pod_ref(pod), "path": path}
    if op != "remove":
        out["value"] = val
    return out


# --- applying a change to the inputs -------------------------------------------------------------

def changed_inputs(inputs: Inputs, change: Sequence[Op]) -> Inputs:
    """The inputs with a change applied: the pending pod patched, nodes patched or created,
    bound pods deleted. A change to the pod alone keeps the snapshot (and its cached indexes)."""
    pod_key = (inputs.pod.namespace, inputs.pod.name)
    pod_ops: list[Op] = []
    node_ops: dict[str, list[Op]] = {}
    created: list[dict[str, Any]] = []
    deleted: set[str] = set()
    dra_ops: list[Op] = []
    for op in change:
        ref = op["object"]
        if ref["kind"] in OBJECT_KINDS:
            dra_ops.append(op)
        elif ref["kind"] == "Pod" and op["op"] == "delete":
            deleted.add(f"{ref.get('namespace') or 'default'}/{ref['name']}")
        elif ref["kind"] == "Pod" and (ref.get("namespace") or "default", ref["name"]) == pod_key:
            pod_ops.append(op)
        elif ref["kind"] == "Node" and op["op"] == "create":
            created.append(op["value"])
        elif ref["kind"] == "Node":
            node_ops.setdefault(ref["name"], []).append(op)
        else:
            raise ValueError(f"cannot apply {op['op']} to {ref}")
    out = inputs
    if pod_ops:
        out = replace(out, pod=PodInfo(apply_ops(inputs.pod.obj, pod_ops)))
    if node_ops or created or deleted:
        out = replace(out, snapshot=_changed_snapshot(inputs.snapshot, node_ops, created, deleted))
    if dra_ops:
        out = replace(out, snapshot=_changed_objects(out.snapshot, out.pod, dra_ops))
    return out


def _ref_key(kind: str, obj_or_ref: Mapping[str, Any]) -> tuple[str, str, str]:
    meta = obj_or_ref.get("metadata") if "metadata" in obj_or_ref else obj_or_ref
    meta = meta if isinstance(meta, Mapping) else {}
    namespace = "" if kind in CLUSTER_SCOPED else str(meta.get("namespace") or "default")
    return kind, namespace, str(meta.get("name") or "")


def _changed_objects(snapshot: Snapshot, pod: PodInfo, ops: Sequence[Op]) -> Snapshot:
    """The snapshot with DRA or storage objects created, deleted or patched (a new snapshot: the
    plugins' cached indexes are built again)."""
    objects = {k: list(v) for k, v in snapshot.objects.items()}
    templates: set[tuple[str, str, str]] = set()
    for op in ops:
        kind = op["object"]["kind"]
        key = _ref_key(kind, op["object"])
        items = objects.setdefault(kind, [])
        at = next((i for i, o in enumerate(items) if _ref_key(kind, o) == key), None)
        if op["op"] == "create":
            if at is not None:
                raise ValueError(f"{kind} {key[2]} exists already")
            items.append(copy.deepcopy(op["value"]))
        elif at is None:
            raise ValueError(f"no {kind} {'/'.join(k for k in key[1:] if k)}")
        elif op["op"] == "delete":
            del items[at]
        else:
            items[at] = apply_ops(items[at], [op])
            if kind == "ResourceClaimTemplate":
                templates.add(key)
    for key in templates:
        _remake_claims(objects, pod, key)
    return snapshot.with_objects(snapshot.namespaces, objects)


def _remake_claims(objects: dict[str, list[dict[str, Any]]], pod: PodInfo, template: tuple[str, str, str]) -> None:
    """The pod's unallocated claims made from `template` get its (changed) spec, as the
    resourceclaim controller would make them again."""
    tmpl = next(o for o in objects["ResourceClaimTemplate"] if _ref_key("ResourceClaimTemplate", o) == template)
    entries = {e.get("name") for e in pod.spec.get("resourceClaims") or ()
               if e.get("resourceClaimTemplateName") == template[2] and pod.namespace == template[1]}
    names = {st.get("resourceClaimName") for st in pod.status.get("resourceClaimStatuses") or ()
             if st.get("name") in entries}
    claims = objects.get("ResourceClaim", [])
    for i, claim in enumerate(claims):
        meta = claim.get("metadata") or {}
        if (meta.get("namespace") or "default") != pod.namespace or meta.get("name") not in names:
            continue
        if (claim.get("status") or {}).get("allocation"):
            continue
        claims[i] = {**claim, "spec": copy.deepcopy((tmpl.get("spec") or {}).get("spec") or {})}


def _nodes_of(snapshot: Snapshot, keys: set[str]) -> set[str]:
    """The nodes the bound pods `keys` (namespace/name) are on, found through the namespaces'
    index rather than by asking every pod of every node."""
    names: dict[str, set[str]] = {}
    for key in keys:
        namespace, _, name = key.partition("/")
        names.setdefault(namespace, set()).add(name)
    return {node.name for namespace, wanted in names.items()
            for pod, node in snapshot.pods_by_namespace.get(namespace, ()) if pod.name in wanted}


def _changed_snapshot(snapshot: Snapshot, node_ops: Mapping[str, list[Op]], created: list[dict[str, Any]],
                      deleted: set[str]) -> Snapshot:
    infos: list[NodeInfo] = []
    doomed_on = _nodes_of(snapshot, deleted)
    for ni in snapshot.node_infos:
        doomed = [p for p in ni.pods if p.key in deleted] if ni.name in doomed_on else []
        if ni.name in node_ops or doomed:
            ni = ni.clone()
            if ni.name in node_ops:
                ni = replace(ni, node=Node.from_obj(apply_ops(ni.node.obj, node_ops[ni.name])))
            for p in doomed:
                ni.remove_pod(p)
        infos.append(ni)
    if created:
        by_name = {ni.name: ni for ni in infos}
        for obj in created:
            info = NodeInfo(Node.from_obj(obj))
            by_name[info.name] = info
        infos = [by_name[n.name] for n in node_tree_order([*(ni.node for ni in infos),
                                                             *(by_name[o["metadata"]["name"]].node for o in created)])]
    return share_node_memo(snapshot, snapshot.with_node_infos(infos))
