"""The `--html` page at cluster scale: how big it is next to the `-o json` trace, what writing
it costs, and how fast it opens, sorts and filters in headless Chromium.

For the snapshot of `generate.py` (5,000 nodes by default, generated once under --dir, as
bench.py does) and each of its pods (the pending pod, which fits, so the search stops early and
most nodes are never examined; the unschedulable one, whose search visits every node; the plain
one), in fresh subprocesses: `kexplain POD --nodes cluster.json -o json` (its size, time and
peak RSS), then the same with `--html page.html` (the page's size, the extra time). Then, when
chromium and chromedriver are installed, each page in headless Chromium: the time from
navigation to the page being ready (data unpacked, the table of every node drawn), and inside
the page, the time a click on a column header takes to sort every node and draw the rows in
view, a filter, and opening a node's full verdict (the fastest of RUNS each).

    .venv/bin/python benchmarks/html_bench.py [--nodes 5000] [--dir /tmp/kexplain-bench] [--pods pod,pod-unschedulable]
        [--kubernetes-version 1.35]
"""
from __future__ import annotations

import argparse
import os
import platform
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench import ensure_generated, run_cli  # noqa: E402

RUNS = 5
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1280,900")


def _json_run(pod: Path, cluster: Path, out: Path, version: str) -> dict[str, Any]:
    """`-o json` into a file (its size is the yardstick)."""
    import subprocess
    import time

    start = time.perf_counter()
    with open(out, "wb") as fh:
        proc = subprocess.Popen([str(Path(sys.executable).parent / "kexplain"), str(pod), "--nodes", str(cluster),
                                 "-o", "json", "--kubernetes-version", version], stdout=fh)
        _, status, usage = os.wait4(proc.pid, 0)
    return {"wall": time.perf_counter() - start, "cpu": usage.ru_utime + usage.ru_stime,
            "peak_mb": usage.ru_maxrss / 1024, "bytes": out.stat().st_size}


def _in_page(driver: Any, script: str) -> float:
    """Milliseconds a synchronous piece of the page's work takes, timed inside the page."""
    return float(driver.execute_script("var t = performance.now();" + script + "; return performance.now() - t;"))


SORTED = ("Score", "Free CPU", "Node")     # the columns sorted (those the page has)


def columns(driver: Any) -> list[str]:
    return driver.execute_script("return Array.from(document.querySelectorAll('#t0 .nodes thead th'))"
                                 ".map(th => th.textContent)")


def browser_figures(pages: dict[str, Path]) -> dict[str, dict[str, float]]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait

    profile = tempfile.mkdtemp(prefix="kexplain-bench-")
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or shutil.which("chromium-browser") or ""
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    out: dict[str, dict[str, float]] = {}
    try:
        for name, page in pages.items():
            best: dict[str, float] = {}
            for _ in range(RUNS):
                driver.get("about:blank")
                driver.get(page.as_uri())
                WebDriverWait(driver, 120).until(lambda d: d.execute_script("return document.body.dataset.ready"))
                figures = {
                    "ready": float(driver.execute_script("return +document.body.dataset.readyMs")),
                    "sort": max(_in_page(driver, f"document.evaluate(\"//section[@id='t0']//thead//button[.='{c}']\","
                                                 "document, null, 9, null).singleNodeValue.click()")
                                for c in SORTED if c in columns(driver)),
                    "filter": _in_page(driver, "var s = document.getElementById('t0-f-status');"
                                               "s.selectedIndex = s.options.length - 1;"
                                               "s.dispatchEvent(new Event('change'))"),
                    "open": _in_page(driver, "document.querySelector(\"#t0 .nodes tr[data-row='0']\").click()"),
                }
                best = {k: min(v, best.get(k, v)) for k, v in figures.items()}
            out[name] = best
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "kexplain-bench")
    parser.add_argument("--pods", default="pod,pod-unschedulable,pod-plain")
    parser.add_argument("--browser-only", action="store_true", help="Measure the pages an earlier run wrote.")
    parser.add_argument("--kubernetes-version", default="1.35", help="the minor followed (the figures depend on it)")
    args = parser.parse_args(argv)
    paths = ensure_generated(args.dir, args.nodes, yaml_too=False)
    work = args.dir / f"n{args.nodes}" / "html"
    work.mkdir(exist_ok=True)
    print(f"{args.nodes:,} nodes; {platform.machine()}, Python {platform.python_version()}, "
          f"Kubernetes {args.kubernetes_version}, load average {os.getloadavg()[0]:.1f}")
    print("| pod | -o json | --html page | page / json | -o json: wall (CPU), peak RSS | with --html: wall (CPU), peak RSS |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    pages: dict[str, Path] = {role: work / f"{role}.html" for role in args.pods.split(",")}
    for role in [] if args.browser_only else args.pods.split(","):
        trace = _json_run(paths[role], paths["json"], work / f"{role}.json", args.kubernetes_version)
        page = pages[role]
        with_page = run_cli(str(paths[role]), "--nodes", str(paths["json"]), "-o", "json", "--html", str(page),
                            "--kubernetes-version", args.kubernetes_version)
        size = page.stat().st_size
        print(f"| {role} | {trace['bytes'] / 1e6:.2f} MB | {size / 1e6:.2f} MB | {size / trace['bytes']:.1f}x "
              f"| {trace['wall']:.1f} s ({trace['cpu']:.1f} s), {trace['peak_mb']:.0f} MB "
              f"| {with_page['wall']:.1f} s ({with_page['cpu']:.1f} s), "
              f"{with_page['peak_mb']:.0f} MB |")
    if not (shutil.which("chromedriver") and (shutil.which("chromium") or shutil.which("chromium-browser"))):
        print("no chromium and chromedriver: no browser figures")
        return 0
    print()
    print("| pod | ready (navigation to every node drawn) | sort (the slowest of Score, Free CPU, Node) | filter | "
          "open a node |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for role, f in browser_figures(pages).items():
        print(f"| {role} | {f['ready']:.0f} ms | {f['sort']:.0f} ms | {f['filter']:.0f} ms | {f['open']:.0f} ms |")
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
