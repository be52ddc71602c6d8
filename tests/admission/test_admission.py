"""API-server admission emulation: each step's effect and each rejection's exact text."""
from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from kexplain.admission import Admitted, admit
from kexplain.apimachinery import quantity
from kexplain.admission.tolerations import merge_tolerations
from kexplain.errors import AdmissionRejected, InputError, Source
from tests.support.paths import DATA

DATA = DATA / "admission"
SRC = Source("cluster.yaml", 1)
POD_SRC = Source("pod.yaml", 1)


def make_pod(name: str = "web", *, labels: dict | None = None, **spec) -> dict:
    spec.setdefault("containers", [{"name": "c", "image": "nginx"}])
    meta: dict = {"name": name}
    if labels is not None:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def node(name: str, labels: dict | None = None, **spec) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels or {}},
            "spec": spec, "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def run(pod: dict | None, *cluster: dict, stored: bool = False) -> Admitted:
    return admit([(o, Source("cluster.yaml", i + 1)) for i, o in enumerate(cluster)],
                 (pod, POD_SRC) if pod is not None else None, stored=stored)


def rejection(pod: dict | None, *cluster: dict) -> str:
    with pytest.raises(AdmissionRejected) as info:
        run(pod, *cluster)
    return info.value.message


def objects_of(result: Admitted, kind: str) -> list[dict]:
    return [o for o, _ in result.objects if o["kind"] == kind]


def load_case(name: str) -> tuple[list[tuple[dict, Source]], tuple[dict, Source]]:
    case = DATA / name
    docs = [d for d in yaml.safe_load_all((case / "cluster.yaml").read_text()) if d]
    pod = next(d for d in yaml.safe_load_all((case / "pod.yaml").read_text()) if d)
    return ([(d, Source(str(case / "cluster.yaml"), i + 1)) for i, d in enumerate(docs)],
            (pod, Source(str(case / "pod.yaml"), 1)))


# --- quantities ----------------------------------------------------------------------------------

@pytest.mark.parametrize("text,canonical", [
    ("0.5", "500m"), ("1000", "1k"), ("1500", "1500"), ("1024Mi", "1Gi"), ("1.5Gi", "1536Mi"),
    ("100m", "100m"), ("1e3", "1e3"), ("0", "0"), ("512", "512"), ("2048", "2048"), ("1Ki", "1Ki"),
    ("-1", "-1"), ("0.1m", "100u"), (" 2 ", "2"), (".5", "500m"),
])
def test_quantity_canonical(text: str, canonical: str) -> None:
    assert quantity.text_of(text) == canonical


@pytest.mark.parametrize("text", ["abc", "1.2.3", "", "1x", "--1", "1Gb", "5e", "1.5.Gi"])
def test_quantity_invalid(text: str) -> None:
    assert not quantity.is_valid(text)


@pytest.mark.parametrize("raw,milli", [("0.0001", "1m"), ("1.0005", "1001m"), ("2", "2"), (1, "1")])
def test_quantity_round_up_milli(raw: object, milli: str) -> None:
    assert quantity.canonical(quantity.round_up_milli(quantity.parse(raw))) == milli


# --- decoding --------------------------------------------------------------------------------------

@pytest.mark.parametrize("mutate,field", [
    (lambda p: p["spec"]["containers"][0].update(resources={"requests": {"cpu": "lots"}}),
     "spec.containers[0].resources.requests.cpu"),
    (lambda p: p["spec"].update(priority="high"), "spec.priority"),
    (lambda p: p["spec"].update(tolerations={"key": "a"}), "spec.tolerations"),
    (lambda p: p["spec"].update(nodeSelector=["a"]), "spec.nodeSelector"),
    (lambda p: p["metadata"].update(labels={"gpu": True}), "metadata.labels.gpu"),
    (lambda p: p.update(metadata=["x"]), "metadata"),
    (lambda p: p.update(spec="x"), "spec"),
])
def test_structural_errors_raise_input_error(mutate, field: str) -> None:
    pod = make_pod()
    mutate(pod)
    with pytest.raises(InputError) as info:
        run(pod)
    assert info.value.field == field
    assert info.value.source == POD_SRC


def test_bad_node_quantity_names_the_cluster_document() -> None:
    bad = node("n1")
    bad["status"]["allocatable"]["memory"] = "8GB"
    with pytest.raises(InputError) as info:
        run(make_pod(), node("n0"), bad)
    assert info.value.field == "status.allocatable.memory"
    assert info.value.source == Source("cluster.yaml", 2)


@pytest.mark.parametrize("resource,value,detail", [
    ("pods", "1500m", "must be an integer"), ("cpu", "-1", "must be greater than or equal to 0"),
    ("example.com/gpu", "0.5", "must be an integer")])
def test_node_quantity_refused_after_valid_ones_of_its_resource(resource: str, value: str, detail: str) -> None:
    # valid values are remembered per (resource, value); an invalid one never is
    good = node("n0")
    good["status"]["allocatable"][resource] = "2"
    bad = node("n1")
    bad["status"]["allocatable"][resource] = value
    run(make_pod(), good)
    message = rejection(make_pod(), good, bad)
    assert f"status.allocatable.{resource}" in message and detail in message
    assert rejection(make_pod(), bad) == message


def test_unknown_kind_dropped_with_warning_and_list_unwrapped() -> None:
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}
    lst = {"apiVersion": "v1", "kind": "List", "items": [node("n1"), node("n2")]}
    result = run(make_pod(), cm, lst)
    assert [o["metadata"]["name"] for o in objects_of(result, "Node")] == ["n1", "n2"]
    assert not objects_of(result, "ConfigMap")
    assert any("ConfigMap" in w for w in result.warnings)


def test_integral_float_accepted_as_int() -> None:
    result = run(make_pod(priority=0.0))
    assert result.pending["spec"]["priority"] == 0


# --- core/v1 defaulting -----------------------------------------------------------------------------

def test_pod_scalar_defaults() -> None:
    spec = run(make_pod()).pending["spec"]
    assert spec["schedulerName"] == "default-scheduler"
    assert spec["restartPolicy"] == "Always"
    assert spec["dnsPolicy"] == "ClusterFirst"
    assert spec["terminationGracePeriodSeconds"] == 30
    assert spec["enableServiceLinks"] is True
    assert spec["securityContext"] == {}
    assert spec["containers"][0]["imagePullPolicy"] == "Always"
    assert spec["containers"][0]["terminationMessagePolicy"] == "File"


@pytest.mark.parametrize("resources,requests", [
    ({"limits": {"cpu": "1", "memory": "1Gi"}}, {"cpu": "1", "memory": "1Gi"}),
    ({"limits": {"cpu": "1"}, "requests": {"cpu": "500m"}}, {"cpu": "500m"}),
    ({"limits": {"cpu": "1"}, "requests": {"memory": "1Gi"}}, {"memory": "1Gi", "cpu": "1"}),
    ({"requests": {"cpu": "0.0001"}}, {"cpu": "1m"}),
    ({"requests": {"cpu": "250m"}}, {"cpu": "250m"}),
])
def test_container_requests_default_to_limits(resources: dict, requests: dict) -> None:
    pod = make_pod(containers=[{"name": "c", "image": "nginx", "resources": resources}],
                   initContainers=[{"name": "i", "image": "busybox", "resources": copy.deepcopy(resources)}])
    spec = run(pod).pending["spec"]
    assert spec["containers"][0]["resources"]["requests"] == requests
    assert spec["initContainers"][0]["resources"]["requests"] == requests


def test_ports_protocol_and_host_network_host_port() -> None:
    pod = make_pod(hostNetwork=True, containers=[{"name": "c", "image": "nginx",
                                                  "ports": [{"containerPort": 8080}]}])
    port = run(pod).pending["spec"]["containers"][0]["ports"][0]
    assert port == {"containerPort": 8080, "protocol": "TCP", "hostPort": 8080}
    plain = make_pod(containers=[{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}]}])
    assert "hostPort" not in run(plain).pending["spec"]["containers"][0]["ports"][0]


def test_pod_level_requests_default_from_containers_and_limits() -> None:
    pod = make_pod(resources={"limits": {"cpu": "2", "memory": "2Gi"}},
                   containers=[{"name": "a", "image": "x", "resources": {"requests": {"cpu": "500m"}}},
                               {"name": "b", "image": "x", "resources": {"requests": {"cpu": "250m"}}}])
    assert run(pod).pending["spec"]["resources"]["requests"] == {"cpu": "750m", "memory": "2Gi"}


def test_volume_without_source_becomes_empty_dir() -> None:
    pod = make_pod(volumes=[{"name": "scratch"}])
    assert run(pod).pending["spec"]["volumes"][0]["emptyDir"] == {}


def test_pod_spec_defaulted_in_full_as_a_templates() -> None:
    """SetObjectDefaults_Pod walks the spec as SetObjectDefaults_PodTemplate does: probes, env
    field refs, volume sources' defaults; an image name the reference parser refuses (upper case)
    has no tag, so IfNotPresent."""
    pod = make_pod(
        containers=[{"name": "c", "image": "Registry/App", "livenessProbe": {"httpGet": {"port": 80}},
                     "env": [{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]}],
        volumes=[{"name": "i", "iscsi": {"targetPortal": "t:3260", "iqn": "iqn.2001-04.com.x:y", "lun": 0}},
                 {"name": "p", "projected": {"sources": [{"serviceAccountToken": {"path": "t"}}]}}])
    spec = run(pod).pending["spec"]
    c = spec["containers"][0]
    assert c["imagePullPolicy"] == "IfNotPresent"
    assert c["livenessProbe"] == {"httpGet": {"port": 80, "path": "/", "scheme": "HTTP"}, "timeoutSeconds": 1,
                                  "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3}
    assert c["env"][0]["valueFrom"]["fieldRef"]["apiVersion"] == "v1"
    assert spec["volumes"][0]["iscsi"]["iscsiInterface"] == "default"
    assert spec["volumes"][1]["projected"]["sources"][0]["serviceAccountToken"]["expirationSeconds"] == 3600


def test_what_a_pods_defaulting_does_and_a_templates_does_not() -> None:
    """SetDefaults_Pod is a Pod's only (requests from limits, enableServiceLinks, host network
    ports); a template's quantities are in the text the API server stores (its hash reads it),
    a Pod's keep the text they were written in."""
    from kexplain.admission.pod_spec_defaults import default_pod_template
    spec = {"hostNetwork": True, "containers": [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}],
                                                 "resources": {"limits": {"cpu": "1000m"}}}]}
    template = default_pod_template({"spec": copy.deepcopy(spec)})["spec"]
    assert template["containers"][0]["resources"] == {"limits": {"cpu": "1"}}
    assert template["containers"][0]["ports"] == [{"containerPort": 80, "protocol": "TCP"}]
    assert "enableServiceLinks" not in template
    pod = run(make_pod(**spec)).pending["spec"]
    assert pod["containers"][0]["resources"] == {"limits": {"cpu": "1000m"}, "requests": {"cpu": "1000m"}}
    assert pod["containers"][0]["ports"] == [{"containerPort": 80, "protocol": "TCP", "hostPort": 80}]
    assert pod["enableServiceLinks"] is True


def test_node_allocatable_defaults_to_capacity_and_namespace_cleared() -> None:
    n = {"kind": "Node", "apiVersion": "v1", "metadata": {"name": "n1", "namespace": "x"},
         "status": {"capacity": {"cpu": "2", "memory": "4Gi"}}}
    admitted = objects_of(run(None, n), "Node")[0]
    assert admitted["status"]["allocatable"] == {"cpu": "2", "memory": "4Gi"}
    assert "namespace" not in admitted["metadata"]
    keep = node("n2")
    keep["status"]["capacity"] = {"cpu": "8"}
    assert objects_of(run(None, keep), "Node")[0]["status"]["allocatable"]["cpu"] == "4"


def test_storage_and_priority_class_defaults() -> None:
    sc = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "s"},
          "provisioner": "x"}
    pc = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "p"}, "value": 5}
    result = run(None, sc, pc)
    assert objects_of(result, "StorageClass")[0]["reclaimPolicy"] == "Delete"
    assert objects_of(result, "StorageClass")[0]["volumeBindingMode"] == "Immediate"
    assert objects_of(result, "PriorityClass")[0]["preemptionPolicy"] == "PreemptLowerPriority"


# --- DefaultStorageClass ------------------------------------------------------------------------

def storage_class(name: str, default: bool, created: str | None = None, beta: bool = False) -> dict:
    annotations = {}
    if default:
        key = "storageclass.beta.kubernetes.io/is-default-class" if beta else \
            "storageclass.kubernetes.io/is-default-class"
        annotations[key] = "true"
    meta = {"name": name, "annotations": annotations}
    if created:
        meta["creationTimestamp"] = created
    return {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": meta, "provisioner": "x"}


def pvc(name: str = "data", **spec) -> dict:
    spec.setdefault("accessModes", ["ReadWriteOnce"])
    spec.setdefault("resources", {"requests": {"storage": "1Gi"}})
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name}, "spec": spec}


@pytest.mark.parametrize("classes,claim,expected", [
    ([storage_class("a", True, "2024-01-01T00:00:00Z"), storage_class("b", True, "2025-01-01T00:00:00Z")],
     pvc(), "b"),
    ([storage_class("a", True), storage_class("b", True, "2020-01-01T00:00:00Z")], pvc(), "b"),
    ([storage_class("z", True, "2024-01-01T00:00:00Z"), storage_class("y", True, "2024-01-01T00:00:00Z")],
     pvc(), "y"),
    ([storage_class("a", True, beta=True)], pvc(), "a"),
    ([storage_class("a", False)], pvc(), None),
    ([storage_class("a", True)], pvc(storageClassName=""), ""),
    ([storage_class("a", True)], pvc(storageClassName="fast"), "fast"),
])
def test_default_storage_class(classes: list[dict], claim: dict, expected: str | None) -> None:
    admitted = objects_of(run(None, *classes, claim), "PersistentVolumeClaim")[0]
    assert admitted["spec"].get("storageClassName") == expected
    assert admitted["metadata"]["namespace"] == "default"
    assert admitted["spec"]["volumeMode"] == "Filesystem"


def test_beta_annotation_blocks_default_class() -> None:
    claim = pvc()
    claim["metadata"]["annotations"] = {"volume.beta.kubernetes.io/storage-class": "slow"}
    admitted = objects_of(run(None, storage_class("a", True), claim), "PersistentVolumeClaim")[0]
    assert "storageClassName" not in admitted["spec"]


# --- Priority -------------------------------------------------------------------------------------

def priority_class(name: str, value: int, global_default: bool = False, policy: str | None = None) -> dict:
    pc = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
          "value": value, "globalDefault": global_default}
    if policy:
        pc["preemptionPolicy"] = policy
    return pc


@pytest.mark.parametrize("pod,classes,priority,policy,class_name", [
    (make_pod(), [], 0, "PreemptLowerPriority", None),
    (make_pod(), [priority_class("def", 7, True, "Never")], 7, "Never", "def"),
    (make_pod(priorityClassName="high"), [priority_class("high", 1000)], 1000, "PreemptLowerPriority", "high"),
    (make_pod(priorityClassName="system-node-critical"), [], 2000001000, "PreemptLowerPriority",
     "system-node-critical"),
    (make_pod(priorityClassName="high", priority=1000, preemptionPolicy="PreemptLowerPriority"),
     [priority_class("high", 1000)], 1000, "PreemptLowerPriority", "high"),
])
def test_priority_admission(pod: dict, classes: list[dict], priority: int, policy: str,
                            class_name: str | None) -> None:
    spec = run(pod, *classes).pending["spec"]
    assert spec["priority"] == priority
    assert spec["preemptionPolicy"] == policy
    assert spec.get("priorityClassName") == class_name


@pytest.mark.parametrize("pod,classes,message", [
    (make_pod(priorityClassName="nope"), [], 'pods "web" is forbidden: no PriorityClass with name nope was found'),
    (make_pod(priorityClassName="high", priority=5), [priority_class("high", 1000)],
     'pods "web" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority '
     "admission controller computed 1000 from the given PriorityClass name"),
    (make_pod(priority=5), [],
     'pods "web" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority '
     "admission controller computed 0 from the given PriorityClass name"),
    (make_pod(priorityClassName="high", preemptionPolicy="Never"), [priority_class("high", 1000)],
     'pods "web" is forbidden: the string value of PreemptionPolicy (Never) must not be provided in pod spec; '
     "priority admission controller computed PreemptLowerPriority from the given PriorityClass name"),
    (None, [priority_class("a", 1, True), priority_class("b", 2, True)],
     'priorityclasses "b" is forbidden: PriorityClass a is already marked as default. Only one default can exist'),
])
def test_priority_rejections(pod: dict | None, classes: list[dict], message: str) -> None:
    assert rejection(pod, *classes) == message


def test_builtin_priority_classes_added_unless_defined() -> None:
    result = run(None, priority_class("system-node-critical", 42))
    classes = {o["metadata"]["name"]: (o["value"], src) for o, src in result.objects if o["kind"] == "PriorityClass"}
    assert classes["system-node-critical"] == (42, Source("cluster.yaml", 1))
    assert classes["system-cluster-critical"] == (2000000000, Source("<built-in>"))


# --- DefaultTolerationSeconds ---------------------------------------------------------------------

NR = {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
UR = {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}


@pytest.mark.parametrize("given,expected", [
    (None, [NR, UR]),
    ([{"key": "node.kubernetes.io/not-ready", "operator": "Equal", "value": "x", "effect": "NoExecute"}],
     [{"key": "node.kubernetes.io/not-ready", "operator": "Equal", "value": "x", "effect": "NoExecute"}, UR]),
    ([{"operator": "Exists"}], [{"operator": "Exists"}]),
    ([{"operator": "Exists", "effect": "NoSchedule"}], [{"operator": "Exists", "effect": "NoSchedule"}, NR, UR]),
    ([{"key": "node.kubernetes.io/unreachable", "operator": "Exists"}],
     [{"key": "node.kubernetes.io/unreachable", "operator": "Exists"}, NR]),
])
def test_default_toleration_seconds(given: list | None, expected: list) -> None:
    pod = make_pod(tolerations=given) if given is not None else make_pod()
    assert run(pod).pending["spec"]["tolerations"] == expected


# --- RuntimeClass ----------------------------------------------------------------------------------

def runtime_class(name: str = "kata", overhead: dict | None = None, scheduling: dict | None = None) -> dict:
    rc = {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": name}, "handler": name}
    if overhead is not None:
        rc["overhead"] = {"podFixed": overhead}
    if scheduling is not None:
        rc["scheduling"] = scheduling
    return rc


@pytest.mark.parametrize("first,second,merged", [
    ([{"key": "a", "operator": "Exists"}], [{"key": "a", "operator": "Equal", "value": "v"}],
     [{"key": "a", "operator": "Exists"}]),
    ([{"key": "a", "operator": "Equal", "value": "v"}], [{"key": "a", "operator": "Exists"}],
     [{"key": "a", "operator": "Exists"}]),
    ([{"key": "a", "operator": "Exists"}], [{"key": "a", "operator": "Exists"}], [{"key": "a", "operator": "Exists"}]),
    ([{"key": "a", "value": "v"}], [{"key": "a", "operator": "Equal", "value": "v"}],
     [{"key": "a", "value": "v"}]),
    ([{"key": "a", "operator": "Exists", "effect": "NoSchedule"}], [{"key": "a", "operator": "Exists"}],
     [{"key": "a", "operator": "Exists"}]),
    ([{"key": "a", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 10}],
     [{"key": "a", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 20}],
     [{"key": "a", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 20}]),
    ([{"key": "a", "operator": "Exists", "effect": "NoExecute"}],
     [{"key": "a", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 20}],
     [{"key": "a", "operator": "Exists", "effect": "NoExecute"}]),
    ([{"key": "b", "operator": "Exists"}], [{"operator": "Exists"}], [{"operator": "Exists"}]),
])
def test_merge_tolerations(first: list, second: list, merged: list) -> None:
    assert merge_tolerations(first, second) == merged


def test_runtime_class_sets_overhead_selector_and_tolerations() -> None:
    rc = runtime_class(overhead={"cpu": "250m", "memory": "160Mi"},
                       scheduling={"nodeSelector": {"sandbox": "kata"},
                                   "tolerations": [{"key": "sandbox", "operator": "Exists", "effect": "NoSchedule"}]})
    spec = run(make_pod(runtimeClassName="kata", nodeSelector={"disk": "ssd"}), rc).pending["spec"]
    assert spec["overhead"] == {"cpu": "250m", "memory": "160Mi"}
    assert spec["nodeSelector"] == {"disk": "ssd", "sandbox": "kata"}
    assert spec["tolerations"] == [NR, UR, {"key": "sandbox", "operator": "Exists", "effect": "NoSchedule"}]


def test_runtime_class_equal_overhead_numerically_accepted() -> None:
    rc = runtime_class(overhead={"cpu": "250m"})
    assert run(make_pod(runtimeClassName="kata", overhead={"cpu": "0.25"}), rc).pending["spec"]["overhead"] == \
        {"cpu": "250m"}


@pytest.mark.parametrize("pod,classes,message", [
    (make_pod(runtimeClassName="gvisor"), [], 'pods "web" is forbidden: pod rejected: RuntimeClass "gvisor" not found'),
    (make_pod(runtimeClassName="kata", overhead={"cpu": "1"}), [runtime_class(overhead={"cpu": "250m"})],
     "pods \"web\" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"),
    (make_pod(runtimeClassName="kata", nodeSelector={"sandbox": "gvisor"}),
     [runtime_class(scheduling={"nodeSelector": {"sandbox": "kata"}})],
     'pods "web" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox] = kata; '
     "pod.spec.nodeSelector[sandbox] = gvisor"),
    (make_pod(overhead={"cpu": "1"}), [],
     'pods "web" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead'),
    (make_pod(runtimeClassName="kata", overhead={"cpu": "1"}), [runtime_class()],
     'pods "web" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead'),
])
def test_runtime_class_rejections(pod: dict, classes: list[dict], message: str) -> None:
    assert rejection(pod, *classes) == message


# --- matchLabelKeys / mismatchLabelKeys ----------------------------------------------------------------

def anti_affinity_pod(name: str, labels: dict, selector: dict | None, **term_extra) -> dict:
    term = {"topologyKey": "kubernetes.io/hostname", **term_extra}
    if selector is not None:
        term["labelSelector"] = selector
    return make_pod(name, labels=labels,
                    affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}})


def test_match_label_keys_merged_into_affinity_and_spread() -> None:
    pod = anti_affinity_pod("a", {"app": "web", "hash": "v2", "tier": "fe"}, {"matchLabels": {"app": "web"}},
                            matchLabelKeys=["hash", "missing"], mismatchLabelKeys=["tier"])
    pod["spec"]["topologySpreadConstraints"] = [{
        "maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"app": "web"}}, "matchLabelKeys": ["hash"]}]
    spec = run(pod).pending["spec"]
    term = spec["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert term["labelSelector"]["matchExpressions"] == [
        {"key": "hash", "operator": "In", "values": ["v2"]},
        {"key": "tier", "operator": "NotIn", "values": ["fe"]}]
    assert term["matchLabelKeys"] == ["hash", "missing"]
    assert spec["topologySpreadConstraints"][0]["labelSelector"]["matchExpressions"] == [
        {"key": "hash", "operator": "In", "values": ["v2"]}]


def test_match_label_keys_not_idempotent_and_skipped_for_stored_objects() -> None:
    merged = anti_affinity_pod("a", {"app": "web", "hash": "v1"},
                               {"matchLabels": {"app": "web"},
                                "matchExpressions": [{"key": "hash", "operator": "In", "values": ["v1"]}]},
                               matchLabelKeys=["hash"])
    assert rejection(merged) == (
        'Pod "a" is invalid: spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0][0]: '
        'Invalid value: "hash": exists in both matchLabelKeys and labelSelector')
    stored = run(merged, stored=True).pending
    assert stored == merged and stored is not merged


def test_match_label_keys_with_null_selector() -> None:
    pod = anti_affinity_pod("a", {"hash": "v1"}, None, matchLabelKeys=["hash"])
    assert rejection(pod) == (
        'Pod "a" is invalid: spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]'
        ".matchLabelKeys: Forbidden: must not be specified when labelSelector is not set")


def test_match_label_key_absent_from_pod_not_caught() -> None:
    pod = anti_affinity_pod("a", {"app": "web"}, {"matchLabels": {"app": "web", "hash": "x"}},
                            matchLabelKeys=["hash"])
    run(pod)  # the key is in matchLabels, but the pod has no such label: nothing merged, nothing caught


# --- validation -----------------------------------------------------------------------------------

def container(**extra) -> dict:
    return {"name": "c", "image": "nginx", **extra}


@pytest.mark.parametrize("pod,message", [
    (make_pod(containers=[{"name": "c"}]), 'Pod "web" is invalid: spec.containers[0].image: Required value'),
    (make_pod("Web"), 'Pod "Web" is invalid: metadata.name: Invalid value: "Web": a lowercase RFC 1123 subdomain '
     "must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
     "character (e.g. 'example.com', regex used for validation is "
     "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"),
    (make_pod(containers=[]), 'Pod "web" is invalid: spec.containers: Required value'),
    (make_pod(containers=[{"name": "c"}, {"name": "c", "image": "x"}]),
     'Pod "web" is invalid: [spec.containers[0].image: Required value, '
     'spec.containers[1].name: Duplicate value: "c"]'),
    (make_pod(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["a", "b"]}]}]}}}),
     'Pod "web" is invalid: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution'
     ".nodeSelectorTerms[0].matchFields[0].values: Required value: must be only one value when `operator` is "
     "'In' or 'NotIn' for node field selector"),
    (make_pod(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.labels", "operator": "Exists"}]}]}}}),
     'Pod "web" is invalid: [spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution'
     '.nodeSelectorTerms[0].matchFields[0].operator: Invalid value: "Exists": not a valid selector operator, '
     "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
     '.matchFields[0].key: Invalid value: "metadata.labels": not a valid field selector key]'),
    (make_pod(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}}),
     'Pod "web" is invalid: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution'
     ".nodeSelectorTerms: Required value: must have at least one node selector term"),
    (make_pod(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "gpu", "operator": "Gt", "values": ["1", "2"]}]}]}}}),
     'Pod "web" is invalid: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution'
     ".nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified single value when "
     "`operator` is 'Lt' or 'Gt'"),
    (make_pod(affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 0, "preference": {"matchExpressions": [{"key": "a", "operator": "Exists"}]}}]}}),
     'Pod "web" is invalid: spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: '
     "Invalid value: 0: must be in the range 1-100"),
    (make_pod(tolerations=[{"key": "a", "operator": "Lt", "value": "5"}]),
     'Pod "web" is invalid: spec.tolerations[0].operator: Unsupported value: "Lt": supported values: '
     '"Equal", "Exists", "Lt", "Gt"'),
    (make_pod(tolerations=[{"operator": "Equal", "value": "x"}]),
     'Pod "web" is invalid: spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when '
     '`key` is empty, which means "match all values and all keys"'),
    (make_pod(tolerations=[{"key": "a", "operator": "Exists", "tolerationSeconds": 5}]),
     'Pod "web" is invalid: spec.tolerations[0].effect: Invalid value: "": effect must be \'NoExecute\' when '
     "`tolerationSeconds` is set"),
    (make_pod(tolerations=[{"key": "a", "operator": "Exists", "value": "x"}]),
     'Pod "web" is invalid: spec.tolerations[0].operator: Invalid value: "x": value must be empty when '
     "`operator` is 'Exists'"),
    (make_pod(tolerations=[{"key": "a", "operator": "Exists", "effect": "NoRun"}]),
     'Pod "web" is invalid: spec.tolerations[0].effect: Unsupported value: "NoRun": supported values: '
     '"NoSchedule", "PreferNoSchedule", "NoExecute"'),
    (make_pod(topologySpreadConstraints=[{"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]),
     'Pod "web" is invalid: spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero'),
    (make_pod(topologySpreadConstraints=[{"maxSkew": 1, "topologyKey": "", "whenUnsatisfiable": "Maybe"}]),
     'Pod "web" is invalid: [spec.topologySpreadConstraints[0].topologyKey: Required value: can not be empty, '
     'spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: "Maybe": supported values: '
     '"DoNotSchedule", "ScheduleAnyway"]'),
    (make_pod(topologySpreadConstraints=[
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"},
        {"maxSkew": 2, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]),
     'Pod "web" is invalid: spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: '
     'Duplicate value: "{zone, DoNotSchedule}"'),
    (make_pod(topologySpreadConstraints=[{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway",
                                          "minDomains": 2}]),
     'Pod "web" is invalid: spec.topologySpreadConstraints[0].minDomains: Invalid value: 2: can only use '
     "minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway"),
    (make_pod(topologySpreadConstraints=[{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                                          "nodeAffinityPolicy": "Always"}]),
     'Pod "web" is invalid: spec.topologySpreadConstraints[0].nodeAffinityPolicy: Unsupported value: "Always": '
     'supported values: "Honor", "Ignore"'),
    (make_pod(topologySpreadConstraints=[{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                                          "matchLabelKeys": ["app"]}]),
     'Pod "web" is invalid: spec.topologySpreadConstraints[0].matchLabelKeys: Forbidden: must not be specified '
     "when labelSelector is not set"),
    (make_pod(nodeName="n1", schedulingGates=[{"name": "wait"}]),
     'Pod "web" is invalid: spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared'),
    (make_pod(schedulingGates=[{"name": "a"}, {"name": "a"}]),
     'Pod "web" is invalid: spec.schedulingGates[1]: Duplicate value: "a"'),
    (make_pod(containers=[container(resources={"requests": {"cpu": "2"}, "limits": {"cpu": "1"}})]),
     'Pod "web" is invalid: spec.containers[0].resources.requests: Invalid value: "2": must be less than or '
     "equal to cpu limit of 1"),
    (make_pod(containers=[container(resources={"requests": {"memory": "-1Gi"}})]),
     'Pod "web" is invalid: spec.containers[0].resources.requests[memory]: Invalid value: "-1Gi": must be '
     "greater than or equal to 0"),
    (make_pod(containers=[container(resources={"requests": {"example.com/gpu": "500m"}})]),
     'Pod "web" is invalid: [spec.containers[0].resources.requests[example.com/gpu]: Invalid value: "500m": must '
     "be an integer, spec.containers[0].resources.limits: Required value: Limit must be set for non "
     "overcommitable resources]"),
    (make_pod(containers=[container(resources={"requests": {"gpu": "1"}})]),
     'Pod "web" is invalid: [spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a '
     'standard resource type or fully qualified, spec.containers[0].resources.requests[gpu]: Invalid value: '
     '"gpu": must be a standard resource for containers]'),
    (make_pod(containers=[container(ports=[{"containerPort": 70000}])]),
     'Pod "web" is invalid: spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 '
     "and 65535, inclusive"),
    (make_pod(containers=[container(ports=[{"containerPort": 80, "protocol": "HTTP"}])]),
     'Pod "web" is invalid: spec.containers[0].ports[0].protocol: Unsupported value: "HTTP": supported values: '
     '"SCTP", "TCP", "UDP"'),
    (make_pod(containers=[container(ports=[{"containerPort": 80, "hostPort": 80}, {"containerPort": 81,
                                                                                  "hostPort": 80}])]),
     'Pod "web" is invalid: spec.containers[0].ports[1].hostPort: Duplicate value: "TCP//80"'),
    (make_pod(hostNetwork=True, containers=[container(ports=[{"containerPort": 80, "hostPort": 81}])]),
     'Pod "web" is invalid: spec.containers[0].ports[0].hostPort: Invalid value: 81: must match `containerPort` '
     "when `hostNetwork` is true"),
    (make_pod(nodeSelector={"disk": "ssd!"}),
     'Pod "web" is invalid: spec.nodeSelector: Invalid value: "ssd!": a valid label must be an empty string or '
     "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
     "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
     "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"),
    (make_pod(volumes=[{"name": "data", "persistentVolumeClaim": {"claimName": ""}}]),
     'Pod "web" is invalid: spec.volumes[0].persistentVolumeClaim.claimName: Required value'),
    (make_pod(volumes=[{"name": "a", "emptyDir": {}}, {"name": "a", "emptyDir": {}}]),
     'Pod "web" is invalid: spec.volumes[1].name: Duplicate value: "a"'),
    (make_pod(containers=[container(volumeMounts=[{"name": "nope", "mountPath": "/x"}])]),
     'Pod "web" is invalid: spec.containers[0].volumeMounts[0].name: Not found: "nope"'),
    (make_pod(affinity={"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchExpressions": [{"key": "app", "operator": "In"}]}}]}}),
     'Pod "web" is invalid: [spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]'
     ".labelSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or "
     "'NotIn', spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: "
     "Required value: can not be empty, spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution"
     "[0].topologyKey: Invalid value: \"\": name part must be non-empty, spec.affinity.podAffinity"
     ".requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: \"\": name part must consist "
     "of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
     "'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?"
     "[A-Za-z0-9]')]"),
    (make_pod(resources={"requests": {"cpu": "100m"}},
              containers=[container(resources={"requests": {"cpu": "1"}})]),
     'Pod "web" is invalid: spec.resources.requests[cpu]: Invalid value: "100m": must be greater than or equal '
     "to aggregate container requests of 1"),
    (make_pod(preemptionPolicy="Sometimes"),
     'pods "web" is forbidden: the string value of PreemptionPolicy (Sometimes) must not be provided in pod spec; '
     "priority admission controller computed PreemptLowerPriority from the given PriorityClass name"),
])
def test_pod_validation_messages(pod: dict, message: str) -> None:
    assert rejection(pod) == message


def test_invalid_namespace_and_labels() -> None:
    pod = make_pod(labels={"-bad": "ok"})
    pod["metadata"]["namespace"] = "Team_A"
    message = rejection(pod)
    assert message.startswith('Pod "web" is invalid: [metadata.namespace: Invalid value: "Team_A": a lowercase '
                              "RFC 1123 label must consist of")
    assert 'metadata.labels: Invalid value: "-bad": name part must consist of alphanumeric characters' in message


def test_duplicate_pod_rejected() -> None:
    bound = make_pod("web", nodeName="n1")
    assert rejection(make_pod("web"), node("n1"), bound) == 'pods "web" already exists'
    other_ns = make_pod("web")
    other_ns["metadata"]["namespace"] = "other"
    run(other_ns, node("n1"), bound)


# --- other kinds ----------------------------------------------------------------------------------

@pytest.mark.parametrize("objects,message", [
    ([node("n1", taints=[{"key": "a", "effect": "NoSchedule"}, {"key": "a", "value": "x", "effect": "NoSchedule"}])],
     'Node "n1" is invalid: metadata.taints[1]: Duplicate value: {"Key":"a","Value":"x","Effect":"NoSchedule",'
     '"TimeAdded":null}: taints must be unique by key and effect pair'),
    ([node("n1", taints=[{"key": "a"}])], 'Node "n1" is invalid: metadata.taints[0].effect: Required value'),
    ([node("n1", taints=[{"key": "a", "effect": "Sometimes"}])],
     'Node "n1" is invalid: metadata.taints[0].effect: Unsupported value: "Sometimes": supported values: '
     '"NoSchedule", "PreferNoSchedule", "NoExecute"'),
    ([node("N1")], 'Node "N1" is invalid: metadata.name: Invalid value: "N1": a lowercase RFC 1123 subdomain must '
     "consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
     "character (e.g. 'example.com', regex used for validation is "
     "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"),
    ([node("n1"), node("n1")], 'nodes "n1" already exists'),
    ([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a.b"}}],
     'Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": must not contain dots'),
    ([pvc(accessModes=[], resources={})],
     'PersistentVolumeClaim "data" is invalid: [spec.accessModes: Required value: at least 1 access mode is '
     "required, spec.resources[storage]: Required value]"),
    ([pvc(accessModes=["ReadWriteOncePod", "ReadWriteOnce"])],
     'PersistentVolumeClaim "data" is invalid: spec.accessModes: Forbidden: may not use ReadWriteOncePod with '
     "other access modes"),
    ([pvc(resources={"requests": {"storage": "0"}})],
     'PersistentVolumeClaim "data" is invalid: spec.resources[storage]: Invalid value: "0": must be greater '
     "than zero"),
    ([{"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv1"},
       "spec": {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "1Gi"},
                "local": {"path": "/mnt/disk"}}}],
     'PersistentVolume "pv1" is invalid: spec.nodeAffinity: Required value: Local volume requires node affinity'),
    ([{"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv1"},
       "spec": {"accessModes": ["ReadWriteOnce"], "csi": {"driver": "x.csi.io", "volumeHandle": "h"}}}],
     'PersistentVolume "pv1" is invalid: [spec.capacity: Required value, spec.capacity: Unsupported value: null: '
     'supported values: "storage"]'),
])
def test_other_kind_rejections(objects: list[dict], message: str) -> None:
    assert rejection(None, *objects) == message


def test_rejection_order_pv_before_node_before_pod() -> None:
    bad_pv = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv1"}, "spec": {}}
    bad_node = node("n1", taints=[{"key": "a"}])
    bad_pod = make_pod(containers=[{"name": "c"}])
    with pytest.raises(AdmissionRejected) as info:
        run(bad_pod, bad_node, bad_pv)
    assert info.value.message.startswith('PersistentVolume "pv1" is invalid')
    assert info.value.source == Source("cluster.yaml", 2)
    with pytest.raises(AdmissionRejected) as info:
        run(bad_pod, bad_node)
    assert info.value.message.startswith('Node "n1" is invalid')


# --- PodTopologyLabels and namespaces -----------------------------------------------------------------

def test_pod_topology_labels_for_bound_pods_only() -> None:
    zoned = node("n1", {"topology.kubernetes.io/zone": "za", "topology.kubernetes.io/region": "r1", "x": "y"})
    bound = make_pod("cache", labels={"topology.kubernetes.io/zone": "stale"}, nodeName="n1")
    ghost = make_pod("ghost", nodeName="n9")
    result = run(make_pod("pending"), zoned, bound, ghost)
    pods = {p["metadata"]["name"]: p for p in objects_of(result, "Pod")}
    assert pods["cache"]["metadata"]["labels"] == {"topology.kubernetes.io/zone": "za",
                                                   "topology.kubernetes.io/region": "r1"}
    assert "labels" not in pods["ghost"]["metadata"]
    assert "labels" not in result.pending["metadata"]


def test_namespaces_created_and_labelled() -> None:
    given = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}
    pod = make_pod()
    pod["metadata"]["namespace"] = "apps"
    result = run(pod, given, make_pod("b", nodeName="n1"))
    namespaces = {n["metadata"]["name"]: (n, src) for n, src in result.objects if n["kind"] == "Namespace"}
    assert set(namespaces) == {"team", "default", "apps"}
    assert namespaces["team"][0]["metadata"]["labels"] == {"kubernetes.io/metadata.name": "team"}
    assert namespaces["apps"][0]["metadata"]["labels"] == {"kubernetes.io/metadata.name": "apps"}
    assert namespaces["apps"][1] == Source("<built-in>")


# --- copies, stored objects, file order ---------------------------------------------------------------

def test_inputs_never_mutated_and_order_kept() -> None:
    cluster = [node("b"), make_pod("p", nodeName="b", containers=[container(resources={"limits": {"cpu": "1"}})]),
               node("a")]
    pod = make_pod()
    before = copy.deepcopy((cluster, pod))
    result = run(pod, *cluster)
    assert (cluster, pod) == before
    assert [o["metadata"]["name"] for o, _ in result.objects[:3]] == ["b", "p", "a"]
    assert [s for _, s in result.objects[:3]] == [Source("cluster.yaml", i) for i in (1, 2, 3)]


def test_stored_objects_pass_untouched() -> None:
    bound = make_pod("p", nodeName="n1", priority=5)
    result = run(make_pod(priority=7), node("n1"), bound, stored=True)
    assert result.pending == make_pod(priority=7)
    assert objects_of(result, "Pod") == [bound]
    assert not objects_of(result, "PriorityClass") and not objects_of(result, "Namespace")


def test_finished_pods_still_admitted() -> None:
    done = make_pod("done", nodeName="n1")
    done["status"] = {"phase": "Succeeded"}
    admitted = objects_of(run(None, node("n1"), done), "Pod")[0]
    assert admitted["spec"]["priority"] == 0 and admitted["status"]["phase"] == "Succeeded"


# --- conformance-derived inputs -------------------------------------------------------------------------

def test_case_default_tolerations() -> None:
    cluster, pending = load_case("hand-j-default-tolerations")
    result = admit(cluster, pending)
    assert result.pending["spec"]["tolerations"] == [NR, UR]
    old = next(p for p in objects_of(result, "Pod") if p["metadata"]["name"] == "old")
    assert old["spec"]["tolerations"] == [
        {"key": "node.kubernetes.io/not-ready", "operator": "Equal", "value": "x", "effect": "NoExecute"}, UR]


def test_case_runtimeclass() -> None:
    cluster, pending = load_case("hand-k-runtimeclass")
    spec = admit(cluster, pending).pending["spec"]
    assert spec["overhead"] == {"cpu": "250m", "memory": "160Mi"}
    assert spec["nodeSelector"] == {"sandbox": "kata"}
    assert spec["tolerations"][-1] == {"key": "sandbox", "operator": "Exists", "effect": "NoSchedule"}


def test_case_matchlabelkeys() -> None:
    cluster, pending = load_case("hand-l-matchlabelkeys")
    result = admit(cluster, pending)
    bound = next(p for p in objects_of(result, "Pod") if p["metadata"]["name"] == "web-v1-0")
    term = bound["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert term["labelSelector"]["matchExpressions"] == [
        {"key": "pod-template-hash", "operator": "In", "values": ["v1"]}]
    tsc = result.pending["spec"]["topologySpreadConstraints"][0]
    assert tsc["labelSelector"]["matchExpressions"] == [
        {"key": "pod-template-hash", "operator": "In", "values": ["v2"]}]


def test_case_default_storageclass() -> None:
    cluster, pending = load_case("hand-m-default-storageclass")
    claim = objects_of(admit(cluster, pending), "PersistentVolumeClaim")[0]
    assert claim["spec"]["storageClassName"] == "wffc"


def test_case_pod_topology_labels() -> None:
    cluster, pending = load_case("hand-n-pod-topology-labels")
    cache = next(p for p in objects_of(admit(cluster, pending), "Pod") if p["metadata"]["name"] == "cache")
    assert cache["metadata"]["labels"] == {"app": "cache", "topology.kubernetes.io/zone": "za",
                                           "topology.kubernetes.io/region": "r1"}
