"""Node groups as the cloud provider lists them: sizes, members, an optional template.

The offline input is `--node-groups FILE` (../shared/autoscaler/README.md's `nodegroups.yaml`);
live mode finds the same model from CA's status ConfigMap and provider labels. `parse_node_groups`
parses the file's document (every mistake is an `InputError` naming the file, the group and the
field); reading the file and finding each group's instances among the cluster's Nodes is the
file provider's (`cloudprovider.static`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from kexplain.errors import InputError, Source
from kexplain.config._decode import parse_duration

API_VERSION = "kexplain/v1"
LIST_KIND = "NodeGroupList"


@dataclass(frozen=True)
class NodeGroupOptions:
    """CA's per-group NodeGroupAutoscalingOptions; None = the flag's default applies."""

    zero_or_max_node_scaling: bool | None = None
    allow_non_atomic_scale_up_to_max: bool | None = None
    scale_down_utilization_threshold: float | None = None
    scale_down_gpu_utilization_threshold: float | None = None
    scale_down_unneeded_time: float | None = None      # seconds
    ignore_daemonsets_utilization: bool | None = None


@dataclass(frozen=True)
class Backoff:
    """A group CA's status ConfigMap reports in backoff after a failed scale-up (NodeGroupScaleUpSafety):
    skipped for scale-up and balancing until it ends. Only CA knows it: offline there is none."""

    error_code: str = ""        # backoffInfo.errorCode, e.g. InsufficientInstanceCapacity
    error_message: str = ""     # backoffInfo.errorMessage
    since: str = ""             # the condition's lastTransitionTime ("" when not said)

    def to_json(self) -> dict[str, str]:
        return {"errorCode": self.error_code, "errorMessage": self.error_message, "since": self.since}


@dataclass(frozen=True)
class NodeGroup:
    """One node group (cloudprovider.NodeGroup): its id, sizes and how its members are found."""

    name: str
    min_size: int
    max_size: int
    target_size: int | None                     # None: the number of member nodes
    node_selector: Mapping[str, str]            # a Node is a member when all these labels match
    template: Mapping[str, Any] | None = None   # a Node manifest: the provider's TemplateNodeInfo
    options: NodeGroupOptions = field(default_factory=NodeGroupOptions)
    source: Source | None = None                # where it was read, for error messages
    backoff: Backoff | None = None              # in backoff, as CA's status ConfigMap says
    template_origin: str = ""                   # what `template` is, in words ("": the file's)

    def selects(self, labels: Mapping[str, str]) -> bool:
        """Whether a Node with `labels` is one of this group's instances (an empty selector
        selects no node: a group without one has no members)."""
        sel = self.node_selector
        return bool(sel) and all(labels.get(k) == v for k, v in sel.items())


GROUP_KEYS = ("name", "minSize", "maxSize", "targetSize", "nodeSelector", "template", "options")
# options key -> (NodeGroupOptions field, kind): "bool", "ratio" (a number) or "duration"
OPTION_KEYS = {
    "zeroOrMaxNodeScaling": ("zero_or_max_node_scaling", "bool"),
    "allowNonAtomicScaleUpToMax": ("allow_non_atomic_scale_up_to_max", "bool"),
    "scaleDownUtilizationThreshold": ("scale_down_utilization_threshold", "ratio"),
    "scaleDownGpuUtilizationThreshold": ("scale_down_gpu_utilization_threshold", "ratio"),
    "scaleDownUnneededTime": ("scale_down_unneeded_time", "duration"),
    "ignoreDaemonSetsUtilization": ("ignore_daemonsets_utilization", "bool"),
}


def parse_node_groups(doc: Any, src: Source) -> list[NodeGroup]:
    """The node groups of one `NodeGroupList` document (`src`: where it was read)."""
    if not isinstance(doc, dict):
        raise InputError(f"expected a {LIST_KIND} mapping with the key nodeGroups", source=src)
    unknown = sorted(set(doc) - {"apiVersion", "kind", "nodeGroups"})
    if unknown:
        raise InputError(f"unknown key {unknown[0]!r} (accepted: apiVersion, kind, nodeGroups)", source=src)
    if doc.get("apiVersion", API_VERSION) != API_VERSION:
        raise InputError(f"apiVersion: expected {API_VERSION}, found {doc.get('apiVersion')!r}", source=src)
    if doc.get("kind", LIST_KIND) != LIST_KIND:
        raise InputError(f"kind: expected {LIST_KIND}, found {doc.get('kind')!r}", source=src)
    items = doc.get("nodeGroups")
    if not isinstance(items, list):
        raise InputError("nodeGroups: expected a list of node groups", source=src)
    out: list[NodeGroup] = []
    seen: set[str] = set()
    for i, item in enumerate(items):
        group = _group(item, i, src)
        if group.name in seen:
            raise InputError(f"nodeGroups[{i}].name: node group {group.name!r} is listed twice", source=src)
        seen.add(group.name)
        out.append(group)
    return out


def _group(item: Any, i: int, src: Source) -> NodeGroup:
    at = f"nodeGroups[{i}]"
    if not isinstance(item, dict):
        raise InputError(f"{at}: expected a mapping (keys: {', '.join(GROUP_KEYS)})", source=src)
    unknown = sorted(set(item) - set(GROUP_KEYS))
    if unknown:
        raise InputError(f"{at}: unknown key {unknown[0]!r} (accepted: {', '.join(GROUP_KEYS)})", source=src)
    name = item.get("name")
    if not isinstance(name, str) or not name:
        raise InputError(f"{at}.name: expected a non-empty string", source=src)
    at = f"nodeGroups[{i}] ({name})"
    min_size = _count(item, "minSize", at, src, 0)
    max_size = _count(item, "maxSize", at, src, None)
    if max_size is None:
        raise InputError(f"{at}.maxSize: required (an integer >= minSize)", source=src)
    if max_size < min_size:
        raise InputError(f"{at}.maxSize: {max_size} is below minSize {min_size}", source=src)
    target = _count(item, "targetSize", at, src, None)
    selector = item.get("nodeSelector") or {}
    if not isinstance(selector, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                 for k, v in selector.items()):
        raise InputError(f"{at}.nodeSelector: expected a mapping of label names to string values", source=src)
    template = item.get("template")
    if template is not None:
        if not isinstance(template, dict):
            raise InputError(f"{at}.template: expected a Node manifest (a mapping)", source=src)
        if template.get("kind", "Node") != "Node":
            raise InputError(f"{at}.template.kind: expected Node, found {template.get('kind')!r}", source=src)
    return NodeGroup(name, min_size, max_size, target, dict(selector), template,
                     _options(item.get("options"), at, src), src)


def _count(item: dict, key: str, at: str, src: Source, default: int | None) -> int | None:
    value = item.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f"{at}.{key}: expected an integer >= 0, found {value!r}", source=src)
    return value


def _options(raw: Any, at: str, src: Source) -> NodeGroupOptions:
    if raw is None:
        return NodeGroupOptions()
    if not isinstance(raw, dict):
        raise InputError(f"{at}.options: expected a mapping (keys: {', '.join(OPTION_KEYS)})", source=src)
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in OPTION_KEYS:
            raise InputError(f"{at}.options: unknown key {key!r} (accepted: {', '.join(OPTION_KEYS)})", source=src)
        attr, kind = OPTION_KEYS[key]
        if value is None:
            continue
        if kind == "bool":
            if not isinstance(value, bool):
                raise InputError(f"{at}.options.{key}: expected true or false, found {value!r}", source=src)
        elif kind == "ratio":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise InputError(f"{at}.options.{key}: expected a number, found {value!r}", source=src)
            value = float(value)
        else:
            nanos = parse_duration(value) if isinstance(value, str) else None
            if nanos is None:
                raise InputError(f"{at}.options.{key}: expected a duration such as 10m, found {value!r}", source=src)
            value = nanos / 1e9
        values[attr] = value
    return NodeGroupOptions(**values)
