"""The plugin registry: every in-tree plugin name (kexplain.plugins.names) mapped to the module
that implements it.

Nothing outside this registry imports a plugin module to run it; a profile in the
configuration picks plugins by name. Modules are imported on first use, and every class is
held to the interfaces it declares (`check_plugin`) before it is handed out.
"""
from __future__ import annotations

import importlib
from functools import lru_cache

from kexplain.features import DEFAULT, KubeVersion
from kexplain.framework.interface import Plugin, check_plugin
from kexplain.plugins import names

# name -> module under kexplain.plugins (kube-scheduler's plugins/registry.go)
MODULES: dict[str, str] = {
    names.PRIORITY_SORT: "priority_sort",
    names.DEFAULT_BINDER: "default_binder",
    names.DEFAULT_PREEMPTION: "default_preemption",
    names.DYNAMIC_RESOURCES: "dynamic_resources",
    names.IMAGE_LOCALITY: "image_locality",
    names.INTER_POD_AFFINITY: "inter_pod_affinity",
    names.NODE_AFFINITY: "node_affinity",
    names.NODE_DECLARED_FEATURES: "node_declared_features",
    names.NODE_NAME: "node_name",
    names.NODE_PORTS: "node_ports",
    names.NODE_RESOURCES_BALANCED_ALLOCATION: "balanced_allocation",
    names.NODE_RESOURCES_FIT: "node_resources_fit",
    names.NODE_UNSCHEDULABLE: "node_unschedulable",
    names.NODE_VOLUME_LIMITS: "node_volume_limits",
    names.POD_TOPOLOGY_SPREAD: "pod_topology_spread",
    names.SCHEDULING_GATES: "scheduling_gates",
    names.TAINT_TOLERATION: "taint_toleration",
    names.VOLUME_BINDING: "volume_binding",
    names.VOLUME_RESTRICTIONS: "volume_restrictions",
    names.VOLUME_ZONE: "volume_zone",
}


@lru_cache(maxsize=None)   # bounded: one entry per name in MODULES
def plugin_class(name: str) -> type[Plugin]:
    """The class implementing `name`, checked against its declaration; KeyError for a name no plugin has."""
    module = importlib.import_module(f"{__name__}.{MODULES[name]}")
    for obj in vars(module).values():
        if isinstance(obj, type) and issubclass(obj, Plugin) and obj.name == name:
            check_plugin(obj)
            return obj
    raise KeyError(name)


def known(name: str) -> bool:
    return name in MODULES


def implements(name: str, extension_point: str, kube: KubeVersion = DEFAULT) -> bool:
    """Whether plugin `name` implements the extension point named `extension_point` (the
    KubeSchedulerConfiguration field name, e.g. "filter") in `kube`'s minor."""
    return extension_point in plugin_class(name).points_at(kube)


def registry() -> dict[str, type[Plugin]]:
    return {name: plugin_class(name) for name in MODULES}
