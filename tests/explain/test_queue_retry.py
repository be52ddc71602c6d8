"""The scheduling queue's retry (issue 39, item 3): after the pass in creation order, a pod left
unschedulable comes back when a later pod binds and one of the plugins that rejected it says so
(QueueingHints): a web tier whose required pod affinity names a cache applied after it lands
once the cache runs. The first attempt is unchanged (items, placements); the retry is reported
in addition (the table's section, `retries` in -o json, lint's verdict)."""
from __future__ import annotations

import json
from pathlib import Path

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.copies import copy_names

NODES = "".join(f"""---
apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {{kubernetes.io/hostname: {name}, topology.kubernetes.io/zone: {zone}}}
spec:{taints}
status:
  capacity: {{cpu: "4", memory: 16Gi, pods: "110"}}
  allocatable: {{cpu: "4", memory: 16Gi, pods: "110"}}
""" for name, zone, taints in (
    ("zone-a-1", "eu-west-1a", " {}"),
    ("zone-b-1", "eu-west-1b", "\n  taints: [{key: dedicated, value: batch, effect: NoSchedule}]")))

WEB = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: storefront, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: storefront}}
  template:
    metadata: {labels: {app: storefront}}
    spec:
      affinity:
        podAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector: {matchLabels: {app: session-cache}}
            topologyKey: topology.kubernetes.io/zone
      containers:
      - name: storefront
        image: registry.example.com/storefront:5.1
        resources: {requests: {cpu: 250m, memory: 256Mi}}
"""
CACHE = """\
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: session-cache, namespace: shop}
spec:
  serviceName: session-cache
  replicas: 1
  selector: {matchLabels: {app: session-cache}}
  template:
    metadata: {labels: {app: session-cache}}
    spec:
      containers:
      - name: redis
        image: redis:7.4
        resources: {requests: {cpu: 500m, memory: 1Gi}}
"""


def _run(tmp_path: Path, manifest: str, *argv: str) -> tuple[int, str, str]:
    (tmp_path / "app.yaml").write_text(manifest)
    (tmp_path / "nodes.yaml").write_text(NODES)
    env = TestEnvironment(width=200)
    code = main([*argv[:1], str(tmp_path / "app.yaml"), "--nodes", str(tmp_path / "nodes.yaml"), *argv[1:]],
                env=env) if argv and argv[0] == "lint" else \
        main([str(tmp_path / "app.yaml"), "--nodes", str(tmp_path / "nodes.yaml"), *argv], env=env)
    return code, env.out, env.err


def test_the_web_tier_lands_when_the_cache_binds(tmp_path: Path) -> None:
    code, out, _ = _run(tmp_path, WEB + "---\n" + CACHE, "-o", "json", "--no-suggestions")
    doc = json.loads(out)
    assert code == 0
    # the first attempt as it was: storefront-0 unschedulable (no cache yet), then the cache
    assert [(i["pod"]["name"], i["result"]["status"]) for i in doc["items"]] == [
        (copy_names(WEB, 1)[0], "Unschedulable"), ("session-cache-0", "Scheduled")]
    assert [p["fit"] for p in doc["placements"]] == [0, 1]
    trigger = "pod shop/session-cache-0 bound to zone-a-1 (InterPodAffinity: Queue)"
    assert doc["retries"] == [
        {"object": {"kind": "Deployment", "namespace": "shop", "name": "storefront"}, "pod": name,
         "node": "zone-a-1", "round": 1, "requeuedBy": trigger} for name in copy_names(WEB, 2)]


def test_the_table_and_lint_say_where_they_end_up(tmp_path: Path) -> None:
    code, out, _ = _run(tmp_path, WEB + "---\n" + CACHE, "--no-suggestions")
    assert code == 0
    assert "=== Retried by the scheduling queue (after the pass in creation order)" in out
    assert f"Deployment shop/storefront: {copy_names(WEB, 2)[1]} bound to zone-a-1" in out
    code, out, _ = _run(tmp_path, WEB + "---\n" + CACHE, "lint", "-o", "json")
    findings = json.loads(out)["findings"]
    assert code == 0 and [f["rule"] for f in findings] == ["fits", "fits"]
    first, second = copy_names(WEB, 2)
    assert findings[0]["message"].startswith(f"all 2 replicas fit: {first} on zone-a-1, {second} on "
                                             "zone-a-1 once the scheduling queue retried")


def test_a_pod_no_binding_helps_is_not_retried(tmp_path: Path) -> None:
    """Too big for any node: NodeResourcesFit (and TaintToleration) wait for deletions or node
    changes, not for a pod's binding: no retry, the verdict stands."""
    big = WEB.replace("cpu: 250m", "cpu: \"8\"").replace(
        "      affinity:\n        podAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n"
        "          - labelSelector: {matchLabels: {app: session-cache}}\n"
        "            topologyKey: topology.kubernetes.io/zone\n", "")
    code, out, _ = _run(tmp_path, big + "---\n" + CACHE, "-o", "json", "--no-suggestions")
    doc = json.loads(out)
    assert code == 1 and "retries" not in doc


def test_spread_comes_back_as_pods_bind_elsewhere(tmp_path: Path) -> None:
    """maxSkew 1 over zones, two pods of the app in zone a already: the API pod cannot go to
    zone a (skew) nor b (tainted). The workers, which tolerate the taint, land in zone b after
    it: the first one's binding brings the API pod back (PodTopologySpread: Queue); by its retry
    (after the pass, as the queue's backoff puts it after the set's other pods) both run, zone a
    is only one ahead, and it fits."""
    running = "".join(f"""---
apiVersion: v1
kind: Pod
metadata: {{name: api-old-{i}, namespace: shop, labels: {{tier: api}}}}
spec:
  nodeName: zone-a-1
  containers: [{{name: api, image: api:1, resources: {{requests: {{cpu: 100m}}}}}}]
""" for i in range(2))
    api = """\
apiVersion: v1
kind: Pod
metadata: {name: api, namespace: shop, labels: {tier: api}}
spec:
  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule,
     labelSelector: {matchLabels: {tier: api}}}
  containers: [{name: api, image: api:2, resources: {requests: {cpu: 100m}}}]
"""
    workers = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: api-workers, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {tier: api, role: worker}}
  template:
    metadata: {labels: {tier: api, role: worker}}
    spec:
      tolerations: [{key: dedicated, value: batch, effect: NoSchedule}]
      nodeSelector: {topology.kubernetes.io/zone: eu-west-1b}
      containers: [{name: worker, image: api:2, resources: {requests: {cpu: 100m}}}]
"""
    (tmp_path / "running.yaml").write_text(running)
    code, out, _ = _run(tmp_path, api + "---\n" + workers, "--nodes", str(tmp_path / "running.yaml"),
                        "-o", "json", "--no-suggestions")
    doc = json.loads(out)
    assert code == 0
    assert [(r["pod"], r["node"], r["round"]) for r in doc["retries"]] == [("api", "zone-a-1", 1)]
    assert doc["retries"][0]["requeuedBy"] == (f"pod shop/{copy_names(workers, 1)[0]} bound to zone-b-1 "
                                              "(PodTopologySpread: Queue)")
    assert doc["items"][0]["pod"]["name"] == "api" and doc["items"][0]["result"]["status"] == "Unschedulable"


def test_the_autoscaler_sees_where_the_retry_left_them(tmp_path: Path) -> None:
    """With node groups, the Cluster Autoscaler's pass looks at the cluster as the queue's retry
    leaves it: the storefront copies it placed are bound there, so the loop has nothing pending
    and no copy gets an autoscaler answer (before, each was handed over as pending)."""
    from tests.support.paths import FIXTURES

    (tmp_path / "app.yaml").write_text(WEB.replace("topology.kubernetes.io/zone", "kubernetes.io/hostname")
                                       + "---\n" + CACHE)
    env = TestEnvironment(width=200)
    code = main([str(tmp_path / "app.yaml"), "--nodes", str(FIXTURES / "autoscaler" / "cluster.yaml"),
                 "--node-groups", str(FIXTURES / "autoscaler" / "nodegroups.yaml"), "--no-suggestions", "-o", "json"],
                env=env)
    doc = json.loads(env.out)
    assert code == 0 and [r["node"] is not None for r in doc["retries"]] == [True, True]
    assert [p.get("autoscalers") for p in doc["placements"]] == [None, None]
    assert "autoscaler" not in doc


def test_lint_with_node_groups_judges_where_the_retry_left_them(tmp_path: Path) -> None:
    """lint's no-node-group rule judges the set where the queue's retry leaves it: the storefront
    copies it placed are not pending to the Cluster Autoscaler's loop, and whether a group's new
    node could ever take them is checked with the cache bound in its zone (queue order alone
    checks them before the cache exists: "no node group could ever take its pods")."""
    from tests.support.paths import FIXTURES

    (tmp_path / "app.yaml").write_text(WEB + "---\n" + CACHE)
    env = TestEnvironment(width=200)
    code = main(["lint", str(tmp_path / "app.yaml"), "--nodes", str(FIXTURES / "autoscaler" / "cluster.yaml"),
                 "--node-groups", str(FIXTURES / "autoscaler" / "nodegroups.yaml"), "-o", "json"], env=env)
    findings = json.loads(env.out)["findings"]
    assert code == 0 and [f["rule"] for f in findings] == ["fits", "fits"]
