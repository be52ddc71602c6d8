"""Topology-aware scheduling: the bundled TAS cases (among tests/kueue/cases, copied unchanged from
../shared/kueue: test_cases.py runs them against both releases); the snapshot's Nodes and usage, the placement and Kueue's
texts, the v1beta2 encodings, the explanation beyond Kueue's line, and the chain to the scheduler."""
from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from kexplain.apimachinery.stored_pods import StoredPod, decode_view

from kexplain.errors import AdmissionRejected
from kexplain.kueue.apis.topology import (DomainAssignment, TopologyAssignment, TopologyRequest, internal_from,
                                          parse_topology, request_from_annotations, v1beta2)
from kexplain.kueue.cache.tas_cache import TASCache, non_tas_usage, schedulable_and_ready
from kexplain.kueue.cache.tas_snapshot import PodSetRequest, TASFlavorSnapshot
from kexplain.kueue.podset import merged, PodSetInfo, topology_selector
from tests.kueue.test_cases import cases
from tests.support.cli_helpers import run_cli
from tests.support.paths import TESTS

TAS_CASES = TESTS / "kueue" / "cases"
HOST = "kubernetes.io/hostname"
LEVELS = ("block", "rack", HOST)
GPU = "nvidia.com/gpu"


def test_the_bundled_tas_cases_hold_a_failure_a_spread_and_admitted_usage() -> None:
    assert [c.name for c in cases(TAS_CASES) if c.name.startswith("tas-")] == ["tas-0124", "tas-0140", "tas-0156"]


# -- the snapshot --------------------------------------------------------------------------------
def node(name: str, block: str, rack: str, gpus: int = 8, *, ready: bool = True, unschedulable: bool = False,
         taints: list | None = None, pool: str = "h100") -> dict:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"block": block, "rack": rack, HOST: name, "pool": pool}},
            "spec": {"unschedulable": unschedulable, **({"taints": taints} if taints else {})},
            "status": {"allocatable": {"cpu": "96", "memory": "1Ti", "pods": "110", GPU: str(gpus)},
                       "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}}


def pod(node_name: str, gpus: int, *, phase: str = "Running", annotations: dict | None = None) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p-{node_name}", "annotations": annotations or {}},
            "spec": {"nodeName": node_name, "containers": [{"name": "c", "resources": {"requests": {GPU: str(gpus)}}}]},
            "status": {"phase": phase}}


def snapshot(nodes: list[dict], pods: list[dict] = ()) -> TASFlavorSnapshot:
    from kexplain.kueue.apis.meta import ObjectMeta
    from kexplain.kueue.apis.resourceflavor import ResourceFlavor
    from kexplain.kueue.apis.topology import Topology
    flavor = ResourceFlavor(ObjectMeta(name="tas"), node_labels={"pool": "h100"}, topology_name="topo")
    cache = TASCache.build({"topo": Topology(ObjectMeta(name="topo"), LEVELS)}, {"tas": flavor}, nodes, pods)
    return cache.snapshots([])["tas"]


def request(count: int, gpus: int = 8, spec: dict | None = None, **kw) -> PodSetRequest:
    return PodSetRequest("main", count, {GPU: gpus}, spec or {}, TopologyRequest(**kw) if kw else None, not kw)


RACKS = [node("n1", "b1", "r1"), node("n2", "b1", "r1"), node("n3", "b1", "r2"), node("n4", "b2", "r3")]


def test_nodes_not_ready_or_unschedulable_and_other_flavors_nodes_are_left_out() -> None:
    nodes = [*RACKS, node("n5", "b2", "r3", ready=False), node("n6", "b2", "r3", unschedulable=True),
             node("n7", "b2", "r3", pool="a100")]
    assert not schedulable_and_ready(nodes[4]) and not schedulable_and_ready(nodes[5])
    assert sorted(snapshot(nodes).leaves) == ["n1", "n2", "n3", "n4"]


def test_bound_pods_use_their_nodes_unless_terminated_or_placed_by_tas() -> None:
    tas_pod = pod("n2", 8, annotations={"kueue.x-k8s.io/podset-required-topology": "rack"})
    assert non_tas_usage(pod("n1", 4, phase="Succeeded")) is None and non_tas_usage(tas_pod) is None
    snap = snapshot(RACKS, [pod("n1", 4), tas_pod, pod("n3", 8, phase="Failed")])
    assert snap.leaves["n1"].free[GPU] == 4 and snap.leaves["n1"].free["pods"] == 109
    assert snap.leaves["n2"].free[GPU] == 8 and snap.leaves["n3"].free[GPU] == 8


def stored(obj: dict) -> StoredPod:
    raw = json.dumps(obj).encode()
    return StoredPod(msgspec.Raw(raw), decode_view(raw))


def test_a_dumps_bound_pods_are_counted_from_their_views_as_their_objects_would_be() -> None:
    sidecar = {"name": "s", "restartPolicy": "Always", "resources": {"requests": {"cpu": "250m", "memory": "1Gi"}}}
    pods = [pod("n1", 4), pod("n1", 4, annotations={"team": "a"}), pod("n2", 2, phase="Succeeded"),
            pod("n2", 8, annotations={"kueue.x-k8s.io/podset-unconstrained-topology": "true"}),
            {**pod("n3", 1), "status": {}}]
    pods[4]["spec"].update(initContainers=[sidecar, {"name": "i", "resources": {"requests": {"cpu": "3"}}}],
                           overhead={"cpu": "100m"})
    shapes: dict = {}
    views = [stored(p) for p in pods]
    assert [non_tas_usage(v, shapes) for v in views] == [non_tas_usage(p) for p in pods]
    assert non_tas_usage(views[4], shapes) == ("n3", {"cpu": 3350, "memory": 1 << 30, GPU: 1, "pods": 1})
    assert all(v._obj is None for v in views)          # (no pod decoded whole)
    assert len(shapes) == 2


def test_required_rack_fails_with_kueues_text_and_preferred_climbs_to_the_block() -> None:
    snap = snapshot(RACKS)
    failed = snap.find(request(3, required="rack"), {})
    assert failed.assignment is None
    assert failed.reason == 'topology "topo" allows to fit only 2 out of 3 pod(s)'
    placed = snap.find(request(3, preferred="rack"), {})
    assert placed.assignment == TopologyAssignment((HOST,), (DomainAssignment(("n1",), 1), DomainAssignment(("n2",), 1),
                                                             DomainAssignment(("n3",), 1)))
    assert snap.find(request(5, preferred="rack"), {}).reason == \
        'topology "topo" allows to fit only 4 out of 5 pod(s)'


def test_excluded_nodes_are_counted_in_the_message() -> None:
    taint = {"key": "gpu", "value": "broken", "effect": "NoSchedule"}
    snap = snapshot([node("n1", "b1", "r1", taints=[taint]), node("n2", "b1", "r1", gpus=4)])
    placement = snap.find(request(1, required="rack"), {})
    assert placement.reason == ('topology "topo" doesn\'t allow to fit any of 1 pod(s). Total nodes: 2; excluded: '
                                'resource "nvidia.com/gpu": 1, taint "gpu=broken:NoSchedule": 1')


def test_the_implicit_request_places_at_the_lowest_level_least_free_first() -> None:
    snap = snapshot(RACKS, [pod("n4", 4)])
    placed = snap.find(request(1, gpus=4), {})
    assert placed.assignment is not None and placed.assignment.domains == (DomainAssignment(("n4",), 1),)


# -- the API -------------------------------------------------------------------------------------
def test_the_v1beta2_encoding_compacts_prefixes_and_v019_splits_hostname_runs() -> None:
    hosts = [f"gke-prod-a-pool-{i}" for i in range(20)] + [f"eks-batch-b-{i}" for i in range(20)]
    ta = TopologyAssignment((HOST,), tuple(DomainAssignment((h,), 1) for h in hosts))
    single = v1beta2(ta)
    assert single["slices"][0]["valuesPerLevel"] == [{"individual": {"roots": hosts}}]
    assert single["slices"][0]["podCounts"] == {"universal": 1}
    runs = v1beta2(ta, by_hostname_prefix=True)         # shorter than one slice: two runs
    assert [s["valuesPerLevel"][0]["individual"]["prefix"] for s in runs["slices"]] == ["gke-prod-a-pool-",
                                                                                          "eks-batch-b-"]
    assert internal_from(runs) == ta and internal_from(single) == ta
    few = TopologyAssignment((HOST,), ta.domains[:2] + ta.domains[-1:])
    assert v1beta2(few, by_hostname_prefix=True) == v1beta2(few)     # one slice is shorter: kept
    one = TopologyAssignment((HOST,), (DomainAssignment(("gpu-1",), 2),))
    assert v1beta2(one)["slices"][0]["valuesPerLevel"] == [{"universal": "gpu-1"}]


def test_topology_requests_from_annotations_and_the_topology_schema() -> None:
    assert request_from_annotations({}) is None
    assert request_from_annotations({"kueue.x-k8s.io/podset-unconstrained-topology": "true"}) == \
        TopologyRequest(unconstrained=True)
    req = request_from_annotations({"kueue.x-k8s.io/podset-required-topology": "rack",
                                    "kueue.x-k8s.io/podset-preferred-topology": "block"})
    assert req == TopologyRequest(required="rack") and req.explicit()
    topo = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Topology", "metadata": {"name": "t"},
            "spec": {"levels": [{"nodeLabel": HOST}, {"nodeLabel": "rack"}]}}
    with pytest.raises(AdmissionRejected, match="the kubernetes.io/hostname label can only be used at the lowest"):
        parse_topology(topo)
    assert parse_topology({**topo, "apiVersion": "kueue.x-k8s.io/v1beta1",
                           "spec": {"levels": [{"nodeLabel": "rack"}, {"nodeLabel": HOST}]}}).levels == ("rack", HOST)


def test_the_pods_carry_the_domains_labels() -> None:
    ta = TopologyAssignment(LEVELS, (DomainAssignment(("b1", "r1", "n1"), 1), DomainAssignment(("b1", "r1", "n2"), 1)))
    common, spread = topology_selector(ta)
    assert common == {"block": "b1", "rack": "r1"} and spread == ((HOST, ("n1", "n2")),)
    template = merged({"spec": {"nodeSelector": {"pool": "h100"}}},
                      PodSetInfo("main", 2, node_selector=common, topology_in=spread))
    assert template["spec"]["nodeSelector"] == {"pool": "h100", "block": "b1", "rack": "r1"}
    terms = template["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert terms["nodeSelectorTerms"] == [{"matchExpressions": [{"key": HOST, "operator": "In", "values": ["n1", "n2"]}]}]


# -- kexplain kueue and the chain ----------------------------------------------------------------
kexplain = run_cli


def _kueue(case: Path, *extra: str) -> tuple[int, str, str]:
    return kexplain("kueue", str(case / "workloads.yaml"), "--nodes", str(case / "cluster.yaml"),
                    "--now", "2026-01-01T00:00:00Z", "--no-suggestions", *extra)


def test_the_explanation_shows_the_closest_domains_and_the_largest_count_that_fits() -> None:
    code, out, err = _kueue(TAS_CASES / "tas-0124", "-o", "json")
    assert code == 1, err
    [item] = json.loads(out)["explanation"]["workloads"]
    topo = item["podSets"][0]["topology"]
    assert topo["placed"] is False and topo["reason"].startswith('topology "gpu-topology" allows to fit only 4')
    [level] = topo["closest"]
    assert level["level"] == "cloud.example.com/topology-block"
    assert [(d["domain"], d["fit"], d["short"]) for d in level["domains"]] == [(["b1"], 4, 1), (["b2"], 4, 1)]
    first = level["domains"][0]["nodes"][0]
    assert first == {"node": "gpu-b1-r1-n1", "fit": 1,
                     "limitedBy": {"resource": GPU, "free": "8", "perPod": "8"}}
    assert topo["largestFit"]["count"] == 4 and topo["largestFit"]["verified"] is True
    code, text, _ = _kueue(TAS_CASES / "tas-0124")
    assert "cloud.example.com/topology-block: closest" in text
    assert "- b1: 4 pods fit, 1 short" in text and "with 4 pods it fits (verified" in text


def test_a_missing_topology_makes_the_cluster_queue_inactive(tmp_path: Path) -> None:
    case = TAS_CASES / "tas-0124"
    cluster = (case / "cluster.yaml").read_text().replace("kind: Topology\nmetadata:\n  name: gpu-topology",
                                                          "kind: Topology\nmetadata:\n  name: other-topology")
    (tmp_path / "cluster.yaml").write_text(cluster)
    (tmp_path / "workloads.yaml").write_text((case / "workloads.yaml").read_text())
    code, out, err = _kueue(tmp_path, "-o", "json")
    [wl] = json.loads(out)["workloads"]
    assert wl["conditions"][0]["message"] == "ClusterQueue cluster-queue is inactive", err


def test_the_chain_places_an_admitted_jobs_pods_on_its_topology_domains() -> None:
    case = TAS_CASES / "tas-0156"
    args = [str(case / "workloads.yaml"), "--nodes", str(case / "cluster.yaml")]
    code, out, err = kexplain(*args, "-o", "json")
    assert code == 0, err
    placements = {p["object"]["name"]: p for p in json.loads(out)["placements"]}
    train = placements["llm-train"]
    assert train["nodes"] == {f"gpu-b1-r2-n{i}": 1 for i in range(1, 5)}
    [ps] = train["kueue"]["podSets"]
    assert ps["topology"]["domains"][0] == {"values": ["gpu-b1-r2-n1"], "count": 1}
    assert placements["eval"]["kueue"]["podSets"][0]["nodeSelector"][HOST] == "gpu-b2-r1-n1"
    code, text, _ = kexplain(*args)
    assert "topology (kubernetes.io/hostname): gpu-b1-r2-n1 (1), gpu-b1-r2-n2 (1)" in text
    assert "Would be bound to gpu-b2-r1-n1" in text


# a two-level Topology (rack, host) and its TAS flavor `tas` over the `pool: gpu` nodes
TAS_TOPOLOGY = """apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: topo}
spec: {levels: [{nodeLabel: rack}, {nodeLabel: kubernetes.io/hostname}]}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: tas}
spec: {nodeLabels: {pool: gpu}, topologyName: topo}
"""
CLUSTER = TAS_TOPOLOGY + """---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: plain}
"""
QUEUE = """---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: {name}}}
spec:
  namespaceSelector: {{}}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors: [{flavors}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: {name}, namespace: default}}
spec: {{clusterQueue: {name}}}
"""
NODE = """---
apiVersion: v1
kind: Node
metadata: {{name: {name}, labels: {{pool: gpu, rack: {rack}, kubernetes.io/hostname: {name}}}}}
status:
  allocatable: {{cpu: "96", pods: "110", nvidia.com/gpu: "8"}}
  conditions: [{{type: Ready, status: "True"}}]
"""
JOB = """---
apiVersion: batch/v1
kind: Job
metadata: {{name: {name}, namespace: default, labels: {{kueue.x-k8s.io/queue-name: {queue}}}}}
spec:
  parallelism: {pods}
  completions: {pods}
  suspend: true
  template:
    metadata: {{annotations: {annotations}}}
    spec:
      restartPolicy: Never
      containers: [{{name: c, image: x, resources: {{requests: {{nvidia.com/gpu: "8"}}}}}}]
"""
QUOTA = '{{name: {0}, resources: [{{name: nvidia.com/gpu, nominalQuota: "{1}"}}]}}'


def _run(tmp_path: Path, cluster: str, jobs: str) -> dict:
    (tmp_path / "cluster.yaml").write_text(cluster)
    (tmp_path / "workloads.yaml").write_text(jobs)
    code, out, err = _kueue(tmp_path, "-o", "json")
    assert code in (0, 1), err
    return json.loads(out)


def test_a_placement_taken_by_another_queues_entry_is_placed_again_in_the_cycle(tmp_path: Path) -> None:
    nodes = "".join(NODE.format(name=f"n{i}", rack=f"r{i // 2}") for i in range(4))
    queues = "".join(QUEUE.format(name=q, flavors=QUOTA.format("tas", 32)) for q in ("qa", "qb"))
    rack = '{kueue.x-k8s.io/podset-required-topology: rack}'
    jobs = "".join(JOB.format(name=f"job-{q}", queue=q, pods=2, annotations=rack) for q in ("qa", "qb"))
    doc = _run(tmp_path, CLUSTER + queues + nodes, jobs)
    placed = {w["owner"]: [d["values"][0] for d in w["podSetAssignments"][0]["topologyDomains"]["domains"]]
              for w in doc["workloads"]}
    assert doc["cycles"] == 1 and sorted(placed.values()) == [["n0", "n1"], ["n2", "n3"]]


def test_a_tas_flavor_serves_only_topology_requests_and_a_plain_one_only_the_others(tmp_path: Path) -> None:
    nodes = NODE.format(name="n0", rack="r0")
    queue = QUEUE.format(name="mixed", flavors=f"{QUOTA.format('tas', 8)}, {QUOTA.format('plain', 8)}")
    jobs = (JOB.format(name="plain-job", queue="mixed", pods=2, annotations="{}")
            + JOB.format(name="tas-job", queue="mixed", pods=2,
                         annotations='{kueue.x-k8s.io/podset-required-topology: rack}'))
    doc = _run(tmp_path, CLUSTER + queue + nodes, jobs)
    messages = {w["owner"]: w["conditions"][0]["message"] for w in doc["workloads"]}
    assert messages["Job/plain-job"] == (
        'couldn\'t assign flavors to pod set main: Flavor "tas" supports only TopologyAwareScheduling, '
        "insufficient quota for nvidia.com/gpu in flavor plain, previously considered podsets requests (0) + "
        "current podset request (16) > maximum capacity (8)")
    assert messages["Job/tas-job"].startswith('couldn\'t assign flavors to pod set main: Flavor "plain" does not '
                                              "support TopologyAwareScheduling, insufficient quota for")


CHECK = """---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ProvisioningRequestConfig
metadata: {name: gpu-config}
spec: {provisioningClassName: queued-provisioning.gke.io}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: dws}
spec:
  controllerName: kueue.x-k8s.io/provisioning-request
  parameters: {apiGroup: kueue.x-k8s.io, kind: ProvisioningRequestConfig, name: gpu-config}
status:
  conditions: [{type: Active, status: "True", reason: Active, message: active, lastTransitionTime: "2025-12-31T14:00:00Z"}]
"""


def test_a_provisioning_check_on_the_tas_flavor_delays_the_placement(tmp_path: Path) -> None:
    nodes = NODE.format(name="n0", rack="r0")
    queue = QUEUE.format(name="dws", flavors=QUOTA.format("tas", 64)).replace(
        "  namespaceSelector: {}", "  namespaceSelector: {}\n  admissionChecksStrategy: {admissionChecks: [{name: dws}]}")
    jobs = JOB.format(name="train", queue="dws", pods=4, annotations='{kueue.x-k8s.io/podset-required-topology: rack}')
    [wl] = _run(tmp_path, CLUSTER + CHECK + queue + nodes, jobs)["workloads"]
    assert wl["quotaReserved"] is True            # four pods on one 8-GPU node: placed after provisioning
    [psa] = wl["podSetAssignments"]
    assert psa["delayedTopologyRequest"] == "Pending" and "topologyAssignment" not in psa


def test_a_flavors_usage_is_carried_between_cycles_a_cycles_own_changes_undone() -> None:
    from types import SimpleNamespace
    from kexplain.kueue.apis.meta import ObjectMeta
    from kexplain.kueue.apis.resourceflavor import ResourceFlavor
    from kexplain.kueue.apis.topology import Topology
    flavor = ResourceFlavor(ObjectMeta(name="tas"), node_labels={"pool": "h100"}, topology_name="topo")
    cache = TASCache.build({"topo": Topology(ObjectMeta(name="topo"), LEVELS)}, {"tas": flavor}, RACKS, [])

    def admitted(node_name: str, pods: int) -> SimpleNamespace:
        placed = TopologyAssignment((HOST,), (DomainAssignment((node_name,), pods),))
        psa = SimpleNamespace(topology_assignment=placed, flavors={GPU: "tas"})
        admission = SimpleNamespace(pod_set_assignments=(psa,))
        return SimpleNamespace(key="ns/wl", obj=SimpleNamespace(admission=admission),
                               total_requests=[SimpleNamespace(single_pod_requests=lambda: {GPU: 4})])

    def used(snap) -> dict:
        return {leaf.id: leaf.tas_usage.get(GPU) for leaf in snap.leaves.values() if leaf.tas_usage.get(GPU)}
    first = admitted("n1", 2)
    snap = cache.snapshots([first])["tas"]
    assert used(snap) == {"n1": 8}
    snap.update_tas_usage("n2", {GPU: 8, "pods": 1})         # what the cycle reserved
    assert used(cache.snapshots([first])["tas"]) == {"n1": 8}
    assert used(cache.snapshots([admitted("n3", 1)])["tas"]) == {"n3": 4}    # its admission changed
    assert used(cache.snapshots([])["tas"]) == {}
