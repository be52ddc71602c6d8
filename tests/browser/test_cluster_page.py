"""The `kexplain cluster --html` page in Chromium: it renders without a script error, the summary
is the first thing in it, each row opens (a click on its summary) into its single-object answer
and closes again, and at 800 pixels, every row open, nothing scrolls sideways."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("selenium", reason="browser tests need the selenium package (pip install -e '.[test]')")

from selenium.webdriver.common.by import By  # noqa: E402

from tests.browser.conftest import kexplain  # noqa: E402
from tests.support.paths import DATA, FIXTURES, ROOT  # noqa: E402

NOW = "2026-01-01T12:00:00Z"
CA = ROOT / "tests" / "autoscaler" / "cases" / "scaledown-0011"
RANKING = FIXTURES / "eviction" / "ranking-now"
# By page: its `kexplain cluster` arguments (each section of the report among them).
CLUSTERS = {"shop": ("--nodes", str(DATA / "cluster" / "shop.yaml")),
            "karpenter": ("--nodes", str(FIXTURES / "karpenter-disruption" / "cluster.yaml"),
                          "--nodes", str(FIXTURES / "karpenter-disruption" / "nodepools.yaml")),
            "kueue": ("--nodes", str(FIXTURES / "kueue" / "cluster.yaml"),
                      "--nodes", str(FIXTURES / "cluster" / "kueue-held.yaml")),
            "scaledown": ("--nodes", str(CA / "cluster.yaml"), "--node-groups", str(CA / "nodegroups.yaml"),
                          "--autoscaler-config", str(CA / "params.yaml")),
            "evictions": ("--nodes", str(RANKING / "cluster.yaml"), "--nodes", str(FIXTURES / "eviction" / "taints.yaml"),
                          "--node-stats", f"node-a={RANKING / 'stats.json'}",
                          "--kubelet-config", str(RANKING / "kubelet-config.yaml"))}


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("cluster")
    out = {}
    for name, args in CLUSTERS.items():
        out[name] = folder / f"{name}.html"
        kexplain("cluster", *args, "--now", NOW, "--html", str(out[name]))
    return out


def _fits(browser) -> bool:
    return browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("case", list(CLUSTERS))
def test_the_summary_is_at_the_top_and_every_row_opens(browser, pages, case):
    browser.set_window_size(800, 900)
    browser.get(pages[case].as_uri())
    first = browser.find_element(By.CSS_SELECTOR, "main > section")
    assert first.get_attribute("class") == "cluster summary" and first.is_displayed()
    assert first.location["y"] < 300            # on the first screen, under the title
    rows = browser.find_elements(By.CSS_SELECTOR, "details.row")
    assert rows and not any(r.get_attribute("open") for r in rows)
    assert _fits(browser)
    for row in rows:
        detail = row.find_element(By.CSS_SELECTOR, ":scope > .detail")
        assert not detail.is_displayed()
        row.find_element(By.CSS_SELECTOR, ":scope > summary").click()
        assert row.get_attribute("open") is not None and detail.is_displayed()
        assert detail.text.strip()
    assert _fits(browser)                        # every row open: still no sideways scroll at 800 px
    rows[0].find_element(By.CSS_SELECTOR, ":scope > summary").click()
    assert rows[0].get_attribute("open") is None
    errors = [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"]
    assert errors == []


def test_a_pending_row_opens_into_the_pods_page(browser, pages):
    browser.set_window_size(800, 900)
    browser.get(pages["shop"].as_uri())
    row = browser.find_element(By.ID, "s-pending-0")
    row.find_element(By.CSS_SELECTOR, ":scope > summary").click()
    heading = row.find_element(By.CSS_SELECTOR, "section.trace h2")
    assert heading.text.startswith("First pod: shop/render-7f9d4-r1") and heading.is_displayed()
    assert "What would make it schedule" in row.text
