"""Every in-tree plugin name, once (kube-scheduler's framework/plugins/names/names.go).

Plugins, the registry, suggestions and lint import these instead of spelling a name again."""
from __future__ import annotations

PRIORITY_SORT = "PrioritySort"
DEFAULT_BINDER = "DefaultBinder"
DEFAULT_PREEMPTION = "DefaultPreemption"
DYNAMIC_RESOURCES = "DynamicResources"
IMAGE_LOCALITY = "ImageLocality"
INTER_POD_AFFINITY = "InterPodAffinity"
NODE_AFFINITY = "NodeAffinity"
NODE_NAME = "NodeName"
NODE_PORTS = "NodePorts"
NODE_RESOURCES_BALANCED_ALLOCATION = "NodeResourcesBalancedAllocation"
NODE_RESOURCES_FIT = "NodeResourcesFit"
NODE_UNSCHEDULABLE = "NodeUnschedulable"
NODE_VOLUME_LIMITS = "NodeVolumeLimits"
POD_TOPOLOGY_SPREAD = "PodTopologySpread"
SCHEDULING_GATES = "SchedulingGates"
TAINT_TOLERATION = "TaintToleration"
VOLUME_BINDING = "VolumeBinding"
VOLUME_RESTRICTIONS = "VolumeRestrictions"
VOLUME_ZONE = "VolumeZone"
