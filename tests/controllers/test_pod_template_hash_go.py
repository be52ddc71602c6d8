"""pod-template-hash checked against the real Deployment controller: the hashes in
tests/controllers/pod_template_hash/hashes.json came from Kubernetes v1.36.2's `controller.ComputeHash`
on each Deployment's defaulted template (the README there says how)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kexplain.features import KubeVersion
from kexplain.controllers.workloads import controller_labels

HERE = Path(__file__).parent / "pod_template_hash"
HASHES: dict[str, str] = json.loads((HERE / "hashes.json").read_text())


@pytest.mark.parametrize("name", sorted(HASHES))
def test_the_deployment_controllers_hash(name: str) -> None:
    deployment = json.loads((HERE / name).read_text())
    labels = controller_labels(deployment, deployment["spec"]["template"], KubeVersion("1.36"))
    assert labels["pod-template-hash"] == HASHES[name]


def test_every_template_has_a_hash() -> None:
    assert sorted(p.name for p in HERE.glob("*.json") if p.name != "hashes.json") == sorted(HASHES)
