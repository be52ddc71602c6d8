"""The API server's update validation (`validate_update`): what may not change once an object
exists, in its words. Cases worked out by hand from ValidatePriorityClassUpdate,
apps/validation (ValidateDeploymentUpdate, ValidateReplicaSetUpdate, ValidateStatefulSetUpdate;
the DaemonSet strategy's selector check), batch/validation ValidateJobSpecUpdate and core
validation (ValidatePersistentVolumeClaimUpdate, validateUpgradeDowngradeClusterIPs,
ValidatePodUpdate) of Kubernetes v1.36.2."""
from __future__ import annotations

import copy

import pytest

from kexplain.admission.validate_update import (POD_FORBIDDEN, PVC_FORBIDDEN, STATEFULSET_FORBIDDEN,
                                                stored_update, update_refusal)


def pc(**fields) -> dict:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
            "value": 1000, **fields}


def workload(kind: str, **spec) -> dict:
    group = "batch/v1" if kind == "Job" else "apps/v1"
    base = {"selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                         "spec": {"containers": [{"name": "c", "image": "nginx:1"}]}}}
    return {"apiVersion": group, "kind": kind, "metadata": {"name": "web"}, "spec": {**base, **spec}}


def changed(obj: dict, path: str, value) -> dict:
    out = copy.deepcopy(obj)
    *parents, last = path.split(".")
    node = out
    for key in parents:
        node = node.setdefault(key, {})
    if value is None:
        node.pop(last, None)
    else:
        node[last] = value
    return out


def pvc(**spec) -> dict:
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data"},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}, **spec}}


def svc(**spec) -> dict:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
            "spec": {"ports": [{"port": 80}], "selector": {"app": "web"}, **spec}}


def pod(**spec) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c", "image": "nginx:1", "resources": {"requests": {"cpu": "1"}}}],
                     **spec}}


SELECTOR = '"web" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"api"}}: field is immutable'
CASES = {
    # PriorityClass: value and preemptionPolicy; a policy written as its default is no change
    "pc value": (pc(value=5000), pc(),
                 'PriorityClass.scheduling.k8s.io "high" is invalid: value: Forbidden: may not be changed in an '
                 'update.'),
    "pc policy": (pc(preemptionPolicy="Never"), pc(),
                  'PriorityClass.scheduling.k8s.io "high" is invalid: preemptionPolicy: Invalid value: "Never": '
                  "field is immutable"),
    "pc both": (pc(value=1, preemptionPolicy="Never"), pc(),
                'PriorityClass.scheduling.k8s.io "high" is invalid: [value: Forbidden: may not be changed in an '
                'update., preemptionPolicy: Invalid value: "Never": field is immutable]'),
    "pc default policy": (pc(preemptionPolicy="PreemptLowerPriority"), pc(), None),
    "pc description": (pc(description="x", globalDefault=False), pc(), None),
    # selectors of Deployments, ReplicaSets and DaemonSets
    **{f"{k} selector": (changed(workload(k), "spec.selector", {"matchLabels": {"app": "api"}}), workload(k),
                         f"{k}.apps {SELECTOR}") for k in ("Deployment", "ReplicaSet", "DaemonSet")},
    "Deployment template": (changed(workload("Deployment"), "spec.template.spec.containers",
                                    [{"name": "c", "image": "nginx:2"}]), workload("Deployment"), None),
    "Deployment replicas": (changed(workload("Deployment"), "spec.replicas", 5), workload("Deployment"), None),
    # StatefulSet: only replicas, template, updateStrategy, ... may change
    "sts replicas": (changed(workload("StatefulSet"), "spec.replicas", 3), workload("StatefulSet"), None),
    "sts template": (changed(workload("StatefulSet"), "spec.template.metadata.labels", {"app": "web", "v": "2"}),
                     workload("StatefulSet"), None),
    "sts serviceName": (changed(workload("StatefulSet"), "spec.serviceName", "other"), workload("StatefulSet"),
                        f'StatefulSet.apps "web" is invalid: spec: Forbidden: {STATEFULSET_FORBIDDEN}'),
    "sts default policy": (changed(workload("StatefulSet"), "spec.podManagementPolicy", "OrderedReady"),
                           workload("StatefulSet"), None),
    "sts claim size": (changed(workload("StatefulSet"), "spec.volumeClaimTemplates",
                               [{"metadata": {"name": "d"}, "spec": {"resources": {"requests": {"storage": "2Gi"}}}}]),
                       changed(workload("StatefulSet"), "spec.volumeClaimTemplates",
                               [{"metadata": {"name": "d"}, "spec": {"resources": {"requests": {"storage": "1Gi"}}}}]),
                       f'StatefulSet.apps "web" is invalid: spec: Forbidden: {STATEFULSET_FORBIDDEN}'),
    # Job: selector, template (unless suspended and not started: its scheduling directives), completions
    "job selector": (changed(workload("Job"), "spec.selector", {"matchLabels": {"app": "api"}}), workload("Job"),
                     f"Job.batch {SELECTOR}"),
    "job parallelism": (changed(workload("Job"), "spec.parallelism", 4), workload("Job"), None),
    "job completions": (changed(workload("Job"), "spec.completions", 4), workload("Job"),
                        'Job.batch "web" is invalid: spec.completions: Invalid value: 4: field is immutable'),
    "job node selector suspended": (
        changed(workload("Job", suspend=True), "spec.template.spec.nodeSelector", {"pool": "b"}),
        workload("Job", suspend=True), None),
    "job image suspended": (
        changed(workload("Job", suspend=True), "spec.template.spec.containers", [{"name": "c", "image": "x"}]),
        workload("Job", suspend=True), "template"),
    "job node selector running": (
        changed(workload("Job"), "spec.template.spec.nodeSelector", {"pool": "b"}), workload("Job"), "template"),
    # PersistentVolumeClaim
    "pvc class": (pvc(storageClassName="fast"), pvc(storageClassName="slow"),
                  f'PersistentVolumeClaim "data" is invalid: spec: Forbidden: {PVC_FORBIDDEN}'),
    "pvc class from none": (pvc(storageClassName="fast"), pvc(), None),
    "pvc first volume name": (pvc(volumeName="pv-1"), pvc(), None),
    "pvc bound grows": ({**pvc(resources={"requests": {"storage": "2Gi"}}), "status": {"phase": "Bound"}},
                        {**pvc(), "status": {"phase": "Bound"}}, None),
    "pvc pending grows": (pvc(resources={"requests": {"storage": "2Gi"}}), pvc(),
                          f'PersistentVolumeClaim "data" is invalid: spec: Forbidden: {PVC_FORBIDDEN}'),
    "pvc default volume mode": (pvc(volumeMode="Filesystem"), pvc(), None),
    # Service cluster IPs
    "svc cluster ip": (svc(clusterIP="10.0.0.9"), svc(clusterIP="10.0.0.5", clusterIPs=["10.0.0.5"]),
                       'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: ["10.0.0.9"]: may not change '
                       "once set"),
    "svc same ip": (svc(clusterIP="10.0.0.5", clusterIPs=["10.0.0.5"]), svc(clusterIP="10.0.0.5",
                                                                              clusterIPs=["10.0.0.5"]), None),
    "svc ports": (svc(clusterIP="10.0.0.5", ports=[{"port": 8080}]), svc(clusterIP="10.0.0.5"), None),
    # issue 77 item 22: headless over an allocated IP is refused (normalizeClusterIPs makes clusterIPs
    # ["None"]), whether the IP is stored or the API server allocated it to a manifest without one
    "svc headless over stored ip": (svc(clusterIP="None", clusterIPs=["10.0.0.5"]),
                                    svc(clusterIP="10.0.0.5", clusterIPs=["10.0.0.5"]),
                                    'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: ["None"]: may not '
                                    "change once set"),
    "svc headless over allocated": (svc(clusterIP="None"), svc(),
                                    'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: ["None"]: may not '
                                    "change once set"),
    # ... and a manifest without clusterIP over a headless Service keeps its None (patchAllocatedValues)
    "svc no ip over headless": (svc(), svc(clusterIP="None"), None),
    "svc ip dropped over stored headless": (svc(clusterIPs=["None"]), svc(clusterIP="None", clusterIPs=["None"]),
                                            None),
    "svc no ip over stored ip": (svc(), svc(clusterIP="10.0.0.5", clusterIPs=["10.0.0.5"]), None),
    "svc ip over allocated": (svc(clusterIP="10.0.0.9"), svc(),
                              'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: ["10.0.0.9"]: may not '
                              "change once set"),
    "svc secondary released": (svc(clusterIP="10.0.0.5", clusterIPs=["10.0.0.5"]),
                               svc(clusterIP="10.0.0.5", clusterIPs=["10.0.0.5", "fd00::5"],
                                   ipFamilyPolicy="PreferDualStack"),
                               'Service "web" is invalid: spec.ipFamilyPolicy: Invalid value: null: must be set to '
                               "'SingleStack' when releasing the secondary clusterIP"),
    # Pod
    "pod image": (changed(pod(), "spec.containers", [{"name": "c", "image": "nginx:2",
                                                      "resources": {"requests": {"cpu": "1"}}}]), pod(), None),
    "pod requests": (changed(pod(), "spec.containers", [{"name": "c", "image": "nginx:1",
                                                         "resources": {"requests": {"cpu": "2"}}}]), pod(),
                     f'Pod "p" is invalid: spec: Forbidden: {POD_FORBIDDEN}'),
    "pod toleration added": (pod(tolerations=[{"key": "a", "operator": "Exists"}, {"key": "b", "operator": "Exists"}]),
                             pod(tolerations=[{"key": "a", "operator": "Exists"}]), None),
    "pod toleration removed": (pod(), pod(tolerations=[{"key": "a", "operator": "Exists"}]),
                               'Pod "p" is invalid: spec.tolerations: Forbidden: existing toleration can not be '
                               "modified except its tolerationSeconds"),
    "pod container added": (changed(pod(), "spec.containers", [{"name": "c", "image": "nginx:1",
                                                                "resources": {"requests": {"cpu": "1"}}},
                                                               {"name": "d", "image": "x"}]), pod(),
                            'Pod "p" is invalid: spec.containers: Forbidden: pod updates may not add or remove '
                            "containers"),
    "pod gate removed": (pod(), pod(schedulingGates=[{"name": "wait"}]), None),
    # kinds without update checks here
    "namespace labels": ({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a", "labels": {"x": "1"}}},
                         {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}, None),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_update(case):
    new, old, want = CASES[case]
    before_new, before_old = copy.deepcopy(new), copy.deepcopy(old)
    got = update_refusal(new, old)
    assert (new, old) == (before_new, before_old)        # neither object is changed
    if want == "template":      # (the API server shows its internal struct: the words around it)
        assert got is not None and got.startswith('Job.batch "web" is invalid: spec.template: Invalid value: {') \
            and got.endswith(": field is immutable")
    else:
        assert got == want


@pytest.mark.parametrize("new, old, kept", [
    (svc(), svc(clusterIP="None"), ("None", ["None"])),                              # headless stays headless
    (svc(clusterIPs=["None"]), svc(clusterIP="None", clusterIPs=["None"]), ("None", ["None"])),
    (svc(), svc(clusterIP="10.0.0.5", clusterIPs=["10.0.0.5"]), ("10.0.0.5", ["10.0.0.5"])),
    (svc(), svc(), (None, None)),          # (an IP kexplain never saw allocated: nothing to keep)
    (svc(type="ExternalName", externalName="a.example.com"), svc(clusterIP="None"), (None, None)),
])
def test_an_accepted_service_update_keeps_the_allocated_ips(new, old, kept):
    """patchAllocatedValues: what the manifest leaves out, the registry keeps (issue 77 item 22)."""
    assert update_refusal(new, old) is None
    spec = stored_update(new, old)["spec"]
    assert (spec.get("clusterIP"), spec.get("clusterIPs")) == kept


# -- StorageClass (ValidateStorageClassUpdate, Kubernetes v1.36.3) -----------------------------
def storage_class(**fields) -> dict:
    return {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "std"},
            "provisioner": "ebs.csi.aws.com", "parameters": {"type": "gp2"},
            "volumeBindingMode": "WaitForFirstConsumer", **fields}


SC_INVALID = 'StorageClass.storage.k8s.io "std" is invalid: '


@pytest.mark.parametrize("new, message", [
    (storage_class(volumeBindingMode="Immediate"), 'volumeBindingMode: Invalid value: "Immediate": field is immutable'),
    # a mode the manifest leaves out is defaulted to Immediate: a change
    ({k: v for k, v in storage_class().items() if k != "volumeBindingMode"},
     'volumeBindingMode: Invalid value: "Immediate": field is immutable'),
    # a Go map: its keys sorted by encoding/json
    (storage_class(parameters={"type": "gp3", "iops": "3000"}),
     'parameters: Invalid value: {"iops":"3000","type":"gp3"}: field is immutable'),
    ({k: v for k, v in storage_class().items() if k != "parameters"}, "parameters: Invalid value: null: field is immutable"),
    (storage_class(reclaimPolicy="Retain"), 'reclaimPolicy: Invalid value: "Retain": field is immutable'),
    # in ValidateStorageClassUpdate's order, as one aggregate
    (storage_class(provisioner="pd.csi.storage.gke.io", volumeBindingMode="Immediate"),
     '[provisioner: Invalid value: "pd.csi.storage.gke.io": field is immutable, '
     'volumeBindingMode: Invalid value: "Immediate": field is immutable]'),
])
def test_a_storage_classs_immutable_fields(new, message):
    assert update_refusal(new, storage_class()) == SC_INVALID + message


@pytest.mark.parametrize("new", [
    storage_class(reclaimPolicy="Delete"),              # the default written out
    storage_class(allowVolumeExpansion=True, mountOptions=["debug"]),      # mutable fields
    storage_class(metadata={"name": "std", "labels": {"tier": "fast"}}),
])
def test_a_storage_classs_mutable_fields(new):
    assert update_refusal(new, storage_class()) is None
