"""The admission plugins kube-apiserver runs, as data: its default-on set, `--enable-admission-plugins`'
names, and the managed clusters' documented sets (EKS, GKE, AKS).

A cluster's API server is configured, not versioned: EKS and GKE enable ExtendedResourceToleration, which
plain kube-apiserver leaves off, and a GPU pod admitted there tolerates its GPU nodes' taint. The set
travels with `KubeVersion` (`KubeVersion.admission`) to every admission run; which provider runs the
cluster is recognised from its nodes (`kexplain.admission.providers`) when nothing names the set.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kexplain.errors import KexplainError

EXTENDED_RESOURCE_TOLERATION = "ExtendedResourceToleration"

# pkg/kubeapiserver/options/plugins.go AllOrderedPlugins (v1.36.3): every name kube-apiserver knows.
ALL_ORDERED = (
    "AlwaysAdmit", "NamespaceAutoProvision", "NamespaceLifecycle", "NamespaceExists",
    "LimitPodHardAntiAffinityTopology", "LimitRanger", "ServiceAccount", "NodeRestriction", "TaintNodesByCondition",
    "AlwaysPullImages", "ImagePolicyWebhook", "PodSecurity", "PodNodeSelector", "Priority",
    "DefaultTolerationSeconds", "PodTolerationRestriction", "EventRateLimit", EXTENDED_RESOURCE_TOLERATION,
    "DefaultStorageClass", "StorageObjectInUseProtection", "PodGroupProtection",
    "OwnerReferencesPermissionEnforcement", "PersistentVolumeClaimResize", "RuntimeClass", "CertificateApproval",
    "CertificateSigning", "ClusterTrustBundleAttest", "CertificateSubjectRestriction", "DefaultIngressClass",
    "DenyServiceExternalIPs", "PodTopologyLabels", "PodGroupWorkloadExists", "NodeDeclaredFeatureValidator",
    "JobValidation", "PodResizeValidator", "MutatingAdmissionPolicy", "MutatingAdmissionWebhook",
    "ValidatingAdmissionPolicy", "ValidatingAdmissionWebhook", "ResourceQuota", "AlwaysDeny",
)

# ... and those DefaultOffAdmissionPlugins leaves on (v1.36.3): what kexplain admits with by default.
DEFAULT_ON = frozenset({
    "NamespaceLifecycle", "LimitRanger", "ServiceAccount", "DefaultStorageClass", "PersistentVolumeClaimResize",
    "DefaultTolerationSeconds", "MutatingAdmissionWebhook", "ValidatingAdmissionWebhook", "ResourceQuota",
    "StorageObjectInUseProtection", "PodGroupProtection", "Priority", "TaintNodesByCondition", "RuntimeClass",
    "CertificateApproval", "CertificateSigning", "ClusterTrustBundleAttest", "CertificateSubjectRestriction",
    "DefaultIngressClass", "PodSecurity", "PodTopologyLabels", "MutatingAdmissionPolicy",
    "ValidatingAdmissionPolicy", "PodGroupWorkloadExists", "NodeDeclaredFeatureValidator", "JobValidation",
    "PodResizeValidator",
})

# Plugins off by default that change a pod on create, which kexplain does not emulate: said when enabled.
NOT_EMULATED = {
    "AlwaysPullImages": "sets every container's imagePullPolicy to Always (no scheduling effect)",
    "PodNodeSelector": "merges the namespace's node selector annotation into the pod's",
    "PodTolerationRestriction": "merges the namespace's default tolerations and checks its whitelist",
    "LimitPodHardAntiAffinityTopology": "refuses required anti-affinity on another topology key than the hostname",
}

# The managed clusters' API servers, beyond kube-apiserver's defaults, as each provider documents them:
# - EKS: "View Amazon EKS platform versions for each Kubernetes version" (docs.aws.amazon.com/eks/latest/
#   userguide/platform-versions.html) lists, for every platform version of 1.30 and later, the defaults
#   plus NodeRestriction and ExtendedResourceToleration (the latter since 1.19, aws/containers-roadmap#739).
# - GKE: "About GPUs in GKE" (cloud.google.com/kubernetes-engine/docs/concepts/gpus): GPU nodes are tainted
#   nvidia.com/gpu:NoSchedule and "GKE automatically applies corresponding tolerations to Pods requesting
#   GPUs by running the ExtendedResourceToleration admission controller"; GKE publishes no full list.
# - AKS: documents no list beyond the defaults and does not run ExtendedResourceToleration
#   (Azure/AKS#1449: GPU node pools are not tainted for it; a pod tolerates a GPU taint itself).
PROFILES: dict[str, frozenset[str]] = {
    "EKS": frozenset({"NodeRestriction", EXTENDED_RESOURCE_TOLERATION}),
    "GKE": frozenset({"NodeRestriction", EXTENDED_RESOURCE_TOLERATION}),
    "AKS": frozenset({"NodeRestriction"}),
}
DEFAULT_NAME = "default"        # `--admission-plugins default`: kube-apiserver's defaults, no provider recognised
ENV_VAR = "KEXPLAIN_ADMISSION_PLUGINS"
FLAG = "--admission-plugins"


class AdmissionPluginsError(KexplainError):
    """An admission plugin list kube-apiserver would refuse (an unknown name)."""


@dataclass(frozen=True)
class AdmissionPlugins:
    """The admission plugins an API server runs: kube-apiserver's defaults plus `added`, a provider's
    profile or names given (`source`: where they were said), or still to be recognised from the nodes
    (`recognise`: nothing said)."""

    added: frozenset[str] = frozenset()
    profile: str | None = None      # EKS, GKE, AKS
    source: str = ""                # "--admission-plugins", "$KEXPLAIN_ADMISSION_PLUGINS", "node labels", ...
    recognise: bool = True
    names: tuple[str, ...] = field(default=(), compare=False)   # the names given, in their order

    def enabled(self, plugin: str) -> bool:
        return plugin in DEFAULT_ON or plugin in self.added

    @property
    def beyond_defaults(self) -> tuple[str, ...]:
        """The plugins enabled beyond kube-apiserver's defaults, in the server's order."""
        return tuple(p for p in ALL_ORDERED if p in self.added and p not in DEFAULT_ON)

    @property
    def not_emulated(self) -> tuple[str, ...]:
        return tuple(p for p in self.beyond_defaults if p in NOT_EMULATED)

    def recognised(self, profile: str, why: str) -> "AdmissionPlugins":
        """The set of a provider recognised from the nodes (`why`: the label or providerID said so)."""
        return AdmissionPlugins(PROFILES[profile], profile, why, recognise=False)

    def describe(self) -> str:
        """"EKS profile (from node labels)", "ExtendedResourceToleration (from --admission-plugins)"."""
        what = f"{self.profile} profile" if self.profile else ", ".join(self.beyond_defaults) or \
            "kube-apiserver's defaults"
        return f"{what} (from {self.source})" if self.source else what

    def to_json(self) -> dict:
        out: dict = {"enabled": list(self.beyond_defaults)}
        if self.profile:
            out["profile"] = self.profile
        if self.source:
            out["from"] = self.source
        return out

    @property
    def said(self) -> bool:
        """Whether anything differs from plain kube-apiserver (worth a line in the answer)."""
        return bool(self.profile or self.added or self.source)


DEFAULT = AdmissionPlugins()


def parse(value: str, source: str = FLAG) -> AdmissionPlugins:
    """`--admission-plugins` (or the environment variable, the config key): a provider's profile (EKS, GKE,
    AKS), `default`, or plugin names separated by commas as kube-apiserver's `--enable-admission-plugins`
    takes them (enabled beyond its defaults; an unknown one refused in its words)."""
    text = value.strip()
    upper = text.upper()
    if upper in PROFILES:
        return AdmissionPlugins(PROFILES[upper], upper, source, recognise=False)
    if text.lower() == DEFAULT_NAME:
        return AdmissionPlugins(frozenset(), None, source, recognise=False)
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    for name in names:
        if name not in ALL_ORDERED:
            raise AdmissionPluginsError(f"{source} {value!r}: enable-admission-plugins plugin \"{name}\" is unknown "
                                        f"(a profile: {', '.join(PROFILES)}, {DEFAULT_NAME}; or plugin names such as "
                                        f"{EXTENDED_RESOURCE_TOLERATION})")
    if not names:
        raise AdmissionPluginsError(f"{source} {value!r}: give plugin names separated by commas, a profile "
                                    f"({', '.join(PROFILES)}) or {DEFAULT_NAME}")
    return AdmissionPlugins(frozenset(names), None, source, recognise=False, names=names)
