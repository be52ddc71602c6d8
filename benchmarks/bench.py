"""Benchmark kexplain at cluster scale: load, explain, and the whole command.

For each cluster size (1,000 / 2,500 / 5,000 nodes by default, about 30 pods per node) the
snapshot of `generate.py` is generated once (kept under --dir) and measured, each measurement
in a fresh subprocess so that its peak RSS (`resource.getrusage`) is its own:

- load: reading the snapshot (YAML and JSON), admission, and the snapshot's NodeInfos: the
  `Inputs` an explanation starts from (the snapshot's objects carry a resourceVersion: they
  are taken as stored, the pending pod is admitted); PyYAML's CSafeLoader alone beside it;
- explain: one full scheduling cycle of the pending pod, every stage and filterAll included,
  with the default percentageOfNodesToScore and with 100, and the unschedulable variant
  with 100 (the DefaultPreemption dry run included); each on the loaded snapshot with nothing
  cached by plugins (the indexes built while loading are kept: that is what they are for),
  the fastest of EXPLAIN_RUNS;
- cli: `kexplain pod.yaml --nodes cluster.json -o json` (to /dev/null), against `json.load`
  of the same file in another subprocess of the same run, the fastest of REPEAT runs each;
  and the same command on cluster.yaml;
- lint: `kexplain lint` of the two generated pods against the snapshot as the pool;
- many pods (issue 18's targets): `--replicas 1000` of the pending pod (table output, and
  `-o json` to /dev/null) and of a plain pod (requests and a nodeSelector only), each as a ratio
  to the `json.load` of the same run, with the command's peak RSS (`--copies N` to change
  the count, `--copies 0` to skip).

Wall times on a shared machine are noisy (on the 2-core VM these figures come from, the same
pure-Python loop varies by up to 1.6x from one second to the next): CPU time (user + system,
or `time.process_time` inside the process) is reported beside each, and the repeated
measurements keep their fastest run.

    .venv/bin/python benchmarks/bench.py [--sizes 1000,2500,5000] [--dir /tmp/kexplain-bench] [--no-yaml]
        [--copies 1000] [--only-copies] [--loading]
    .venv/bin/python benchmarks/bench.py --targets [--shapes classic,teams,wide,lean,heavy] [--sizes 5000] [--pairs 3]
        [--live]

`--kubernetes-version X.Y` on either: every command and worker follows that version.

`--targets` measures only the targets (issue 40's; issues 18 and 25 set looser ones on the same
rows), on every shape of cluster `generate.py` makes (`--shapes`; `lean` and `heavy` are pods as
`kubectl get -o json` prints them, `kubectl_shapes.py`), each as the median of alternating pairs
with `json.load` of the same file (`load_bench.ratio_row`), with a verdict per row; `--live` adds
the pod read through a stand-in API server (`live_standin.py`) serving the snapshot; the first
row is the bundled six-node example, the whole process.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import resource
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

KEXPLAIN = Path(sys.executable).parent / "kexplain"
EXPLAIN_RUNS = 5     # explanations per size; the table shows the fastest (by CPU time)
REPEAT = 3           # runs of the whole command and of json.load; the table shows the fastest


# -- measurements, each run in its own subprocess (`bench.py --worker ...`) ---------------------
def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024   # KiB on Linux


def _timed(fn: Any) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def chosen_version() -> Any:
    """The version the run follows, as the CLI takes it: --kubernetes-version sets
    $KEXPLAIN_KUBERNETES_VERSION for every process of the run (`main`), workers included."""
    from kexplain.explain.request import VersionChoice
    from kexplain.features.kube_version import ENV_VAR
    return VersionChoice(os.environ.get(ENV_VAR) or None)


def worker_load(cluster: str, pod: str) -> dict[str, Any]:
    from kexplain.explain.inputs import load
    from kexplain.explain.request import Request
    loaded, wall, cpu = _timed(lambda: load(Request(pod, (cluster,), version=chosen_version())))  # as the CLI loads
    inputs = loaded.single
    assert inputs is not None
    return {"wall": wall, "cpu": cpu, "peak_mb": _peak_mb(),
            "nodes": len(inputs.snapshot.node_infos), "pods": sum(len(ni.pods) for ni in inputs.snapshot.node_infos)}


def worker_explain(cluster: str, pod: str, config: str | None = None) -> dict[str, Any]:
    from kexplain.explain.inputs import load
    from kexplain.explain.request import Request
    from kexplain.explain.run import explain
    req = Request(pod, (cluster,), config_path=config, version=chosen_version())
    inputs = load(req).single                   # as the CLI loads (one pod: one explanation)
    assert inputs is not None
    gc.freeze()                                 # what the CLI does once loaded (kexplain.load.gcpolicy)
    snap = inputs.snapshot
    results = []
    for _ in range(EXPLAIN_RUNS):               # cold: nothing cached on the snapshot, each time
        fresh = replace(inputs, snapshot=snap.fresh())    # load's indexes kept, plugin caches not
        trace, wall, cpu = _timed(lambda: explain(fresh, req).to_json())
        results.append({"wall": wall, "cpu": cpu})
    best = min(results, key=lambda r: r["cpu"])
    return {**best, "status": trace["result"]["status"], "peak_mb": _peak_mb()}


def worker_yaml(cluster: str) -> dict[str, Any]:
    import yaml

    def parse() -> Any:
        with open(cluster, encoding="utf-8") as fh:
            return yaml.load(fh, Loader=yaml.CSafeLoader)
    _, wall, cpu = _timed(parse)
    return {"wall": wall, "cpu": cpu, "peak_mb": _peak_mb()}


def worker_json(cluster: str) -> dict[str, Any]:
    def parse() -> Any:
        with open(cluster, "rb") as fh:
            return json.load(fh)
    _, wall, cpu = _timed(parse)
    return {"wall": wall, "cpu": cpu, "peak_mb": _peak_mb()}


def run_worker(*args: str) -> dict[str, Any]:
    out = subprocess.run([sys.executable, __file__, "--worker", *args], check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout)


def best_of(runs: int, measure: Any) -> dict[str, Any]:
    """The fastest of `runs` measurements (by wall time): what the code costs, with as little
    as possible of what else the machine was doing."""
    return min((measure() for _ in range(runs)), key=lambda r: r["wall"])


def run_cli(*args: str) -> dict[str, Any]:
    """A whole kexplain command in a subprocess: wall time, and its CPU time and peak RSS from wait4."""
    from load_bench import child_env
    start = time.perf_counter()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen([str(KEXPLAIN), *args], stdout=null, stderr=subprocess.PIPE, env=child_env())
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"kexplain failed ({code}): {proc.stderr.read().decode() if proc.stderr else ''}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "peak_mb": usage.ru_maxrss / 1024}


# -- the table -----------------------------------------------------------------------------------
def ensure_generated(base: Path, nodes: int, yaml_too: bool, shape: str = "classic") -> dict[str, Path]:
    import generate
    out = base / (f"n{nodes}" if shape == "classic" else f"{shape}-n{nodes}")
    roles = ("json", "yaml", "pod", "pod-unschedulable", "config-100", "pod-plain")
    paths = {r: out / (f"cluster.{r}" if r in ("json", "yaml") else f"{r}.yaml") for r in roles}
    missing = [r for r, p in paths.items() if not p.exists() and (yaml_too or r != "yaml")]
    if any(r in ("json", "yaml") for r in missing):
        print(f"generating {nodes} nodes of shape {shape} in {out} ...", file=sys.stderr)
        _in_child(generate.write, out, nodes, formats=("yaml", "json") if yaml_too else ("json",), shape=shape)
    elif missing:                           # a snapshot from before a pod was added: the pods alone
        generate.write_pods(out, shape)
    return paths


def _in_child(fn: Any, *args: Any, **kwargs: Any) -> None:
    """`fn(*args, **kwargs)` in a forked child: a snapshot of 800 MB made here would stay this
    process's peak RSS, which Linux hands on to every command it runs after (the peak a child
    reports from `wait4` counts the parent's at its fork)."""
    import multiprocessing
    proc = multiprocessing.get_context("fork").Process(target=fn, args=args, kwargs=kwargs)
    proc.start()
    proc.join()
    if proc.exitcode != 0:
        raise RuntimeError(f"generating the snapshot failed (exit {proc.exitcode})")


def fmt(r: dict[str, Any]) -> str:
    return f"{r['wall']:7.2f} s ({r['cpu']:6.2f} s CPU)"


def many_pods_rows(paths: dict[str, Path], copies: int, json_load: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Issue 18's rows: `copies` replicas of the benchmark's pod (table, -o json) and of a plain
    pod, each the fastest of REPEAT runs, with its ratio to `json_load` (of the same run)."""
    rows = []
    cluster = str(paths["json"])
    for label, pod, output in (("pending pod, table", "pod", ()), ("pending pod, -o json", "pod", ("-o", "json")),
                               ("plain pod, table", "pod-plain", ())):
        r = best_of(REPEAT, lambda: run_cli(str(paths[pod]), "--nodes", cluster, "--replicas", str(copies), *output))
        ratio = f"{r['wall'] / json_load['wall']:.2f}x json.load ({r['cpu'] / json_load['cpu']:.2f}x CPU)"
        rows.append((f"`--replicas {copies}`, {label}: {ratio} (best of {REPEAT})", r))
    return rows


def bench(sizes: list[int], base: Path, yaml_too: bool, copies: int = 1000) -> None:
    print(f"# {platform.node()}: {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f}")
    header = ("| nodes | pods | measurement | wall (CPU) | peak RSS |", "| ---: | ---: | --- | --- | ---: |")
    print("\n".join(header))
    for nodes in sizes:
        paths = ensure_generated(base, nodes, yaml_too)
        rows: list[tuple[str, dict[str, Any]]] = []
        pods = 0
        for fmt_name in ("json", "yaml") if yaml_too else ("json",):
            size = paths[fmt_name].stat().st_size / 1e6
            r = run_worker("load", str(paths[fmt_name]), str(paths["pod"]))
            pods = r["pods"]
            rows.append((f"load {fmt_name.upper()} ({size:.0f} MB)", r))
            if fmt_name == "yaml":
                rows.append(("PyYAML CSafeLoader alone on cluster.yaml", run_worker("yaml", str(paths["yaml"]))))
        for label, pod, config in (("explain, default percentage", "pod", None),
                                   ("explain, percentageOfNodesToScore 100", "pod", "config-100"),
                                   ("explain unschedulable + preemption, 100", "pod-unschedulable", "config-100")):
            args = ["explain", str(paths["json"]), str(paths[pod])] + ([str(paths[config])] if config else [])
            r = run_worker(*args)
            rows.append((f"{label} ({r['status']})", r))
        json_load = best_of(REPEAT, lambda: run_worker("json", str(paths["json"])))
        whole = best_of(REPEAT, lambda: run_cli(str(paths["pod"]), "--nodes", str(paths["json"]), "-o", "json"))
        rows.append((f"json.load of cluster.json (best of {REPEAT})", json_load))
        rows.append((f"`kexplain pod.yaml --nodes cluster.json -o json` (best of {REPEAT})", whole))
        ratio = whole["wall"] / json_load["wall"]
        cpu_ratio = whole["cpu"] / json_load["cpu"]
        if yaml_too:
            rows.append((f"`kexplain pod.yaml --nodes cluster.yaml -o json` (best of {REPEAT})",
                         best_of(REPEAT, lambda: run_cli(str(paths["pod"]), "--nodes", str(paths["yaml"]),
                                                         "-o", "json"))))
        rows.append(("`kexplain lint pod.yaml pod-unschedulable.yaml --nodes cluster.json`",
                     run_cli("lint", str(paths["pod"]), str(paths["pod-unschedulable"]), "--nodes", str(paths["json"]),
                             "-o", "json")))
        if copies:
            rows += many_pods_rows(paths, copies, json_load)
        for label, r in rows:
            print(f"| {nodes} | {pods} | {label} | {fmt(r)} | {r['peak_mb']:.0f} MB |", flush=True)
        print(f"| {nodes} | {pods} | CLI / json.load | {ratio:.2f}x ({cpu_ratio:.2f}x CPU) | |", flush=True)


def only_copies(sizes: list[int], base: Path, copies: int) -> None:
    """The many-pods rows alone, beside the json.load they are measured against."""
    print(f"# {platform.node()}: {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f}")
    print("| nodes | measurement | wall (CPU) | peak RSS |\n| ---: | --- | --- | ---: |")
    for nodes in sizes:
        paths = ensure_generated(base, nodes, False)
        json_load = best_of(REPEAT, lambda: run_worker("json", str(paths["json"])))
        for label, r in [(f"json.load of cluster.json (best of {REPEAT})", json_load),
                         *many_pods_rows(paths, copies, json_load)]:
            print(f"| {nodes} | {label} | {fmt(r)} | {r['peak_mb']:.0f} MB |", flush=True)


# -- the targets, per shape of cluster -------------------------------------------------------------
# Issue 40's targets (issues 18 and 25 set looser ones on the same rows): ratios to `json.load` of
# the same file, the largest peak RSS of the rows in MB, the bundled example's seconds.
TARGETS = {"stored": 0.5, "unstored": 1.0, "replicas": 3.0, "plain": 1.5, "json/table": 2.0, "peak": 1500.0,
           "example": 0.25}
EXAMPLE = ("fixtures/pod-too-big.yaml", "--nodes", "fixtures/cluster.yaml")     # the README's six nodes


def target_rows(paths: dict[str, Path], copies: int, pairs: int, live: bool = False) -> Iterator[Any]:
    """Every target on one snapshot, each the median of `pairs` alternating pairs (json.load of
    the same file in its own process, then the command: a pair sees the same drift of a shared
    machine), as each is measured: the stored and unstored snapshot (one pod, `-o json`), with
    `live` the pod read from a stand-in API server serving the snapshot (`kexplain pod NAME`:
    the live client's lists), `copies` replicas of the pending pod (table), the same with `-o
    json` against the table's time, a plain pod's copies, and the largest peak RSS of them all."""
    import load_bench
    from load_bench import Row, ratio_row

    cluster = paths["json"]
    unstored = load_bench.unstored_snapshot(cluster, cluster.parent / "cluster-unstored.json")
    one = [str(KEXPLAIN), str(paths["pod"]), "--nodes"]
    rows = [ratio_row("stored", [*one, str(cluster), "-o", "json"], cluster, pairs, TARGETS["stored"])]
    yield rows[-1]
    rows.append(ratio_row("unstored", [*one, str(unstored), "-o", "json"], unstored, pairs, TARGETS["unstored"]))
    yield rows[-1]
    if live:
        with load_bench.standin(cluster, cluster.parent) as kubeconfig:
            rows.append(ratio_row("live", [str(KEXPLAIN), "pod", load_bench.LIVE_POD, "-n", load_bench.LIVE_NAMESPACE,
                                           "--kubeconfig", str(kubeconfig), "-o", "json"], cluster, pairs, None))
        yield rows[-1]
    many = [*one, str(cluster), "--replicas", str(copies)]
    table = ratio_row("replicas", many, cluster, pairs, TARGETS["replicas"])
    rows.append(table)
    yield table
    as_json = ratio_row("replicas -o json", [*many, "-o", "json"], cluster, pairs, None)
    rows.append(as_json)
    yield as_json
    yield Row("json/table", as_json.value / table.value, "x", TARGETS["json/table"], as_json.peak_mb,
              "the -o json ratio over the table's, pair medians")
    plain = ratio_row("plain", [str(KEXPLAIN), str(paths["pod-plain"]), "--nodes", str(cluster), "--replicas",
                                str(copies)], cluster, pairs, TARGETS["plain"])
    rows.append(plain)
    yield plain
    peak = max(r.peak_mb for r in rows)
    yield Row("peak", peak, "MB", TARGETS["peak"], peak, "largest peak RSS of the rows above")


def example_row(runs: int = 9) -> Any:
    """The bundled six-node example, the whole process (imports included), the median of `runs`."""
    import statistics
    from load_bench import Row, run
    command = [str(KEXPLAIN), *(str(ROOT / a) if a.startswith("fixtures/") else a for a in EXAMPLE)]
    run(command)                                        # warm-up: bytecode, page cache
    got = [run(command) for _ in range(runs)]
    walls = sorted(r.wall for r in got)
    return Row("example", statistics.median(walls), "s", TARGETS["example"], max(r.peak_mb for r in got),
               f"kexplain {' '.join(EXAMPLE)}; runs {walls[0]:.3f}-{walls[-1]:.3f} s, "
               f"cpu median {statistics.median(r.cpu for r in got):.3f} s")


def targets(shapes: list[str], sizes: list[int], base: Path, copies: int, pairs: int, live: bool = False) -> None:
    print(f"# {platform.node()}: {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {', '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
    print(f"{'shape':<8} {'nodes':>5} {'row':<16} {'value':>9} {'target':<10} {'':<7} {'peak':>10}  detail")
    print(f"{'-':<8} {'-':>5} {example_row().line()}", flush=True)
    for shape in shapes:
        for nodes in sizes:
            paths = ensure_generated(base, nodes, False, shape)
            for row in target_rows(paths, copies, pairs, live):
                print(f"{shape:<8} {nodes:>5} {row.line()}", flush=True)
    print(f"# load average at the end {', '.join(f'{x:.1f}' for x in os.getloadavg())}")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:
        what, *rest = argv[1:]
        fn = {"load": worker_load, "explain": worker_explain, "json": worker_json, "yaml": worker_yaml}[what]
        print(json.dumps(fn(*rest)))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,2500,5000")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/kexplain-bench"))
    parser.add_argument("--no-yaml", action="store_true", help="skip the YAML snapshot (slow to load)")
    parser.add_argument("--copies", type=int, default=1000, help="replicas in the many-pods rows (0: skip them)")
    parser.add_argument("--only-copies", action="store_true", help="only json.load and the many-pods rows")
    parser.add_argument("--targets", action="store_true",
                        help="only every target (stored, unstored, replicas, -o json, plain pod, memory) per shape, "
                             "each against json.load in alternating pairs")
    parser.add_argument("--shapes", default="classic,teams,wide,lean,heavy",
                        help="cluster shapes (generate.py --shape)")
    parser.add_argument("--live", action="store_true", help="--targets: also the live row (a stand-in API server)")
    parser.add_argument("--pairs", type=int, default=3, help="alternating pairs per target (--targets)")
    parser.add_argument("--loading", action="store_true",
                        help="also the loading rows of load_bench.py (unstored and stored snapshot against "
                             "json.load, a live pod and --pending -A behind a stand-in API server) per size")
    parser.add_argument("--kubernetes-version", metavar="X.Y",
                        help="the version every measured command follows (else each one's default)")
    args = parser.parse_args(argv)
    if args.kubernetes_version:
        from kexplain.features.kube_version import ENV_VAR
        os.environ[ENV_VAR] = args.kubernetes_version       # the CLI's own setting, read by each child
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.targets:
        targets(args.shapes.split(","), sizes, args.dir, args.copies or 1000, args.pairs, args.live)
        return 0
    if args.only_copies:
        only_copies(sizes, args.dir, args.copies or 1000)
    else:
        bench(sizes, args.dir, not args.no_yaml, args.copies)
    if args.loading:
        import load_bench
        for nodes in sizes:
            snapshot = load_bench.ensure_snapshot(args.dir, nodes)
            print(f"# loading, {nodes} nodes")
            for row in (*load_bench.ratio_rows(snapshot), *load_bench.live_rows(snapshot)):
                print(row.line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
