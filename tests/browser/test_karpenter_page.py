"""The --html page of pods explained with Karpenter's NodePools among the objects: the
"Karpenter" section (what Karpenter does at the top, linked to it; per NodePool why not; the
verified fixes; a new NodeClaim with its cheapest types), a list's pass after the overview; the
page fits 800 and 1280 pixels. Its own pages (fixtures/karpenter), written here."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("selenium", reason="browser tests need the selenium package (pip install -e '.[test]')")

from selenium.webdriver.common.by import By  # noqa: E402

from tests.browser.conftest import kexplain  # noqa: E402
from tests.browser.test_autoscaler_page import load  # noqa: E402  (the page opened, its script done)
from tests.support.copies import copy_names  # noqa: E402
from tests.support.paths import FIXTURES  # noqa: E402

CASE = FIXTURES / "karpenter"


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("karpenter")
    out = {}
    for pod in ("pod.yaml", "trainer.yaml", "web.yaml"):
        out[pod] = folder / pod.replace(".yaml", ".html")
        kexplain(str(CASE / pod), "--nodes", str(CASE / "cluster.yaml"), "--nodes", str(CASE / "nodepools.yaml"),
                 "--html", str(out[pod]))
    return out


def test_the_section_per_nodepool_and_the_fixes(browser, pages):
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
    load(browser, pages["pod.yaml"])
    does = browser.find_element(By.CSS_SELECTOR, "p.kp-does")
    assert does.text == "Karpenter: Failed (no NodePool can take it)."
    assert does.find_element(By.TAG_NAME, "a").get_attribute("href").endswith("#t0-karpenter")
    section = browser.find_element(By.ID, "t0-karpenter").find_element(By.XPATH, "..").text
    assert section.index("NodePool gpu (weight 10)") < section.index("NodePool general (weight 0)")
    assert 'label "workload" does not have known values' in section
    assert "NodePool general: declare the label workload=batch" in section
    assert [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"] == []


def test_a_new_nodeclaim_and_a_lists_pass(browser, pages):
    load(browser, pages["trainer.yaml"])
    claims = browser.find_element(By.CSS_SELECTOR, "table.kp-claims").text
    assert "gpu-00001" in claims and "g6.2xlarge $" in claims
    load(browser, pages["web.yaml"])
    assert browser.find_element(By.ID, "tlist-karpenter").text == "Karpenter"
    rows = browser.find_elements(By.CSS_SELECTOR, "table.kp-pods tbody tr")
    assert [r.find_element(By.TAG_NAME, "td").text for r in rows] == [
        f"default/{name}" for name in copy_names(CASE / "web.yaml", 3)]
    assert all("NodeClaim general-00001" in r.text for r in rows)


@pytest.mark.parametrize("width", [800, 1280])
def test_the_pages_fit(browser, pages, width):
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
    browser.set_window_size(width, 900)
    try:
        for page in pages.values():
            load(browser, page)
            size = browser.execute_script("return [document.documentElement.scrollWidth, "
                                          "document.documentElement.clientWidth]")
            assert size[0] <= size[1], (page.name, size)
            for css in ("table.kp-pods", "table.kp-claims", ".kp-why", "ol.kp-fixes", "p.kp-does"):
                for el in browser.find_elements(By.CSS_SELECTOR, css):
                    right = browser.execute_script("return arguments[0].getBoundingClientRect().right", el)
                    assert right <= size[1], (page.name, css, right, size[1])
    finally:
        browser.set_window_size(1280, 900)
