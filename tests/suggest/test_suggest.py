"""Verified fix suggestions: every kind, each checked by applying the change by hand to the
manifests and explaining them again; unverifiable ideas are dropped; the work is bounded."""
from __future__ import annotations

import copy
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

import pytest
import yaml

import kexplain.suggest as suggest
from kexplain.cli.app import main
from kexplain.explain.inputs import load_inputs
from kexplain.explain.request import Request
from kexplain.explain.run import explain
from kexplain.framework.trace import SCHEDULED, UNSCHEDULABLE
from kexplain.suggest import suggestions, verify
from kexplain.suggest.add_node import ADD_NODE
from kexplain.suggest.change import Candidate, apply_ops, changed_inputs
from kexplain.suggest.combined import COMBINED
from kexplain.suggest.conflicting_pods import REMOVE_CONFLICTING_PODS
from kexplain.suggest.context import Context, blocked_nodes
from kexplain.suggest.free_room import FREE_RESOURCES
from kexplain.suggest.node_selection import RELAX_NODE_AFFINITY, REMOVE_NODE_SELECTOR
from kexplain.suggest.pod_affinity import DROP_POD_AFFINITY_TERM, DROP_POD_ANTI_AFFINITY_TERM
from kexplain.suggest.pod_affinity import candidates as pod_affinity_candidates
from kexplain.suggest.ports import CHANGE_HOST_PORT, REMOVE_HOST_PORT
from kexplain.suggest.resources import LOWER_REQUEST, lower_ops
from kexplain.suggest.spread import RAISE_MAX_SKEW, SCHEDULE_ANYWAY
from kexplain.suggest.tolerations import ADD_TOLERATION
from kexplain.suggest.uncordon import UNCORDON_NODE
from tests.support.paths import FIXTURES

Obj = dict[str, Any]


# --- helpers -------------------------------------------------------------------------------------

def node(name: str, cpu: str = "4", memory: str = "16Gi", zone: str | None = None, taints: list | None = None,
         unschedulable: bool = False, **labels: str) -> Obj:
    meta_labels = {"kubernetes.io/hostname": name, **labels}
    if zone:
        meta_labels["topology.kubernetes.io/zone"] = zone
    obj: Obj = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": meta_labels},
                "spec": {}, "status": {"capacity": {"cpu": cpu, "memory": memory, "pods": "110"}}}
    if taints:
        obj["spec"]["taints"] = taints
    if unschedulable:
        obj["spec"]["unschedulable"] = True
    return obj


def pod(name: str = "web", cpu: str = "1", memory: str | None = None, labels: dict | None = None,
        on: str | None = None, priority_class: str | None = None, owner: str | None = None, **spec: Any) -> Obj:
    requests = {"cpu": cpu, **({"memory": memory} if memory else {})}
    obj: Obj = {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "namespace": "default", "labels": labels or {"app": name}},
                "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": requests}}], **spec}}
    if on:
        obj["spec"]["nodeName"] = on
        obj["status"] = {"phase": "Running"}
    if priority_class:
        obj["spec"]["priorityClassName"] = priority_class
    if owner:
        obj["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": owner, "name": "owner",
                                               "uid": "u-1", "controller": True}]
    return obj


def taint(key: str, value: str = "", effect: str = "NoSchedule") -> Obj:
    out = {"key": key, "effect": effect}
    if value:
        out["value"] = value
    return out


def priority_class(name: str, value: int) -> Obj:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": value}


def run(tmp_path: Path, cluster: list[Obj], pending: Obj, tag: str = "in"):
    """Inputs, request and trace, read from files like the CLI reads them."""
    pod_path, cluster_path = tmp_path / f"pod-{tag}.yaml", tmp_path / f"cluster-{tag}.yaml"
    pod_path.write_text(yaml.safe_dump(pending))
    cluster_path.write_text(yaml.safe_dump_all(cluster))
    req = Request(pod_path=str(pod_path), node_paths=(str(cluster_path),))
    inputs = load_inputs(req)
    return inputs, req, explain(inputs, req)


def feasible(trace) -> set[str]:
    return {n for n, st in (trace.filter or {}).items() if st.get("code") == "Success"}


def pod_ref(name: str = "web") -> Obj:
    return {"kind": "Pod", "namespace": "default", "name": name}


def find(found, kind: str):
    matching = [s for s in found if s.kind == kind]
    assert matching, f"no {kind} among {[s.text for s in found]}"
    return matching[0]


# --- every kind: the stated change, applied by hand, schedules the pod and opens the stated nodes --------

def set_request(value: str, resource: str = "cpu", container: int = 0) -> Callable[[Obj, list[Obj]], None]:
    def edit(p: Obj, cluster: list[Obj]) -> None:
        p["spec"]["containers"][container]["resources"]["requests"][resource] = value
    return edit


def add_toleration(tol: Obj) -> Callable[[Obj, list[Obj]], None]:
    def edit(p: Obj, cluster: list[Obj]) -> None:
        p["spec"].setdefault("tolerations", []).append(tol)
    return edit


def edit_pod(fn: Callable[[Obj], None]) -> Callable[[Obj, list[Obj]], None]:
    return lambda p, cluster: fn(p)


def edit_node(name: str, fn: Callable[[Obj], None]) -> Callable[[Obj, list[Obj]], None]:
    def edit(p: Obj, cluster: list[Obj]) -> None:
        fn(next(o for o in cluster if o["kind"] == "Node" and o["metadata"]["name"] == name))
    return edit


def delete_pod(name: str) -> Callable[[Obj, list[Obj]], None]:
    def edit(p: Obj, cluster: list[Obj]) -> None:
        cluster[:] = [o for o in cluster if not (o["kind"] == "Pod" and o["metadata"]["name"] == name)]
    return edit


def add_node(obj: Obj) -> Callable[[Obj, list[Obj]], None]:
    return lambda p, cluster: cluster.append(obj)


def both(*edits: Callable[[Obj, list[Obj]], None]) -> Callable[[Obj, list[Obj]], None]:
    def edit(p: Obj, cluster: list[Obj]) -> None:
        for e in edits:
            e(p, cluster)
    return edit


def uncordon(n: Obj) -> None:
    n["spec"].pop("unschedulable")
    n["spec"]["taints"] = [t for t in n["spec"].get("taints", []) if t["key"] != "node.kubernetes.io/unschedulable"]


GPU = taint("gpu", "yes")
HOSTNAME_SPREAD = [{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "DoNotSchedule",
                    "labelSelector": {"matchLabels": {"app": "web"}}}]
ZONE_IN_A = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
    {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["a"]}]}]}}}
ZONE_A_AND_GPU = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
    {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["a", "b"]},
                          {"key": "gpu", "operator": "Exists"}]}]}}}
AFFINITY_TO_DB = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}]}}
ANTI_WEB_ZONE = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": "topology.kubernetes.io/zone"}]}}
GUARD_ANTI_WEB = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "topology.kubernetes.io/zone"}]}}
PORT_8080 = [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "100m"}},
              "ports": [{"containerPort": 80, "hostPort": 8080}]}]
NEW_N1 = {"apiVersion": "v1", "kind": "Node",
          "metadata": {"name": "new-node-like-n1", "labels": {"kubernetes.io/hostname": "new-node-like-n1"}},
          "status": {"capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"}}}


def with_labels(obj: Obj, **labels: str) -> Obj:
    out = copy.deepcopy(obj)
    out["metadata"]["labels"].update(labels)
    return out


CASES = [
    # id, cluster, pod, kind, change (operations), description, edit by hand, opened nodes
    ("lower-request", [node("n1", "2"), pod("a", "1500m", on="n1"), node("n2", "4"), pod("b", "2500m", on="n2")],
     pod(cpu="2"), LOWER_REQUEST,
     [{"op": "add", "object": pod_ref(), "path": "/spec/containers/0/resources/requests/cpu", "value": "1500m"}],
     "lower the cpu request from 2 to 1500m (container c)", set_request("1500m"), {"n2"}),
    ("lower-memory", [node("n1", memory="8Gi"), pod("a", "100m", memory="5Gi", on="n1")],
     pod(cpu="100m", memory="4Gi"), LOWER_REQUEST,
     [{"op": "add", "object": pod_ref(), "path": "/spec/containers/0/resources/requests/memory", "value": "3Gi"}],
     "lower the memory request from 4Gi to 3Gi (container c)", set_request("3Gi", "memory"), {"n1"}),
    ("add-toleration", [node("n1", taints=[GPU]), node("n2", taints=[taint("team", "a", "NoExecute")]),
                        node("n3", taints=[GPU])],
     pod(), ADD_TOLERATION,
     [{"op": "add", "object": pod_ref(), "path": "/spec/tolerations/-",
       "value": {"key": "gpu", "operator": "Equal", "value": "yes", "effect": "NoSchedule"}}],
     "add a toleration for the taint gpu=yes:NoSchedule",
     add_toleration({"key": "gpu", "operator": "Equal", "value": "yes", "effect": "NoSchedule"}), {"n1", "n3"}),
    ("remove-node-selector", [node("n1", disk="hdd"), node("n2")],
     pod(nodeSelector={"disk": "ssd"}), REMOVE_NODE_SELECTOR,
     [{"op": "remove", "object": pod_ref(), "path": "/spec/nodeSelector/disk"}],
     "remove the nodeSelector entry disk=ssd", edit_pod(lambda p: p["spec"].pop("nodeSelector")), {"n1", "n2"}),
    ("relax-node-affinity", [node("b1", zone="b"), node("b2", zone="b"), node("c1", zone="c")],
     pod(affinity=ZONE_IN_A), RELAX_NODE_AFFINITY,
     [{"op": "add", "object": pod_ref(), "value": "b",
       "path": "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0"
               "/matchExpressions/0/values/-"}],
     "allow topology.kubernetes.io/zone=b in the node affinity expression topology.kubernetes.io/zone In [a]",
     edit_pod(lambda p: p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
              ["nodeSelectorTerms"][0]["matchExpressions"][0]["values"].append("b")), {"b1", "b2"}),
    ("remove-affinity-expression", [node("a1", zone="a"), node("b1", zone="b"), node("c1", zone="c")],
     pod(affinity=ZONE_A_AND_GPU), RELAX_NODE_AFFINITY,
     [{"op": "remove", "object": pod_ref(),
       "path": "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0"
               "/matchExpressions/1"}],
     "remove the node affinity expression gpu Exists",
     edit_pod(lambda p: p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
              ["nodeSelectorTerms"][0]["matchExpressions"].pop(1)), {"a1", "b1"}),
    ("raise-max-skew", [node("n1"), pod("w1", "100m", labels={"app": "web"}, on="n1"), pod("w2", "100m", labels={"app": "web"}, on="n1"),
                        node("n2"), pod("w3", "100m", labels={"app": "web"}, on="n2"), node("n3", unschedulable=True)],
     pod(cpu="100m", labels={"app": "web"}, topologySpreadConstraints=HOSTNAME_SPREAD), RAISE_MAX_SKEW,
     [{"op": "replace", "object": pod_ref(), "path": "/spec/topologySpreadConstraints/0/maxSkew", "value": 2}],
     "raise maxSkew of topology spread constraint #1 (kubernetes.io/hostname, maxSkew 1) to 2",
     edit_pod(lambda p: p["spec"]["topologySpreadConstraints"][0].update(maxSkew=2)), {"n2"}),
    ("schedule-anyway", [node("n1"), pod("w1", "100m", labels={"app": "web"}, on="n1"), pod("w2", "100m", labels={"app": "web"}, on="n1"),
                         node("n2"), pod("w3", "100m", labels={"app": "web"}, on="n2"), node("n3", unschedulable=True)],
     pod(cpu="100m", labels={"app": "web"}, topologySpreadConstraints=HOSTNAME_SPREAD), SCHEDULE_ANYWAY,
     [{"op": "replace", "object": pod_ref(), "path": "/spec/topologySpreadConstraints/0/whenUnsatisfiable",
       "value": "ScheduleAnyway"}],
     "make topology spread constraint #1 (kubernetes.io/hostname, maxSkew 1) a preference: "
     "whenUnsatisfiable ScheduleAnyway",
     edit_pod(lambda p: p["spec"]["topologySpreadConstraints"][0].update(whenUnsatisfiable="ScheduleAnyway")),
     {"n1", "n2"}),
    ("remove-host-port", [node("n1"), pod("a", "100m", on="n1", containers=PORT_8080), node("n2"),
                          pod("b", "100m", on="n2", containers=PORT_8080)],
     pod(containers=PORT_8080), REMOVE_HOST_PORT,
     [{"op": "remove", "object": pod_ref(), "path": "/spec/containers/0/ports/0/hostPort"}],
     "remove hostPort 8080/TCP of container c",
     edit_pod(lambda p: p["spec"]["containers"][0]["ports"][0].pop("hostPort")), {"n1", "n2"}),
    ("change-host-port", [node("n1"), pod("a", "100m", on="n1", containers=PORT_8080), node("n2"),
                          pod("b", "100m", on="n2", containers=PORT_8080)],
     pod(containers=PORT_8080), CHANGE_HOST_PORT,
     [{"op": "replace", "object": pod_ref(), "path": "/spec/containers/0/ports/0/hostPort", "value": 8081}],
     "change hostPort 8080/TCP of container c to 8081",
     edit_pod(lambda p: p["spec"]["containers"][0]["ports"][0].update(hostPort=8081)), {"n1", "n2"}),
    ("drop-pod-affinity-term", [node("n1"), node("n2")],
     pod(affinity=AFFINITY_TO_DB), DROP_POD_AFFINITY_TERM,
     [{"op": "remove", "object": pod_ref(),
       "path": "/spec/affinity/podAffinity/requiredDuringSchedulingIgnoredDuringExecution/0"}],
     "drop the required pod affinity term #1 (app=db, topologyKey kubernetes.io/hostname)",
     edit_pod(lambda p: p["spec"]["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"].pop(0)),
     {"n1", "n2"}),
    ("drop-pod-anti-affinity-term", [node("a1", zone="a"), pod("c1", "100m", labels={"app": "cache"}, on="a1"),
                                     node("b1", zone="b"), pod("c2", "100m", labels={"app": "cache"}, on="b1")],
     pod(affinity=ANTI_WEB_ZONE), DROP_POD_ANTI_AFFINITY_TERM,
     [{"op": "remove", "object": pod_ref(),
       "path": "/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/0"}],
     "drop the required pod anti-affinity term #1 (app=cache, topologyKey topology.kubernetes.io/zone)",
     edit_pod(lambda p: p["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
              .pop(0)), {"a1", "b1"}),
    ("combined", [node("n1", "2", taints=[GPU]), pod("a", "1", on="n1"), node("n2", "2", taints=[GPU]),
                  pod("b", "1500m", on="n2")],
     pod(cpu="2"), COMBINED,
     [{"op": "add", "object": pod_ref(), "path": "/spec/containers/0/resources/requests/cpu", "value": "1"},
      {"op": "add", "object": pod_ref(), "path": "/spec/tolerations/-",
       "value": {"key": "gpu", "operator": "Equal", "value": "yes", "effect": "NoSchedule"}}],
     "lower the cpu request from 2 to 1 (container c); and tolerate gpu=yes:NoSchedule",
     both(set_request("1"), add_toleration({"key": "gpu", "operator": "Equal", "value": "yes",
                                             "effect": "NoSchedule"})), {"n1"}),
    ("uncordon-node", [node("n1", "8", unschedulable=True, taints=[taint("node.kubernetes.io/unschedulable")]),
                       node("n2", "1")],
     pod(cpu="2"), UNCORDON_NODE,
     [{"op": "remove", "object": {"kind": "Node", "name": "n1"}, "path": "/spec/unschedulable"},
      {"op": "remove", "object": {"kind": "Node", "name": "n1"}, "path": "/spec/taints/0"}],
     "uncordon node n1 (kubectl uncordon n1)", edit_node("n1", uncordon), {"n1"}),
    ("free-resources", [priority_class("high", 1000), node("n1"), pod("a", "2", on="n1"),
                        pod("b", "1500m", on="n1", priority_class="high"),
                        pod("ds", "400m", on="n1", owner="DaemonSet")],
     pod(cpu="2"), FREE_RESOURCES,
     [{"op": "delete", "object": pod_ref("a")}],
     "free 1900m cpu on node n1: pod default/a would have to go (moved elsewhere or deleted)",
     delete_pod("a"), {"n1"}),
    ("remove-conflicting-pods", [node("a1", zone="a"), pod("guard", "100m", on="a1", affinity=GUARD_ANTI_WEB),
                                 node("a2", zone="a"), node("b1", zone="b"),
                                 pod("guard2", "100m", on="b1", affinity=GUARD_ANTI_WEB),
                                 pod("guard3", "100m", on="b1", affinity=GUARD_ANTI_WEB)],
     pod(cpu="100m"), REMOVE_CONFLICTING_PODS,
     [{"op": "delete", "object": pod_ref("guard")}],
     "make room on node a1: pod default/guard, whose required anti-affinity excludes this pod there, would have "
     "to go (moved elsewhere or deleted)", delete_pod("guard"), {"a1", "a2"}),
    ("add-node-without-taint", [node("n1", taints=[GPU])],
     pod(), ADD_NODE,
     [{"op": "create", "object": {"kind": "Node", "name": "new-node-like-n1"},
       "value": {**NEW_N1, "spec": {}, "status": {"capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                                                  "allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}}}}],
     "add a node like n1 (cpu 4, memory 16Gi) without the taint gpu=yes:NoSchedule", add_node(NEW_N1), {"new-node-like-n1"}),
    ("add-node-with-label", [node("n1")],
     pod(nodeSelector={"disk": "ssd"}), ADD_NODE,
     [{"op": "create", "object": {"kind": "Node", "name": "new-node-like-n1"},
       "value": {**with_labels(NEW_N1, disk="ssd"), "spec": {},
                 "status": {"capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                            "allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}}}}],
     "add a node like n1 (cpu 4, memory 16Gi) labelled disk=ssd", add_node(with_labels(NEW_N1, disk="ssd")),
     {"new-node-like-n1"}),
    ("add-node-for-room", [node("n1"), pod("a", "3500m", on="n1")],
     pod(cpu="1"), ADD_NODE,
     [{"op": "create", "object": {"kind": "Node", "name": "new-node-like-n1"},
       "value": {**NEW_N1, "spec": {}, "status": {"capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                                                  "allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}}}}],
     "add a node like n1 (cpu 4, memory 16Gi)", add_node(NEW_N1), {"new-node-like-n1"}),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_each_kind_is_stated_verified_and_holds_when_applied_by_hand(tmp_path, case):
    _, cluster, pending, kind, change, description, edit, opened = case
    inputs, req, trace = run(tmp_path, cluster, pending)
    assert trace.result.status == UNSCHEDULABLE
    found = suggestions(inputs, trace, req)
    s = find(found, kind)
    assert list(s.change) == change
    assert s.description == description
    assert set(s.opened) == opened and s.nodes_opened == len(opened)
    assert s.verified.status == SCHEDULED and s.verified.complete
    # independently: apply the change to the manifests by hand, explain them again
    new_pod, new_cluster = copy.deepcopy(pending), copy.deepcopy(cluster)
    edit(new_pod, new_cluster)
    _, _, again = run(tmp_path, new_cluster, new_pod, tag="changed")
    assert again.result.status == SCHEDULED
    assert feasible(again) == opened
    assert again.result.suggested_host in opened


def test_the_fixture_gets_one_suggestion_per_reason(tmp_path):
    fixtures = FIXTURES
    req = Request(pod_path=str(fixtures / "pod-too-big.yaml"), node_paths=(str(fixtures / "cluster.yaml"),))
    inputs = load_inputs(req)
    found = suggestions(inputs, explain(inputs, req), req)
    assert [(s.kind, s.opened) for s in found] == [
        (LOWER_REQUEST, ("node-2",)),                 # 4 cpu, 500m used: 3500m
        (ADD_TOLERATION, ("node-4", "node-6")),
        (UNCORDON_NODE, ("node-3",)),
        (ADD_NODE, ("new-node-like-node-4",)),
    ]
    assert found[0].description == "lower the cpu request from 6 to 3500m (container spark)"
    assert found[0].text == "lower the cpu request from 6 to 3500m (container spark) (opens 1 node: node-2)"


# --- what is not suggested ------------------------------------------------------------------------------

def test_unverifiable_ideas_are_dropped(tmp_path):
    """Each required pod affinity term alone looks like the blocker; dropping one leaves the other."""
    terms = [{"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "kubernetes.io/hostname"}
             for app in ("db", "cache")]
    inputs, req, trace = run(tmp_path, [node("n1"), node("n2")],
                             pod(affinity={"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": terms}}))
    assert trace.result.status == UNSCHEDULABLE
    found = suggestions(inputs, trace, req)
    assert not any(s.kind == DROP_POD_AFFINITY_TERM for s in found)
    # the candidates were there, and each was refuted by its re-run
    ctx = Context(inputs, req.run, trace, blocked_nodes(trace.filter_all))
    candidates = pod_affinity_candidates(ctx)
    assert [c.kind for c in candidates] == [DROP_POD_AFFINITY_TERM] * 2
    assert all(verify.verify(inputs, req.run, c.change) is None for c in candidates)


def test_a_candidate_that_does_not_schedule_the_pod_is_never_shown(tmp_path, monkeypatch):
    inputs, req, trace = run(tmp_path, [node("n1", taints=[GPU])], pod())
    wrong = Candidate(ADD_TOLERATION, "pod default/web", "tolerate the wrong taint",
                      ({"op": "add", "object": pod_ref(), "path": "/spec/tolerations/-",
                        "value": {"key": "other", "operator": "Exists", "effect": "NoSchedule"}},))
    monkeypatch.setitem(suggest.FAMILIES, "wrong", SimpleNamespace(ID="wrong", candidates=lambda ctx: [wrong]))
    monkeypatch.setattr(suggest, "POD_CHANGES", ("wrong",))
    monkeypatch.setattr(suggest, "CLUSTER_CHANGES", ())
    assert suggestions(inputs, trace, req) == []


def test_node_condition_and_cordon_taints_are_not_tolerated(tmp_path):
    cluster = [node("n1", taints=[taint("node.kubernetes.io/disk-pressure")]),
               node("n2", unschedulable=True, taints=[taint("node.kubernetes.io/unschedulable")])]
    inputs, req, trace = run(tmp_path, cluster, pod())
    found = suggestions(inputs, trace, req)
    assert all(s.kind != ADD_TOLERATION for s in found)
    assert [s.kind for s in found] == [UNCORDON_NODE, ADD_NODE]
    assert found[0].opened == ("n2",)


def test_no_suggestions_for_a_pod_that_fits_or_waits(tmp_path):
    inputs, req, trace = run(tmp_path, [node("n1")], pod())
    assert trace.result.status == SCHEDULED and suggestions(inputs, trace, req) == []
    inputs, req, trace = run(tmp_path, [node("n1")], pod(schedulingGates=[{"name": "wait"}]))
    assert trace.result.status == "Gated" and suggestions(inputs, trace, req) == []


def test_free_resources_prefers_the_lowest_priority_and_skips_daemonset_pods(tmp_path):
    cluster = [priority_class("high", 1000), node("n1", "2"), pod("ds", "1", on="n1", owner="DaemonSet"),
               pod("vip", "1", on="n1", priority_class="high")]
    inputs, req, trace = run(tmp_path, cluster, pod(cpu="1"))
    s = find(suggestions(inputs, trace, req), FREE_RESOURCES)
    assert s.change == ({"op": "delete", "object": pod_ref("vip")},)   # the DaemonSet pod would come back


# --- bounded, and reusing what can be reused ------------------------------------------------------------

def test_at_most_max_verified_reruns(tmp_path, monkeypatch):
    cluster = [node(f"t{i}", taints=[taint(f"k{i}", "v")]) for i in range(6)]
    cluster += [node("c1", unschedulable=True), node("s1", "1"), node("f1", "2"), pod("a", "1500m", on="f1")]
    pending = pod(cpu="2", affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "x", "operator": "DoesNotExist"}]}]}}})
    inputs, req, trace = run(tmp_path, cluster, pending)
    calls = []
    real = verify.explain
    monkeypatch.setattr(verify, "explain", lambda i, r: calls.append(r) or real(i, r))
    found = suggestions(inputs, trace, req, budget=3)
    assert len(calls) == 3 and len(found) <= 3
    calls.clear()
    suggestions(inputs, trace, req)
    assert 0 < len(calls) <= suggest.MAX_VERIFIED
    assert all(not r.filter_all and not r.preemption for r in calls)


def test_a_pod_change_keeps_the_snapshot_a_cluster_change_makes_a_new_one(tmp_path):
    inputs, _, _ = run(tmp_path, [node("n1"), pod("a", on="n1")], pod())
    pod_change = [{"op": "add", "object": pod_ref(), "path": "/spec/tolerations/-", "value": {"operator": "Exists"}}]
    assert changed_inputs(inputs, pod_change).snapshot is inputs.snapshot
    cluster_change = [{"op": "delete", "object": pod_ref("a")},
                      {"op": "create", "object": {"kind": "Node", "name": "n2"}, "value": node("n2")}]
    changed = changed_inputs(inputs, cluster_change)
    assert changed.snapshot is not inputs.snapshot and changed.pod is inputs.pod
    assert [ni.name for ni in changed.snapshot.node_infos] == ["n1", "n2"]
    assert changed.snapshot.get("n1").pods == []
    assert [p.name for p in inputs.snapshot.get("n1").pods] == ["a"]      # the original is untouched


def test_suggestions_come_from_filter_all_even_when_the_trace_lacks_it(tmp_path):
    from dataclasses import replace
    inputs, req, _ = run(tmp_path, [node("n1", taints=[GPU])], pod())
    bare = explain(inputs, replace(req.run, filter_all=False))
    assert bare.filter_all is None
    assert [s.kind for s in suggestions(inputs, bare)] == [ADD_TOLERATION, ADD_NODE]


# --- operations ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("obj, ops, expected", [
    ({"spec": {}}, [{"op": "add", "path": "/spec/tolerations/-", "value": {"key": "k"}}],
     {"spec": {"tolerations": [{"key": "k"}]}}),
    ({"spec": {"containers": [{"name": "c"}]}},
     [{"op": "add", "path": "/spec/containers/0/resources/requests/cpu", "value": "1"}],
     {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}),
    ({"spec": {"nodeSelector": {"kubernetes.io/os": "linux", "a": "b"}}},
     [{"op": "remove", "path": "/spec/nodeSelector/kubernetes.io~1os"}], {"spec": {"nodeSelector": {"a": "b"}}}),
    ({"l": [1, 2, 3]}, [{"op": "remove", "path": "/l/1"}, {"op": "replace", "path": "/l/0", "value": 9}],
     {"l": [9, 3]}),
])
def test_apply_ops(obj, ops, expected):
    before = copy.deepcopy(obj)
    assert apply_ops(obj, ops) == expected
    assert obj == before


# --- the command line -----------------------------------------------------------------------------------

def cli(capsys, *args: str) -> tuple[int, str]:
    code = main(list(args))
    out, _ = capsys.readouterr()
    return code, out


def test_cli_json_table_and_no_suggestions(capsys, tmp_path):
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(pod()))
    (tmp_path / "c.yaml").write_text(yaml.safe_dump_all([node("n1", taints=[GPU])]))
    args = (str(tmp_path / "p.yaml"), "--nodes", str(tmp_path / "c.yaml"))
    code, out = cli(capsys, *args, "-o", "json")
    trace = json.loads(out)
    assert code == 1 and trace["kind"] == "SchedulingTrace"
    assert [s["kind"] for s in trace["suggestions"]] == [ADD_TOLERATION, ADD_NODE]
    first = trace["suggestions"][0]
    assert first["nodesOpened"] == 1 and first["openedNodes"] == ["n1"] and first["nodesOpenedExact"] is True
    assert first["verified"]["status"] == SCHEDULED and first["target"] == "pod default/web"
    code, out = cli(capsys, *args, "-o", "json", "--no-suggestions")
    assert code == 1 and "suggestions" not in json.loads(out)
    code, out = cli(capsys, *args)          # the table shows each description (however it is styled)
    assert "add a toleration for the taint gpu=yes:NoSchedule" in " ".join(out.split())
    code, out = cli(capsys, *args, "--no-suggestions")
    assert "add a toleration" not in " ".join(out.split())


def test_cli_a_scheduled_pod_has_no_suggestions_key(capsys, tmp_path):
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(pod()))
    (tmp_path / "c.yaml").write_text(yaml.safe_dump_all([node("n1")]))
    code, out = cli(capsys, str(tmp_path / "p.yaml"), "--nodes", str(tmp_path / "c.yaml"), "-o", "json")
    assert code == 0 and "suggestions" not in json.loads(out)


# --- lowering a request across containers -----------------------------------------------------------------

def container(name: str, cpu: str, **extra: Any) -> Obj:
    return {"name": name, "image": "x", "resources": {"requests": {"cpu": cpu}}, **extra}


@pytest.mark.parametrize("spec, changes", [
    # the largest container gives first
    ({"containers": [container("a", "1"), container("b", "2")]}, {"/spec/containers/1/resources/requests/cpu": "500m"}),
    ({"containers": [container("a", "1"), container("b", "1")]}, {"/spec/containers/0/resources/requests/cpu": "500m"}),
    # an init container that needs more than the target while it runs is lowered; the others keep theirs
    ({"containers": [container("a", "1")], "initContainers": [container("i", "3")]},
     {"/spec/initContainers/0/resources/requests/cpu": "1500m"}),
    # a sidecar runs with the containers: it counts in their sum
    ({"containers": [container("a", "2")], "initContainers": [container("i", "3"),
                                                            container("s", "500m", restartPolicy="Always")]},
     {"/spec/containers/0/resources/requests/cpu": "1", "/spec/initContainers/0/resources/requests/cpu": "1500m"}),
    # overhead stays: the container takes it into account
    ({"containers": [container("a", "2")], "overhead": {"cpu": "250m"}},
     {"/spec/containers/0/resources/requests/cpu": "1250m"}),
    # pod-level requests replace the containers' sum
    ({"containers": [container("a", "2")], "resources": {"requests": {"cpu": "3"}}},
     {"/spec/resources/requests/cpu": "1500m"}),
])
def test_lowering_a_request_reaches_the_target(spec, changes):
    from kexplain.model.pod import PodInfo
    from kexplain.model.resources import pod_requests
    from kexplain.apimachinery.quantity import milli_value

    p = PodInfo({"metadata": {"name": "web", "namespace": "default"}, "spec": spec})
    ops, _ = lower_ops(p, "cpu", 1500)
    assert {op["path"]: op["value"] for op in ops} == changes
    assert milli_value(pod_requests(apply_ops(p.obj, ops))["cpu"]) == 1500


# --- the registry ------------------------------------------------------------------------------------------

def test_every_family_has_the_same_face_and_runs_once():
    kinds = []
    for family_id, family in suggest.FAMILIES.items():
        assert family.ID == family_id and suggest.get(family_id) is family
        assert family.__doc__ and family.__doc__.strip()
        assert callable(family.candidates) and family.KINDS
        kinds += family.KINDS
    assert len(kinds) == len(set(kinds))
    order = suggest.POD_CHANGES + suggest.WHEN_NONE + suggest.CLUSTER_CHANGES
    assert sorted(order) == sorted(suggest.FAMILIES)
    with pytest.raises(KeyError):
        suggest.get("no-such-family")


@pytest.mark.parametrize("order", [("n1", "n2"), ("n2", "n1")])
def test_free_room_prefers_fewer_pods_then_lower_priority_whatever_the_node_order(tmp_path, order):
    """n1 needs one pod of high priority to go, n2 one of none, n3 two: n2 is chosen wherever it
    comes (a node is passed over only when its fewest pods and their priority cannot beat the best)."""
    nodes = {"n1": [node("n1"), pod("a", "3500m", on="n1", priority_class="high")],
             "n2": [node("n2"), pod("b", "3500m", on="n2")]}
    cluster = [priority_class("high", 1000), *nodes[order[0]], *nodes[order[1]],
               node("n3"), pod("c", "1750m", on="n3"), pod("d", "1750m", on="n3")]
    inputs, req, trace = run(tmp_path, cluster, pod(cpu="2"))
    s = find(suggestions(inputs, trace, req), FREE_RESOURCES)
    assert s.text.startswith("free ") and "on node n2: pod default/b would have to go" in s.text
