"""The Cluster Autoscaler as an `Autoscaler` (`kexplain.app.autoscalers`): where its node
groups come from (`--node-groups FILE`, or found in the cluster as on a live one), ONE loop
over the pending pass (`kexplain.autoscaler.pending.run_pass`), read from the one cluster state
when the command has one (`GroupsRequest.state`: CA never admits the cluster again), its
suggestions in place of add-node, and its answers compared with the scheduler's queue.
Imported only when node groups are given or reported (`autoscalers.adapter`)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Callable, Optional, Sequence

from kexplain.app.autoscalers import REPORTED, AutoscalerRun
from kexplain.autoscaler.cloudprovider import Discovery, discover_in, provenance, reporting_objects
from kexplain.autoscaler.cloudprovider.names import closest as closest_group
from kexplain.autoscaler.cloudprovider.names import known as known_groups
from kexplain.autoscaler.cloudprovider.names import resolve as resolve_group
from kexplain.autoscaler.provisioningrequest.pods import from_objects
from kexplain.autoscaler.provisioningrequest.provision import provision_all
from kexplain.autoscaler.inputs import CA_KUBERNETES
from kexplain.autoscaler.pending import (CLUSTER_AUTOSCALER, GroupsRequest, load_groups, loop_document,
                                         run_pass)
from kexplain.errors import KexplainError
from kexplain.explain.pending_pass import PendingPass, pass_json
from kexplain.features import KubeVersion
from kexplain.suggest.node_groups import with_group_suggestions

CLOSEST = 3     # group names a wrong --node-group NAME suggests


def reports_node_groups(cluster: list) -> bool:
    """Whether the cluster's objects report node groups (`cloudprovider.reporting_objects`)."""
    return bool(reporting_objects(cluster))


@dataclass(frozen=True)
class ClusterAutoscaler:
    """CA's loop over a pending pass, as `GroupsRequest` says where it reads from."""

    request: GroupsRequest
    name: str = "cluster-autoscaler"

    @property
    def groups(self) -> Discovery:
        return self.request.groups

    def check(self, kube: KubeVersion) -> None:
        """Read the cluster and settings the groups need, for nothing else than refusing bad
        input when no pod is left for CA (a bad file is refused whatever the verdicts)."""
        load_groups(self.request, kube)

    def run(self, pp: PendingPass, kube: KubeVersion, explained: Optional[str] = None) -> AutoscalerRun:
        """ONE loop over the pass, every Filter plugin on each template for the pod `explained`; its
        document with where the groups were found and the pass (`pendingPass`)."""
        loop, merged, answers = run_pass(load_groups(self.request, kube, applied=pp), pp, explained)
        doc = with_found(answers.document, self.request)
        doc["pendingPass"] = pass_json(merged)
        return AutoscalerRun([replace(answers, document=doc)], merged, loop)

    def explain_one(self, trace: dict, pp: PendingPass, kube: KubeVersion, pod: Any) -> AutoscalerRun:
        """The loop for one explained pod: the trace's `autoscaler` and `autoscalers` keys, and its
        suggestions with CA's in place of add-node (`suggest.node_groups`)."""
        run = self.run(pp, kube, pod.key)
        trace["autoscaler"] = run.document
        trace["autoscalers"] = run.pod(pod.key)
        explained = next((p for p in run.loop.pending if p.key == pod.key), pod)
        if "suggestions" in trace:
            trace["suggestions"] = with_group_suggestions(trace["suggestions"], run.loop, explained, run.document,
                                                          loop_document)
        return run


def read_node_groups(path: str, max_bytes: int) -> Discovery:
    """The groups of --node-groups FILE, read (what its callers keep and share: one read a run)."""
    return Discovery.from_file(path, max_bytes)


def groups_request(node_groups: Optional[Discovery], autoscaler_config: Optional[str], max_bytes: int, validate: str,
                   cluster: Optional[list] = None, say: Optional[Callable[[str], None]] = None,
                   state: Any = None) -> Optional[ClusterAutoscaler]:
    """Where CA's node groups, settings and cluster come from: --node-groups FILE (`node_groups`, as
    `read_node_groups` read it), else those the cluster's objects report (`cloudprovider.discover_in`),
    else None; `state`, the one cluster state, is what CA's loop reads (the cluster as read, where
    none holds it). Why the cluster's report is not used is said (`say`)."""
    def request(found: Discovery) -> ClusterAutoscaler:
        return ClusterAutoscaler(GroupsRequest(found, autoscaler_config, max_bytes, validate, state=state,
                                               cluster_objects=cluster if state is None else None))

    note = say or (lambda _: None)
    if node_groups is not None:
        if cluster and reporting_objects(cluster):
            note(f"the node groups of --node-groups {node_groups.file} are used, not those {REPORTED} among --nodes")
        return request(node_groups)
    try:
        found = discover_in(cluster or [])
    except KexplainError as err:
        note(f"{REPORTED} among --nodes cannot be used: {err}: no Cluster autoscaler section (give --node-groups "
             "FILE)")
        return None
    if found is None:
        return None
    if not found.groups:
        why = "; ".join(found.notes) or "it reports none"
        note(f"no node group found in {REPORTED} among --nodes ({why}): no Cluster autoscaler section")
        return None
    return request(found)


def live_groups(node_groups: Optional[str], autoscaler_config: Optional[str], found: Optional[Discovery],
                state: Any, now: Optional[datetime] = None) -> Optional[ClusterAutoscaler]:
    """A live cluster's: --node-groups FILE, else those found in the cluster (`found`), else None;
    CA's loop reads `state`, the live session's one cluster state (stored: the loop admits it, once), at
    `now` (None: the wall clock)."""
    if node_groups:
        return ClusterAutoscaler(GroupsRequest(Discovery.from_file(node_groups), autoscaler_config, state=state,
                                               now=now))
    if found is not None and found.groups:
        return ClusterAutoscaler(GroupsRequest(found, autoscaler_config, state=state, now=now))
    return None


def with_found(doc: dict, groups: GroupsRequest) -> dict:
    """`doc` with, when the groups were found in the cluster, where (key `nodeGroupsFound`)."""
    found = groups.groups
    return {**doc, "nodeGroupsFound": provenance(found)} if not found.file else doc


def check_node_group(name: Optional[str], doc: dict) -> Optional[str]:
    """The id of the group `--node-group NAME` names (its id or the name people know it by:
    `cloudprovider.names`); a one-line error for a name of several groups or an unknown one."""
    if name is None:
        return None
    groups = known_groups([(g["name"], (g.get("template") or {}).get("labels") or {})
                           for g in doc.get("nodeGroups") or ()])
    found = resolve_group(name, groups)
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
    close = closest_group(name, groups, CLOSEST)
    where = "found in the cluster" if "nodeGroupsFound" in doc else "of --node-groups"
    count = len(groups)
    among = f"among the {count} node group{'s' if count != 1 else ''} {where}"
    raise KexplainError(f"--node-group {name}: no node group of that name {among}"
                        + (f"; the closest: {', '.join(close)}" if close else ""))


# CA's answer that says it finds room for the pod on an existing node (what Scheduled is to the scheduler).
FITS_EXISTING = ("FilteredOut", "FilterOutSchedulable")
SCHEDULER_VERDICTS = ("Scheduled", "Unschedulable")
NOT_LISTED = "NotListedAsUnschedulable"     # CA's outcome for a pod its loop does not take up


def with_scheduler(answers: list[dict], status: str, node: Optional[str] = None,
                   doc: Optional[dict] = None) -> list[dict]:
    """A pod's answers with CA's compared with the scheduler's queue verdict (`status`, `node`): key
    `scheduler`, whether they agree it fits the existing nodes, and why they may differ."""
    out = []
    for answer in answers:
        if answer.get("autoscaler") != CLUSTER_AUTOSCALER or status not in SCHEDULER_VERDICTS:
            out.append(answer)
            continue
        fits = status == "Scheduled"
        ca_fits = (answer.get("outcome"), answer.get("filteredBy")) == FITS_EXISTING
        said: dict = {"verdict": status, **({"node": node} if fits and node else {}), "agrees": fits == ca_fits}
        if fits != ca_fits:
            said["why"] = _why_not_alike(answer, fits, node, doc or {})
        out.append({**answer, "scheduler": said})
    return out


def _why_not_alike(answer: dict, fits: bool, node: Optional[str], doc: dict) -> str:
    """Why CA's FilterOutSchedulable and the scheduler's queue part on a pod (`fits`: the queue
    places it, on `node`)."""
    order = ("CA packs the pending pods of every scheduler by priority alone, each on the first node that fits; "
             "the queue takes its own by priority, then creation time, each to its best-scored node")
    if answer.get("outcome") == NOT_LISTED:     # (not about room: CA's loop never takes the pod up)
        return ("CA's loop does not count it as unschedulable (scheduling gates, or a nominated node), so it "
                "looks for no room for it; the scheduler's queue " + (f"places it on {node}" if fits and node else
                                                                     "places it" if fits else "does not place it"))
    if not fits:
        return f"CA's loop finds room for it on {answer.get('node') or 'an existing node'}, where the scheduler's " \
               f"queue does not ({order})"
    first = [f"{p['namespace']}/{p['name']}" for p in doc.get("pods") or ()
             if (p.get("outcome"), p.get("filteredBy")) == FITS_EXISTING and node and p.get("node") == node]
    there = f"puts {', '.join(first)} on {node} first and " if first else ""
    return f"CA's loop {there}finds no room left for it on the existing nodes, where the scheduler's queue " \
           f"places it{f' on {node}' if node else ''} ({order})"


def kueue_provisioner(node_groups: Optional[Discovery], autoscaler_config: Optional[str], max_bytes: int, validate: str,
                      cluster: list, kube: Optional[KubeVersion] = None,
                      say: Optional[Callable[[str], None]] = None) -> Optional[Callable[[Sequence[Any]], list[dict]]]:
    """CA as the provisioner of the ProvisioningRequests Kueue creates (`kueue.controller.admissionchecks.
    provisioning_pass.Capacity`): its node groups as `groups_request` finds them (None: none), its loop
    read from `cluster` when Kueue asks, each request answered in turn (`autoscaler.provisioningrequest`)."""
    found = groups_request(node_groups, autoscaler_config, max_bytes, validate, cluster, say)
    if found is None:
        return None

    version = kube or KubeVersion(CA_KUBERNETES)
    loops: list[Any] = []       # the loop's inputs, read once when first asked (Kueue's fixes ask again)

    def provision(created: Sequence[Any]) -> list[dict]:
        if not loops:
            loops.append(load_groups(found.request, version))
        loop = loops[0]
        requests = [from_objects(c.request, c.templates) for c in created]
        return [a.to_json() for a in provision_all(loop, requests)]
    return provision
