"""A Deployment or StatefulSet the cluster runs, applied again (`kexplain FILE --nodes CLUSTER`,
`kexplain lint`, `kexplain karpenter`): as `kubectl apply` and its controllers leave it, only the
pods they create now are placed, beside the running ones (or where the ones they delete were)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kexplain.cli.app import main
from kexplain.controllers import controller_utils as cu
from kexplain.controllers.workloads import statefulset_claims
from kexplain.features import DEFAULT
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES

RUNNING = {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}


def _node(name: str, cpu: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}}


def _template(app: str, image: str) -> dict[str, Any]:
    return {"metadata": {"labels": {"app": app}},
            "spec": {"containers": [{"name": app, "image": image, "resources": {"requests": {"cpu": "1"}}}]}}


def deployment(replicas: int, image: str = "nginx:1", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                     "template": _template("web", image), **spec}}


def statefulset(replicas: int, image: str = "postgres:16", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": "default"},
            "spec": {"replicas": replicas, "serviceName": "db", "selector": {"matchLabels": {"app": "db"}},
                     "template": _template("db", image), **spec}}


def _owned(kind: str, name: str, uid: str) -> list[dict[str, Any]]:
    return [{"apiVersion": "apps/v1", "kind": kind, "name": name, "uid": uid, "controller": True}]


def running_deployment(nodes: list[str], template: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """A Deployment of one pod per node in `nodes`, with its ReplicaSet and pods, as a cluster stores them."""
    live = deployment(len(nodes))
    if template is not None:
        live["spec"]["template"] = template
    live["metadata"]["uid"] = "web-uid"
    template_hash = cu.pod_template_hash(live["spec"]["template"], DEFAULT)
    labels = {"app": "web", "pod-template-hash": template_hash}
    rs_name = f"web-{template_hash}"
    template = {"metadata": {"labels": labels}, "spec": live["spec"]["template"]["spec"]}
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
          "metadata": {"name": rs_name, "namespace": "default", "uid": "rs-uid", "labels": labels,
                       "ownerReferences": _owned("Deployment", "web", "web-uid")},
          "spec": {"replicas": len(nodes), "selector": {"matchLabels": labels}, "template": template}}
    pods = [{"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": f"{rs_name}-{i}", "namespace": "default", "labels": labels,
                          "ownerReferences": _owned("ReplicaSet", rs_name, "rs-uid")},
             "spec": {**template["spec"], "nodeName": node}, "status": RUNNING} for i, node in enumerate(nodes)]
    return [live, rs, *pods]


def running_statefulset(nodes: list[str]) -> list[dict[str, Any]]:
    live = statefulset(len(nodes))
    live["metadata"]["uid"] = "db-uid"
    pods = [{"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": f"db-{i}", "namespace": "default", "labels": {"app": "db"},
                          "ownerReferences": _owned("StatefulSet", "db", "db-uid")},
             "spec": {**live["spec"]["template"]["spec"], "nodeName": node, "hostname": f"db-{i}", "subdomain": "db"},
             "status": RUNNING} for i, node in enumerate(nodes)]
    return [live, *pods]


def run(tmp_path: Path, applied: dict[str, Any], cluster: list[dict[str, Any]], *argv: str
        ) -> tuple[int, dict[str, Any], str]:
    pods, nodes = tmp_path / "apply.yaml", tmp_path / "cluster.yaml"
    pods.write_text(yaml.safe_dump(applied))
    nodes.write_text(yaml.safe_dump_all(cluster))
    env = TestEnvironment()
    command, more = (list(argv[:1]), list(argv[1:])) if argv[:1] == ("karpenter",) else ([], list(argv))
    code = main([*command, str(pods), "--nodes", str(nodes), *more, "-o", "json"], env)
    return code, json.loads(env.out) if env.out.strip() else {}, env.err


ROOMY = [_node("n0", "2"), _node("n1", "2")]        # a pod each running: room for two more
FULL = [_node("n0", "1"), _node("n1", "1")]         # a pod each running: no room


def test_a_scale_places_only_the_new_pod(tmp_path: Path) -> None:
    """2 -> 3 on a cluster with room for one more: one pod of its ReplicaSet, which fits."""
    code, doc, err = run(tmp_path, deployment(3), ROOMY + running_deployment(["n0", "n1"]))
    assert code == 0, err
    assert doc["kind"] == "SchedulingTrace" and doc["result"]["status"] == "Scheduled"
    assert doc["reapplied"]["replicas"] == {"from": 2, "to": 3}
    assert (doc["reapplied"]["created"], doc["reapplied"]["templateChanged"]) == (1, False)
    assert "Deployment default/web exists on the cluster: scaled 2 -> 3, the same template: its ReplicaSet web-" in err


def test_the_same_deployment_places_nothing(tmp_path: Path) -> None:
    code, doc, err = run(tmp_path, deployment(2), FULL + running_deployment(["n0", "n1"]))
    assert (code, doc) == (0, {})
    assert "note: " in err and "Deployment default/web: it exists on the cluster: 2 replicas, the same template" in err
    assert "no new pod" in err


@pytest.mark.parametrize("strategy, status, fit", [
    ({}, 1, 0),                                     # RollingUpdate: one new pod beside the old ones: no room
    ({"strategy": {"type": "Recreate"}}, 0, 2),     # Recreate: the old pods go first, the new ones take their room
])
def test_a_new_template_rolls_out_by_its_strategy(tmp_path: Path, strategy: dict[str, Any], status: int,
                                                  fit: int) -> None:
    code, doc, err = run(tmp_path, deployment(2, "nginx:2", **strategy), FULL + running_deployment(["n0", "n1"]))
    assert code == status, err
    if strategy:
        placement = doc["placements"][0]
        assert (placement["replicas"], placement["fit"]) == (2, fit)
        assert len(placement["reapplied"]["deleted"]) == 2
    else:
        assert doc["result"]["status"] == "Unschedulable" and doc["reapplied"]["created"] == 1
        assert "maxSurge 1, maxUnavailable 0" in doc["reapplied"]["message"]


def test_a_statefulset_scale_creates_the_next_ordinal(tmp_path: Path) -> None:
    code, doc, err = run(tmp_path, statefulset(3), ROOMY + running_statefulset(["n0", "n1"]))
    assert code == 0, err
    assert doc["pod"]["name"] == "db-2" and doc["result"]["status"] == "Scheduled"
    assert "already exists" not in err


def test_a_statefulset_rolling_update_replaces_its_highest_ordinal(tmp_path: Path) -> None:
    """db-1 deleted and created again with the new template: it takes its own room back."""
    code, doc, err = run(tmp_path, statefulset(2, "postgres:17"), FULL + running_statefulset(["n0", "n1"]))
    assert code == 0, err
    assert doc["pod"]["name"] == "db-1" and doc["result"]["status"] == "Scheduled"
    assert doc["reapplied"]["deleted"] == ["db-1"]


def test_a_statefulset_on_delete_creates_nothing(tmp_path: Path) -> None:
    code, doc, err = run(tmp_path, statefulset(2, "postgres:17", updateStrategy={"type": "OnDelete"}),
                         FULL + running_statefulset(["n0", "n1"]))
    assert (code, doc) == (0, {}) and "updateStrategy OnDelete" in err


def test_the_claims_of_the_ordinals_created() -> None:
    sts = statefulset(3, volumeClaimTemplates=[{"metadata": {"name": "data"}, "spec": {}}])
    assert [c["metadata"]["name"] for c in statefulset_claims(sts, 1, 2)] == ["data-db-2"]


def test_lint_places_only_the_new_pod(tmp_path: Path) -> None:
    pods, nodes = tmp_path / "apply.yaml", tmp_path / "cluster.yaml"
    pods.write_text(yaml.safe_dump(deployment(3)))
    nodes.write_text(yaml.safe_dump_all([_node("n0", "2"), _node("n1", "1")] + running_deployment(["n0", "n1"])))
    env = TestEnvironment()
    code = main(["lint", str(pods), "--nodes", str(nodes), "-o", "json"], env)
    assert code == 0, env.out
    findings = json.loads(env.out)["findings"]
    assert [f["rule"] for f in findings] == ["fits"]
    assert findings[0]["details"]["reapplied"]["created"] == 1


@pytest.mark.parametrize("replicas, said", [(4, "scaled 3 -> 4"), (3, "keeps 3 pods, no new pod")])
def test_karpenter_is_asked_only_for_the_new_pods(tmp_path: Path, replicas: int, said: str) -> None:
    """The bundled web.yaml where 3 replicas run on a node with room for one more: at 4 replicas
    its one new pod goes there, at 3 none is created; Karpenter is asked for no node either way
    (not for 4 or 3 pods' NodeClaim)."""
    web = yaml.safe_load((FIXTURES / "karpenter" / "web.yaml").read_text())
    running = running_deployment(["big", "big", "big"], web["spec"]["template"])
    web["spec"]["replicas"] = replicas
    case = FIXTURES / "karpenter"
    code, doc, err = run(tmp_path, web, [_node("big", "4"), *running], "karpenter",
                         "--nodes", str(case / "cluster.yaml"), "--nodes", str(case / "nodepools.yaml"))
    assert code == 0, err
    assert (doc["summary"], doc["pods"]) == ({"pods": {}, "newNodeClaims": 0}, [])
    assert said in err and "error" not in err


def test_a_statefulset_with_its_running_pod_in_the_file_places_the_next_ordinal(tmp_path: Path) -> None:
    """`kubectl get statefulset,pods -o yaml`: db-0 runs, the controller creates db-1 (not db-0 again)."""
    sts, pod = running_statefulset(["n0"])
    sts["spec"]["replicas"] = 2
    pods, nodes = tmp_path / "ns.yaml", tmp_path / "nodes.yaml"
    pods.write_text(yaml.safe_dump_all([sts, pod]))
    nodes.write_text(yaml.safe_dump_all(ROOMY))
    env = TestEnvironment()
    code = main([str(pods), "--nodes", str(nodes), "-o", "json"], env)
    assert code == 0, env.err
    assert json.loads(env.out)["pod"]["name"] == "db-1"


@pytest.mark.parametrize("command", [[], ["lint", "-o", "json"]])
def test_a_snapshot_without_its_deployment(tmp_path: Path, command: list[str]) -> None:
    """A `kexplain snapshot` lists ReplicaSets, not Deployments: the Deployment is read off them."""
    cluster = [o for o in ROOMY + running_deployment(["n0", "n1"]) if o["kind"] != "Deployment"]
    pods, nodes = tmp_path / "apply.yaml", tmp_path / "cluster.yaml"
    pods.write_text(yaml.safe_dump(deployment(3)))
    nodes.write_text(yaml.safe_dump_all(cluster))
    env = TestEnvironment()
    code = main([*command, str(pods), "--nodes", str(nodes), *([] if command else ["-o", "json"])], env)
    assert code == 0, env.err + env.out
    assert "exists on the cluster: scaled 2 -> 3" in env.err + env.out


@pytest.mark.parametrize("applied, said", [
    ("web.yaml", "Deployment default/web exists on the cluster: scaled 2 -&gt; 3"),          # one pod's page
    ("web-recreate.yaml", "Deployment default/web exists on the cluster: 2 replicas, another template (Recreate)"),
])
def test_the_page_says_it(tmp_path: Path, applied: str, said: str) -> None:
    page = tmp_path / "page.html"
    case = FIXTURES / "reapply"
    main([str(case / applied), "--nodes", str(case / "cluster.yaml"), "--html", str(page)], TestEnvironment())
    assert said in page.read_text()
