"""Which managed Kubernetes runs a cluster, told by its nodes, so that its API server's admission plugins
(`features.admission_plugins.PROFILES`) are the ones admitting the pods when the user names none.

What tells it is what the provider itself wrote on a node it registered: its `spec.providerID`, which
the cloud's node controller sets on every node (`aws://`: EKS, `gce://`: GKE, `azure://`: AKS), and the
managed service's node pool label on such a node (EKS's managed node groups and Fargate, GKE's node
pools, AKS's agent pools), which tells it from a self-managed cluster on that cloud. A node without a
providerID was written by hand (a test fixture, a model of a cluster: no provider registered it) and
tells nothing, whatever its labels: its cluster is admitted as kube-apiserver's defaults admit, as the
scheduler's and the autoscalers' cases are. The first registered node with a label decides, else the
first whose providerID names a cloud; the answer says which (`--admission-plugins` says otherwise).
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
    """(profile, what told it) of the first node a provider registered (a providerID) that carries a
    managed service's node pool label, else of the first whose providerID names a cloud; None when no
    node does."""
    by_id: tuple[str, str] | None = None
    for node in nodes:
        get = getattr(node, "get", None)
        provider_id = _mapping(get("spec")).get("providerID") if get is not None else None
        if not isinstance(provider_id, str) or not provider_id:
            continue            # (no provider registered it: a hand-written node)
        labels = _mapping(_mapping(get("metadata")).get("labels"))
        for key, profile in LABELS:
            if key in labels:
                return profile, FROM_LABELS
        if by_id is None:
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
