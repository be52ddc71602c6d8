"""KubeSchedulerConfiguration loading against kube-scheduler v1.35.4 behaviour (pinned to 1.35 in
`load`; what another minor, or the default, changes is tested with that minor named)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from kexplain.config import EXTENSION_POINTS, Profile, SchedulerConfig, load_config
from kexplain.features import KubeVersion
from kexplain.config._plugins import default_multipoint
from kexplain.errors import ConfigError, Source
from tests.support.extension_points import IN_TREE_EXTENSION_POINTS
from tests.support.paths import DATA, conformance_roots

DATA = DATA / "config"



def implements(name: str, point: str, kube: KubeVersion | None = None) -> bool:
    return point in IN_TREE_EXTENSION_POINTS.get(name, ())


def known(name: str) -> bool:
    return name in IN_TREE_EXTENSION_POINTS


V1_35 = KubeVersion("1.35")


def load(doc: dict | None) -> SchedulerConfig:
    return load_config(doc, implements=implements, known=known, kube=V1_35)


def cfg(*profiles: dict, **top: object) -> dict:
    doc = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration", **top}
    if profiles:
        doc["profiles"] = list(profiles)
    return doc


def profile(**kw: object) -> dict:
    return {"schedulerName": "default-scheduler", **kw}


def error_of(doc: dict) -> str:
    with pytest.raises(ConfigError) as info:
        load(doc)
    return str(info.value)


# --- defaults ------------------------------------------------------------------------

DEFAULT_PLUGINS = {
    "preEnqueue": ("SchedulingGates", "DynamicResources", "DefaultPreemption"),
    "queueSort": ("PrioritySort",),
    "preFilter": ("NodeAffinity", "NodePorts", "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits",
                  "VolumeBinding", "VolumeZone", "PodTopologySpread", "InterPodAffinity", "DynamicResources"),
    "filter": ("NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts",
               "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone",
               "PodTopologySpread", "InterPodAffinity", "DynamicResources"),
    "postFilter": ("DynamicResources", "DefaultPreemption"),
    "preScore": ("TaintToleration", "NodeAffinity", "NodeResourcesFit", "VolumeBinding", "PodTopologySpread",
                 "InterPodAffinity", "NodeResourcesBalancedAllocation"),
    "score": ("TaintToleration", "NodeAffinity", "NodeResourcesFit", "VolumeBinding", "PodTopologySpread",
              "InterPodAffinity", "DynamicResources", "NodeResourcesBalancedAllocation", "ImageLocality"),
    "reserve": ("VolumeBinding", "DynamicResources"),
    "permit": (),
    "preBind": ("VolumeBinding", "DynamicResources"),
    "bind": ("DefaultBinder",),
    "postBind": (),
}

DEFAULT_WEIGHTS = {"TaintToleration": 3, "NodeAffinity": 2, "NodeResourcesFit": 1, "VolumeBinding": 1,
                   "PodTopologySpread": 2, "InterPodAffinity": 2, "DynamicResources": 2,
                   "NodeResourcesBalancedAllocation": 1, "ImageLocality": 1}

DEFAULT_ARGS = {
    "DefaultPreemption": {"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 100},
    "InterPodAffinity": {"hardPodAffinityWeight": 1, "ignorePreferredTermsOfExistingPods": False},
    "NodeAffinity": {"addedAffinity": None},
    "NodeResourcesBalancedAllocation": {"resources": [{"name": "cpu", "weight": 1},
                                                      {"name": "memory", "weight": 1}]},
    "NodeResourcesFit": {"ignoredResources": [], "ignoredResourceGroups": [],
                         "scoringStrategy": {"type": "LeastAllocated",
                                             "resources": [{"name": "cpu", "weight": 1},
                                                           {"name": "memory", "weight": 1}],
                                             "requestedToCapacityRatio": None}},
    "PodTopologySpread": {"defaultConstraints": [], "defaultingType": "System"},
    "VolumeBinding": {"bindTimeoutSeconds": 600, "shape": None},
    "DynamicResources": {"filterTimeout": "10s", "bindingTimeout": None},
}


@pytest.mark.parametrize("doc", [None, cfg(), cfg({})], ids=["no-file", "no-profiles", "empty-profile"])
def test_defaults_give_one_default_profile(doc: dict | None) -> None:
    c = load(doc)
    assert c.percentage_of_nodes_to_score == 0
    assert [p.scheduler_name for p in c.profiles] == ["default-scheduler"]
    assert c.profiles[0].percentage_of_nodes_to_score is None


@pytest.mark.parametrize("point", EXTENSION_POINTS)
def test_default_plugin_order(point: str) -> None:
    assert load(None).profiles[0].plugins[point] == DEFAULT_PLUGINS[point]


def test_default_score_weights() -> None:
    assert dict(load(None).profiles[0].score_weights) == DEFAULT_WEIGHTS


@pytest.mark.parametrize("name", sorted(DEFAULT_ARGS))
def test_default_args(name: str) -> None:
    assert load(None).profiles[0].args[name] == DEFAULT_ARGS[name]


def test_feature_gated_defaults() -> None:
    names = [p.name for p in default_multipoint(KubeVersion("1.35"))]
    assert "NodeDeclaredFeatures" not in names and "GangScheduling" not in names
    assert names.index("DynamicResources") == names.index("DefaultPreemption") - 1
    gated = [p.name for p in default_multipoint(KubeVersion("1.35").with_feature_gates(
        "NodeDeclaredFeatures=true,GangScheduling=true,GenericWorkload=true"))]
    assert gated[-2:] == ["NodeDeclaredFeatures", "GangScheduling"]
    # DRA is beta and off in 1.33: no DynamicResources; from 1.35 it weighs 2 as a Score plugin
    assert "DynamicResources" not in [p.name for p in default_multipoint(KubeVersion("1.33"))]
    weights = {m: {p.name: p.weight for p in default_multipoint(KubeVersion(m))}.get("DynamicResources")
               for m in ("1.34", "1.35", "1.36")}
    assert weights == {"1.34": None, "1.35": 2, "1.36": 2}
    assert "NodeDeclaredFeatures" in [p.name for p in default_multipoint(KubeVersion("1.36"))]


def test_the_default_version_is_1_36() -> None:
    """Without a version, 1.36's defaults: NodeDeclaredFeatures (on by default in 1.36) appended
    after 1.35's plugins, so it runs last at PreFilter and Filter; the weights are 1.35's."""
    default = load_config(None, implements=implements, known=known).profiles[0]
    assert default == load_config(None, implements=implements, known=known, kube=KubeVersion("1.36")).profiles[0]
    for point in EXTENSION_POINTS:
        extra = ("NodeDeclaredFeatures",) if point in ("preFilter", "filter") else ()
        assert default.plugins[point] == DEFAULT_PLUGINS[point] + extra, point
    assert dict(default.score_weights) == DEFAULT_WEIGHTS


def test_profile_for() -> None:
    c = load(cfg(profile(), profile(schedulerName="other")))
    assert c.profile_for("other").scheduler_name == "other"
    with pytest.raises(ConfigError, match='profile not found for scheduler name "nope"'):
        c.profile_for("nope")


def test_profile_dataclasses_are_frozen() -> None:
    p = load(None).profiles[0]
    assert isinstance(p, Profile)
    with pytest.raises(AttributeError):
        p.scheduler_name = "x"  # type: ignore[misc]


# --- merging and multiPoint expansion ---------------------------------------------------

def plugins_of(**plugins: object) -> Profile:
    return load(cfg(profile(plugins=plugins))).profiles[0]


def test_score_star_disabled_uses_only_explicit_weights() -> None:
    p = plugins_of(score={"disabled": [{"name": "*"}],
                          "enabled": [{"name": "PodTopologySpread"}, {"name": "NodeResourcesFit", "weight": 3},
                                      {"name": "TaintToleration", "weight": 5}]})
    assert p.plugins["score"] == ("PodTopologySpread", "NodeResourcesFit", "TaintToleration")
    # A score-point entry without weight is 1, not multiPoint's 2.
    assert dict(p.score_weights) == {"PodTopologySpread": 1, "NodeResourcesFit": 3, "TaintToleration": 5}
    assert p.plugins["preScore"] == DEFAULT_PLUGINS["preScore"]


def test_explicit_point_entry_overrides_and_moves_first() -> None:
    p = plugins_of(score={"enabled": [{"name": "ImageLocality", "weight": 5}, {"name": "NodeAffinity"}]})
    assert p.plugins["score"] == ("ImageLocality", "NodeAffinity", "TaintToleration", "NodeResourcesFit",
                                  "VolumeBinding", "PodTopologySpread", "InterPodAffinity", "DynamicResources",
                                  "NodeResourcesBalancedAllocation")
    assert p.score_weights["ImageLocality"] == 5 and p.score_weights["NodeAffinity"] == 1


def test_point_disable_keeps_other_points() -> None:
    p = plugins_of(filter={"disabled": [{"name": "NodePorts"}]})
    assert "NodePorts" not in p.plugins["filter"] and "NodePorts" in p.plugins["preFilter"]


def test_multipoint_reconfigure_in_place_and_disable_everywhere() -> None:
    p = plugins_of(multiPoint={"enabled": [{"name": "NodeResourcesFit", "weight": 5}],
                               "disabled": [{"name": "TaintToleration"}]})
    assert p.plugins["filter"].index("NodeResourcesFit") == DEFAULT_PLUGINS["filter"].index("NodeResourcesFit") - 1
    assert all("TaintToleration" not in names for names in p.plugins.values())
    assert p.score_weights["NodeResourcesFit"] == 5


def test_multipoint_star_then_custom_list() -> None:
    p = plugins_of(multiPoint={"disabled": [{"name": "*"}],
                               "enabled": [{"name": "PrioritySort"}, {"name": "DefaultBinder"},
                                           {"name": "NodeName"}, {"name": "ImageLocality", "weight": 0}]})
    assert p.plugins["filter"] == ("NodeName",)
    assert p.plugins["preFilter"] == ()
    assert dict(p.score_weights) == {"ImageLocality": 1}


def test_score_weight_beats_multipoint_weight() -> None:
    p = plugins_of(multiPoint={"enabled": [{"name": "TaintToleration", "weight": 7}]},
                   score={"enabled": [{"name": "TaintToleration", "weight": 4}]})
    assert p.score_weights["TaintToleration"] == 4


def test_profile_percentage_and_global() -> None:
    c = load(cfg(profile(percentageOfNodesToScore=30), percentageOfNodesToScore=50))
    assert c.percentage_of_nodes_to_score == 50 and c.profiles[0].percentage_of_nodes_to_score == 30


# --- args ----------------------------------------------------------------------------

def test_args_defaulting_fills_weights_and_keeps_shape_unscaled() -> None:
    doc = yaml.safe_load((DATA / "full.yaml").read_text())
    c = load(doc)
    bp = c.profile_for("bin-packing-scheduler")
    fit = bp.args["NodeResourcesFit"]
    assert fit["scoringStrategy"] == {
        "type": "RequestedToCapacityRatio",
        "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 3}],
        "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 0},
                                               {"utilization": 100, "score": 10}]},
    }
    assert fit["ignoredResourceGroups"] == ["example.com"]
    assert bp.args["PodTopologySpread"]["defaultingType"] == "List"
    assert bp.args["PodTopologySpread"]["defaultConstraints"][0]["maxSkew"] == 3
    assert bp.args["DynamicResources"]["filterTimeout"] == "1m30s"
    assert bp.args["VolumeBinding"]["bindTimeoutSeconds"] == 300
    assert bp.args["InterPodAffinity"]["hardPodAffinityWeight"] == 100
    assert bp.args["NodeAffinity"]["addedAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "pool", "operator": "In", "values": ["batch"]}],
                               "matchFields": []}]}
    assert bp.args["OutOfTreeThing"] == {"foo": 1}
    assert c.profile_for("default-scheduler").args["NodeResourcesFit"] == DEFAULT_ARGS["NodeResourcesFit"]
    assert bp.plugins["score"][0] == "NodeResourcesFit" and bp.score_weights["NodeResourcesFit"] == 5


def test_fit_empty_resources_and_zero_weight_default() -> None:
    c = load(cfg(profile(pluginConfig=[{"name": "NodeResourcesFit", "args": {
        "scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "cpu"}]}}}])))
    assert c.profiles[0].args["NodeResourcesFit"]["scoringStrategy"]["resources"] == [{"name": "cpu", "weight": 1}]
    c = load(cfg(profile(pluginConfig=[{"name": "NodeResourcesFit", "args": {
        "scoringStrategy": {"type": "MostAllocated"}}}])))
    assert c.profiles[0].args["NodeResourcesFit"]["scoringStrategy"]["resources"] == DEFAULT_ARGS[
        "NodeResourcesFit"]["scoringStrategy"]["resources"]


# --- errors --------------------------------------------------------------------------

def pc(name: str, args: dict) -> dict:
    return cfg(profile(pluginConfig=[{"name": name, "args": args}]))


P0 = "profiles[0].pluginConfig[0].args"

ERRORS = {
    "kind-missing": ({"apiVersion": "kubescheduler.config.k8s.io/v1"}, "Object 'Kind' is missing"),
    "old-version": ({"apiVersion": "kubescheduler.config.k8s.io/v1beta3", "kind": "KubeSchedulerConfiguration"},
                    'no kind "KubeSchedulerConfiguration" is registered for version '
                    '"kubescheduler.config.k8s.io/v1beta3"'),
    "unknown-top-field": (cfg(pluginConfigs=[]), 'strict decoding error: unknown field "pluginConfigs"'),
    "unknown-profile-field": (cfg(profile(plugin={})), 'unknown field "profiles[0].plugin"'),
    "unknown-args-field": (pc("NodeResourcesFit", {"scoringStrategy": {"typo": 1}}),
                           "decoding .profiles[0].pluginConfig[0]: decoding args for plugin NodeResourcesFit: "
                           'strict decoding error: unknown field "scoringStrategy.typo"'),
    "wrong-args-kind": (pc("NodeAffinity", {"kind": "InterPodAffinityArgs"}),
                        "args for plugin NodeAffinity were not of type NodeAffinityArgs.kubescheduler.config.k8s.io, "
                        "got InterPodAffinityArgs.kubescheduler.config.k8s.io"),
    "type-error": (cfg(profile(percentageOfNodesToScore="ten")),
                   'profiles[0].percentageOfNodesToScore: expected an integer, got string "ten"'),
    "int32-overflow": (cfg(parallelism=2**31), "parallelism: number 2147483648 overflows int32"),
    "bad-duration": (pc("DynamicResources", {"filterTimeout": "10 seconds"}),
                     'filterTimeout: time: invalid duration "10 seconds"'),
    "extenders": (cfg(extenders=[{"urlPrefix": "http://x"}]), "extenders: scheduler extenders are not supported"),
    "global-percentage": (cfg(percentageOfNodesToScore=101),
                          "percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]"),
    "profile-percentage": (cfg(profile(percentageOfNodesToScore=-1)),
                           "profiles[0].percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]"),
    "parallelism": (cfg(parallelism=0), "parallelism: Invalid value: 0: should be an integer value greater than zero"),
    "backoff": (cfg(podInitialBackoffSeconds=5, podMaxBackoffSeconds=2),
                "podMaxBackoffSeconds: Invalid value: 2: must be greater than or equal to PodInitialBackoffSeconds"),
    "duplicate-name": (cfg(profile(), profile()),
                       'profiles[1].schedulerName: Duplicate value: "default-scheduler"'),
    "missing-names": (cfg({}, {}),
                      "[profiles[0].schedulerName: Required value, profiles[1].schedulerName: Required value, "
                      'profiles[1].schedulerName: Duplicate value: ""]'),
    "repeated-plugin-config": (cfg(profile(pluginConfig=[{"name": "NodeAffinity"}, {"name": "NodeAffinity"}])),
                               'profiles[0].pluginConfig[1]: Duplicate value: "NodeAffinity"'),
    "removed-plugin": (cfg(profile(plugins={"filter": {"enabled": [{"name": "EBSLimits"}]}})),
                       'profiles[0].plugins.filter.enabled[0]: Invalid value: "EBSLimits": was invalid in version '
                       '"kubescheduler.config.k8s.io/v1" (KubeSchedulerConfiguration is version '
                       '"kubescheduler.config.k8s.io/v1")'),
    "queue-sort-differs": (cfg(profile(), profile(schedulerName="b", plugins={
        "queueSort": {"enabled": [{"name": "PrioritySort"}], "disabled": [{"name": "*"}]}})),
        'profiles[1].plugins.queueSort: Invalid value: {"Enabled":[{"Name":"PrioritySort","Weight":0}],'
        '"Disabled":[{"Name":"*","Weight":0}]}: must be the same for all profiles'),
    # framework (NewFramework) errors
    "unknown-plugin": (cfg(profile(plugins={"score": {"enabled": [{"name": "Foo"}]}})),
                       'profiles[0]: creating profile for scheduler name default-scheduler: '
                       'ScorePlugin "Foo" does not exist'),
    "unknown-multipoint-plugin": (cfg(profile(plugins={"multiPoint": {"enabled": [{"name": "Foo"}]}})),
                                  'PreFilterPlugin "Foo" does not exist'),
    "not-implemented": (cfg(profile(plugins={"filter": {"enabled": [{"name": "ImageLocality"}]}})),
                        'plugin "ImageLocality" does not extend FilterPlugin plugin'),
    "double-point": (cfg(profile(plugins={"filter": {"enabled": [{"name": "NodeName"}, {"name": "NodeName"}]}})),
                     'plugin "NodeName" already registered as "FilterPlugin"'),
    "double-multipoint": (cfg(profile(plugins={"multiPoint": {"enabled": [{"name": "NodeName"},
                                                                         {"name": "NodeName"}]}})),
                          'plugin "NodeName" already registered as "FilterPlugin"'),
    "no-queue-sort": (cfg(profile(plugins={"queueSort": {"disabled": [{"name": "*"}]}})),
                      'only one queue sort plugin required for profile with scheduler name "default-scheduler", '
                      "but got 0"),
    "no-bind": (cfg(profile(plugins={"bind": {"disabled": [{"name": "*"}]}})),
                'at least one bind plugin is needed for profile with scheduler name "default-scheduler"'),
    # plugin args (validation_pluginargs.go)
    "dp-range": (pc("DefaultPreemption", {"minCandidateNodesPercentage": 101}),
                 f"{P0}.minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]"),
    "dp-both-zero": (pc("DefaultPreemption", {"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0}),
                     f"[{P0}.minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
                     f"minCandidateNodesAbsolute, {P0}.minCandidateNodesAbsolute: Invalid value: 0: cannot be zero "
                     "at the same time as minCandidateNodesPercentage]"),
    "dp-absolute": (pc("DefaultPreemption", {"minCandidateNodesAbsolute": -1}),
                    f"{P0}.minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)"),
    "ipa-weight": (pc("InterPodAffinity", {"hardPodAffinityWeight": 101}),
                   f"{P0}.hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]"),
    "ba-weight": (pc("NodeResourcesBalancedAllocation", {"resources": [{"name": "cpu", "weight": 2}]}),
                  f"{P0}.resources[0].weight: Invalid value: 2: must be 1"),
    "ba-duplicate": (pc("NodeResourcesBalancedAllocation", {"resources": [{"name": "cpu"}, {"name": "cpu"}]}),
                     f'{P0}.resources[1].name: Duplicate value: "cpu"'),
    "pts-system-with-constraints": (
        pc("PodTopologySpread", {"defaultConstraints": [
            {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]}),
        f'{P0}.defaultingType: Invalid value: "System": when .defaultConstraints are not empty'),
    "pts-type": (pc("PodTopologySpread", {"defaultingType": "Auto"}),
                 f'{P0}.defaultingType: Unsupported value: "Auto": supported values: "System", "List"'),
    "pts-constraint": (
        pc("PodTopologySpread", {"defaultingType": "List", "defaultConstraints": [
            {"maxSkew": 0, "topologyKey": "", "whenUnsatisfiable": "Maybe", "labelSelector": {}}]}),
        f"[{P0}.defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf), "
        f"{P0}.defaultConstraints[0].topologyKey: Required value: can not be empty, "
        f'{P0}.defaultConstraints[0].whenUnsatisfiable: Unsupported value: "Maybe": supported values: '
        '"DoNotSchedule", "ScheduleAnyway", '
        f"{P0}.defaultConstraints[0].labelSelector: Forbidden: constraint must not define a selector, "
        "as they deduced for each pod]"),
    "pts-repeat": (
        pc("PodTopologySpread", {"defaultingType": "List", "defaultConstraints": [
            {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"},
            {"maxSkew": 2, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]}),
        f'{P0}.defaultConstraints[1]: Duplicate value: "{{zone, DoNotSchedule}}"'),
    "pts-topology-key": (
        pc("PodTopologySpread", {"defaultingType": "List", "defaultConstraints": [
            {"maxSkew": 1, "topologyKey": "bad key", "whenUnsatisfiable": "DoNotSchedule"}]}),
        f"{P0}.defaultConstraints[0].topologyKey: Invalid value: \"bad key\": name part must consist of "
        "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
        "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
    "na-operator": (
        pc("NodeAffinity", {"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "Is", "values": ["b"]}]}]}}}),
        f"{P0}.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
        '.matchExpressions[0].operator: Unsupported value: "Is": supported values: "In", "NotIn", "Exists", '
        '"DoesNotExist", "Gt", "Lt"'),
    "na-empty-in": (
        pc("NodeAffinity", {"addedAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 1, "preference": {"matchExpressions": [{"key": "a", "operator": "In"}]}}]}}),
        f"{P0}.addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].matchExpressions[0].values: "
        "Invalid value: null: for 'in', 'notin' operators, values set can't be empty"),
    "na-fields": (
        pc("NodeAffinity", {"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In",
                                                    "values": ["a", "b"]}]}]}}}),
        f"{P0}.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
        '.matchFields[0].values: Invalid value: ["a","b"]: must have one element'),
    "vb-timeout": (pc("VolumeBinding", {"bindTimeoutSeconds": -1}),
                   f"{P0}.bindTimeoutSeconds: Invalid value: -1: invalid BindTimeoutSeconds, "
                   "should not be a negative value"),
    "vb-shape-gated": (pc("VolumeBinding", {"shape": [{"utilization": 0, "score": 10}]}),
                       f'{P0}.shape: Invalid value: [{{"Utilization":0,"Score":10}}]: unexpected field `shape`, '
                       "remove it or turn on the feature gate StorageCapacityScoring"),
    "dra-filter-timeout": (pc("DynamicResources", {"filterTimeout": "-90s"}),
                           f'{P0}.filterTimeout: Invalid value: "-1m30s": must be zero or positive'),
    "dra-binding-timeout": (pc("DynamicResources", {"bindingTimeout": "5m"}),
                            f"{P0}.bindingTimeout: Forbidden: DRADeviceBindingConditions or "
                            "DRAResourceClaimDeviceStatus feature gate is disabled"),
    # NodeResourcesFit args are only validated by the plugin's constructor (nil path).
    "fit-weight": (pc("NodeResourcesFit", {"scoringStrategy": {"type": "LeastAllocated",
                                                               "resources": [{"name": "cpu", "weight": 101}]}}),
                   "profiles[0]: creating profile for scheduler name default-scheduler: initializing plugin "
                   '"NodeResourcesFit": scoringStrategy.resources[0].weight: Invalid value: 101: '
                   "resource weight of cpu not in valid range (0, 100]"),
    "fit-type": (pc("NodeResourcesFit", {"scoringStrategy": {"type": "Spread"}}),
                 'scoringStrategy.type: Unsupported value: "Spread": supported values: "LeastAllocated", '
                 '"MostAllocated", "RequestedToCapacityRatio"'),
    "fit-shape": (pc("NodeResourcesFit", {"scoringStrategy": {"type": "RequestedToCapacityRatio",
                                                              "requestedToCapacityRatio": {"shape": [
                                                                  {"utilization": 50, "score": 11},
                                                                  {"utilization": 40, "score": 1}]}}}),
                  "[scoringStrategy.shape[1].utilization: Invalid value: 40: values must be sorted in increasing "
                  "order, scoringStrategy.shape[0].score: Invalid value: 11: not in valid range [0, 10]]"),
    "fit-rtcr-without-shape": (pc("NodeResourcesFit", {"scoringStrategy": {"type": "RequestedToCapacityRatio"}}),
                               "scoringStrategy.requestedToCapacityRatio: Required value"),
    "fit-group": (pc("NodeResourcesFit", {"ignoredResourceGroups": ["example.com/gpu"]}),
                  "ignoredResourceGroups[0]: Invalid value: \"example.com/gpu\": resource group name can't "
                  "contain '/'"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_error_messages(case: str) -> None:
    doc, expected = ERRORS[case]
    assert expected in error_of(doc)


def test_error_carries_source_and_field() -> None:
    with pytest.raises(ConfigError) as info:
        load_config(cfg(percentageOfNodesToScore=101), source=Source("sched.yaml"),
                    implements=implements, known=known, kube=V1_35)
    err = info.value
    assert err.field == "percentageOfNodesToScore"
    assert str(err) == "sched.yaml: percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]"


def test_fit_args_not_validated_when_plugin_disabled() -> None:
    doc = pc("NodeResourcesFit", {"scoringStrategy": {"resources": [{"name": "cpu", "weight": 500}]}})
    doc["profiles"][0]["plugins"] = {"multiPoint": {"disabled": [{"name": "NodeResourcesFit"}]}}
    assert "NodeResourcesFit" not in load(doc).profiles[0].plugins["filter"]


def test_integral_float_accepted_bool_rejected() -> None:
    assert load(cfg(percentageOfNodesToScore=10.0)).percentage_of_nodes_to_score == 10
    assert "expected an integer, got bool true" in error_of(cfg(percentageOfNodesToScore=True))


# --- conformance cross-check ---------------------------------------------------------

def _conformance_cases() -> list[Path]:
    """Cases with a scheduler configuration: the bundled ones, and the shared ones when present."""
    return [p.parent for root in conformance_roots() for p in sorted(root.glob("*/scheduler-config.yaml"))]


def _is_subsequence(sub: list[str], seq: tuple[str, ...]) -> bool:
    it = iter(seq)
    return all(x in it for x in sub)


@pytest.mark.parametrize("case", _conformance_cases(), ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_conformance_plugin_order_and_weights(case: Path) -> None:
    raw = json.loads((case / "expected.json").read_text())
    c = load(yaml.safe_load((case / "scheduler-config.yaml").read_text()))
    # A sequence case holds a SchedulingTraceList: every item was scheduled by its profile.
    for expected in raw["items"] if raw.get("kind") == "SchedulingTraceList" else [raw]:
        _check_profile(c, expected)


def _check_profile(c, expected: dict) -> None:
    prof = c.profile_for(expected["profile"])
    pre_enqueue = [e["plugin"] for e in expected["preEnqueue"] or []]
    assert tuple(pre_enqueue) == prof.plugins["preEnqueue"][:len(pre_enqueue)]
    pre_filter = [e["plugin"] for e in expected["preFilter"] or []]
    # PreFilter runs in order until a plugin rejects: the trace is a prefix of the list.
    assert tuple(pre_filter) == prof.plugins["preFilter"][:len(pre_filter)]
    for node in (expected.get("filterAll") or {}).values():
        assert tuple(node) == prof.plugins["filter"]
    for node in (expected.get("score") or {}).values():
        assert _is_subsequence(list(node["plugins"]), prof.plugins["score"])
        for name, s in node["plugins"].items():
            assert prof.score_weights[name] == s["weight"], name


def test_conformance_default_cases_match_defaults() -> None:
    """Cases without a config file exercise the no-file defaults (bundled, then shared ones)."""
    prof = load(None).profiles[0]
    checked = 0
    for exp_path in [p for root in conformance_roots() for p in sorted(root.glob("*/expected.json"))][:400]:
        if (exp_path.parent / "scheduler-config.yaml").exists():
            continue
        raw = json.loads(exp_path.read_text())
        for expected in raw["items"] if raw.get("kind") == "SchedulingTraceList" else [raw]:
            pre_filter = tuple(e["plugin"] for e in expected.get("preFilter") or [])
            assert pre_filter == prof.plugins["preFilter"][:len(pre_filter)], exp_path.parent.name
            for node in (expected.get("score") or {}).values():
                for name, s in node["plugins"].items():
                    assert prof.score_weights[name] == s["weight"]
            checked += 1
    assert checked


@pytest.mark.parametrize("name, quoted", [
    ("a\u200bb", '"a\\u200bb"'),     # zero-width space: not printable to Go, escaped
    ("a\x01b", '"a\\x01b"'),         # control characters: \xNN, not JSON's \u0001
    ("a\x7fb", '"a\\x7fb"'),         # DEL: escaped (JSON keeps it raw)
    ("a\ab", '"a\\ab"'),             # Go's one-letter escapes
    ("é\u2028", '"é\\u2028"'),       # printable non-ASCII kept, a line separator escaped
])
def test_quoted_values_are_go_exact(name: str, quoted: str) -> None:
    """A config error quotes strings with Go's %q (strconv.Quote), byte for byte, as kube-scheduler prints them."""
    with pytest.raises(ConfigError) as info:
        load(cfg(profile(schedulerName=name), profile(schedulerName=name)))
    assert info.value.message == f"Duplicate value: {quoted}"
    with pytest.raises(ConfigError) as info:
        load({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": name})
    assert info.value.message.startswith(f"no kind {quoted} is registered for version")


# --- texts and args kinds that changed in 1.34 -----------------------------------------

def error_at(minor: str, doc: dict, gates: str | None = None) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(doc, implements=implements, known=known, kube=KubeVersion(minor).with_feature_gates(gates))
    return str(info.value)


QUEUE_SORT_DIFFERS = cfg(profile(), profile(schedulerName="b", plugins={
    "queueSort": {"enabled": [{"name": "PrioritySort"}], "disabled": [{"name": "*"}]}}))


@pytest.mark.parametrize("minor,text", [("1.33", "queueSort must be the same for all profiles"),
                                        ("1.34", "must be the same for all profiles")])
def test_queue_sort_differs_text_per_minor(minor: str, text: str) -> None:
    assert error_at(minor, QUEUE_SORT_DIFFERS) == (
        'profiles[1].plugins.queueSort: Invalid value: {"Enabled":[{"Name":"PrioritySort","Weight":0}],'
        f'"Disabled":[{{"Name":"*","Weight":0}}]}}: {text}')


UNSORTED_SHAPE = [{"utilization": 50, "score": 1}, {"utilization": 40, "score": 2}]


@pytest.mark.parametrize("minor,text", [("1.33", "utilization values must be sorted in increasing order"),
                                        ("1.34", "values must be sorted in increasing order"),
                                        ("1.35", "values must be sorted in increasing order")])
def test_unsorted_shape_text_per_minor(minor: str, text: str) -> None:
    fit = pc("NodeResourcesFit", {"scoringStrategy": {"type": "RequestedToCapacityRatio",
                                                      "requestedToCapacityRatio": {"shape": UNSORTED_SHAPE}}})
    assert error_at(minor, fit) == (
        'profiles[0]: creating profile for scheduler name default-scheduler: initializing plugin "NodeResourcesFit": '
        f"scoringStrategy.shape[1].utilization: Invalid value: 40: {text}")
    binding = pc("VolumeBinding", {"shape": UNSORTED_SHAPE})
    assert error_at(minor, binding, "StorageCapacityScoring=true") == (
        f"{P0}.shape[1].utilization: Invalid value: 40: {text}")


def test_dynamic_resources_args_are_an_unknown_kind_before_1_34() -> None:
    """1.33 registers no DynamicResourcesArgs: the args stay raw, accepted and unchecked."""
    doc = pc("DynamicResources", {"filterTimeout": "-1s", "anything": True})
    c = load_config(doc, implements=implements, known=known, kube=KubeVersion("1.33"))
    assert c.profiles[0].args["DynamicResources"] == {"filterTimeout": "-1s", "anything": True}
    assert error_at("1.34", doc) == ('decoding .profiles[0].pluginConfig[0]: decoding args for plugin '
                                     'DynamicResources: strict decoding error: unknown field "anything"')
    assert error_at("1.34", pc("DynamicResources", {"filterTimeout": "-1s"})) == (
        f"{P0}.filterTimeout: Invalid value: \"-1s\": must be zero or positive")
    assert "DynamicResources" not in load_config(None, implements=implements, known=known,
                                                 kube=KubeVersion("1.33")).profiles[0].args
