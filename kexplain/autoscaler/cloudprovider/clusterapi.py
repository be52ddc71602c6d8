"""Node groups of CA's Cluster API provider: MachineSets and MachineDeployments
(cloudprovider/clusterapi `listScalableResources`, `newNodeGroupFromScalableResource`,
`nodeGroupForNode`), and their scale-from-zero templates (`TemplateNodeInfo` from the capacity
annotations). Which objects qualify and what a template holds: docs/internals/autoscaler.md."""
from __future__ import annotations

import re
from typing import Any, Iterable, Mapping, Sequence

from kexplain.apimachinery.labels import (LABEL_ARCH, LABEL_FAILURE_DOMAIN_BETA_REGION, LABEL_FAILURE_DOMAIN_BETA_ZONE,
                                          LABEL_INSTANCE_TYPE, LABEL_INSTANCE_TYPE_BETA, LABEL_OS,
                                          LABEL_TOPOLOGY_REGION)
from kexplain.autoscaler.nodegroups import NodeGroup, NodeGroupOptions
from kexplain.errors import InputError, Source
from kexplain.config._decode import parse_duration
from kexplain.apimachinery import quantity
from kexplain.apimachinery.names import is_label_key, is_label_value

GROUP = "cluster.x-k8s.io"
GPU_LABEL = "cluster-api/accelerator"      # the provider's GPULabel()
MIN_SIZE = f"{GROUP}/cluster-api-autoscaler-node-group-min-size"
MAX_SIZE = f"{GROUP}/cluster-api-autoscaler-node-group-max-size"
OPTIONS_PREFIX = f"{GROUP}/autoscaling-options-"
PAUSED = f"{GROUP}/paused"
MACHINE_ANNOTATION = f"{GROUP}/machine"
CLUSTER_NAMESPACE_ANNOTATION = f"{GROUP}/cluster-namespace"
CAPACITY = "capacity.cluster-autoscaler.kubernetes.io/"
CPU, MEMORY, DISK = CAPACITY + "cpu", CAPACITY + "memory", CAPACITY + "ephemeral-disk"
GPU_TYPE, GPU_COUNT, MAX_PODS = CAPACITY + "gpu-type", CAPACITY + "gpu-count", CAPACITY + "maxPods"
LABELS, TAINTS = CAPACITY + "labels", CAPACITY + "taints"
UNREAD = (CAPACITY + "dra-driver", CAPACITY + "csi-driver")
DEFAULT_MAX_PODS = 110
MACHINE_SET, MACHINE_DEPLOYMENT, MACHINE = "MachineSet", "MachineDeployment", "Machine"
KINDS = frozenset({MACHINE_SET, MACHINE_DEPLOYMENT, MACHINE})
# Labels of the first instance a template takes (extractNodeLabels).
INSTANCE_LABELS = (LABEL_ARCH, LABEL_OS, LABEL_INSTANCE_TYPE_BETA, LABEL_INSTANCE_TYPE, LABEL_FAILURE_DOMAIN_BETA_REGION,
                   LABEL_TOPOLOGY_REGION, LABEL_FAILURE_DOMAIN_BETA_ZONE)
# autoscaling-options-KEY -> (NodeGroupOptions field, kind); unreadyTime and the provision and
# startup times have no field here.
OPTIONS = {"scaledownutilizationthreshold": ("scale_down_utilization_threshold", "ratio"),
           "scaledowngpuutilizationthreshold": ("scale_down_gpu_utilization_threshold", "ratio"),
           "scaledownunneededtime": ("scale_down_unneeded_time", "duration")}

Obj = dict[str, Any]


def _meta(obj: Obj) -> Obj:
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


def _annotations(obj: Obj) -> dict[str, str]:
    found = _meta(obj).get("annotations")
    return {k: v for k, v in found.items() if isinstance(v, str)} if isinstance(found, dict) else {}


def _labels(obj: Obj) -> dict[str, str]:
    found = _meta(obj).get("labels")
    return {k: v for k, v in found.items() if isinstance(v, str)} if isinstance(found, dict) else {}


def _key(obj: Obj) -> str:
    return f"{_meta(obj).get('namespace', '')}/{_meta(obj).get('name', '')}"


def _owner(obj: Obj, kind: str) -> str | None:
    for ref in _meta(obj).get("ownerReferences") or []:
        if isinstance(ref, dict) and ref.get("kind") == kind and ref.get("name"):
            return str(ref["name"])
    return None


def _get(obj: Any, *path: str) -> Any:
    for part in path:
        obj = obj.get(part) if isinstance(obj, dict) else None
    return obj


def group_id(obj: Obj) -> str:
    """CA's id of a scalable resource: KIND/NAMESPACE/NAME."""
    return f"{obj.get('kind')}/{_meta(obj).get('namespace', '')}/{_meta(obj).get('name', '')}"


def normalized_provider_id(provider_id: str) -> str:
    """`normalizedProviderString`: what follows the last '/', but an Azure VMSS id whole."""
    if provider_id.startswith("azure://") and "virtualMachineScaleSets" in provider_id:
        return provider_id
    return provider_id.split("/")[-1]


def node_groups(objects: Sequence[Obj], nodes: Sequence[Obj], source: Source | None = None
                ) -> tuple[list[NodeGroup], dict[str, list[str]], list[str]]:
    """The Cluster API node groups among `objects` (MachineSets, MachineDeployments, Machines),
    their members among `nodes` (names, in `nodes` order) and notes of what could not be found."""
    machine_sets = [o for o in objects if o.get("kind") == MACHINE_SET]
    deployments = [o for o in objects if o.get("kind") == MACHINE_DEPLOYMENT]
    machines = [o for o in objects if o.get("kind") == MACHINE]
    scalable = [m for m in machine_sets if _owner(m, MACHINE_DEPLOYMENT) is None] + deployments
    notes: list[str] = []
    groups: dict[str, NodeGroup] = {}
    for obj in scalable:
        group = _node_group(obj, notes, source)
        if group is not None:
            groups[group.name] = group
    found: dict[str, list[str]] = {name: [] for name in groups}
    sets = {_key(m): m for m in machine_sets}
    by_provider = {normalized_provider_id(p): m for m in machines
                   if isinstance(p := _get(m, "spec", "providerID"), str) and p}
    by_key = {_key(m): m for m in machines}
    for node in nodes:
        owner = _owning_group(node, by_provider, by_key, sets)
        if owner in found:
            found[owner].append(str(_meta(node).get("name")))
    out: list[NodeGroup] = []
    for name, group in groups.items():
        template = _template(group, found[name], nodes, scalable, notes)
        out.append(NodeGroup(group.name, group.min_size, group.max_size, group.target_size, group.node_selector,
                             template, group.options, source,
                             template_origin="the template CA builds from its scale-from-zero capacity annotations"
                             if template is not None else ""))
        if not found[name] and template is None:
            notes.append(f"node group {name}: no node of it was found and it has no capacity annotations "
                         f"({CPU} and {MEMORY}) to build a template from: not ready for scale-up, as CA says")
    return out, found, notes


def _node_group(obj: Obj, notes: list[str], source: Source | None) -> NodeGroup | None:
    """`newNodeGroupFromScalableResource`: the group, or None (with a note when the resource
    asks for autoscaling but CA would not list it)."""
    ann = _annotations(obj)
    gid = group_id(obj)
    low, high = (_size(obj, ann, key, source) for key in (MIN_SIZE, MAX_SIZE))
    if high < low:
        raise InputError(f"{high} is below the min-size annotation's {low} (CA refuses the node group: "
                         "invalid max annotation)", source=source, obj=obj, field=f"metadata.annotations[{MAX_SIZE}]")
    asked = MIN_SIZE in ann or MAX_SIZE in ann
    replicas = _get(obj, "spec", "replicas")
    replicas = replicas if isinstance(replicas, int) and not isinstance(replicas, bool) else None
    if replicas == 0 and _capacity(ann) is None:
        if asked:
            notes.append(f"{gid}: 0 replicas and no capacity annotations ({CPU}, {MEMORY}): CA cannot scale it "
                         "from zero and does not list it as a node group")
        return None
    if high == 0:
        return None
    if PAUSED in ann:
        notes.append(f"{gid}: paused ({PAUSED}): CA does not list it as a node group")
        return None
    return NodeGroup(gid, low, high, replicas, {}, None, _options(gid, ann, notes), source)


def _size(obj: Obj, ann: Mapping[str, str], key: str, source: Source | None) -> int:
    text = ann.get(key)
    if text is None:
        return 0
    value = int(text, 10) if re.fullmatch(r"[+-]?[0-9]+", text) else None     # strconv.Atoi
    if value is None or value < 0:
        raise InputError(f"expected an integer >= 0, found {text!r} (CA refuses the node group: invalid "
                         f"{'min' if key == MIN_SIZE else 'max'} annotation)", source=source, obj=obj,
                         field=f"metadata.annotations[{key}]")
    return value


def _options(gid: str, ann: Mapping[str, str], notes: list[str]) -> NodeGroupOptions:
    values: dict[str, Any] = {}
    for key, raw in ann.items():
        name = key[len(OPTIONS_PREFIX):] if key.startswith(OPTIONS_PREFIX) else ""
        if not name or not raw or name not in OPTIONS:
            continue
        attr, kind = OPTIONS[name]
        text = raw.lower()
        if kind == "ratio":
            try:
                values[attr] = float(text)
            except ValueError:
                notes.append(f"{gid}: {key}: {raw!r} is not a number; CA ignores it")
        else:
            nanos = parse_duration(text)
            if nanos is None:
                notes.append(f"{gid}: {key}: {raw!r} is not a duration; CA ignores it")
            else:
                values[attr] = nanos / 1e9
    return NodeGroupOptions(**values)


def _owning_group(node: Obj, by_provider: Mapping[str, Obj], by_key: Mapping[str, Obj],
                  sets: Mapping[str, Obj]) -> str | None:
    """`nodeGroupForNode`'s resource: Machine -> MachineSet -> its MachineDeployment, if any."""
    provider = _get(node, "spec", "providerID")
    machine = by_provider.get(normalized_provider_id(provider)) if isinstance(provider, str) and provider else None
    if machine is None:
        ann = _annotations(node)
        if MACHINE_ANNOTATION in ann:
            machine = by_key.get(f"{ann.get(CLUSTER_NAMESPACE_ANNOTATION, '')}/{ann[MACHINE_ANNOTATION]}")
    if machine is None:
        return None
    namespace = _meta(machine).get("namespace", "")
    set_name = _owner(machine, MACHINE_SET)
    machine_set = sets.get(f"{namespace}/{set_name}") if set_name else None
    if machine_set is None:
        return None
    deployment = _owner(machine_set, MACHINE_DEPLOYMENT)
    if deployment is not None:
        return f"{MACHINE_DEPLOYMENT}/{namespace}/{deployment}"
    return group_id(machine_set)


# --- scale from zero ------------------------------------------------------------------------

def _capacity(ann: Mapping[str, str]) -> dict[str, str] | None:
    """`InstanceCapacity` from the annotations, None when it cannot scale from zero (cpu or
    memory missing or zero, or a value that is not a quantity)."""
    out: dict[str, str] = {}
    for resource, key in (("cpu", CPU), ("memory", MEMORY), ("ephemeral-storage", DISK)):
        text = ann.get(key, "")
        if not text:
            continue
        if not quantity.is_valid(text):
            return None
        if quantity.parse_quantity(text) != 0:
            out[resource] = text
    gpu_type = ann.get(GPU_TYPE, "")
    gpus = _integer(ann.get(GPU_COUNT, ""))
    pods = _integer(ann.get(MAX_PODS, ""))
    if gpus is None or pods is None:
        return None
    if gpus and gpu_type:
        out[gpu_type] = str(gpus)
    out["pods"] = str(pods or DEFAULT_MAX_PODS)
    return out if "cpu" in out and "memory" in out else None


def _integer(text: str) -> int | None:
    """`parseIntKey`: empty is 0; None when not an integer."""
    if not text:
        return 0
    try:
        return int(text, 10)
    except ValueError:
        return None


def _template(group: NodeGroup, members: Sequence[str], nodes: Sequence[Obj], scalable: Iterable[Obj],
              notes: list[str]) -> Obj | None:
    obj = next(o for o in scalable if group_id(o) == group.name)
    ann = _annotations(obj)
    capacity = _capacity(ann)
    if capacity is None:
        return None
    labels = {LABEL_ARCH: "amd64", LABEL_OS: "linux"}
    labels.update(_managed_labels(_get(obj, "spec", "template", "spec", "metadata", "labels")))
    for pair in ann.get(LABELS, "").split(",") if LABELS in ann else ():
        key, sep, value = pair.partition("=")
        if sep:
            labels[key] = value
    if members:
        first = next((n for n in nodes if _meta(n).get("name") == members[0]), None)
        node_labels = _labels(first) if first is not None else {}
        labels.update({k: node_labels[k] for k in INSTANCE_LABELS if node_labels.get(k)})
    node: Obj = {"apiVersion": "v1", "kind": "Node", "metadata": {"labels": labels},
                 "status": {"capacity": dict(capacity), "allocatable": dict(capacity),
                            "conditions": [{"type": t, "status": s} for t, s in (
                                ("Ready", "True"), ("NetworkUnavailable", "False"), ("DiskPressure", "False"),
                                ("MemoryPressure", "False"))]}}
    taints = _taints(obj, ann)
    if taints:
        node["spec"] = {"taints": taints}
    unread = [k for k in UNREAD if ann.get(k)]
    notes.append(f"node group {group.name}: template from its capacity annotations; not included: the "
                 "kube-proxy pod CA adds to it (100m cpu) and any capacity its infrastructure template reports"
                 + (f", nor {', '.join(unread)}" if unread else ""))
    return node


def _managed_labels(raw: Any) -> dict[str, str]:
    """`getManagedNodeLabelsFromLabels`: node-role.kubernetes.io, node-restriction.kubernetes.io
    and node.cluster.x-k8s.io labels (and their subdomains)."""
    out: dict[str, str] = {}
    for key, value in (raw or {}).items() if isinstance(raw, dict) else ():
        domain = str(key).split("/")[0]
        if (domain == "node-role.kubernetes.io"
                or any(domain == d or domain.endswith("." + d)
                       for d in ("node-restriction.kubernetes.io", "node.cluster.x-k8s.io"))):
            out[str(key)] = str(value)
    return out


def _taints(obj: Obj, ann: Mapping[str, str]) -> list[Obj]:
    """`Taints`: the template's, then the annotation's (replacing one of the same key and effect)."""
    taints: list[Obj] = []
    for item in _get(obj, "spec", "template", "spec", "taints") or []:
        if isinstance(item, dict):
            taints.append({k: item[k] for k in ("key", "value", "effect") if isinstance(item.get(k), str)})
    for text in ann[TAINTS].split(",") if TAINTS in ann else ():
        taint = _parse_taint(text)
        if taint is None:
            continue
        same = next((i for i, t in enumerate(taints)
                     if t.get("key") == taint["key"] and t.get("effect", "") == taint.get("effect", "")), None)
        if same is None:
            taints.append(taint)
        else:
            taints[same] = taint
    return [{k: v for k, v in t.items() if v} for t in taints]


def _parse_taint(text: str) -> Obj | None:
    """`parseTaint`: KEY, or KEY[=VALUE]:EFFECT; None for what CA skips as invalid."""
    parts = text.split(":")
    value, effect = "", ""
    if len(parts) == 1:
        key = parts[0]
    elif len(parts) == 2:
        effect = parts[1]
        kv = parts[0].split("=")
        if len(kv) > 2:
            return None
        key = kv[0]
        if len(kv) == 2:
            value = kv[1]
            if is_label_value(value):
                return None
    else:
        return None
    if is_label_key(key):
        return None
    return {"key": key, "value": value, "effect": effect}
