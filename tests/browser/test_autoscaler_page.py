"""The --html page of a pod explained with node groups: the "Cluster autoscaler" section (the
event, the groups' table, the expander's choice) and a group's full verdict, opened from its
name in the table; readable without script too. Its own page (fixtures/autoscaler), written
here: not the shared pages of test_html_in_chromium.py."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("selenium", reason="browser tests need the selenium package (pip install -e '.[test]')")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from tests.browser.conftest import kexplain  # noqa: E402
from tests.support.paths import DATA, FIXTURES  # noqa: E402

CASE = FIXTURES / "autoscaler"


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("autoscaler") / "pod-m5.html"
    kexplain(str(CASE / "pod-m5.yaml"), "--nodes", str(CASE / "cluster.yaml"), "--node-groups",
             str(CASE / "nodegroups.yaml"), "--kubernetes-version", "1.35", "--html", str(out))
    return out


DEPLOYMENT = (DATA / "autoscaler" / "worker-deployment.yaml").read_text()   # 3 replicas on amd64 nodes


@pytest.fixture(scope="module")
def replicas_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("autoscaler-replicas")
    (folder / "worker.yaml").write_text(DEPLOYMENT)
    out = folder / "worker.html"
    kexplain(str(folder / "worker.yaml"), "--nodes", str(CASE / "cluster.yaml"), "--node-groups",
             str(CASE / "nodegroups.yaml"), "--kubernetes-version", "1.35", "--html", str(out))
    return out


def load(driver, page: Path) -> None:
    driver.get(page.as_uri())
    WebDriverWait(driver, 30).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1")


def test_the_section_and_a_group_opened_from_the_table(browser, page):
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
    load(browser, page)
    table = browser.find_element(By.CSS_SELECTOR, "table.ca-groups")
    rows = {r.find_element(By.TAG_NAME, "td").text: r.text for r in table.find_elements(By.CSS_SELECTOR, "tbody tr")}
    assert list(rows) == ["general", "gpu", "arm", "compute"]
    assert "skipped" in rows["general"] and "its template would take the pod" in rows["general"]
    assert "TaintToleration*" in rows["gpu"] and "NodeAffinity" in rows["gpu"]
    event = browser.find_element(By.CSS_SELECTOR, "p.ca-event").text
    assert event.startswith("Event: Normal NotTriggerScaleUp: pod didn't trigger scale-up: ")
    text = browser.find_element(By.TAG_NAME, "body").text
    assert "raise node group general's max size from 2 to 3: CA would scale up general 2 -> 3" in text
    details = browser.find_element(By.ID, "t0-group-compute")
    assert details.get_attribute("open") is None
    table.find_element(By.CSS_SELECTOR, 'a.group[data-group="t0-group-compute"]').click()
    WebDriverWait(browser, 5).until(lambda d: details.get_attribute("open") is not None)
    plugins = details.find_element(By.CSS_SELECTOR, "table.ca-plugins").text
    assert "NodeAffinity *" in plugins
    assert "node.kubernetes.io/instance-type=m5.xlarge: the node has node.kubernetes.io/instance-type=c5.2xlarge" \
        in plugins
    logs = [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"]
    assert logs == []


def test_without_javascript(browser, page):
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    try:
        browser.get(page.as_uri())
        table = browser.find_element(By.CSS_SELECTOR, "table.ca-groups")
        assert table.is_displayed() and "general" in table.text
        assert "Expander" not in browser.find_element(By.TAG_NAME, "body").text    # no scale-up: no choice
        summary = browser.find_element(By.CSS_SELECTOR, "#t0-group-gpu summary")
        summary.click()
        assert browser.find_element(By.ID, "t0-group-gpu").get_attribute("open") is not None
    finally:
        browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})


def test_replicas_the_loop_over_the_copies_that_did_not_fit(browser, replicas_page):
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
    browser.get("about:blank")
    browser.get_log("browser")
    load(browser, replicas_page)
    assert "Event: Normal TriggeredScaleUp" in browser.find_element(By.CSS_SELECTOR, "p.ca-event").text
    browser.find_element(By.CSS_SELECTOR, 'a.group[data-group="tlist-group-arm"]').click()
    details = browser.find_element(By.ID, "tlist-group-arm")
    WebDriverWait(browser, 5).until(lambda d: details.get_attribute("open") is not None)
    assert "NodeAffinity *" in details.text
    assert [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"] == []
