"""`kexplain lint -o FORMAT`: the format option as every command's `-o`; the report's file is
`--output-file FILE`; a file name given to `-o` (the old `--output FILE`) is bad usage, never a
text report written to a file named after the format."""
from __future__ import annotations

import json

import pytest

from tests.support.lint_helpers import pod, pool, run, write


@pytest.mark.parametrize("option", ["-o", "--output"])
def test_output_json_is_the_json_report_on_stdout(tmp_path, capsys, monkeypatch, option):
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path, "p.yaml", pod("huge", cpu="64"))
    code, out, err = run(capsys, monkeypatch, path, "--nodes", pool(tmp_path), option, "json")
    assert code == 1 and not err
    assert json.loads(out)["kind"] == "LintReport"
    assert not (tmp_path / "json").exists()


def test_output_file_receives_its_format(tmp_path, capsys, monkeypatch):
    path = write(tmp_path, "p.yaml", pod("huge", cpu="64"))
    target = tmp_path / "lint.sarif"
    code, out, _ = run(capsys, monkeypatch, path, "--nodes", pool(tmp_path), "-o", "sarif",
                       "--output-file", str(target), "-o", "text")
    assert code == 1
    assert json.loads(target.read_text())["version"] == "2.1.0"
    assert "error [unschedulable] Pod default/huge" in out


@pytest.mark.parametrize("value", ["report.json", "yaml", "JSON"])
def test_a_value_that_is_no_format_is_bad_usage(tmp_path, capsys, monkeypatch, value):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, monkeypatch, write(tmp_path, "p.yaml", pod()), "--output", value)
    assert code == 2 and not out
    assert (f"Invalid value for '-o' / '--output': {value!r} is not one of 'text', 'json', 'junit', 'sarif', "
            "'github' (the report's file is --output-file FILE)") in " ".join(err.split())
    assert not (tmp_path / value).exists()


def test_format_is_the_deprecated_name_of_o(tmp_path, capsys, monkeypatch):
    path = write(tmp_path, "p.yaml", pod())
    code, out, err = run(capsys, monkeypatch, path, "--format", "json")
    assert code == 0 and json.loads(out)["kind"] == "LintReport"
    assert "warning: --format/-f is deprecated: use -o/--output FORMAT" in err
    code, out, err = run(capsys, monkeypatch, path, "-f", "json", "-o", "sarif")
    assert code == 2 and "give -o/--output only" in err


def test_list_rules_takes_o_json(capsys, monkeypatch):
    code, out, _ = run(capsys, monkeypatch, "--list-rules", "-o", "json")
    assert code == 0 and isinstance(json.loads(out), list)
