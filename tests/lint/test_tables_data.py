"""Lint's static tables are package data (`kexplain/lint/tables.json`, read by
`kexplain.lint.tables`): kube-openapi's messages into the schema errors' words (the rules are their
modules' declarations: tests/lint/test_rules.py); and a non-editable install ships them."""
from __future__ import annotations

import pytest

from kexplain.lint import schemas
from kexplain.lint.tables import _all, table
from tests.support.package_files import built_files


def test_the_tables_are_data_not_rules() -> None:
    assert list(_all()) == ["kubeOpenapiMessages"]


def test_the_schema_messages_are_kube_openapis() -> None:
    messages = table("kubeOpenapiMessages")
    assert schemas._MESSAGES is messages
    assert messages["minLength"] == "{name} in body should be at least {bound} chars long"
    assert all("{name}" in m for m in messages.values())


def test_an_install_ships_the_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    files = built_files(monkeypatch)
    assert {"kexplain/lint/tables.json", "kexplain/lint/tables.py"} <= files
