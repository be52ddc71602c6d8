"""Traces of the bundled fixtures with kexplain's extra keys, and their rendered text."""
from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from kexplain.cli.env import Environment
from kexplain.explain.inputs import load_inputs
from kexplain.explain.request import Request, RunOptions
from kexplain.explain.run import explain
from kexplain.features import KubeVersion
from kexplain.render.table import print_trace
from tests.support.paths import ROOT

FIXTURES = ROOT / "fixtures"
# The version the render tests' figures (scores, ranks, reasons) were worked out for; a test of
# what another version shows names it.
RENDERED_VERSION = KubeVersion("1.35")


def fixture_paths(name: str) -> tuple[Path, Path]:
    """(pod, cluster) of a fixture: `pod-web` / `pod-too-big` use fixtures/cluster.yaml,
    the others are directories with pod.yaml and cluster.yaml."""
    if (FIXTURES / f"{name}.yaml").exists():
        return FIXTURES / f"{name}.yaml", FIXTURES / "cluster.yaml"
    return FIXTURES / name / "pod.yaml", FIXTURES / name / "cluster.yaml"


def trace_of(name: str, *nodes: str, unexamined: bool = True, kube: KubeVersion = RENDERED_VERSION) -> dict[str, Any]:
    """The fixture's trace under `kube` with `details` (plugin facts for `nodes`) and `unexamined`."""
    pod, cluster = fixture_paths(name)
    req = Request(pod_path=str(pod), node_paths=(str(cluster),), kube=kube)
    options = RunOptions(details=True, explain_nodes=frozenset(nodes), unexamined=unexamined)
    return explain(load_inputs(req), options).to_json()


def text_of(trace: dict[str, Any], *, wide: bool = False, node: str | None = None, width: int | None = None,
            terminal: bool = False, color: bool | None = None) -> str:
    """What `kexplain` prints for the trace: plain text, 80 columns, unless told otherwise."""
    out = io.StringIO()
    env = Environment(stdout=out, is_terminal=terminal, color=color, width=width)
    print_trace(trace, env.console(), wide=wide, node=node)
    return out.getvalue()


def squeeze(text: str) -> list[str]:
    """The lines of `text` with runs of blanks reduced to one (table layout aside)."""
    return [" ".join(line.split()) for line in text.splitlines()]


def section(text: str, title: str) -> list[str]:
    """The squeezed lines from the one starting with `title` to the next blank line."""
    lines = squeeze(text)
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i]), len(lines))
    return lines[start:end]


def table_rows(text: str, title: str) -> list[str]:
    """Like `section`, with a table row's wrapped continuation lines (they start with at least
    four blanks: an empty first column) joined to the row."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    rows: list[str] = []
    for line in lines[start:]:
        if not line.strip():
            break
        if line.startswith("    ") and rows:
            rows[-1] += " " + " ".join(line.split())
        else:
            rows.append(" ".join(line.split()))
    return rows


def tied_cluster(out: Path) -> Path:
    """fixtures/large-cluster with the same pod on every node, the last 20 too: every node scores
    the same for large-cluster's pod, so the nodes the search never examines would only tie with
    the winner (written under `out`)."""
    text = (FIXTURES / "large-cluster" / "cluster.yaml").read_text()
    pod = next(line for line in text.splitlines() if "name: worker-001," in line)
    more = [pod.replace("worker-001", f"worker-{n:03d}").replace("node-001", f"node-{n:03d}") for n in range(101, 121)]
    path = out / "tied-cluster.yaml"
    path.write_text(text.rstrip("\n") + "\n" + "\n".join(more) + "\n")
    return path


def tied_trace(out: Path, kube: KubeVersion = RENDERED_VERSION) -> dict[str, Any]:
    """large-cluster's pod on `tied_cluster`, with `details` and `unexamined`."""
    req = Request(pod_path=str(FIXTURES / "large-cluster" / "pod.yaml"), node_paths=(str(tied_cluster(out)),),
                  kube=kube)
    return explain(load_inputs(req), RunOptions(details=True, unexamined=True)).to_json()
