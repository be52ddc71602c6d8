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


@pytest.fixture(scope="module")
def node_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`--node NAME --html`: the node held by a do-not-disrupt pod, whose verified fix is a long line."""
    out = tmp_path_factory.mktemp("karpenter-disruption-node") / "node.html"
    fixtures = Path(__file__).resolve().parents[2] / "fixtures" / "karpenter-disruption"
    kexplain("karpenter", "--disruption", "--nodes", str(fixtures / "cluster.yaml"), "--nodes",
             str(fixtures / "nodepools.yaml"), "--now", "2026-01-01T12:00:00Z", "--node", "ip-10-0-4-17.ec2.internal",
             "--html", str(out))
    return out


def test_the_node_pages_text_blocks_wrap_at_800_pixels(browser, node_page):
    """The --node answer's blocks and the methods' blocks wrap at the window's edge (as the tables
    do): none is cut and scrolls sideways; only the terminal's own text keeps its lines."""
    browser.set_window_size(800, 900)
    browser.get(node_page.as_uri())
    blocks = browser.execute_script(
        "return [...document.querySelectorAll('#main pre')].map(p => [p.closest('section').querySelector('h2').id, "
        "p.textContent.split('\\n')[0].trim(), p.scrollWidth, p.clientWidth])")
    sections = {b[0] for b in blocks}
    assert {"node", "methods", "text"} <= sections
    cut = [b for b in blocks if b[0] != "text" and b[2] > b[3]]
    assert cut == []
    fix = browser.find_element(By.CSS_SELECTOR, "#main section pre.wrap:nth-of-type(2)").text
    assert "though not as this pass's decision" in fix         # (the whole line is there, wrapped)
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
