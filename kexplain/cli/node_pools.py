"""Karpenter wherever kexplain explains a pending pod: the options `--aws-data`,
`--karpenter-config` and `--nodepool` (shared with `kexplain karpenter`), and Karpenter's one
provisioning pass over the pods the scheduler left pending (`kexplain.karpenter.pending`), run
when the cluster set holds NodePools: the trace's key `karpenter` (the pass's document) and the
pod's answer in its `autoscalers` slot, beside the Cluster Autoscaler's when both run."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import typer

from kexplain.errors import KexplainError

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.cli.node_groups import AutoscalerRun
    from kexplain.explain.pending_pass import PendingPass
    from kexplain.features import KubeVersion
    from kexplain.karpenter.pending import NodePoolsRequest


def aws_data_option() -> Any:
    return typer.Option(None, "--aws-data", metavar="DIR",
                        help="The EC2 world Karpenter's AWS provider sees: describe-instance-types.json, "
                             "describe-instance-type-offerings.json, describe-subnets.json (AWS CLI output), "
                             "world.json, pricing.json, ... (default: the catalog kexplain ships).")


def karpenter_config_option() -> Any:
    return typer.Option(None, "--karpenter-config", metavar="FILE",
                        help="Karpenter's settings: featureGates, preferencePolicy, minValuesPolicy, cpuRequests, "
                             "vmMemoryOverheadPercent, reservedENIs, instanceTypes, zones, unavailableOfferings.")


def node_pool_option(what: str) -> Any:
    return typer.Option(None, "--nodepool", metavar="NAME", help=what)


EXPLAIN_NODEPOOL_HELP = ("Show one Karpenter NodePool's full verdict for the pending pods (needs NodePools among "
                         "the --nodes objects): every taint, requirement, instance type, offering and limit in the "
                         "way.")


def node_pools_request(cluster: Optional[list], aws_data: Optional[str], config: Optional[str], *,
                       max_bytes: Optional[int] = None, validate: str = "strict",
                       node_pool: Optional[str] = None, applied: list = (), state: Any = None
                       ) -> "Optional[NodePoolsRequest]":
    """Where Karpenter's pass reads from, when the cluster set (`cluster`, as read, with the
    objects of the POD file `applied` to it) holds NodePools; None otherwise. `--aws-data`,
    `--karpenter-config` or `--nodepool` without NodePools: a one-line error (exit 2), as the
    options would otherwise be ignored. `state`: the cluster admitted already, which the pass reads."""
    from kexplain.karpenter.request import NodePoolsRequest, has_node_pools

    if has_node_pools(cluster or ()) or has_node_pools(applied):
        return NodePoolsRequest(cluster or [], aws_data, config, max_bytes, validate, state)
    for flag, given in (("--aws-data", aws_data), ("--karpenter-config", config), ("--nodepool", node_pool)):
        if given is not None:
            raise KexplainError(f"{flag} is for Karpenter's NodePools: the cluster's objects (--nodes) hold no "
                                "NodePool (karpenter.sh/v1)")
    return None


def run_karpenter(pools: "NodePoolsRequest", kube: "KubeVersion", pp: "PendingPass", *, suggestions: bool = True,
                  node_pool: Optional[str] = None) -> "AutoscalerRun":
    """ONE Karpenter provisioning pass over the pass (`kexplain.karpenter.pending.run_pass`);
    its document gets what the pass held (`pendingPass`); a `--nodepool NAME` the pass does not
    have is refused with the closest names."""
    from kexplain.cli.karpenter import check_node_pool
    from kexplain.cli.node_groups import AutoscalerRun
    from kexplain.explain.pending_pass import pass_json
    from kexplain.karpenter.pending import load_node_pools, run_pass

    inputs, world = load_node_pools(pools, kube, applied=pp)     # read whatever the verdicts: bad input refused
    if not pp.pending and node_pool is None:        # every pod explained placed: no section, no pass
        return AutoscalerRun([], pp)
    _, merged, answers = run_pass(inputs, world, pp, suggest=verified_fixes if suggestions else None,
                                  every_pod=node_pool is not None)
    answers.document["pendingPass"] = pass_json(merged)
    check_node_pool(node_pool, answers.document)
    return AutoscalerRun([answers], merged)


def verified_fixes(inputs: Any, world: Any, done: Any, doc: Any) -> Optional[list]:
    """Karpenter's verified suggestions for the pass (`kexplain.suggest.karpenter`), when some pod
    needs one (None otherwise), as `kexplain karpenter` finds them."""
    from kexplain.suggest import karpenter as fixes
    return fixes.suggestions(inputs, world, first=done) if fixes.needed(doc) else None


def karpentered(trace: dict, pools: "NodePoolsRequest", kube: "KubeVersion", pp: "PendingPass", pod_key: str, *,
                suggestions: bool = True, node_pool: Optional[str] = None) -> "AutoscalerRun":
    """Karpenter's pass for one explained pod: the trace's `karpenter` (the document) and its
    answer added to `autoscalers`."""
    run = run_karpenter(pools, kube, pp, suggestions=suggestions, node_pool=node_pool)
    trace["karpenter"] = run.documents["karpenter"]
    trace["autoscalers"] = [*trace.get("autoscalers", ()), *run.pod(pod_key)]
    return run
