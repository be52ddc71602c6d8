"""Each reason of a FailedScheduling message against the pod's own spec (kexplain.explain.event_facts)."""
from __future__ import annotations

from kexplain.explain.event_facts import Namespace, concern
from kexplain.explain.fit_message import parse
from kexplain.features import KubeVersion
from kexplain.model.pod import PodInfo

SPREAD = {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
          "labelSelector": {"matchLabels": {"app": "web"}}}


def pod(**spec) -> PodInfo:
    base = {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}
    return PodInfo({"metadata": {"name": "p", "namespace": "shop", "labels": {"app": "web"}}, "spec": {**base, **spec}})


def sides(message: str, info: PodInfo, ns: Namespace = Namespace({}, {}), minor: str = "1.35") -> list:
    parsed = parse(message, KubeVersion(minor))
    return [concern(e, info, ns) for e in parsed.filters.entries]


def test_spread_against_the_hard_constraints_only():
    soft = {**SPREAD, "whenUnsatisfiable": "ScheduleAnyway", "topologyKey": "kubernetes.io/hostname"}
    (side,) = sides("0/3 nodes are available: 3 node(s) didn't match pod topology spread constraints.",
                    pod(topologySpreadConstraints=[SPREAD, soft]))
    assert side.pod_side == "the pod's DoNotSchedule spread constraints: maxSkew 1 per topology.kubernetes.io/zone of app=web"
    (side,) = sides("0/3 nodes are available: 3 node(s) didn't match pod topology spread constraints "
                    "(missing required label).", pod(topologySpreadConstraints=[SPREAD]))
    assert side.pod_side.startswith("these nodes lack the label(s) topology.kubernetes.io/zone")


def test_host_ports_and_a_pod_side_fix():
    info = pod(containers=[{"name": "c", "ports": [{"containerPort": 80, "hostPort": 8080}]}])
    (side,) = sides("0/2 nodes are available: 2 node(s) didn't have free ports for the requested pod ports.", info)
    assert side.pod_side == "the pod's host ports: 8080/TCP"
    assert side.needs_nodes is False


def test_claims_as_the_namespace_holds_them():
    info = pod(volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "data"}},
                        {"name": "e", "persistentVolumeClaim": {"claimName": "gone"}}])
    ns = Namespace({"data": {"spec": {"storageClassName": "zonal", "accessModes": ["ReadWriteOncePod"]},
                             "status": {"phase": "Bound"}}}, {})
    (side,) = sides("0/3 nodes are available: 3 node(s) had no available volume zone.", info, ns)
    assert side.pod_side == "the pod's claims: data (Bound, class zonal, ReadWriteOncePod), gone (not read)"


def test_anti_affinity_of_other_pods_names_this_pods_labels():
    (side,) = sides("0/2 nodes are available: 2 node(s) didn't satisfy existing pods anti-affinity rules.", pod())
    assert side.pod_side == "other pods' required anti-affinity matches this pod's labels (app=web)"


def test_a_taint_the_pod_tolerates_with_another_effect():
    info = pod(tolerations=[{"key": "team", "operator": "Equal", "value": "payments", "effect": "NoExecute"}])
    (side,) = sides("0/2 nodes are available: 2 node(s) had untolerated taint {team: payments}.", info, minor="1.33")
    assert side.pod_side == "taint team=payments: the pod tolerates it only with effect NoExecute"


def test_nodes_a_pre_filter_left_out():
    (side,) = sides("0/4 nodes are available: 4 node(s) didn't satisfy plugin(s) [NodeAffinity].", pod())
    assert side.pod_side.startswith("a PreFilter of NodeAffinity left these nodes out")
