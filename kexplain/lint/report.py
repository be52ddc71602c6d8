"""Lint's `Report`: the findings in input order, the objects looked at and which checks ran on
each, and the counts its renderers and the exit code read."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from kexplain.admission.openapi import DEFAULT_K8S_VERSION
from kexplain.lint.documents import Location
from kexplain.lint.findings import Finding, ObjectRef
from kexplain.lint.rule import SCHEMAS, Severity


@dataclass(frozen=True)
class Ignore:
    """An object's `lint.kexplain.io/ignore` annotation as read (`rules.suppression`): the rules it
    names, its reason, the line it is on, and what is wrong with its text (None: well formed)."""

    rules: tuple[str, ...]
    reason: str
    line: int | None
    malformed: str | None = None


@dataclass
class LintedObject:
    """One object lint looked at, and which checks ran on it (`schema`, `scheduling`)."""

    location: Location
    ref: ObjectRef
    checks: list[str] = field(default_factory=lambda: ["schema"])
    scheduled: bool = False     # its pod went through the scheduler against the pool (not refused before)
    ignore: Ignore | None = None    # its lint.kexplain.io/ignore annotation


@dataclass
class Report:
    """Everything lint found, in input order."""

    findings: list[Finding] = field(default_factory=list)
    linted: list[LintedObject] = field(default_factory=list)
    files: int = 0
    k8s_version: str = DEFAULT_K8S_VERSION
    strict: bool = False
    pool: bool = False
    compared_with: str | None = None    # --compare-versions: the minor the scheduling is compared with
    warnings: list[str] = field(default_factory=list)      # about the pool, not findings
    started: datetime = field(default_factory=lambda: datetime.now(timezone.utc))
    # With `LintOptions.explain`: per object scheduled, its location, placements entry and the
    # traces kept of its pods (not part of `to_json`: the HTML page adds them).
    explanations: list[dict[str, Any]] = field(default_factory=list)
    needs: frozenset[str] = frozenset({SCHEMAS})     # what the rules need that this run had (`Rule.needs`)
    # The admission plugins the pool's API server runs beyond kube-apiserver's defaults, when said or
    # recognised from its nodes (`features.admission_plugins.AdmissionPlugins.to_json`, with `text`).
    admission: dict[str, Any] | None = None

    @property
    def objects(self) -> int:
        return len(self.linted)

    @property
    def scheduled_objects(self) -> int:
        """The objects whose pods the scheduler actually ran (not refused, bound, another scheduler's,
        or failed on by kexplain)."""
        return sum(1 for o in self.linted if o.scheduled)

    @property
    def unreadable(self) -> bool:
        return any(f.rule == "unreadable" for f in self.findings)

    def count(self, severity: Severity) -> int:
        """The findings of that severity (a suppressed one counts as none)."""
        return sum(1 for f in self.findings if f.level == severity and f.suppressed is None)

    @property
    def suppressed(self) -> int:
        return sum(1 for f in self.findings if f.suppressed is not None)

    def failed(self, fail_on: Severity | None) -> bool:
        return fail_on is not None and any(f.level >= fail_on and f.suppressed is None for f in self.findings)

    def summary(self) -> dict[str, int]:
        return {"files": self.files, "objects": self.objects, "scheduled": self.scheduled_objects,
                "errors": self.count(Severity.ERROR), "warnings": self.count(Severity.WARNING),
                "info": self.count(Severity.INFO),
                "skipped": sum(1 for f in self.findings if f.rule == "unknown-kind"),
                **({"suppressed": self.suppressed} if self.suppressed else {})}

    def to_json(self) -> dict[str, Any]:
        compared = {"comparedWith": self.compared_with} if self.compared_with else {}
        return {"apiVersion": "kexplain/v1", "kind": "LintReport", "kubernetesVersion": self.k8s_version, **compared,
                "strict": self.strict, "scheduling": self.pool,
                **({"admissionPlugins": {k: v for k, v in self.admission.items() if k != "text"}}
                   if self.admission else {}),
                "summary": self.summary(),
                "warnings": self.warnings, "findings": [f.to_json() for f in self.findings]}

