"""Lint's static tables are package data (`kexplain/lint/tables.json`, read by
`kexplain.lint.tables`): its own rules read in their order into `RULES` with their severities,
kube-openapi's messages into the schema errors' words; and a non-editable install ships them."""
from __future__ import annotations

import pytest

from kexplain.lint import schemas
from kexplain.lint.linter import RULES, Severity
from kexplain.lint.tables import table
from tests.support.package_files import built_files


def test_the_rules_are_the_start_of_rules_in_order() -> None:
    rules = table("rules")
    assert [r[0] for r in rules] == list(RULES)[:len(rules)]
    for rule_id, severity, summary in rules:
        assert RULES[rule_id].severity is Severity[severity.upper()] and RULES[rule_id].summary == summary
    assert RULES["unreadable"].severity is Severity.ERROR and RULES["unknown-kind"].severity is Severity.INFO


def test_the_schema_messages_are_kube_openapis() -> None:
    messages = table("kubeOpenapiMessages")
    assert schemas._MESSAGES is messages
    assert messages["minLength"] == "{name} in body should be at least {bound} chars long"
    assert all("{name}" in m for m in messages.values())


def test_an_install_ships_the_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    files = built_files(monkeypatch)
    assert {"kexplain/lint/tables.json", "kexplain/lint/tables.py"} <= files
