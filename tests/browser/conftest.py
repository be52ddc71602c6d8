"""Headless Chromium for the `--html` page: one browser for the whole run, the pages written
once (by kexplain itself, from the bundled fixtures and a generated 5,000-node snapshot).

The tests skip, saying why, when chromium, chromedriver or the selenium package is missing
(Debian: `apt-get install chromium chromium-driver`; `.ci/run` installs them, and sets
$KEXPLAIN_REQUIRE_BROWSER so that a missing browser fails the run there instead). Chromium runs
without network, sandbox or profile: a fresh --user-data-dir per run. When a test fails, the
page it was on, and then every fixture's page, are saved as screenshots under
test-artifacts/browser/ (or $KEXPLAIN_TEST_ARTIFACTS).

Under pytest-xdist each worker has its own browser, and the pages are written once for all
workers (a lock in the run's shared temporary folder).
"""
from __future__ import annotations

import fcntl
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Iterator

import pytest

from tests.support.cli_helpers import TestEnvironment
from tests.support.html_pages import CASES, case_args
from tests.support.paths import BUNDLED_CONFORMANCE, FIXTURES, ROOT
from tests.support.render_helpers import tied_cluster

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--window-size=1280,900")
BIG_NODES = 5000
ARTIFACTS = Path(os.environ.get("KEXPLAIN_TEST_ARTIFACTS") or ROOT / "test-artifacts") / "browser"


def _skip(why: str) -> None:
    """Skip, saying why; fail instead where the browser must be there ($KEXPLAIN_REQUIRE_BROWSER, set by .ci/run)."""
    if os.environ.get("KEXPLAIN_REQUIRE_BROWSER"):
        pytest.fail(why)
    pytest.skip(why)


def _chromium() -> tuple[str | None, str | None, str]:
    """(browser, driver, why not) from $KEXPLAIN_CHROMIUM / $KEXPLAIN_CHROMEDRIVER or PATH."""
    browser = os.environ.get("KEXPLAIN_CHROMIUM") or next(filter(None, map(shutil.which, CHROMIUM_NAMES)), None)
    driver = os.environ.get("KEXPLAIN_CHROMEDRIVER") or shutil.which("chromedriver")
    missing = [what for what, found in (("chromium", browser), ("chromedriver", driver)) if not found]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("the selenium package (pip install -e '.[test]')")
    why = ""
    if missing:
        why = (f"browser tests need {' and '.join(missing)}: on Debian, apt-get install chromium chromium-driver "
               "(.ci/run does)")
    return browser, driver, why


# -- the pages -------------------------------------------------------------------------------------

def kexplain(*args: str, ok: tuple[int, ...] = (0, 1)) -> int:
    from kexplain.cli.app import main

    env = TestEnvironment()
    code = main(list(args), env=env)
    assert code in ok, env.err
    return code


def write_pages(out: Path) -> dict[str, Path]:
    """Every kind of page: a small cluster (a pod that does not fit, one that does), devices
    (two pods of fixtures/dra), replicas, preemption, lint, `pod --pending` of a (recorded)
    live cluster, nodes left out that would tie with the winner, a tie 1.34 breaks at random,
    and 5,000 nodes."""
    cluster = str(FIXTURES / "cluster.yaml")
    pages = {name: out / f"{name}.html" for name in
             ("small", "web", "dra", "replicas", "preemption", "lint", "pending", "tied", "random", "big")}
    kexplain(str(FIXTURES / "pod-too-big.yaml"), "--nodes", cluster, "--html", str(pages["small"]))
    kexplain(str(FIXTURES / "pod-web.yaml"), "--nodes", cluster, "--html", str(pages["web"]))
    kexplain(str(FIXTURES / "dra" / "pod.yaml"), "--nodes", str(FIXTURES / "dra" / "cluster.yaml"),
             "--html", str(pages["dra"]))
    kexplain(str(FIXTURES / "pod-web.yaml"), "--nodes", cluster, "--replicas", "8", "--html", str(pages["replicas"]))
    kexplain(str(FIXTURES / "preemption" / "pod.yaml"), "--nodes", str(FIXTURES / "preemption" / "cluster.yaml"),
             "--html", str(pages["preemption"]))
    kexplain("lint", str(FIXTURES / "pod-too-big.yaml"), str(FIXTURES / "pod-web.yaml"), "--nodes", cluster,
             "--html", str(pages["lint"]))
    _pending(pages["pending"], out)
    pages["kueue-held"] = out / "kueue-held.html"      # a JobSet Kueue holds (each pod 4 cpu: over its quota)
    jobset = out / "jobset.yaml"
    jobset.write_text((FIXTURES / "kueue" / "sim.yaml").read_text().replace('cpu: "1"', 'cpu: "4"'))
    kexplain(str(jobset), "--nodes", str(FIXTURES / "kueue" / "cluster.yaml"), "--nodes",
             str(FIXTURES / "kueue" / "nodes.yaml"), "--html", str(pages["kueue-held"]))
    kexplain(str(FIXTURES / "large-cluster" / "pod.yaml"), "--nodes", str(tied_cluster(out)), "--html",
             str(pages["tied"]))
    kexplain(str(FIXTURES / "large-cluster" / "pod.yaml"), "--nodes", str(FIXTURES / "large-cluster" / "cluster.yaml"),
             "--kubernetes-version", "1.34", "--html", str(pages["random"]))
    for case in CASES:
        pages[f"case:{case}"] = out / f"case-{case}.html"
        kexplain(*case_args(BUNDLED_CONFORMANCE / case), "--html", str(pages[f"case:{case}"]), ok=(0, 1, 3))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import generate

    big = generate.write(out / "big", BIG_NODES, pods_per_node=6, apps=50, formats=("json",))
    kexplain(str(big["pod-plain"]), "--nodes", str(big["json"]), "--html", str(pages["big"]))
    (out / "big" / "cluster.json").unlink()       # 36 MB the tests do not read
    return pages


def _pending(page: Path, out: Path) -> None:
    from tests.support.live_server import RecordedApiServer, write_kubeconfig

    saved = {k: os.environ.get(k) for k in ("HOME", "KUBECONFIG", "KUBERNETES_SERVICE_HOST")}
    os.environ["HOME"] = str(out)
    for k in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST"):
        os.environ.pop(k, None)
    try:
        with RecordedApiServer(token="t") as server:
            config = write_kubeconfig(out / "kubeconfig", server.url, token="t")
            kexplain("pod", "--pending", "-A", "--kubeconfig", str(config), "--html", str(page))
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@pytest.fixture(scope="session")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    _, _, why = _chromium()
    if why:
        _skip(why)
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    out = shared / "kexplain-pages"
    out.mkdir(exist_ok=True)
    with open(shared / "kexplain-pages.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = out / "pages.json"
        if not done.exists():
            written = write_pages(out)
            done.write_text(json.dumps({k: str(v) for k, v in written.items()}))
        fcntl.flock(lock, fcntl.LOCK_UN)
    return {k: Path(v) for k, v in json.loads(done.read_text()).items()}


# -- the browser -----------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    browser_path, driver_path, why = _chromium()
    if why:
        _skip(why)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="kexplain-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = browser_path
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # The driver named explicitly: Selenium Manager (which downloads drivers) is never run.
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    # A bound on a hang, not a budget: a large page's every node opened takes seconds, and far
    # longer on a machine busy with other work (Selenium's default is 30 s).
    driver.set_script_timeout(600)
    driver.set_page_load_timeout(600)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.kx_failed = report.failed


_PAGES_SAVED: list[bool] = []


@pytest.fixture
def chromium(request, browser, pages) -> Iterator[object]:
    """The shared browser, for one test (script on, screen media). When the test fails, the
    page it was on is saved as a screenshot, and the first time, every fixture's page too."""
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    yield browser
    if not getattr(request.node, "kx_failed", False):
        return
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in request.node.name)
    browser.save_screenshot(str(ARTIFACTS / f"{name}.png"))
    if _PAGES_SAVED:
        return
    _PAGES_SAVED.append(True)
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
    for page_name, page in pages.items():
        browser.get(page.as_uri())
        browser.save_screenshot(str(ARTIFACTS / f"page-{page_name}.png"))
