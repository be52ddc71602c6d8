"""CPU budgets of the cases the tests check for behaviour only: how much a refused input, a hostile
selector or a wide DaemonSet costs, and how soon Ctrl-C ends a run.

The tests (tests/load/test_broken_inputs.py, tests/load/test_limits.py, tests/cel/test_cel.py,
tests/lint/test_lint_daemonset.py) assert what happens and bound a hang generously; a time is a
measurement, which other work on the machine changes, so it is taken here, on a quiet machine,
against these budgets:

- every file of tests/data/broken/ (as the tests give it: `pod--*` as POD, `nodes--*` as
  --nodes, `config--*` as --config): at most 1 s of CPU each, in this process;
- inputs made here: 100 MB label values (YAML 6 s, JSON 3 s: the parsers read about 80 and
  300 MB a second), a file past --max-input-size, 50,000 documents past --max-objects (1 s);
- in a process of its own, over `kexplain version`'s start-up: 100,000 levels of nesting, an
  empty stdin, an unreadable file (not as root) (1 s each);
- Ctrl-C on a 5,000-node run: ended within 10 s of the signal (wall);
- hostile CEL selectors stopped by the cost limit within 5 s; 8,000 evaluations of a selector
  within 1 s;
- lint of a DaemonSet on 300 nodes: at most 20 s of CPU.

    .venv/bin/python benchmarks/budgets_bench.py [--only broken,made,process,ctrl-c,cel,lint]

Prints one row per case over its budget and one per family (the largest), and exits 1 when a
budget is missed.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BROKEN = ROOT / "tests" / "data" / "broken"
POD = str(ROOT / "fixtures" / "pod-web.yaml")
CLUSTER = str(ROOT / "fixtures" / "cluster.yaml")
BIG = 100 * 1024 * 1024


@dataclass(frozen=True)
class Row:
    family: str
    case: str
    seconds: float
    budget: float

    @property
    def missed(self) -> bool:
        return self.seconds > self.budget

    def line(self) -> str:
        verdict = "MISSED" if self.missed else "ok"
        return f"{self.family:<8} {self.seconds:>7.2f} s  <= {self.budget:g} s  {verdict:<6} {self.case}"


def in_process(args: list[str]) -> float:
    """CPU seconds of `kexplain ARGS -o json` in this process (its output swallowed)."""
    from kexplain.cli.app import main

    start = time.process_time()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        main([*args, "-o", "json"])
    return time.process_time() - start


def in_child(args: list[str], stdin: bytes = b"") -> float:
    """CPU seconds of `python -m kexplain ARGS` in a process of its own."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "kexplain", *args], input=stdin, capture_output=True, cwd=ROOT,
                   timeout=600)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def broken_rows() -> list[Row]:
    rows = []
    for path in sorted(BROKEN.iterdir()):
        role = path.name.split("--", 1)[0]
        args = {"pod": [str(path), "--nodes", CLUSTER], "nodes": [POD, "--nodes", str(path)],
                "config": [POD, "--nodes", CLUSTER, "--config", str(path)]}[role]
        rows.append(Row("broken", path.name, in_process(args), 1.0))
    return rows


def made_rows(tmp: Path) -> list[Row]:
    yaml_path = tmp / "big.yaml"
    with open(yaml_path, "w") as fh:
        fh.write("apiVersion: v1\nkind: Pod\nmetadata:\n  name: big\n  labels:\n    app: " + "a" * BIG
                 + "\nspec:\n  containers: [{name: c, image: nginx}]\n")
    json_path = tmp / "big.json"
    json_path.write_text(json.dumps({"apiVersion": "v1", "kind": "Pod",
                                     "metadata": {"name": "big", "labels": {"app": "a" * BIG}},
                                     "spec": {"containers": [{"name": "c", "image": "nginx"}]}}))
    many = tmp / "many.yaml"
    many.write_text("---\nkind: Node\nmetadata: {name: n}\n" * 50_000)
    cases = [("100 MB label value, YAML", [str(yaml_path), "--nodes", CLUSTER], 6.0),
             ("100 MB label value, JSON", [str(json_path), "--nodes", CLUSTER], 3.0),
             ("100 MB over --max-input-size", [str(json_path), "--nodes", CLUSTER, "--max-input-size", "10000000"], 1.0),
             ("50,000 documents over --max-objects", [POD, "--nodes", str(many), "--max-objects", "100"], 1.0)]
    return [Row("made", name, in_process(args), budget) for name, args, budget in cases]


def process_rows(tmp: Path) -> list[Row]:
    startup = min(in_child(["version"]) for _ in range(2))
    deep = tmp / "deep.yaml"
    deep.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: i}]}\n"
                    "x: " + "[" * 100_000 + "]" * 100_000 + "\n")
    deep_json = tmp / "deep.json"
    deep_json.write_text('{"apiVersion": "v1", "kind": "Pod", "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    cases: list[tuple[str, list[str], bytes]] = [
        ("100,000 nested flow sequences", [str(deep), "--nodes", CLUSTER], b""),
        ("100,000 nested JSON arrays", [str(deep_json), "--nodes", CLUSTER], b""),
        ("empty stdin", ["-", "--nodes", CLUSTER], b"")]
    if os.geteuid() != 0:       # (root reads a chmod 000 file)
        locked = tmp / "pod.yaml"
        locked.write_text(Path(POD).read_text())
        locked.chmod(0)
        cases.append(("unreadable file", [str(locked), "--nodes", CLUSTER], b""))
    return [Row("process", f"{name} (over {startup:.2f} s of start-up)", in_child(args, stdin) - startup, 1.0)
            for name, args, stdin in cases]


def ctrl_c_rows(tmp: Path) -> list[Row]:
    docs = []
    for i in range(5000):
        docs.append(f"apiVersion: v1\nkind: Node\nmetadata:\n  name: n{i}\n  labels: {{kubernetes.io/hostname: n{i}}}\n"
                    "status:\n  capacity: {cpu: '4', memory: 8Gi, pods: '110'}\n")
        docs.append(f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}}}\nspec:\n  nodeName: n{i}\n"
                    "  containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]\n")
    cluster = tmp / "cluster-5000.yaml"
    cluster.write_text("---\n" + "---\n".join(docs))
    fifo = tmp / "pod.yaml"
    os.mkfifo(fifo)
    proc = subprocess.Popen([sys.executable, "-m", "kexplain", str(fifo), "--nodes", str(cluster), "-o", "json"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(fifo, "wb") as fh:    # opened once kexplain reads its POD: inside the command
        fh.write(Path(POD).read_bytes())
    time.sleep(0.3)                 # reading the cluster
    started = time.monotonic()
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=600)
    return [Row("ctrl-c", f"5,000 nodes, ended with {proc.returncode} (wall)", time.monotonic() - started, 10.0)]


def cel_rows() -> list[Row]:
    from kexplain.cel import compile_selector, make_device

    device = make_device("gpu.example.com", attributes={"model": {"string": "a100"}},
                         capacity={"memory": {"value": "16Gi"}})
    rows = []
    for expr in ("lists.range(1000).all(x, lists.range(1000).all(y, x + y >= 0))",
                 "lists.range(100000000).size() > 0",
                 "lists.range(2000).map(x, lists.range(2000).filter(y, y == x)).size() > 0",
                 'cel.bind(s, "' + "x" * 5000 + '", lists.range(500).all(i, s.contains(s)))'):
        start = time.perf_counter()
        compile_selector(expr).evaluate(device)
        rows.append(Row("cel", f"cost limit: {expr[:50]}", time.perf_counter() - start, 5.0))
    prog = compile_selector('device.driver == "gpu.example.com" && '
                            'device.attributes["gpu.example.com"].model == "a100" && '
                            'device.capacity["gpu.example.com"].memory.compareTo(quantity("24Gi")) >= 0')
    start = time.perf_counter()
    for _ in range(8000):
        prog.evaluate(device)
    rows.append(Row("cel", "8,000 evaluations", time.perf_counter() - start, 1.0))
    return rows


def lint_rows(tmp: Path) -> list[Row]:
    from kexplain.lint.linter import LintOptions, Linter

    docs = []
    for i in range(300):
        docs.append(f"apiVersion: v1\nkind: Node\nmetadata:\n  name: n{i:03d}\n  labels: {{kubernetes.io/hostname: "
                    f"n{i:03d}, topology.kubernetes.io/zone: z{i % 3}}}\n"
                    "status:\n  allocatable: {cpu: '4', memory: 16Gi, pods: '110'}\n")
        docs.extend(f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}-{j}}}\nspec:\n  nodeName: n{i:03d}\n"
                     "  containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]\n" for j in range(3))
    pool = tmp / "pool.yaml"
    pool.write_text("---\n" + "---\n".join(docs))
    ds = tmp / "ds.yaml"
    ds.write_text("apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\nspec:\n"
                  "  selector: {matchLabels: {app: agent}}\n  template:\n    metadata: {labels: {app: agent}}\n"
                  "    spec:\n      containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]\n")
    linter = Linter(LintOptions((str(ds),), (str(pool),)))
    start = time.process_time()
    linter.run()
    return [Row("lint", "DaemonSet on 300 nodes", time.process_time() - start, 20.0)]


FAMILIES: dict[str, Callable[[Path], list[Row]]] = {
    "broken": lambda tmp: broken_rows(), "made": made_rows, "process": process_rows, "ctrl-c": ctrl_c_rows,
    "cel": lambda tmp: cel_rows(), "lint": lint_rows,
}


def report(rows: Iterable[Row]) -> int:
    rows = list(rows)
    families: dict[str, list[Row]] = {}
    for row in rows:
        families.setdefault(row.family, []).append(row)
    for family, members in families.items():
        for row in members:
            if row.missed:
                print(row.line())
        worst = max(members, key=lambda r: r.seconds / r.budget)
        print(f"{family:<8} {len(members)} case(s), the largest against its budget: {worst.line().split(None, 1)[1]}")
    return 1 if any(r.missed for r in rows) else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default=",".join(FAMILIES), help="families to run, comma-separated")
    chosen = [f for f in ap.parse_args().only.split(",") if f]
    unknown = set(chosen) - set(FAMILIES)
    if unknown:
        ap.error(f"unknown families: {', '.join(sorted(unknown))}")
    with tempfile.TemporaryDirectory(prefix="kexplain-budgets-") as tmp:
        rows = [row for family in chosen for row in FAMILIES[family](Path(tmp))]
    return report(rows)


if __name__ == "__main__":
    sys.exit(main())
