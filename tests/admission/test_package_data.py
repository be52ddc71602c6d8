"""The admission and load packages' data files ship with the package: pyproject.toml declares each one (a
non-editable `pip install .` copies only what package-data names) and importlib.resources finds it."""
from __future__ import annotations

import fnmatch
import tomllib
from importlib import resources
from pathlib import Path

import pytest

from kexplain.admission import decode
from kexplain.load import live

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("kexplain.admission", "kexplain.load")


def _declared() -> dict[str, list[str]]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["tool"]["setuptools"]["package-data"]


@pytest.mark.parametrize("package", PACKAGES)
def test_every_data_file_is_declared_and_found(package: str) -> None:
    folder = resources.files(package).joinpath("data")
    names = sorted(p.name for p in folder.iterdir() if p.is_file())
    assert names
    patterns = _declared().get(package, [])
    for name in names:
        assert any(fnmatch.fnmatch(f"data/{name}", pattern) for pattern in patterns), name
        assert folder.joinpath(name).read_bytes()


def test_decode_schemas_resolve_shared_definitions() -> None:
    pod = decode.SCHEMAS["Pod"]
    assert decode.SCHEMAS["ReplicaSet"] is decode.SCHEMAS["StatefulSet"]
    assert pod["metadata"] is decode.SCHEMAS["Node"]["metadata"]
    assert pod["spec"]["nodeSelector"] == ("map", decode.STR)
    assert pod["spec"]["containers"][0]["resources"]["requests"] == ("map", decode.QTY)
    assert set(decode.DRA_KINDS) <= set(decode.SCHEMAS)


def test_live_resources_keep_their_order_and_flags() -> None:
    assert [r.kind for r in live.RESOURCES[:2]] == ["Namespace", "PriorityClass"]
    assert live.PODS.namespaced and not live.PODS.optional and live.PODS.api_version == "v1"
    dra = next(r for r in live.RESOURCES if r.kind == "ResourceClaim")
    assert dra.fallbacks == ("v1beta2", "v1beta1") and dra.optional and dra.namespaced
    assert live.DAEMONSETS.kind == "DaemonSet" and live.EVENTS.kind == "Event"
    # (ProvisioningRequests are read with Kueue's kinds: its provisioning admission check creates them;
    # Kubeflow Trainer's training runtimes too: a TrainJob's pod sets are of them)
    assert {r.group for r in live.KUEUE} == {"kueue.x-k8s.io", "autoscaling.x-k8s.io", "trainer.kubeflow.org"}
    assert len(live.POLICIES) == 3
