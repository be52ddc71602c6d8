"""Kueue's rules, with Kueue's objects in the set or the pool: a job naming a LocalQueue its
namespace lacks (`kueue-local-queue`), one its ClusterQueue can never admit (`kueue-never-fits`),
one Kueue holds (`kueue-held`); each job Kueue manages linted as Kueue leaves it, started or held
(`kexplain.kueue.lint_checks`, Kueue's own pass)."""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from kexplain.kueue.lint_checks import LOCAL_QUEUE, NEVER_FITS, Started as KueueStarted, checked as kueue_checked, \
    held_words as kueue_held_words
from kexplain.kueue.objects import READ_KINDS as KUEUE_READ_KINDS, TAS_KINDS as KUEUE_TAS_KINDS, \
    of_kinds as kueue_of_kinds
from kexplain.lint.documents import Document, Location, line_of_field
from kexplain.lint.findings import VERDICT_RULES, Finding, ObjectRef
from kexplain.lint.rule import KUEUE, Severity, declare
from kexplain.lint.set_state import objects_of

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.lint.options import LintOptions
    from kexplain.state.cluster import ClusterState

KUEUE_HELD = "kueue-held"      # a job Kueue keeps suspended
Key = tuple[str, int, "int | None"]
_SCHEDULER = "Kueue v0.17.8 (or --kueue-version): its scheduler and flavorassigner"
RULES = (
    declare(KUEUE_HELD, Severity.WARNING, KUEUE,
            "Kueue holds the job (its Workload is not admitted: quota in use, an inactive ClusterQueue, a missing "
            "LocalQueue, checks pending): its controller creates no pod (Kueue keeps a Job or JobSet suspended) "
            "until Kueue admits it. The message opens with Kueue's reason; its pods are scheduled, taking no room, "
            "for when Kueue admits it.",
            _SCHEDULER + ", a Workload not admitted (the job kept suspended, its pods gated)"),
    declare(LOCAL_QUEUE, Severity.ERROR, KUEUE,
            "A Job, Pod or JobSet Kueue manages names a LocalQueue its namespace does not have (with Kueue's "
            "objects given): Kueue never admits it.",
            "Kueue: the job's LocalQueue (kueue.x-k8s.io/queue-name) looked up in its "
            "namespace (LocalQueue not found)"),
    declare(NEVER_FITS, Severity.ERROR, KUEUE,
            "A Job, Pod or JobSet Kueue manages can never fit its ClusterQueue: no flavor takes it as written (a "
            "taint not tolerated, node labels its node selector or affinity excludes) or has the quota, even with "
            "all it may borrow: Kueue never admits it.",
            _SCHEDULER + " (a flavor's taints and node labels, the quota with all it may borrow)"),
)


def kueue_findings(items: list[Document], pool: "ClusterState | None", options: "LintOptions",
                   warnings: list[str]) -> tuple[dict[str, list[Finding]], dict[Key, KueueStarted]]:
    """Kueue's rules for the set's jobs Kueue manages, by file, with the Namespaces (their labels:
    a ClusterQueue's namespaceSelector), priority classes and Kueue objects of the set and the pool;
    each job is kept as Kueue leaves it, started or held: that is what the scheduler meets. A Kueue
    object or job the API server refuses is an `admission` finding (one of the pool's, a warning),
    the rest checked without it (one of the pool's: said in `warnings`). Returns the findings, and
    the jobs Kueue manages as it leaves them, by document: what the scheduler meets."""
    objs, where = objects_of(items)
    cluster = [*pool.other_kinds, *kueue_of_kinds(pool.objects, KUEUE_READ_KINDS | KUEUE_TAS_KINDS)] \
        if pool is not None else []
    cluster += options.kueue_config
    out: dict[str, list[Finding]] = {}
    provisioner = options.kueue_provisioner
    capacity = provisioner([*pool.objects, *pool.other_kinds]) \
        if provisioner is not None and pool is not None else None
    done = kueue_checked(objs, cluster, validate=options.validate, version=options.kueue_version,
                         capacity=capacity)
    started = {where[id(objs[i][1])].location.key: s for i, s in done.started.items()}
    for index, rule, message, details in done.problems:
        doc = where[id(objs[index][1])]
        out.setdefault(doc.location.path, []).append(Finding(rule, doc.location, ObjectRef.of(doc.obj), message,
                                                             details=details, field="metadata.labels"))
    for err in done.refused:
        doc = where.get(id(err.source)) if err.source is not None else None
        if doc is None:
            said = f"{err}: left out of Kueue's pass (the API server refuses it)"
            if said not in warnings:
                warnings.append(said)
            continue
        location = replace(doc.location, line=line_of_field(doc.node, err.field) or doc.location.line)
        out.setdefault(doc.location.path, []).append(Finding("admission", location, ObjectRef.of(doc.obj),
                                                             err.message, field=err.field))
    return out, started


def held_unmade(loc: Location, ref: ObjectRef, kueue: KueueStarted) -> Finding:
    """A job Kueue holds whose operator makes no pod until it is admitted (a RayJob): a `kueue-held`
    warning with Kueue's reason, never silence where the file explain says Kueue holds it."""
    said = kueue.said[0]
    idle = str(kueue.answer.get("idle") or "")
    held = kueue_held_words(said) or "Kueue holds it"
    return Finding(KUEUE_HELD, loc, ref, f"{held}; {idle}" if idle else held, details={"kueue": said})


def said_kueue(started: "KueueStarted | None", findings: list[Finding], made: int = 0) -> list[Finding]:
    """A verdict on a job Kueue manages says Kueue's answer (details `kueue`), and why Kueue holds
    it when it does; a JobSet's findings are its Jobs' (`made`: which), each named first."""
    if started is None:
        return findings
    job, said = started.made[made], started.said[made]
    held = kueue_held_words(said)
    out = []
    for f in findings:
        if f.rule in VERDICT_RULES or f.rule == "not-created":
            f = replace(f, message=f"{held}; {f.message}" if held else f.message,
                        details={**f.details, "kueue": said})
        if held and f.rule == "not-created":        # suspended by Kueue, not by its author: a warning,
            f = replace(f, rule=KUEUE_HELD, suggestions=())     # its template's fixes moot (as `kexplain FILE`)
        if "job" in said:
            f = replace(f, message=f"Job {ObjectRef.of(job).namespace}/{said['job']}: {f.message}")
        out.append(f)
    return out
