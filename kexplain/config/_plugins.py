"""Plugin sets: v1 defaults, a profile's `plugins` merged into them, and NewFramework's
expandMultiPointPlugins into per-extension-point run order, the order kube-scheduler calls plugins in
(which decides the first failing Filter plugin and every trace).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from kexplain.config import _decode as d
from kexplain.features import KubeVersion
from kexplain.apimachinery.fielderrors import child, go_quote, index
from kexplain.errors import FrameworkError

EXTENSION_POINTS = ("preEnqueue", "queueSort", "preFilter", "filter", "postFilter", "preScore",
                    "score", "reserve", "permit", "preBind", "bind", "postBind")
MULTI_POINT = "multiPoint"
V1_PLUGIN_FIELDS = EXTENSION_POINTS + (MULTI_POINT,)
# frameworkImpl.getExtensionPoints: the order lists are built, checked and expanded in,
# which decides which error a broken profile reports first.
FRAMEWORK_ORDER = ("preFilter", "filter", "postFilter", "reserve", "preScore", "score",
                   "preBind", "bind", "postBind", "permit", "preEnqueue", "queueSort")


def interface(point: str) -> str:
    """The Go interface name kube-scheduler's messages use, e.g. `ScorePlugin`."""
    return point[0].upper() + point[1:] + "Plugin"


@dataclass(frozen=True)
class PluginRef:
    name: str
    weight: int | None = None  # None: unset (Go nil)


@dataclass(frozen=True)
class PluginSet:
    enabled: tuple[PluginRef, ...] = ()
    disabled: tuple[str, ...] = ()


# getDefaultPlugins: the same list in every supported minor.
_DEFAULT_PLUGINS = (("SchedulingGates", None), ("PrioritySort", None), ("NodeUnschedulable", None),
                    ("NodeName", None), ("TaintToleration", 3), ("NodeAffinity", 2), ("NodePorts", None),
                    ("NodeResourcesFit", 1), ("VolumeRestrictions", None), ("NodeVolumeLimits", None),
                    ("VolumeBinding", None), ("VolumeZone", None), ("PodTopologySpread", 2),
                    ("InterPodAffinity", 2), ("DefaultPreemption", None),
                    ("NodeResourcesBalancedAllocation", 1), ("ImageLocality", 1), ("DefaultBinder", None))

# applyFeatureGates, in its order: (gate, plugin, weight per minor from which it holds, inserted
# before this plugin or appended). DynamicResources comes before DefaultPreemption: freeing an
# idle claim beats evicting a working pod; it is a Score plugin with weight 2 from 1.35 on.
_GATED_PLUGINS = (
    ("NodeDeclaredFeatures", "NodeDeclaredFeatures", (), None),
    ("DynamicResourceAllocation", "DynamicResources", (("1.35", 2),), "DefaultPreemption"),
    ("GangScheduling", "GangScheduling", (), None),
    ("TopologyAwareWorkloadScheduling", "TopologyPlacementGenerator", (), None),          # 1.36
    ("TopologyAwareWorkloadScheduling", "PodGroupPodsCount", (("1.36", 1),), None),       # 1.36
)

# In-tree plugins of kube-scheduler's registry that kexplain does not reproduce: name -> (the
# first minor whose registry has it, the gate that adds it to the default plugins, what it
# does that the explanation then leaves out). A profile that has one (by its gate, or named in
# the configuration) is not refused as kube-scheduler would refuse an unknown name: the plugin
# is left out, and `SchedulerConfig.notes` says so.
NOT_REPRODUCED: dict[str, tuple[str, str, str]] = {
    "GangScheduling": (
        "1.35", "GangScheduling",
        "a pod whose pod group has a gang policy waits until minCount pods of its group exist (PreEnqueue) "
        "and have a node (Permit), then all are bound together; kexplain schedules each such pod on its own"),
    "TopologyPlacementGenerator": (
        "1.36", "TopologyAwareWorkloadScheduling",
        "a pod group's candidate placements follow its topology constraints; kexplain places each pod "
        "on its own"),
    "PodGroupPodsCount": (
        "1.36", "TopologyAwareWorkloadScheduling",
        "a pod group's placements are scored by how many of its pods they take; kexplain scores nodes "
        "per pod only"),
}


def not_reproduced(name: str, kube: KubeVersion, known: Callable[[str], bool]) -> bool:
    """Whether `name` is an in-tree plugin of `kube`'s kube-scheduler that kexplain lacks."""
    spec = NOT_REPRODUCED.get(name)
    return spec is not None and kube.since(spec[0]) and not known(name)


def without_not_reproduced(plugins: Mapping[str, PluginSet], kube: KubeVersion,
                           known: Callable[[str], bool]) -> tuple[dict[str, PluginSet], tuple[str, ...]]:
    """The merged plugin sets less the plugins kexplain does not reproduce (`NOT_REPRODUCED`),
    and the names left out, in first-seen order."""
    dropped: dict[str, None] = {}
    out: dict[str, PluginSet] = {}
    for point, ps in plugins.items():
        kept = []
        for p in ps.enabled:
            if not_reproduced(p.name, kube, known):
                dropped.setdefault(p.name)
            else:
                kept.append(p)
        out[point] = PluginSet(tuple(kept), ps.disabled) if len(kept) != len(ps.enabled) else ps
    return out, tuple(dropped)


def not_reproduced_note(name: str, kube: KubeVersion) -> str:
    """What is said of a plugin left out (`without_not_reproduced`): the gate that added it, or
    the configuration that named it, and what the explanation does not reproduce."""
    _, gate, what = NOT_REPRODUCED[name]
    how = (f"feature gate {gate} is on: kube-scheduler {kube.release} runs its {name} plugin"
           if kube.enabled(gate) else f"the scheduler configuration enables plugin {name}")
    return f"{how}, which kexplain does not reproduce ({what}); the pods are explained without it"


def _weight(weights: tuple[tuple[str, int], ...], kube: KubeVersion) -> int | None:
    return next((w for since, w in reversed(weights) if kube.since(since)), None)


def default_multipoint(kube: KubeVersion) -> tuple[PluginRef, ...]:
    """getDefaultPlugins + applyFeatureGates of `kube`'s minor, with its gates."""
    plugins = [PluginRef(name, weight) for name, weight in _DEFAULT_PLUGINS]
    for gate, name, weights, before in _GATED_PLUGINS:
        if not kube.enabled(gate):
            continue
        ref = PluginRef(name, _weight(weights, kube))
        at = next((i for i, p in enumerate(plugins) if p.name == before), len(plugins))
        plugins.insert(at, ref)
    return tuple(plugins)


def decode_plugins(raw: object, path: str) -> dict[str, PluginSet] | None:
    """A profile's v1 `plugins` (None when absent, which keeps the defaults untouched)."""
    if raw is None:
        return None
    doc = d.obj(raw, path, V1_PLUGIN_FIELDS)
    out = {}
    for point in V1_PLUGIN_FIELDS:
        pp = child(path, point)
        ps = d.obj(doc.get(point), pp, ("enabled", "disabled"))
        out[point] = PluginSet(_refs(ps.get("enabled"), child(pp, "enabled")),
                               tuple(r.name for r in _refs(ps.get("disabled"), child(pp, "disabled"))))
    return out


def _refs(raw: object, path: str) -> tuple[PluginRef, ...]:
    refs = []
    for i, item in enumerate(d.array(raw, path) or []):
        p = index(path, i)
        doc = d.obj(item, p, ("name", "weight"))
        refs.append(PluginRef(d.string(doc.get("name"), child(p, "name")) or "",
                              d.integer(doc.get("weight"), child(p, "weight"))))
    return tuple(refs)


def merge_set(default: PluginSet, custom: PluginSet) -> PluginSet:
    """mergePluginSet: custom re-configurations replace defaults in place, the rest append."""
    disabled = custom.disabled + default.disabled
    custom_index = {p.name: i for i, p in enumerate(custom.enabled)}
    replaced: set[int] = set()
    enabled: list[PluginRef] = []
    if "*" not in disabled:
        for p in default.enabled:
            if p.name in disabled:
                continue
            if p.name in custom_index:
                replaced.add(custom_index[p.name])
                p = custom.enabled[custom_index[p.name]]
            enabled.append(p)
    enabled += [p for i, p in enumerate(custom.enabled) if i not in replaced]
    return PluginSet(tuple(enabled), disabled)


def merge_plugins(custom: Mapping[str, PluginSet] | None, gates: KubeVersion) -> dict[str, PluginSet]:
    """mergePlugins(getDefaultPlugins(), custom): every key of V1_PLUGIN_FIELDS present."""
    defaults = {p: PluginSet() for p in V1_PLUGIN_FIELDS}
    defaults[MULTI_POINT] = PluginSet(default_multipoint(gates))
    if custom is None:
        return defaults
    return {p: merge_set(defaults[p], custom.get(p, PluginSet())) for p in V1_PLUGIN_FIELDS}


def needed(plugins: Mapping[str, PluginSet]) -> list[str]:
    """pluginsNeeded: every name enabled anywhere (multiPoint included), first-seen order."""
    seen: dict[str, None] = {}
    for point in FRAMEWORK_ORDER + (MULTI_POINT,):
        for p in plugins[point].enabled:
            seen.setdefault(p.name)
    return list(seen)


Implements = Callable[[str, str], bool]
Known = Callable[[str], bool]


def expand(plugins: Mapping[str, PluginSet], scheduler_name: str, implements: Implements,
           known: Known) -> tuple[dict[str, tuple[str, ...]], dict[str, int]]:
    """Per-point run order and score weights, as NewFramework builds them (FrameworkError: kube-scheduler's
    first message)."""
    lists: dict[str, list[str]] = {}
    for point in FRAMEWORK_ORDER:  # updatePluginList
        names: list[str] = []
        for p in plugins[point].enabled:
            if not known(p.name):
                raise FrameworkError(f'{interface(point)} {go_quote(p.name)} does not exist')
            if not implements(p.name, point):
                raise FrameworkError(f'plugin {go_quote(p.name)} does not extend {interface(point)} plugin')
            if p.name in names:
                raise FrameworkError(f'plugin {go_quote(p.name)} already registered as {go_quote(interface(point))}')
            names.append(p.name)
        lists[point] = names
    if plugins[MULTI_POINT].enabled:
        for point in FRAMEWORK_ORDER:
            _expand_point(plugins, point, lists, implements, known)
    if len(lists["queueSort"]) != 1:
        raise FrameworkError(f'only one queue sort plugin required for profile with scheduler name '
                             f'{go_quote(scheduler_name)}, but got {len(lists["queueSort"])}')
    if not lists["bind"]:
        raise FrameworkError(f'at least one bind plugin is needed for profile with scheduler name '
                             f'{go_quote(scheduler_name)}')
    weights = _score_weights(plugins, implements, known)
    ordered = {point: tuple(lists[point]) for point in EXTENSION_POINTS}
    return ordered, {name: weights[name] for name in ordered["score"]}


def _expand_point(plugins: Mapping[str, PluginSet], point: str, lists: dict[str, list[str]],
                  implements: Implements, known: Known) -> None:
    """expandMultiPointPlugins for one point: overrides, then multiPoint, then the rest."""
    disabled = set(plugins[point].disabled)
    if "*" in disabled:
        return
    enabled = lists[point]
    overrides: set[str] = set()
    multi: list[str] = []
    for p in plugins[MULTI_POINT].enabled:
        if not known(p.name):
            raise FrameworkError(f'{interface(point)} {go_quote(p.name)} does not exist')
        if not implements(p.name, point) or p.name in disabled:
            continue
        if p.name in enabled:
            overrides.add(p.name)  # the specific extension point's setting wins
            continue
        if p.name in multi:
            raise FrameworkError(f'plugin {go_quote(p.name)} already registered as {go_quote(interface(point))}')
        multi.append(p.name)
    lists[point] = ([n for n in enabled if n in overrides] + multi
                    + [n for n in enabled if n not in overrides])


def _score_weights(plugins: Mapping[str, PluginSet], implements: Implements, known: Known) -> dict[str, int]:
    """getScoreWeights: a score-point weight beats multiPoint's; unset or 0 means 1."""
    weights: dict[str, int] = {}
    for p in plugins["score"].enabled + plugins[MULTI_POINT].enabled:
        if not known(p.name) or not implements(p.name, "score") or p.name in weights:
            continue
        weights[p.name] = p.weight or 1
    return weights


def internal_set_json(ps: PluginSet) -> dict[str, Any]:
    """An internal config.PluginSet as Go's json.Marshal prints it in validation messages."""
    return {"Enabled": [{"Name": p.name, "Weight": p.weight or 0} for p in ps.enabled] or None,
            "Disabled": [{"Name": n, "Weight": 0} for n in ps.disabled] or None}
