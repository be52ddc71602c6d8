"""Kueue's pass for lint (`kexplain.kueue.lint_checks`, which imports it only when Kueue's objects
are there): the pass over a set with its refused objects left out, each managed object as Kueue
leaves it, and why a Workload can never be admitted as written (its flavors, its quota)."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Mapping

from kexplain.apimachinery.quantity import parse_quantity
from kexplain.errors import KexplainError
from kexplain.kueue import versions
from kexplain.kueue.controller.jobframework.reconciler import JobOutcome
from kexplain.kueue.explain import explained_pass
from kexplain.kueue.inputs import inputs_of
from kexplain.kueue.objects import Objects, kind_of, meta_of
from kexplain.kueue.run import Pass, Settings, run_pass
from kexplain.kueue.scheduler.flavorassigner.flavorassigner import NO_AFFINITY_MATCH, UNAVAILABLE, UNTOLERATED
from kexplain.kueue.started import REPLICATED_JOB_NAME, parts, started

# the answer a verdict carries (a held one: Kueue's reason, or why no Workload was made)
SAID = ("kueueVersion", "workload", "verdict", "clusterQueue", "podSets", "admissionChecks", "message", "error")


def kueue_pass(submitted: Objects, context: Objects, *, validate: str, version: str | None, capacity: Any = None
               ) -> tuple[Pass, dict[str, Any], list[KexplainError]]:
    """One pass of Kueue over `submitted` and `context`, explained; the Kueue objects and jobs the API
    server refuses are left out (as it leaves them) and returned; `capacity` answers the
    ProvisioningRequests Kueue creates (the Cluster Autoscaler's node groups), if anyone does."""
    refused: list[KexplainError] = []
    release = versions.resolve(version)
    inputs = inputs_of(submitted, context, validate=validate, refused=refused, version=release)
    done = run_pass(inputs, Settings(release, datetime.now(timezone.utc).replace(microsecond=0), capacity))
    return done, explained_pass(done), refused


def left(obj: dict[str, Any], outcome: JobOutcome, done: Pass, doc: Mapping[str, Any]
         ) -> tuple[list[dict[str, Any]], dict[str, Any], list[dict[str, Any]]]:
    """A managed object as Kueue leaves it (`started`: started, or held), Kueue's answer, and the
    answer as the verdict on each object made carries it (a JobSet's Job: named, with its pod set)."""
    made, answer = started(obj, outcome, done, doc)
    said = {k: answer[k] for k in SAID if k in answer}
    if "startError" in answer:          # admitted, but Kueue cannot start it: held
        said["message"] = answer["startError"]
    if answer.get("idle"):      # a held operator's job: no pod exists, none is scheduled; Kueue's answer said
        return [], answer, [said]
    if kind_of(obj) != "JobSet":
        return made, answer, [said for _ in made]
    return made, answer, [{**said, "job": str(meta_of(m).get("name")),
                           "podSet": str((meta_of(m).get("labels") or {}).get(REPLICATED_JOB_NAME))} for m in made]


def never_fits(item: Mapping[str, Any]) -> str:
    """`pod set P: R wants X, at most Y in flavor F; untolerated taint ... in flavor G` when, for some
    pod set, every flavor of a resource group either can never take it as written (its taints, its
    labels, a resource not covered: `FOR_GOOD`) or asks more than its maximum capacity; "" otherwise."""
    for ps in item.get("podSets") or ():
        groups: dict[str, list[Mapping[str, Any]]] = {}
        for t in ps.get("trials") or ():
            groups.setdefault(str(t.get("resource")), []).append(t)
        for trials in groups.values():
            reasons = [_never(t) for t in trials]
            if trials and all(reasons):
                return f"pod set {ps.get('name')}: " + "; ".join(dict.fromkeys(reasons))
    return ""


def _never(trial: Mapping[str, Any]) -> str:
    """Why one flavor tried can never take the pod set, in Kueue's words ("" : it may, some day): its
    taint, its labels against the pod set's node selector and affinity, a resource the ClusterQueue
    does not cover (`FlavorTrial.skip`; a flavor missing may be created), more than it can ever hold."""
    skipped = trial.get("skipped")
    if skipped == "taint":
        taint = trial.get("taint") or {}
        return UNTOLERATED.format(f"{{{taint.get('key') or ''} {taint.get('value') or ''} {taint.get('effect') or ''} "
                                  "<nil>}", trial.get("flavor"))
    if skipped == "affinity":
        return NO_AFFINITY_MATCH.format(trial.get("flavor"))
    if skipped == "uncovered":
        return UNAVAILABLE.format(trial.get("resource"))
    if skipped:
        return ""
    beyond = [q for q in trial.get("quotas") or ()
              if q.get("maxCapacity") is not None and q.get("request") is not None
              and parse_quantity(q["request"]) > parse_quantity(q["maxCapacity"])]
    if not beyond:
        return ""
    q = beyond[0]
    return f"{q['resource']} wants {q['request']}, at most {q['maxCapacity']} in flavor {q['flavor']}"
