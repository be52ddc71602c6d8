"""API-server admission emulation: what kube-apiserver v1.35.4 does to an object before the scheduler sees it.

Objects from files never passed an API server: `admit` decodes, defaults, runs the admission plugins
and validation in the server's order (shared/admission.md). Stored objects skip it all.
"""
from kexplain.admission.pipeline import Admitted, admit

__all__ = ["Admitted", "admit"]
