"""What lint asks of Kueue (rules `kueue-local-queue` and `kueue-never-fits`), and every Job, Pod and
JobSet Kueue manages as Kueue leaves it (`Checked.started`): started once admitted, else held (a Job
suspended, a Pod gated: Kueue's webhooks see to it), which lint schedules in its place."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kexplain.errors import KexplainError
from kexplain.kueue.operator_pods import KINDS as OPERATOR_KINDS
from kexplain.kueue.config_file import submitted_of
from kexplain.kueue.external_jobs import external_jobs
from kexplain.kueue.objects import (ADMITTED, QUOTA_RESERVED, READ_KINDS, Objects, candidates, checks_words, is_kueue,
                                    kind_of, of_kinds, with_tas)

LOCAL_QUEUE = "kueue-local-queue"
HELD = "kueue-held"     # (the linter's rule: what is said of an external framework's job, `external_jobs`)
NEVER_FITS = "kueue-never-fits"
Problem = tuple[int, str, str, dict[str, Any]]


@dataclass(frozen=True)
class Started:
    """A Job or Pod of the set as Kueue leaves it (started once admitted, else held), or a JobSet as the
    Jobs it makes; and Kueue's answer for it."""

    made: tuple[dict[str, Any], ...]
    answer: dict[str, Any]
    # Kueue's answer as the verdict on each of `made` carries it: a JobSet's Job also names
    # itself and its pod set (its replicated job), the JobSet's verdict being one per Job
    said: tuple[dict[str, Any], ...]

    @property
    def admitted(self) -> bool:
        return self.answer.get("verdict") == ADMITTED and "startError" not in self.answer


@dataclass(frozen=True)
class Checked:
    """Kueue's one pass over a set: its problems, every managed object as Kueue leaves it (by object
    index), and the Kueue objects or jobs the API server refuses (left out, the rest checked)."""

    problems: list[Problem] = field(default_factory=list)
    started: dict[int, Started] = field(default_factory=dict)
    refused: list[KexplainError] = field(default_factory=list)


def problems(objs: Objects, cluster: Objects, *, validate: str = "strict") -> list[Problem]:
    """The problems of the managed objects of `objs` (`checked`)."""
    return checked(objs, cluster, validate=validate).problems


def checked(objs: Objects, cluster: Objects, *, validate: str = "strict", version: str | None = None,
            capacity: Any = None) -> Checked:
    """Kueue's pass over the managed objects of `objs` (`version` None: v0.17.8) with Kueue's objects
    and the Namespaces of `objs` and `cluster`: their problems and each as Kueue leaves it; nothing
    when no Kueue object is given. `capacity` answers its ProvisioningRequests (CA), if anyone does."""
    # an external framework's job: Kueue's, its Workload its own controller's (said as `kexplain FILE` says it)
    said: list[Problem] = [(i, HELD, text, {}) for i, text in external_jobs(objs, cluster).items()]
    labelled, unlabelled = candidates(objs)
    if not labelled and not unlabelled:
        return Checked(said)
    chosen = {*labelled, *unlabelled}
    others = [(o, s) for i, (o, s) in enumerate(objs) if i not in chosen]
    # (the Nodes and bound pods too when TAS is there, as the chain reads them: one placement)
    context = with_tas([*of_kinds(cluster, READ_KINDS), *((o, s) for o, s in others if kind_of(o) in READ_KINDS)],
                       [*cluster, *others])
    if not any(is_kueue(o) for o, _ in context):
        return Checked(said)
    submitted = submitted_of(labelled, unlabelled, context, objs)
    if not submitted:
        return Checked(said)
    # Kueue's pass, imported only now: a lint without Kueue's objects never pays its 0.15 s
    from kexplain.kueue import lint_pass
    done, doc, refused = lint_pass.kueue_pass([objs[i] for i in submitted], context, validate=validate,
                                              version=version, capacity=capacity)
    gone = {id(err.source) for err in refused if err.source is not None}
    kept = [i for i in submitted if id(objs[i][1]) not in gone]
    items = {w["workload"]: w for w in doc["explanation"]["workloads"]}
    queues = {lq.key for lq in done.inputs.local_queues}
    out: list[Problem] = said
    begun: dict[int, Started] = {}
    # (a CronJob's Job, a Deployment's pods, a StatefulSet: what Kueue meets of them, `parts`), each
    # as Kueue leaves it (`lint_pass.left`: started, or held), the parts of one object joined
    for index, obj, outcome in lint_pass.parts(objs, kept, done.outcomes):
        if outcome.unmanaged:       # Kueue leaves it alone (`Management`): linted as written
            continue
        if kind_of(obj) in ("Job", "Pod", "JobSet", "StatefulSet") or kind_of(obj) in OPERATOR_KINDS:
            made, answer, said = lint_pass.left(obj, outcome, done, doc)
            begun[index] = _joined(begun.get(index), Started(tuple(made), answer, tuple(said)))
        wl = outcome.workload
        if wl is None or any(p[0] == index and p[3].get("localQueue") == wl.spec.queue_name for p in out):
            continue
        queue = f"{wl.meta.namespace}/{wl.spec.queue_name}"
        if queue not in queues:
            out.append((index, LOCAL_QUEUE, f"LocalQueue {wl.spec.queue_name} does not exist in namespace "
                        f"{wl.meta.namespace}: Kueue never admits its Workload",
                        {"localQueue": wl.spec.queue_name, "workload": wl.meta.key}))
            continue
        item = items.get(wl.meta.key)
        short = lint_pass.never_fits(item) if item is not None else None
        if short:
            cq = item.get("clusterQueue")
            out.append((index, NEVER_FITS, f"its Workload can never fit ClusterQueue {cq} as written, even with all "
                        f"it may borrow: {short}", {"workload": wl.meta.key, "clusterQueue": cq}))
    return Checked(out, begun, refused)


def _joined(before: Started | None, more: Started) -> Started:
    """What Kueue starts of one object made of several parts (a Deployment's pods)."""
    if before is None or not before.made:
        return more
    return Started(before.made + more.made, before.answer, before.said + more.said)


def held_words(said: dict[str, Any]) -> str:
    """Why Kueue holds a job, in a few words (its Workload, verdict and Kueue's reason); "" when admitted."""
    if said.get("verdict") == ADMITTED and not said.get("message"):
        return ""
    reason = said.get("message") or said.get("error") or ""
    if not reason and said.get("verdict") == QUOTA_RESERVED:     # held by its admission checks: say them
        reason = f"waits for its admission checks ({checks_words(said.get('admissionChecks')) or 'none synced yet'})"
    workload = f"Workload {said['workload']} " if said.get("workload") else ""
    return f"Kueue holds it ({workload}{said.get('verdict')}" + (f": {reason})" if reason else ")")
