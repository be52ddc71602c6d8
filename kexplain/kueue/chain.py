"""The chain from Kueue to the node: before the scheduler sees a pod of a Job, Pod or JobSet Kueue
manages, Kueue decides whether it runs (`Chain`: admitted, started; else held); live, the same for
the cluster's pods, those its jobs' operators made answered from their stored Workloads (`live_kueue`)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any, Callable, Mapping

from kexplain.explain.inputs import Loaded
from kexplain.kueue.apis.constants import (ADMISSION_GATE, CHECK_READY, FINISHED, KINDS, POD_GROUP_NAME_LABEL,
                                           QUOTA_RESERVED)
from kexplain.kueue.config_file import submitted_of
from kexplain.kueue.external_jobs import with_not_explained
from kexplain.kueue.pod_workload import POD_SET_LABEL, Link, Workloads
from kexplain.kueue.objects import (ADMITTED, READ_KINDS, Objects, candidates, holds_kinds, is_kueue,
                                    kind_of, managed, meta_of, of_kinds, with_tas)


@dataclass
class Chain:
    """`prepare` for `kexplain.explain.inputs.load`: the POD file's objects as Kueue leaves them, with
    Kueue's answer for each object it made (`answers`); `now`: the pass's clock."""

    validate: str = "strict"
    now: datetime | None = None
    version: str | None = None
    answers: dict[tuple[str, str, str], dict[str, Any]] = field(default_factory=dict)
    fixes: Any = None       # Kueue's verified fixes for a held job (`kexplain.kueue.started.Fixes`), if sought
    # who answers the ProvisioningRequests Kueue creates, from the cluster's objects (None: no one):
    # the Cluster Autoscaler with node groups (`app.cluster_autoscaler.kueue_provisioner`)
    provisioner: Any = None
    config: tuple = ()      # Kueue's Configuration read from --kueue-config (as a cluster object)

    def __call__(self, objs: Objects, cluster: Objects) -> Objects:
        # an external framework's job: Kueue's, its Workload its own controller's (said, not explained)
        objs = with_not_explained(objs, cluster, self.config)
        labelled, unlabelled = candidates(objs)
        if not labelled and not unlabelled:
            return objs
        if not any(holds_kinds(found, KINDS) for found in (cluster, self.config, objs)):
            return objs         # (no Kueue object anywhere: the context below would hold none either)
        chosen = {*labelled, *unlabelled}
        context = with_tas([*of_kinds(cluster, READ_KINDS), *self.config,
                            *((o, s) for i, (o, s) in enumerate(objs) if i not in chosen and kind_of(o) in READ_KINDS)],
                           cluster)
        if not any(is_kueue(o) for o, _ in context):
            return objs
        submitted = submitted_of(labelled, unlabelled, context, objs)
        if not submitted:
            return objs
        # Kueue's pass, imported only now: a run without Kueue's objects never pays its 0.15 s
        from kexplain.kueue.started import held_or_started
        now = self.now or datetime.now(timezone.utc).replace(microsecond=0)
        capacity = self.provisioner(cluster) if self.provisioner is not None else None
        made, answers = held_or_started(objs, submitted, context, validate=self.validate, now=now,
                                        version=self.version, fixes=self.fixes, capacity=capacity)
        self.answers.update(answers)
        return made

    def attach(self, loaded: Loaded) -> Loaded:
        """`loaded` with each batch entry Kueue answered for carrying the answer (`Entry.kueue`)."""
        if not self.answers:
            return loaded
        loaded.batch = [_answered(e, self.answers[(e.kind, e.namespace, e.name)])
                        if (e.kind, e.namespace, e.name) in self.answers else e for e in loaded.batch]
        return loaded

    def answer_for(self, pod: Mapping[str, Any]) -> dict[str, Any] | None:
        """Kueue's answer for a pod explained alone: the Pod's own, or its owner's (a Job's)."""
        meta = meta_of(pod)
        namespace = str(meta.get("namespace") or "default")
        found = self.answers.get(("Pod", namespace, str(meta.get("name") or "")))
        for ref in meta.get("ownerReferences") or ():
            if found is None and isinstance(ref, Mapping):
                found = self.answers.get((str(ref.get("kind")), namespace, str(ref.get("name"))))
        return found


def _answered(entry: Any, answer: dict[str, Any]) -> Any:
    """The entry with Kueue's answer; a held operator's pod set (`idle`: no pod exists) explained unbound."""
    if answer.get("idle"):
        return replace(entry, kueue=answer, idle=str(answer["idle"]), copies=1, replicated=False)
    return replace(entry, kueue=answer)


@dataclass(frozen=True)
class LiveChain:
    """A live pod as Kueue leaves it (`pod`: started when Kueue admits it, else as it came) and
    Kueue's answer for it; `started`: the pod is the one Kueue ungates (its admission gate, or its
    topology ungater's: `linked.topology_ungated`), not the one stored."""

    pod: dict[str, Any]
    answer: dict[str, Any]
    started: bool


@dataclass(frozen=True)
class Held:
    """A Workload the cluster stores not admitted (no quota reserved, or quota reserved while its
    admission checks are not all Ready; nor finished, nor deactivated) that no pod of the pass
    stands for: its job's pods are not created (a Job Kueue keeps suspended, a JobSet, ...).
    `owner`: its controller (kind, namespace, name), if any; `answer`: Kueue's answer now
    (`verdict`, `clusterQueue`, `message`, `explanation`, or with quota reserved its
    `admissionChecks`) with the stored status (`live`)."""

    workload: str                       # NAMESPACE/NAME
    namespace: str
    owner: tuple[str, str, str] | None
    answer: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        owner = {"owner": dict(zip(("kind", "namespace", "name"), self.owner))} if self.owner else {}
        return {"workload": self.workload, **owner, "kueue": self.answer}


@dataclass(frozen=True)
class LiveKueue:
    """Kueue's one pass over a live cluster: each pod as Kueue leaves it (None: not Kueue's), and the
    Workloads it holds whose pods do not exist (`Held`), in the order stored."""

    chains: list[LiveChain | None]
    held: list[Held] = field(default_factory=list)
    notes: tuple[str, ...] = ()     # the pods Kueue started whose Workload is not found (`Workloads.unlinked`)


def live_kueue(pods: list[Mapping[str, Any]], cluster: Objects, *, version: str | None = None,
               now: datetime | None = None, capacity: Any = None, fixes: Any = None,
               capacity_of: Callable[[], Any] | None = None) -> LiveKueue:
    """Kueue's ONE pass over the cluster's Kueue objects (its Workloads as stored) with the `pods`
    it manages (`kexplain.kueue.started.live_run`): each pod as Kueue leaves it, and every Workload
    the cluster holds (`Held`) with Kueue's answer; nothing without Kueue's objects. `capacity`
    answers the ProvisioningRequests Kueue creates (CA with node groups), as in the files' chain;
    `capacity_of` makes it (in its place) only when the pass runs.
    A pod without the queue-name label that its job's operator made gets its job's stored Workload's
    answer (`_links`, `kexplain.kueue.linked`), as it is. `fixes` (`kexplain.suggest.kueue_held.kueue_fixes`,
    as the files' chain takes it) gives each held Workload not admitted Kueue's verified fixes (`suggestions`)."""
    chosen = [i for i, pod in enumerate(pods) if managed(pod)]
    out: list[LiveChain | None] = [None] * len(pods)
    context = with_tas(list(of_kinds(cluster, READ_KINDS)), cluster)
    workloads = [o for o, _ in context if kind_of(o) == "Workload" and is_kueue(o)]
    stored = [o for o in workloads if _held_in_cluster(o)]
    links, notes, index = _links(pods, set(chosen), workloads, cluster)
    if not (chosen or stored or links) or not any(is_kueue(o) for o, _ in context):     # (nothing held: no pass)
        return LiveKueue(out, notes=notes)
    from kexplain.kueue import linked, started as pass_      # the pass: only now (see `Chain`)
    if capacity_of is not None:
        capacity = capacity_of()
    live_run, stored_status = pass_.live_run, pass_.stored_status
    mates = group_mates([pods[i] for i in chosen], cluster)         # (Kueue loads a pod group whole)
    passed, done, doc = live_run([*(dict(pods[i]) for i in chosen), *mates], context,
                                 now or datetime.now(timezone.utc).replace(microsecond=0), version=version,
                                 capacity=capacity)
    passed = passed[:len(chosen)]
    for i, (made, answer) in zip(chosen, passed):
        pod = pods[i]
        started = answer.get("verdict") == ADMITTED and admission_gated(pod) and not admission_gated(made)
        out[i] = LiveChain(made if started else dict(pod), answer, started)
    told = {str(a["live"]["workload"]) for _, a in passed if isinstance(a.get("live"), Mapping)}
    items = {str(w.get("workload")): w for w in (doc.get("explanation") or {}).get("workloads") or ()}
    held = [_held(obj, done, items, stored_status(obj), pass_) for obj in stored]
    if fixes is not None and held:      # (from the same pass: `kexplain kueue`'s suggestions)
        found = fixes(done, doc)
        for h in held:
            if h.answer.get("verdict") not in (ADMITTED, QUOTA_RESERVED):
                h.answer["suggestions"] = list(found.get(h.workload, ()))
    by_key = {h.workload: h for h in held}
    answers = {i: linked.linked_answer(pods[i], link, done, by_key, stored_status(link.workload))
               for i, link in links.items()}
    for i, answer in answers.items():
        out[i] = LiveChain(dict(pods[i]), answer, False)
        told.add(str(answer["workload"]))
    if index is not None and any(linked.gated(pods[i]) for i in links):     # (the topology gate: its ungater's pass)
        mates = pod_set_mates([pods[i] for i in links], cluster)
        for i, (pod, given) in linked.topology_ungated(pods, answers, index, done, mates).items():
            out[i] = LiveChain(pod, {**answers[i], "topologyUngated": given}, True)
    return LiveKueue(out, [h for h in held if h.workload not in told], notes)


def _links(pods: list[Mapping[str, Any]], taken: set[int], workloads: list[Mapping[str, Any]],
           cluster: Objects) -> tuple[dict[int, Link], tuple[str, ...], Workloads | None]:
    """The pods (by index, but the `taken`) linked to a stored Workload Kueue holds or runs
    (`kexplain.kueue.pod_workload`; a finished or deactivated one's pods get no answer), why a
    pod Kueue started is linked to none, and the index that linked them."""
    if not workloads:
        return {}, (), None
    index = Workloads(workloads, cluster)
    found = [(i, index.link(pod)) for i, pod in enumerate(pods) if i not in taken]
    notes = tuple(note for i, link in found if link is None for note in [index.unlinked(pods[i])] if note)
    return {i: link for i, link in found if link is not None
            and (_held_in_cluster(link.workload) or _admitted_in_cluster(link.workload))}, notes, index


def _pod_labels(obj: Any) -> tuple[str, str, Mapping[str, Any]]:
    """A pod's namespace, name and labels (a dump's bound pod: read from its view, not decoded)."""
    view = getattr(obj, "view", None)
    if view is not None and view.metadata is not None:
        meta = view.metadata
        return meta.namespace or "default", meta.name or "", meta.labels or {}
    meta = meta_of(obj)
    labels = meta.get("labels")
    return str(meta.get("namespace") or "default"), str(meta.get("name") or ""), \
        labels if isinstance(labels, Mapping) else {}


def group_mates(pods: list[Mapping[str, Any]], cluster: Objects) -> list[dict[str, Any]]:
    """The cluster's other pods of the pod groups (`kueue.x-k8s.io/pod-group-name`) of `pods`: Kueue
    builds a group's Workload of all its pods, whichever one is asked about."""
    asked = {(ns, name) for ns, name, _ in map(_pod_labels, pods)}
    groups = {(ns, str(labels[POD_GROUP_NAME_LABEL])) for ns, _, labels in map(_pod_labels, pods)
              if labels.get(POD_GROUP_NAME_LABEL)}
    if not groups:
        return []
    out = []
    for obj, _ in cluster:
        if getattr(obj, "view", None) is None and kind_of(obj) != "Pod":     # (a dump's pod: its view says)
            continue
        namespace, name, labels = _pod_labels(obj)
        if (namespace, str(labels.get(POD_GROUP_NAME_LABEL) or "")) in groups and (namespace, name) not in asked:
            asked.add((namespace, name))
            out.append(dict(obj.obj) if hasattr(obj, "obj") else dict(obj))
    return out


def pod_set_mates(pods: list[Mapping[str, Any]], cluster: Objects) -> list[dict[str, Any]]:
    """The cluster's pods, in the order read, that carry a pod set label (`kueue.x-k8s.io/podset`) in
    the namespaces of `pods`: those the topology ungater may list with them (`linked.topology_ungated`)."""
    namespaces = {ns for ns, _, _ in map(_pod_labels, pods)}
    out = []
    for obj, _ in cluster:
        if getattr(obj, "view", None) is None and kind_of(obj) != "Pod":     # (a dump's pod: its view says)
            continue
        namespace, _, labels = _pod_labels(obj)
        if namespace in namespaces and labels.get(POD_SET_LABEL):
            out.append(dict(obj.obj) if hasattr(obj, "obj") else dict(obj))
    return out


def _held_in_cluster(obj: Mapping[str, Any]) -> bool:
    """A stored Workload Kueue holds: active, not finished, not admitted (its status's conditions): no
    quota reserved, or quota reserved and waiting for its admission checks (no Admitted=True)."""
    true = _running(obj)
    return true is not None and not {QUOTA_RESERVED, ADMITTED} <= true


def _admitted_in_cluster(obj: Mapping[str, Any]) -> bool:
    """A stored Workload Kueue admitted and runs: active, not finished, QuotaReserved and Admitted."""
    true = _running(obj)
    return true is not None and {QUOTA_RESERVED, ADMITTED} <= true


def _running(obj: Mapping[str, Any]) -> set[str] | None:
    """The condition types True on a stored Workload that is active and not finished (else None)."""
    spec = obj.get("spec") if isinstance(obj.get("spec"), Mapping) else {}
    status = obj.get("status") if isinstance(obj.get("status"), Mapping) else {}
    true = {str(cond.get("type")) for cond in status.get("conditions") or ()
            if isinstance(cond, Mapping) and cond.get("status") == "True"}
    return true if spec.get("active") is not False and FINISHED not in true else None


def _held(obj: Mapping[str, Any], done: Any, items: Mapping[str, Mapping[str, Any]], live: dict[str, Any],
          started: Any) -> Held:
    """A Workload the cluster holds, with Kueue's answer now: the explanation of a Workload left
    pending, the ClusterQueue that admits it, or the admission checks it waits for with quota reserved
    (`done`: the pass, `kexplain.kueue.run.Pass`; `started`: `kexplain.kueue.started`, imported with the
    pass: whether Kueue starts a Workload's job, the answer while its checks wait), and
    its status as stored (`live`)."""
    meta = meta_of(obj)
    namespace = str(meta.get("namespace") or "default")
    key = f"{namespace}/{meta.get('name') or ''}"
    spec = obj.get("spec") if isinstance(obj.get("spec"), Mapping) else {}
    answer: dict[str, Any] = {"kueueVersion": done.settings.version.label, "workload": key,
                              "queueName": spec.get("queueName")}
    item = items.get(key)
    wl = done.workloads.get(key)
    if item is None and wl is not None and wl.admission is not None and not started.starts(wl):     # its checks wait
        answer.update(started.reserved_answer(wl), message=waiting_for_checks(wl))
    elif item is None and wl is not None and wl.admission is not None:
        answer.update(verdict=ADMITTED, clusterQueue=wl.admission.cluster_queue)
    elif item is not None:
        answer["verdict"] = item.get("verdict")
        answer.update({k: item[k] for k in ("clusterQueue", "message") if item.get(k)})
        answer["explanation"] = item
    answer["live"] = live
    refs = [r for r in meta.get("ownerReferences") or () if isinstance(r, Mapping)]
    ref = next((r for r in refs if r.get("controller")), refs[0] if refs else None)
    owner = (str(ref.get("kind")), namespace, str(ref.get("name"))) if ref is not None else None
    return Held(key, namespace, owner, answer)


def waiting_for_checks(wl: Any) -> str:
    """Why a Workload holding quota is not admitted: the admission checks not Ready, with their states."""
    waiting = [f"{c.name} ({c.state}{': ' + c.message if c.message else ''})" for c in wl.admission_checks
               if c.state != CHECK_READY]
    return (f"quota reserved in ClusterQueue {wl.admission.cluster_queue}; waiting for admission checks: "
            f"{', '.join(waiting)}")


def admission_gated(pod: Mapping[str, Any]) -> bool:
    """The pod waits for Kueue's admission gate (`kueue.x-k8s.io/admission`)."""
    spec = pod.get("spec") if isinstance(pod.get("spec"), Mapping) else {}
    return any(isinstance(g, Mapping) and g.get("name") == ADMISSION_GATE for g in spec.get("schedulingGates") or ())
