"""Which nodes and pods a pass over changed pods keeps (kexplain.suggest.karpenter_scope)."""
from __future__ import annotations

from typing import Any

from kexplain.model.pod import PodInfo
from kexplain.suggest.karpenter_scope import pod_change_scope


def pod(name: str, labels: dict[str, str] | None = None, **spec: Any) -> PodInfo:
    return PodInfo({"apiVersion": "v1", "kind": "Pod",
                    "metadata": {"name": name, "namespace": "default", "labels": labels or {}},
                    "spec": {"containers": [{"name": "app", "image": "busybox"}], **spec}})


def node(name: str, labels: dict[str, str], taints: list[dict[str, str]] | None = None) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
            "spec": {"taints": taints or []}}


GPU_ONLY = {"nodeSelector": {"pool": "gpu"}}
NODES = [node("gpu-1", {"pool": "gpu"}),
         node("general-1", {"pool": "general"}),
         node("gpu-tainted", {"pool": "gpu"}, [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]),
         node("gpu-preferred", {"pool": "gpu"}, [{"key": "dedicated", "value": "x", "effect": "PreferNoSchedule"}]),
         node("joining", {"pool": "general", "karpenter.sh/nodepool": "default"}),
         node("unlabelled", {})]


def test_the_nodes_kept_are_those_the_pods_could_land_on():
    pending = [pod("trainer-0", {"app": "train"}, **GPU_ONLY), pod("web", {"app": "web"})]
    scope = pod_change_scope(pending, ["default/trainer-0"], [], [], NODES, [], False)
    assert scope is not None and scope.pods == ("default/trainer-0",)
    # not general-1 (its label), nor gpu-tainted (a NoSchedule taint); an uninitialized
    # Karpenter node is kept whatever its labels (its taints may not be its last)
    assert scope.nodes == ("gpu-1", "gpu-preferred", "joining")


def test_a_pod_another_pods_term_selects_is_not_cut_off():
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "train"}}}]}}
    pending = [pod("trainer-0", {"app": "train"}, **GPU_ONLY), pod("web", {"app": "web"}, affinity=anti)]
    assert pod_change_scope(pending, ["default/trainer-0"], [], [], NODES, [], False) is None
    # nor one a bound pod's required anti-affinity selects, nor one with a spread of its own
    assert pod_change_scope(pending[:1], ["default/trainer-0"], [], [pending[1]], NODES, [], False) is None
    spread = pod("trainer-1", {"app": "train"}, topologySpreadConstraints=[
        {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
         "labelSelector": {"matchLabels": {"app": "train"}}}])
    assert pod_change_scope([spread], ["default/trainer-1"], [], [], NODES, [], False) is None


def test_reserved_offerings_leave_nothing_cut_off():
    pending = [pod("trainer-0", {"app": "train"}, **GPU_ONLY)]
    assert pod_change_scope(pending, ["default/trainer-0"], [], [], NODES, [], True) is None


def test_a_scoped_pass_keeps_the_pods_of_its_nodes_and_the_daemonsets_in_input_order(tmp_path):
    """`BoundPods` indexes the bound pods by node once; a pass over some nodes takes theirs and
    the DaemonSet pod Karpenter sizes overhead from, in the input's order, as a scan does."""
    from dataclasses import replace

    import yaml

    from kexplain.features.kube_version import resolve
    from kexplain.karpenter.inputs import load_pass
    from kexplain.karpenter.state.cluster import new_cluster
    from kexplain.suggest.karpenter_pass import BoundPods, scoped_inputs

    def bound(name: str, node_name: str, daemonset: bool = False) -> dict[str, Any]:
        meta: dict[str, Any] = {"name": name, "namespace": "default"}
        if daemonset:
            meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent",
                                        "uid": "ds-agent", "controller": True}]
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
                "spec": {"nodeName": node_name, "containers": [{"name": "app", "image": "busybox"}]}}

    agent = {"apiVersion": "apps/v1", "kind": "DaemonSet",
             "metadata": {"name": "agent", "namespace": "default", "uid": "ds-agent"},
             "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {
                 "metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}}
    nodes = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}"}} for i in (1, 2, 3)]
    pods = [bound("a", "n2"), bound("b", "n1"), bound("agent-n2", "n2", True), bound("c", "n3"), bound("d", "n1")]
    cluster_file = tmp_path / "cluster.yaml"
    cluster_file.write_text(yaml.safe_dump_all([*nodes, agent, *pods]))
    pending_file = tmp_path / "pods.yaml"
    pending_file.write_text(yaml.safe_dump_all([{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                                                 "spec": {"containers": [{"name": "app", "image": "busybox"}]}}]))
    inputs = load_pass(str(pending_file), (str(cluster_file),), None, resolve("1.35", None)[0],
                       max_bytes=10 ** 8, max_objects=1000)
    cluster = new_cluster(inputs)
    index = BoundPods.of(inputs, cluster)
    # the owners the cluster state read, or read again from another list of the same pods
    assert index.daemon_at == BoundPods.of(replace(inputs, bound_pods=list(inputs.bound_pods)), cluster).daemon_at \
        == (2,)
    indexed = scoped_inputs(inputs, set(), {"n1", "n3"}, set(), None, index)
    scanned = scoped_inputs(replace(inputs, bound_pods=list(inputs.bound_pods)), set(), {"n1", "n3"}, set(), None,
                            index)
    assert [p.name for p in indexed.bound_pods] == [p.name for p in scanned.bound_pods] == \
        ["b", "agent-n2", "c", "d"]
