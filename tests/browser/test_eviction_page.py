"""The `kexplain evict drain|pressure|taints --html` page in Chromium: static (no script), its
sections' tables read as the document says, and at 800 and 1280 pixels nothing but the text's
own box scrolls sideways (kubectl's long messages wrap in their cells)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("selenium", reason="browser tests need the selenium package (pip install -e '.[test]')")

from selenium.webdriver.common.by import By  # noqa: E402

from tests.browser.conftest import kexplain  # noqa: E402
from tests.support.paths import TESTS  # noqa: E402

CASES = TESTS / "eviction" / "cases"


def write_page(folder: Path, case: str) -> Path:
    params = json.loads((CASES / case / "params.yaml").read_text())
    out = folder / f"{case}.html"
    extra = (["--stats", str(CASES / case / "stats.json"), "--kubelet-config", str(CASES / case / "kubelet-config.yaml")]
             if params["family"] == "pressure" else [])
    kexplain("evict", params["family"], params["node"], "--nodes", str(CASES / case / "cluster.yaml"), "--now",
             params["now"], *extra, "--html", str(out))
    return out


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("eviction")
    return {case: write_page(folder, case) for case in ("drain-0012", "pressure-0002", "taints-0012")}


@pytest.mark.parametrize("width", [800, 1280])
@pytest.mark.parametrize("case", ["drain-0012", "pressure-0002", "taints-0012"])
def test_the_page_fits_and_reads(browser, pages, case, width):
    browser.set_window_size(width, 900)
    browser.get(pages[case].as_uri())
    sections = [h.text for h in browser.find_elements(By.CSS_SELECTOR, "section.eviction h2")]
    assert sections[-1] == "As the terminal prints it" and len(sections) >= 2
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    rows = browser.find_elements(By.CSS_SELECTOR, "section.eviction tbody tr")
    assert rows and all(r.is_displayed() for r in rows[:3])
    errors = [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"]
    assert errors == []
