"""The Kubernetes versions kexplain follows, and what each minor's API server serves by default, as
data, in a module cheap enough for the CLI to import. `OFF_BY_DEFAULT` is kube-apiserver's
`DefaultAPIResourceConfigSource` (pkg/controlplane/instance.go); minors without an entry serve every
group version their definitions have. Sources and what the lists say: docs/internals/apimachinery.md.
"""
from __future__ import annotations

import json
from importlib.resources import files
from types import MappingProxyType
from typing import Mapping

from kexplain.features.kube_version import DEFAULT_MINOR

DEFAULT_K8S_VERSION = DEFAULT_MINOR   # the minor whose API server a caller that names none gets

_BETA_1_33 = frozenset({
    "admissionregistration.k8s.io/v1beta1", "authentication.k8s.io/v1beta1", "certificates.k8s.io/v1beta1",
    "coordination.k8s.io/v1beta1", "storage.k8s.io/v1beta1", "flowcontrol.apiserver.k8s.io/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1beta2", "flowcontrol.apiserver.k8s.io/v1beta3", "networking.k8s.io/v1beta1",
    "resource.k8s.io/v1beta1", "resource.k8s.io/v1beta2"})
_ALPHA_1_34 = frozenset({
    "admissionregistration.k8s.io/v1alpha1", "internal.apiserver.k8s.io/v1alpha1", "authentication.k8s.io/v1alpha1",
    "coordination.k8s.io/v1alpha2", "resource.k8s.io/v1alpha3", "certificates.k8s.io/v1alpha1",
    "storage.k8s.io/v1alpha1", "storagemigration.k8s.io/v1alpha1"})

# minor -> the group versions kube-apiserver has but serves only when --runtime-config enables them
OFF_BY_DEFAULT: Mapping[str, frozenset[str]] = MappingProxyType({
    "1.33": _BETA_1_33 | _ALPHA_1_34 | {"networking.k8s.io/v1alpha1"},
    "1.34": _BETA_1_33 | _ALPHA_1_34,
    "1.35": (_BETA_1_33 | {"storagemigration.k8s.io/v1beta1"}
             | (_ALPHA_1_34 - {"storagemigration.k8s.io/v1alpha1"}) | {"scheduling.k8s.io/v1alpha1"}),
    "1.36": (_BETA_1_33 | {"storagemigration.k8s.io/v1beta1"}
             | (_ALPHA_1_34 - {"storagemigration.k8s.io/v1alpha1"}) | {"scheduling.k8s.io/v1alpha2"}),
})


def off_by_default(minor: str) -> frozenset[str]:
    """The group versions `minor`'s kube-apiserver does not serve unless enabled (empty for a
    minor kexplain has no list for: everything its definitions have counts as served)."""
    return OFF_BY_DEFAULT.get(minor, frozenset())


def runtime_config_flag(api_version: str) -> str:
    """The kube-apiserver flag that serves an off-by-default group version."""
    return f"--runtime-config={api_version}=true"


# Built-in kinds whose every version is gone from kube-apiserver, so that no schema of any minor
# kexplain follows has them: (apiVersion, kind) -> what replaced them (or that nothing did), as the
# deprecated API migration guide and the removing minor's release notes say (removed_kinds.json).
# A kind still served at another version needs no entry (`kexplain.admission.openapi.ApiIndex`).
REMOVED_KINDS: Mapping[tuple[str, str], str] = MappingProxyType({
    (api_version, kind): text for api_version, kind, text in
    json.loads(files("kexplain.apimachinery").joinpath("removed_kinds.json").read_text())["removed_kinds"]})


def _group(api_version: str) -> str:
    return api_version.rsplit("/", 1)[0] if "/" in api_version else ""


# The groups of the removed kinds (`settings.k8s.io`, `auditregistration.k8s.io`, ...): Kubernetes'
# own, so that no CustomResourceDefinition serves them.
REMOVED_GROUPS: frozenset[str] = frozenset(_group(a) for a, _ in REMOVED_KINDS)


def removed_kind(api_version: str, kind: str) -> str:
    """What replaced a kind gone at every version: its own entry, else its group's, else the kind's first;
    "" for a kind that is not gone."""
    if (api_version, kind) in REMOVED_KINDS:
        return REMOVED_KINDS[(api_version, kind)]
    entries = [(a, text) for (a, k), text in REMOVED_KINDS.items() if k == kind]
    same_group = [text for a, text in entries if _group(a) == _group(api_version)]
    return (same_group or [text for _, text in entries] or [""])[0]
