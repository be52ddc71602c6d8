"""`kexplain kueue` against the real Kueue's documents.

The bundled cases (tests/kueue/cases: a few of each theme and the seven written by hand, copied
unchanged from ../shared/kueue) always run, against v0.17.8's expected-kueue.json and v0.19.2's
expected-kueue-v0.19.2.json; every case of ../shared/kueue runs too when that folder is there.
Documents are compared by the comparison tool's own `compare` (../shared/tools/kueue.py) when
it is there, else by `differences` below, which reads the README's rules the same way.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import ROOT, TESTS
from tests.support.shared_tools import comparison_tool

BUNDLED = TESTS / "kueue" / "cases"
SHARED = ROOT.parent / "shared" / "kueue"
NOW = "2026-01-01T00:00:00Z"
# (the expected document, the --kueue-version, the text kueueVersion must contain)
VERSIONS = {"0.17": ("expected-kueue.json", None, "v0.17.8"),
            "0.19": ("expected-kueue-v0.19.2.json", "0.19", "v0.19.2")}


COMPARE_TOOL = comparison_tool("kueue")


def cases(root: Path) -> list[Path]:
    if not root.is_dir():
        return []
    return sorted(p.parent for p in root.rglob("expected-kueue.json"))


def run_case(case: Path, version: str) -> tuple[int, dict[str, Any], str]:
    _, flag, _ = VERSIONS[version]
    argv = ["kueue", str(case / "workloads.yaml"), "--nodes", str(case / "cluster.yaml"), "--now", NOW, "-o", "json",
            "--no-suggestions", *(["--kueue-version", flag] if flag else [])]
    env = TestEnvironment()
    code = main(argv, env)
    return code, (json.loads(env.out) if env.out.strip() else {}), env.err


# -- the README's comparison, for a clone without ../shared ------------------------------------
JOB_FIELDS = {"workload": "", "queueName": "", "error": False}
WORKLOAD_FIELDS = {"queueName": "", "owner": "", "priority": None, "priorityClass": "", "quotaReserved": False,
                   "evicted": False, "preempted": False, "clusterQueue": "", "podSetAssignments": [],
                   "conditions": []}
CONDITION_KEYS = ("type", "status", "reason", "message")


def _projected(doc: dict[str, Any]) -> dict[str, Any]:
    jobs = [(f"{j.get('kind')}/{j.get('namespace')}/{j.get('name')}",
             {f: (bool(j.get(f)) if f == "error" else (j.get(f) if j.get(f) is not None else e))
              for f, e in JOB_FIELDS.items()}) for j in doc.get("jobs") or ()]
    workloads = []
    for w in doc.get("workloads") or ():
        fields = {f: (w.get(f) if w.get(f) is not None else e) for f, e in WORKLOAD_FIELDS.items()}
        fields["conditions"] = [{k: c.get(k) for k in CONDITION_KEYS} for c in fields["conditions"]]
        workloads.append((f"{w.get('namespace')}/{w.get('name')}", fields))
    events = sorted({tuple(str(e.get(k)) for k in ("object", "type", "reason", "message"))
                     for e in doc.get("events") or ()})
    return {"jobs": jobs, "workloads": sorted(workloads), "events": events}


def differences(want: dict[str, Any], got: dict[str, Any], release: str) -> list[str]:
    """The keys that differ, as the README compares them."""
    bad = [] if isinstance(got.get("kueueVersion"), str) and release in got["kueueVersion"] else ["kueueVersion"]
    w, g = _projected(want), _projected(got)
    return bad + [k for k in ("jobs", "workloads", "events") if w[k] != g[k]]


def _check(case: Path, version: str) -> None:
    expected, _, release = VERSIONS[version]
    code, got, err = run_case(case, version)
    assert code in (0, 1), f"{case.name}: exit {code}: {err}"
    want = json.loads((case / expected).read_text())
    if COMPARE_TOOL is not None:
        saved = COMPARE_TOOL.VERSION
        COMPARE_TOOL.VERSION = release
        try:
            bad = COMPARE_TOOL.compare(want, got)
        finally:
            COMPARE_TOOL.VERSION = saved
        assert not bad, f"{case.name} ({release}): {bad}"
    else:
        assert not differences(want, got, release), f"{case.name} ({release}): {differences(want, got, release)}"


def _params(root: Path) -> list[Any]:
    """Each case against each release it holds an answer of (some cases hold v0.17.8's only)."""
    return [pytest.param(c, v, id=f"{v}-{c.parent.name + '-' if c.parent.name == 'handwritten' else ''}{c.name}")
            for v, (expected, _, _) in VERSIONS.items() for c in cases(root) if (c / expected).is_file()]


@pytest.mark.parametrize(("case", "version"), _params(BUNDLED))
def test_bundled_case(case: Path, version: str) -> None:
    _check(case, version)


def _decided(path: Path) -> dict[str, Any]:
    return {k: v for k, v in json.loads(path.read_text()).items() if k not in ("kueueVersion", "cycles")}


def test_bundled_cases_cover_every_theme_and_both_differences() -> None:
    names = {c.name.rsplit("-", 1)[0] for c in cases(BUNDLED) if c.parent.name != "handwritten"}
    assert names == {"cohort", "fits", "flavors", "quota", "preemption", "queues", "multi-podset", "partial", "order",
                     "pod-groups", "fair-sharing", "admission-checks", "tas"}
    differing = {c.name for c in cases(BUNDLED)
                 if _decided(c / "expected-kueue.json") != _decided(c / "expected-kueue-v0.19.2.json")}
    assert differing == {"order-0018", "queues-0051", "admission-checks-0153"}   # (0153: every short resource)


@pytest.mark.skipif(not SHARED.is_dir(), reason=f"{SHARED} is not present (a clone outside the project's "
                                                 "workspace): only the bundled cases ran")
@pytest.mark.parametrize(("case", "version"), _params(SHARED) or [(None, None)])
def test_shared_case(case: Path, version: str) -> None:
    _check(case, version)


def test_the_local_comparison_sees_a_wrong_result() -> None:
    case = BUNDLED / "handwritten" / "05-preemption-within-cq"
    want = json.loads((case / "expected-kueue.json").read_text())
    got = json.loads(json.dumps(want))
    assert differences(want, got, "v0.17.8") == []
    got["workloads"][0]["conditions"][0]["message"] += "!"
    assert differences(want, got, "v0.17.8") == ["workloads"]
    got = json.loads(json.dumps(want))
    got["events"] = got["events"] + got["events"][:1]       # the same event twice: one event
    got["cycles"] = 9                                        # not compared
    assert differences(want, got, "v0.17.8") == []
    assert differences(want, got, "v0.19.2") == ["kueueVersion"]
