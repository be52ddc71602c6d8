"""ValidatePodDisruptionBudget (v1.36, unchanged since 1.33): a budget the API server refuses is
refused with its words, so no pass reads a selector it could not (Karpenter's pdb.NewLimits would
fail every method on it; kexplain said nothing and dropped it)."""
from __future__ import annotations

import pytest
import yaml

from kexplain.admission.validate_pdb import validate_pdb
from kexplain.apimachinery.fielderrors import invalid_message
from kexplain.cli.app import main
from tests.karpenter.test_disruption import NODEPOOLS, node, pod
from tests.support.cli_helpers import TestEnvironment


def _said(spec: dict, name: str = "web") -> str:
    errs = validate_pdb({"metadata": {"name": name, "namespace": "default"}, "spec": spec})
    return invalid_message("PodDisruptionBudget.policy", name, errs) if errs else ""


@pytest.mark.parametrize(("spec", "said"), [
    ({"minAvailable": 1, "maxUnavailable": "50%",
      "selector": {"matchLabels": {"b": "1", "a": "2"}, "matchExpressions": [{"key": "x", "operator": "Exists"}]}},
     'spec: Invalid value: {"MinAvailable":1,"Selector":{"matchLabels":{"a":"2","b":"1"},"matchExpressions":'
     '[{"key":"x","operator":"Exists"}]},"MaxUnavailable":"50%","UnhealthyPodEvictionPolicy":null}: '
     "minAvailable and maxUnavailable cannot be both set"),
    ({"minAvailable": "150%"}, 'spec.minAvailable: Invalid value: "150%": must not be greater than 100%'),
    ({"maxUnavailable": "5"}, "spec.maxUnavailable: Invalid value: \"5\": a valid percent string must be a numeric "
     "string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"),
    ({"maxUnavailable": -1}, "spec.maxUnavailable: Invalid value: -1: must be greater than or equal to 0"),
    ({"maxUnavailable": 1, "unhealthyPodEvictionPolicy": "Never"},
     'spec.unhealthyPodEvictionPolicy: Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget"'),
    ({"maxUnavailable": 1, "selector": {"matchExpressions": [{"key": "app", "operator": "In"}]}},
     "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"),
])
def test_the_api_servers_words(spec, said):
    assert _said(spec) == f'PodDisruptionBudget.policy "web" is invalid: {said}'


def test_a_valid_budget_and_the_name_checked_after_the_spec():
    assert _said({"maxUnavailable": "100%", "selector": {}}) == ""
    assert _said({"minAvailable": 0, "unhealthyPodEvictionPolicy": "AlwaysAllow"}) == ""
    assert _said({"maxUnavailable": 1}, name="a/b") == \
        "PodDisruptionBudget.policy \"a/b\" is invalid: metadata.name: Invalid value: \"a/b\": may not contain '/'"
    assert "metadata.name" not in _said({"maxUnavailable": -1}, name="a/b")      # (BeforeCreate: the spec's first)


def test_karpenters_pass_refuses_the_budget_in_its_words(tmp_path):
    bad = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "default"},
           "spec": {"minAvailable": 1, "selector": {"matchExpressions": [{"key": "app", "operator": "In"}]}}}
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all([*node(1), pod("web-0", 1), bad]))
    (tmp_path / "nodepools.yaml").write_text(NODEPOOLS.replace("BUDGET", "10").replace("TYPES", "m5.large"))
    env = TestEnvironment()
    code = main(["karpenter", "--disruption", "--nodes", str(tmp_path / "cluster.yaml"), "--nodes",
                 str(tmp_path / "nodepools.yaml"), "--now", "2026-01-01T12:00:00Z", "-o", "json"], env)
    assert code == 2
    assert ('PodDisruptionBudget default/web: PodDisruptionBudget.policy "web" is invalid: spec.selector.'
            "matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'") in env.err
