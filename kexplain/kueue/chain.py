"""The chain from Kueue to the node: `kexplain POD --nodes CLUSTER` when the objects hold Kueue's
(ResourceFlavors, ClusterQueues, LocalQueues, ...). Before the scheduler sees a pod of a Job,
Pod or JobSet labelled `kueue.x-k8s.io/queue-name`, Kueue decides whether it runs: `Chain`
runs Kueue's pass over the POD file's managed objects and the cluster's Kueue objects
(`kexplain.kueue.run`), then hands back the objects as Kueue leaves them:

- admitted: started as Kueue starts it (the integration's RunWithPodSetsInfo, or the pod
  integration's Run): a Job unsuspended (its parallelism set to the admitted count under partial
  admission), a Pod ungated, a JobSet unsuspended; each pod template merged with its pod set's
  `PodSetInfo` (`kexplain.kueue.podset`: the flavors' node labels and tolerations), so the
  scheduler's answer (and the autoscalers') is for the pods Kueue lets run;
- not admitted: held as Kueue's webhooks hold it: a Job suspended, a Pod gated
  (`kueue.x-k8s.io/admission`, and `kueue.x-k8s.io/topology` while TopologyAwareScheduling is
  on, as it is by default);
- a JobSet becomes the Jobs its controller creates, one per replica of each replicated job
  (`<jobset>-<replicated job>-<index>`), suspended with it.

Each object made carries Kueue's answer (`answers`, by kind, namespace and name): the Workload,
its verdict, and where admitted the ClusterQueue and what was merged into its pods; where not,
Kueue's message and kexplain's explanation of it (`kexplain.kueue.explain`). Objects without
the label, or a set without Kueue objects, pass unchanged. Nothing here prints."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any, Iterable, Mapping, Sequence

from kexplain.apimachinery import columns
from kexplain.explain.inputs import Loaded
from kexplain.kueue.apis import constants as c

Objects = Sequence[tuple[Any, Any]]
# What Kueue's pass reads of the cluster: its own kinds, and what pod admission reads
# (`kexplain.kueue.inputs.ADMISSION_CONTEXT`)
READ_KINDS = c.KINDS | frozenset({"Namespace", "PriorityClass", "LimitRange", "RuntimeClass"})
# The kinds Kueue's integrations manage and their API groups: the registry's
# (`kexplain.kueue.controller.jobs.INTEGRATIONS`; a test keeps the two in step), which is
# imported only when Kueue's objects are there
MANAGED_KINDS = {"Job": "batch", "Pod": "", "JobSet": "jobset.x-k8s.io"}
ADMITTED = "Admitted"


def kind_of(obj: Any) -> str:
    kind = obj.get("kind") if isinstance(obj, Mapping) else None
    return kind if isinstance(kind, str) else ""


def meta_of(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def object_key(obj: Mapping[str, Any]) -> tuple[str, str, str]:
    """(kind, namespace, name) of an object of the POD file, as its entry names it."""
    meta = meta_of(obj)
    return kind_of(obj), str(meta.get("namespace") or "default"), str(meta.get("name") or "")


def is_kueue(obj: Any) -> bool:
    api = obj.get("apiVersion") if isinstance(obj, Mapping) else None
    return isinstance(api, str) and api.split("/", 1)[0] == c.GROUP and kind_of(obj) in c.KINDS


def managed(obj: Any) -> bool:
    """A Job, Pod or JobSet Kueue manages: its integration's kind and group, and the queue-name label."""
    kind = kind_of(obj)
    if not isinstance(obj, dict) or kind not in MANAGED_KINDS:
        return False
    api = str(obj.get("apiVersion") or "")
    labels = meta_of(obj).get("labels")
    return ((api.rsplit("/", 1)[0] if "/" in api else "") == MANAGED_KINDS[kind]
            and isinstance(labels, Mapping) and bool(labels.get(c.QUEUE_NAME_LABEL)))


def of_kinds(objects: Iterable[tuple[Any, Any]], kinds: frozenset[str]) -> Objects:
    """The objects of `kinds` (a dump's asked of its rows: its pods are never looked at)."""
    rows = columns.rows_of(objects)
    if rows is not None:
        return [pair for kind in sorted(kinds) for pair in columns.of_kind(objects, rows, kind)]  # type: ignore[arg-type]
    return [(o, s) for o, s in objects if isinstance(o, dict) and kind_of(o) in kinds]


def has_kueue(objects: Iterable[tuple[Any, Any]]) -> bool:
    """Whether a set of objects holds any of Kueue's."""
    return any(is_kueue(o) for o, _ in of_kinds(objects, c.KINDS))


@dataclass
class Chain:
    """`prepare` for `kexplain.explain.inputs.load`: called with the POD file's objects and the
    cluster's, it returns the POD file's objects as Kueue leaves them and keeps Kueue's answer
    for each object it made (`answers`). `now`: the clock of Kueue's pass (default: when it runs)."""

    validate: str = "strict"
    now: datetime | None = None
    version: str | None = None
    answers: dict[tuple[str, str, str], dict[str, Any]] = field(default_factory=dict)

    def __call__(self, objs: Objects, cluster: Objects) -> Objects:
        submitted = [i for i, (o, _) in enumerate(objs) if managed(o)]
        if not submitted:
            return objs
        chosen = set(submitted)
        context = [*of_kinds(cluster, READ_KINDS),
                   *((o, s) for i, (o, s) in enumerate(objs) if i not in chosen and kind_of(o) in READ_KINDS)]
        if not any(is_kueue(o) for o, _ in context):
            return objs
        # Kueue's pass, imported only now: a run without Kueue's objects never pays its 0.15 s
        from kexplain.kueue.started import held_or_started
        now = self.now or datetime.now(timezone.utc).replace(microsecond=0)
        made, answers = held_or_started(objs, submitted, context, validate=self.validate, now=now,
                                        version=self.version)
        self.answers.update(answers)
        return made

    def attach(self, loaded: Loaded) -> Loaded:
        """`loaded` with each batch entry Kueue answered for carrying the answer (`Entry.kueue`)."""
        if not self.answers:
            return loaded
        loaded.batch = [replace(e, kueue=self.answers[(e.kind, e.namespace, e.name)])
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


def live_answer(pod: Mapping[str, Any], cluster: Objects) -> dict[str, Any] | None:
    """Kueue's answer for a pod read from a cluster (`kexplain pod NAME`), with its Workload's
    status as stored beside it (`kexplain.kueue.started.live_answer`); None when Kueue does not
    manage it or the cluster has none of Kueue's objects."""
    if not managed(pod):
        return None
    context = of_kinds(cluster, READ_KINDS)
    if not any(is_kueue(o) for o, _ in context):
        return None
    from kexplain.kueue.started import live_answer as computed      # the pass: only now (see `Chain`)
    return computed(dict(pod), context, datetime.now(timezone.utc).replace(microsecond=0))
