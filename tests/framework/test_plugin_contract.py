"""The plugin contract: every registered plugin declares exactly the extension points
kube-scheduler's plugin asserts (tests/config/test_config.py's table, read from v1.35.4's sources),
implements every method of the interfaces it declares, and declares every interface whose
methods it has; the framework refuses a plugin listed at a point it does not declare."""
from __future__ import annotations

import pytest

from kexplain.config import EXTENSION_POINTS, Profile
from kexplain.errors import FrameworkError
from kexplain.framework.cycle_state import CycleState
from kexplain.framework.interface import (INTERFACES, OPTIONAL, Explainer, ExtensionPoint, FilterPlugin, Plugin,
                                          PreEnqueuePlugin, ScoreExtensions, ScorePlugin, check_plugin)
from kexplain.framework.runtime import Framework
from kexplain.framework.status import SUCCESS, Status
from kexplain.model.snapshot import Snapshot
from kexplain.plugins import MODULES, implements, names, plugin_class, registry
from kexplain.plugins.default_preemption import DefaultPreemption
from tests.support.extension_points import IN_TREE_EXTENSION_POINTS

REGISTERED = sorted(MODULES)


def _methods(interface: type[Plugin]) -> set[str]:
    return {n for n, v in vars(interface).items() if callable(v) and not n.startswith("_")}


def test_names_are_the_registry():
    constants = {v for k, v in vars(names).items() if k.isupper() and isinstance(v, str)}
    assert constants == set(MODULES)
    assert {cls.name for cls in registry().values()} == constants


@pytest.mark.parametrize("name", REGISTERED)
def test_declared_points_are_kube_schedulers(name):
    cls = plugin_class(name)
    assert cls.name == name
    assert cls.extension_points == set(IN_TREE_EXTENSION_POINTS[name])
    for point in ExtensionPoint:
        assert implements(name, point.value) == (point.value in IN_TREE_EXTENSION_POINTS[name])


@pytest.mark.parametrize("name", REGISTERED)
def test_declared_interfaces_are_implemented_and_implemented_ones_declared(name):
    cls = plugin_class(name)
    assert not cls.__abstractmethods__
    for interface in (*INTERFACES.values(), *OPTIONAL):
        declared = issubclass(cls, interface)
        for method in _methods(interface):
            assert declared or not hasattr(cls, method), f"{name} has {method}, not {interface.__name__}"
    for interface, points in OPTIONAL.items():
        assert not issubclass(cls, interface) or points & cls.extension_points, (name, interface.__name__)


def test_extension_points_are_the_configurations_names():
    assert tuple(p.value for p in ExtensionPoint) == EXTENSION_POINTS
    assert set(INTERFACES) == set(ExtensionPoint)
    assert {p: cls.extension_points for p, cls in INTERFACES.items()} == {p: {p} for p in ExtensionPoint}


# --- check_plugin refuses what the registry must not hand out -------------------------------------

class _Undeclared(FilterPlugin):
    name = "Undeclared"

    def filter(self, state, pod, node_info) -> Status:
        return SUCCESS

    def score(self, state, pod, node_info) -> int:
        return 0


class _Unimplemented(FilterPlugin, ScorePlugin):
    name = "Unimplemented"

    def filter(self, state, pod, node_info) -> Status:
        return SUCCESS


class _NormalizesWithoutScore(FilterPlugin, ScoreExtensions):
    name = "NormalizesWithoutScore"

    def filter(self, state, pod, node_info) -> Status:
        return SUCCESS

    def normalize_score(self, state, pod, scores) -> Status:
        return SUCCESS


class _ExplainsQueueing(PreEnqueuePlugin, Explainer):
    name = "ExplainsQueueing"

    def pre_enqueue(self, pod) -> Status:
        return SUCCESS

    def explain(self, state, pod, node_info) -> dict | None:
        return None


class _Nameless(FilterPlugin):
    def filter(self, state, pod, node_info) -> Status:
        return SUCCESS


@pytest.mark.parametrize("cls,message", [
    (_Undeclared, 'plugin "Undeclared" has score but does not declare ScorePlugin'),
    (_Unimplemented, 'plugin "Unimplemented" does not implement score'),
    (_NormalizesWithoutScore, 'plugin "NormalizesWithoutScore" declares ScoreExtensions without ScorePlugin'),
    (_ExplainsQueueing, 'plugin "ExplainsQueueing" declares Explainer without FilterPlugin or PreFilterPlugin or '
                        'PreScorePlugin or ScorePlugin'),
    (_Nameless, "plugin class _Nameless has no name"),
])
def test_check_plugin_refuses(cls, message):
    with pytest.raises(TypeError) as info:
        check_plugin(cls)
    assert str(info.value) == message


def test_an_unimplemented_interface_cannot_be_instantiated():
    with pytest.raises(TypeError, match="abstract"):
        _Unimplemented({}, None)


# --- the framework -------------------------------------------------------------------------------

def _framework(plugins: dict[str, tuple[str, ...]], classes: dict[str, type[Plugin]], **kw) -> Framework:
    profile = Profile("default-scheduler", None, plugins, {}, {})
    return Framework(profile, classes, Snapshot([]), **kw)


def test_framework_refuses_a_plugin_at_a_point_it_does_not_declare():
    with pytest.raises(FrameworkError) as info:
        _framework({"filter": ("NodeName",), "score": ("NodeName",)}, registry())
    assert str(info.value) == 'plugin "NodeName" does not extend ScorePlugin plugin'


def test_framework_types_each_point_and_finds_the_optional_interfaces():
    fw = _framework({"preFilter": ("NodeAffinity", "NodePorts"), "filter": ("NodeName", "NodeAffinity"),
                     "preScore": ("NodeAffinity",), "score": ("ImageLocality", "NodeAffinity"),
                     "postFilter": ("DefaultPreemption",)}, registry())
    assert [pl.name for pl in fw.filter_plugins] == ["NodeName", "NodeAffinity"]
    assert [pl.name for pl in fw.explaining_plugins] == ["NodeAffinity", "NodePorts", "NodeName", "ImageLocality"]
    assert set(fw._normalizers) == {"NodeAffinity"}
    assert fw._pre_filter_extensions == []


@pytest.mark.parametrize("offset,want", [(0, 0), (3, 3)])
def test_preemption_offset_is_part_of_the_handle(offset, want):
    fw = _framework({"postFilter": ("DefaultPreemption",)}, {"DefaultPreemption": DefaultPreemption},
                    preemption_offset=offset)
    plugin = fw.post_filter_plugins[0]
    assert isinstance(plugin, DefaultPreemption) and plugin.offset == want
    assert plugin.args == {}


def test_default_batch_methods_ask_the_per_node_ones():
    class Counting(FilterPlugin, ScorePlugin):
        name = "Counting"

        def filter(self, state, pod, node_info) -> Status:
            return SUCCESS if node_info % 2 else Status.error(str(node_info))

        def score(self, state, pod, node_info) -> int:
            return node_info * 10

    pl = Counting({}, None)
    state = CycleState()
    assert pl.filter_nodes(state, None, [1, 2, 3]) == [SUCCESS, Status.error("2"), SUCCESS]
    assert pl.score_nodes(state, None, [1, 2]) == [10, 20]
