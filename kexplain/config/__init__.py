"""KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) as kube-scheduler reads it (each supported minor).
`load_config` runs kube-scheduler's stages in its order (strict decoding, defaulting,
ValidateKubeSchedulerConfiguration, NewFramework per profile), so a broken file fails with the message
kube-scheduler would print first. Stages and known gaps: docs/internals/config.md.
"""
from __future__ import annotations

import copy
import json
from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping

from kexplain.apimachinery.fielderrors import (FieldError, aggregate, child, duplicate, go_quote, index, invalid,
                                               required)
from kexplain.config import _args, _decode as d, _plugins
from kexplain.config._args import API_VERSION
from kexplain.config._plugins import EXTENSION_POINTS, PluginSet
from kexplain.errors import ConfigError, FrameworkError, Source
from kexplain.features import DEFAULT as DEFAULT_VERSION, KubeVersion

__all__ = ["EXTENSION_POINTS", "Profile", "SchedulerConfig", "load_config", "DEFAULT_SCHEDULER_NAME"]

DEFAULT_SCHEDULER_NAME = "default-scheduler"
KIND = "KubeSchedulerConfiguration"
# Plugins removed from v1; validation names them rather than saying "does not exist".
_REMOVED_PLUGINS = ("AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits")
# 1.34 dropped the leading "queueSort" from the plugins.queueSort error (its pluginConfig twin kept it).
QUEUE_SORT_TEXT_SHORT_SINCE = "1.34"

_TOP_FIELDS = ("apiVersion", "kind", "parallelism", "leaderElection", "clientConnection",
               "enableProfiling", "enableContentionProfiling", "percentageOfNodesToScore",
               "podInitialBackoffSeconds", "podMaxBackoffSeconds", "profiles", "extenders",
               "delayCacheUntilActive")
_LEADER_FIELDS = ("leaderElect", "leaseDuration", "renewDeadline", "retryPeriod", "resourceLock",
                  "resourceName", "resourceNamespace")
_CLIENT_FIELDS = ("kubeconfig", "acceptContentTypes", "contentType", "qps", "burst")
_PROFILE_FIELDS = ("schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig")


@dataclass(frozen=True)
class Profile:
    scheduler_name: str
    percentage_of_nodes_to_score: int | None
    plugins: Mapping[str, tuple[str, ...]]
    score_weights: Mapping[str, int]
    args: Mapping[str, Mapping]
    kube: KubeVersion = DEFAULT_VERSION   # the version whose plugins these are (Go: feature.Features)


@dataclass(frozen=True)
class SchedulerConfig:
    percentage_of_nodes_to_score: int | None
    profiles: tuple[Profile, ...]
    kube: KubeVersion = DEFAULT_VERSION
    not_reproduced: tuple[str, ...] = ()    # in-tree plugins of the profiles kexplain left out

    @property
    def notes(self) -> list[str]:
        """One note per plugin left out (`_plugins.NOT_REPRODUCED`): which gate (or the
        configuration) enabled it, and what the explanation does not reproduce."""
        return [_plugins.not_reproduced_note(name, self.kube) for name in self.not_reproduced]

    def admitted_as(self, kube: KubeVersion) -> "SchedulerConfig":
        """This configuration with `kube` (its own minor and gates) as the version its objects were
        admitted as: the API server's admission plugins recognised from the cluster's nodes."""
        if kube == self.kube:
            return self
        return replace(self, kube=kube, profiles=tuple(replace(p, kube=kube) for p in self.profiles))

    def profile_for(self, scheduler_name: str) -> Profile:
        """The profile a pod with this spec.schedulerName is scheduled by (frameworkForPod)."""
        for p in self.profiles:
            if p.scheduler_name == scheduler_name:
                return p
        profiles = ", ".join(go_quote(p.scheduler_name) for p in self.profiles)
        raise ConfigError(f"profile not found for scheduler name {go_quote(scheduler_name)}: the pod's "
                          f"spec.schedulerName is not a profile of the scheduler configuration (profiles: "
                          f"{profiles}); pass a KubeSchedulerConfiguration with a profile for "
                          f"{go_quote(scheduler_name)} with --config")


@dataclass(frozen=True)
class _PluginConfig:
    name: str
    raw: Any
    args: Mapping[str, Any] | None  # decoded typed args; None for plugins without a v1 args kind


@dataclass(frozen=True)
class _RawProfile:
    """A profile after decoding and v1 defaulting, before validation."""

    path: str
    scheduler_name: str | None
    percentage: int | None
    plugins: Mapping[str, PluginSet]
    configs: tuple[_PluginConfig, ...]


def load_config(doc: dict | None, *, source: Source | None = None,
                implements: Callable[[str, str, KubeVersion], bool], known: Callable[[str], bool],
                kube: KubeVersion = DEFAULT_VERSION) -> SchedulerConfig:
    """Decode, default, validate and expand a KubeSchedulerConfiguration (None: all defaults)
    as `kube`'s kube-scheduler does: its feature gates, default plugins and plugin interfaces."""
    gates = kube
    try:
        top, profiles = _decode_config(doc, gates)
    except d.DecodeError as e:
        raise ConfigError(e.message, source=source, field=e.path or None) from None
    dropped: dict[str, None] = {}
    for i, prof in enumerate(profiles):     # plugins of the release kexplain lacks: left out, said
        plugins, names = _plugins.without_not_reproduced(prof.plugins, gates, known)
        if names:
            profiles[i] = replace(prof, plugins=plugins)
            dropped.update(dict.fromkeys(names))
    errs = _validate(top, profiles, gates)
    if errs:
        if len(errs) == 1:
            raise ConfigError(errs[0].body(), source=source, field=errs[0].path)
        raise ConfigError(aggregate(errs), source=source)
    built = []
    first_queue_sort: str | None = None
    for prof in profiles:
        name = prof.scheduler_name or ""
        try:
            built_profile = _build_profile(prof, implements, known, gates)
        except FrameworkError as e:
            raise ConfigError(f"creating profile for scheduler name {name}: {e}", source=source,
                              field=prof.path) from None
        queue_sort = built_profile.plugins["queueSort"][0]
        if first_queue_sort is not None and queue_sort != first_queue_sort:
            raise ConfigError(f"different queue sort plugins for profile {go_quote(name)}: "
                              f"{go_quote(queue_sort)}, first: {go_quote(first_queue_sort)}", source=source)
        first_queue_sort = first_queue_sort or queue_sort
        built.append(built_profile)
    return SchedulerConfig(top["percentageOfNodesToScore"], tuple(built), kube, tuple(dropped))


# --- decoding + v1 defaulting --------------------------------------------------------

def _decode_config(doc: dict | None, gates: KubeVersion) -> tuple[dict[str, Any], list[_RawProfile]]:
    if doc is None:
        doc = {"apiVersion": API_VERSION, "kind": KIND}
    if not isinstance(doc, dict):
        raise d.DecodeError(f"expected a {KIND} object")
    kind, api_version = doc.get("kind"), doc.get("apiVersion")
    if not kind:
        raise d.DecodeError(f"Object 'Kind' is missing (expected kind: {KIND}, apiVersion: {API_VERSION})")
    if api_version != API_VERSION or kind != KIND:
        raise d.DecodeError(f"no kind {go_quote(str(kind))} is registered for version "
                            f"{go_quote(str(api_version or ''))} (kube-scheduler {gates.release} reads "
                            f"kind {KIND}, apiVersion {API_VERSION})")
    top = d.obj(doc, "", _TOP_FIELDS)
    d.obj(top.get("leaderElection"), "leaderElection", _LEADER_FIELDS)
    d.obj(top.get("clientConnection"), "clientConnection", _CLIENT_FIELDS)
    if d.array(top.get("extenders"), "extenders"):
        raise d.DecodeError("scheduler extenders are not supported: kexplain cannot call them", "extenders")
    out = {
        "parallelism": _int(top, "parallelism", "", 16),
        "percentageOfNodesToScore": _int(top, "percentageOfNodesToScore", "", 0),
        "podInitialBackoffSeconds": _int(top, "podInitialBackoffSeconds", "", 1, d.INT64),
        "podMaxBackoffSeconds": _int(top, "podMaxBackoffSeconds", "", 10, d.INT64),
    }
    raw_profiles = d.array(top.get("profiles"), "profiles") or [{}]
    single = len(raw_profiles) == 1
    profiles = [_decode_profile(p, index("profiles", i), single, gates) for i, p in enumerate(raw_profiles)]
    return out, profiles


def _int(doc: Mapping[str, Any], key: str, path: str, default: int | None,
         bounds: tuple[int, int] = d.INT32) -> int | None:
    v = d.integer(doc.get(key), child(path, key), bounds)
    return default if v is None else v


def _decode_profile(raw: object, path: str, single: bool, gates: KubeVersion) -> _RawProfile:
    doc = d.obj(raw, path, _PROFILE_FIELDS)
    name = d.string(doc.get("schedulerName"), child(path, "schedulerName"))
    if name is None and single:
        name = DEFAULT_SCHEDULER_NAME
    plugins = _plugins.merge_plugins(_plugins.decode_plugins(doc.get("plugins"), child(path, "plugins")), gates)
    cp = child(path, "pluginConfig")
    configs = [_decode_plugin_config(item, index(cp, j), gates)
               for j, item in enumerate(d.array(doc.get("pluginConfig"), cp) or [])]
    return _RawProfile(path, name, _int(doc, "percentageOfNodesToScore", path, None),
                       plugins, tuple(configs))


def _decode_plugin_config(raw: object, path: str, gates: KubeVersion) -> _PluginConfig:
    doc = d.obj(raw, path, ("name", "args"))
    name = d.string(doc.get("name"), child(path, "name")) or ""
    if not _args.typed(name, gates):
        return _PluginConfig(name, copy.deepcopy(doc.get("args")), None)
    try:
        args = _args.decode(name, doc.get("args"), gates)
    except d.DecodeError as e:
        where = f"{e.path}: " if e.path else ""
        raise d.DecodeError(f"decoding .{path}: decoding args for plugin {name}: {where}{e.message}") from None
    return _PluginConfig(name, doc.get("args"), args)


# --- ValidateKubeSchedulerConfiguration ----------------------------------------------

def _validate(top: Mapping[str, Any], profiles: list[_RawProfile], gates: KubeVersion) -> list[FieldError]:
    errs: list[FieldError] = []
    if top["parallelism"] <= 0:
        errs.append(invalid("parallelism", top["parallelism"], "should be an integer value greater than zero"))
    seen: dict[str, int] = {}
    for i, prof in enumerate(profiles):
        errs += _validate_profile(prof, gates)
        name = prof.scheduler_name or ""
        if name in seen:
            # Go prints the other *field.Path here ("{}"); the name is more use to a reader.
            errs.append(duplicate(child(prof.path, "schedulerName"), name))
        seen[name] = i
    errs += _validate_common_queue_sort(profiles, gates)
    errs += _percentage(top["percentageOfNodesToScore"], "percentageOfNodesToScore")
    if top["podInitialBackoffSeconds"] <= 0:
        errs.append(invalid("podInitialBackoffSeconds", top["podInitialBackoffSeconds"], "must be greater than 0"))
    if top["podMaxBackoffSeconds"] < top["podInitialBackoffSeconds"]:
        errs.append(invalid("podMaxBackoffSeconds", top["podMaxBackoffSeconds"],
                            "must be greater than or equal to PodInitialBackoffSeconds"))
    return errs


def _percentage(value: int | None, path: str) -> list[FieldError]:
    if value is not None and not 0 <= value <= 100:
        return [invalid(path, value, "not in valid range [0-100]")]
    return []


def _removed(name: str) -> str:
    return (f'was invalid in version "{API_VERSION}" (KubeSchedulerConfiguration is version "{API_VERSION}")'
            if name in _REMOVED_PLUGINS else "")


def _validate_profile(prof: _RawProfile, gates: KubeVersion) -> list[FieldError]:
    errs: list[FieldError] = []
    if not prof.scheduler_name:
        errs.append(required(child(prof.path, "schedulerName")))
    errs += _percentage(prof.percentage, child(prof.path, "percentageOfNodesToScore"))
    for point in EXTENSION_POINTS:
        for i, p in enumerate(prof.plugins[point].enabled):
            if _removed(p.name):
                errs.append(invalid(index(child(prof.path, "plugins", point, "enabled"), i), p.name, _removed(p.name)))
    seen: set[str] = set()
    for j, cfg in enumerate(prof.configs):
        path = index(child(prof.path, "pluginConfig"), j)
        if cfg.name in seen:
            errs.append(duplicate(path, cfg.name))
        seen.add(cfg.name)
        if _removed(cfg.name):
            errs.append(invalid(path, cfg.name, _removed(cfg.name)))
        elif cfg.args is not None and cfg.name not in _args.VALIDATED_AT_INIT_ONLY:
            errs += _args.validate(cfg.name, cfg.args, child(path, "args"), gates)
    return errs


def _validate_common_queue_sort(profiles: list[_RawProfile], gates: KubeVersion) -> list[FieldError]:
    """validateCommonQueueSort: every profile must configure queueSort identically."""
    errs: list[FieldError] = []
    differs = ("must be the same for all profiles" if gates.since(QUEUE_SORT_TEXT_SHORT_SINCE)
               else "queueSort must be the same for all profiles")
    canon = profiles[0].plugins["queueSort"]
    name = canon.enabled[0].name if canon.enabled else ""
    if len(canon.enabled) > 1:
        errs.append(invalid(child(profiles[0].path, "plugins", "queueSort", "Enabled"), len(canon.enabled),
                            "only one queue sort plugin can be enabled"))
    canon_args = next((c.raw for c in profiles[0].configs if name and c.name == name), None)
    for prof in profiles[1:]:
        cur = prof.plugins["queueSort"]
        if _plugins.internal_set_json(cur) != _plugins.internal_set_json(canon):
            errs.append(invalid(child(prof.path, "plugins", "queueSort"), _plugins.internal_set_json(cur), differs))
        for c in prof.configs:
            if c.name == name and json.dumps(c.raw, sort_keys=True) != json.dumps(canon_args, sort_keys=True):
                errs.append(invalid(child(prof.path, "pluginConfig", "args"), c.raw,
                                    "queueSort must be the same for all profiles"))
    return errs


# --- NewFramework --------------------------------------------------------------------

def _build_profile(prof: _RawProfile, implements: Callable[[str, str, KubeVersion], bool], known: Callable[[str], bool],
                   gates: KubeVersion) -> Profile:
    args: dict[str, Mapping[str, Any]] = {}
    for name in _args.ARGS:  # defaults for every typed-args plugin, configured or not
        if _args.typed(name, gates):
            args[name] = _args.decode(name, None, gates)
    for c in prof.configs:
        args[c.name] = c.args if c.args is not None else (c.raw if c.raw is not None else {})
    for name in _plugins.needed(prof.plugins):  # plugin constructors that validate late
        if known(name) and name in _args.VALIDATED_AT_INIT_ONLY:
            _validate_at_init(name, args[name], gates)
    plugins, weights = _plugins.expand(prof.plugins, prof.scheduler_name or "",
                                       lambda name, point: implements(name, point, gates), known)
    return Profile(prof.scheduler_name or "", prof.percentage, plugins, weights, args, gates)


def _validate_at_init(name: str, args: Mapping[str, Any], gates: KubeVersion) -> None:
    errs = _args.validate(name, args, "", gates)
    if errs:
        raise FrameworkError(f'initializing plugin {go_quote(name)}: {aggregate(errs)}')
    strategy = args.get("scoringStrategy") or {}
    if strategy.get("type") == "RequestedToCapacityRatio" and strategy.get("requestedToCapacityRatio") is None:
        # kube-scheduler v1.35.4 dereferences the missing shape and crashes; say why instead.
        raise FrameworkError(f'initializing plugin {go_quote(name)}: scoringStrategy.requestedToCapacityRatio: '
                             f'Required value: the RequestedToCapacityRatio strategy needs a shape')
