"""The `--html` page in a real browser (headless Chromium), clicked through: every kind of page
loads without a console error, the node table sorts and filters, a node opens (by mouse and by
keyboard) with its full verdict and its devices, the search is drawn, many pods show where
they went, 5,000 nodes stay a table of a few dozen drawn rows, and without JavaScript (or on
paper) the verdict, the event and the top nodes are there.

What the page should show is read from its own data (the trace), never typed in here."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

pytest.importorskip("selenium", reason="browser tests need the selenium package (pip install -e '.[test]')")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from kexplain.apimachinery.quantity import parse_quantity  # noqa: E402
from tests.support.html_pages import CASES, page_data  # noqa: E402

REJECTED = {"Unschedulable", "UnschedulableAndUnresolvable", "Pending"}


# -- helpers ---------------------------------------------------------------------------------------

def load(driver, page: Path, hash_: str = "") -> None:
    driver.get("about:blank")         # a new load, even when only the #fragment differs
    driver.get_log("browser")         # what earlier pages logged is theirs
    driver.get(page.as_uri() + hash_)
    WebDriverWait(driver, 60).until(lambda d: d.execute_script("return document.body.dataset.ready") == "1")


def console_errors(driver) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]


def grid_rows(driver, trace: int = 0) -> list[list[str]]:
    """The cells of the node table's drawn rows."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#t' + arguments[0] + ' .nodes table.grid tbody tr[data-row]'))"
        ".map(tr => Array.from(tr.cells).map(c => c.textContent));", trace)


def headers(driver, trace: int = 0) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#t' + arguments[0] + ' .nodes table.grid thead th'))"
        ".map(th => th.textContent);", trace)


def column(driver, label: str, trace: int = 0) -> list[str]:
    k = headers(driver, trace).index(label)
    return [r[k] for r in grid_rows(driver, trace)]


def sort_by(driver, label: str, trace: int = 0) -> None:
    button = driver.find_element(By.XPATH, f"//section[@id='t{trace}']//div[@class='nodes']//thead//button[.='{label}']")
    button.click()


def count_text(driver, trace: int = 0) -> str:
    return driver.find_element(By.ID, f"t{trace}-count").text


def panel(driver):
    return driver.find_element(By.ID, "panel")


def panel_open(driver) -> bool:
    return bool(driver.execute_script("return document.getElementById('panel').open"))


def in_view(driver, element) -> bool:
    """Whether the page was scrolled to the element: at the top of the window, or as near as
    the end of the page lets it come, and scrolled at all."""
    return driver.execute_script("""
        var top = arguments[0].getBoundingClientRect().top, end = document.documentElement.scrollHeight - innerHeight;
        return scrollY > 0 && top >= 0 && (top < 60 || Math.abs(scrollY - end) < 2) && top < innerHeight - 20;""",
                                 element)


def free(resource: dict) -> Fraction:
    return parse_quantity(resource["allocatable"]) - parse_quantity(resource["requested"])


# -- every page ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["small", "web", "dra", "replicas", "preemption", "lint", "pending", "tied", "random", "big"])
def test_every_page_loads_without_a_console_error(chromium, pages, name):
    load(chromium, pages[name])
    data = page_data(pages[name])
    traces = {"trace": lambda d: [d], "list": lambda d: d["items"],
              "lint": lambda d: [t for e in d["explanations"] for t in e["items"]]}[data["kind"]](data["doc"])
    assert traces
    first = traces[0]
    nodes = set((first.get("details") or {}).get("nodes") or ()) | set(first.get("filter") or ())
    assert count_text(chromium) == f"Showing {len(nodes):,} of {len(nodes):,} nodes. Select a row (Enter) for " \
                                   "the node's full verdict."
    assert "nojs" not in chromium.find_element(By.TAG_NAME, "body").get_attribute("class")
    assert console_errors(chromium) == []


@pytest.mark.parametrize("case", CASES)
def test_every_kind_of_verdict_opens_node_by_node(chromium, pages, case):
    """A conformance case of each family: every explanation of the page shown, every node of it
    opened, the search stepped through, without a console error."""
    load(chromium, pages[f"case:{case}"])
    data = page_data(pages[f"case:{case}"])
    traces = [data["doc"]] if data["kind"] == "trace" else data["doc"]["items"]
    nodes = [sorted(set((t.get("details") or {}).get("nodes") or ()) | set(t.get("filter") or ())) for t in traces]
    opened = chromium.execute_script("""
        var nodes = arguments[0], count = 0, nav = document.getElementById('nav-trace');
        var panel = document.getElementById('panel');
        document.querySelectorAll('section.trace').forEach(function (s, i) {
          if (nav) { nav.value = String(i); nav.dispatchEvent(new Event('change')); }
          s.querySelector('.nodes tr[data-row]').click();           // a row of the table
          panel.close();
          nodes[i].forEach(function (n) {                            // and every node, by a link to it
            var a = document.createElement('a');
            a.className = 'node'; a.dataset.trace = i; a.dataset.node = n; a.href = '#';
            s.appendChild(a);
            a.click();
            if (panel.open && panel.textContent.indexOf('Node ' + n + ' ') >= 0) count++;
            panel.close();
            a.remove();
          });
          var c = s.querySelector('figure.search canvas');
          if (c) c.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight'}));
        });
        return count;""", nodes)
    assert opened == sum(map(len, nodes))
    assert console_errors(chromium) == []


# -- the node table --------------------------------------------------------------------------------

def test_sorting(chromium, pages):
    load(chromium, pages["small"])
    trace = page_data(pages["small"])["doc"]
    resources = {n: f["resources"] for n, f in trace["details"]["nodes"].items()}
    sort_by(chromium, "Free CPU")            # a number: the most first
    shown = column(chromium, "Node")
    assert [free(resources[n]["cpu"]) for n in shown] == sorted((free(r["cpu"]) for r in resources.values()),
                                                                 reverse=True)
    sort_by(chromium, "Free CPU")            # again: the other way
    assert [free(resources[n]["cpu"]) for n in column(chromium, "Node")] == sorted(free(r["cpu"])
                                                                                   for r in resources.values())
    sort_by(chromium, "Free memory")
    assert [free(resources[n]["memory"]) for n in column(chromium, "Node")] == sorted(
        (free(r["memory"]) for r in resources.values()), reverse=True)
    sort_by(chromium, "Zone")
    zones = [trace["details"]["nodes"][n]["zone"] for n in column(chromium, "Node")]
    assert zones == sorted(zones)
    sort = chromium.find_element(By.XPATH, "//section[@id='t0']//thead//th[.='Zone']").get_attribute("aria-sort")
    assert sort == "ascending"
    assert console_errors(chromium) == []


def test_sorting_by_each_plugins_score(chromium, pages):
    load(chromium, pages["web"])
    trace = page_data(pages["web"])["doc"]
    score = trace["score"]
    for plugin in next(iter(score.values()))["plugins"]:
        short = {"NodeResourcesFit": "Fit", "TaintToleration": "Taint", "NodeResourcesBalancedAllocation": "Balanced",
                 "ImageLocality": "Image", "DynamicResources": "DRA"}.get(plugin, plugin)
        sort_by(chromium, short)
        shown = [n for n in column(chromium, "Node") if n in score]
        weighted = [score[n]["plugins"][plugin]["weighted"] for n in shown]
        assert weighted == sorted(weighted, reverse=True), plugin
    sort_by(chromium, "Score")
    assert column(chromium, "Node")[0] == trace["result"]["suggestedHost"]
    assert console_errors(chromium) == []


def test_filtering(chromium, pages):
    load(chromium, pages["small"])
    trace = page_data(pages["small"])["doc"]
    every = trace["filterAll"]

    def rejected_by(plugin):
        return {n for n, plugins in every.items() if plugins.get(plugin, {}).get("code") in REJECTED}

    Select(chromium.find_element(By.ID, "t0-f-plugin")).select_by_value("TaintToleration")
    assert set(column(chromium, "Node")) == rejected_by("TaintToleration") != set()
    assert count_text(chromium).startswith(f"Showing {len(rejected_by('TaintToleration'))} of 6 nodes")
    Select(chromium.find_element(By.ID, "t0-f-plugin")).select_by_value("")
    reason = "NodeResourcesFit: Insufficient cpu"
    Select(chromium.find_element(By.ID, "t0-f-reason")).select_by_value(reason)
    assert set(column(chromium, "Node")) == {n for n, p in every.items()
                                             if "Insufficient cpu" in p["NodeResourcesFit"].get("reasons", ())}
    Select(chromium.find_element(By.ID, "t0-f-zone")).select_by_value("zone-b")
    assert set(column(chromium, "Node")) == {n for n, p in every.items()
                                             if "Insufficient cpu" in p["NodeResourcesFit"].get("reasons", ())
                                             and trace["details"]["nodes"][n]["zone"] == "zone-b"}
    chromium.find_element(By.XPATH, "//button[.='Show every node']").click()
    name = chromium.find_element(By.ID, "t0-f-name")
    name.send_keys("node-3")
    assert column(chromium, "Node") == ["node-3"]
    name.clear()
    name.send_keys("no such node")
    assert grid_rows(chromium) == [] and count_text(chromium) == "Showing 0 of 6 nodes."
    chromium.find_element(By.XPATH, "//button[.='Show every node']").click()
    Select(chromium.find_element(By.ID, "t0-f-status")).select_by_value("rejected")
    assert len(grid_rows(chromium)) == 6
    assert console_errors(chromium) == []


# -- one node --------------------------------------------------------------------------------------

def test_opening_a_node_by_mouse_and_by_keyboard(chromium, pages):
    load(chromium, pages["small"])
    trace = page_data(pages["small"])["doc"]
    row = chromium.find_element(By.XPATH, "//section[@id='t0']//tr[@data-row][td[1][.='node-5']]")
    index = row.get_attribute("data-row")
    row.click()
    assert panel_open(chromium)
    text = panel(chromium).text
    assert "Node node-5" in text and "default/analytics" in text
    first = trace["filter"]["node-5"]
    assert f"Rejected by {first['plugin']} ({first['code']}): {first['reasons'][0]}" in text
    plugins = chromium.execute_script(
        "return Array.from(document.querySelectorAll('#panel table.plugins')[0].tBodies[0].rows)"
        ".map(r => r.cells[0].textContent.replace(' \u2605', ''))")
    assert plugins == [p for p, st in trace["filterAll"]["node-5"].items() if st["code"] != "Skip"]
    assert "cpu: the pod requests 6" in text               # the facts in words, as --node says them
    assert chromium.switch_to.active_element.text == "Close"
    chromium.switch_to.active_element.send_keys(Keys.ESCAPE)
    assert not panel_open(chromium)
    assert chromium.switch_to.active_element.get_attribute("data-row") == index      # focus back on its row
    # The keyboard alone: down one row, Enter.
    names = column(chromium, "Node")
    chromium.switch_to.active_element.send_keys(Keys.HOME)
    chromium.switch_to.active_element.send_keys(Keys.ARROW_DOWN)
    chromium.switch_to.active_element.send_keys(Keys.ENTER)
    assert panel_open(chromium) and f"Node {names[1]}" in panel(chromium).text
    assert chromium.current_url.endswith(f"#t0/node/{names[1]}")
    chromium.switch_to.active_element.send_keys(Keys.ESCAPE)
    assert console_errors(chromium) == []


def test_a_link_to_a_node_opens_it(chromium, pages):
    load(chromium, pages["web"], "#t0/node/node-3")
    assert panel_open(chromium)
    assert "Node node-3" in panel(chromium).text and "cordoned" in panel(chromium).text
    assert console_errors(chromium) == []


def test_the_device_view(chromium, pages):
    data = page_data(pages["dra"])["doc"]
    load(chromium, pages["dra"], "#t1/node/gpu-node-3")
    assert panel_open(chromium)
    view = panel(chromium).find_element(By.CSS_SELECTOR, ".device-view")
    facts = data["items"][1]["details"]["nodes"]["gpu-node-3"]["plugins"]["DynamicResources"]
    devices = facts["claims"][0]["requests"][0]["devices"]
    rows = view.find_elements(By.CSS_SELECTOR, "table.devices tbody tr")
    assert [r.find_element(By.TAG_NAME, "th").text for r in rows] == [d["device"] for d in devices]
    for r, d in zip(rows, devices):
        assert "no: in use" in r.text and f"by claim {d['by'][0]}" in r.text
    chromium.switch_to.active_element.send_keys(Keys.ESCAPE)
    load(chromium, pages["dra"], "#t0/node/gpu-node-1")
    view = panel(chromium).find_element(By.CSS_SELECTOR, ".device-view")
    devices = data["items"][0]["details"]["nodes"]["gpu-node-1"]["plugins"]["DynamicResources"]["claims"][0][
        "requests"][0]["devices"]
    rows = view.find_elements(By.CSS_SELECTOR, "table.devices tbody tr")
    assert len(rows) == len(devices) == 8
    # Each device's reason in one line (what --node says); the selector's evaluation on demand.
    line = page_data(pages["dra"])["extra"][0]["selectors"][devices[0]["selector"]["summary"]]
    assert line.endswith("capacity memory 40Gi, selector wants >= 80Gi")
    for r, d in zip(rows, devices):
        assert r.find_element(By.TAG_NAME, "th").text.replace("\n", "") == d["device"]
        why = r.find_elements(By.TAG_NAME, "td")[1]
        assert "no: rejected by a selector" in r.text and why.text.splitlines()[0] == line
        evaluation = why.find_element(By.CSS_SELECTOR, "details.cel")
        assert evaluation.get_attribute("open") is None
        assert "= 40Gi" not in why.text                          # closed: the evaluation is not shown
    evaluation = rows[0].find_element(By.CSS_SELECTOR, "details.cel")
    evaluation.find_element(By.TAG_NAME, "summary").click()
    values = [f"{v['expression']} = {v['value']}" for v in devices[0]["selector"]["values"]]
    assert [li.text for li in evaluation.find_elements(By.TAG_NAME, "li")] == values
    assert console_errors(chromium) == []


# -- the search ------------------------------------------------------------------------------------

def test_the_search_drawn(chromium, pages):
    load(chromium, pages["small"])
    trace = page_data(pages["small"])["doc"]
    canvas = chromium.find_element(By.CSS_SELECTOR, "#t0 figure.search canvas")
    assert "the search started at index 0, visited 6 nodes" in canvas.get_attribute("aria-label")
    canvas.send_keys(Keys.ARROW_RIGHT)
    order = trace["search"]["order"]         # start index 0: the visiting order is the list's
    assert chromium.find_element(By.CSS_SELECTOR, "#t0 .readout").text.startswith(f"index 1: {order[1]}")
    canvas.send_keys(Keys.ENTER)
    assert panel_open(chromium) and f"Node {order[1]}" in panel(chromium).text
    chromium.switch_to.active_element.send_keys(Keys.ESCAPE)
    assert console_errors(chromium) == []


def test_the_search_labels_are_whole(chromium, pages):
    """The "started at" and "stopped at" labels are drawn inside the canvas, descenders and all:
    no ink in its last rows, and ink in the band the lower label is drawn in."""
    load(chromium, pages["small"])
    ink = chromium.execute_script("""
        var c = document.querySelector('#t0 figure.search canvas');
        var g = c.getContext('2d'), w = c.width, h = c.height;
        var d = g.getImageData(0, 0, w, h).data, rows = [];
        for (var y = 0; y < h; y++) {
          var n = 0;
          for (var x = 0; x < w; x++) { var k = (y * w + x) * 4; if (d[k + 3] > 0) n++; }
          rows.push(n);
        }
        return rows;""")
    height = len(ink)
    assert sum(ink[-3:]) == 0                                   # nothing touches the bottom edge
    last = max(y for y, n in enumerate(ink) if n)
    assert last < height - 3 and sum(ink[height * 3 // 4:]) > 0   # the lower label is there, whole
    assert console_errors(chromium) == []


# -- many pods -------------------------------------------------------------------------------------

def test_where_the_replicas_went(chromium, pages):
    load(chromium, pages["replicas"])
    doc = page_data(pages["replicas"])["doc"]
    placement = doc["placements"][0]
    per_node = chromium.execute_script(
        "return Array.from(document.querySelectorAll('#overview .where table.grid tbody tr[data-row]'))"
        ".map(tr => [tr.cells[0].textContent, +tr.cells[2].textContent]);")
    assert dict(per_node) == placement["nodes"]
    zones = chromium.execute_script(
        "return Array.from(document.querySelectorAll('#overview .bars li'))"
        ".map(li => [li.children[0].textContent, +li.children[2].textContent.replace(/,/g, '')]);")
    assert dict(zones) == placement["zones"]
    last = placement["pods"][-1]["name"]
    assert placement["pods"][-1]["node"] is None
    chromium.find_element(By.XPATH, f"//section[@id='overview']//table[contains(@class,'grid')]//a[.='{last}']").click()
    shown = [s.get_attribute("id") for s in chromium.find_elements(By.CSS_SELECTOR, "section.trace") if s.is_displayed()]
    index = [t["pod"]["name"] for t in doc["items"]].index(last)
    assert shown == [f"t{index}"]
    assert chromium.find_element(By.ID, f"t{index}-h").text.startswith(f"{index + 1}. Pod default/{last}")
    assert console_errors(chromium) == []


def test_the_copies_never_tried_are_counted(chromium, pages):
    load(chromium, pages["replicas"])
    placement = page_data(pages["replicas"])["doc"]["placements"][0]
    tried, planned = len(placement["pods"]), placement["replicas"]
    assert tried < planned
    said = chromium.find_element(By.CSS_SELECTOR, "#overview p.count").text
    assert said == (f"{placement['fit']} of the {planned} pods went to {len(placement['nodes'])} nodes; {tried} tried, "
                    f"{planned - tried} never tried (see above); 2 explained in full.")
    note = chromium.find_element(By.CSS_SELECTOR, "#overview p.untried").text
    assert note.startswith(f"Pod default/web: copies {tried + 1} to {planned}")
    assert console_errors(chromium) == []


def test_when_no_pod_fits_there_is_no_empty_table(chromium, pages):
    load(chromium, pages["dra"])
    doc = page_data(pages["dra"])["doc"]
    assert all(p["fit"] == 0 for p in doc["placements"])
    said = chromium.find_element(By.CSS_SELECTOR, "#overview p.count").text
    assert said == f"None of the {len(doc['items'])} pods fits: no pod went to a node; {len(doc['items'])} explained in full."
    assert not chromium.find_element(By.CSS_SELECTOR, "#overview .where").is_displayed()
    assert "No row matches." not in chromium.find_element(By.ID, "overview").text
    assert console_errors(chromium) == []


def copy_row(driver, name: str):
    """The row of the copies table whose Pod cell is `name` (drawn: the table is short)."""
    return driver.find_element(By.XPATH, "//section[@id='overview']/div[contains(@class,'mount')]/div[contains(@class,'grid-scroll')]"
                                         f"//tbody/tr[@data-row][td[.='{name}'] or td/a[.='{name}']]")


def test_a_copy_not_kept_in_full_opens_in_brief(chromium, pages):
    """Every copy's own explanation is one click away: a copy whose trace is not kept shows
    its verdict, its best nodes with their scores and the rejections by reason (read from
    its summary); a kept one links to its full explanation."""
    load(chromium, pages["replicas"])
    doc = page_data(pages["replicas"])["doc"]
    kept = [t["pod"]["name"] for t in doc["items"]]
    copies = doc["placements"][0]["pods"]
    brief = next(c for c in copies if c["name"] not in kept and c["summary"].get("top") and c["summary"].get("rejected"))
    copy_row(chromium, brief["name"]).find_elements(By.TAG_NAME, "td")[-1].click()
    assert panel_open(chromium)
    text = " ".join(panel(chromium).text.split())
    assert f"Pod {brief['name']}" in text and f"{brief['name']}: scheduled to {brief['node']}" in text
    search = brief["summary"]["search"]
    assert f"visited {search['numNodesSearched']} nodes and found {search['numFilterSuccess']} feasible" in text
    top = chromium.execute_script("return Array.from(document.querySelectorAll('#panel table.copy-top tbody tr'))"
                                  ".map(tr => Array.from(tr.cells).map(c => c.textContent));")
    assert [(r[0], r[1]) for r in top] == [(t["node"], str(t["total"])) for t in brief["summary"]["top"]]
    rejected = chromium.execute_script("return Array.from(document.querySelectorAll('#panel table.copy-rejected tbody tr'))"
                                       ".map(tr => Array.from(tr.cells).map(c => c.textContent));")
    assert rejected == [[x["plugin"], x["reason"], str(x["nodes"])] for x in brief["summary"]["rejected"]]
    assert "full trace is not kept" in text
    chromium.switch_to.active_element.send_keys(Keys.ESCAPE)
    assert not panel_open(chromium)

    unfit = next(c for c in copies if c["node"] is None)
    assert unfit["name"] in kept
    copy_row(chromium, unfit["name"]).find_elements(By.TAG_NAME, "td")[-2].click()    # the verdict's cell
    assert panel_open(chromium)
    assert unfit["summary"]["message"] in " ".join(panel(chromium).text.split())
    chromium.find_element(By.XPATH, "//dialog[@id='panel']//a[.='open it']").click()
    assert not panel_open(chromium)
    index = kept.index(unfit["name"])
    shown = [s.get_attribute("id") for s in chromium.find_elements(By.CSS_SELECTOR, "section.trace") if s.is_displayed()]
    assert shown == [f"t{index}"]
    assert console_errors(chromium) == []


def test_pending_pods(chromium, pages):
    load(chromium, pages["pending"])
    doc = page_data(pages["pending"])["doc"]
    pods = chromium.execute_script(
        "return Array.from(document.querySelectorAll('#overview > .mount > .grid-scroll table.grid tbody tr[data-row]'))"
        ".map(tr => tr.cells[1].textContent);")
    assert pods == [f"{t['pod']['namespace']}/{t['pod']['name']}" for t in doc["items"]]
    Select(chromium.find_element(By.ID, "nav-trace")).select_by_value("2")
    assert chromium.find_element(By.ID, "t2").is_displayed() and not chromium.find_element(By.ID, "t0").is_displayed()
    assert console_errors(chromium) == []


def test_lint_findings(chromium, pages):
    load(chromium, pages["lint"])
    doc = page_data(pages["lint"])["doc"]
    Select(chromium.find_element(By.ID, "f-severity")).select_by_value("info")
    visible = [r for r in chromium.find_elements(By.CSS_SELECTOR, "table.findings tbody tr") if r.is_displayed()]
    assert len(visible) == sum(1 for f in doc["findings"] if f["severity"] == "info") > 0
    Select(chromium.find_element(By.ID, "f-severity")).select_by_value("")
    chromium.find_element(By.LINK_TEXT, "explanation 1").click()
    assert chromium.find_element(By.ID, "t0").is_displayed()
    assert console_errors(chromium) == []


# -- 5,000 nodes -----------------------------------------------------------------------------------

def test_five_thousand_nodes(chromium, pages):
    load(chromium, pages["big"])
    trace = page_data(pages["big"])["doc"]
    nodes = trace["details"]["nodes"]
    assert len(nodes) == 5000
    assert count_text(chromium).startswith("Showing 5,000 of 5,000 nodes")
    drawn = len(grid_rows(chromium))
    assert 10 <= drawn <= 100                 # the rows in view, not 5,000
    # The best score first: the scored nodes' totals and what the never-examined would score.
    sort_by(chromium, "Score")
    would = (trace.get("unexamined") or {}).get("totals") or {}
    best = max([s["total"] for s in trace["score"].values()] + list(would.values()))
    assert column(chromium, "Score")[0].strip("()") == str(best)
    # The last row, reached with the keyboard, is drawn when scrolled to.
    sort_by(chromium, "Node")
    chromium.execute_script("document.querySelector(\"#t0 .nodes tr[data-row='0']\").click()")
    assert panel_open(chromium)
    chromium.switch_to.active_element.send_keys(Keys.ESCAPE)      # back on the row
    chromium.switch_to.active_element.send_keys(Keys.END)
    assert chromium.execute_script("return document.activeElement.cells[0].textContent") == max(nodes)
    assert len(grid_rows(chromium)) <= 100
    # The nodes the search never reached, each with what Filter would have said.
    visited = set(trace["search"]["order"])
    Select(chromium.find_element(By.ID, "t0-f-status")).select_by_value("unexamined")
    assert count_text(chromium).startswith(f"Showing {5000 - len(visited):,} of 5,000 nodes")
    name = chromium.execute_script("var tr = document.querySelector(\"#t0 .nodes tr[data-row='0']\"); tr.click();"
                                   "return tr.cells[0].textContent;")
    assert name not in visited
    WebDriverWait(chromium, 5).until(panel_open)
    text = panel(chromium).text
    assert "Never examined" in text and "Filter plugins, each run on its own" in text
    chromium.switch_to.active_element.send_keys(Keys.ESCAPE)
    assert console_errors(chromium) == []


# -- without JavaScript, and on paper --------------------------------------------------------------

def test_without_javascript(chromium, pages):
    chromium.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    chromium.get(pages["small"].as_uri())
    trace = page_data(pages["small"])["doc"]
    body = chromium.find_element(By.TAG_NAME, "body")
    assert "nojs" in body.get_attribute("class")
    text = body.text
    assert trace["result"]["message"] in text                       # the event
    assert "default/analytics" in text and "Unschedulable" in text   # the verdict
    rejected = chromium.find_element(By.CSS_SELECTOR, "table.static-rejected")
    assert rejected.is_displayed() and all(n in rejected.text for n in trace["filter"])
    assert chromium.find_element(By.CSS_SELECTOR, "noscript").get_attribute("textContent")
    assert chromium.find_elements(By.CSS_SELECTOR, "table.grid") == []
    chromium.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    chromium.get(pages["web"].as_uri())
    top = chromium.find_element(By.CSS_SELECTOR, "table.static-nodes")
    assert top.is_displayed() and page_data(pages["web"])["doc"]["result"]["suggestedHost"] in top.text


def test_without_javascript_a_node_link_leads_to_its_brief(chromium, pages):
    chromium.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    chromium.get(pages["small"].as_uri())
    trace = page_data(pages["small"])["doc"]
    header = chromium.find_element(By.TAG_NAME, "header")
    assert "A click on a node" not in header.text
    notice = header.find_element(By.CSS_SELECTOR, "p.nojs-note")      # inside the page's layout
    assert notice.is_displayed() and "a node's name leads to its verdict in brief" in notice.text
    main = chromium.find_element(By.TAG_NAME, "main")
    assert notice.location["x"] == main.find_element(By.TAG_NAME, "h2").location["x"]
    link = chromium.find_element(By.CSS_SELECTOR, "table.static-rejected a.node[data-node='node-4']")
    link.click()
    assert chromium.current_url.endswith("#t0/node/node-4")
    brief = chromium.find_element(By.ID, "t0/node/node-4")
    assert brief.is_displayed()
    assert chromium.execute_script("return document.querySelector(':target') === arguments[0]", brief)
    first = trace["filter"]["node-4"]
    assert f"Rejected by {first['plugin']} ({first['code']}): {first['reasons'][0]}" in brief.text
    assert in_view(chromium, brief)                                       # scrolled to
    chromium.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})


def test_with_javascript_the_briefs_give_way_to_the_panel(chromium, pages):
    load(chromium, pages["small"])
    assert chromium.find_element(By.CSS_SELECTOR, "header .js-only").is_displayed()
    assert not chromium.find_element(By.CSS_SELECTOR, ".node-briefs").is_displayed()
    chromium.find_element(By.CSS_SELECTOR, "table.static-rejected a.node[data-node='node-4']").click()
    assert panel_open(chromium) and "Node node-4" in panel(chromium).text
    chromium.switch_to.active_element.send_keys(Keys.ESCAPE)
    assert console_errors(chromium) == []


def test_the_verdict_links_to_the_fixes_and_a_link_to_them_opens_them(chromium, pages):
    load(chromium, pages["small"])
    link = chromium.find_element(By.CSS_SELECTOR, "#t0 p.fixes-link a")
    n = len(page_data(pages["small"])["doc"]["suggestions"])
    assert link.text == f"What would make it schedule: {n} verified changes"
    link.click()
    assert chromium.current_url.endswith("#t0-fixes")
    assert in_view(chromium, chromium.find_element(By.ID, "t0-fixes"))
    # A deep link to another explanation's part shows that explanation there.
    load(chromium, pages["dra"], "#t1-fixes")
    assert chromium.find_element(By.ID, "t1").is_displayed() and not chromium.find_element(By.ID, "t0").is_displayed()
    assert in_view(chromium, chromium.find_element(By.ID, "t1-fixes"))
    assert console_errors(chromium) == []


def test_see_preemption_leads_there(chromium, pages):
    load(chromium, pages["preemption"])
    chromium.find_element(By.CSS_SELECTOR, "#t0 p.verdict a[href='#t0-preemption']").click()
    assert chromium.current_url.endswith("#t0-preemption")
    heading = chromium.find_element(By.ID, "t0-preemption")
    assert heading.text == "Preemption" and in_view(chromium, heading)
    assert console_errors(chromium) == []


def test_the_why_column_reads_in_a_narrow_window(chromium, pages):
    size = chromium.get_window_size()
    chromium.set_window_size(800, 900)
    try:
        load(chromium, pages["small"])
        assert headers(chromium)[:3] == ["Node", "Status", "Why"]
        trace = page_data(pages["small"])["doc"]
        cells = chromium.execute_script("""
            var scroller = document.querySelector('#t0 .nodes .grid-scroll').getBoundingClientRect();
            return Array.from(document.querySelectorAll('#t0 .nodes tbody tr[data-row] td:nth-child(3)')).map(function (td) {
              var r = td.getBoundingClientRect();
              return [td.parentNode.cells[0].textContent, td.textContent, r.left >= scroller.left && r.right <= scroller.right,
                      td.scrollWidth <= td.clientWidth];
            });""")
        assert len(cells) == len(trace["filter"])
        for node, text, inside, whole in cells:
            first = trace["filter"][node]
            assert text.startswith(f"{first['plugin']}: {first['reasons'][0]}") and inside and whole, (node, text)
    finally:
        chromium.set_window_size(size["width"], size["height"])
    assert console_errors(chromium) == []


def test_a_node_left_out_that_would_tie_says_where_the_tie_goes(chromium, pages):
    from kexplain.render.views import tie_rule

    trace = page_data(pages["tied"])["doc"]
    never = [n for n in trace["unexamined"]["nodes"] if n in trace["unexamined"]["totals"]]
    winner = trace["unexamined"]["winner"]
    assert never and all(trace["unexamined"]["totals"][n] == winner["total"] for n in never)
    load(chromium, pages["tied"], f"#t0/node/{never[0]}")
    text = panel(chromium).find_element(By.CSS_SELECTOR, "p.verdict").text
    assert text.endswith(f"got {winner['total']}: as much as the winner {winner['node']}, a tie that would go to "
                         f"{tie_rule(trace)}.")
    chromium.switch_to.active_element.send_keys(Keys.ESCAPE)
    tied = next(n for n in trace["result"]["selectedNodes"] if n != trace["result"]["suggestedHost"])
    load(chromium, pages["tied"], f"#t0/node/{tied}")
    assert f"tied at the top: the tie goes to {tie_rule(trace)}" in panel(chromium).text
    assert console_errors(chromium) == []


def test_a_random_pick_among_tied_nodes_names_no_winner(chromium, pages):
    from kexplain.render.views import tie_rule

    trace = page_data(pages["random"])["doc"]
    assert trace["tieBreak"] == "random" and trace["kubernetesVersion"]["minor"] == "1.34"
    load(chromium, pages["random"])
    Select(chromium.find_element(By.ID, "t0-f-status")).select_by_index(1)
    assert count_text(chromium).startswith(f"Showing {len(trace['result']['selectedNodes'])} of ")
    assert set(column(chromium, "Status")) == {"\u2606 tied at the top"}
    load(chromium, pages["random"], f"#t0/node/{trace['result']['suggestedHost']}")
    assert f"tied at the top: the tie goes to {tie_rule(trace)}" in panel(chromium).text
    assert "drawn at random" in tie_rule(trace)
    assert console_errors(chromium) == []


def test_printing(chromium, pages):
    load(chromium, pages["web"])
    chromium.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    assert chromium.find_element(By.CSS_SELECTOR, "table.static-nodes").is_displayed()
    assert not chromium.find_element(By.CSS_SELECTOR, "#t0 .filters").is_displayed()
    assert not chromium.find_element(By.CSS_SELECTOR, "#t0 .grid-scroll").is_displayed()
    chromium.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    assert chromium.find_element(By.CSS_SELECTOR, "#t0 .grid-scroll").is_displayed()
    assert console_errors(chromium) == []


def test_a_held_jobsets_page(chromium, pages):
    """Kueue holds the JobSet: the title says so, Kueue's answer is there once (its reason, queue
    and numbers), and no pod of it is shown as Scheduled."""
    load(chromium, pages["kueue-held"])
    assert chromium.title.startswith("kexplain: JobSet team-b/sim held by Kueue (Workload team-b/jobset-sim-")
    headings = [e.text for e in chromium.find_elements(By.CSS_SELECTOR, "#overview h3")]
    assert headings.count("Kueue: JobSet team-b/sim") == 1
    answer = chromium.find_element(By.CSS_SELECTOR, "#overview pre.text").text
    assert "Queue: ClusterQueue team-b-cq (BestEffortFIFO), 1 of 1" in answer and "6 more needed" in answer
    shown = [e for e in chromium.find_elements(By.CSS_SELECTOR, ".st-Scheduled") if e.is_displayed()]
    assert shown == []
    # A list page shows one pod's section at a time: the hidden sections' badges are read from the DOM.
    badges = {e.get_attribute("textContent") for e in chromium.find_elements(By.CSS_SELECTOR, "section.trace h2 .badge")}
    assert badges == {"\u2016 Held by Kueue"}
    assert console_errors(chromium) == []

