"""The PodTopologyLabels admission plugin: a pod bound to a node gets that node's
`topology.kubernetes.io/zone` and `region` labels (those the node has), overwriting its own.

It runs on the binding the scheduler posts (pods/binding) and on a pod created with
spec.nodeName, so kexplain applies it to the bound pods of the cluster and to every pod a
batch or sequence binds (`kexplain.explain.placement.bind`). Its gate,
PodTopologyLabelsAdmission, is off in 1.33 and 1.34 (alpha) and on from 1.35 (beta): with it
off, bound pods keep the labels they were written with. `copies_labels` resolves the gate
once; `topology_labels` is what it copies.
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
