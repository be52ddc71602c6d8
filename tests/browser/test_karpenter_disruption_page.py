"""The `kexplain karpenter --disruption --html` page in Chromium: static (no script), the verdict
first, the chain's table as the document says it (the second pod of a budget refused, its node
held), and at 800 and 1280 pixels nothing but the text's own boxes scrolls sideways."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("selenium", reason="browser tests need the selenium package (pip install -e '.[test]')")

from selenium.webdriver.common.by import By  # noqa: E402

from tests.browser.conftest import kexplain  # noqa: E402
from tests.karpenter.test_disruption_chain import two_web_pods_one_disruption, write_inputs  # noqa: E402


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("karpenter-disruption")
    out = folder / "disruption.html"
    kexplain("karpenter", "--disruption", *write_inputs(folder, two_web_pods_one_disruption()),
             "--now", "2026-01-01T12:00:00Z", "--html", str(out))
    return out


@pytest.mark.parametrize("width", [800, 1280])
def test_the_page_fits_and_reads(browser, page, width):
    browser.set_window_size(width, 900)
    browser.get(page.as_uri())
    sections = [h.text for h in browser.find_elements(By.CSS_SELECTOR, "section.disruption h2")]
    assert sections[0] == "Verdict" and sections[-1] == "As the terminal prints it"
    assert "The chain: evictions, budgets, where the pods land" in sections
    verdict = browser.find_element(By.CSS_SELECTOR, "p.verdict").text
    assert verdict.startswith("Karpenter would start SingleNodeConsolidation (Underutilized)")
    chain = browser.find_element(By.ID, "chain").find_element(By.XPATH, "..")
    rows = [[c.text for c in r.find_elements(By.TAG_NAME, "td")]
            for r in chain.find_elements(By.CSS_SELECTOR, "tbody tr")]
    assert [r[0] for r in rows] == ["default/web-1", "default/web-2", "default/logs-1"]
    assert rows[1][2].startswith("429 Cannot evict pod as it would violate the pod's disruption budget.")
    assert all(r.is_displayed() for r in chain.find_elements(By.CSS_SELECTOR, "tbody tr"))
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    errors = [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"]
    assert errors == []
