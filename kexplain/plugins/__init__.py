"""The plugin registry: every in-tree plugin name, once, mapped to the module that implements it.

Nothing outside this registry imports a plugin module directly; a profile in the
configuration picks plugins by name. Modules are imported on first use.
"""
from __future__ import annotations

import importlib
from functools import lru_cache

from kexplain.framework.interface import Plugin

# name -> module under kexplain.plugins (kube-scheduler's plugins/names/names.go)
MODULES: dict[str, str] = {
    "PrioritySort": "priority_sort",
    "DefaultBinder": "default_binder",
    "DefaultPreemption": "default_preemption",
    "DynamicResources": "dynamic_resources",
    "ImageLocality": "image_locality",
    "InterPodAffinity": "inter_pod_affinity",
    "NodeAffinity": "node_affinity",
    "NodeName": "node_name",
    "NodePorts": "node_ports",
    "NodeResourcesBalancedAllocation": "balanced_allocation",
    "NodeResourcesFit": "node_resources_fit",
    "NodeUnschedulable": "node_unschedulable",
    "NodeVolumeLimits": "node_volume_limits",
    "PodTopologySpread": "pod_topology_spread",
    "SchedulingGates": "scheduling_gates",
    "TaintToleration": "taint_toleration",
    "VolumeBinding": "volume_binding",
    "VolumeRestrictions": "volume_restrictions",
    "VolumeZone": "volume_zone",
}


@lru_cache(maxsize=None)
def plugin_class(name: str) -> type[Plugin]:
    """The class implementing `name`; KeyError for a name no plugin has."""
    module = importlib.import_module(f"{__name__}.{MODULES[name]}")
    for obj in vars(module).values():
        if isinstance(obj, type) and issubclass(obj, Plugin) and obj is not Plugin and obj.name == name:
            return obj
    raise KeyError(name)


def known(name: str) -> bool:
    return name in MODULES


def implements(name: str, extension_point: str) -> bool:
    return extension_point in plugin_class(name).extension_points


def registry() -> dict[str, type[Plugin]]:
    return {name: plugin_class(name) for name in MODULES}
