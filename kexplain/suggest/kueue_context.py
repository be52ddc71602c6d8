"""What Kueue's fix families read for one pending Workload (`KueueContext`): the first pass,
the Workload, its last evaluation, and the object it came from as the user wrote it; and what
a family proposes (`Idea`: a kind, its values, the change as operations on the objects read)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

from kexplain.kueue.apis.constants import CLUSTER_SCOPED, QUEUE_NAME_LABEL
from kexplain.kueue.controller.jobframework.reconciler import JobOutcome
from kexplain.kueue.inputs import KueueInputs
from kexplain.kueue.run import Pass
from kexplain.kueue.scheduler.flavorassigner.flavorassigner import FlavorTrial, QuotaCheck
from kexplain.kueue.scheduler.scheduler import Entry
from kexplain.kueue.workload.workload import Workload
from kexplain.suggest.change import Op, pointer

# Where each kind keeps its pod sets' templates: (path to the pod spec, for pod set index i)
TEMPLATE_PATHS = {
    "Job": lambda i: ("spec", "template", "spec"),
    "Pod": lambda i: ("spec",),
    "JobSet": lambda i: ("spec", "replicatedJobs", i, "template", "spec", "template", "spec"),
    "Workload": lambda i: ("spec", "podSets", i, "template", "spec"),
}


@dataclass(frozen=True)
class Idea:
    """A change a family proposes: only an idea until Kueue's cycles run on the changed input
    admit the Workload. `values` say what it changes, for the renderer to word."""

    kind: str
    values: Mapping[str, Any]
    change: tuple[Op, ...]


@dataclass
class KueueContext:
    done: Pass
    inputs: KueueInputs
    workload: Workload
    entry: Entry | None
    owner: Mapping[str, Any] | None          # the submitted object (Job, Pod, JobSet) or the Workload
    owner_kind: str = ""
    outcome: JobOutcome | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def cluster_queue(self) -> str:
        name, _ = self.done.queues.cluster_queue_for(self.workload.meta.namespace, self.workload.spec.queue_name)
        return name

    def trials(self) -> Iterator[tuple[int, FlavorTrial]]:
        """The flavors of the last evaluation, with the index of their pod set."""
        if self.entry is None or self.entry.assignment is None:
            return
        for i, psa in enumerate(self.entry.assignment.pod_sets):
            for t in psa.trials:
                yield i, t

    def short_checks(self) -> list[tuple[int, QuotaCheck]]:
        """Each (pod set, quota check) of the last evaluation that found too little quota,
        once per (flavor, resource)."""
        seen: set[tuple[str, str]] = set()
        out = []
        for i, t in self.trials():
            for q in t.quotas:
                if q.assumed + q.request > q.available and (q.flavor, q.resource) not in seen:
                    seen.add((q.flavor, q.resource))
                    out.append((i, q))
        return out

    def template_path(self, pod_set: int) -> tuple[Any, ...] | None:
        make = TEMPLATE_PATHS.get(self.owner_kind)
        return None if make is None else make(pod_set)

    def queue_label_op(self, queue: str) -> Op | None:
        """The change naming another LocalQueue: the job's queue-name label, or the Workload's
        spec.queueName."""
        if self.owner is None:
            return None
        if self.owner_kind == "Workload":
            return {"op": "replace", "object": ref(self.owner), "path": "/spec/queueName", "value": queue}
        return {"op": "add", "object": ref(self.owner), "path": pointer("metadata", "labels", QUEUE_NAME_LABEL),
                "value": queue}


def ref(obj: Mapping[str, Any]) -> dict[str, str]:
    """The object a change applies to: kind, namespace (namespaced kinds) and name."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    kind = str(obj.get("kind") or "")
    out = {"kind": kind, "name": str(meta.get("name") or "")}
    if kind not in CLUSTER_SCOPED and kind not in ("Namespace", "ResourceFlavor", "PriorityClass"):
        out["namespace"] = str(meta.get("namespace") or "default")
    return out


def find(inputs: KueueInputs, kind: str, name: str, namespace: str = "") -> dict[str, Any] | None:
    """The object as read (the last of a kind and name, as the API server would end up with)."""
    index = _of_kind(inputs, kind)
    found = index.get((name, namespace))
    return index.get((name, "")) if found is None else found      # (a cluster-scoped kind: any namespace)


# The objects of each kind read, by (name, namespace as `ref` gives it, else ""): for the inputs
# last asked about (one pass's suggestions ask many times; a cluster dump is 160,000 objects).
_INDEX: dict[str, Any] = {"inputs": None, "kinds": {}}


def _of_kind(inputs: KueueInputs, kind: str) -> dict[tuple[str, str], dict[str, Any]]:
    if _INDEX["inputs"] is not inputs:
        _INDEX.update(inputs=inputs, kinds={})
    kinds: dict[str, dict[tuple[str, str], dict[str, Any]]] = _INDEX["kinds"]
    if kind not in kinds:
        out: dict[tuple[str, str], dict[str, Any]] = {}
        for objects in (inputs.submitted, inputs.cluster):
            for obj, _ in objects:
                if isinstance(obj, dict) and obj.get("kind") == kind:
                    r = ref(obj)
                    out[(r["name"], r.get("namespace", ""))] = obj
        kinds[kind] = out
    return kinds[kind]
