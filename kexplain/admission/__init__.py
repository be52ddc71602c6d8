"""API-server admission emulation: what kube-apiserver v1.35.4 does to an object before the scheduler sees it.

Objects read from files never passed an API server; `admit` applies decoding
strictness, core/v1 defaulting, the Priority, DefaultTolerationSeconds,
DefaultStorageClass, RuntimeClass and PodTopologyLabels plugins, the
matchLabelKeys merge and validation, in the server's order (see
shared/admission.md). Objects already stored (live cluster, snapshot) skip it all.
"""
from kexplain.admission.pipeline import Admitted, admit

__all__ = ["Admitted", "admit"]
