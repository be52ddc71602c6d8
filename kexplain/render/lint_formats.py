"""How a lint `Report` is written: text (rich), json, junit, sarif and github annotations.

Each renderer returns the whole output as a string (text writes to a rich console), so the
command can send any format to stdout or to a file. Info findings (objects that fit, kinds
without a schema) appear in text, github and sarif output only with `verbose`; json and junit
always carry everything.
"""
from __future__ import annotations

import io
import json
import os
import re
import socket
from dataclasses import dataclass
from datetime import timezone
from pathlib import Path
from typing import Callable, Iterable
from urllib.parse import quote
from xml.etree import ElementTree as ET

from rich.console import Console
from rich.text import Text

from kexplain.errors import KexplainError
from kexplain.features import DEFAULT_MINOR
from kexplain.lint.linter import RULES, SCHEDULING_RULES, Finding, LintedObject, Report, Rule, Severity
from kexplain.lint.rule import RuleChoice
from kexplain.render.consoles import text_console
from kexplain.render.facts import rejection as rejection_words

FORMATS = ("text", "json", "junit", "sarif", "github")
# The OASIS SARIF 2.1.0 schema (errata 01, the standard's current text): what the log is valid against.
SARIF_SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
# Where each rule is documented: docs/lint.md's rule table, a row per rule (`#rule-ID`), at this release.
DOCS_URI = "https://github.com/kexplain/kexplain/blob/v{version}/docs/lint.md"
NEEDS_WORDS = {"schemas": "the manifests alone", "pool": "a pool (--nodes)", "node-groups": "--node-groups",
               "nodepools": "Karpenter NodePools among the --nodes objects", "kueue": "Kueue's objects",
               "volcano": "Volcano's Queues (in the set or --nodes)", "compare-versions": "--compare-versions A,B"}


@dataclass(frozen=True)
class RenderOptions:
    verbose: bool = False
    fail_on: Severity | None = Severity.ERROR


def _version() -> str:
    # lazy: importlib.metadata (and the email package it reads) only for the SARIF and JUnit reports
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("kexplain")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0"


def _shown(report: Report, options: RenderOptions) -> list[Finding]:
    """The findings a reader is shown: info ones only with `verbose`, suppressed ones only with
    `verbose` (SARIF keeps them all, as suppressed)."""
    return [f for f in report.findings if options.verbose or (f.level > Severity.INFO and f.suppressed is None)]


def summary_line(report: Report) -> str:
    s = report.summary()
    files = f"{s['files']} file{'s' if s['files'] != 1 else ''}"
    objects = f"{s['objects']} object{'s' if s['objects'] != 1 else ''}"
    sched = f", {s['scheduled']} scheduled against the pool" if report.pool else ""
    skipped = f", {s['skipped']} skipped (no schema)" if s["skipped"] else ""
    skipped += f", {s['suppressed']} suppressed" if s.get("suppressed") else ""
    version = ""       # the version checked against, unless the default
    if report.k8s_version != DEFAULT_MINOR or report.compared_with:
        compared = f", compared with {report.compared_with}" if report.compared_with else ""
        version = f" (Kubernetes {report.k8s_version}{compared})"
    return (f"{objects} in {files}{sched}{version}: {s['errors']} error{'s' if s['errors'] != 1 else ''}, "
            f"{s['warnings']} warning{'s' if s['warnings'] != 1 else ''}{skipped}")


# -- text ------------------------------------------------------------------------------------
_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "dim"}


def _where(f: Finding) -> str:
    path = f.location.path if f.location.path != "-" else "<stdin>"
    if f.location.line:
        return f"{path}:{f.location.line}"
    return path


def print_text(report: Report, console: Console, options: RenderOptions = RenderOptions()) -> None:
    """`path:line: severity [rule] Kind ns/name: field: message`, then the template, the
    document, what blocks each claim of a pod PreFilter turned away and any suggestions
    indented below; a summary line at the end. Styled Text,
    never markup: paths, names and messages are printed as they are (`x:100:.yaml`)."""
    def line(*parts: tuple[str, str]) -> None:
        console.print(Text.assemble(*parts), soft_wrap=True)

    for f in _shown(report, options):
        level = f.level
        line((f"{_where(f)}: ", ""), (level.label, _STYLE[level]), (" ", ""), (f"[{f.rule}]", "dim"),
             (f" {f.headline()}", ""))
        context = [str(f.location).split(": ", 1)[1]] if f.location.doc else []
        if f.location.template:
            context.append(f"template {f.location.template}")
        if context:
            line(("    ", ""), (", ".join(context), "dim"))
        if f.suppressed is not None:
            line(("    ", ""), ("suppressed:", "dim"), (f" {f.suppressed}", "dim"))
        for fact in rejection_words(f.details.get("rejection")):     # what blocks each claim
            line(("    ", ""), (fact, ""))
        for s in f.suggestions:
            line(("    ", ""), ("suggestion:", "green"), (f" {s}", ""))
    for w in report.warnings:
        line(("warning:", "yellow"), (f" {w}", ""))
    if report.admission:        # the API server the set is admitted by, when not plain kube-apiserver
        enabled = ", ".join(report.admission.get("enabled") or ()) or "none"
        line(("admission:", "dim"), (f" {report.admission.get('text')}: beyond kube-apiserver's defaults: {enabled}",
                                     ""))
    style = "bold red" if report.count(Severity.ERROR) else ("yellow" if report.count(Severity.WARNING) else "green")
    line((summary_line(report), style))


def render_text(report: Report, options: RenderOptions = RenderOptions(), *, width: int = 100) -> str:
    """Plain text (no colour), for a file."""
    out = io.StringIO()
    console = text_console(out, width=width, color_system=None, force_terminal=False, soft_wrap=True)
    print_text(report, console, options)
    return out.getvalue()


# -- json ------------------------------------------------------------------------------------
def render_json(report: Report, options: RenderOptions = RenderOptions()) -> str:
    return json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n"


# -- junit -----------------------------------------------------------------------------------
def _testcase_name(obj: LintedObject, check: str) -> str:
    """`Deployment web (document 2) schema`."""
    where = f" ({str(obj.location).split(': ', 1)[1]})" if obj.location.doc else ""
    return f"{obj.ref}{where} {check}"


def _hostname() -> str:
    try:
        return socket.gethostname() or "localhost"
    except OSError:  # pragma: no cover
        return "localhost"


# The findings of an object's scheduling check: its verdict, and how another version's differs.
_SCHEDULING_CHECK = SCHEDULING_RULES | {"version-change"}


def render_junit(report: Report, options: RenderOptions = RenderOptions()) -> str:
    """JUnit XML valid against Ant's and Jenkins xUnit's schemas: one `testsuite` per file, one
    `testcase` per object and check; findings below --fail-on, which a testcase cannot hold, go
    to the suite's `system-out`."""
    by_key: dict[tuple[str, int, int | None], list[Finding]] = {}
    for f in report.findings:
        by_key.setdefault(f.location.key, []).append(f)
    files: dict[str, list[ET.Element]] = {}
    notes: dict[str, list[Finding]] = {}
    for obj in report.linted:
        found = by_key.get(obj.location.key, [])
        for check in obj.checks:
            mine = [f for f in found if (f.rule in _SCHEDULING_CHECK) == (check == "scheduling")]
            case, rest = _testcase(obj, check, mine, options)
            files.setdefault(obj.location.path, []).append(case)
            if rest:
                notes.setdefault(obj.location.path, []).extend(rest)
    for f in report.findings:
        if f.rule == "unreadable":
            case = ET.Element("testcase", name=f"read {f.location}", classname=_classname(f.location.path), time="0")
            err = ET.SubElement(case, "error", message=f.message, type="unreadable")
            err.text = f"{f.location}: {f.message}"
            files.setdefault(f.location.path, []).append(case)
    root = ET.Element("testsuites")
    timestamp = report.started.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    hostname = _hostname()
    for index, (path, cases) in enumerate(files.items()):
        name = path if path != "-" else "<stdin>"
        counts = {"tests": len(cases),
                  "failures": sum(1 for c in cases if c.find("failure") is not None),
                  "errors": sum(1 for c in cases if c.find("error") is not None),
                  "skipped": sum(1 for c in cases if c.find("skipped") is not None)}
        suite = ET.SubElement(root, "testsuite", name=name, package=name, id=str(index), timestamp=timestamp,
                              hostname=hostname, **{k: str(v) for k, v in counts.items()}, time="0")
        props = ET.SubElement(suite, "properties")
        for key, value in (("kubernetesVersion", report.k8s_version), ("strict", str(report.strict).lower()),
                           ("scheduling", str(report.pool).lower())):
            ET.SubElement(props, "property", name=key, value=value)
        suite.extend(cases)
        out = ET.SubElement(suite, "system-out")
        out.text = "\n".join(_detail(f) for f in notes.get(path, ())) or None
        ET.SubElement(suite, "system-err")
    _xml_safe(root)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


# Characters XML 1.0 cannot carry at all, not even escaped (control characters but tab, newline
# and carriage return; lone surrogates; U+FFFE and U+FFFF).
_NOT_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_safe(root: ET.Element) -> None:
    """Replaces (in place) what XML cannot carry, in every text and attribute, by `\\xNN`."""
    def clean(text: str) -> str:
        return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                            else f"\\u{ord(m.group()):04x}", text)
    for el in root.iter():
        if el.text and _NOT_XML.search(el.text):
            el.text = clean(el.text)
        for key, value in el.attrib.items():
            if _NOT_XML.search(value):
                el.set(key, clean(value))


def _classname(path: str) -> str:
    return "stdin" if path == "-" else path


def _testcase(obj: LintedObject, check: str, findings: list[Finding],
              options: RenderOptions) -> tuple[ET.Element, list[Finding]]:
    """The testcase, and the findings it does not hold (neither failing nor a skip)."""
    case = ET.Element("testcase", name=_testcase_name(obj, check), classname=_classname(obj.location.path),
                      time="0")
    failing = [f for f in findings if options.fail_on is not None and f.level >= options.fail_on and
               f.suppressed is None]
    skipped = [f for f in findings if f.rule == "unknown-kind"]
    if failing:
        first = failing[0]
        el = ET.SubElement(case, "failure", message=first.headline(), type=first.rule)
        el.text = "\n".join(_detail(f) for f in failing)
    elif skipped:
        ET.SubElement(case, "skipped", message=skipped[0].message)
    return case, [f for f in findings if f not in failing and f not in skipped]


def _detail(f: Finding) -> str:
    """`path:line: error [rule] Kind ns/name: message (document 2)`."""
    doc = f" ({str(f.location).split(': ', 1)[1]})" if f.location.doc else ""
    text = f"{_where(f)}: {f.level.label} [{f.rule}] {f.headline()}{doc}"
    text += f" (suppressed: {f.suppressed})" if f.suppressed is not None else ""
    return text + "".join(f"\n  suggestion: {s}" for s in f.suggestions)


# -- sarif -----------------------------------------------------------------------------------
_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def artifact_uri(path: str) -> str:
    """A relative URI reference for a path under the working directory (as code scanning wants),
    `stdin` for '-', else a file URI."""
    if path == "-":
        return "stdin"
    p = Path(path)
    absolute = p if p.is_absolute() else Path.cwd() / p
    try:
        rel = absolute.resolve().relative_to(Path.cwd().resolve())
        return quote(rel.as_posix(), safe="/")
    except ValueError:
        return absolute.resolve().as_uri()


def sarif_rule(rule: Rule, version: str) -> dict:
    """A rule as SARIF's `reportingDescriptor`: its summary, what it needs and whose rule it
    follows, and its row of docs/lint.md's rule table."""
    full = f"{rule.summary} Needs: {NEEDS_WORDS[rule.needs]}. Follows: {rule.upstream}."
    return {"id": rule.id, "name": "".join(w.capitalize() for w in rule.id.split("-")),
            "shortDescription": {"text": rule.summary}, "fullDescription": {"text": full},
            "helpUri": f"{DOCS_URI.format(version=version)}#rule-{rule.id}",
            "defaultConfiguration": {"level": _SARIF_LEVEL[rule.severity]},
            "properties": {"needs": rule.needs, "upstream": rule.upstream}}


def render_sarif(report: Report, options: RenderOptions = RenderOptions()) -> str:
    """SARIF 2.1.0: every rule with its descriptions and help; a result per finding shown, and every
    suppressed one with its `suppressions` (in source: the object's annotation, its reason)."""
    rule_ids = list(RULES)
    version = _version()
    rules = [sarif_rule(r, version) for r in RULES.values()]
    results = []
    shown = {id(f) for f in _shown(report, options)}
    for f in (f for f in report.findings if id(f) in shown or f.suppressed is not None):
        location: dict = {"physicalLocation": {"artifactLocation": {"uri": artifact_uri(f.location.path)}}}
        if f.location.line:
            location["physicalLocation"]["region"] = {"startLine": f.location.line}
        if f.obj is not None and f.obj.kind:
            name = "/".join(x for x in (f.obj.kind, f.obj.namespace, f.obj.name) if x)
            location["logicalLocations"] = [{"name": f.obj.name or f.obj.kind, "fullyQualifiedName": name,
                                             "kind": "resource"}]
        text = f.headline() + "".join(f"\nSuggestion: {s}" for s in f.suggestions)
        result = {"ruleId": f.rule, "ruleIndex": rule_ids.index(f.rule), "level": _SARIF_LEVEL[f.level],
                  "message": {"text": text}, "locations": [location],
                  "properties": {"document": f.location.doc}}
        if f.location.item is not None:
            result["properties"]["item"] = f.location.item
        if f.location.template:
            result["properties"]["template"] = f.location.template
        if f.field:
            result["properties"]["field"] = f.field
        if f.suggestions:
            result["properties"]["suggestions"] = list(f.suggestions)
        if f.suppressed is not None:
            result["suppressions"] = [{"kind": "inSource", "justification": f.suppressed}]
        results.append(result)
    log = {"$schema": SARIF_SCHEMA_URI, "version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "kexplain", "version": _version(), "rules": rules}},
        "results": results,
        "properties": {"kubernetesVersion": report.k8s_version, "strict": report.strict,
                       "summary": report.summary()}}]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


# -- github ----------------------------------------------------------------------------------
_GITHUB_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(report: Report, options: RenderOptions = RenderOptions()) -> str:
    """Workflow commands (`::error file=...,line=...,title=...::message`), one per finding, and a
    plain summary line."""
    lines = []
    for f in _shown(report, options):
        if f.suppressed is not None:        # (a pull request's annotation is for what fails it)
            continue
        props = []
        if f.location.path != "-":
            props.append(f"file={_escape_property(f.location.path)}")
            if f.location.line:
                props.append(f"line={f.location.line}")
        props.append(f"title={_escape_property(f'kexplain lint: {f.rule}')}")
        where = str(f.location) + (f" ({f.location.template})" if f.location.template else "")
        message = f"{where}: {f.headline()}" + "".join(f"\nsuggestion: {s}" for s in f.suggestions)
        lines.append(f"::{_GITHUB_COMMAND[f.level]} {','.join(props)}::{_escape_data(message)}")
    for w in report.warnings:
        lines.append(f"::warning title={_escape_property('kexplain lint: pool')}::{_escape_data(w)}")
    lines.append(summary_line(report))
    return "\n".join(lines) + "\n"


# -- --list-rules ------------------------------------------------------------------------------
def rules_json(rules: Iterable[Rule], choice: RuleChoice | None = None) -> list[dict]:
    """Each rule as `--list-rules -f json` gives it: its id, severity (as the choice sets it), what it
    needs, its summary, the upstream rule it follows, and whether the choice reports it."""
    choice = choice or RuleChoice()
    return [{**r.to_json(), "severity": choice.severity.get(r.id, r.severity).label, "enabled": choice.enabled(r.id)}
            for r in rules]


def render_rules(rules: Iterable[Rule], fmt: str, choice: RuleChoice | None = None) -> str:
    """`kexplain lint --list-rules`: a line per rule (`text`: id, severity, needs, summary; a disabled
    one said so), or `json`."""
    listed = rules_json(rules, choice)
    if fmt == "json":
        return json.dumps(listed, indent=2, ensure_ascii=False) + "\n"
    if fmt != "text":
        raise KexplainError(f"--list-rules writes text or json, not {fmt}")
    width = max(len(r["id"]) for r in listed)
    lines = [f"{'RULE':<{width}}  SEVERITY  NEEDS             SUMMARY"]
    for r in listed:
        off = " (disabled)" if not r["enabled"] else ""
        lines.append(f"{r['id']:<{width}}  {r['severity']:<8}  {r['needs']:<16}  {r['summary']}{off}")
    if choice is not None and choice.source:
        lines.append(f"(as {choice.source} sets them)")
    return "\n".join(lines) + "\n"


RENDERERS: dict[str, Callable[[Report, RenderOptions], str]] = {
    "text": render_text, "json": render_json, "junit": render_junit, "sarif": render_sarif,
    "github": render_github}


def render(fmt: str, report: Report, options: RenderOptions = RenderOptions()) -> str:
    return RENDERERS[fmt](report, options)


def formats_for(requested: Iterable[str], environ: dict[str, str] | None = None) -> list[str]:
    """The formats asked for; none asked: github under GitHub Actions, else text."""
    chosen = list(requested)
    if chosen:
        return chosen
    env = os.environ if environ is None else environ
    return ["github"] if env.get("GITHUB_ACTIONS") == "true" else ["text"]
