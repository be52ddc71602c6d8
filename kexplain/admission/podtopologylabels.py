"""The PodTopologyLabels admission plugin: a pod bound to a node gets that node's
`topology.kubernetes.io/zone` and `region` labels (those the node has), overwriting its own.

Run on the bound pods and every pod a batch binds; its gate is on from 1.35 (`copies_labels`).
"""
from __future__ import annotations

from typing import Mapping

from kexplain.apimachinery.labels import TOPOLOGY_LABELS
from kexplain.features import KubeVersion

GATE = "PodTopologyLabelsAdmission"


def copies_labels(kube: KubeVersion) -> bool:
    """Whether `kube`'s API server runs the plugin."""
    return kube.enabled(GATE)


def topology_labels(node_labels: Mapping[str, str]) -> dict[str, str]:
    """The labels the plugin copies from a node with `node_labels` onto a pod bound to it."""
    return {k: node_labels[k] for k in TOPOLOGY_LABELS if k in node_labels}


def labels_on_bind(node_labels: Mapping[str, str], kube: KubeVersion) -> dict[str, str]:
    """The labels a pod bound to that node gets in `kube` (none when the plugin is off)."""
    return topology_labels(node_labels) if copies_labels(kube) else {}
