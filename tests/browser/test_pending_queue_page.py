"""`kexplain pod --pending -A --html` where the scheduler's queue changes what the pods get alone
(tests/support/queue_cases.py: four pods that each fit node-a2 alone, two in the queue): the
page's script draws where the pods go, and says it as the text of the same run says it (the
verdict in the queue, not each pod's attempt alone). Its own page, written here."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("selenium", reason="browser tests need the selenium package (pip install -e '.[test]')")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from kexplain.cli.app import main  # noqa: E402
from tests.support.cli_helpers import TestEnvironment  # noqa: E402
from tests.support.live_server import RecordedApiServer, write_kubeconfig  # noqa: E402
from tests.support.queue_cases import APPS, crowd  # noqa: E402


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """One run: the page and the text (wide: its list's lines whole)."""
    folder = tmp_path_factory.mktemp("pending-queue")
    saved = {k: os.environ.get(k) for k in ("HOME", "KUBECONFIG", "KUBERNETES_SERVICE_HOST")}
    os.environ["HOME"] = str(folder)
    for k in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST"):
        os.environ.pop(k, None)
    try:
        with RecordedApiServer(token="t") as server:
            crowd(server)
            config = write_kubeconfig(folder / "kubeconfig", server.url, token="t")
            env = TestEnvironment(width=400)
            page = folder / "pending.html"
            assert main(["pod", "--pending", "-A", "--kubeconfig", str(config), "--html", str(page)], env=env) == 1
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return page, env.out


def listed(out: str) -> dict[str, str]:
    """The text's list: pod -> verdict (the pods explained)."""
    rows = [line.split(None, 3) for line in out.split("\n\n")[0].splitlines()[1:]]
    return {r[0]: r[1] for r in rows if r[1] != "skipped"}


def test_the_script_draws_the_queues_answer(browser, run):
    page, out = run
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
    browser.get(page.as_uri())
    WebDriverWait(browser, 30).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1")
    rows = browser.execute_script(
        "return Array.from(document.querySelectorAll('#overview > .mount > .grid-scroll table.grid tbody tr[data-row]'))"
        ".map(tr => Array.from(tr.cells).map(c => c.textContent));")
    drawn = {r[1]: (r[4].split(" ", 1)[1], r[2]) for r in rows}      # pod -> (verdict, node)
    text = listed(out)
    assert {k: v for k, (v, _) in drawn.items()} == text
    assert {k: drawn[k][1] for k in APPS} == {"team-a/app-0": "node-a2", "team-a/app-1": "node-a2",
                                              "team-a/app-2": "(does not fit)", "team-a/app-3": "(does not fit)"}
    scheduled = sum(1 for v in text.values() if v == "Scheduled")
    said = browser.find_element(By.CSS_SELECTOR, "#overview p.count").text
    assert said.startswith(f"{scheduled} of the {len(text)} pods would go to ")
    labels = [o.text for o in Select(browser.find_element(By.ID, "nav-trace")).options]
    assert {label.split(". ", 1)[1].split(" \u2013 ")[0]: label.rsplit(" \u2013 ", 1)[1] for label in labels} == text
