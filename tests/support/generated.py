"""Clusters made by the benchmark generator (`benchmarks/generate.py --shape`), small, for tests
that need many pods sharing labels: wide selectors, preferences over label groups, pods of
many shapes."""
from __future__ import annotations

import sys
from pathlib import Path

from tests.support.paths import ROOT


def generated_cluster(out: Path, shape: str, nodes: int = 30, pods_per_node: int = 12,
                      seed: int = 3) -> dict[str, Path]:
    """`generate.write` of `shape` under `out` (JSON only): the paths by role (json, pod,
    pod-unschedulable, pod-plain, config-100)."""
    if str(ROOT / "benchmarks") not in sys.path:
        sys.path.insert(0, str(ROOT / "benchmarks"))
    import generate
    return generate.write(out, nodes, pods_per_node, seed=seed, formats=("json",), shape=shape)
