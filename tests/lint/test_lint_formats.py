"""Lint output formats: JUnit (validated against the published JUnit schemas: Apache Ant's as
Windy Road publishes it, and the Jenkins xUnit plugin's junit-10.xsd), SARIF (validated against
the official OASIS SARIF 2.1.0 schema, formats checked), github annotations, json, text, and
several formats at once. The schemas are in tests/data/schemas/ (see its README.md)."""
from __future__ import annotations

import json
import re
from pathlib import Path
from xml.etree import ElementTree as ET

import jsonschema
import pytest
import xmlschema
import yaml

from kexplain.lint.linter import RULES, Finding, LintOptions, Location, ObjectRef, Report, lint
from kexplain.render.lint_formats import (SARIF_SCHEMA_URI, RenderOptions, artifact_uri, formats_for, render_github,
                                   render_json, render_junit, render_sarif, render_text)
from kexplain.lint.linter import Severity
from tests.support.lint_helpers import deployment, pod, pool, run, write
from tests.support.paths import DATA

SCHEMAS = DATA / "schemas"
JUNIT_SCHEMAS = ("JUnit.xsd", "junit-10.xsd")


class JUnitSchemas:
    """Both published JUnit schemas: `validate` checks a document (text or path) against each."""

    def __init__(self) -> None:
        self.schemas = [xmlschema.XMLSchema(str(SCHEMAS / name)) for name in JUNIT_SCHEMAS]

    def validate(self, source: str) -> None:
        for schema in self.schemas:
            schema.validate(source)


@pytest.fixture(scope="module")
def junit_schema() -> JUnitSchemas:
    return JUnitSchemas()


@pytest.fixture(scope="module")
def sarif_schema() -> dict:
    return json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def sarif_validator(sarif_schema) -> jsonschema.protocols.Validator:
    """The official schema's own draft (draft-04), every `$ref` local; formats checked with every
    checker jsonschema has (draft-04's own has no `uri-reference`, which the schema uses)."""
    cls = jsonschema.validators.validator_for(sarif_schema)
    assert cls is jsonschema.Draft4Validator
    cls.check_schema(sarif_schema)
    checker = jsonschema.FormatChecker()
    assert {"uri", "uri-reference"} <= set(checker.checkers)     # rfc3986-validator is installed
    return cls(sarif_schema, format_checker=checker)


@pytest.fixture
def report(tmp_path, monkeypatch):
    """Every kind of finding: schema error, unknown field, unknown kind, unschedulable, replicas,
    gated (warning), fits (info), and an unreadable file."""
    monkeypatch.chdir(tmp_path)
    bad = deployment("bad", replicas="x")
    extra = pod("extra")
    extra["spec"]["containers"][0]["colour"] = "red"
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
    manifests = write(tmp_path, "app/manifests.yaml", bad, extra, pod("small"), widget, pod("huge", cpu="64"),
                      deployment("web", replicas=5, cpu="1"), pod("gated", schedulingGates=[{"name": "x/y"}]))
    broken = tmp_path / "app" / "broken.yaml"
    broken.write_text("a: [\n")
    # n2 has room for "small" beside two "web" replicas: one file is one batch, in file order
    return lint(LintOptions(("app/manifests.yaml", "app/broken.yaml"), (pool(tmp_path, cpus=("2", "2.5")),)))


def test_the_report_has_every_kind_of_finding(report):
    assert [f.rule for f in report.findings] == ["schema", "unknown-field", "fits", "unknown-kind",
                                                 "unschedulable", "replicas", "gated", "unreadable"]


def _totals(root: ET.Element) -> tuple[int, ...]:
    return tuple(sum(int(s.get(k)) for s in root.iter("testsuite")) for k in ("tests", "failures", "errors", "skipped"))


def test_junit_is_valid_and_counts(report, junit_schema):
    xml = render_junit(report)
    junit_schema.validate(xml)
    root = ET.fromstring(xml)
    assert root.tag == "testsuites" and not root.attrib     # the Ant schema allows no attribute there
    assert _totals(root) == (12, 4, 1, 1)
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert cases["Deployment default/bad (document 1) schema"].find("failure").get("type") == "schema"
    assert cases["Pod default/extra (document 2) schema"].find("failure").get("type") == "unknown-field"
    assert "Pod default/extra (document 2) scheduling" not in cases       # refused: never created
    assert cases["Pod default/small (document 3) scheduling"].find("failure") is None
    assert cases["Widget w (document 4) schema"].find("skipped") is not None
    assert cases["Deployment default/web (document 6) scheduling"].find("failure").get("type") == "replicas"
    gated = cases["Pod default/gated (document 7) scheduling"]
    assert gated.find("failure") is None and list(gated) == []
    suites = list(root.iter("testsuite"))
    assert [(s.get("name"), s.get("package"), s.get("id")) for s in suites] == [
        ("app/manifests.yaml", "app/manifests.yaml", "0"), ("app/broken.yaml", "app/broken.yaml", "1")]
    # lesser findings, which a testcase cannot hold, are the suite's output, each naming its object
    out = suites[0].find("system-out").text
    assert "warning [gated] Pod default/gated: waits for its scheduling gates (x/y) (document 7)" in out
    assert suites[1].find("system-out").text is None
    props = {p.get("name"): p.get("value") for p in suites[0].find("properties")}
    assert props == {"kubernetesVersion": "1.36", "strict": "true", "scheduling": "true"}   # the default
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", suites[0].get("timestamp"))
    assert suites[0].get("hostname")


def test_junit_failures_follow_fail_on(report, junit_schema):
    xml = render_junit(report, RenderOptions(fail_on=Severity.WARNING))
    junit_schema.validate(xml)
    assert _totals(ET.fromstring(xml))[1] == 5
    xml = render_junit(report, RenderOptions(fail_on=None))
    junit_schema.validate(xml)
    assert _totals(ET.fromstring(xml))[1] == 0


def test_junit_schemas_reject_what_we_used_to_write(junit_schema):
    """The published schemas are strict where kexplain once was not: totals on the root
    (neither schema allows `skipped` there), output inside a testcase, a suite without its
    timestamp, hostname, properties and outputs."""
    ant, jenkins = junit_schema.schemas
    suite = ('<testsuite name="x" package="x" id="0" timestamp="2026-01-01T00:00:00" hostname="h" tests="1" '
             'failures="0" errors="0" time="0"><properties/>{case}<system-out/><system-err/></testsuite>')
    ok = '<testsuites>' + suite.format(case='<testcase name="a" classname="c" time="0"/>') + '</testsuites>'
    ant.validate(ok)
    jenkins.validate(ok)
    with pytest.raises(xmlschema.XMLSchemaValidationError):
        jenkins.validate(ok.replace("<testsuites>", '<testsuites skipped="0">'))
    with pytest.raises(xmlschema.XMLSchemaValidationError):
        ant.validate(ok.replace("<testsuites>", '<testsuites tests="1">'))
    with pytest.raises(xmlschema.XMLSchemaValidationError):
        ant.validate('<testsuites>' + suite.format(case='<testcase name="a" classname="c" time="0">'
                                                        '<system-out>x</system-out></testcase>') + '</testsuites>')
    with pytest.raises(xmlschema.XMLSchemaValidationError):
        ant.validate('<testsuites>' + suite.format(case='<testcase name="a" classname="c" time="0">'
                                                        '<failure type="t"/><error type="t"/></testcase>')
                     + '</testsuites>')
    with pytest.raises(xmlschema.XMLSchemaValidationError):
        ant.validate(ok.replace(' timestamp="2026-01-01T00:00:00"', ""))


def test_junit_carries_no_character_xml_cannot(tmp_path, monkeypatch, junit_schema):
    """A control character in a manifest (YAML allows it escaped) would make the XML malformed."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "d.yaml", deployment("bad\x07name", replicas="x"))
    report = lint(LintOptions(("d.yaml",)))
    assert [f.headline() for f in report.findings] == [
        "Deployment default/bad\x07name: spec.replicas: json: cannot unmarshal string into Go struct field "
        "DeploymentSpec.spec.replicas of type int32"]
    xml = render_junit(report)
    junit_schema.validate(xml)
    assert 'message="Deployment default/bad\\x07name: spec.replicas' in xml and "\x07" not in xml


@pytest.mark.parametrize("verbose", [False, True])
def test_sarif_is_valid(report, sarif_validator, verbose):
    log = json.loads(render_sarif(report, RenderOptions(verbose=verbose)))
    errors = sorted(sarif_validator.iter_errors(log), key=str)
    assert not errors, errors[0].message
    run_ = log["runs"][0]
    rules = run_["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == list(RULES)
    results = run_["results"]
    for r in results:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
    levels = [(r["ruleId"], r["level"]) for r in results]
    expected = [("schema", "error"), ("unknown-field", "error"), ("unschedulable", "error"), ("replicas", "error"),
                ("gated", "warning"), ("unreadable", "error")]
    if verbose:
        expected[2:2] = [("fits", "note"), ("unknown-kind", "note")]
    assert levels == expected
    first = results[0]["locations"][0]
    assert first["physicalLocation"]["artifactLocation"]["uri"] == "app/manifests.yaml"
    assert first["physicalLocation"]["region"]["startLine"] > 1
    assert first["logicalLocations"][0]["fullyQualifiedName"] == "Deployment/default/bad"
    assert results[0]["properties"]["field"] == "spec.replicas"


def test_sarif_names_the_schema_it_is_valid_against(report, sarif_schema):
    assert json.loads(render_sarif(report))["$schema"] == SARIF_SCHEMA_URI == sarif_schema["id"]


def test_sarif_schema_catches_a_broken_log(sarif_validator):
    assert not sarif_validator.is_valid({"version": "2.1.0", "runs": [{"tool": {"driver": {}}}]})
    assert not sarif_validator.is_valid({"version": "2.0.0", "runs": []})
    assert not sarif_validator.is_valid({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}},
                                                                       "results": [{"level": "fatal",
                                                                                    "message": {"text": "m"}}]}]})
    # the region needs a start, and URIs are checked (the format checker has its URI validator)
    region = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"message": {"text": "m"},
              "locations": [{"physicalLocation": {"artifactLocation": {"uri": "a.yaml"}, "region": {"endLine": 2}}}]}]}]}
    assert not sarif_validator.is_valid(region)
    bad_uri = json.loads(json.dumps(region).replace('"endLine"', '"startLine"').replace("a.yaml", "a b:/\\\\x"))
    assert not sarif_validator.is_valid(bad_uri)
    assert sarif_validator.is_valid(json.loads(json.dumps(bad_uri).replace("a b:/\\\\x", "a%20b.yaml")))


@pytest.mark.parametrize("path, expected", [("-", "stdin"), ("a b/c.yaml", "a%20b/c.yaml")])
def test_artifact_uri(tmp_path, monkeypatch, path, expected):
    monkeypatch.chdir(tmp_path)
    assert artifact_uri(path) == expected
    assert artifact_uri("/elsewhere/x.yaml") == "file:///elsewhere/x.yaml"


def test_github_annotations(report):
    lines = render_github(report).splitlines()
    assert lines[0] == ("::error file=app/manifests.yaml,line=20,title=kexplain lint%3A schema::"
                        "app/manifests.yaml: document 1: Deployment default/bad: spec.replicas: "
                        "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32")
    assert lines[4].startswith("::warning file=app/manifests.yaml,line=")
    assert "title=kexplain lint%3A gated::" in lines[4]
    assert lines[5] == ("::error file=app/broken.yaml,line=2,title=kexplain lint%3A unreadable::app/broken.yaml: "
                        "document 1: invalid YAML: line 2, column 1: did not find expected node content")
    assert lines[-1].startswith("7 objects in 2 files")
    assert not any(line.startswith("::notice") for line in lines)
    assert sum(line.startswith("::notice") for line in render_github(report, RenderOptions(verbose=True))
               .splitlines()) == 2


def test_github_escaping():
    finding = Finding("schema", Location("a,b:c.yaml", 1, line=3), ObjectRef("v1", "Pod", "", "p"),
                      "50% done\nnext line", suggestions=("raise it: 2",), severity=Severity.ERROR)
    line = render_github(Report(findings=[finding])).splitlines()[0]
    assert line == ("::error file=a%2Cb%3Ac.yaml,line=3,title=kexplain lint%3A schema::a,b:c.yaml: document 1: "
                    "Pod p: 50%25 done%0Anext line%0Asuggestion: raise it: 2")


def test_github_is_the_default_under_github_actions(tmp_path, capsys, monkeypatch):
    assert formats_for([], {"GITHUB_ACTIONS": "true"}) == ["github"]
    assert formats_for([], {}) == ["text"]
    assert formats_for(["json"], {"GITHUB_ACTIONS": "true"}) == ["json"]
    path = write(tmp_path, "p.yaml", pod(cpu="64"))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    from kexplain.cli.app import main
    code = main(["lint", path, "--nodes", pool(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1
    assert out.startswith("::error file=")


def test_json_report(report):
    data = json.loads(render_json(report))
    assert data["kind"] == "LintReport" and data["kubernetesVersion"] == "1.36" and data["strict"] is True
    assert data["summary"] == {"files": 2, "objects": 7, "scheduled": 4, "errors": 5, "warnings": 1, "info": 2,
                               "skipped": 1}
    replicas = next(f for f in data["findings"] if f["rule"] == "replicas")
    assert replicas["details"]["fit"] == 4 and replicas["details"]["replicas"] == 5
    assert replicas["object"] == {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "default", "name": "web"}


def test_text_report(report):
    text = render_text(report)
    assert ("app/manifests.yaml:20: error [schema] Deployment default/bad: spec.replicas: json: cannot unmarshal "
            "string into Go struct field DeploymentSpec.spec.replicas of type int32") in text
    assert "[fits]" not in text and "[fits]" in render_text(report, RenderOptions(verbose=True))
    assert text.rstrip().endswith("7 objects in 2 files, 4 scheduled against the pool: 5 errors, 1 warning, "
                                  "1 skipped (no schema)")


def test_several_formats_with_output_files(tmp_path, capsys, monkeypatch, junit_schema, sarif_validator):
    path = write(tmp_path, "d.yaml", deployment(replicas=5, cpu="1"))
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    code, out, _ = run(capsys, monkeypatch, path, "--nodes", pool(tmp_path),
                       "-o", "junit", "--output-file", str(out_dir / "lint.xml"),
                       "-o", "sarif", "--output-file", str(out_dir / "lint.sarif"),
                       "-o", "text")
    assert code == 1
    assert "error [replicas] Deployment default/web: fits only 4 of 5 replicas" in out
    junit_schema.validate(str(out_dir / "lint.xml"))
    assert sarif_validator.is_valid(json.loads((out_dir / "lint.sarif").read_text()))


def test_unwritable_output_is_a_usage_error(tmp_path, capsys, monkeypatch):
    code, _, err = run(capsys, monkeypatch, write(tmp_path, "p.yaml", pod()), "-o", "json",
                       "--output-file", str(tmp_path / "missing" / "x.json"))
    assert code == 2 and "cannot write" in err


def test_sarif_is_valid_for_stdin_and_files_outside_the_working_directory(tmp_path, capsys, monkeypatch,
                                                                         sarif_validator, junit_schema):
    outside = write(tmp_path, "outside dir/p.yaml", pod("huge", cpu="64"))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    stream = yaml.safe_dump(deployment("bad", replicas="x"))
    code, out, _ = run(capsys, monkeypatch, "-", outside, "--nodes", pool(tmp_path), "-o", "sarif", stdin=stream)
    assert code == 1
    log = json.loads(out)
    errors = list(sarif_validator.iter_errors(log))
    assert not errors, errors[0].message
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]]
    assert uris == ["stdin", (tmp_path / "outside dir" / "p.yaml").as_uri()]
    code, out, _ = run(capsys, monkeypatch, "-", outside, "--nodes", pool(tmp_path), "-o", "junit", stdin=stream)
    junit_schema.validate(out)
    assert [s.get("name") for s in ET.fromstring(out).iter("testsuite")] == ["<stdin>", outside]


# -- schema errors read as the API server words them, in every format ---------------------------------
def _malformed() -> list[tuple[dict, str, str]]:
    """(object, field, message): each malformed in one way, with the API server's words for it (for
    these built-in kinds, its decoding errors: it runs no OpenAPI validation for them)."""
    containers_map = pod("containers-map")
    containers_map["spec"]["containers"] = {"name": "c", "image": "nginx"}
    cpu_map = pod("cpu-map")
    cpu_map["spec"]["containers"][0]["resources"]["requests"]["cpu"] = {"cores": 2}
    no_name = pod("no-name")
    del no_name["spec"]["containers"][0]["name"]
    labels_list = pod("labels-list")
    labels_list["metadata"]["labels"] = ["app", "web"]
    port_text = pod("port-text")
    port_text["spec"]["containers"][0]["ports"] = [{"containerPort": "80"}]
    grpc = pod("grpc")
    grpc["spec"]["containers"][0]["livenessProbe"] = {"gRPC": {"port": 8080}}
    return [
        (containers_map, "spec.containers",
         "json: cannot unmarshal object into Go struct field PodSpec.spec.containers of type []v1.Container"),
        (cpu_map, "spec.containers[0].resources.requests.cpu",
         "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
        (no_name, "spec.containers[0].name", "Required value"),
        (labels_list, "metadata.labels",
         "json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string"),
        (deployment("replicas-flag", replicas=True), "spec.replicas",
         "json: cannot unmarshal bool into Go struct field DeploymentSpec.spec.replicas of type int32"),
        (port_text, "spec.containers[0].ports[0].containerPort",
         "json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of "
         "type int32"),
        (grpc, "spec.containers[0].livenessProbe.gRPC",
         'strict decoding error: unknown field "spec.containers[0].livenessProbe.gRPC"'),
    ]


# what a Python repr of a dict, a list, a string or a boolean looks like in a message
PYTHON_REPR = re.compile(r"\{'|\['|'\]|': |is not of type|is a required property|\bTrue\b|\bFalse\b")


def test_schema_errors_in_every_format_read_as_the_api_server_says_them(tmp_path, monkeypatch, junit_schema,
                                                                        sarif_validator):
    monkeypatch.chdir(tmp_path)
    cases = _malformed()
    write(tmp_path, "bad.yaml", *(obj for obj, _, _ in cases))
    report = lint(LintOptions(("bad.yaml",)))
    assert [(f.rule, f.field, f.message) for f in report.findings] == [
        ("unknown-field" if "unknown field" in m else "schema", field, m) for _, field, m in cases]
    text, github = render_text(report), render_github(report)
    for (obj, field, message), doc in zip(cases, range(1, len(cases) + 1)):
        name = obj["metadata"]["name"]
        assert f"{obj['kind']} default/{name}: {field}: {message}" in text
        assert f"bad.yaml: document {doc}: {obj['kind']} default/{name}: {field}: {message}" in github
    data = json.loads(render_json(report))
    assert [f["message"] for f in data["findings"]] == [m for _, _, m in cases]
    junit = render_junit(report)
    junit_schema.validate(junit)
    failures = [el.get("message") for el in ET.fromstring(junit).iter("failure")]
    assert failures == [f"{o['kind']} default/{o['metadata']['name']}: {f}: {m}" for o, f, m in cases]
    sarif = json.loads(render_sarif(report))
    sarif_validator.validate(sarif)
    assert [r["message"]["text"] for r in sarif["runs"][0]["results"]] == failures
    for output in (text, github, json.dumps(data), junit, json.dumps(sarif)):
        assert not PYTHON_REPR.search(output), PYTHON_REPR.search(output)
