"""Node groups as the cloud provider lists them: sizes, members, an optional template.

The offline input is `--node-groups FILE` (../shared/autoscaler/README.md's `nodegroups.yaml`);
live mode finds the same model from CA's status ConfigMap and provider labels.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from kexplain.errors import Source


@dataclass(frozen=True)
class NodeGroupOptions:
    """CA's per-group NodeGroupAutoscalingOptions; None = the flag's default applies."""

    zero_or_max_node_scaling: bool | None = None
    allow_non_atomic_scale_up_to_max: bool | None = None
    scale_down_utilization_threshold: float | None = None
    scale_down_gpu_utilization_threshold: float | None = None
    scale_down_unneeded_time: float | None = None      # seconds
    ignore_daemonsets_utilization: bool | None = None


@dataclass(frozen=True)
class NodeGroup:
    """One node group (cloudprovider.NodeGroup): its id, sizes and how its members are found."""

    name: str
    min_size: int
    max_size: int
    target_size: int | None                     # None: the number of member nodes
    node_selector: Mapping[str, str]            # a Node is a member when all these labels match
    template: Mapping[str, Any] | None = None   # a Node manifest: the provider's TemplateNodeInfo
    options: NodeGroupOptions = field(default_factory=NodeGroupOptions)
    source: Source | None = None                # where it was read, for error messages
