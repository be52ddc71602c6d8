"""What each copy of a workload costs, counted, not timed: a copy's work must be what its bind changed.

For each shape of cluster (`generate.py --shape`), `--copies` copies of the pending pod and of
the plain pod are placed one after another (as `--replicas` places them), and for the first
copy and for the later ones (their median) this prints:

- pods counted from scratch: the bound pods `PodIndex.matches_per_node` / `count_per_node`
  went over (InterPodAffinity's and PodTopologySpread's counts), and how many of its tallies were
  built (`Tally`); after the first copy both are 0: each bind patched the counts;
- nodes NodeResourcesFit (one of the node-local plugins) filters and scores anew, against the
  nodes the search filtered: after the first copies only the nodes the binds changed, or met
  for the first time, are judged again;
- Python function calls (cProfile's count), which does not depend on the machine's load.

    .venv/bin/python benchmarks/copy_work.py [--shapes classic,teams,wide] [--nodes 5000] [--copies 30]
        [--dir /tmp/kexplain-bench]
"""
from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import sys
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


class Counts:
    """Per copy: what the wrapped functions saw."""

    def __init__(self) -> None:
        self.copies: list[dict[str, int]] = [{}]

    def add(self, what: str, n: int) -> None:
        self.copies[-1][what] = self.copies[-1].get(what, 0) + n

    def wrap(self, owner: Any, name: str, label: str, size: Callable[..., int]) -> None:
        original = getattr(owner, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.add(label, size(*args, **kwargs))
            return original(*args, **kwargs)
        setattr(owner, name, counted)


def measure(paths: dict[str, Path], role: str, copies: int) -> dict[str, tuple[int, float]]:
    """{what: (first copy, median of the later ones)}."""
    from kexplain.explain.carryover import Carryover
    from kexplain.explain.inputs import load
    from kexplain.explain.placement import iter_placements
    from kexplain.explain.request import Request, RunOptions
    from kexplain.framework.runtime import Framework
    from kexplain.model.pod_index import PodIndex
    from kexplain.plugins import inter_pod_affinity as ipa
    from kexplain.plugins.node_resources_fit import NodeResourcesFit

    counts = Counts()

    def group_pods(self: Any, namespace: str, selector: Any) -> int:       # pods a from-scratch count goes over
        return sum(len(g.entries) for g in self._groups(namespace, selector)[0])

    def term_pods(self: Any, terms: Any) -> int:
        first = terms[0]
        namespaces = self.by_namespace if first.namespace_selector.everything else first.namespaces
        return sum(len(g.entries) for ns in namespaces for g in self._groups(ns, first.selector)[0])

    wrapped = [(PodIndex, "count_per_node", "pods counted from scratch", group_pods),
               (PodIndex, "matches_per_node", "pods counted from scratch", term_pods),
               (Framework, "run_filter_nodes", "nodes filtered", lambda self, state, pod, nodes, *a, **k: len(nodes)),
               (NodeResourcesFit, "filter_nodes", "nodes NodeResourcesFit filters anew",
                lambda self, state, pod, nodes: len(nodes)),
               (NodeResourcesFit, "score_nodes", "nodes NodeResourcesFit scores anew",
                lambda self, state, pod, nodes: len(nodes))]
    wrapped += [(cls, "build", "tallies built", lambda *a, **k: 1)
                for cls in (ipa.IncomingCounts, ipa.ExistingAnti, ipa.Scores)]
    saved = [(owner, name, vars(owner)[name]) for owner, name, _, _ in wrapped]
    for owner, name, label, size in wrapped:
        counts.wrap(owner, name, label, size)
    try:
        inputs = load(Request(str(paths[role]), (str(paths["json"]),))).single
        assert inputs is not None
        calls: list[int] = []
        profile = cProfile.Profile()
        profile.enable()
        for _ in iter_placements(inputs, RunOptions(), copies, carry=Carryover()):
            profile.disable()
            calls.append(pstats.Stats(profile).total_calls)      # type: ignore[attr-defined]
            counts.copies.append({})
            profile = cProfile.Profile()
            profile.enable()
        profile.disable()
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)
    per_copy = counts.copies[:len(calls)]
    for c, n in zip(per_copy, calls):
        c["Python function calls"] = n
    keys = sorted({k for c in per_copy for k in c})
    return {k: (per_copy[0].get(k, 0), statistics.median(c.get(k, 0) for c in per_copy[1:])) for k in keys}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default="classic,teams,wide")
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--copies", type=int, default=30)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/kexplain-bench"))
    args = parser.parse_args(argv)
    from bench import ensure_generated
    print(f"{'shape':<8} {'pod':<10} {'what':<40} {'first copy':>11} {'later (median)':>15}")
    for shape in args.shapes.split(","):
        paths = ensure_generated(args.dir, args.nodes, False, shape)
        for role in ("pod", "pod-plain"):
            for what, (first, later) in measure(paths, role, args.copies).items():
                print(f"{shape:<8} {role:<10} {what:<40} {first:>11,} {later:>15,.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
