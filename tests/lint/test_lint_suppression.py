"""Suppression per object (issue 79): `lint.kexplain.io/ignore: "RULE[, RULE]: reason"` on an object
(a workload: its pods' findings too) suppresses those rules' findings on it: kept as suppressed in
JSON and SARIF (`suppressions`, in source, the reason its justification), not counted for
--fail-on, counted in the summary; an annotation that suppresses nothing is `unused-suppression`."""
from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from kexplain.lint.linter import LintOptions, lint
from kexplain.render.lint_formats import RenderOptions, render_github, render_junit, render_sarif, render_text
from tests.lint.test_lint_formats import sarif_schema, sarif_validator  # noqa: F401 - fixtures
from tests.support.lint_helpers import deployment, pod, pool, run, write

IGNORE = "lint.kexplain.io/ignore"


def annotated(obj: dict, text: object) -> dict:
    obj["metadata"]["annotations"] = {IGNORE: text}
    return obj


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    manifests = write(tmp_path, "k8s/apps.yaml",
                      annotated(pod("huge", cpu="64"), "unschedulable: the big nodes come next sprint"),
                      annotated(deployment("web", replicas=5, cpu="1"), "replicas: three fit, enough for now"),
                      pod("other", cpu="64"))
    return manifests, pool(tmp_path)


def test_a_suppressed_finding_is_kept_marked_and_not_counted(files) -> None:
    manifests, nodes = files
    report = lint(LintOptions((manifests,), (nodes,)))
    by_name = {(f.obj.name if f.obj else None, f.rule): f for f in report.findings}
    assert by_name[("huge", "unschedulable")].suppressed == "the big nodes come next sprint"
    assert by_name[("web", "replicas")].suppressed == "three fit, enough for now"   # the workload's pods
    assert by_name[("other", "unschedulable")].suppressed is None
    summary = report.summary()
    assert summary["errors"] == 1 and summary["suppressed"] == 2
    assert not any(f.rule == "unused-suppression" for f in report.findings)
    data = report.to_json()
    kept = [f for f in data["findings"] if "suppressed" in f]
    assert [(f["object"]["name"], f["suppressed"]) for f in kept] == [
        ("huge", {"kind": "inSource", "justification": "the big nodes come next sprint"}),
        ("web", {"kind": "inSource", "justification": "three fit, enough for now"})]


def test_suppressed_findings_do_not_fail_the_run(capsys, monkeypatch, tmp_path) -> None:
    monkeypatch.chdir(tmp_path)
    manifests = write(tmp_path, "huge.yaml", annotated(pod("huge", cpu="64"), "unschedulable: accepted"))
    code, out, _ = run(capsys, monkeypatch, manifests, "--nodes", pool(tmp_path))
    assert code == 0
    assert out.splitlines()[-1] == "1 object in 1 file, 1 scheduled against the pool: 0 errors, 0 warnings, " \
                                   "1 suppressed"
    code, out, _ = run(capsys, monkeypatch, manifests, "--nodes", pool(tmp_path), "-v")
    assert "error [unschedulable] Pod default/huge" in out and "    suppressed: accepted" in out


def test_every_format_says_the_suppression(files, sarif_validator) -> None:  # noqa: F811
    manifests, nodes = files
    report = lint(LintOptions((manifests,), (nodes,)))
    sarif = json.loads(render_sarif(report))
    sarif_validator.validate(sarif)
    results = sarif["runs"][0]["results"]
    suppressed = [r for r in results if "suppressions" in r]
    assert [(r["ruleId"], r["suppressions"]) for r in suppressed] == [
        ("unschedulable", [{"kind": "inSource", "justification": "the big nodes come next sprint"}]),
        ("replicas", [{"kind": "inSource", "justification": "three fit, enough for now"}])]
    github = render_github(report)
    assert "Pod default/huge" not in github and "Deployment default/web" not in github and "Pod default/other" in github
    assert github.splitlines()[-1].endswith("1 error, 0 warnings, 2 suppressed")
    junit = ET.fromstring(render_junit(report))
    failing = [case.get("name") for case in junit.iter("testcase") if case.find("failure") is not None]
    assert failing == ["Pod default/other (document 3) scheduling"]
    notes = "".join(el.text or "" for el in junit.iter("system-out"))
    assert "[unschedulable] Pod default/huge" in notes and "(suppressed: the big nodes come next sprint)" in notes
    text = render_text(report, RenderOptions())
    assert "Pod default/huge" not in text and "2 suppressed" in text


@pytest.mark.parametrize(("text", "said"), [
    ("unschedulable, preemption: either", "suppresses preemption, which found nothing on this object: remove it "
                                          "from the annotation"),
    ("unschedulabel: typo", "unschedulabel is no rule of kexplain lint (kexplain lint --list-rules)"),
    ("unschedulable", "'unschedulable' is not of the form \"RULE[, RULE]: reason\""),
    (["unschedulable"], "['unschedulable'] is not of the form \"RULE[, RULE]: reason\""),
])
def test_an_annotation_that_suppresses_nothing_is_a_warning(tmp_path, monkeypatch, text, said) -> None:
    monkeypatch.chdir(tmp_path)
    manifests = write(tmp_path, "huge.yaml", annotated(pod("huge", cpu="64"), text))
    report = lint(LintOptions((manifests,), (pool(tmp_path),)))
    unused = [f for f in report.findings if f.rule == "unused-suppression"]
    assert len(unused) == 1 and unused[0].message == said and unused[0].level.label == "warning"
    assert unused[0].field == f"metadata.annotations.{IGNORE}" and unused[0].location.line == 6
    assert report.findings[-1] is unused[0]      # after the object's own findings


def test_a_stale_annotation_is_said_only_when_the_rule_could_find(tmp_path, monkeypatch) -> None:
    """Without --nodes the scheduling rules do not run: their suppressions are not stale; a disabled
    rule's neither."""
    monkeypatch.chdir(tmp_path)
    manifests = write(tmp_path, "web.yaml", annotated(pod("web"), "unschedulable: once too big"))
    assert not [f for f in lint(LintOptions((manifests,))).findings if f.rule == "unused-suppression"]
    with_pool = lint(LintOptions((manifests,), (pool(tmp_path),)))
    assert [f.rule for f in with_pool.findings] == ["fits", "unused-suppression"]
    from kexplain.lint.choice import choice_of
    chosen = lint(LintOptions((manifests,), (pool(tmp_path),), rules=choice_of({"disable": ["unschedulable"]})))
    assert [f.rule for f in chosen.findings] == ["fits"]
    quiet = lint(LintOptions((manifests,), (pool(tmp_path),), rules=choice_of({"disable": ["unused-suppression"]})))
    assert [f.rule for f in quiet.findings] == ["fits"]


def test_a_suppression_of_a_schema_error(capsys, monkeypatch, tmp_path) -> None:
    monkeypatch.chdir(tmp_path)
    bad = annotated(deployment("bad", replicas="x"), "schema: replicas come from the overlay")
    code, out, _ = run(capsys, monkeypatch, write(tmp_path, "bad.yaml", bad), "-o", "json")
    data = json.loads(out)
    assert code == 0 and data["summary"]["errors"] == 0 and data["summary"]["suppressed"] == 1
    assert data["findings"][0]["rule"] == "schema" and data["findings"][0]["suppressed"]["justification"] == \
        "replicas come from the overlay"


def test_a_kueue_rule_is_said_stale_only_when_kueues_pass_ran(tmp_path, monkeypatch) -> None:
    """A job's suppression of kueue-held, linted without Kueue's objects, is not stale (Kueue's rules
    could not find); with them, held: suppressed; admitted (4 small pods): stale."""
    from tests.lint.test_lint_kueue import CASE, HUGE
    monkeypatch.chdir(tmp_path)

    def held_job(pods: str) -> str:
        path = tmp_path / f"job-{pods}.yaml"
        text = HUGE.replace("PODS", pods).replace("  labels:", f"  annotations: {{{IGNORE}: 'kueue-held: batch "
                                                               "night'}\n  labels:")
        path.write_text(text)
        return str(path)

    def rules(*paths: str) -> list[tuple[str, object]]:
        report = lint(LintOptions(paths, (str(CASE / "cluster.yaml"),)))
        return [(f.rule, f.suppressed) for f in report.findings if f.rule.startswith(("kueue-", "unused"))]

    alone = lint(LintOptions((held_job("10"),), (pool(tmp_path),)))
    assert not [f for f in alone.findings if f.rule == "unused-suppression"]
    assert rules(held_job("10")) == [("kueue-held", "batch night")]
    assert rules(held_job("4")) == [("unused-suppression", None)]
