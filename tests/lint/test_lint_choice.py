"""Choosing lint's rules (issue 79): `--list-rules`, `--enable` / `--disable`, the config file
`.kexplain-lint.yaml` (found from the linted path up to the repository's root, or `--lint-config`),
its severities, and the errors of an unknown rule id or a malformed file (exit 2); in each format."""
from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from kexplain.lint.linter import RULES
from tests.support.lint_helpers import pod, pool, run, write

FORMATS = ("text", "json", "sarif", "junit", "github")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository (`.git`) with a manifest that does not fit the pool, under k8s/apps/."""
    (tmp_path / ".git").mkdir()
    write(tmp_path, "k8s/apps/huge.yaml", pod("huge", cpu="64"))
    pool(tmp_path)
    return tmp_path


def lint_all(capsys, monkeypatch, repo: Path, *args: str) -> dict[str, object]:
    """`kexplain lint k8s/apps/huge.yaml --nodes pool.yaml ARGS` in every format at once: each
    format's output, and the exit code."""
    monkeypatch.chdir(repo)
    outputs: list[str] = []
    for fmt in FORMATS[:-1]:
        outputs += ["-o", fmt, "--output-file", f"out.{fmt}"]
    code, out, err = run(capsys, monkeypatch, "k8s/apps/huge.yaml", "--nodes", "pool.yaml", *outputs,
                         "-o", "github", *args)
    assert not err, err
    got: dict[str, object] = {fmt: (repo / f"out.{fmt}").read_text() for fmt in FORMATS[:-1]}
    got["github"] = out
    got["code"] = code
    return got


def rules_in(got: dict[str, object]) -> dict[str, set[str]]:
    """The rules each format reports."""
    doc = json.loads(str(got["json"]))
    sarif = json.loads(str(got["sarif"]))
    junit = ET.fromstring(str(got["junit"]))
    return {"json": {f["rule"] for f in doc["findings"]},
            "sarif": {r["ruleId"] for r in sarif["runs"][0]["results"]},
            "junit": {f.get("type") for f in junit.iter("failure")},
            "github": {line.split("kexplain lint%3A ", 1)[1].split("::")[0] for line in str(got["github"]).splitlines()
                       if line.startswith("::")},
            "text": {rule for rule in RULES if f"[{rule}]" in str(got["text"])}}


def test_list_rules_gives_every_rule_of_the_registry(capsys, monkeypatch, tmp_path) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, monkeypatch, "--list-rules")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["RULE", "SEVERITY", "NEEDS", "SUMMARY"]
    assert [line.split()[0] for line in lines[1:]] == list(RULES)
    assert lines[1 + list(RULES).index("no-node-group")].split()[1:3] == ["warning", "node-groups"]
    code, out, _ = run(capsys, monkeypatch, "--list-rules", "-o", "json")
    listed = json.loads(out)
    assert code == 0 and [r["id"] for r in listed] == list(RULES)
    assert {"id", "severity", "needs", "summary"} <= set(listed[0])
    assert all(r["enabled"] for r in listed)
    assert listed[list(RULES).index("fits")] == {**RULES["fits"].to_json(), "enabled": True}


def test_list_rules_says_the_choice(capsys, monkeypatch, repo) -> None:
    (repo / ".kexplain-lint.yaml").write_text("disable: [fits]\nseverity: {preemption: error}\n")
    monkeypatch.chdir(repo)
    code, out, _ = run(capsys, monkeypatch, "--list-rules", "-o", "json")
    listed = {r["id"]: r for r in json.loads(out)}
    assert code == 0 and not listed["fits"]["enabled"] and listed["preemption"]["severity"] == "error"
    code, out, _ = run(capsys, monkeypatch, "--list-rules", "--enable", "fits")
    assert "(disabled)" not in out and out.splitlines()[-1] == f"(as {repo / '.kexplain-lint.yaml'} sets them)"


def test_disable_leaves_the_rule_out_of_every_format(capsys, monkeypatch, repo) -> None:
    before = lint_all(capsys, monkeypatch, repo)
    assert before["code"] == 1
    assert all("unschedulable" in found for found in rules_in(before).values()), rules_in(before)
    after = lint_all(capsys, monkeypatch, repo, "--disable", "unschedulable")
    assert after["code"] == 0
    assert not any("unschedulable" in found for found in rules_in(after).values()), rules_in(after)
    assert json.loads(str(after["json"]))["summary"]["errors"] == 0


def test_the_config_file_is_found_from_the_path_up_to_the_repository(capsys, monkeypatch, repo) -> None:
    (repo / "k8s" / ".kexplain-lint.yaml").write_text("disable: [unschedulable]\n")
    assert lint_all(capsys, monkeypatch, repo)["code"] == 0
    # --enable wins over the file
    got = lint_all(capsys, monkeypatch, repo, "--enable", "unschedulable")
    assert got["code"] == 1 and "unschedulable" in rules_in(got)["json"]
    # a file above the repository's root (the folder holding .git) is not read
    (repo / "k8s" / ".kexplain-lint.yaml").unlink()
    nested = repo / "inner"
    (nested / ".git").mkdir(parents=True)
    write(nested, "k8s/huge.yaml", pod("huge", cpu="64"))
    (repo / ".kexplain-lint.yaml").write_text("disable: [unschedulable]\n")
    monkeypatch.chdir(repo)
    code, _, _ = run(capsys, monkeypatch, "inner/k8s/huge.yaml", "--nodes", "pool.yaml")
    assert code == 1
    code, _, _ = run(capsys, monkeypatch, "k8s/apps/huge.yaml", "--nodes", "pool.yaml")
    assert code == 0


def test_lint_config_names_another_file(capsys, monkeypatch, repo) -> None:
    (repo / "k8s" / ".kexplain-lint.yaml").write_text("disable: [unschedulable]\n")
    (repo / "strict.yaml").write_text("severity: {unschedulable: warning}\n")
    got = lint_all(capsys, monkeypatch, repo, "--lint-config", "strict.yaml")
    assert got["code"] == 0      # a warning, below --fail-on error
    found = json.loads(str(got["json"]))["findings"]
    assert [f["severity"] for f in found if f["rule"] == "unschedulable"] == ["warning"]
    assert "::warning file=k8s/apps/huge.yaml" in str(got["github"])
    results = json.loads(str(got["sarif"]))["runs"][0]["results"]
    assert [r["level"] for r in results if r["ruleId"] == "unschedulable"] == ["warning"]
    assert "warning [unschedulable]" in str(got["text"])
    assert not list(ET.fromstring(str(got["junit"])).iter("failure"))
    got = lint_all(capsys, monkeypatch, repo, "--lint-config", "strict.yaml", "--fail-on", "warning")
    assert got["code"] == 1 and "unschedulable" in rules_in(got)["junit"]


@pytest.mark.parametrize(("args", "said"), [
    (("--disable", "fitz"), "--disable: unknown rule 'fitz'; the rules are: unreadable, invalid-document"),
    (("--enable", "Fits"), "--enable: unknown rule 'Fits'; the rules are: unreadable"),
    (("--enable", "fits", "--disable", "fits"), "the command line: fits is both enabled and disabled"),
])
def test_an_unknown_or_contradicted_rule_on_the_command_line_is_bad_usage(capsys, monkeypatch, repo, args,
                                                                          said) -> None:
    monkeypatch.chdir(repo)
    code, out, err = run(capsys, monkeypatch, "k8s/apps/huge.yaml", *args)
    assert code == 2 and said in err and not out
    assert "unused-suppression" in err or "both" in said      # every known id named


@pytest.mark.parametrize(("text", "said"), [
    ("disable: [fitz]\n", "disable: unknown rule 'fitz'; the rules are: unreadable"),
    ("severity: {fitz: error}\n", "severity: unknown rule 'fitz'"),
    ("severity: {fits: fatal}\n", "severity: fits: must be error, warning or info, not 'fatal'"),
    ("disable: fits\n", "disable: must be a list of rule ids, not 'fits'"),
    ("rules: [fits]\n", "unknown key 'rules' (the keys are enable, disable, severity, admissionPlugins)"),
    ("- fits\n", "must be a mapping with the keys enable, disable, severity, admissionPlugins, not a list"),
    ("disable: [fits\n", "invalid YAML"),
    ("enable: [fits]\ndisable: [fits]\n", "fits is both enabled and disabled"),
])
def test_a_bad_config_file_is_bad_usage_naming_the_file(capsys, monkeypatch, repo, text, said) -> None:
    config = repo / ".kexplain-lint.yaml"
    config.write_text(text)
    monkeypatch.chdir(repo)
    code, out, err = run(capsys, monkeypatch, "k8s/apps/huge.yaml", "--nodes", "pool.yaml")
    assert code == 2 and not out
    assert str(config) in err and said in err, err


def test_an_empty_config_file_changes_nothing(capsys, monkeypatch, repo) -> None:
    (repo / ".kexplain-lint.yaml").write_text("# nothing chosen yet\n")
    assert lint_all(capsys, monkeypatch, repo)["code"] == 1


def test_a_folder_linted_leaves_its_config_file_out(capsys, monkeypatch, repo) -> None:
    """The config file beside the manifests is lint's own, not a manifest (given by name, it is one)."""
    (repo / "k8s" / ".kexplain-lint.yaml").write_text("disable: [unschedulable]\n")
    monkeypatch.chdir(repo)
    code, out, _ = run(capsys, monkeypatch, "k8s", "--nodes", "pool.yaml", "-o", "json")
    assert code == 0 and json.loads(out)["summary"]["files"] == 1
    code, out, _ = run(capsys, monkeypatch, "k8s/.kexplain-lint.yaml", "-o", "json")
    assert code == 1 and [f["rule"] for f in json.loads(out)["findings"]] == ["invalid-document"]
