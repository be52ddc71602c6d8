"""`--node-groups FILE` is read once a run: Kueue's ProvisioningRequest provisioner (CA) and CA's
own pass over the files share the groups `app.explain.NodeGroupsFile` read."""
from __future__ import annotations

import json

import pytest

from kexplain.app import cluster_autoscaler
from kexplain.autoscaler.cloudprovider import static
from tests.support.cli_helpers import run_cli
from tests.support.paths import FIXTURES

PROVISIONING = FIXTURES / "kueue" / "provisioning"


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every path `static.read_node_groups` reads, in order."""
    seen: list[str] = []
    read = static.read_node_groups

    def counted(path: str, *args, **kwargs):
        seen.append(path)
        return read(path, *args, **kwargs)
    monkeypatch.setattr(static, "read_node_groups", counted)
    return seen


def test_the_kueue_to_ca_chain_reads_the_node_groups_file_once(reads: list[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[object] = []
    request = cluster_autoscaler.groups_request
    monkeypatch.setattr(cluster_autoscaler, "groups_request", lambda found, *a, **k: asked.append(found)
                        or request(found, *a, **k))
    groups = str(PROVISIONING / "nodegroups.yaml")
    code, out, err = run_cli(str(PROVISIONING / "check-short.yaml"), "--nodes", str(PROVISIONING / "cluster.yaml"),
                             "--node-groups", groups, "--autoscaler-config",
                             str(PROVISIONING / "autoscaler-config.yaml"), "-o", "json")
    placement = json.loads(out)["placements"][0]
    # both readers asked for the groups: Kueue's provisioner (CA answered its ProvisioningRequest) and
    # CA's pass over the files; the one read handed to each
    assert placement["kueue"]["provisioningRequests"][0]["provisioner"]["processed"] is True, err
    assert len(asked) == 2 and asked[0] is asked[1]
    assert reads == [groups]


def test_a_bad_node_groups_file_is_refused_once_with_its_error(reads: list[str], tmp_path) -> None:
    bad = tmp_path / "groups.yaml"
    bad.write_text("nodeGroups: 3\n")
    code, _, err = run_cli(str(PROVISIONING / "check-short.yaml"), "--nodes", str(PROVISIONING / "cluster.yaml"),
                           "--node-groups", str(bad))
    assert code == 2 and str(bad) in err and "Traceback" not in err
    assert reads == [str(bad)]
