"""CA's loop of files read as `kexplain autoscale` reads them: the cluster into the one cluster
state, the loop built from it (`kexplain.app.autoscale.read_loop`), for the tests that run a loop
on a case's files (what `autoscaler.inputs.load_loop` did before it went)."""
from __future__ import annotations

from typing import Any

from kexplain.app.autoscale import AutoscaleRequest, read_loop
from kexplain.autoscaler.inputs import LoopInputs
from kexplain.features import KubeVersion


def ca_loop(pods: str | None, nodes: tuple[str, ...], groups: Any, params: str | None, kube: KubeVersion, *,
            max_bytes: int, max_objects: int, validate: str = "strict") -> LoopInputs:
    """The loop of PODS (None: none), the cluster files `nodes`, the node groups and CA's settings."""
    req = AutoscaleRequest(pods, nodes, None, params, max_bytes, max_objects, validate)
    loop, _, _ = read_loop(req, kube=kube, groups=groups)
    return loop
