"""Karpenter as an `Autoscaler` (`kexplain.app.autoscalers`): ONE provisioning pass over the
pending pass (`kexplain.karpenter.pending.run_pass`) when the cluster set holds NodePools, with
its verified suggestions; the trace's key `karpenter` (the pass's document) and each pod's
answer in its `autoscalers` slot, beside the Cluster Autoscaler's when both run. Imported only
when the cluster holds NodePools (`autoscalers.adapter`), and by `kexplain karpenter`."""
from __future__ import annotations

import difflib
from datetime import datetime
from dataclasses import dataclass
from typing import Any, Optional

from kexplain.app.autoscalers import AutoscalerRun
from kexplain.errors import KexplainError
from kexplain.explain.pending_pass import PendingPass, pass_json
from kexplain.features import KubeVersion
from kexplain.karpenter.pending import load_node_pools, run_pass
from kexplain.karpenter.request import NodePoolsRequest, has_node_pools
from kexplain.suggest import karpenter as fixes

__all__ = ["Karpenter", "check_node_pool", "has_node_pools", "verified_fixes"]

CLOSEST = 3     # NodePool names a wrong --nodepool NAME suggests


@dataclass(frozen=True)
class Karpenter:
    """Karpenter's pass over a pending pass, as `NodePoolsRequest` says where it reads from;
    `node_pool`: --nodepool NAME (every pod's verdict on it); `suggestions`: its verified fixes."""

    request: NodePoolsRequest
    suggestions: bool = True
    node_pool: Optional[str] = None
    name: str = "karpenter"

    @classmethod
    def of(cls, cluster: list, aws_data: Optional[str], config: Optional[str], *, max_bytes: Optional[int] = None,
           validate: str = "strict", node_pool: Optional[str] = None, suggestions: bool = True,
           state: Any = None, now: Optional[datetime] = None) -> "Karpenter":
        """`state`: the cluster admitted already (`ClusterState`), which the pass reads in place of
        admitting `cluster` again; `now`: the pass's clock (None: the wall clock)."""
        return cls(NodePoolsRequest(cluster, aws_data, config, max_bytes, validate, state, now), suggestions,
                   node_pool)

    def check(self, kube: KubeVersion) -> None:
        """Read the NodePools, settings and EC2 world, for nothing else than refusing bad input."""
        load_node_pools(self.request, kube)

    def run(self, pp: PendingPass, kube: KubeVersion, explained: Optional[str] = None) -> AutoscalerRun:
        """ONE provisioning pass over the pass; its document gets what the pass held
        (`pendingPass`); a `--nodepool NAME` the pass does not have is refused with the closest
        names. (Every pod it does not place is explained: `explained` changes nothing.)"""
        inputs, world = load_node_pools(self.request, kube, applied=pp)     # read whatever the verdicts
        if not pp.pending and self.node_pool is None:        # every pod explained placed: no section, no pass
            return AutoscalerRun([], pp)
        _, merged, answers = run_pass(inputs, world, pp, suggest=verified_fixes if self.suggestions else None,
                                      every_pod=self.node_pool is not None)
        answers.document["pendingPass"] = pass_json(merged)
        check_node_pool(self.node_pool, answers.document)
        return AutoscalerRun([answers], merged)

    def explain_one(self, trace: dict, pp: PendingPass, kube: KubeVersion, pod: Any) -> AutoscalerRun:
        """The pass for one explained pod (`PodInfo`): the trace's `karpenter` (the document) and
        its answer added to `autoscalers`."""
        run = self.run(pp, kube, pod.key)
        trace["karpenter"] = run.documents["karpenter"]
        trace["autoscalers"] = [*trace.get("autoscalers", ()), *run.pod(pod.key)]
        return run


def verified_fixes(inputs: Any, world: Any, done: Any, doc: Any) -> Optional[list]:
    """Karpenter's verified suggestions for the pass (`kexplain.suggest.karpenter`), when some pod
    needs one (None otherwise), as `kexplain karpenter` finds them."""
    return fixes.suggestions(inputs, world, first=done) if fixes.needed(doc) else None


def check_node_pool(name: Optional[str], doc: dict) -> None:
    """`--nodepool NAME` names a NodePool of the inputs, or a one-line error (exit 2) with the
    closest names."""
    names = [np.get("name", "") for np in doc.get("nodePools") or ()]
    if name is None or name in names:
        return
    if not names:
        raise KexplainError(f"--nodepool {name}: no NodePool in the inputs (give them with --nodes)")
    among = f"among the {len(names)} NodePool{'s' if len(names) != 1 else ''} of the inputs"
    close = difflib.get_close_matches(name, names, n=CLOSEST)
    raise KexplainError(f"--nodepool {name}: no NodePool of that name {among}"
                        + (f"; the closest: {', '.join(close)}" if close else f" ({', '.join(names[:10])})"))
