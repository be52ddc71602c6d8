"""Suppression per object: the annotation `lint.kexplain.io/ignore: "RULE[, RULE]: reason"` on an
object (on a workload: its pods' findings too, which are the workload's) suppresses those rules'
findings on it. A suppressed finding is kept, marked with the reason (JSON, SARIF's
`suppressions`), and counts for neither --fail-on nor the summary's severities; an annotation that
suppresses nothing is itself a finding (`unused-suppression`), so stale ones surface. As
kube-linter's `ignore-check.kube-linter.io/<check>` and kube-score's `kube-score/ignore`."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Collection, Mapping, Sequence

from kexplain.lint.documents import Document, line_of
from kexplain.lint.findings import Finding
from kexplain.lint.report import Ignore, LintedObject
from kexplain.lint.rule import SCHEMAS, Severity, declare

ANNOTATION = "lint.kexplain.io/ignore"
RULE = "unused-suppression"
RULES = (
    declare(RULE, Severity.WARNING, SCHEMAS,
            "A lint.kexplain.io/ignore annotation suppresses nothing: a rule that found nothing on the object, an "
            "id that is no rule, or text that is not RULE[, RULE]: reason.",
            "kube-linter's ignore-check.kube-linter.io annotations, kube-score's kube-score/ignore; "
            "ruff's unused-noqa (RUF100) for the stale ones"),
)
# findings no annotation can suppress: no object holds them, or they are about the annotation itself
UNSUPPRESSIBLE = frozenset({"unreadable", "invalid-document", RULE})


def ignore_of(doc: Document) -> Ignore | None:
    """The object's `lint.kexplain.io/ignore` annotation, None when it has none."""
    meta = doc.obj.get("metadata") if isinstance(doc.obj, Mapping) else None
    annotations = meta.get("annotations") if isinstance(meta, Mapping) else None
    if not isinstance(annotations, Mapping) or ANNOTATION not in annotations:
        return None
    line = line_of(doc.node, ("metadata", "annotations", ANNOTATION)) or doc.location.line
    text = annotations[ANNOTATION]
    head, colon, reason = text.partition(":") if isinstance(text, str) else ("", "", "")
    rules = tuple(r.strip() for r in head.split(",") if r.strip())
    if not colon or not rules or not reason.strip():
        return Ignore(rules, reason.strip(), line, f"{text!r} is not of the form \"RULE[, RULE]: reason\"")
    return Ignore(rules, reason.strip(), line)


def suppressed(findings: list[Finding], linted: Sequence[LintedObject], known: Collection[str],
               disabled: Collection[str], needs_met: Collection[str], needs: Mapping[str, str]) -> list[Finding]:
    """`findings` with those an object's annotation names marked suppressed (with its reason), and
    after each object's last finding an `unused-suppression` for each rule its annotation names that
    found nothing on it (not said of a rule disabled, or whose needs this run does not meet), each
    id that is no rule, or its text when it is not `RULE[, RULE]: reason`."""
    ignores = {o.location.key: o for o in linted if o.ignore is not None}
    if not ignores:
        return findings
    found: dict[Any, set[str]] = {}
    out: list[Finding] = []
    for f in findings:
        obj = ignores.get(f.location.key)
        if obj is not None and obj.ignore is not None and obj.ignore.malformed is None and \
                f.rule in obj.ignore.rules and f.rule not in UNSUPPRESSIBLE:
            found.setdefault(f.location.key, set()).add(f.rule)
            f = replace(f, suppressed=obj.ignore.reason)
        out.append(f)
    stale = {key: _unused(obj, found.get(key, set()), known, disabled, needs_met, needs)
             for key, obj in ignores.items()}
    last = {f.location.key: i for i, f in enumerate(out)}
    placed: list[Finding] = []
    for i, f in enumerate(out):
        placed.append(f)
        if last[f.location.key] == i:
            placed.extend(stale.pop(f.location.key, ()))
    for rest in stale.values():        # (an object with no finding at all)
        placed.extend(rest)
    return placed


def _unused(obj: LintedObject, found: set[str], known: Collection[str], disabled: Collection[str],
            needs_met: Collection[str], needs: Mapping[str, str]) -> list[Finding]:
    ignore = obj.ignore
    assert ignore is not None
    at = replace(obj.location, line=ignore.line)
    field = f"metadata.annotations.{ANNOTATION}"
    if ignore.malformed is not None:
        return [Finding(RULE, at, obj.ref, ignore.malformed, field=field)]
    out = []
    for rule in ignore.rules:
        if rule not in known:
            out.append(Finding(RULE, at, obj.ref, f"{rule} is no rule of kexplain lint (kexplain lint --list-rules)",
                               field=field, details={"rule": rule}))
        elif rule not in found and rule not in disabled and needs[rule] in needs_met and rule not in UNSUPPRESSIBLE:
            out.append(Finding(RULE, at, obj.ref, f"suppresses {rule}, which found nothing on this object: remove "
                                                  "it from the annotation", field=field,
                               details={"rule": rule, "reason": ignore.reason}))
    return out
