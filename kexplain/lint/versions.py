"""`kexplain lint --compare-versions A,B`: lint against B (the next version) and flag each object
whose scheduling differs under A (`version-change`: another verdict, other nodes counted, another
FailedScheduling message), naming both verdicts."""
from __future__ import annotations

import io
from dataclasses import replace
from typing import Any, BinaryIO, Sequence

from kexplain.errors import KexplainError
from kexplain.features import KubeVersion
from kexplain.lint.linter import SCHEDULING_RULES, Finding, LintOptions, Progress, Report, Suggester, lint
from kexplain.explain.versions import unnamed

RULE = "version-change"


def lint_compared(options: LintOptions, before: KubeVersion, stdin: BinaryIO | None = None,
                  suggester: Suggester | None = None, *, freeze_pool: bool = False,
                  progress: Progress | None = None) -> Report:
    """`options` linted (their version, `options.kube`, is the one checked against), with a
    `version-change` finding after the findings of each object scheduled differently under
    `before`. stdin, when a path or the pool reads it, is read once for both."""
    if "-" in options.paths or "-" in options.node_paths:
        data = stdin.read() if stdin is not None else b""
        streams: Sequence[BinaryIO | None] = (io.BytesIO(data), io.BytesIO(data))
    else:
        streams = (stdin, stdin)
    try:
        old = lint(replace(options, kube=before, k8s_version=None), streams[0], None, freeze_pool=freeze_pool)
    except KexplainError as err:     # the pool or the configuration, as that version reads them
        raise KexplainError(f"Kubernetes {before.minor} (--compare-versions): {err}") from None
    report = lint(options, streams[1], suggester, freeze_pool=freeze_pool, progress=progress)
    report.compared_with = before.minor
    if report.pool:
        report.findings = with_changes(old, report, before.minor, options.kube.minor)
    return report


def with_changes(old: Report, new: Report, before: str, after: str) -> list[Finding]:
    """`new`'s findings, each object's `version-change` after its last finding."""
    was = _verdicts(old)
    now = _verdicts(new)
    changes: dict[Any, Finding] = {}
    for key, findings in now.items():
        earlier = was.get(key, [])
        if _summary(earlier) != _summary(findings):
            changes[key] = _change(findings[0], earlier, findings, before, after)
    for key, findings in was.items():       # scheduled under `before` only (invalid under `after`)
        if key not in now:
            anchor = next((f for f in new.findings if f.location.key == key), None)
            if anchor is not None:
                changes[key] = _change(anchor, findings, [], before, after)
    last = {f.location.key: i for i, f in enumerate(new.findings)}
    out: list[Finding] = []
    for i, finding in enumerate(new.findings):
        out.append(finding)
        key = finding.location.key
        if key in changes and last[key] == i:
            out.append(changes.pop(key))
    return out


def _verdicts(report: Report) -> dict[Any, list[Finding]]:
    """Each object's scheduling findings, by location."""
    out: dict[Any, list[Finding]] = {}
    for f in report.findings:
        if f.rule in SCHEDULING_RULES and f.rule != "admission-warning":    # (the API server's words, not a verdict)
            out.setdefault(f.location.key, []).append(f)
    return out


def _summary(findings: Sequence[Finding]) -> list[tuple[Any, ...]]:
    """What counts as the same scheduling: the rules, the nodes (counted, not in order), how
    many fit, and the scheduler's message."""
    return [(f.rule, sorted(f.details.get("nodes") or []), f.details.get("fit"), f.details.get("replicas"),
             f.details.get("status"), f.details.get("message"), f.details.get("nominatedNode"),
             unnamed(f.message) if f.rule == "admission" else None)      # (a refused pod's name: the version's)
            for f in findings]


def _change(anchor: Finding, before: Sequence[Finding], after: Sequence[Finding], old: str, new: str) -> Finding:
    def said(findings: Sequence[Finding]) -> str:
        return "; ".join(f.message for f in findings) or "not scheduled (see the object's other findings)"

    message = f'scheduled differently by Kubernetes {new} than by {old}: {old} says "{said(before)}", {new} says ' \
              f'"{said(after)}"'
    details = {"versions": [old, new],
               old: [_verdict_json(f) for f in before], new: [_verdict_json(f) for f in after]}
    return Finding(RULE, anchor.location, anchor.obj, message, details=details)


def _verdict_json(finding: Finding) -> dict[str, Any]:
    return {"rule": finding.rule, "message": finding.message,
            **{k: v for k, v in finding.details.items() if k in ("replicas", "fit", "nodes", "status", "message")}}
