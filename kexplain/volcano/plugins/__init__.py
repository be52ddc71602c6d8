"""Volcano's plugins (pkg/scheduler/plugins), one module each, registered by name (`MODULES`)."""
from __future__ import annotations

import importlib
from typing import Any

# name -> module under kexplain.volcano.plugins (plugins/factory.go's registrations modelled)
MODULES: dict[str, str] = {
    "priority": "priority", "gang": "gang", "conformance": "conformance", "overcommit": "overcommit",
    "drf": "drf", "predicates": "predicates", "proportion": "proportion", "nodeorder": "nodeorder",
    "binpack": "binpack", "capacity": "capacity", "resourcequota": "resourcequota",
    "pdb": "pdb", "sla": "sla", "nodegroup": "nodegroup", "cdp": "cdp",
}


# every plugin Volcano registers (plugins/factory.go): one of these kexplain does not model is said
REGISTERED = ("drf", "gang", "deviceshare", "predicates", "priority", "nodeorder", "conformance", "binpack",
              "resource-strategy-fit", "tdm", "overcommit", "sla", "task-topology", "numa-aware", "cdp",
              "rescheduling", "usage", "pdb", "nodegroup", "network-topology-aware", "proportion", "capacity",
              "extender", "resourcequota")


def known(name: str) -> bool:
    return name in MODULES


def build(name: str, arguments: dict[str, Any]) -> Any:
    """The plugin `name` with its arguments (framework.GetPluginBuilder's builder)."""
    module = importlib.import_module(f"{__name__}.{MODULES[name]}")
    return module.New(arguments)
