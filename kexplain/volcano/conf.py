"""The scheduler configuration (pkg/scheduler/util.go UnmarshalSchedulerConf, conf/scheduler_conf.go):
actions, tiers of plugins with their switches and arguments, per-action configurations; Volcano's
built-in default as data. Unknown actions refuse the file as Volcano does; unknown plugins are said
and skipped, as OpenSession skips a plugin it has no builder for."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from kexplain.errors import InputError
from kexplain.volcano.actions import REGISTERED as REGISTERED_ACTIONS
from kexplain.volcano import plugins

DEFAULT_SOURCE = "default (pkg/scheduler.DefaultSchedulerConf)"
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

    def tier_names(self) -> list[list[str]]:
        return [[p.name for p in tier] for tier in self.tiers]


def _option(raw: Any, where: str) -> PluginOption:
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        raise InputError(f"{where}: a plugin needs a name")
    switches = {ours: bool(raw[key]) for key, ours in SWITCHES.items() if isinstance(raw.get(key), bool)}
    args = raw.get("arguments") if isinstance(raw.get("arguments"), dict) else {}
    return PluginOption(raw["name"], switches, dict(args), raw.get("enableHierarchy") is True)


def parse(text: str, source: str) -> SchedulerConf:
    """UnmarshalSchedulerConf over `text`; InputError where Volcano refuses it."""
    try:
        doc = yaml.safe_load(text) or {}
    except yaml.YAMLError as err:
        raise InputError(f"{source}: not YAML: {err}") from None
    if not isinstance(doc, dict):
        raise InputError(f"{source}: the scheduler configuration must be a mapping")
    tiers = []
    for i, tier in enumerate(doc.get("tiers") or ()):
        opts = tuple(_option(p, f"{source}: tiers[{i}]") for p in ((tier or {}).get("plugins") or ()))
        if any(p.name == "drf" and p.hierarchy for p in opts) and any(p.name == "proportion" for p in opts):
            raise InputError(f"{source}: proportion and drf with hierarchy enabled conflicts")
        tiers.append(opts)
    actions = tuple(a.strip() for a in str(doc.get("actions") or "").split(","))
    for a in actions:
        if a not in REGISTERED_ACTIONS:
            raise InputError(f"{source}: failed to find Action {a}")
    configurations = {}
    for c in doc.get("configurations") or ():
        if isinstance(c, dict) and isinstance(c.get("name"), str):
            configurations[c["name"]] = dict(c.get("arguments") or {})
    names = [p.name for tier in tiers for p in tier if not plugins.known(p.name)]
    unknown = tuple(n for n in names if n not in plugins.REGISTERED)
    unmodelled = tuple(n for n in names if n in plugins.REGISTERED)
    return SchedulerConf(actions, tuple(tiers), configurations, source, unknown, unmodelled)


def default() -> SchedulerConf:
    return parse(DEFAULT_CONF, DEFAULT_SOURCE)


def read(path: str | None) -> SchedulerConf:
    """--scheduler-conf FILE (the ConfigMap's `volcano-scheduler.conf`), else the built-in default."""
    if path is None:
        return default()
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read().strip()
    except OSError as err:
        raise InputError(f"{path}: {err.strerror}") from None
    return parse(text, path)
