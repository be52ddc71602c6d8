"""Karpenter's passes in one process over an equal EC2 world with equal provider settings share one
instance-type provider, its NodeClass views and its TypeIndex (`run.shared_provider`): `kexplain
cluster`'s pending and Karpenter sections each load their own world, and the second pass must not
resolve or index the instance types again; a pass with other provider settings gets its own."""
from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone

import pytest

from kexplain.app.karpenter_disruption import disruption_pass
from kexplain.features.kube_version import resolve
from kexplain.karpenter import run
from kexplain.karpenter.aws.instancetype.instancetype import InstanceTypeProvider
from kexplain.karpenter.pending import load_pods_pass, load_world
from kexplain.load.limits import DEFAULT_MAX_BYTES, DEFAULT_MAX_OBJECTS
from tests.support.paths import FIXTURES

NOW = datetime(2026, 1, 1, 12, tzinfo=timezone.utc)
FILES = tuple(str(FIXTURES / "karpenter-disruption" / name) for name in ("cluster.yaml", "nodepools.yaml"))


@pytest.fixture
def resolved(monkeypatch):
    """The classes whose types the provider resolved, in order (the shared providers emptied first)."""
    monkeypatch.setattr(run, "_shared", [], raising=False)
    names: list[str] = []
    original = InstanceTypeProvider._resolve
    monkeypatch.setattr(InstanceTypeProvider, "_resolve", lambda self, node_class, zones:
                        names.append(node_class.name) or original(self, node_class, zones))
    return names


def _pass() -> dict:
    kube, _ = resolve(None, None)
    _, doc = disruption_pass(None, FILES, None, None, kube, NOW, max_bytes=DEFAULT_MAX_BYTES,
                             max_objects=DEFAULT_MAX_OBJECTS)
    return doc


def test_a_second_pass_over_an_equal_world_resolves_no_instance_type_again(resolved):
    first = _pass()
    once = list(resolved)
    assert once, "the pass resolves its classes' types"
    second = _pass()
    assert resolved == once          # (each pass loaded its own world: equal, not the same object)
    assert second == first


def _inputs():
    kube, _ = resolve(None, None)
    inputs, _ = load_pods_pass(None, FILES, None, kube, max_bytes=DEFAULT_MAX_BYTES, max_objects=DEFAULT_MAX_OBJECTS,
                               now=NOW)
    return inputs


def test_the_clouds_share_provider_views_and_index_only_with_equal_settings(resolved):
    inputs = _inputs()
    a, b = run.AWSCloud(inputs, load_world(None)), run.AWSCloud(_inputs(), load_world(None))
    assert a.world is not b.world
    assert a.provider is b.provider and a.type_index is b.type_index
    assert all(a.views[name] is b.views[name] for name in a.views)
    other = replace(inputs, settings=replace(inputs.settings, vm_memory_overhead_percent=0.1))
    c = run.AWSCloud(other, load_world(None))
    assert c.provider is not a.provider and c.type_index is not a.type_index


def test_the_providers_kept_are_bounded(resolved):
    inputs = _inputs()
    for i in range(run.SHARED_PROVIDERS + 2):
        run.AWSCloud(replace(inputs, settings=replace(inputs.settings, reserved_enis=i)), load_world(None))
    assert len(run._shared) == run.SHARED_PROVIDERS
    assert [s.options.reserved_enis for s in run._shared] == list(range(2, run.SHARED_PROVIDERS + 2))
