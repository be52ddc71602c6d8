"""An object that gives only metadata.generateName: `kubectl apply` refuses it (`error: from
sample-job-: cannot use generate name with apply`, kubectl's applyOneObject), as Argo CD and Flux
do; `kubectl create` creates it. lint warns (rule generate-name) at its generateName line, and
checks it as created, named as the API server names it."""
from __future__ import annotations

import pytest

from kexplain.lint.linter import RULES, LintOptions, Severity, lint
from kexplain.load.manifests import generate_name_refusal
from tests.support.lint_helpers import deployment, pod, pool, write


def job(**meta: str) -> dict:
    spec = deployment("j")["spec"]["template"]
    spec["spec"]["restartPolicy"] = "Never"
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": dict(meta), "spec": {"template": spec}}


def generate(obj: dict, prefix: str) -> dict:
    obj["metadata"].pop("name", None)
    obj["metadata"]["generateName"] = prefix
    return obj


@pytest.mark.parametrize("obj, warned", [
    (job(generateName="sample-job-"), "from sample-job-: cannot use generate name with apply"),
    (generate(pod("x"), "runner-"), "from runner-: cannot use generate name with apply"),
    (generate(deployment("web"), "web-"), "from web-: cannot use generate name with apply"),
    (job(name="named", generateName="sample-job-"), None),       # a name: apply patches it by that name
    (job(name="named"), None),
])
def test_an_object_with_only_a_generate_name_is_a_warning(tmp_path, obj, warned):
    report = lint(LintOptions((write(tmp_path, "objs.yaml", obj),), (pool(tmp_path),)))
    found = [f for f in report.findings if f.rule == "generate-name"]
    if warned is None:
        assert found == []
        return
    (finding,) = found
    assert finding.level == Severity.WARNING and RULES["generate-name"].severity == Severity.WARNING
    assert finding.message.startswith(warned + " (kubectl apply refuses it; `kubectl create` creates it, checked "
                                               f"here as {obj['metadata']['generateName']}")
    assert (finding.location.line, finding.field) == (4, "metadata.generateName")
    # checked as created: scheduled against the pool like any other object
    assert [f.rule for f in report.findings if f.rule != "generate-name"] == ["fits"]


def test_each_of_several_is_warned_with_its_own_generated_name(tmp_path):
    path = write(tmp_path, "jobs.yaml", job(generateName="sample-job-"), job(generateName="sample-job-"))
    report = lint(LintOptions((path,), (pool(tmp_path),)))
    warned = [f for f in report.findings if f.rule == "generate-name"]
    assert [f.location.doc for f in warned] == [1, 2]
    assert len({f.obj.name for f in warned}) == 2


def test_the_words_are_kubectls():
    assert generate_name_refusal("testing-") == "from testing-: cannot use generate name with apply"
