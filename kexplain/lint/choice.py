"""Which rules a run reports, and at which severity: `--enable RULE` / `--disable RULE` and the
config file `.kexplain-lint.yaml`, found from the linted path upward to the repository's root (the
directory holding `.git`), as `.yamllint` and `.kube-linter.yaml` are, or named by `--lint-config`.

    enable: [RULE, ...]      # every rule is on; this turns back on one a lower level disables
    disable: [RULE, ...]
    severity: {RULE: error|warning|info}
    admissionPlugins: EKS    # the target cluster's API server: as --admission-plugins (`admission_plugins`)

The command line wins over the file. `choose` applies a choice to a report, with each object's
`lint.kexplain.io/ignore` annotation (`rules.suppression`)."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Iterable, Mapping

from kexplain.errors import KexplainError
from kexplain.features.admission_plugins import parse as parse_admission
from kexplain.lint.report import Report
from kexplain.lint.rule import RuleChoice, Severity
from kexplain.lint.rules import RULES, with_severity
from kexplain.lint.rules.suppression import suppressed
from kexplain.load.limits import DEFAULT_MAX_BYTES
from kexplain.load.manifests import read_settings_document

CONFIG_FILE = ".kexplain-lint.yaml"
KEYS = ("enable", "disable", "severity", "admissionPlugins")
ADMISSION_KEY = "admissionPlugins"


def find_config(paths: Iterable[str], cwd: str | None = None) -> str | None:
    """The `.kexplain-lint.yaml` nearest the first linted path (the working directory for '-'),
    looked for in its directory and each one above up to the one holding `.git`."""
    first = next(iter(paths), "-")
    start = Path(cwd or ".") if first == "-" else Path(first)
    start = start.resolve()
    here = start if start.is_dir() else start.parent
    for folder in (here, *here.parents):
        candidate = folder / CONFIG_FILE
        if candidate.is_file():
            return str(candidate)
        if (folder / ".git").exists():
            return None
    return None


def read_config(path: str, max_bytes: int = DEFAULT_MAX_BYTES) -> dict[str, Any]:
    """The config file's mapping, checked: only its keys, lists of rule ids, severities by rule id."""
    data, _ = read_settings_document(path, "kexplain lint's configuration", max_bytes)   # (InputError: its words)
    if not isinstance(data, dict):
        raise KexplainError(f"{path}: must be a mapping with the keys {', '.join(KEYS)}, not a "
                            f"{type(data).__name__}")
    unknown = [k for k in data if k not in KEYS]
    if unknown:
        raise KexplainError(f"{path}: unknown key {unknown[0]!r} (the keys are {', '.join(KEYS)})")
    for key in ("enable", "disable"):
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise KexplainError(f"{path}: {key}: must be a list of rule ids, not {value!r}")
        _check_ids(value, f"{path}: {key}")
    severity = data.get("severity", {})
    if not isinstance(severity, dict):
        raise KexplainError(f"{path}: severity: must map rule ids to error, warning or info, not {severity!r}")
    _check_ids(severity, f"{path}: severity")
    for rule_id, level in severity.items():
        if level not in ("error", "warning", "info"):
            raise KexplainError(f"{path}: severity: {rule_id}: must be error, warning or info, not {level!r}")
    admission_plugins(data, path)
    return data


def admission_plugins(config: Mapping[str, Any], path: str | None) -> tuple[str, str] | None:
    """The file's `admissionPlugins` (a profile, `default`, or plugin names: a list or one string
    separated by commas), with where it was said; checked (an unknown plugin: bad usage)."""
    value = config.get(ADMISSION_KEY)
    if value is None:
        return None
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        value = ",".join(value)
    if not isinstance(value, str) or not value.strip():
        raise KexplainError(f"{path}: {ADMISSION_KEY}: must be a profile (EKS, GKE, AKS), default, or admission "
                            f"plugin names, not {value!r}")
    said = (value, f"{path or CONFIG_FILE}: {ADMISSION_KEY}")
    parse_admission(*said)
    return said


def choice_of(config: Mapping[str, Any], enable: Iterable[str] = (), disable: Iterable[str] = (),
              source: str | None = None) -> RuleChoice:
    """The file's choice, then the command line's (`--enable`, `--disable`) over it."""
    enable, disable = list(enable), list(disable)
    _check_ids(enable, "--enable")
    _check_ids(disable, "--disable")
    for where, on, off in ((source or CONFIG_FILE, config.get("enable", []), config.get("disable", [])),
                           ("the command line", enable, disable)):
        both = sorted(set(on) & set(off))
        if both:
            raise KexplainError(f"{where}: {both[0]} is both enabled and disabled")
    disabled = (set(config.get("disable", [])) - set(config.get("enable", [])) - set(enable)) | set(disable)
    severity = {r: Severity[s.upper()] for r, s in (config.get("severity") or {}).items()}
    return RuleChoice(frozenset(disabled), severity, source)


def _check_ids(ids: Iterable[str], where: str) -> None:
    """An unknown rule id is bad usage, with the rules there are."""
    for rule_id in ids:
        if rule_id not in RULES:
            raise KexplainError(f"{where}: unknown rule {rule_id!r}; the rules are: {', '.join(RULES)}")


def choose(report: Report, choice: RuleChoice | None) -> Report:
    """The report as the choice has it: the disabled rules' findings left out, the findings the
    objects' annotations suppress marked, stale annotations said, each finding at its rule's
    declared severity (`rules.with_severity`) or the one the choice gives its rule."""
    choice = choice or RuleChoice()
    findings = [f for f in report.findings if choice.enabled(f.rule)]
    findings = suppressed(findings, report.linted, RULES, choice.disabled, report.needs,
                          {r.id: r.needs for r in RULES.values()})
    findings = with_severity(f for f in findings if choice.enabled(f.rule))
    if choice.severity:
        findings = [replace(f, severity=choice.severity[f.rule]) if f.rule in choice.severity else f
                    for f in findings]
    report.findings = findings
    return report
