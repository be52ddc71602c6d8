"""The `kexplain volcano --html` page in Chromium: static (no script), it reads in order (the session,
each PodGroup, the queues, the text); a task and a group of nodes open at a click, the group's every node
then shown; at 800 and 1280 pixels nothing but the terminal's own text scrolls sideways, with every
task and group opened too, on a generated cluster of many jobs and long names, and with a newer
document's keys (a queue's many figures, fixes)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("selenium", reason="browser tests need the selenium package (pip install -e '.[test]')")

from selenium.webdriver.common.by import By  # noqa: E402

from kexplain.cli.app import main  # noqa: E402
from kexplain.render.html.page import render_page  # noqa: E402
from tests.browser.conftest import kexplain  # noqa: E402
from tests.support.cli_helpers import TestEnvironment  # noqa: E402
from tests.render.html.test_volcano_page import many_nodes, write  # noqa: E402
from tests.support.paths import ROOT  # noqa: E402

OVERFLOWING = """return [...document.querySelectorAll('#main *')].filter(e => !e.closest('pre')
    && e.getBoundingClientRect().right > document.documentElement.clientWidth + 1).map(e => e.tagName)"""


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("volcano-page")
    out = folder / "session.html"
    kexplain("volcano", "--nodes", write(folder, many_nodes()), "--html", str(out))
    return out


@pytest.fixture(scope="module", params=["standard", "gang"])
def generated(request, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """benchmarks/volcano_bench's cluster, small: 60 nodes; 6 jobs of long names in 4 queues, or one gang
    of 60 tasks the untainted nodes cannot hold (nodes grouped by their reasons, equal scores)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import volcano_bench

    folder = tmp_path_factory.mktemp("volcano-generated")
    jobs = 6 if request.param == "standard" else 1
    case = volcano_bench.write_case(folder, volcano_bench.Shape(request.param, 60, jobs, 60, 4, 93))
    out = folder / "generated.html"
    kexplain("volcano", "--nodes", str(case / "cluster.json"), "--html", str(out))
    return out


@pytest.fixture(scope="module")
def newer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The page of a document with keys this page does not know: eight figures per queue (columns), fixes
    with long lines, a key of its own."""
    folder = tmp_path_factory.mktemp("volcano-newer")
    env = TestEnvironment()
    assert main(["volcano", "--nodes", write(folder, many_nodes()), "-o", "json"], env) == 1
    doc = json.loads(env.out)
    figures = {k: {"cpu": "1500m", "memory": "17179869184", "nvidia.com/gpu": "8"} for k in
               ("capability", "deserved", "guarantee", "inqueue", "elastic", "realCapability", "request")}
    doc["queues"] = [{**q, **figures, "share": 0.4375} for q in doc["queues"]]
    doc["fixes"] = [{"podGroup": "default/train", "change": "spec.minMember: 2 -> 1 " + "x" * 200,
                     "verified": "the session again: the PodGroup Running"}]
    doc["future"] = {"words": "y" * 300}
    out = folder / "newer.html"
    out.write_text(render_page(doc))
    return out


def errors(browser) -> list[dict]:
    return [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"]


@pytest.mark.parametrize("width", [800, 1280])
def test_the_page_reads_in_order_and_fits(browser, page, width):
    browser.set_window_size(width, 900)
    browser.get(page.as_uri())
    sections = [h.text for h in browser.find_elements(By.CSS_SELECTOR, "section.volcano h2")]
    assert sections == ["The session", "PodGroup default/train", "Queues", "Fixes", "As the terminal prints it"]
    assert browser.find_elements(By.TAG_NAME, "script") == []
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    assert browser.execute_script(OVERFLOWING) == []
    assert errors(browser) == []


def test_a_task_and_a_group_of_nodes_open_at_a_click(browser, page):
    browser.set_window_size(800, 900)
    browser.get(page.as_uri())
    task = browser.find_element(By.ID, "task-default/train-1")
    group = task.find_element(By.CSS_SELECTOR, "details.nodes")
    names = group.find_element(By.TAG_NAME, "p")
    assert not group.is_displayed() and not names.is_displayed()
    task.find_element(By.TAG_NAME, "summary").click()
    assert group.is_displayed() and not names.is_displayed()
    summary = group.find_element(By.TAG_NAME, "summary")
    assert summary.text == "15 node(s): small-00, small-01, small-02 and 12 more"
    summary.click()
    assert names.is_displayed()
    assert names.text.split(", ") == [f"small-{i:02d}" for i in range(14)] + ["big"]
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("width", [800, 1280])
def test_every_task_and_group_opened_still_fits(browser, generated, width):
    browser.set_window_size(width, 900)
    browser.get(generated.as_uri())
    opened = browser.execute_script(
        "var all = document.querySelectorAll('details'); all.forEach(d => d.open = true); return all.length")
    assert opened > 0
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    assert browser.execute_script(OVERFLOWING) == []
    assert errors(browser) == []


def test_a_newer_documents_keys_fit_too(browser, newer):
    browser.set_window_size(800, 900)
    browser.get(newer.as_uri())
    sections = [h.text for h in browser.find_elements(By.CSS_SELECTOR, "section.volcano h2")]
    assert sections[-4:] == ["Queues", "Fixes", "More of the document", "As the terminal prints it"]
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    assert browser.execute_script(OVERFLOWING) == []
