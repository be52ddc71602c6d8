"""`--node-groups`, `--autoscaler-config`, `--node-group` of `kexplain POD` and `kexplain pod
NAME`: the checks of these options, and the Cluster Autoscaler loop run for the pods the
scheduler left pending (the trace's key `autoscaler`), with its suggestions in place of
add-node (`kexplain.suggest.node_groups`)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional, Sequence

from kexplain.errors import KexplainError

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.explain.request import Request
    from kexplain.features import KubeVersion
    from kexplain.model.pod import PodInfo

CLOSEST = 3     # group names a wrong --node-group NAME suggests


# Verdicts after which CA has nothing to do for the pod (no section unless --node-group asks).
NO_AUTOSCALER = ("Scheduled", "Error")


def check_groups_options(req: "Request", node: Optional[str], node_group: Optional[str],
                         discovering: bool = False) -> None:
    """--autoscaler-config and --node-group need --node-groups (unless the groups may be found
    in the cluster: `discovering`, checked once read); --node-group and --node are two views of
    one verdict: one of them."""
    if req.node_groups is None and not discovering:
        for flag, given in (("--autoscaler-config", req.autoscaler_config), ("--node-group", node_group)):
            if given is not None:
                raise KexplainError(f"{flag} needs --node-groups FILE (the Cluster Autoscaler's node groups)")
    if node is not None and node_group is not None:
        raise KexplainError("--node and --node-group each show one verdict: give one of them")
    if req.node_groups is not None and "-" in getattr(req, "node_paths", ()):
        raise KexplainError("--node-groups reads the cluster of --nodes a second time: give --nodes as a file, "
                            "not '-'")


def check_node_group(name: Optional[str], doc: dict) -> Optional[str]:
    """The id of the group `--node-group NAME` names among those of --node-groups (or found in
    the cluster): its id, or the name people know it by (the managed node group, the node
    pool, the MIG's name, the agent pool: `cloudprovider.names`); a one-line error (exit 2)
    for a name of several groups (a pool's MIGs: which one) and for an unknown name (the
    closest names)."""
    from kexplain.autoscaler.cloudprovider.names import closest, known, resolve

    if name is None:
        return None
    groups = known([(g["name"], (g.get("template") or {}).get("labels") or {}) for g in doc.get("nodeGroups") or ()])
    found = resolve(name, groups)
    if len(found) == 1:
        return found[0].group
    if found:
        zonal = all(g.zone for g in found) and len({g.zone for g in found}) == len(found)
        what = (f"node pool {found[0].pool} is {len(found)} node groups, a MIG per zone" if zonal and found[0].pool
                else f"it names {len(found)} node groups")
        shown = [g.names[0] if g.zone and g.names else g.group for g in found]
        shown = [s if shown.count(s) == 1 else g.group for s, g in zip(shown, found)]
        each = ", ".join(s + (f" ({g.zone})" if g.zone else "") for s, g in zip(shown, found))
        raise KexplainError(f"--node-group {name}: {what}: give one of them: {each}")
    close = closest(name, groups, CLOSEST)
    where = "found in the cluster" if "nodeGroupsFound" in doc else "of --node-groups"
    count = len(groups)
    among = f"among the {count} node group{'s' if count != 1 else ''} {where}"
    raise KexplainError(f"--node-group {name}: no node group of that name {among}"
                        + (f"; the closest: {', '.join(close)}" if close else ""))


def without_add_node(suggest: Callable) -> Callable:
    """`suggest` without add-node: with node groups a node comes from a group (the section
    after the objects says which would take the copies that did not fit)."""
    from kexplain.suggest.add_node import ADD_NODE

    return lambda *args, **kw: [s for s in suggest(*args, **kw) if s.kind != ADD_NODE]


def groups_request(req: "Request"):
    """Where the node groups, CA's settings and the cluster CA sees come from."""
    from kexplain.autoscaler.pending import GroupsRequest

    return GroupsRequest(req.node_groups or "", req.autoscaler_config, req.node_paths, req.max_bytes,
                         req.max_objects, req.validate)


def autoscaler_loop(req, kube: "KubeVersion", pending: "Sequence[PodInfo]", bound: "Sequence[PodInfo]" = ()):
    """The Cluster Autoscaler loop's inputs (`req`: a Request, or a GroupsRequest) with
    `pending` as its pending pods (`bound`: copies that fit, in the cluster it sees)."""
    from kexplain.autoscaler.pending import GroupsRequest, load_groups, with_pending

    groups = req if isinstance(req, GroupsRequest) else groups_request(req)
    return with_pending(load_groups(groups, kube), pending, bound)


def with_found(doc: dict, req) -> dict:
    """`doc` with, when the groups were found in the cluster, where (key `nodeGroupsFound`)."""
    from kexplain.autoscaler.cloudprovider import provenance

    found = getattr(req, "discovered", None)
    return {**doc, "nodeGroupsFound": provenance(found)} if found is not None else doc


def autoscaler_document(req: "Request", kube: "KubeVersion", pending: "Sequence[PodInfo]",
                        bound: "Sequence[PodInfo]" = ()) -> dict:
    """One Cluster Autoscaler loop over `pending`: the trace's `autoscaler` key."""
    from kexplain.autoscaler.pending import autoscaler_document as document

    return with_found(document(autoscaler_loop(req, kube, pending, bound)), req)


def autoscaled(trace: dict, req, kube: "KubeVersion", pod: "PodInfo") -> dict:
    """The CA loop for one pod (the trace's `autoscaler` key); its suggestions, when the
    trace has some, in place of add-node (`suggest.node_groups`)."""
    from kexplain.autoscaler.pending import autoscaler_document as document
    from kexplain.suggest.node_groups import with_group_suggestions

    loop = autoscaler_loop(req, kube, [pod])
    doc = with_found(document(loop), req)
    if "suggestions" in trace:
        trace["suggestions"] = with_group_suggestions(trace["suggestions"], loop, pod, doc, document)
    return doc
