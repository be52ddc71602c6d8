"""`kexplain evict pressure` on bad input: one line naming the file, the object and the field, in
the kubelet's own words, exit 2 (issue 71, item 9)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import TESTS

CASE = TESTS / "eviction" / "cases" / "pressure-0002"
NODE = "node-a"
CONFIG = {"kind": "KubeletConfiguration", "apiVersion": "kubelet.config.k8s.io/v1beta1"}


@pytest.fixture()
def case(tmp_path: Path) -> Path:
    for f in CASE.iterdir():
        shutil.copy(f, tmp_path / f.name)
    return tmp_path


def run(case: Path, *extra: str, config: str = "kubelet-config.yaml", stats: str = "stats.json",
        node: str = NODE) -> tuple[int, str]:
    env = TestEnvironment()
    argv = ["evict", "pressure", node, "--nodes", str(case / "cluster.yaml"), "--now", "2026-01-01T00:00:00Z",
            "-o", "json", *extra]
    if stats:
        argv += ["--stats", str(case / stats)]
    if config:
        argv += ["--kubelet-config", str(case / config)]
    return main(argv, env), env.err


@pytest.mark.parametrize(("fields", "said"), [
    ({"evictionHard": {"memory.available": "abc"}},
     "KubeletConfiguration evictionHard[memory.available]: quantities must match the regular expression"),
    ({"evictionHard": {"memory.avail": "1Gi"}},
     "KubeletConfiguration evictionHard[memory.avail]: unsupported eviction signal memory.avail"),
    ({"evictionSoft": {"memory.available": "1Gi"}},
     "evictionSoftGracePeriod[memory.available]: grace period must be specified for the soft eviction "
     "threshold memory.available"),
    ({"evictionSoft": {"memory.available": "1Gi"}, "evictionSoftGracePeriod": {"memory.available": "abc"}},
     'evictionSoftGracePeriod[memory.available]: time: invalid duration "abc"'),
    ({"evictionHard": {"nodefs.available": "150%"}},
     "eviction percentage threshold nodefs.available must be <= 100%: 150%"),
    ({"evictionHard": {"nodefs.available": "x%"}}, 'strconv.ParseFloat: parsing "x": invalid syntax'),
    ({"evictionHard": {"memory.available": "-1Gi"}}, "eviction threshold memory.available must be positive: -1Gi"),
    ({"evictionMinimumReclaim": {"memory.available": "-1Gi"}},
     "negative eviction minimum reclaim specified for memory.available"),
    ({"evictionHard": {"memory.available": 5}},
     "json: cannot unmarshal number into Go struct field KubeletConfiguration.evictionHard of type string"),
    ({"evictionPressureTransitionPeriod": "5x"}, 'evictionPressureTransitionPeriod: time: invalid duration "5x"'),
    ({"kind": "Pod", "apiVersion": "v1"}, 'no kind "Pod" is registered for version "v1"'),
])
def test_a_configuration_the_kubelet_refuses(case: Path, fields: dict, said: str) -> None:
    (case / "bad.yaml").write_text(json.dumps({**CONFIG, **fields}))
    code, err = run(case, config="bad.yaml")
    assert code == 2
    assert err.count("\n") == 1 and err.startswith(f"error: {case / 'bad.yaml'}: ")
    assert said in err


def test_a_summary_naming_a_pod_the_node_does_not_hold(case: Path) -> None:
    summary = json.loads((case / "stats.json").read_text())
    summary["pods"][1]["podRef"]["uid"] = "not-here"
    (case / "bad.json").write_text(json.dumps(summary))
    code, err = run(case, stats="bad.json")
    assert code == 2
    ref = summary["pods"][1]["podRef"]
    assert err == (f"error: {case / 'bad.json'}: Summary pods[1].podRef: pod {ref['namespace']}/{ref['name']} "
                   f"(uid not-here) is not bound to node {NODE} in the cluster\n")


def test_a_summary_with_a_counter_that_is_not_a_number(case: Path) -> None:
    summary = json.loads((case / "stats.json").read_text())
    summary["node"]["fs"]["availableBytes"] = "lots"
    (case / "bad.json").write_text(json.dumps(summary))
    code, err = run(case, stats="bad.json")
    assert (code, err) == (2, f"error: {case / 'bad.json'}: Summary node.fs.availableBytes: 'lots': not an "
                              "unsigned integer\n")


def test_an_unknown_node_and_a_missing_summary(case: Path) -> None:
    code, err = run(case, node="nosuch")
    assert code == 2 and "node 'nosuch' not found" in err
    code, err = run(case, stats="")
    assert code == 2 and "--stats FILE is required" in err


def test_no_configuration_is_the_kubelets_defaults(case: Path) -> None:
    env = TestEnvironment()
    code = main(["evict", "pressure", NODE, "--nodes", str(case / "cluster.yaml"), "--stats", str(case / "stats.json"),
                 "--now", "2026-01-01T00:00:00Z", "-o", "json"], env)
    doc = json.loads(env.out)
    assert code == 1 and doc["evictionHardDefaulted"]
    assert doc["evictionHard"] == {"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%",
                                   "imagefs.available": "15%", "imagefs.inodesFree": "5%"}
    assert doc["pressureTransitionPeriodSeconds"] == 300
