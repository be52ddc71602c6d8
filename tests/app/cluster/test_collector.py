"""The report's sections run with the cyclic collector paused (`report_of`), as the read does, and the
collector is as it was once the report is done."""
from __future__ import annotations

import gc

import pytest

from kexplain.app.cluster import budgets
from kexplain.app.cluster.report import chosen, report_of
from tests.app.cluster.helpers import SHOP, inputs_of


def test_the_sections_run_with_the_collector_paused(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    real = budgets.section

    def section(inputs):
        seen.append(gc.isenabled())
        return real(inputs)
    monkeypatch.setattr(budgets, "section", section)
    inputs = inputs_of(SHOP)
    was = gc.isenabled()
    doc = report_of(inputs, chosen(("budgets",)))
    assert seen == [False]
    assert gc.isenabled() == was
    assert doc["sections"][0]["name"] == "budgets"


def test_the_collector_stays_paused_between_the_read_and_the_sections(monkeypatch: pytest.MonkeyPatch) -> None:
    """`report`: from the read to the last section, no full collection walks what the read made."""
    from kexplain.app.cluster import report as report_module
    from tests.app.cluster.helpers import request
    seen: list[bool] = []
    real = report_module.report_of

    def report_of(inputs, sections):
        seen.append(gc.isenabled())
        return real(inputs, sections)
    monkeypatch.setattr(report_module, "report_of", report_of)
    was = gc.isenabled()
    report_module.report(request(SHOP))
    assert seen == [False] and gc.isenabled() == was
