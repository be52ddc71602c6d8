"""A NodePool or EC2NodeClass the API server refuses (its CRD's OpenAPI schema: enums, patterns,
bounds; its CEL rules) is bad input, exit 2, in the API server's words, in every command that
reads them, as an unknown field is. `kexplain karpenter` still shows the pass over the objects as
written (as the recorded Karpenter took them); `kexplain POD` and lint refuse the input. An object
an API server stored already (a resourceVersion: a dump's, a live cluster's) passed its CRD of
then: a warning. On fixtures/karpenter."""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Callable

import pytest
import yaml

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES

CASE = FIXTURES / "karpenter"
DOCS = [d for d in yaml.safe_load_all((CASE / "nodepools.yaml").read_text()) if d]


def _general(doc: dict) -> dict:
    return doc["spec"]["template"]["spec"]


def _first_requirement(doc: dict) -> dict:
    return _general(doc)["requirements"][0]


# (which document, the change, the API server's words for it)
REFUSED: dict[str, tuple[int, Callable[[dict], Any], str]] = {
    "an operator outside the enum": (
        0, lambda d: _first_requirement(d).update(operator="Equals"),
        'NodePool.karpenter.sh "general" is invalid: [spec.template.spec.requirements[0].operator: Unsupported '
        'value: "Equals": supported values: "Gte", "Lte", "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", '
        "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; "
        "correct the existing errors to complete validation]"),
    "a restricted label (CEL)": (
        0, lambda d: _first_requirement(d).update(key="karpenter.sh/nodepool"),
        'NodePool.karpenter.sh "general" is invalid: spec.template.spec.requirements[0].key: Invalid value: '
        '"string": label "karpenter.sh/nodepool" is restricted'),
    "minValues above the values (CEL)": (
        0, lambda d: _first_requirement(d).update(minValues=5),
        'NodePool.karpenter.sh "general" is invalid: spec.template.spec.requirements: Invalid value: "array": '
        "requirements with 'minValues' must have at least that many values specified in the 'values' field"),
    "a weight above its maximum": (
        1, lambda d: d["spec"].update(weight=101),
        'NodePool.karpenter.sh "gpu" is invalid: spec.weight: Invalid value: 101: spec.weight in body should be '
        "less than or equal to 100"),
    "a taint effect outside the enum": (
        1, lambda d: _general(d)["taints"][0].update(effect="NoScheduel"),
        'NodePool.karpenter.sh "gpu" is invalid: [spec.template.spec.taints[0].effect: Unsupported value: '
        '"NoScheduel": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute", <nil>: Invalid value: '
        "null: some validation rules were not checked because the object was invalid; correct the existing "
        "errors to complete validation]"),
    "an EC2NodeClass alias without its version (CEL)": (
        2, lambda d: d["spec"].update(amiSelectorTerms=[{"alias": "al2023"}]),
        'EC2NodeClass.karpenter.k8s.aws "default" is invalid: spec.amiSelectorTerms[0].alias: Invalid value: "string": '
        "'alias' is improperly formatted, must match the format 'family@version'"),
}


def write(tmp_path: Path, at: int, change: Callable[[dict], Any], stored: bool = False) -> Path:
    docs = copy.deepcopy(DOCS)
    change(docs[at])
    if stored:
        docs[at]["metadata"]["resourceVersion"] = "4711"
    path = tmp_path / "nodepools.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    return path


def run(*argv: str) -> tuple[int, str, str]:
    env = TestEnvironment()
    code = main(list(argv), env)
    return code, env.out, env.err


@pytest.mark.parametrize("name", list(REFUSED))
def test_kexplain_karpenter_refuses_it_and_shows_the_pass_as_written(tmp_path: Path, name: str) -> None:
    at, change, words = REFUSED[name]
    pools = write(tmp_path, at, change)
    code, out, err = run("karpenter", str(CASE / "pod.yaml"), "--nodes", str(CASE / "cluster.yaml"),
                         "--nodes", str(pools), "-o", "json")
    assert code == 2
    assert f"error: {pools}: document {at + 1}: " in err and err.rstrip().endswith(words)
    assert json.loads(out)["pods"][0]["pod"] == "default/batch-job"


@pytest.mark.parametrize("command", [[], ["lint"]])
@pytest.mark.parametrize("name", ["an operator outside the enum", "an EC2NodeClass alias without its version (CEL)"])
def test_kexplain_pod_and_lint_refuse_it(tmp_path: Path, name: str, command: list[str]) -> None:
    at, change, words = REFUSED[name]
    pools = write(tmp_path, at, change)
    code, _, err = run(*command, str(CASE / "pod.yaml"), "--nodes", str(CASE / "cluster.yaml"), "--nodes", str(pools))
    assert code == 2
    assert words in err


def test_one_an_api_server_stored_is_a_warning(tmp_path: Path) -> None:
    at, change, words = REFUSED["a weight above its maximum"]
    pools = write(tmp_path, at, change, stored=True)
    code, _, err = run("karpenter", str(CASE / "pod.yaml"), "--nodes", str(CASE / "cluster.yaml"),
                       "--nodes", str(pools), "-o", "json")
    assert code == 1
    assert "error:" not in err and "the API server would refuse it" in err
