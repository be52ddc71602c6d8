"""Lint's own rules are package data (`kexplain/lint/rules.json`): read in their order into
`RULES` with their severities, and shipped by a non-editable install."""
from __future__ import annotations

import json
from importlib import resources

import pytest

from kexplain.lint.linter import RULES, Severity
from tests.support.package_files import built_files


def test_the_table_is_the_start_of_rules_in_order() -> None:
    table = json.loads(resources.files("kexplain.lint").joinpath("rules.json").read_text(encoding="utf-8"))
    assert [r[0] for r in table] == list(RULES)[:len(table)]
    for rule_id, severity, summary in table:
        assert RULES[rule_id].severity is Severity[severity.upper()] and RULES[rule_id].summary == summary
    assert RULES["unreadable"].severity is Severity.ERROR and RULES["unknown-kind"].severity is Severity.INFO


def test_an_install_ships_the_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    assert "kexplain/lint/rules.json" in built_files(monkeypatch)
