"""A cluster written as manifests (no resourceVersion: created through admission) whose pods name a
PriorityClass without `spec.priority`: every eviction command sees them as the Priority admission
plugin leaves them (`app.eviction.request.defaulted`), as the scheduler's path does (issue 77, item 7)."""
from __future__ import annotations

import json
from pathlib import Path

from datetime import datetime, timezone

from kexplain.app.eviction.request import EvictRequest, pods_on, read_state
from kexplain.cli.app import main
from kexplain.features import KubeVersion
from tests.support.cli_helpers import TestEnvironment

NOW = "2026-01-01T00:00:00Z"
T = "2026-01-01T00:00:00Z"


def _pod(name: str, namespace: str, uid: str, class_name: str | None = None, stored: bool = False) -> dict:
    spec: dict = {"nodeName": "n1", "containers": [{"name": "a", "image": "x"}]}
    if class_name:
        spec["priorityClassName"] = class_name
    meta: dict = {"name": name, "namespace": namespace, "uid": uid}
    if stored:
        meta["resourceVersion"] = "7"
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}}


def cluster(stored_agent: bool = False) -> list[dict]:
    return [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "shop-high"},
             "value": 1000},
            {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1"}},
             "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                        "conditions": [{"type": "Ready", "status": "True"}]}},
            _pod("ds-agent", "kube-system", "u1", "system-node-critical", stored=stored_agent),
            _pod("web", "shop", "u2", "shop-high"),
            _pod("batch", "shop", "u3")]


def summary(available: int) -> dict:
    def used(name: str, ns: str, uid: str, ws: int) -> dict:
        return {"podRef": {"name": name, "namespace": ns, "uid": uid}, "memory": {"time": T, "workingSetBytes": ws}}
    return {"node": {"nodeName": "n1", "memory": {"time": T, "availableBytes": available, "workingSetBytes": 8 * 10**9},
                     "fs": {"time": T, "availableBytes": 5 * 10**10, "capacityBytes": 10**11, "inodesFree": 10**6,
                            "inodes": 2 * 10**6}},
            "pods": [used("ds-agent", "kube-system", "u1", 9 * 10**8), used("web", "shop", "u2", 5 * 10**8),
                     used("batch", "shop", "u3", 10**8)]}


def write(path: Path, objects: list[dict]) -> str:
    path.write_text("\n---\n".join(json.dumps(o) for o in objects))
    return str(path)


def run(argv: list[str]) -> tuple[int, dict]:
    env = TestEnvironment()
    code = main([*argv, "--now", NOW, "-o", "json"], env)
    return code, (json.loads(env.out) if env.out.strip() else {"err": env.err})


def pressure(tmp_path: Path, objects: list[dict], *extra: str) -> tuple[int, dict]:
    stats = tmp_path / "stats.json"
    stats.write_text(json.dumps(summary(5 * 10**7)))
    return run(["evict", "pressure", "n1", "--nodes", write(tmp_path / "cluster.yaml", objects),
                "--stats", str(stats), *extra])


def test_pressure_ranks_the_pods_at_their_classes_priority(tmp_path):
    code, doc = pressure(tmp_path, cluster())
    assert doc["ranking"] == ["shop/batch", "shop/web", "kube-system/ds-agent"]
    assert doc["evicted"][0]["pod"] == "shop/batch"


def test_a_stored_pod_is_read_as_it_is(tmp_path):
    """A pod an API server stored (resourceVersion) without spec.priority keeps priority 0."""
    code, doc = pressure(tmp_path, cluster(stored_agent=True))
    assert doc["ranking"][0] == "kube-system/ds-agent"


def test_admit_takes_an_arriving_system_node_critical_pod(tmp_path):
    arriving = _pod("new-agent", "kube-system", "u9", "system-node-critical")
    code, doc = pressure(tmp_path, cluster(), "--admit", write(tmp_path / "admit.yaml", [arriving]))
    assert doc["nodeConditions"] == ["MemoryPressure"]
    (answer,) = doc["admission"]
    assert answer["pod"] == "kube-system/new-agent" and answer["admit"] is True


def test_critical_pod_detection_skips_the_system_node_critical_pod(tmp_path):
    """Only the critical pod is left to evict: the kubelet skips it (skippedCritical)."""
    objects = [o for o in cluster() if (o["metadata"].get("name") not in ("web", "batch"))]
    stats = summary(5 * 10**7)
    stats["pods"] = stats["pods"][:1]
    (tmp_path / "stats.json").write_text(json.dumps(stats))
    code, doc = run(["evict", "pressure", "n1", "--nodes", write(tmp_path / "cluster.yaml", objects),
                     "--stats", str(tmp_path / "stats.json")])
    assert not doc.get("evicted") and doc["skippedCritical"] == ["kube-system/ds-agent"]


def test_taints_queue_the_evicted_pods_by_their_classes_priority(tmp_path):
    objects = cluster()
    objects[1]["spec"] = {"taints": [{"key": "maintenance", "effect": "NoExecute"}]}
    code, doc = run(["evict", "taints", "n1", "--nodes", write(tmp_path / "cluster.yaml", objects)])
    assert [w["pod"] for w in doc["whereTheyGo"]] == ["kube-system/ds-agent", "shop/web", "shop/batch"]


def test_drain_and_every_family_read_the_nodes_pods_as_admitted(tmp_path):
    """`pods_on`, the node's pods every family reads (drain's too), carry the plugin's priority."""
    req = EvictRequest("n1", (write(tmp_path / "cluster.yaml", cluster()),), datetime(2026, 1, 1, tzinfo=timezone.utc),
                       KubeVersion("1.36"))
    pods = {p["metadata"]["name"]: p["spec"] for p in pods_on(read_state(req), "n1", req.kube)}
    assert {n: s.get("priority") for n, s in pods.items()} == {"ds-agent": 2000001000, "web": 1000, "batch": 0}
    assert pods["web"]["preemptionPolicy"] == "PreemptLowerPriority"


def test_a_class_not_found_is_the_api_servers_refusal(tmp_path):
    objects = cluster()
    objects[3]["spec"]["priorityClassName"] = "shop-missing"
    code, doc = pressure(tmp_path, objects)
    assert code == 2 and "no PriorityClass with name shop-missing was found" in doc["err"]
    assert "Pod shop/web" in doc["err"]


# -- the pods the replacements are scheduled against (issue 92, item 9) ------------------------------
def _dns_cluster(class_name: str | None = "system-cluster-critical") -> list[dict]:
    """Two nodes, each holding one pod of a ReplicaSet of 3 CPUs a pod (node-b has no room for a second):
    the pods name their class, as manifests write them, without `spec.priority`."""
    from tests.eviction.drain_cluster import node, pod, workload
    dns = workload("ReplicaSet", "coredns-5d", 2, "dns")
    dns["metadata"]["namespace"] = "kube-system"
    template = dns["spec"]["template"]["spec"]
    template["containers"][0]["resources"]["requests"]["cpu"] = "3"
    pods = [pod(f"coredns-5d-{n}", ("apps/v1", "ReplicaSet", "coredns-5d"), f"node-{n}", "dns", "kube-system", "3")
            for n in ("a", "b")]
    if class_name:
        template["priorityClassName"] = class_name
        for p in pods:
            p["spec"]["priorityClassName"] = class_name
    return [node("node-a"), node("node-b"), dns, *pods]


def _replacement(tmp_path, objects: list[dict], family: str = "drain") -> dict:
    extra = ["--ignore-daemonsets"] if family == "drain" else []
    code, doc = run(["evict", family, "node-a", "--nodes", write(tmp_path / "cluster.yaml", objects), *extra])
    assert code in (0, 1), doc
    found = doc["replacements"] if family == "drain" else doc["whereTheyGo"]
    (one,) = found
    return one


def test_a_drains_critical_replacement_does_not_preempt_its_sibling(tmp_path):
    answer = _replacement(tmp_path, _dns_cluster())
    assert answer["status"] == "Unschedulable" and "nominatedNodeName" not in answer
    assert "No preemption victims found for incoming pod" in answer["message"]


def test_the_global_default_class_is_the_bound_pods_too(tmp_path):
    default = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "everyone"},
               "value": 1000, "globalDefault": True}
    answer = _replacement(tmp_path, [default, *_dns_cluster(None)])
    assert "nominatedNodeName" not in answer, answer


def test_a_taints_critical_replacement_does_not_preempt_its_sibling(tmp_path):
    objects = _dns_cluster()
    objects[0]["spec"]["taints"] = [{"key": "maintenance", "effect": "NoExecute"}]
    answer = _replacement(tmp_path, objects, "taints")
    assert answer["status"] == "Unschedulable"
    assert "No preemption victims found for incoming pod" in answer["message"], answer


def test_a_dumps_rows_are_kept_and_its_stored_pods_read_as_they_are():
    from kexplain.apimachinery import columns
    from kexplain.app.eviction.request import with_priorities
    from kexplain.errors import Source
    objects = [(o, Source("cluster.json")) for o in _dns_cluster()]
    objects[3][0]["metadata"]["resourceVersion"] = "5"      # coredns-5d-a: stored, its plugins ran
    out = with_priorities(columns.Dump(objects, columns.Rows.of(objects)))
    assert columns.rows_of(out) is not None
    assert [o["spec"].get("priority") for o, _ in out if o["kind"] == "Pod"] == [None, 2000000000]
