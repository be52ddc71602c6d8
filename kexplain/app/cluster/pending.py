"""Section "pending": every pod Pending with PodScheduled=False (gated pods among them), explained
as ONE batch as `kexplain pod --pending -A` explains a live cluster's (`app.live.explain_pending`:
each pod alone, the scheduler's queue over them, ONE autoscalers' pass over every pending pod),
over the cluster state read once; then grouped by owner (a ReplicaSet's pods by its Deployment) and
by the scheduler's answer, each group one row with the answer of its first pod as listed."""
from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any, Optional

from kexplain.app.autoscalers import MAY_REPORT, kinds_of
from kexplain.app.cluster.inputs import ClusterInputs
from kexplain.app.cluster.kueue_config import REFUSED, configuration_refused
from kexplain.app.live import (Connect, Explained, Live, Pending, PodArgs, discovery_error, explain_pending,
                               verdict_in_queue)
from kexplain.autoscaler.cloudprovider import Discovery, discover_in
from kexplain.errors import KexplainError
from kexplain.explain.compare import compare, pod_key
from kexplain.explain.run import explain
from kexplain.state.objects import among_kinds
from kexplain.framework.trace import SCHEDULED, UNSCHEDULABLE
from kexplain.suggest import suggestions as suggest

NAME = "pending"
TITLE = "Pending pods"
FILES = "files"     # the `server` a Live read from files names


class _Bar:
    """No progress bar: the report is one document."""

    def update(self, *_: Any, **__: Any) -> None:
        return None


def live_of(inputs: ClusterInputs) -> Live:
    """The cluster as `kexplain pod -A` reads it live, made of the files' objects: its node groups
    found among them as a replay of a snapshot finds them (CA's status ConfigMap, Cluster API's)."""
    objects = inputs.objects
    groups: Optional[Discovery] = None
    if kinds_of(as_read(inputs)) & MAY_REPORT:
        try:
            groups = discover_in(objects)
        except KexplainError as err:
            groups = Discovery(notes=(f"the autoscaler's node groups could not be found: {err}",), sources=("error",))
    return Live(FILES, None, inputs.request.namespace or "default", objects, server_version=None, node_groups=groups)


def as_read(inputs: ClusterInputs) -> list:
    """`inputs.objects` as read: a dump itself (`columns.Dump`), whose rows answer what kinds it
    holds without a pass over its 150,000 objects; read only."""
    read = inputs.state.read
    return read if read is not None else inputs.objects


def pod_args(inputs: ClusterInputs, name: Optional[str] = None) -> PodArgs:
    """`kexplain pod -A` (or `kexplain pod NAME`) as the report asks it: the trace kept (its fixes),
    CA's node groups of --node-groups and its flags of --autoscaler-config."""
    every = name is None and inputs.request.namespace is None        # -n: its namespace's pending pods only
    return PodArgs(name, Connect(), all_namespaces=every, pending=name is None, details=name is None,
                   node_groups=inputs.request.node_groups, autoscaler_config=inputs.request.autoscaler_config,
                   now=inputs.request.now)


class OncePerGroup:
    """The fixes of the batch (`explain_each`'s suggester): found for the first Unschedulable pod of
    each owner and scheduler's answer only, as a row shows its first pod's; the pods they were found
    for kept (`ran`), so that a row whose first pod is not one of them has its own found after."""

    def __init__(self, owners: "Owners") -> None:
        self.owners = owners
        self.seen: set[tuple] = set()
        self.ran: set[str] = set()

    def __call__(self, inputs: Any, trace: Any, options: Any) -> list:
        owner = self.owners.owner(inputs.pod.obj)
        key = (owner["namespace"], owner["kind"], owner["name"], trace.result.status, trace.result.message)
        if key in self.seen:
            return []
        self.seen.add(key)
        self.ran.add(pod_key(inputs.pod.obj))
        return suggest(inputs, trace, options)


def explained(inputs: ClusterInputs, said: list[str], suggester: Any = suggest) -> Pending:
    """Every pending pod explained as `kexplain pod -A` explains them, over the one state; node
    groups that could not be found said (`kexplain pod` ends such a run with its error)."""
    state = inputs.state
    live = live_of(inputs)
    failed = discovery_error(live)
    if failed is not None:
        said.append(f"note: {failed}: no Cluster autoscaler answer")
    return explain_pending(pod_args(inputs), live, state.config, said.append, structured=False,
                           progress=lambda: nullcontext(_Bar()), built=(state.snapshot, state.nominated),
                           suggester=suggester)


def own_fixes(done: Pending, e: Explained) -> list[dict]:
    """The verified fixes of one pod explained alone (its trace again, then `suggest`), for a row
    whose first pod's were not found in the batch: as `kexplain pod NAME` finds them."""
    inputs = e.alone.inputs
    return [f.to_json() for f in suggest(inputs, explain(inputs, done.options), done.options)]


def section(inputs: ClusterInputs) -> dict:
    """The section's document: one row per owner and answer, the most pods first."""
    said: list[str] = []
    owners = Owners.of(inputs)
    once = OncePerGroup(owners)
    try:
        done = explained(inputs, said, once)
    except KexplainError as err:        # Kueue's pass over its pods: its Configuration refused, said
        refused = configuration_refused(inputs)
        if refused is None or str(err) != refused:
            raise
        return {"name": NAME, "title": TITLE, "skipped": REFUSED + refused}
    groups: dict[tuple, dict] = {}
    first: dict[str, Explained] = {}
    for e in done.explained:
        row = pod_row(done, e)
        owner = owners.owner(e.pod)
        key = (owner["namespace"], owner["kind"], owner["name"], reason_key(row))
        group = groups.get(key)
        if group is None:
            groups[key] = {"owner": owner, "count": 1, "pods": [row["pod"]], **row}
            first[row["pod"]] = e
            if inputs.request.html and e.trace is not None:     # the page: its first pod's `kexplain pod NAME`
                groups[key]["trace"] = page_trace(e, row)
        else:
            group["count"] += 1
            group["pods"].append(row["pod"])
    rows = sorted(groups.values(), key=lambda g: (-g["count"], g["pod"]))
    for row in rows:
        e = first[row.pop("pod")]
        if e.alone is not None and e.alone.status == UNSCHEDULABLE and pod_key(e.pod) not in once.ran:
            fixes = own_fixes(done, e)
            row.pop("suggestions", None)
            row.update({"suggestions": fixes[:1]} if fixes else {})
            if "trace" in row and fixes:        # (the page's first pod says them too)
                row["trace"] = {**row["trace"], "suggestions": fixes}
    pods = sum(r["count"] for r in rows)
    out: dict[str, Any] = {"name": NAME, "title": TITLE, "held": len(rows), "pods": pods, "rows": rows}
    if done.doc is not None:
        out["autoscaler"] = done.doc
    if done.karpenter is not None:
        out["karpenter"] = done.karpenter
    if said:
        out["notes"] = said
    return out


def pod_row(done: Pending, e: Explained) -> dict:
    """One pending pod's answer, in the keys of `kexplain pod NAME -o json`'s trace: its verdict as
    the queue leaves it (`result`), its PostFilter (preemption), its gates (`preEnqueue`), its first
    verified fix, the autoscalers' answers; a pod kexplain could not explain: why (`skipped`)."""
    if e.alone is None:
        return {"pod": pod_key(e.pod), "result": {"status": "Error", "message": e.skipped}, "skipped": e.skipped}
    queue = {"queue": e.queue} if e.queue else {}
    verdict = verdict_in_queue({**e.slim, **queue})
    trace = e.trace or e.slim
    post = (e.queue or {}).get("postFilter") if e.queue else trace.get("postFilter")
    row: dict[str, Any] = {"pod": pod_key(e.pod), "result": verdict}
    if verdict.get("status") == SCHEDULED:      # still Pending in the cluster: where it would go, not "Scheduled"
        row["fitsNow"] = fits_now(verdict, trace, bool(e.queue))
    if post:
        row["postFilter"] = {k: post[k] for k in ("code", "message", "nominatedNodeName") if k in post}
        row["preemptionHelps"] = bool(post.get("nominatedNodeName"))
    gates = [p for p in trace.get("preEnqueue") or () if p.get("reasons")]   # (the plugins that hold it)
    if gates:
        row["preEnqueue"] = gates
    fixes = trace.get("suggestions") or []
    if fixes:
        row["suggestions"] = fixes[:1]
    row.update(done.answers(e, verdict))
    if e.kueue is not None:
        row["kueue"] = e.kueue
    return row


def fits_now(verdict: dict, trace: dict, queued: bool) -> dict:
    """Where kube-scheduler would bind a pod the cluster still has Pending, as `kexplain pod
    --pending` says it ("fits now: would be bound to NODE"): its node, or, when its kube-scheduler
    picks among top-scored nodes at random (before 1.35) and no pod ahead in the queue decided it,
    those nodes."""
    tied = list(verdict.get("selectedNodes") or ()) if trace.get("tieBreak") == "random" and not queued else []
    if len(tied) > 1:
        return {"oneOf": tied, "atRandom": True}
    return {"node": verdict.get("suggestedHost") or next(iter(verdict.get("selectedNodes") or ()), "")}


def page_trace(e: Explained, row: dict) -> dict:
    """A pod's trace as `kexplain pod --pending --html` shows it: the queue's answer and the
    autoscalers' and Kueue's with it (`--html` only: -o json leaves it out, `report.as_written`);
    a pod it would bind now with its comparison to the PodScheduled condition (`live`: still
    Pending, what the scheduler said), as that page has it."""
    trace = {**(e.trace or {}), **({"queue": e.queue} if e.queue else {}),
             **{k: row[k] for k in ("autoscalers", "kueue") if k in row}}
    if "fitsNow" in row:
        said = compare({**(e.trace or e.slim), "result": row["result"]}, e.pod, config_given=False,
                       server_version=None, hints=e.hints)
        trace["live"] = said.to_json()
    return trace


def reason_key(row: dict) -> tuple:
    """What makes two pods of one owner one row: the scheduler's verdict and words, their gates."""
    result = row["result"]
    gates = tuple(r for p in row.get("preEnqueue") or () for r in p.get("reasons") or ())
    return result.get("status"), result.get("message") or "", gates


OWNER_KINDS = frozenset({"ReplicaSet", "Job"})        # the controllers a pod's owner is read through


@dataclass(frozen=True)
class Owners:
    """The controllers' ownerReferences, read once: a pod's owner as a user names it (a ReplicaSet's
    pods by its Deployment, a Job's by its CronJob)."""

    refs: dict[tuple[str, str, str], tuple[str, str]]

    @classmethod
    def of(cls, inputs: ClusterInputs) -> "Owners":
        refs: dict[tuple[str, str, str], tuple[str, str]] = {}
        for obj, _ in among_kinds(as_read(inputs), OWNER_KINDS):     # (a dump's: chosen off its rows)
            kind = obj.get("kind")
            if kind not in OWNER_KINDS:
                continue
            meta = obj.get("metadata") or {}
            ref = _controller(meta)
            if ref is not None:
                refs[(kind, meta.get("namespace") or "default", str(meta.get("name") or ""))] = ref
        return cls(refs)

    def owner(self, pod: dict) -> dict:
        """The pod's top controller (kind, namespace, name); a pod of none is its own owner."""
        meta = pod.get("metadata") or {}
        namespace = meta.get("namespace") or "default"
        ref = _controller(meta)
        if ref is None:
            return {"kind": "Pod", "namespace": namespace, "name": str(meta.get("name") or "")}
        for _ in range(2):          # at most two steps up: Pod -> ReplicaSet -> Deployment, Pod -> Job -> CronJob
            up = self.refs.get((ref[0], namespace, ref[1]))
            if up is None:
                break
            ref = up
        return {"kind": ref[0], "namespace": namespace, "name": ref[1]}


def _controller(meta: dict) -> Optional[tuple[str, str]]:
    """The controller reference of an object's metadata (kind, name), or None."""
    for ref in meta.get("ownerReferences") or ():
        if isinstance(ref, dict) and ref.get("controller"):
            return str(ref.get("kind") or ""), str(ref.get("name") or "")
    return None

