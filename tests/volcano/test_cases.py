"""`kexplain volcano` against Volcano v1.15.1's own documents: the bundled cases (tests/volcano/cases,
copied unchanged from ../shared/volcano: a gang rolled back, the Helm configuration, mixed predicate
reasons, overcommit's enqueue refusal), compared as ../shared/volcano/README.md says."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import TESTS

BUNDLED = TESTS / "volcano" / "cases"
PODGROUP_FIELDS = {"queue": "", "minMember": 0, "phaseBefore": "", "phase": "", "conditions": [],
                   "running": 0, "succeeded": 0, "failed": 0}
POD_FIELDS = {"podGroup": "", "nodeBefore": "", "boundTo": "", "podScheduled": {}, "nominatedNodeName": "",
              "evicted": False}
KEYS = ("type", "status", "reason", "message")


def run_case(case: Path) -> tuple[int, dict[str, Any], str]:
    argv = ["volcano", "--nodes", str(case / "cluster.yaml"), "-o", "json"]
    if (case / "scheduler-conf.yaml").exists():
        argv += ["--scheduler-conf", str(case / "scheduler-conf.yaml")]
    env = TestEnvironment()
    code = main(argv, env)
    return code, (json.loads(env.out) if env.out.strip() else {}), env.err


def _fields(item: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    out = {f: item.get(f) if item.get(f) is not None else e for f, e in fields.items()}
    if "conditions" in out:
        out["conditions"] = [{k: c.get(k, "") for k in KEYS} for c in out["conditions"]]
    if out.get("podScheduled"):
        out["podScheduled"] = {k: out["podScheduled"].get(k, "") for k in KEYS}
    return out


def differences(want: dict[str, Any], got: dict[str, Any]) -> list[str]:
    bad = [] if "v1.15.1" in str(got.get("volcano")) else ["volcano"]
    for k in ("actions", "tiers"):
        if want["config"][k] != (got.get("config") or {}).get(k):
            bad.append(f"config.{k}")
    for kind, fields in (("podGroups", PODGROUP_FIELDS), ("pods", POD_FIELDS), ("queues", {"state": "", "allocated": {}})):
        w = {i["name"]: _fields(i, fields) for i in want.get(kind) or ()}
        g = {i["name"]: _fields(i, fields) for i in got.get(kind) or ()}
        bad += [f"{kind}: {n}" for n in sorted(set(w) | set(g)) if w.get(n) != g.get(n)]

    def events(doc: dict[str, Any]) -> Counter:
        return Counter((e.get("object"), e.get("type"), e.get("reason"), e.get("message"), e.get("count") or 1)
                       for e in doc.get("events") or ())
    if events(want) != events(got):
        bad.append("events")
    return bad


@pytest.mark.parametrize("case", sorted(p.parent for p in BUNDLED.rglob("expected-volcano.json")),
                         ids=lambda p: p.name)
def test_bundled_case(case: Path) -> None:
    code, got, err = run_case(case)
    assert code in (0, 1), f"exit {code}: {err}"
    want = json.loads((case / "expected-volcano.json").read_text())
    assert differences(want, got) == []


def test_the_bundled_cases_are_there() -> None:
    assert len(list(BUNDLED.rglob("expected-volcano.json"))) >= 4
