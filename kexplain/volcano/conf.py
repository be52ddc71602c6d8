"""The scheduler configuration (pkg/scheduler/util.go UnmarshalSchedulerConf, conf/scheduler_conf.go):
actions, tiers of plugins with their switches and arguments, per-action configurations; Volcano's
built-in default as data. A configuration Volcano finds invalid (not YAML, an unknown action, drf's
hierarchy with proportion) is not used: the scheduler logs it and keeps its previous one, at start its
default (scheduler.go loadSchedulerConf), said in `warnings`; unknown plugins are said and skipped, as
OpenSession skips a plugin it has no builder for ("Failed to get plugin %s."). The configuration is read
from `--scheduler-conf FILE` (the ConfigMap's key, or the ConfigMap itself), else from the scheduler's
ConfigMap among the inputs (`chosen`)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Iterable

import yaml

from kexplain.errors import InputError
from kexplain.volcano.actions import REGISTERED as REGISTERED_ACTIONS
from kexplain.volcano import plugins

DEFAULT_SOURCE = "default (pkg/scheduler.DefaultSchedulerConf)"
CONFIGMAP_KEY = "volcano-scheduler.conf"
CONFIGMAP_NAME = "volcano-system/volcano-scheduler-configmap"    # the chart's
DEFAULT_CONF = """
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
"""
# PluginOption's switches (yaml key -> our name); all default to true (plugins.ApplyPluginConfDefaults).
SWITCHES = {
    "enableJobOrder": "job_order", "enableJobReady": "job_ready", "enableJobPipelined": "job_pipelined",
    "enableTaskOrder": "task_order", "enablePreemptable": "preemptable", "enableReclaimable": "reclaimable",
    "enablePreemptive": "preemptive", "enableQueueOrder": "queue_order", "enablePredicate": "predicate",
    "enableBestNode": "best_node", "enableNodeOrder": "node_order", "enableTargetJob": "target_job",
    "enableReservedNodes": "reserved_nodes", "enableJobEnqueued": "job_enqueued", "enabledVictim": "victim",
    "enableJobStarving": "job_starving", "enabledOverused": "overused", "enabledAllocatable": "allocatable",
}


@dataclass(frozen=True)
class PluginOption:
    name: str
    switches: dict[str, bool]
    arguments: dict[str, Any]
    hierarchy: bool = False

    def enabled(self, switch: str) -> bool:
        return self.switches.get(switch, True)


@dataclass(frozen=True)
class SchedulerConf:
    actions: tuple[str, ...]
    tiers: tuple[tuple[PluginOption, ...], ...]
    configurations: dict[str, dict[str, Any]]
    source: str
    unknown_plugins: tuple[str, ...] = field(default=())       # Volcano has no builder: it skips them
    unmodelled_plugins: tuple[str, ...] = field(default=())    # Volcano's, not modelled by kexplain
    warnings: tuple[str, ...] = field(default=())              # what the reading said (the file not used)

    def tier_names(self) -> list[list[str]]:
        return [[p.name for p in tier] for tier in self.tiers]


def _option(raw: Any, where: str) -> PluginOption:
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        raise InputError(f"{where}: a plugin needs a name")
    switches = {ours: bool(raw[key]) for key, ours in SWITCHES.items() if isinstance(raw.get(key), bool)}
    args = raw.get("arguments") if isinstance(raw.get("arguments"), dict) else {}
    return PluginOption(raw["name"], switches, dict(args), raw.get("enableHierarchy") is True)


class Invalid(ValueError):
    """UnmarshalSchedulerConf's error, in Volcano's words."""


def _unmarshal(text: str, source: str) -> SchedulerConf:
    """UnmarshalSchedulerConf over `text`: Invalid where Volcano refuses it."""
    try:
        doc = yaml.safe_load(text) or {}
    except yaml.YAMLError as err:
        raise Invalid(f"not YAML: {err}") from None
    if not isinstance(doc, dict):
        raise Invalid("the scheduler configuration must be a mapping")
    tiers = []
    for i, tier in enumerate(doc.get("tiers") or ()):
        opts = tuple(_option(p, f"{source}: tiers[{i}]") for p in ((tier or {}).get("plugins") or ()))
        if any(p.name == "drf" and p.hierarchy for p in opts) and any(p.name == "proportion" for p in opts):
            raise Invalid("proportion and drf with hierarchy enabled conflicts")
        tiers.append(opts)
    names = str(doc.get("actions") or "").split(",")
    for a in names:
        if a.strip() not in REGISTERED_ACTIONS:
            raise Invalid(f"failed to find Action {a}")
    actions = tuple(a.strip() for a in names)
    configurations = {}
    for c in doc.get("configurations") or ():
        if isinstance(c, dict) and isinstance(c.get("name"), str):
            configurations[c["name"]] = dict(c.get("arguments") or {})
    plugin_names = [p.name for tier in tiers for p in tier if not plugins.known(p.name)]
    unknown = tuple(n for n in plugin_names if n not in plugins.REGISTERED)
    unmodelled = tuple(n for n in plugin_names if n in plugins.REGISTERED)
    return SchedulerConf(actions, tuple(tiers), configurations, source, unknown, unmodelled)


def parse(text: str, source: str) -> SchedulerConf:
    """UnmarshalSchedulerConf over `text`; InputError where Volcano refuses it."""
    try:
        return _unmarshal(text, source)
    except Invalid as err:
        raise InputError(f"{source}: {err}") from None


def default() -> SchedulerConf:
    return parse(DEFAULT_CONF, DEFAULT_SOURCE)


def load(text: str, source: str) -> SchedulerConf:
    """loadSchedulerConf: the configuration `text`, or, where Volcano finds it invalid, the one it
    keeps (its default, at start) with the error said as Volcano logs it."""
    try:
        return _unmarshal(text.strip(), source)
    except Invalid as err:
        said = (f"Scheduler config {source} is invalid: {err}; Volcano keeps its previous configuration "
                "(at start, its default), which kexplain runs")
        return replace(default(), warnings=(said,))


def _configmap_text(obj: dict[str, Any]) -> str | None:
    data = obj.get("data")
    value = data.get(CONFIGMAP_KEY) if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


def read(path: str | None) -> SchedulerConf:
    """--scheduler-conf FILE (the ConfigMap's `volcano-scheduler.conf`, or the ConfigMap itself), else
    the built-in default."""
    if path is None:
        return default()
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read().strip()
    except OSError as err:
        raise InputError(f"{path}: {err.strerror}") from None
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError:
        doc = None
    if isinstance(doc, dict) and doc.get("kind") == "ConfigMap":
        inner = _configmap_text(doc)
        if inner is None:
            raise InputError(f"{path}: ConfigMap {_name(doc)} has no data key {CONFIGMAP_KEY}")
        return load(inner, f"{path}: ConfigMap {_name(doc)}")
    return load(text, path)


def _name(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name') or ''}"


def chosen(path: str | None, objects: Iterable[tuple[dict[str, Any], Any]]) -> SchedulerConf:
    """The session's configuration: `--scheduler-conf`, else the scheduler's ConfigMap among the
    inputs (a ConfigMap with the key volcano-scheduler.conf; volcano-system/volcano-scheduler-configmap,
    the chart's, first where several are), else Volcano's default."""
    if path is not None:
        return read(path)
    found = [(o, s) for o, s in objects if isinstance(o, dict) and o.get("kind") == "ConfigMap"
             and _configmap_text(o) is not None]
    if not found:
        return default()
    found.sort(key=lambda pair: _name(pair[0]) != CONFIGMAP_NAME)
    obj, src = found[0]
    conf = load(_configmap_text(obj) or "", f"{src}: ConfigMap {_name(obj)}")
    if len(found) > 1:
        others = ", ".join(_name(o) for o, _ in found[1:])
        conf = replace(conf, warnings=(*conf.warnings, f"several ConfigMaps hold {CONFIGMAP_KEY}: "
                                                       f"{_name(obj)} read, not {others}"))
    return conf
