"""The cluster is checked and admitted once: `kexplain POD --node-groups` reads it into a cluster
state (`kexplain.state.ClusterState`) for the scheduler — a batch's pool, or one pod's cluster
as admitted with it (`Inputs.state`) — and CA's loop reads that state (`inputs.loop_of_state`),
its overlays copy-on-write, instead of checking and admitting the cluster's objects again.
The same on every path CA's loop takes: `kexplain autoscale` (the cluster read into the one state
once, by the PODS file's pass or with its pods: `app.autoscale`), live `--pending` (the session's
state, stored: CA's loop admits it, once) and lint's CA pass (the lint pool's state).
Counted: how many calls of admission (`admission.admit`) and of kubectl's checks
(`load.manifests.check_objects`) are handed the cluster's Nodes. And one pod's state gives CA
the loop the cluster read again gives (`loop_of_read`): the same snapshot, objects and pods."""
from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

import kexplain.autoscaler.pending  # noqa: F401  (every reader of the cluster loaded: their names patched)
import kexplain.app.autoscale  # noqa: F401
import kexplain.app.cluster_autoscaler  # noqa: F401
import kexplain.lint.linter  # noqa: F401
import kexplain.app.explain  # noqa: F401
import kexplain.explain.inputs  # noqa: F401
import kexplain.state.cluster  # noqa: F401
from kexplain.admission import pipeline
from kexplain.autoscaler.cloudprovider import Discovery
from kexplain.autoscaler.inputs import LoopInputs
from kexplain.autoscaler.pending import GroupsRequest, load_groups
from kexplain.cli.app import main
from kexplain.explain.inputs import load
from kexplain.explain.pending_pass import PassBuilder
from kexplain.explain.request import Request
from kexplain.features import KubeVersion
from kexplain.load import manifests
from tests.support.admissions import counting
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import DATA, FIXTURES

CASE = FIXTURES / "autoscaler"
DEPLOYMENT = (DATA / "autoscaler" / "worker-deployment.yaml").read_text()   # 3 replicas: a batch
POD = (CASE / "pod.yaml").read_text()       # needs 3 CPUs: no node has them free
TWO_PODS = POD + "\n---\n" + POD.replace("name: ", "name: second-", 1)
GP3 = """apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: gp3}
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
"""
# One pod each (the single path): in the cluster's namespace; in one the API server creates for
# it alone; fitting (CA's loop read all the same); with a claim of its file; a StatefulSet's one
# copy with its claim; with a generic ephemeral volume's claim.
SINGLE = {
    "pod": POD,
    "new-namespace": POD.replace("namespace: default", "namespace: team"),
    "fits": POD.replace('cpu: "3"', "cpu: 100m"),
    "claim": GP3 + """---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: scratch}
spec: {storageClassName: gp3, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
---
apiVersion: v1
kind: Pod
metadata: {name: uses-scratch}
spec:
  containers: [{name: c, image: x:1, resources: {requests: {cpu: "3"}}, volumeMounts: [{name: s, mountPath: /s}]}]
  volumes: [{name: s, persistentVolumeClaim: {claimName: scratch}}]
""",
    "statefulset": GP3 + """---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: data}
spec:
  replicas: 1
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: c, image: db:1, resources: {requests: {cpu: "3"}}, volumeMounts: [{name: d, mountPath: /d}]}]
  volumeClaimTemplates:
  - metadata: {name: d}
    spec: {storageClassName: gp3, accessModes: [ReadWriteOnce], resources: {requests: {storage: 10Gi}}}
""",
    "ephemeral": GP3 + """---
apiVersion: v1
kind: Pod
metadata: {name: eph}
spec:
  containers: [{name: c, image: x:1, resources: {requests: {cpu: "3"}}}]
  volumes:
  - name: tmp
    ephemeral:
      volumeClaimTemplate:
        spec: {storageClassName: gp3, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
""",
}



@pytest.mark.parametrize("pods", [DEPLOYMENT, TWO_PODS, *SINGLE.values()],
                         ids=["deployment", "two-pods", *(f"single-{name}" for name in SINGLE)])
@pytest.mark.parametrize("counted", [(pipeline, "admit"), (manifests, "check_objects")],
                         ids=["admit", "check_objects"])
def test_the_cluster_is_admitted_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pods: str,
                                      counted: tuple[Any, str]) -> None:
    module, name = counted
    calls = counting(monkeypatch, getattr(module, name), name)
    path = tmp_path / "pods.yaml"
    path.write_text(pods)
    env = TestEnvironment(width=100)
    code = main([str(path), "--nodes", str(CASE / "cluster.yaml"), "--node-groups", str(CASE / "nodegroups.yaml"),
                 "--kubernetes-version", "1.35", "--no-suggestions", "-o", "json"], env=env)
    assert code in (0, 1), env.err
    assert ('"autoscaler"' in env.out) is (pods != SINGLE["fits"])      # CA's loop ran (read only, for one that fits)
    assert len(calls) == 1, calls


@pytest.mark.parametrize("pods", [DEPLOYMENT, TWO_PODS, *SINGLE.values()],
                         ids=["deployment", "two-pods", *(f"single-{name}" for name in SINGLE)])
@pytest.mark.parametrize("counted", [(pipeline, "admit"), (manifests, "check_objects")],
                         ids=["admit", "check_objects"])
def test_autoscale_admits_the_cluster_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pods: str,
                                           counted: tuple[Any, str]) -> None:
    """`kexplain autoscale`: the workloads' pass reads the cluster into the one state and CA's loop
    reads that state (its given pods joining it), or the cluster is read into it with the file's pods."""
    module, name = counted
    calls = counting(monkeypatch, getattr(module, name), name)
    path = tmp_path / "pods.yaml"
    path.write_text(pods)
    env = TestEnvironment(width=100)
    code = main(["autoscale", str(path), "--nodes", str(CASE / "cluster.yaml"), "--node-groups",
                 str(CASE / "nodegroups.yaml"), "--kubernetes-version", "1.35", "-o", "json"], env=env)
    assert code in (0, 1), env.err
    assert json.loads(env.out)["pods"]
    assert len(calls) == 1, calls


@pytest.mark.parametrize("stored", [False, True], ids=["admitted", "stored"])
@pytest.mark.parametrize("counted", [(pipeline, "admit"), (manifests, "check_objects")],
                         ids=["admit", "check_objects"])
def test_lint_node_groups_reads_the_pool_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stored: bool,
                                              counted: tuple[Any, str]) -> None:
    """`kexplain lint --node-groups`: CA's loop reads the lint pool's state, never --nodes again; a
    pool read as stored (--stored: only decoded, not counted) is checked and admitted once, by CA's loop."""
    module, name = counted
    calls = counting(monkeypatch, getattr(module, name), name, stored=False)
    path = tmp_path / "objects.yaml"
    path.write_text(DEPLOYMENT)
    env = TestEnvironment(width=100)
    code = main(["lint", str(path), "--nodes", str(CASE / "cluster.yaml"), "--node-groups",
                 str(CASE / "nodegroups.yaml"), "--kubernetes-version", "1.35", "-o", "json",
                 *(["--stored"] if stored else [])], env=env)
    assert code in (0, 1), env.err
    assert json.loads(env.out)["scheduling"]
    assert len(calls) == 1, calls


def _loop_facts(loop: LoopInputs) -> str:
    """What CA's loop reads of its inputs: the snapshot's nodes with their pods, namespaces and
    objects, the nodes' facts, the groups' members, DaemonSets, ConfigMaps and Jobs."""
    snapshot = loop.snapshot
    return json.dumps({
        "nodes": [(ni.name, [p.key for p in ni.pods]) for ni in snapshot.node_infos],
        "namespaces": snapshot.namespaces,
        "objects": {kind: sorted(objs, key=lambda o: json.dumps(o, sort_keys=True, default=str))
                    for kind, objs in sorted(snapshot.objects.items())},
        "pods": [p.obj for ni in snapshot.node_infos for p in ni.pods],
        "facts": [repr(f) for f in loop.nodes], "members": loop.group_members,
        "daemonsets": loop.daemonsets, "config_maps": loop.config_maps, "jobs": loop.jobs,
    }, sort_keys=True, default=str)


@pytest.mark.parametrize("pods", SINGLE.values(), ids=SINGLE.keys())
def test_one_pods_state_is_the_cluster_read_again(tmp_path: Path, pods: str) -> None:
    """CA's loop over one pod's cluster state (`Inputs.state`) is the loop over the cluster read
    and admitted again (`loop_of_read`), with the pod's set applied: a namespace created for the pod
    alone is none of the cluster's."""
    path = tmp_path / "pods.yaml"
    path.write_text(pods)
    kube = KubeVersion("1.35")
    req = Request(pod_path=str(path), node_paths=(str(CASE / "cluster.yaml"),), kube=kube)
    loaded = load(req, keep=True)
    assert loaded.single is not None and loaded.single.state is not None
    assert loaded.cluster_state is loaded.single.state
    builder = PassBuilder()
    builder.add_objects(loaded.set_objects, loaded.set_created)
    builder.add_single(loaded.single)
    pp = builder.build()
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    groups = Discovery.from_file(str(CASE / "nodegroups.yaml"))
    again = GroupsRequest(groups, cluster_objects=loaded.cluster_objects)
    read_again = load_groups(again, kube, now=now, applied=pp)
    from_state = load_groups(GroupsRequest(groups, state=loaded.single.state), kube, now=now,
                             applied=pp)
    assert _loop_facts(from_state) == _loop_facts(read_again)
    assert "team" not in loaded.single.state.snapshot.namespaces     # (created for the pod alone)


@pytest.mark.parametrize("named", [False, True], ids=["pending", "pod-name"])
@pytest.mark.parametrize("counted", [(pipeline, "admit"), (manifests, "check_objects")],
                         ids=["admit", "check_objects"])
def test_live_pending_checks_and_admits_the_cluster_once(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         counted: tuple[Any, str], named: bool) -> None:
    """Live `--pending` (and `pod NAME`) with node groups: the scheduler's side reads the stored
    objects as listed (no check, no admission) into the session's one state, and CA's loop
    (`live_groups`) reads that state, checking and admitting the cluster once."""
    from tests.autoscaler.test_cloudprovider_live import CHECKOUT, TOKEN, serve_status
    from tests.support.live_server import isolate, recorded_api

    isolate(monkeypatch, tmp_path / "home")
    module, name = counted
    calls = counting(monkeypatch, getattr(module, name), name)
    with recorded_api(tmp_path, TOKEN) as api:
        serve_status(api)
        code = main(["pod", *([CHECKOUT] if named else ["--pending"]), "-n", "shop", "--kubeconfig", api.kubeconfig,
                     "-o", "json"])
    out, err = capsys.readouterr()
    assert code == 1, err
    pods = json.loads(out)["autoscaler"]["pods"]
    assert f"shop/{CHECKOUT}" in [f"{p['namespace']}/{p['name']}" for p in pods]
    assert len(calls) == 1, calls
