"""The rule `version-change` (`kexplain lint --compare-versions A,B`): each object whose scheduling
differs under A from B's (another verdict, other nodes counted, another FailedScheduling message),
naming both verdicts. `lint.versions.lint_compared` runs both lints."""
from __future__ import annotations

from typing import Any, Sequence

from kexplain.explain.versions import unnamed
from kexplain.lint.findings import SCHEDULING_RULES, Finding
from kexplain.lint.report import Report
from kexplain.lint.rule import VERSIONS, Severity, declare

RULE = "version-change"
RULES = (
    declare(RULE, Severity.WARNING, VERSIONS,
            "The Pod or workload is scheduled differently under the Kubernetes version compared with "
            "(--compare-versions): another verdict, other nodes or another FailedScheduling message.",
            "kube-scheduler of both versions (their plugins and feature gates as each release "
            "has them)"),
)


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
