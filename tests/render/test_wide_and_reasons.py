"""The table says what a reason leaves out and never cuts a header: NodeDeclaredFeatures' missing
features beside its reason; in `-o wide`, columns that do not fit go on in a table of their own
(resources, weighted scores) instead of breaking their headers inside a word."""
from __future__ import annotations

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES, TESTS


def test_a_declared_features_rejection_names_the_missing_feature():
    data = TESTS / "data" / "versions" / "declared-features"
    env = TestEnvironment()
    code = main([str(data / "pod.yaml"), "--nodes", str(data / "cluster.yaml"), "--kubernetes-version", "1.36"],
                env=env)
    assert code == 0
    (row,) = [i for i, line in enumerate(env.out.splitlines()) if "NodeDeclaredFeatures" in line]
    assert env.out.splitlines()[row].startswith("node(s) didn't match Pod's required features")
    assert env.out.splitlines()[row + 1] == "(missing: RestartAllContainersOnContainerExits)"


# -- -o wide: headers whole ------------------------------------------------------------------------
def test_wide_headers_never_break_inside_a_word(tmp_path):
    node = """apiVersion: v1
kind: Node
metadata: {name: gpu-node-with-a-long-name-1, labels: {kubernetes.io/hostname: gpu-node-with-a-long-name-1}}
status:
  capacity: {cpu: "64", memory: 512Gi, pods: "110", ephemeral-storage: 1Ti, nvidia.com/gpu: "8",
             hugepages-2Mi: 1Gi, example.com/fpga-accelerator: "2", rdma/hca_shared_devices_a: "100"}
"""
    pod = """apiVersion: v1
kind: Pod
metadata: {name: trainer}
spec:
  containers:
  - name: trainer
    image: registry.example.com/trainer:1
    resources:
      requests: {cpu: "100", nvidia.com/gpu: "1", example.com/fpga-accelerator: "1", rdma/hca_shared_devices_a: "1"}
      limits: {nvidia.com/gpu: "1", example.com/fpga-accelerator: "1", rdma/hca_shared_devices_a: "1"}
"""
    (tmp_path / "app.yaml").write_text(pod)
    (tmp_path / "cluster.yaml").write_text(node)
    env = TestEnvironment()
    main([str(tmp_path / "app.yaml"), "--nodes", str(tmp_path / "cluster.yaml"), "-o", "wide"], env=env)
    words = set(env.out.split())
    for header in ("cpu", "memory", "ephemeral-storage", "hugepages-2Mi", "nvidia.com/gpu",
                   "example.com/fpga-accelerator", "rdma/hca_shared_devices_a", "pods"):
        assert header in words, header
    assert all(len(line) <= 80 for line in env.out.splitlines() if not line.startswith("  Warning"))




def test_wide_score_columns_go_on_in_another_table_when_narrow(tmp_path):
    pod = """apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  affinity:
    nodeAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - {weight: 10, preference: {matchExpressions: [{key: disktype, operator: In, values: [ssd]}]}}
  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway,
     labelSelector: {matchLabels: {app: web}}}
  containers: [{name: web, image: nginx, resources: {requests: {cpu: 100m, memory: 100Mi}}}]
"""
    (tmp_path / "app.yaml").write_text(pod)
    env = TestEnvironment(width=40)
    main([str(tmp_path / "app.yaml"), "--nodes", str(FIXTURES / "cluster.yaml"), "-o", "wide"],
         env=env)
    header_lines = [line for line in env.out.splitlines() if line.startswith(" #   ")]
    headers = {word for line in header_lines for word in line.split()}
    assert {"Taint", "NodeAff", "Fit", "Spread", "Balanced", "Image"} <= headers
    assert "(continued)" in env.out.splitlines()
