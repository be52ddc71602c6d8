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
