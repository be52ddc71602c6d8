"""`kexplain karpenter --disruption --node NAME` on a live cluster: the stand-in API server of
tests/cli/test_live_karpenter_disruption.py serves fixtures/karpenter-disruption's objects; the
node's answer (checks, verified fixes, times) is the one the same objects give as --nodes files,
its exit code too, and an unknown name is refused with the closest names."""
from __future__ import annotations

import json

from tests.cli.test_live_karpenter_disruption import FILES, NOW, api  # noqa: F401 - the fixture
from tests.support.live_server import run_cli

BLOCKED = "ip-10-0-2-17.ec2.internal"       # a PodDisruptionBudget allows none of its pods' evictions


def test_live_node_answer_is_the_files_answer(capsys, api):
    code, out, err = run_cli(capsys, "karpenter", "--disruption", *NOW, "-o", "json", "--node", BLOCKED,
                             "--kubeconfig", api.kubeconfig)
    assert code == 1, err
    live = json.loads(out)["node"]
    code_files, out_files, _ = run_cli(capsys, "karpenter", "--disruption", *NOW, "-o", "json", "--node", BLOCKED,
                                       *[a for f in FILES for a in ("--nodes", f)])
    assert (code, live) == (code_files, json.loads(out_files)["node"])
    assert live["checks"][0]["message"] == "Pdb prevents pod evictions (PodDisruptionBudget=[default/web])"
    assert [f["kind"] for f in live["fixes"]] == ["pdb"]


def test_live_node_text_and_unknown_name(capsys, api):
    code, out, err = run_cli(capsys, "karpenter", "--disruption", *NOW, "--node", BLOCKED,
                             "--kubeconfig", api.kubeconfig)
    assert code == 1, err
    assert f"Node {BLOCKED}: Karpenter keeps it" in out
    assert "What Karpenter said of it (its events in the cluster):" in out
    assert "NodeClaim/general-b4m9q DisruptionBlocked: Pdb prevents pod evictions" in out
    code, out, err = run_cli(capsys, "karpenter", "--disruption", *NOW, "--node", "ip-10-0-2-17",
                             "--kubeconfig", api.kubeconfig)
    assert code == 2 and "--node ip-10-0-2-17: no node of that name" in err
