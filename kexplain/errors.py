"""Errors a user can act on: each names the file, the object and the field at fault.

Anything raised as a `KexplainError` ends the command with one line on stderr and
exit code 2; nothing below the CLI prints.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

MAX_MESSAGE = 4000   # characters of one error line; longer ones are cut in the middle
# What would end the line (or ring, or move the cursor) if printed: shown escaped, as repr does.
_BREAKS = re.compile("[\x00-\x08\x0a-\x1f\x7f\x85\u2028\u2029]")


def clip(text: str, limit: int = 200) -> str:
    """`text` cut to about `limit` characters, saying how much was left out: a 100 MB value
    quoted whole would make an error line nobody can read (or print quickly)."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}...({len(text) - limit:,} more characters)"


@dataclass(frozen=True)
class Source:
    """Where an object came from: a path ('-' for stdin) and its 1-based document number."""

    path: str
    doc: int = 0

    def __str__(self) -> str:
        return f"{self.path}: document {self.doc}" if self.doc else self.path


# The built-in kinds without a namespace (kube-apiserver v1.35, and the removed kinds that had
# none): an object of one is named by its name alone, whatever namespace it gives (the API server
# clears it).
CLUSTER_SCOPED_KINDS = frozenset({
    "Namespace", "Node", "PersistentVolume", "ComponentStatus",
    "StorageClass", "CSIDriver", "CSINode", "VolumeAttachment", "VolumeAttributesClass",
    "PriorityClass", "RuntimeClass", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "APIService",
    "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration", "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding",
    "CertificateSigningRequest", "ClusterTrustBundle", "IngressClass", "IPAddress", "ServiceCIDR",
    "FlowSchema", "PriorityLevelConfiguration", "DeviceClass", "ResourceSlice", "DeviceTaintRule",
    "TokenReview", "SelfSubjectReview", "SubjectAccessReview", "SelfSubjectAccessReview", "SelfSubjectRulesReview",
    "StorageVersion", "StorageVersionMigration", "PodSecurityPolicy",
    "AuditSink", "ClusterCIDR", "ResourceClass", "InitializerConfiguration", "ThirdPartyResource",
})


def is_builtin_api(api_version: object) -> bool:
    """A built-in API group (core, `apps`, `*.k8s.io`), not a custom resource's (whose group
    has a dot); a missing apiVersion counts as built-in."""
    group = api_version.rsplit("/", 1)[0] if isinstance(api_version, str) and "/" in api_version else ""
    return "." not in group or group.endswith(".k8s.io")


def object_namespace(kind: str, namespace: str, *, namespaced: bool | None = None) -> str:
    """The namespace an object is in, as the API server stores it: none for a cluster-scoped
    kind, `default` for a namespaced kind that gives none. `namespaced`: whether the kind is
    known to be namespaced (None: every kind but the cluster-scoped ones); False (a custom
    resource of unknown scope) keeps the namespace as written."""
    if kind in CLUSTER_SCOPED_KINDS:
        return ""
    if namespaced is False:
        return namespace
    return namespace or "default"


def describe(obj: object) -> str:
    """`Kind ns/name` for messages, the namespace as the API server would default it
    (`object_namespace`: `default` when none is given; `Kind name` for a cluster-scoped kind);
    tolerant of malformed objects."""
    if not isinstance(obj, Mapping):       # (a dict, or a dump's stored pod read as one)
        return "object"
    kind = clip(obj.get("kind"), 60) if isinstance(obj.get("kind"), str) else "object"
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    name = clip(meta.get("name")) if isinstance(meta.get("name"), str) else ""
    ns = clip(meta.get("namespace")) if isinstance(meta.get("namespace"), str) else ""
    if not name:
        return kind
    known = isinstance(obj.get("kind"), str) and is_builtin_api(obj.get("apiVersion"))
    ns = object_namespace(kind, ns, namespaced=None if known else False)
    return f"{kind} {ns}/{name}" if ns else f"{kind} {name}"


class KexplainError(Exception):
    """A problem with the user's input or invocation (exit code 2)."""

    exit_code = 2

    def __init__(self, message: str, source: Source | None = None, obj: object = None,
                 field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.source = source
        self.obj = obj
        self.field = field

    def __str__(self) -> str:
        parts = []
        if self.source is not None:
            parts.append(str(self.source))
        if self.obj is not None:
            parts.append(describe(self.obj))
        if self.field:
            parts.append(clip(self.field))
        parts.append(self.message)
        text = _BREAKS.sub(lambda m: repr(m.group())[1:-1], ": ".join(parts))   # one line, always
        if len(text) > MAX_MESSAGE:
            half = MAX_MESSAGE // 2
            text = f"{text[:half]} ...({len(text) - MAX_MESSAGE:,} characters left out)... {text[-half:]}"
        return text


class LeftOutNote(KexplainError):
    """Something left out of the explanation that is not bad input (exit code 0 when the rest is
    explained): a pod of another scheduler, a workload whose controller creates nothing more."""

    exit_code = 0


class InputError(KexplainError):
    """Malformed input: YAML syntax, wrong types, missing kind, invalid quantity, ..."""


class AdmissionRejected(KexplainError):
    """An object the API server would refuse; the message is the API server's own."""


class NamespaceNotFound(AdmissionRejected):
    """An object of a namespace that does not exist (its Namespace was refused): NamespaceLifecycle
    refuses it, whatever its kind (`namespaces "team" not found`); a workload itself, not its pods."""


class ConfigError(KexplainError):
    """An invalid KubeSchedulerConfiguration or a pod naming a profile that does not exist."""


class FrameworkError(Exception):
    """What kube-scheduler's framework returns as an error: building a profile (NewFramework:
    a plugin that does not exist or does not extend its point) or running one (a plugin's Error
    status). Not a user's error by itself: config wraps it in a ConfigError, the scheduling
    cycle records it as the attempt's Error result."""
