"""StaticDrift (Karpenter v1.13.0's staticdrift.go) over its NodePoolState counts, the scenarios of
its unit tests staticdrift_test.go: the scale-down check (`active > replicas`) and the node limit's
reservation count every NodeClaim of the NodePool Karpenter's state counts — deleting ones (for the
limit) and not launched ones (no providerID: no state node, yet Active) too."""
from __future__ import annotations

import json
from pathlib import Path

import yaml

from kexplain.cli.app import main
from tests.karpenter.test_disruption import NODEPOOLS, node
from tests.support.cli_helpers import TestEnvironment

# the disruption tests' NodePool made static: its replicas and node limit, one type, no budget limit
STATIC_POOL = NODEPOOLS.replace("spec:\n  template:", 'spec:\n  replicas: REPLICAS\n  limits: {nodes: "LIMIT"}\n  template:', 1) \
    .replace("TYPES", "m5.large").replace("BUDGET", "100%")


def drifted(i: int) -> list[dict]:
    objs = node(i)
    objs[1]["status"]["conditions"].append({"type": "Drifted", "status": "True", "reason": "Drifted",
                                            "lastTransitionTime": "2026-01-01T11:00:00Z"})
    return objs


def static_drift(tmp_path: Path, objects: list[dict], replicas: int, limit: int | str) -> dict:
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all(objects))
    (tmp_path / "nodepools.yaml").write_text(STATIC_POOL.replace("REPLICAS", str(replicas))
                                             .replace("LIMIT", str(limit)))
    env = TestEnvironment()
    code = main(["karpenter", "--disruption", "--nodes", str(tmp_path / "cluster.yaml"), "--nodes",
                 str(tmp_path / "nodepools.yaml"), "--now", "2026-01-01T12:00:00Z", "-o", "json"], env)
    assert code == 0, env.out
    doc = json.loads(env.out)
    return next(m for m in doc["methods"] if m["method"] == "StaticDrift")


def test_the_limit_leaves_room_for_as_many_replacements_as_it_allows(tmp_path):
    # staticdrift_test.go "should drift partially when we can acquire some limits": 3 nodes, limit 4
    method = static_drift(tmp_path, [*drifted(1), *drifted(2), *drifted(3)], replicas=3, limit=4)
    assert [c["text"] for c in method["commands"]] == ["replace: [ip-10-0-1-1.ec2.internal] -> [1 replacement]"]


def test_a_deleting_nodeclaim_still_counts_against_the_node_limit(tmp_path):
    # ReserveNodeCount: limit 4 - (2 active + 1 deleting) leaves one replacement, not two
    deleting = drifted(1)
    deleting[1]["metadata"].update(deletionTimestamp="2026-01-01T11:59:00Z", finalizers=["karpenter.sh/termination"])
    method = static_drift(tmp_path, [*deleting, *drifted(2), *drifted(3)], replicas=3, limit=4)
    assert method["candidates"] == ["ip-10-0-2-1.ec2.internal", "ip-10-0-3-1.ec2.internal"]
    assert [c["text"] for c in method["commands"]] == ["replace: [ip-10-0-2-1.ec2.internal] -> [1 replacement]"]


def test_a_nodeclaim_not_launched_yet_counts_as_a_running_replica(tmp_path):
    launching = drifted(9)[1]
    launching["metadata"]["name"] = "default-launching"
    del launching["status"]["providerID"], launching["status"]["nodeName"]
    # 2 nodes and a launching NodeClaim against 2 replicas: overscaled, no drift until scale-down
    assert static_drift(tmp_path, [*drifted(1), *drifted(2), launching], replicas=2, limit=10)["outcome"] == "NoCommand"
    # 3 replicas: within them, but the limit of 3 is taken by the three NodeClaims
    assert static_drift(tmp_path, [*drifted(1), *drifted(2), launching], replicas=3, limit=3)["outcome"] == "NoCommand"
    assert len(static_drift(tmp_path, [*drifted(1), *drifted(2), launching], replicas=3, limit=4)["commands"]) == 1


def test_why_says_what_leaves_a_drifted_static_node_out(tmp_path):
    objects = [*drifted(1), *drifted(2), *drifted(3)]
    for claim in objects[1::2]:
        claim["status"]["conditions"] = [c for c in claim["status"]["conditions"] if c["type"] != "Consolidatable"]
    static_drift(tmp_path, objects, replicas=3, limit=4)
    env = TestEnvironment()
    code = main(["karpenter", "--disruption", "--nodes", str(tmp_path / "cluster.yaml"), "--nodes",
                 str(tmp_path / "nodepools.yaml"), "--now", "2026-01-01T12:00:00Z", "--node", "ip-10-0-2-1.ec2.internal",
                 "-o", "json"], env)
    assert code == 1, env.out           # the node stays
    why = json.loads(env.out)["node"]
    checks = [c for c in why["checks"] if c["step"] == "StaticDrift"]
    assert [(c["check"], c["message"]) for c in checks] == [(
        "node-limit", "its node limit 4 leaves room for 1 replacement(s) beside its 3 NodeClaim(s) (0 deleting): "
        "the replacements go to 1 of its 3 candidates")]
    # the fix: room for the replacements up to this node's (the second of its NodePool's candidates)
    assert [(f["kind"], f["change"][0]["value"], f["verified"]["method"]) for f in why["fixes"]] == [
        ("nodepool-node-limit", "5", "StaticDrift")]
    # a static NodePool's node is never consolidated: no Consolidatable time to wait for
    assert not [w for w in why["when"] if w["what"] == "consolidatable"]


def test_text_says_a_static_replacement_comes_from_the_template(tmp_path):
    static_drift(tmp_path, [*drifted(1)], replicas=1, limit=2)
    env = TestEnvironment()
    main(["karpenter", "--disruption", "--nodes", str(tmp_path / "cluster.yaml"), "--nodes",
          str(tmp_path / "nodepools.yaml"), "--now", "2026-01-01T12:00:00Z"], env)
    text = " ".join(env.out.split())
    assert "new NodeClaim of default (on-demand): the NodePool's template (its type chosen at launch)" in text
    assert "pods: " not in text.split("new NodeClaim of default")[1].split("Drift (Drifted)")[0]


def test_a_fractional_node_limit_rounds_up_as_quantity_value_does(tmp_path):
    # limits.nodes "3500m": Value() is 4, room for one replacement beside the 3 NodeClaims
    method = static_drift(tmp_path, [*drifted(1), *drifted(2), *drifted(3)], replicas=3, limit="3500m")
    assert len(method["commands"]) == 1
