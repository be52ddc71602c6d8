"""The --html page of a pod explained with node groups: the "Cluster autoscaler" section (the
event, the groups' table, the expander's choice) and a group's full verdict, opened from its
name in the table or from its address (#t0/group/NAME, which a click puts in the location bar);
readable without script too; with GKE's MIG URLs for names the table fits 800 and 1280 pixels,
and so do a list's (its pods' table keeps each pod's name on a line, its groups' addresses open).
Its own pages (fixtures/autoscaler, fixtures/autoscaler/gke), written here: not the shared pages
of test_html_in_chromium.py."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("selenium", reason="browser tests need the selenium package (pip install -e '.[test]')")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from tests.browser.conftest import kexplain  # noqa: E402
from tests.support.paths import DATA, FIXTURES  # noqa: E402

CASE = FIXTURES / "autoscaler"


def write_page(folder: Path, case: Path, pod: str) -> Path:
    """The page of `case`'s pod explained with `case`'s cluster and node groups."""
    out = folder / pod.replace(".yaml", ".html")
    kexplain(str(case / pod), "--nodes", str(case / "cluster.yaml"), "--node-groups", str(case / "nodegroups.yaml"),
             "--kubernetes-version", "1.35", "--html", str(out))
    return out


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_page(tmp_path_factory.mktemp("autoscaler"), CASE, "pod-m5.yaml")


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
    details = browser.find_element(By.ID, "t0/group/compute")
    assert details.get_attribute("open") is None
    table.find_element(By.CSS_SELECTOR, 'a.group[data-group="t0/group/compute"]').click()
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
        summary = browser.find_element(By.ID, "t0/group/gpu").find_element(By.TAG_NAME, "summary")
        summary.click()
        assert browser.find_element(By.ID, "t0/group/gpu").get_attribute("open") is not None
    finally:
        browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})


def test_replicas_the_loop_over_the_copies_that_did_not_fit(browser, replicas_page):
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
    browser.get("about:blank")
    browser.get_log("browser")
    load(browser, replicas_page)
    assert "Event: Normal TriggeredScaleUp" in browser.find_element(By.CSS_SELECTOR, "p.ca-event").text
    browser.find_element(By.CSS_SELECTOR, 'a.group[data-group="tlist/group/arm"]').click()
    details = browser.find_element(By.ID, "tlist/group/arm")
    WebDriverWait(browser, 5).until(lambda d: details.get_attribute("open") is not None)
    assert "NodeAffinity *" in details.text
    assert [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"] == []


GKE = CASE / "gke"
MIGS = [f"https://www.googleapis.com/compute/v1/projects/shop-prod/zones/{zone}/instanceGroups/gke-prod-{pool}-grp"
        for zone, pool in (("us-central1-a", "default-pool-1a2b3c4d"), ("us-central1-b", "default-pool-5e6f7a8b"),
                           ("us-central1-c", "default-pool-9c0d1e2f"), ("us-central1-a", "highmem-pool-0a1b2c3d"))]


@pytest.fixture(scope="module")
def gke_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """2 CPUs anywhere: the expander ties over default-pool's three MIGs."""
    return write_page(tmp_path_factory.mktemp("autoscaler-gke"), GKE, "web.yaml")


@pytest.fixture(scope="module")
def gke_report_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """6 CPUs: no template takes them; the fix suggestions name the three MIGs."""
    return write_page(tmp_path_factory.mktemp("autoscaler-gke"), GKE, "report.yaml")


def opened(browser) -> list[str]:
    return [d.get_attribute("id") for d in browser.find_elements(By.CSS_SELECTOR, "details.ca-group")
            if d.get_attribute("open") is not None]


def test_a_groups_address_opens_it_and_a_click_puts_it_in_the_address(browser, gke_page):
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
    browser.get("about:blank")
    browser.get_log("browser")
    browser.get(gke_page.as_uri() + f"#t0/group/{MIGS[2]}")
    WebDriverWait(browser, 30).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1")
    assert opened(browser) == [f"t0/group/{MIGS[2]}"]
    details = browser.find_element(By.ID, f"t0/group/{MIGS[2]}")
    top = browser.execute_script("return arguments[0].getBoundingClientRect().top", details)
    assert -2 <= top < browser.execute_script("return window.innerHeight")
    text = details.text
    assert "The template node" in text and "the template in --node-groups" in text
    assert "topology.kubernetes.io/zone=us-central1-c" in text
    # a click on another group's name: it opens, and the address is its own
    browser.find_element(By.CSS_SELECTOR, f'a.group[data-group="t0/group/{MIGS[1]}"]').click()
    WebDriverWait(browser, 5).until(lambda d: f"t0/group/{MIGS[1]}" in opened(d))
    assert browser.execute_script("return location.hash") == f"#t0/group/{MIGS[1]}"
    member = browser.find_element(By.ID, f"t0/group/{MIGS[1]}").text
    assert "member node gke-prod-default-pool-5e6f7a8b-q9w3" in member and "The template node" in member
    # closed by its summary, the address no longer names it
    browser.find_element(By.ID, f"t0/group/{MIGS[1]}").find_element(By.TAG_NAME, "summary").click()
    WebDriverWait(browser, 5).until(lambda d: d.execute_script("return location.hash") == "#t0-ca")
    # opened by its summary, the address names it again: a link to copy
    browser.find_element(By.ID, f"t0/group/{MIGS[3]}").find_element(By.TAG_NAME, "summary").click()
    WebDriverWait(browser, 5).until(lambda d: d.execute_script("return location.hash") == f"#t0/group/{MIGS[3]}")
    assert [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"] == []


@pytest.mark.parametrize("width", [800, 1280])
def test_the_ca_table_fits_with_mig_urls(browser, gke_page, gke_report_page, width):
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
    browser.set_window_size(width, 900)
    try:
        load(browser, gke_report_page)
        assert "to fit the template of node groups" in browser.find_element(By.ID, "t0-fixes").find_element(
            By.XPATH, "..").text
        page = browser.execute_script("return [document.documentElement.scrollWidth, "
                                      "document.documentElement.clientWidth]")
        assert page[0] <= page[1], page
        load(browser, gke_page)
        for details in browser.find_elements(By.CSS_SELECTOR, "details.ca-group"):
            browser.execute_script("arguments[0].open = true", details)
        page = browser.execute_script("return [document.documentElement.scrollWidth, "
                                      "document.documentElement.clientWidth]")
        assert page[0] <= page[1], page
        client = page[1]
        for css in ("table.ca-groups", "p.ca-event", ".ca-tie", "p.ca-choice", "p.ca-does", "details.ca-group"):
            for el in browser.find_elements(By.CSS_SELECTOR, css):
                right = browser.execute_script("return arguments[0].getBoundingClientRect().right", el)
                assert right <= client, (css, right, client)
        cell = browser.find_element(By.CSS_SELECTOR, "table.ca-groups tbody td")
        assert cell.text.replace("\n", "") == MIGS[0]         # broken over lines, not cut
        lines = browser.execute_script("var r = document.createRange(); r.selectNodeContents(arguments[0]); "
                                       "return Math.round(r.getBoundingClientRect().height / "
                                       "parseFloat(getComputedStyle(arguments[0]).lineHeight))", cell)
        assert 1 < lines <= 6       # after a `/` or a `-`, never a character per line
    finally:
        browser.set_window_size(1280, 900)


@pytest.fixture(scope="module")
def gke_list_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The GKE fixture's four pods in one file: the list's section (`tlist`) with its pods' table,
    where CA's random pick among the three tied MIGs decides shop/checkout's answer."""
    folder = tmp_path_factory.mktemp("autoscaler-gke-list")
    pods = folder / "shop.yaml"
    pods.write_text("\n---\n".join((GKE / f"{p}.yaml").read_text() for p in ("batch", "checkout", "report", "web")))
    out = folder / "shop.html"
    kexplain(str(pods), "--nodes", str(GKE / "cluster.yaml"), "--node-groups", str(GKE / "nodegroups.yaml"),
             "--kubernetes-version", "1.35", "--html", str(out))
    return out


def line_count(browser, element) -> int:
    return browser.execute_script("var r = document.createRange(); r.selectNodeContents(arguments[0]); "
                                  "return Math.round(r.getBoundingClientRect().height / "
                                  "parseFloat(getComputedStyle(arguments[0]).lineHeight))", element)


@pytest.mark.parametrize("width", [800, 1280])
def test_the_list_pages_ca_tables_fit_and_read(browser, gke_list_page, width):
    """At 800 and 1280 pixels: nothing wider than the page; each pod's name on one line (not a
    few letters a line beside the wide outcome column); each pick's answer on lines of its own."""
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
    browser.set_window_size(width, 900)
    try:
        load(browser, gke_list_page)
        for details in browser.find_elements(By.CSS_SELECTOR, "details.ca-group"):
            browser.execute_script("arguments[0].open = true", details)
        page = browser.execute_script("return [document.documentElement.scrollWidth, "
                                      "document.documentElement.clientWidth]")
        assert page[0] <= page[1], page
        for css in ("table.ca-pods", "table.ca-groups", "p.ca-event", ".ca-tie", "p.ca-choice", "details.ca-group"):
            for el in browser.find_elements(By.CSS_SELECTOR, css):
                right = browser.execute_script("return arguments[0].getBoundingClientRect().right", el)
                assert right <= page[1], (css, right, page[1])
        rows = browser.find_elements(By.CSS_SELECTOR, "table.ca-pods tbody tr")
        names = [r.find_element(By.TAG_NAME, "td") for r in rows]
        assert [n.text for n in names] == ["shop/batch", "shop/checkout", "shop/report", "shop/web"]
        assert all(line_count(browser, n) == 1 for n in names), [line_count(browser, n) for n in names]
        checkout = rows[1].find_elements(By.TAG_NAME, "td")
        assert checkout[1].text == "depends on CA's pick"
        picks = checkout[2].find_elements(By.CSS_SELECTOR, "span.ca-line")
        assert [p.text.split(" (")[0] for p in picks] == [
            "if CA picks gke-prod-default-pool-1a2b3c4d-grp or gke-prod-default-pool-9c0d1e2f-grp",
            "if CA picks gke-prod-default-pool-5e6f7a8b-grp"]
        tops = [browser.execute_script("return arguments[0].getBoundingClientRect().top", p) for p in picks]
        assert tops[0] < tops[1]        # a block each
    finally:
        browser.set_window_size(1280, 900)


def test_the_list_pages_group_links_open_and_are_the_address(browser, gke_list_page):
    """The list's groups (`#tlist/group/<MIG URL>`): the address opens its group; a click on
    another's name opens it and puts its address in the location bar."""
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
    browser.set_window_size(800, 900)
    try:
        browser.get("about:blank")
        browser.get_log("browser")
        browser.get(gke_list_page.as_uri() + f"#tlist/group/{MIGS[2]}")
        WebDriverWait(browser, 30).until(
            lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1")
        assert opened(browser) == [f"tlist/group/{MIGS[2]}"]
        details = browser.find_element(By.ID, f"tlist/group/{MIGS[2]}")
        top = browser.execute_script("return arguments[0].getBoundingClientRect().top", details)
        assert -2 <= top < browser.execute_script("return window.innerHeight")
        link = browser.find_element(By.CSS_SELECTOR, f'a.group[data-group="tlist/group/{MIGS[1]}"]')
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", link)
        link.click()
        WebDriverWait(browser, 5).until(lambda d: f"tlist/group/{MIGS[1]}" in opened(d))
        assert browser.execute_script("return location.hash") == f"#tlist/group/{MIGS[1]}"
        assert [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"] == []
    finally:
        browser.set_window_size(1280, 900)
