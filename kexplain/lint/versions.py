"""`kexplain lint --compare-versions A,B`: lint against B (the next version) and flag each object
whose scheduling differs under A (`version-change`: another verdict, other nodes counted, another
FailedScheduling message), naming both verdicts."""
from __future__ import annotations

import io
from dataclasses import replace
from typing import BinaryIO, Sequence

from kexplain.errors import KexplainError
from kexplain.features import KubeVersion
from kexplain.lint.choice import choose
from kexplain.lint.linter import LintOptions, Progress, Report, Suggester, lint
from kexplain.lint.rule import VERSIONS
from kexplain.lint.rules.versions import with_changes


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
        old = lint(replace(options, kube=before, k8s_version=None), streams[0], None, freeze_pool=freeze_pool,
                   chosen=False)
    except KexplainError as err:     # the pool or the configuration, as that version reads them
        raise KexplainError(f"Kubernetes {before.minor} (--compare-versions): {err}") from None
    report = lint(options, streams[1], suggester, freeze_pool=freeze_pool, progress=progress, chosen=False)
    report.compared_with = before.minor
    report.needs |= {VERSIONS}
    if report.pool:
        report.findings = with_changes(old, report, before.minor, options.kube.minor)
    return choose(report, options.rules)
