"""The gate table: each gate's changes by minor, and the specs a minor holds read off them."""
from __future__ import annotations

import pytest

from kexplain.features import SUPPORTED
from kexplain.features.featuregate import FeatureGates
from kexplain.features.gate_table import DEPENDENCIES, DEPENDENCY_CHANGES, GATES, MINORS, REMOVED, SPECS


def test_the_table_covers_every_supported_minor():
    assert MINORS == SUPPORTED


@pytest.mark.parametrize("table", [GATES, DEPENDENCY_CHANGES], ids=["gates", "dependencies"])
def test_a_gate_lists_only_changes_in_minor_order(table):
    for name, steps in table.items():
        minors = [MINORS.index(step[0]) for step in steps]
        assert minors == sorted(set(minors)), name
        values = [step[1:] for step in steps]
        assert all(a != b for a, b in zip(values, values[1:])), f"{name} repeats a spec"


# (minor, gate, its spec there or None when the minor has no such gate), from kube_features.go
@pytest.mark.parametrize("minor, gate, spec", [
    ("1.33", "DynamicResourceAllocation", (False, "Beta", False)),
    ("1.34", "DynamicResourceAllocation", (True, "GA", False)),
    ("1.36", "DynamicResourceAllocation", (True, "GA", True)),
    ("1.34", "CronJobsScheduledAnnotation", (True, "GA", True)),
    ("1.35", "CronJobsScheduledAnnotation", None),
    ("1.36", "CronJobsScheduledAnnotation", None),
    ("1.35", "NodeDeclaredFeatures", (False, "Alpha", False)),
    ("1.36", "NodeDeclaredFeatures", (True, "Beta", False)),
    ("1.33", "NodeDeclaredFeatures", None),
])
def test_a_minor_holds_the_newest_change_at_or_before_it(minor, gate, spec):
    assert SPECS[minor].get(gate) == spec


def test_a_removed_gate_is_unknown_to_the_flag():
    gone = [name for name, steps in GATES.items() if steps[-1][2] == REMOVED]
    assert gone
    for name in gone:
        minor = next(step[0] for step in GATES[name] if step[2] == REMOVED)
        assert name not in FeatureGates(minor)


@pytest.mark.parametrize("minor, gate, needs", [
    ("1.34", "DRAAdminAccess", None),
    ("1.35", "DRAAdminAccess", ("DynamicResourceAllocation",)),
    ("1.35", "InPlacePodVerticalScalingExclusiveMemory", ("InPlacePodVerticalScaling", "MemoryManager")),
    ("1.36", "InPlacePodVerticalScalingExclusiveMemory", ("InPlacePodVerticalScaling",)),
    ("1.35", "WindowsCPUAndMemoryAffinity", ("MemoryManager",)),
    ("1.36", "WindowsCPUAndMemoryAffinity", None),
])
def test_dependencies_by_minor(minor, gate, needs):
    assert DEPENDENCIES[minor].get(gate) == needs
