"""The chain from Kueue to the node: `kexplain POD --nodes CLUSTER` when the objects hold Kueue's
(ResourceFlavors, ClusterQueues, LocalQueues, ...). Before the scheduler sees a pod of a Job,
Pod or JobSet labelled `kueue.x-k8s.io/queue-name`, Kueue decides whether it runs: `Chain`
runs Kueue's pass over the POD file's managed objects and the cluster's Kueue objects
(`kexplain.kueue.run`), then hands back the objects as Kueue leaves them (admitted: started;
else held)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any, Mapping

from kexplain.explain.inputs import Loaded
from kexplain.kueue.apis.constants import ADMISSION_GATE
from kexplain.kueue.objects import ADMITTED, READ_KINDS, Objects, is_kueue, kind_of, managed, meta_of, of_kinds

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


@dataclass(frozen=True)
class LiveChain:
    """A live pod as Kueue leaves it (`pod`: started when Kueue admits it, else as it came) and
    Kueue's answer for it; `started`: the pod is the one Kueue ungates, not the one stored."""

    pod: dict[str, Any]
    answer: dict[str, Any]
    started: bool


def live_chain(pod: Mapping[str, Any], cluster: Objects, *, version: str | None = None,
               now: datetime | None = None) -> LiveChain | None:
    """A pod read from a cluster (`kexplain pod NAME`, `--pending`) through Kueue: one pass over
    the cluster's Kueue objects (`live_chains`), as the Kueue release
    `version` decides (None: v0.17.8) at `now` (default: when it runs). A pod gated by Kueue's
    admission gate whose Workload Kueue admits (or the cluster admitted) comes back ungated, its
    pod set's flavors merged, so the scheduler's answer is for the pod Kueue lets run; any other
    pod comes back as it was (Kueue does not touch a pod it already let go). None when Kueue does
    not manage it or the cluster has none of Kueue's objects."""
    return live_chains([pod], cluster, version=version, now=now)[0]


def live_chains(pods: list[Mapping[str, Any]], cluster: Objects, *, version: str | None = None,
                now: datetime | None = None) -> list[LiveChain | None]:
    """`live_chain` for each of `pods` (`--pending`, `-A`), those Kueue manages in ONE pass of
    Kueue (`kexplain.kueue.started.live_started_all`): they compete for quota in Kueue's order."""
    chosen = [i for i, pod in enumerate(pods) if managed(pod)]
    out: list[LiveChain | None] = [None] * len(pods)
    if not chosen:
        return out
    context = of_kinds(cluster, READ_KINDS)
    if not any(is_kueue(o) for o, _ in context):
        return out
    from kexplain.kueue.started import live_started_all      # the pass: only now (see `Chain`)
    passed = live_started_all([dict(pods[i]) for i in chosen], context,
                              now or datetime.now(timezone.utc).replace(microsecond=0), version=version)
    for i, (made, answer) in zip(chosen, passed):
        pod = pods[i]
        started = answer.get("verdict") == ADMITTED and admission_gated(pod) and not admission_gated(made)
        out[i] = LiveChain(made if started else dict(pod), answer, started)
    return out


def admission_gated(pod: Mapping[str, Any]) -> bool:
    """The pod waits for Kueue's admission gate (`kueue.x-k8s.io/admission`)."""
    spec = pod.get("spec") if isinstance(pod.get("spec"), Mapping) else {}
    return any(isinstance(g, Mapping) and g.get("name") == ADMISSION_GATE for g in spec.get("schedulingGates") or ())
