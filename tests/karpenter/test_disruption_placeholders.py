"""The hostname placeholders of the NodeClaims a disruption pass's simulations create: Go numbers
them with one package-level counter (scheduling.nodeID, taken by every NewNodeClaim), so a
consolidation message that names one counts the NodeClaims of every simulation before it in the
pass, not those of its own simulation alone (Karpenter v1.13.0)."""
from __future__ import annotations

from kexplain.karpenter.provisioning.scheduling.scheduler import Placeholders
from tests.karpenter.test_disruption import document, node, pod

N1 = "ip-10-0-1-1.ec2.internal"
COSTLY = {"controller.kubernetes.io/pod-deletion-cost": "1000000000"}


def test_placeholders_count_on_from_one():
    placeholders = Placeholders()
    assert [placeholders.next() for _ in range(2)] == ["hostname-placeholder-0001", "hostname-placeholder-0002"]


def test_a_pinned_pods_message_counts_the_nodeclaims_of_the_earlier_simulations(tmp_path):
    pinned = pod("pinned", 1, cpu="100m")
    pinned["spec"]["nodeSelector"] = {"kubernetes.io/hostname": N1}
    doc = document(tmp_path, [*node(1), *node(2), pinned, pod("web-1", 2, cpu="1", annotations=COSTLY)],
                   types="m5.large")
    # MultiNodeConsolidation's one simulation (both nodes) makes NodeClaims 1 (web-1, the larger pod
    # first) and 2 (tried for the pinned pod); SingleNodeConsolidation's first, of the cheaper node,
    # makes the third, which the pinned pod's error names.
    single = doc["methods"][4]
    assert single["commands"][0]["text"] == "delete: [ip-10-0-2-1.ec2.internal]"
    refusal = next(e["message"] for e in doc["events"]
                   if e["reason"] == "Unconsolidatable" and e["object"] == f"Node {N1}")
    assert refusal == ("Not all pods would schedule, default/pinned => incompatible requirements, key "
                       f"kubernetes.io/hostname, kubernetes.io/hostname In [{N1}] not in "
                       "kubernetes.io/hostname In [hostname-placeholder-0003] ")


def test_a_refusal_remembered_still_takes_its_number(tmp_path):
    """Two pods of one shape that no NodePool can take: Go makes a NodeClaim for each (1 and 2), so
    the pinned pod tried after them names the third."""
    pods = [pod(name, 1, cpu="1") for name in ("x-0", "x-1")]
    for p in pods:
        p["spec"]["nodeSelector"] = {"example.com/rack": "r1"}
    pinned = pod("pinned", 1, cpu="100m")
    pinned["spec"]["nodeSelector"] = {"kubernetes.io/hostname": N1}
    doc = document(tmp_path, [*node(1), *pods, pinned], types="m5.large")
    refusal = next(e["message"] for e in doc["events"]
                   if e["reason"] == "Unconsolidatable" and e["object"] == f"Node {N1}")
    assert "In [hostname-placeholder-0003]" in refusal
    assert 'default/x-1 => incompatible requirements, label "example.com/rack" does not have known values' \
        in refusal
