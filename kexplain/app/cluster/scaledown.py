"""Section "scaledown": the nodes the Cluster Autoscaler will not remove, from ONE CA loop in
scale-down mode over the cluster state read once, as `kexplain autoscale --nodes CLUSTER
--node-groups GROUPS --autoscaler-config FILE` (with `mode: scaledown`) runs it
(`autoscaler.loop.run_once`, RunOnce: its scale-up part over the cluster's pending pods, then its
scale-down part): every node CA looked at and keeps, with CA's reason (the pod that blocks it, the
rule); its rows are that document's `scaleDown.nodes[]`, to the key. The nodes CA finds unneeded
are listed, not held: they go once unneeded long enough."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Optional

from kexplain.app.autoscalers import MAY_REPORT, kinds_of
from kexplain.app.cluster.inputs import ClusterInputs
from kexplain.app.cluster.report import NO_NODE_GROUPS
from kexplain.autoscaler.cloudprovider import Discovery, discover_in, provenance
from kexplain.autoscaler.inputs import loop_of_state
from kexplain.autoscaler.loop import run_once
from kexplain.autoscaler.params import Settings
from kexplain.autoscaler.scaledown.eligibility import CURRENTLY_BEING_DELETED, NOT_UNDERUTILIZED
from kexplain.autoscaler.scaledown.loop import scale_down_document
from kexplain.autoscaler.scaledown.planner import NOT_UNNEEDED_LONG_ENOUGH, NOT_UNREADY_LONG_ENOUGH

NAME = "scaledown"
TITLE = "Nodes the Cluster Autoscaler will not remove"
# CA's reasons that do not keep a node: busy enough, on its way out, or unneeded and waiting its time
NOT_KEPT = frozenset({"", NOT_UNDERUTILIZED, CURRENTLY_BEING_DELETED, NOT_UNNEEDED_LONG_ENOUGH,
                      NOT_UNREADY_LONG_ENOUGH})


def groups_of(inputs: ClusterInputs) -> Optional[Discovery]:
    """CA's node groups: --node-groups FILE, else those CA's status ConfigMap or Cluster API report
    among the objects (as `kexplain autoscale` finds them); None: none (a status ConfigMap CA would
    not write: its InputError, exit 2, as `kexplain autoscale`)."""
    req = inputs.request
    if req.node_groups:
        return Discovery.from_file(req.node_groups, req.max_bytes)
    objects = inputs.objects
    if not kinds_of(objects) & MAY_REPORT:
        return None
    found = discover_in(objects)
    return found if found is not None and found.groups else None


def scale_down(inputs: ClusterInputs, groups: Discovery) -> dict:
    """The `scaleDown` key of `kexplain autoscale`'s document in scale-down mode, CA's flags those
    of --autoscaler-config (its mode taken as scaledown), at the report's clock."""
    req = inputs.request
    loop = loop_of_state(inputs.state, groups, req.autoscaler_config, max_bytes=req.max_bytes,
                         validate=req.validate, now=req.now)
    if loop.settings.mode != "scaledown":
        loop = replace(loop, settings=Settings("scaledown", loop.settings.given, loop.settings.values))
    result = run_once(loop)
    return scale_down_document(loop, result.scale_down, processed=not result.ended_early)


def kept(node: dict) -> bool:
    """Whether CA looked at the node (a candidate) and keeps it for a pod or a rule."""
    return bool(node.get("candidate")) and not node.get("unneeded") and node.get("reason", "") not in NOT_KEPT


def section(inputs: ClusterInputs) -> dict:
    """The loop's answer summarised: its result, the nodes it keeps (rows: `scaleDown.nodes[]`
    entries), the unneeded nodes and how many nodes it did not look at (no group, a group at its
    minimum size)."""
    groups = groups_of(inputs)
    if groups is None:          # (the report checks first; asked alone, the same line)
        return {"name": NAME, "title": TITLE, "skipped": NO_NODE_GROUPS}
    sd = scale_down(inputs, groups)
    nodes = sd.get("nodes") or []
    rows = [n for n in nodes if kept(n)]
    out: dict[str, Any] = {"name": NAME, "title": TITLE, "held": len(rows), "result": sd["result"],
                           "nodes": len(nodes), "candidates": sum(1 for n in nodes if n.get("candidate")),
                           "unneeded": sd["unneeded"], "scaledDown": sd["scaledDown"], "rows": rows}
    if not groups.file:
        out["nodeGroupsFound"] = provenance(groups)
    return out
