"""Every feature gate kube-scheduler knows, and how each changed from one minor to the next (data:
`gate_table.json`), so a new minor is the few lines of what it changes, never a copy of the table.

As Kubernetes' versioned feature specs (`featuregate.VersionedSpecs`): a gate lists the minors at which
its spec changed, oldest first; a minor holds the newest spec at or before it; the stage `REMOVED` means
the gate is gone from that minor on. Sources: docs/internals/features.md.
"""
from __future__ import annotations

import json
from importlib.resources import files
from typing import Mapping

_DATA = json.loads(files("kexplain.features").joinpath("gate_table.json").read_text())
MINORS: tuple[str, ...] = tuple(_DATA["minors"])   # the minors the table covers, oldest first
REMOVED = "Removed"                         # the stage of a gate that a minor no longer has

# gate -> ((minor from which it holds, default, stage, locked to default), ...), oldest first
GATES: dict[str, tuple[tuple[str, bool, str, bool], ...]] = {
    name: tuple(map(tuple, steps)) for name, steps in _DATA["gates"].items()}

# gate -> ((minor from which it holds, the gates it needs enabled), ...): kube-scheduler refuses
# the flag that enables a gate whose needs are off (`defaultKubernetesFeatureGateDependencies`,
# 1.35 on); () from a minor on: it needs none
DEPENDENCY_CHANGES: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    name: tuple((minor, tuple(needs)) for minor, needs in steps) for name, steps in _DATA["dependency_changes"].items()}


def _at(minor: str, changes: Mapping[str, tuple[tuple, ...]]) -> dict[str, tuple]:
    """Each gate's newest change at or before `minor`, the change's minor cut off."""
    index = MINORS.index(minor)
    out = {}
    for name, steps in changes.items():
        held = [step[1:] for step in steps if MINORS.index(step[0]) <= index]
        if held:
            out[name] = held[-1]
    return out


# minor -> gate -> (default, stage, locked to default): the specs each minor holds
SPECS: dict[str, dict[str, tuple[bool, str, bool]]] = {
    minor: {name: spec for name, spec in _at(minor, GATES).items() if spec[1] != REMOVED} for minor in MINORS}

# minor -> gate -> the gates it needs enabled
DEPENDENCIES: dict[str, dict[str, tuple[str, ...]]] = {
    minor: {name: needs[0] for name, needs in _at(minor, DEPENDENCY_CHANGES).items() if needs[0]}
    for minor in MINORS}
