"""Which managed Kubernetes runs a cluster, told by its nodes, so that its API server's admission plugins
(`features.admission_plugins.PROFILES`) are the ones admitting the pods when the user names none.

A node's labels name its provider first (each provider's node pool label: EKS's managed node groups and
Fargate, GKE's node pools, AKS's agent pools); failing those, its spec.providerID's scheme (`aws://`,
`gce://`, `azure://`), which a self-managed cluster on that cloud shares: the answer says which it was,
and `--admission-plugins default` (or the provider's name) says otherwise. The first node that names one
decides, in the order the nodes were read.
"""
from __future__ import annotations

from typing import Iterable

from kexplain.features import KubeVersion

LABELS = (
    ("eks.amazonaws.com/nodegroup", "EKS"), ("eks.amazonaws.com/compute-type", "EKS"),
    ("cloud.google.com/gke-nodepool", "GKE"),
    ("kubernetes.azure.com/agentpool", "AKS"), ("kubernetes.azure.com/cluster", "AKS"),
)
PROVIDER_IDS = (("aws://", "EKS"), ("gce://", "GKE"), ("azure://", "AKS"))
FROM_LABELS = "node labels"
FROM_PROVIDER_ID = "node providerIDs"


def _mapping(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def provider_of(nodes: Iterable[dict]) -> tuple[str, str] | None:
    """(profile, what told it) of the first node whose labels name a provider, else of the first whose
    providerID does; None when no node does."""
    by_id: tuple[str, str] | None = None
    for node in nodes:
        get = getattr(node, "get", None)
        if get is None:
            continue
        labels = _mapping(_mapping(get("metadata")).get("labels"))
        for key, profile in LABELS:
            if key in labels:
                return profile, FROM_LABELS
        if by_id is None:
            provider_id = _mapping(get("spec")).get("providerID")
            if isinstance(provider_id, str):
                by_id = next(((p, FROM_PROVIDER_ID) for prefix, p in PROVIDER_IDS if provider_id.startswith(prefix)),
                             None)
    return by_id


def recognised(kube: KubeVersion, nodes: Iterable[dict]) -> KubeVersion:
    """`kube` with its provider's admission plugins when nothing named them and a node names a provider."""
    if not kube.admission.recognise:
        return kube
    found = provider_of(nodes)
    if found is None:
        return kube
    return kube.with_admission(kube.admission.recognised(*found))
