"""The node groups CA itself reports: its status ConfigMap, kube-system/cluster-autoscaler-status
(`WriteStatusConfigMap`), read exactly in both formats CA has written (YAML `ClusterAutoscalerStatus` since
11a084699, `GetReadableString`'s text before), anything else refused; members found by `membership`."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from kexplain.apimachinery.labels import LABEL_TOPOLOGY_ZONE
from kexplain.autoscaler.cloudprovider import azure, gce
from kexplain.autoscaler.cloudprovider.membership import Members, members, node_refs
from kexplain.autoscaler.nodegroups import Backoff, NodeGroup
from kexplain.errors import InputError, Source
from kexplain.load.yaml_io import parse_documents
from kexplain.autoscaler.cloudprovider.standins import stand_ins

NAMESPACE = "kube-system"
NAME = "cluster-autoscaler-status"
DATA_KEY = "status"
FIELD = f"data.{DATA_KEY}"
BACKOFF = "Backoff"         # the scale-up condition's status of a group in backoff (clusterstate/api)
ACCEPTED = ("accepted: the YAML ClusterAutoscalerStatus of current CA releases (nodeGroups[].name, "
            "nodeGroups[].health.minSize/maxSize/cloudProviderTarget), or the plain text of earlier releases "
            "(\"Cluster-autoscaler status at ...\" with NodeGroups: Name: / Health: ... cloudProviderTarget=N "
            "(minSize=A, maxSize=B))")

Obj = dict[str, Any]


@dataclass(frozen=True)
class GroupStatus:
    """One node group as CA's status reports it."""

    name: str
    min_size: int
    max_size: int
    target_size: int            # cloudProviderTarget: the provider's target size
    health: str = ""            # Healthy, Unhealthy ("" when not said)
    scale_up: str = ""          # NoActivity, InProgress, Backoff, ... ("" when not said)
    backoff_code: str = ""      # scaleUp.backoffInfo (status Backoff)
    backoff_message: str = ""
    scale_up_since: str = ""    # scaleUp.lastTransitionTime

    @property
    def backoff(self) -> Backoff | None:
        """The backoff CA reports (its scale-up status `Backoff`, api.ClusterAutoscalerBackoff), None for another."""
        if self.scale_up != BACKOFF:
            return None
        return Backoff(self.backoff_code, self.backoff_message, self.scale_up_since)


@dataclass(frozen=True)
class AutoscalerStatus:
    """What the status ConfigMap says: its format, CA's state and the groups in CA's order."""

    format: str                 # "yaml" or "text"
    state: str                  # Running, Initializing ("" when not said)
    time: str
    groups: tuple[GroupStatus, ...]


def find(objects: Iterable[Obj]) -> Obj | None:
    """The status ConfigMap among `objects`, if there."""
    for obj in objects:
        meta = obj.get("metadata") or {}
        if obj.get("kind") == "ConfigMap" and meta.get("namespace") == NAMESPACE and meta.get("name") == NAME:
            return obj
    return None


def parse(config_map: Obj, source: Source | None = None) -> AutoscalerStatus:
    """The status `config_map` holds (InputError naming the object and the field when its
    format is not one CA writes)."""
    data = config_map.get("data")
    text = data.get(DATA_KEY) if isinstance(data, dict) else None
    if not isinstance(text, str):
        raise _error(config_map, source, "missing (CA writes its status under this key)", FIELD)
    if text.startswith(_TEXT_HEADER):
        return _parse_text(text, config_map, source)
    return _parse_yaml(text, config_map, source)


# --- the YAML of current releases -----------------------------------------------------------

_TOP_KEYS = ("time", "autoscalerStatus", "message", "clusterWide", "nodeGroups")


def _parse_yaml(text: str, cm: Obj, source: Source | None) -> AutoscalerStatus:
    try:
        docs = [d.value for d in parse_documents(text, FIELD)]
    except InputError:
        docs = []
    doc = docs[0] if len(docs) == 1 else None
    if not isinstance(doc, dict) or not any(k in doc for k in _TOP_KEYS if k != "message"):
        raise _error(cm, source, "not a status CA writes", FIELD)
    items = doc.get("nodeGroups")
    if items is None:
        items = []
    if not isinstance(items, list):
        raise _error(cm, source, "expected a list of node group statuses", f"{FIELD}: nodeGroups")
    groups = []
    for i, item in enumerate(items):
        at = f"{FIELD}: nodeGroups[{i}]"
        if not isinstance(item, dict):
            raise _error(cm, source, "expected a mapping (name, health, scaleUp, scaleDown)", at)
        name = item.get("name")
        if not isinstance(name, str) or not name:
            raise _error(cm, source, "expected the node group's name", f"{at}.name")
        health = item.get("health")
        if not isinstance(health, dict):
            raise _error(cm, source, "expected a mapping with minSize, maxSize and cloudProviderTarget",
                         f"{at}.health")
        sizes = [_count(health, key, cm, source, f"{at}.health.{key}")
                 for key in ("minSize", "maxSize", "cloudProviderTarget")]
        scale_up = item.get("scaleUp") if isinstance(item.get("scaleUp"), dict) else {}
        info = scale_up.get("backoffInfo") if isinstance(scale_up.get("backoffInfo"), dict) else {}
        groups.append(GroupStatus(name, *sizes, health=_text(health.get("status")),
                                  scale_up=_text(scale_up.get("status")), backoff_code=_text(info.get("errorCode")),
                                  backoff_message=_text(info.get("errorMessage")),
                                  scale_up_since=_time(scale_up.get("lastTransitionTime"))))
    return AutoscalerStatus("yaml", _text(doc.get("autoscalerStatus")), _text(doc.get("time")), tuple(groups))


def _count(health: Mapping[str, Any], key: str, cm: Obj, source: Source | None, at: str) -> int:
    value = health.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _error(cm, source, f"expected an integer >= 0, found {value!r}", at)
    return value


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _time(value: Any) -> str:
    """A time as the YAML holds it (a string, or a timestamp the YAML reader made of it)."""
    if hasattr(value, "isoformat"):
        return value.isoformat().replace("+00:00", "Z")
    return _text(value)


# --- the plain text of earlier releases --------------------------------------------------------

_TEXT_HEADER = "Cluster-autoscaler status at "
_NAME = "  Name:        "                       # "  Name:        %v"
_CONDITION = re.compile(r"^  (Health|ScaleUp|ScaleDown): +(\S+)(?: \((.*)\))?$")
_SIZES = re.compile(r"cloudProviderTarget=(\d+) \(minSize=(\d+), maxSize=(\d+)\)$")


def _parse_text(text: str, cm: Obj, source: Source | None) -> AutoscalerStatus:
    lines = text.split("\n")
    header = re.match(r"^Cluster-autoscaler status at (.*):$", lines[0])
    if header is None:
        raise _error(cm, source, "a plain-text status whose first line is not \"Cluster-autoscaler status "
                     "at TIME:\"", FIELD)
    body = [line for line in lines[1:]]
    if body and body[0].strip() == "Initializing":
        return AutoscalerStatus("text", "Initializing", header.group(1), ())
    if not body or body[0] != "Cluster-wide:":
        raise _error(cm, source, "a plain-text status without its \"Cluster-wide:\" section", FIELD)
    try:
        start = body.index("NodeGroups:") + 1
    except ValueError:
        return AutoscalerStatus("text", "Running", header.group(1), ())
    groups: list[GroupStatus] = []
    name: str | None = None
    conditions: dict[str, tuple[str, str]] = {}
    for line in body[start:] + [""]:
        if line.startswith(_NAME):
            if name is not None:
                groups.append(_text_group(name, conditions, cm, source))
            name, conditions = line[len(_NAME):], {}
            continue
        found = _CONDITION.match(line)
        if found and name is not None:
            conditions[found.group(1)] = (found.group(2), found.group(3) or "")
        elif not line.strip() and name is not None:
            groups.append(_text_group(name, conditions, cm, source))
            name = None
    return AutoscalerStatus("text", "Running", header.group(1), tuple(groups))


def _text_group(name: str, conditions: Mapping[str, tuple[str, str]], cm: Obj,
                source: Source | None) -> GroupStatus:
    at = f"{FIELD}: NodeGroups: Name: {name}: Health"
    status, message = conditions.get("Health", ("<unknown>", ""))
    sizes = _SIZES.search(message)
    if sizes is None:
        raise _error(cm, source, f"expected \"... cloudProviderTarget=N (minSize=A, maxSize=B)\", found "
                     f"{(status + ' ' + message).strip()!r}", at)
    target, low, high = (int(g) for g in sizes.groups())
    return GroupStatus(name, low, high, target, health=status, scale_up=conditions.get("ScaleUp", ("", ""))[0])


def _error(cm: Obj, source: Source | None, what: str, at: str) -> InputError:
    return InputError(f"{what} ({ACCEPTED})", source=source, obj=cm, field=at)


# --- the reported groups with their members ------------------------------------------------------

def node_groups(status: AutoscalerStatus, nodes: Sequence[Obj], label_keys: Sequence[str],
                source: Source | None = None) -> tuple[list[NodeGroup], Members]:
    """The reported groups as NodeGroups (selector: the labels naming their nodes; template: a `standins`
    stand-in), their members among `nodes` as the provider defines them (`membership`), and notes."""
    ids = [gs.name for gs in status.groups]
    found = members(ids, node_refs(nodes), label_keys)
    templates = stand_ins(ids, found.members, found.selectors, nodes)
    groups = [NodeGroup(gs.name, gs.min_size, gs.max_size, gs.target_size, found.selectors[gs.name],
                        templates[gs.name].node if gs.name in templates else None, source=source, backoff=gs.backoff,
                        template_origin=templates[gs.name].origin if gs.name in templates else "")
              for gs in status.groups]
    for gs in status.groups:
        if gs.backoff is not None:
            found.notes.append(backoff_note(gs.name, gs.backoff))
        if gs.name in templates:
            if templates[gs.name].note:
                found.notes.append(templates[gs.name].note)
        elif not found.members[gs.name]:
            found.notes.append(_no_member(gs.name, found.selectors[gs.name], label_keys))
    return groups, found


def backoff_note(group: str, backoff: Backoff) -> str:
    """What CA's status says of a group in backoff, and what CA does with it."""
    since = f" since {backoff.since}" if backoff.since else ""
    error = ": ".join(t for t in (backoff.error_code, backoff.error_message) if t)
    return (f"node group {group}: in backoff after a failed scale-up, CA's status ConfigMap says (scaleUp.status "
            f"{BACKOFF}{since}{f'; {error}' if error else ''}): CA skips it for scale-up (\"in backoff after failed "
            "scale-up\") until the backoff ends")


def _no_member(group: str, sel: Mapping[str, str], label_keys: Sequence[str]) -> str:
    tail = "and the status gives no template: not ready for scale-up, as CA says of a group without one"
    mig = gce.parse_mig_url(group)
    if sel and mig is not None:
        named = ", ".join(f"{k}={v}" for k, v in sel.items() if k != LABEL_TOPOLOGY_ZONE)
        return (f"node group {group} (CA's status ConfigMap): no node in its zone {mig.zone} is an instance of it "
                f"(gce providerID) or carries {named}, {tail}")
    what = "carries a node-group label that names it"
    if mig is not None:
        what = f"is an instance of it (its gce providerID) or {what}"
    elif azure.agent_pool(group):
        what = f"is an instance of it (its azure providerID) or {what}"
    tried = ", ".join(label_keys) or "none"
    return (f"node group {group} (CA's status ConfigMap): no node {what} (labels tried: {tried}; "
            f"--node-group-label KEY adds one), {tail}")
