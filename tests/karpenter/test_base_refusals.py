"""A node no pod was added to refuses pod requirements its labels are incompatible with in every
scheduler over its `NodeBase` (`NodeBase.refuses`): a pass run again over the same state nodes (the
suggestions' reruns, the disruption simulations) does not ask such a node again, and every pod's
verdict stays that of a scan that asks each node."""
from __future__ import annotations

from kexplain.karpenter.provisioning.scheduling import existingnode
from tests.suggest.test_karpenter import GENERAL, NODE_CLASS, WORLD, pod, write
from tests.karpenter.test_topology_parking import asked_names
from tests.suggest.test_karpenter_rerun import node

INSTANCE_TYPE = "node.kubernetes.io/instance-type"
NODES = 5


def _inputs(tmp_path):
    from kexplain.features import KubeVersion
    from kexplain.karpenter.inputs import load_pass

    nodes = [node(f"node-a{i}", "us-west-2a") for i in range(NODES)]       # m5.xlarge each
    big = [pod(f"big-{i}", "1", "1Gi", node_selector={INSTANCE_TYPE: "m5.2xlarge"}) for i in range(2)]
    small = [pod("small-0", "500m", "512Mi")]
    cluster = write(tmp_path, "cluster.yaml", [*nodes, GENERAL, NODE_CLASS])
    return load_pass(write(tmp_path, "pending.yaml", [*big, *small]), (cluster,), None, KubeVersion("1.35"),
                     max_bytes=1 << 22, max_objects=10_000)


def _placed(done) -> dict[str, tuple[str, str]]:
    return {k: (p.result, p.node) for k, p in done.placements.items()}


def test_a_rerun_does_not_ask_a_node_whose_labels_refused_the_requirements(tmp_path, monkeypatch):
    from kexplain.suggest.karpenter_pass import run

    asked = asked_names(monkeypatch)
    inputs = _inputs(tmp_path)
    first = run(inputs, WORLD)
    # big-0 asks each node, then node-a0 again once small-0 landed there (a pod added: a node changed);
    # big-1, of the same requirements, none (parked for the scheduler)
    assert asked.count("big-0") == NODES + 1 and asked.count("big-1") == 0
    asked.clear()
    again = run(inputs, WORLD, first)       # over the first pass's bases: only the changed node-a0 asked
    assert asked.count("big-0") == 1 and asked.count("big-1") == 0
    assert _placed(again) == _placed(first)
    assert _placed(first)["default/small-0"] == ("ExistingNode", "node-a0")

    asked.clear()
    monkeypatch.setattr(existingnode.NodeBase, "refuses", lambda self, key: None)
    every = run(inputs, WORLD, first)       # each node asked again
    assert asked.count("big-0") == NODES + 1
    assert _placed(every) == _placed(first)


def test_a_rerun_words_no_failed_scheduling_event(tmp_path, monkeypatch):
    """A pass run again for its placements (`karpenter_pass.run` with a base) words no error of a pod
    it did not place (`schedule_pass(worded=False)`): nothing prints its events."""
    from kexplain.karpenter.provisioning import provisioner
    from kexplain.suggest.karpenter_pass import run

    worded: list[str] = []
    real = provisioner.ev.pod_failed_to_schedule_event
    monkeypatch.setattr(provisioner.ev, "pod_failed_to_schedule_event",
                        lambda key, err: worded.append(key) or real(key, err))
    inputs = _inputs(tmp_path)
    first = run(inputs, WORLD)
    assert "default/big-0" in worded and any(e.reason == "FailedScheduling" for e in first.result.events)
    worded.clear()
    again = run(inputs, WORLD, first)
    assert worded == [] and not any(e.reason == "FailedScheduling" for e in again.result.events)
    assert _placed(again) == _placed(first)
