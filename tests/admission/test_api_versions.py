"""Which API versions each minor's kube-apiserver serves: its definitions say which it has, the
OFF_BY_DEFAULT table (kube-apiserver's DefaultAPIResourceConfigSource) which of those it serves
only when enabled; and what kexplain says of the others."""
from __future__ import annotations

import re

import pytest

from kexplain.admission.openapi import (MISSING, NOT_SERVED, OFF_BY_DEFAULT, SERVED, builtin_index, builtin_kinds,
                                        definitions, version_priority)
from kexplain.apimachinery.versions import DEFAULT_K8S_VERSION
from kexplain.apimachinery.versions import OFF_BY_DEFAULT as TABLE

_PRERELEASE = re.compile(r"/v\d+(alpha|beta)\d+$")


@pytest.mark.parametrize("minor", sorted(TABLE))
def test_the_table_is_every_alpha_and_beta_version_the_definitions_have(minor):
    """Since 1.24 no new beta API is on by default: in these minors, every prerelease group
    version with kinds of its own is off, and no GA one is."""
    kinds: dict[str, set[str]] = {}
    for api_version, kind in builtin_kinds(definitions(minor, False).get("$defs") or {}):
        kinds.setdefault(api_version, set()).add(kind)
    with_kinds = {a for a, k in kinds.items() if k - {"DeleteOptions", "WatchEvent"}}
    assert {a for a in with_kinds if _PRERELEASE.search(a)} <= TABLE[minor]
    assert all(_PRERELEASE.search(a) for a in TABLE[minor])


def test_versions_in_kubernetes_order():
    written = ["v1", "v1beta1", "v2", "v1alpha1", "v2beta2", "v1beta2", "v10", "custom"]
    assert sorted(written, key=version_priority) == ["v10", "v2", "v1", "v2beta2", "v1beta2", "v1beta1", "v1alpha1",
                                                     "custom"]


@pytest.mark.parametrize("minor, api_version, kind, state, use", [
    ("1.35", "resource.k8s.io/v1", "ResourceClaim", SERVED, ()),
    ("1.35", "resource.k8s.io/v1beta1", "ResourceSlice", OFF_BY_DEFAULT, ("resource.k8s.io/v1",)),
    ("1.35", "resource.k8s.io/v1beta2", "DeviceClass", OFF_BY_DEFAULT, ("resource.k8s.io/v1",)),
    ("1.35", "resource.k8s.io/v1alpha3", "ResourceClaim", NOT_SERVED, ("resource.k8s.io/v1",)),
    ("1.34", "resource.k8s.io/v1", "ResourceClaim", SERVED, ()),
    ("1.33", "resource.k8s.io/v1", "ResourceClaim", NOT_SERVED, ("resource.k8s.io/v1beta2", "resource.k8s.io/v1beta1")),
    ("1.33", "resource.k8s.io/v1beta1", "ResourceClaim", OFF_BY_DEFAULT, ()),
    ("1.36", "resource.k8s.io/v1beta2", "ResourceClaimTemplate", OFF_BY_DEFAULT, ("resource.k8s.io/v1",)),
    ("1.35", "policy/v1beta1", "PodDisruptionBudget", NOT_SERVED, ("policy/v1",)),
    ("1.35", "autoscaling/v2beta2", "HorizontalPodAutoscaler", NOT_SERVED, ("autoscaling/v2", "autoscaling/v1")),
    ("1.35", "events.k8s.io/v1beta1", "Event", NOT_SERVED, ("events.k8s.io/v1", "v1")),      # its group first
    ("1.35", "extensions/v1beta1", "Ingress", NOT_SERVED, ("networking.k8s.io/v1",)),
    ("1.35", "storage.k8s.io/v1beta1", "VolumeAttributesClass", OFF_BY_DEFAULT, ("storage.k8s.io/v1",)),
    ("1.35", "", "Pod", MISSING, ()),
])
def test_how_each_minor_takes_an_api_version(minor, api_version, kind, state, use):
    status = builtin_index(minor).api_version_status(api_version, kind)
    assert status is not None and (status.state, status.use) == (state, use)


@pytest.mark.parametrize("api_version, kind", [("example.com/v1", "Widget"),
                                                ("gateway.networking.k8s.io/v1", "HTTPRoute")])
def test_custom_resources_are_not_judged(api_version, kind):
    assert builtin_index().api_version_status(api_version, kind) is None


@pytest.mark.parametrize("api_version, kind", [("apps/v1", "NoSuchKind"), ("v1", "NoSuchKind"),
                                                ("settings.k8s.io/v1", "NoSuchKind")])
def test_a_group_of_kubernetes_own_serves_no_kind_it_does_not_have(api_version, kind):
    """No CustomResourceDefinition can serve a group without a dot, nor one of Kubernetes' own
    (issue 39, audit): kubectl's `no matches for kind`, with nothing to use instead."""
    status = builtin_index().api_version_status(api_version, kind)
    assert status is not None and (status.state, status.use, status.removed) == (NOT_SERVED, (), "")
    assert status.message == f'no matches for kind "NoSuchKind" in version "{api_version}": Kubernetes ' \
                             f"{DEFAULT_K8S_VERSION} does not serve it"


def test_a_minor_without_a_table_serves_what_its_definitions_have():
    index = builtin_index("1.30")
    assert "resource.k8s.io/v1alpha2" in index.served_versions("ResourceClaim")
    assert builtin_index(DEFAULT_K8S_VERSION).served_versions("ResourceClaim") == ["resource.k8s.io/v1"]
