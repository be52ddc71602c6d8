"""Running conformance cases in-process and comparing traces key by key (trace-format.md rules)."""
from __future__ import annotations

import json
from pathlib import Path

from kexplain.errors import KexplainError
from kexplain.explain import Request, explain, load_inputs

KEYS = ("preEnqueue", "preFilter", "preFilterNodeNames", "search", "filter", "filterAll", "score",
        "postFilter", "result")


def cases_under(root: Path) -> list[Path]:
    return sorted(p.parent for p in root.glob("*/expected.json"))


def request_for(case: Path) -> Request:
    start = 0
    params = case / "params.yaml"
    if params.exists():
        for line in params.read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "startIndex":
                start = int(value.strip())
    config = case / "scheduler-config.yaml"
    return Request(pod_path=str(case / "pod.yaml"), node_paths=(str(case / "cluster.yaml"),),
                   config_path=str(config) if config.exists() else None, start_index=start)


def normalise(trace: dict, unordered: bool) -> dict:
    trace = json.loads(json.dumps(trace))
    post = trace.get("postFilter")
    if isinstance(post, dict) and isinstance(post.get("victims"), list):
        post["victims"] = sorted(post["victims"])
    result = trace.get("result")
    if isinstance(result, dict) and isinstance(result.get("selectedNodes"), list):
        result["selectedNodes"] = sorted(result["selectedNodes"])
    search = trace.get("search")
    if unordered and isinstance(search, dict):
        if isinstance(search.get("order"), list):
            search["order"] = sorted(search["order"])
        if isinstance(result, dict):
            result.pop("suggestedHost", None)
    return trace


def run_case(case: Path) -> dict:
    req = request_for(case)
    try:
        return explain(load_inputs(req), req).to_json()
    except KexplainError as err:
        return {"error": str(err)}


def differing_keys(case: Path) -> tuple[list[str], dict, dict]:
    raw = json.loads((case / "expected.json").read_text())
    unordered = isinstance(raw.get("search"), dict) and raw["search"].get("orderDeterministic") is False
    want = normalise(raw, unordered)
    got = normalise(run_case(case), unordered)
    return [k for k in KEYS if want.get(k) != got.get(k)], want, got
