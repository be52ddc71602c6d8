"""Why the search stopped, as the search section and `--node` say it: at a Filter error (the
cycle ends, exit 3), once enough feasible nodes were found, at the node tried first (the
pod's nominated node, OpportunisticBatching's hint), or at the end of the nodes PreFilter
allowed (names of no node are not "never examined")."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kexplain.cli.app import main
from kexplain.render.views import STOP_END, STOP_ENOUGH, STOP_ERROR, search_figures
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import BUNDLED_CONFORMANCE, FIXTURES
from tests.support.render_helpers import trace_of

ENOUGH = "the search stopped once it had found enough feasible nodes"

# EKS nodes with GPUs; only the first node's driver publishes driverVersion, so the class's
# selector fails at runtime on the second node's devices: v1.35.4 ends the cycle with an Error.
NODES = ["ip-10-0-17-15.ec2.internal", "ip-10-0-23-72.ec2.internal", "ip-10-0-38-132.ec2.internal",
         "ip-10-0-59-154.ec2.internal", "ip-10-0-61-9.ec2.internal"]
NODE = """apiVersion: v1
kind: Node
metadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}}}}}
status: {{allocatable: {{cpu: "8", memory: 32Gi, pods: "110"}}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: {name}-gpu.example.com}}
spec:
  driver: gpu.example.com
  nodeName: {name}
  pool: {{name: {name}, generation: 1, resourceSliceCount: 1}}
  devices:
  - name: gpu-0
    attributes: {attributes}
"""
CLASS = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: current-driver-gpu}
spec:
  selectors:
  - cel: {expression: "device.driver == 'gpu.example.com'"}
  - cel: {expression: "device.attributes['gpu.example.com'].driverVersion >= 535"}
"""
POD = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: catalog-gpu, namespace: prod}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: current-driver-gpu}
---
apiVersion: v1
kind: Namespace
metadata: {name: prod}
---
apiVersion: v1
kind: Pod
metadata: {name: catalog-6cwgng55kf-wj96t, namespace: prod}
spec:
  containers:
  - name: catalog
    image: registry.example.com/catalog:2.3
    resources: {requests: {cpu: 500m, memory: 64Mi}, claims: [{name: gpu}]}
  resourceClaims: [{name: gpu, resourceClaimName: catalog-gpu}]
"""


def kexplain(*args: str) -> tuple[int, str]:
    env = TestEnvironment(width=200)
    code = main(list(args), env=env)
    return code, env.out


def search_rows(text: str) -> dict[str, str]:
    """The search section's rows: label -> value (blanks squeezed)."""
    lines = text.split("\nThe search\n", 1)[1].split("\n\n", 1)[0].splitlines()
    return {line[:24].strip(): " ".join(line[24:].split()) for line in lines}


@pytest.fixture
def error_case(tmp_path: Path) -> tuple[str, str]:
    docs = [NODE.format(name=n, attributes="{driverVersion: {int: 550}}" if i == 0 else "{model: {string: L4}}")
            for i, n in enumerate(NODES)]
    cluster, pod = tmp_path / "cluster.yaml", tmp_path / "pod.yaml"
    cluster.write_text("---\n".join([*docs, CLASS]))
    pod.write_text(POD)
    return str(pod), str(cluster)


def test_an_error_cycle_says_the_search_stopped_at_the_error(error_case):
    pod, cluster = error_case
    code, out = kexplain(pod, "--nodes", cluster)
    assert code == 3
    rows = search_rows(out)
    assert rows["stopped at"] == f"{NODES[1]}, after 2 node(s), where DynamicResources failed with an error"
    assert rows["passed Filter"] == "1 (not scored: the cycle ended with the error)"
    assert rows["never examined"] == (f"3: the scheduler stopped at the Filter error (DynamicResources on "
                                      f"{NODES[1]}): the cycle ended with it, no other node was tried")
    assert "could they win?" not in rows
    assert ENOUGH not in out


def test_an_error_cycle_node_by_node(error_case):
    pod, cluster = error_case
    code, out = kexplain(pod, "--nodes", cluster, "--node", NODES[3])
    assert code == 3
    assert (f"Never examined: the scheduler stopped at the Filter error (DynamicResources on {NODES[1]}): the "
            "cycle ended with it, no other node was tried.") in out
    _, out = kexplain(pod, "--nodes", cluster, "--node", NODES[1])
    verdict = " ".join(out.split("\n\n", 1)[0].splitlines()[2:])     # after the heading and the version
    assert verdict.startswith("Filter failed with an error here: DynamicResources: ")
    assert "CEL runtime error: no such key: driverVersion" in verdict
    assert verdict.endswith("the scheduler stopped at this node and the cycle ended with the error (* below).")
    _, out = kexplain(pod, "--nodes", cluster, "--node", NODES[0])
    assert "Passed Filter; not scored: the cycle ended with the error." in out


def test_enough_feasible_nodes():
    fig = search_figures(trace_of("large-cluster"))
    assert (fig.stop, fig.dropped, fig.never_examined) == (STOP_ENOUGH, "node-101", 19)


def test_every_node_examined():
    fig = search_figures(trace_of("pod-web"))
    assert (fig.stop, fig.never_examined, fig.tried_first) == (STOP_END, 0, None)


def test_the_nominated_node_fits_alone():
    case = BUNDLED_CONFORMANCE / "preemption-0040"
    code, out = kexplain(str(case / "pod.yaml"), "--nodes", str(case / "cluster.yaml"))
    assert code == 0
    rows = search_rows(out)
    node = "gke-prod-pool-1-zszkwpxz-q46x"
    assert rows["tried first"] == (f"{node}, the pod's nominated node (status.nominatedNodeName), filtered alone: "
                                   "it fit, so no other node was filtered")
    assert rows["round-robin started at"] == "index 0: not used, the node tried first fit"
    assert rows["never examined"] == f"3: the node tried first ({node}) fit: the scheduler took it without a search"
    assert ENOUGH not in out


def test_the_batching_hint_fits_alone(tmp_path):
    (tmp_path / "config.yaml").write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
        "- schedulerName: default-scheduler\n  pluginConfig:\n"
        "  - {name: PodTopologySpread, args: {defaultingType: List}}\n")
    nodes = ["gke-prod-pool-1-lr4vs5qw-7njx", "gke-prod-pool-1-lr4vs5qw-hgcm", "gke-prod-pool-2-lr4vs5qw-fkvl"]
    (tmp_path / "cluster.yaml").write_text("---\n".join(
        f"apiVersion: v1\nkind: Node\nmetadata: {{name: {n}, labels: {{kubernetes.io/hostname: {n}}}}}\n"
        'status: {allocatable: {cpu: "1", memory: 4Gi, pods: "110"}}\n' for n in nodes))
    (tmp_path / "pods.yaml").write_text("---\n".join(
        f"apiVersion: v1\nkind: Pod\nmetadata: {{name: metrics-qnlsn5gwg4-{s}, labels: {{app: metrics}}}}\n"
        "spec: {containers: [{name: metrics, image: prom/node-exporter, "
        "resources: {requests: {cpu: 600m, memory: 64Mi}}}]}\n" for s in ("lbx9t", "7qslf")))
    code, out = kexplain(str(tmp_path / "pods.yaml"), "--nodes", str(tmp_path / "cluster.yaml"),
                         "--config", str(tmp_path / "config.yaml"))
    assert code == 0
    second = search_rows(out.split("=== Pod default/metrics-qnlsn5gwg4-7qslf", 1)[1])
    hint = second["tried first"].split(",", 1)[0]
    assert hint in nodes
    assert second["tried first"] == (f"{hint}, OpportunisticBatching's hint (from the previous pod's ranking), "
                                     "filtered alone: it fit, so no other node was filtered")
    assert second["feasible nodes to find"] == "1 (numFeasibleNodesToFind: 1, the hinted node alone)"
    assert second["never examined"] == f"2: the node tried first ({hint}) fit: the scheduler took it without a search"


def test_names_prefilter_narrowed_to_that_name_no_node(tmp_path):
    pod = tmp_path / "pod.yaml"
    terms = "".join(f"        - matchFields: [{{key: metadata.name, operator: In, values: [{n}]}}]\n"
                    for n in ("node-1", "node-2", "node-9"))
    pod.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  affinity:\n    nodeAffinity:\n"
                   "      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n" + terms
                   + "  containers: [{name: c, image: nginx, resources: {requests: {cpu: 500m}}}]\n")
    code, out = kexplain(str(pod), "--nodes", str(FIXTURES / "cluster.yaml"))
    assert code == 0
    rows = search_rows(out)
    assert rows["never examined"] == "0: every node was looked at"
    assert rows["names of no node"] == ("1 of the node names PreFilter narrowed the search to (no such node in "
                                        "the cluster)")
    assert rows["left out by PreFilter"].startswith("4 ")
    assert ENOUGH not in out


def test_error_figures(error_case):
    pod, cluster = error_case
    env = TestEnvironment()
    main([pod, "--nodes", cluster, "-o", "json"], env=env)
    fig = search_figures(json.loads(env.out))
    assert (fig.stop, fig.error_node, fig.error_plugin, fig.never_examined, fig.dropped) == (
        STOP_ERROR, NODES[1], "DynamicResources", 3, None)
