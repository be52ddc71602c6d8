"""`--node-groups`, `--autoscaler-config`, `--node-group` of `kexplain POD` and `kexplain pod
NAME`: the checks of these options, and the Cluster Autoscaler loop run for the pods the
scheduler left pending (the trace's key `autoscaler`), with its suggestions in place of
add-node (`kexplain.suggest.node_groups`)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable, Optional

from kexplain.errors import KexplainError

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.autoscaler.pending import GroupsRequest
    from kexplain.explain.pending_pass import PassAnswers, PendingPass
    from kexplain.explain.request import Request
    from kexplain.features import KubeVersion
    from kexplain.model.pod import PodInfo

CLOSEST = 3     # group names a wrong --node-group NAME suggests


# Verdicts after which CA has nothing to do for the pod (no section unless --node-group asks).
NO_AUTOSCALER = ("Scheduled", "Error", "Failed")     # (Failed: a bound pod its kubelet rejects, not pending)


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


def groups_request(req: "Request", cluster: Optional[list] = None,
                   say: Optional[Callable[[str], None]] = None, state: Any = None) -> "Optional[GroupsRequest]":
    """Where the node groups, CA's settings and the cluster CA sees come from (`cluster`:
    --nodes as already read, else read again from its paths): --node-groups FILE (read now);
    else the node groups the cluster's objects report, found as on a live cluster (CA's status
    ConfigMap, Cluster API: `cloudprovider.discover_in`; a snapshot keeps them); else None.
    What keeps the cluster's report from being used is said (`say`, a note): --node-groups given
    in its place, a status ConfigMap in a format CA does not write, a report of no group."""
    if not req.node_groups and not reports_node_groups(cluster or []):
        return None         # (the autoscaler's modules left unimported: a plain run needs none)
    from kexplain.autoscaler.cloudprovider import Discovery, discover_in, reporting_objects
    from kexplain.autoscaler.pending import GroupsRequest

    def request(found: "Discovery") -> "GroupsRequest":
        return GroupsRequest(found, req.autoscaler_config, req.node_paths, req.max_bytes, req.max_objects,
                             req.validate, cluster_objects=cluster, state=state)

    note = say or (lambda _: None)
    if req.node_groups:
        if cluster and reporting_objects(cluster):
            note(f"the node groups of --node-groups {req.node_groups} are used, not those {REPORTED} among --nodes")
        return request(Discovery.from_file(req.node_groups, req.max_bytes))
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


# What reports node groups in a cluster's objects, in words.
REPORTED = "CA's status ConfigMap kube-system/cluster-autoscaler-status or Cluster API's objects"


def check_found(req: "Request", node_group: Optional[str], groups: "Optional[GroupsRequest]") -> None:
    """--autoscaler-config and --node-group need node groups: --node-groups FILE, or found among
    --nodes (checked once read)."""
    if groups is not None:
        return
    for flag, given in (("--autoscaler-config", req.autoscaler_config), ("--node-group", node_group)):
        if given is not None:
            raise KexplainError(f"{flag} needs node groups: --node-groups FILE, or {REPORTED} among --nodes "
                                "(none is there)")


# The kinds of the objects that may report node groups (`cloudprovider.REPORTING_KINDS`), asked
# first without importing the autoscaler.
MAY_REPORT = frozenset({"ConfigMap", "MachineDeployment", "MachineSet", "Machine"})


def reports_node_groups(cluster: list) -> bool:
    """Whether --nodes holds objects that report node groups (`cloudprovider.reporting_objects`:
    the cluster is kept for CA's loop); a cluster without any object of their kinds is answered
    without importing the autoscaler."""
    from kexplain.apimachinery import columns
    rows = columns.rows_of(cluster)
    kinds = set(rows.kinds) if rows is not None else {o.get("kind") for o, _ in cluster}
    if not kinds & MAY_REPORT:
        return False
    from kexplain.autoscaler.cloudprovider import reporting_objects
    return bool(reporting_objects(cluster))


def check_groups(groups: "GroupsRequest", kube: "KubeVersion") -> None:
    """Read the cluster and settings the groups need, for nothing else than refusing bad input
    when no pod is left for CA (a bad file is refused whatever the verdicts)."""
    from kexplain.autoscaler.pending import load_groups
    load_groups(groups, kube)


def with_found(doc: dict, groups: "GroupsRequest") -> dict:
    """`doc` with, when the groups were found in the cluster, where (key `nodeGroupsFound`)."""
    from kexplain.autoscaler.cloudprovider import provenance

    found = groups.groups
    return {**doc, "nodeGroupsFound": provenance(found)} if not found.file else doc


@dataclass
class AutoscalerRun:
    """The autoscalers' pass over what was explained: each one's answers (for CA, the loop it
    ran, which the node-group suggestions run again with a change) and the pass it ran over."""

    passes: list["PassAnswers"]
    pending: "PendingPass"
    loop: Any = None

    @property
    def explained(self) -> bool:
        """Some pod explained is among the pending pods (not only the cluster's own)."""
        return any(p.stands_for for p in self.pending.pending)

    @property
    def document(self) -> dict:
        """The Cluster Autoscaler's document (-o json's key `autoscaler`; {} when CA did not run)."""
        from kexplain.autoscaler.pending import DOCUMENT_KEY
        return next((p.document for p in self.passes if p.key == DOCUMENT_KEY), {})

    @property
    def documents(self) -> dict[str, dict]:
        """Each autoscaler's document under its key of -o json (`autoscaler`, `karpenter`)."""
        return {p.key: p.document for p in self.passes}

    def joined(self, other: "Optional[AutoscalerRun]") -> "AutoscalerRun":
        """This run and `other`'s passes over the same pending pass (CA and Karpenter both)."""
        if other is None:
            return self
        return AutoscalerRun([*self.passes, *other.passes], self.pending, self.loop if self.loop is not None
                             else other.loop)

    def pod(self, key: str) -> list[dict]:
        """A pod's slot (key `autoscalers`): every autoscaler's answer for it."""
        from kexplain.explain.pending_pass import answers_json
        return answers_json(self.passes, key)

    def standing_for(self, explained: str) -> list[dict]:
        """An explained object's slot: the answers for each of its pending pods."""
        from kexplain.explain.pending_pass import copies_json
        return copies_json(self.passes, self.pending, explained)


def run_autoscalers(groups: "GroupsRequest", kube: "KubeVersion", pp: "PendingPass",
                    explained: Optional[str] = None) -> AutoscalerRun:
    """ONE Cluster Autoscaler loop over the pass (`kexplain.autoscaler.pending.run_pass`), with
    every Filter plugin on each template for the pod `explained` (a key; default: the first of
    the set). Its document gets where the groups were found and what the pass held
    (`pendingPass`)."""
    from kexplain.autoscaler.pending import load_groups, run_pass
    from kexplain.explain.pending_pass import pass_json

    loop, merged, answers = run_pass(load_groups(groups, kube, applied=pp), pp, explained)
    doc = with_found(answers.document, groups)
    doc["pendingPass"] = pass_json(merged)
    return AutoscalerRun([replace(answers, document=doc)], merged, loop)


def autoscaled(trace: dict, groups: "GroupsRequest", kube: "KubeVersion", pp: "PendingPass",
               pod: "PodInfo") -> AutoscalerRun:
    """The CA loop over the pass for one explained pod: the trace's `autoscaler` (the document)
    and `autoscalers` (its answer) keys; its suggestions, when the trace has some, in place of
    add-node (`suggest.node_groups`)."""
    from kexplain.autoscaler.pending import loop_document
    from kexplain.suggest.node_groups import with_group_suggestions

    run = run_autoscalers(groups, kube, pp, pod.key)
    trace["autoscaler"] = run.document
    trace["autoscalers"] = run.pod(pod.key)
    explained = next((p for p in run.loop.pending if p.key == pod.key), pod)
    if "suggestions" in trace:
        trace["suggestions"] = with_group_suggestions(trace["suggestions"], run.loop, explained, run.document,
                                                      loop_document)
    return run


# CA's answer that says it finds room for the pod on an existing node (what Scheduled is to the scheduler).
FITS_EXISTING = ("FilteredOut", "FilterOutSchedulable")
SCHEDULER_VERDICTS = ("Scheduled", "Unschedulable")


def with_scheduler(answers: list[dict], status: str, node: Optional[str] = None,
                   doc: Optional[dict] = None) -> list[dict]:
    """A pod's answers (`autoscalers`) with CA's compared with the scheduler's verdict on it in
    its queue (`status`; `node`: where it goes when Scheduled): key `scheduler`, whether they
    agree that it fits the existing nodes (Scheduled, and CA's FilterOutSchedulable) or not,
    and why they may differ (`doc`, CA's document: the pods CA put on that node first). The
    other answers, and every answer for a verdict that is neither Scheduled nor Unschedulable,
    as they are."""
    from kexplain.autoscaler.pending import CLUSTER_AUTOSCALER

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
    if not fits:
        return f"CA's loop finds room for it on {answer.get('node') or 'an existing node'}, where the scheduler's " \
               f"queue does not ({order})"
    first = [f"{p['namespace']}/{p['name']}" for p in doc.get("pods") or ()
             if (p.get("outcome"), p.get("filteredBy")) == FITS_EXISTING and node and p.get("node") == node]
    there = f"puts {', '.join(first)} on {node} first and " if first else ""
    return f"CA's loop {there}finds no room left for it on the existing nodes, where the scheduler's queue " \
           f"places it{f' on {node}' if node else ''} ({order})"


def annotated_list(doc: dict, run: Optional[AutoscalerRun]) -> dict:
    """A SchedulingTraceList (or its `placements`) with the autoscalers' pass: the list's key
    `autoscaler` (CA's document); each object's `placements` entry with the answers for its
    pending pods (`autoscalers`, every copy's, in copy order) and the copies its controller has
    not created (`notYetCreated`); each trace of a pod left pending with its own answers
    (`autoscalers`)."""
    if run is None:
        return doc
    out = dict(doc)
    out["placements"] = [_placement(p, run) for p in doc.get("placements") or ()]
    if "items" in doc:
        out["items"] = [with_answers(t, run) for t in doc["items"]]
    out.update(run.documents)
    return out


def _placement(placement: dict, run: AutoscalerRun) -> dict:
    """An object's `placements` entry with its pods' answers (`autoscalers`) and the copies its
    controller has not created, which no autoscaler sees (`notYetCreated`)."""
    from kexplain.explain.pending_pass import not_created_json, object_ref

    obj = placement["object"]
    ref = object_ref(obj["kind"], obj["namespace"], obj["name"])
    missing = not_created_json(run.pending, ref)
    return {**placement, "autoscalers": run.standing_for(ref), **({"notYetCreated": missing} if missing else {})}


def with_answers(trace: dict, run: AutoscalerRun) -> dict:
    """An item of a list (a pod's trace) with its pod's answers (`autoscalers`) when the pass
    held it: each pod's answers sit on its item, offline as live (`pod --pending`)."""
    pod = trace.get("pod") or {}
    answers = run.pod(f"{pod.get('namespace')}/{pod.get('name')}")
    return {**trace, "autoscalers": answers} if answers else trace
