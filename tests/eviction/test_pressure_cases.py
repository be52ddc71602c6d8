"""`kexplain evict pressure` against the kubelet's own answers, for every minor 1.33-1.36.

The bundled cases (tests/eviction/cases/pressure-*, copied unchanged from ../shared/eviction) always
run; every pressure case of ../shared/eviction runs too when that folder is there. Documents are
compared by the comparison tool's own `compare` (../shared/tools/eviction.py) when it is there,
else by `differences` below, which reads the README's rules the same way.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import ROOT, TESTS
from tests.support.shared_tools import comparison_tool, expected_file, family_cases, run_json

BUNDLED = TESTS / "eviction" / "cases"
SHARED = ROOT.parent / "shared" / "eviction"
MINORS = ("1.33", "1.34", "1.35", "1.36")
KEYS = ("kubernetesVersion", "filesystems", "thresholds", "observations", "thresholdsMet", "nodeConditions",
        "reclaimResource", "nodeLevelReclaim", "ranking", "skippedCritical", "evicted", "events", "admission",
        "earlier.nodeConditions", "earlier.thresholdsMet", "earlier.evicted")
EMPTY = {"filesystems": {}, "observations": {}, "reclaimResource": ""}


COMPARE_TOOL = comparison_tool("eviction")


def cases(root: Path) -> list[Path]:
    return family_cases(root, "pressure")



def argv_of(case: Path, minor: str) -> list[str]:
    params = json.loads((case / "params.yaml").read_text())
    argv = ["evict", "pressure", params["node"], "--nodes", str(case / "cluster.yaml"),
            "--stats", str(case / "stats.json"), "--kubelet-config", str(case / "kubelet-config.yaml"),
            "--filesystems", params.get("filesystems") or "shared"]
    if params.get("earlierAt"):
        argv += ["--earlier-stats", str(case / "stats-earlier.json"), "--earlier-at", params["earlierAt"]]
    if (case / "admit.yaml").exists():
        argv += ["--admit", str(case / "admit.yaml")]
    return argv + ["--now", params["now"], "--kubernetes-version", minor, "-o", "json"]


def run_case(case: Path, minor: str) -> tuple[int, dict[str, Any], str]:
    return run_json(argv_of(case, minor))


# -- the README's comparison, for a clone without ../shared ------------------------------------
def _get(doc: dict[str, Any], key: str) -> Any:
    cur: Any = doc
    for part in key.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return None
        cur = cur[part]
    return cur


def _norm(key: str, value: Any) -> Any:
    last = key.split(".")[-1]
    if value is None:
        return EMPTY.get(last, [])
    if last == "events":
        return sorted({json.dumps(x, sort_keys=True) for x in value})
    return value


def differences(want: dict[str, Any], got: dict[str, Any], minor: str) -> list[str]:
    bad = []
    for key in KEYS:
        if key == "kubernetesVersion":
            if not (isinstance(got.get(key), str) and minor in got[key]):
                bad.append(key)
            continue
        if "." in key and not isinstance(want.get(key.split(".")[0]), dict) and got.get(key.split(".")[0]) is None:
            continue
        if _norm(key, _get(want, key)) != _norm(key, _get(got, key)):
            bad.append(key)
    return bad


def _check(case: Path, minor: str) -> None:
    expected = expected_file(case, minor)
    if not expected.is_file():
        pytest.skip(f"{case.name} has no {expected.name}")
    code, got, err = run_case(case, minor)
    assert code in (0, 1), f"{case.name}: exit {code}: {err}"
    want = json.loads(expected.read_text())
    assert code == (1 if want.get("evicted") or (want.get("earlier") or {}).get("evicted") else 0)
    if COMPARE_TOOL is not None:
        bad = COMPARE_TOOL.compare("pressure", want, got, version=minor)
        assert not bad, f"{case.name} ({minor}): {bad}"
    assert not differences(want, got, minor), f"{case.name} ({minor}): {differences(want, got, minor)}"


def _params(root: Path) -> list[Any]:
    return [pytest.param(c, m, id=f"{m}-{c.name}") for m in MINORS for c in cases(root)]


@pytest.mark.parametrize(("case", "minor"), _params(BUNDLED))
def test_bundled_case(case: Path, minor: str) -> None:
    _check(case, minor)


@pytest.mark.skipif(not SHARED.is_dir(), reason=f"{SHARED} is not present: only the bundled cases ran")
@pytest.mark.parametrize(("case", "minor"), _params(SHARED) or [(None, None)])
def test_shared_case(case: Path, minor: str) -> None:
    _check(case, minor)


def test_bundled_cases_cover_each_kind_of_pass() -> None:
    docs = [json.loads((c / "expected.json").read_text()) for c in cases(BUNDLED)]
    assert {d.get("reclaimResource") for d in docs} >= {"memory", "ephemeral-storage", "pids", None}
    assert any(d.get("earlier") for d in docs)
    assert any(d.get("skippedCritical") for d in docs)
    assert any(not (e.get("conditions")) for d in docs for e in d.get("evicted") or ())     # local storage
    assert {json.dumps(d["filesystems"], sort_keys=True) for d in docs} == {
        json.dumps({"dedicatedImageFs": a, "splitContainerFs": b}, sort_keys=True)
        for a, b in ((False, False), (True, False), (True, True))}


def test_the_local_comparison_sees_a_wrong_result() -> None:
    case = BUNDLED / "pressure-0002"
    want = json.loads((case / "expected.json").read_text())
    got = json.loads(json.dumps(want))
    assert differences(want, got, "1.36") == []
    got["ranking"] = list(reversed(got["ranking"]))
    got["log"] = []                                            # not compared
    assert differences(want, got, "1.36") == ["ranking"]
    got = json.loads(json.dumps(want))
    got["events"] = got["events"] + got["events"][:1]          # the same event twice: one event
    assert differences(want, got, "1.36") == []
    assert differences(want, got, "1.35") == ["kubernetesVersion"]
