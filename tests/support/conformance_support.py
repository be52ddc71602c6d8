"""Running conformance cases in-process and comparing traces key by key (trace-format.md rules)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from kexplain.errors import KexplainError
from kexplain.explain.batch import explain_batch, to_json
from kexplain.explain.inputs import load
from kexplain.explain.request import Request, RunOptions
from kexplain.explain.run import explain
from kexplain.features import KubeVersion

BASE_VERSION = "1.35"            # the minor whose traces are in expected.json
RANDOM_TIES = {"1.33", "1.34"}  # minors that pick among equally scored nodes at random
KEYS = ("preEnqueue", "preFilter", "preFilterNodeNames", "search", "filter", "filterAll", "score",
        "postFilter", "result")


def expected_name(version: str | None) -> str:
    """expected.json (the base minor) or expected-v<minor>.json."""
    return "expected.json" if version in (None, BASE_VERSION) else f"expected-v{version}.json"


def cases_under(root: Path, version: str | None = None) -> list[Path]:
    """The cases under `root` that `version`'s real scheduler ran."""
    return sorted(p.parent for p in root.glob(f"*/{expected_name(version)}"))


def request_for(case: Path, version: str | None = None) -> Request:
    start = 0
    params = case / "params.yaml"
    if params.exists():
        for line in params.read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "startIndex":
                start = int(value.strip())
    config = case / "scheduler-config.yaml"
    return Request(pod_path=str(case / "pod.yaml"), node_paths=(str(case / "cluster.yaml"),),
                   config_path=str(config) if config.exists() else None, run=RunOptions(start_index=start),
                   kube=KubeVersion(version or BASE_VERSION))


def normalise(trace: dict, unordered: bool, random_ties: bool = False) -> dict:
    """The lists whose order carries no meaning sorted; with `random_ties` (a minor that picks
    among equally scored nodes at random) the pick among several selectedNodes not compared."""
    trace = json.loads(json.dumps(trace))
    post = trace.get("postFilter")
    if isinstance(post, dict) and isinstance(post.get("victims"), list):
        post["victims"] = sorted(post["victims"])
    result = trace.get("result")
    if isinstance(result, dict) and isinstance(result.get("selectedNodes"), list):
        result["selectedNodes"] = sorted(result["selectedNodes"])
        if random_ties and len(result["selectedNodes"]) > 1:
            result.pop("suggestedHost", None)
    search = trace.get("search")
    if unordered and isinstance(search, dict):
        if isinstance(search.get("order"), list):
            search["order"] = sorted(search["order"])
        if isinstance(result, dict):
            result.pop("suggestedHost", None)
    return trace


def run_case(case: Path, version: str | None = None) -> dict:
    """The case's trace, loaded and explained as `kexplain POD -o json` does (`load`: one pod,
    one trace; a file that makes a batch, its SchedulingTraceList)."""
    req = request_for(case, version)
    try:
        loaded = load(req)
        if loaded.single is not None:
            return explain(loaded.single, req.run).to_json()
        assert loaded.pool is not None
        return to_json(explain_batch(loaded.batch, loaded.pool, req.run, stored=req.stored))
    except KexplainError as err:
        return {"error": str(err)}


def _unordered(raw: dict) -> bool:
    return isinstance(raw.get("search"), dict) and raw["search"].get("orderDeterministic") is False


def run_sequence(case: Path, version: str | None = None) -> dict:
    """A sequence case through the command line, as the shared conformance tool runs it
    (`kexplain CASE/pods.yaml --nodes CASE/cluster.yaml ... -o json`)."""
    args = [sys.executable, "-m", "kexplain", str(case / "pods.yaml"), "--nodes", str(case / "cluster.yaml"),
            "-o", "json", "--start-index", str(request_for(case).run.start_index),
            "--kubernetes-version", version or BASE_VERSION]
    if (case / "scheduler-config.yaml").exists():
        args += ["--config", str(case / "scheduler-config.yaml")]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300)
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError:
        return {"error": proc.stderr.strip()[-500:]}


def differing_keys(case: Path, version: str | None = None) -> tuple[list[str], dict, dict]:
    """The trace keys that differ from `version`'s real scheduler's; for a sequence (pods.yaml),
    item by item in order: `items[i].key`, or `items` when an item is missing or extra, or
    stands for another pod."""
    raw = json.loads((case / expected_name(version)).read_text())
    ties = (version or BASE_VERSION) in RANDOM_TIES
    if (case / "pods.yaml").exists():
        got_list = run_sequence(case, version)
        want_items, got_items = raw.get("items") or [], got_list.get("items") or []
        if len(want_items) != len(got_items):
            return ["items"], raw, got_list
        for i, (w, g) in enumerate(zip(want_items, got_items)):
            want, got = normalise(w, _unordered(w), ties), normalise(g, _unordered(w), ties)
            bad = [f"items[{i}].{k}" for k in ("pod", *KEYS) if want.get(k) != got.get(k)]
            if bad:
                return bad, {b: want.get(b.split(".", 1)[1]) for b in bad}, {b: got.get(b.split(".", 1)[1]) for b in bad}
        return [], raw, got_list
    unordered = _unordered(raw)
    want = normalise(raw, unordered, ties)
    got = normalise(run_case(case, version), unordered, ties)
    return [k for k in KEYS if want.get(k) != got.get(k)], want, got
