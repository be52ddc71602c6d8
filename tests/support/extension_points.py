"""The extension points of kube-scheduler's in-tree plugins, shared by the config and plugin-contract tests."""

# The v1.35.4 in-tree plugins and the extension points each implements, read from
# pkg/scheduler/framework/plugins/<name>/*.go (interface assertions and methods).
IN_TREE_EXTENSION_POINTS = {
    "PrioritySort": ("queueSort",),
    "SchedulingGates": ("preEnqueue",),
    "NodeUnschedulable": ("filter",),
    "NodeName": ("filter",),
    "TaintToleration": ("filter", "preScore", "score"),
    "NodeAffinity": ("preFilter", "filter", "preScore", "score"),
    "NodePorts": ("preFilter", "filter"),
    "NodeResourcesFit": ("preFilter", "filter", "preScore", "score"),
    "VolumeRestrictions": ("preFilter", "filter"),
    "NodeVolumeLimits": ("preFilter", "filter"),
    "VolumeBinding": ("preFilter", "filter", "preScore", "score", "reserve", "preBind"),
    "VolumeZone": ("preFilter", "filter"),
    "PodTopologySpread": ("preFilter", "filter", "preScore", "score"),
    "InterPodAffinity": ("preFilter", "filter", "preScore", "score"),
    "DynamicResources": ("preEnqueue", "preFilter", "filter", "postFilter", "score", "reserve", "preBind"),
    "DefaultPreemption": ("preEnqueue", "postFilter"),
    "NodeResourcesBalancedAllocation": ("preScore", "score"),
    "ImageLocality": ("score",),
    "DefaultBinder": ("bind",),
    "NodeDeclaredFeatures": ("preFilter", "filter"),
    "GangScheduling": ("preEnqueue", "reserve", "permit"),
}
