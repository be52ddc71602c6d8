"""DefaultBinder: binds the pod to the chosen node. kexplain stops before binding, so it
only has to exist for configurations to validate."""
from __future__ import annotations

from kexplain.framework.interface import BindPlugin
from kexplain.plugins import names


class DefaultBinder(BindPlugin):
    name = names.DEFAULT_BINDER
