"""Admission as each minor's kube-apiserver does it (`admit(..., kube=...)`): the fields each
version drops, what it merges, the plugins it runs and the texts it refuses with, read in that
minor's sources (pkg/api/pod/util.go, pkg/registry/*/strategy.go, pkg/apis/core/validation)."""
from __future__ import annotations

import copy

import pytest

from kexplain.admission import Admitted, admit
from kexplain.errors import AdmissionRejected, Source
from kexplain.features import KubeVersion

SRC = Source("cluster.yaml", 1)
POD_SRC = Source("pod.yaml", 1)
ALL = ("1.33", "1.34", "1.35", "1.36")


def make_pod(name: str = "web", *, labels: dict | None = None, status: dict | None = None, **spec) -> dict:
    spec.setdefault("containers", [{"name": "c", "image": "nginx"}])
    meta: dict = {"name": name}
    if labels is not None:
        meta["labels"] = labels
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
    if status is not None:
        pod["status"] = status
    return pod


def node(name: str, labels: dict | None = None, status: dict | None = None) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels or {}},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}, **(status or {})}}


def run(minor: str | KubeVersion, pod: dict | None, *cluster: dict, by_shape: bool = True) -> Admitted:
    kube = minor if isinstance(minor, KubeVersion) else KubeVersion(minor)
    return admit([(copy.deepcopy(o), Source("cluster.yaml", i + 1)) for i, o in enumerate(cluster)],
                 (copy.deepcopy(pod), POD_SRC) if pod is not None else None, kube=kube, by_shape=by_shape)


def refusal(minor: str | KubeVersion, pod: dict, *cluster: dict) -> str:
    with pytest.raises(AdmissionRejected) as info:
        run(minor, pod, *cluster)
    return info.value.message


def pods(result: Admitted) -> dict[str, dict]:
    return {o["metadata"]["name"]: o for o, _ in result.objects if o["kind"] == "Pod"}


# -- PodTopologyLabels (PodTopologyLabelsAdmission: alpha, off in 1.33 and 1.34; beta, on from 1.35) ---------

ZONED = node("n1", {"topology.kubernetes.io/zone": "za", "topology.kubernetes.io/region": "ra"})


@pytest.mark.parametrize("minor,copied", [("1.33", False), ("1.34", False), ("1.35", True), ("1.36", True)])
def test_bound_pods_get_their_nodes_zone_labels_from_1_35(minor, copied):
    bound = [make_pod(f"cache-{i}", labels={"topology.kubernetes.io/zone": "stale"}, nodeName="n1") for i in range(3)]
    for by_shape in (True, False):          # the shape fast path copies them as the full path does
        labels = pods(run(minor, None, ZONED, *bound, by_shape=by_shape))["cache-2"]["metadata"]["labels"]
        if copied:
            assert labels == {"topology.kubernetes.io/zone": "za", "topology.kubernetes.io/region": "ra"}
        else:
            assert labels == {"topology.kubernetes.io/zone": "stale"}


def test_a_sequence_binds_with_the_labels_of_its_version():
    from kexplain.admission.podtopologylabels import labels_on_bind
    labels = ZONED["metadata"]["labels"] | {"kubernetes.io/hostname": "n1"}
    assert labels_on_bind(labels, KubeVersion("1.34")) == {}
    assert labels_on_bind(labels, KubeVersion("1.35")) == {"topology.kubernetes.io/zone": "za",
                                                           "topology.kubernetes.io/region": "ra"}
    gated = KubeVersion("1.34").with_feature_gates("PodTopologyLabelsAdmission=true")
    assert labels_on_bind(labels, gated) == labels_on_bind(labels, KubeVersion("1.35"))


# -- matchLabelKeys: merged into the selector, and checked ---------------------------------------------

def _spread(selector: dict | None, keys: list[str]) -> dict:
    constraint = {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "matchLabelKeys": keys}
    if selector is not None:
        constraint["labelSelector"] = selector
    return constraint


@pytest.mark.parametrize("minor,spread_merged", [("1.33", False), ("1.34", True), ("1.35", True), ("1.36", True)])
def test_the_spread_merge_arrives_in_1_34_the_affinity_merge_is_in_every_minor(minor, spread_merged):
    term = {"topologyKey": "zone", "labelSelector": {"matchLabels": {"tier": "web"}}, "matchLabelKeys": ["rev"]}
    pod = make_pod(labels={"tier": "web", "rev": "2"}, affinity={"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}},
                   topologySpreadConstraints=[_spread({"matchLabels": {"tier": "web"}}, ["rev"])])
    spec = run(minor, pod).pending["spec"]
    merged = [{"key": "rev", "operator": "In", "values": ["2"]}]
    assert spec["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]["labelSelector"] \
        .get("matchExpressions") == merged
    assert spec["topologySpreadConstraints"][0]["labelSelector"].get("matchExpressions") == \
        (merged if spread_merged else None)


def test_1_33_refuses_a_spread_key_that_is_any_key_of_the_selector_as_written():
    # the key is in matchExpressions once, and the pod has no such label: 1.35's check (on the merged
    # selector) lets it pass, 1.33's legacy check does not
    pod = make_pod(labels={"tier": "web"},
                   topologySpreadConstraints=[_spread({"matchExpressions": [{"key": "app", "operator": "Exists"}]},
                                                      ["app"])])
    assert refusal("1.33", pod) == ('Pod "web" is invalid: spec.topologySpreadConstraints[0].matchLabelKeys[0]: '
                                    'Invalid value: "app": exists in both matchLabelKeys and labelSelector')
    assert run("1.35", pod).pending["spec"]["topologySpreadConstraints"][0]["matchLabelKeys"] == ["app"]


def test_1_33_forbids_spread_keys_without_a_selector_at_the_keys():
    pod = make_pod(labels={"app": "a"}, topologySpreadConstraints=[_spread(None, ["app"])])
    assert refusal("1.33", pod) == ('Pod "web" is invalid: spec.topologySpreadConstraints[0].matchLabelKeys: '
                                    'Forbidden: must not be specified when labelSelector is not set')


def test_without_the_selector_merge_gate_1_35_checks_as_1_33_does():
    kube = KubeVersion("1.35").with_feature_gates("MatchLabelKeysInPodTopologySpreadSelectorMerge=false")
    pod = make_pod(labels={"tier": "web"},
                   topologySpreadConstraints=[_spread({"matchExpressions": [{"key": "app", "operator": "Exists"}]},
                                                      ["app"])])
    assert "spec.topologySpreadConstraints[0].matchLabelKeys[0]: Invalid value" in refusal(kube, pod)


# -- fields of disabled gates, dropped on create -----------------------------------------------------

def test_1_33_drops_pod_level_resources_and_resource_claims():
    pod = make_pod(resources={"requests": {"cpu": "1"}, "limits": {"cpu": "1"}},
                   resourceClaims=[{"name": "gpu", "resourceClaimName": "gpu-claim"}],
                   containers=[{"name": "c", "image": "nginx", "resources": {"claims": [{"name": "gpu"}]}}],
                   status={"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "gpu-claim"}]})
    old = run("1.33", pod).pending
    assert "resources" not in old["spec"] and "resourceClaims" not in old["spec"]
    assert "claims" not in old["spec"]["containers"][0]["resources"]
    assert "resourceClaimStatuses" not in old["status"]
    new = run("1.34", pod).pending
    assert new["spec"]["resources"] == {"requests": {"cpu": "1"}, "limits": {"cpu": "1"}}
    assert new["spec"]["resourceClaims"] == [{"name": "gpu", "resourceClaimName": "gpu-claim"}]
    assert new["status"]["resourceClaimStatuses"] == [{"name": "gpu", "resourceClaimName": "gpu-claim"}]


@pytest.mark.parametrize("minor,kept", [("1.33", False), ("1.34", False), ("1.35", True), ("1.36", True)])
def test_image_volumes_and_their_mounts_are_dropped_before_1_35(minor, kept):
    pod = make_pod(volumes=[{"name": "model", "image": {"reference": "quay.io/m:1"}}, {"name": "tmp", "emptyDir": {}}],
                   containers=[{"name": "c", "image": "nginx", "volumeMounts": [
                       {"name": "model", "mountPath": "/m"}, {"name": "tmp", "mountPath": "/t"}]}])
    spec = run(minor, pod).pending["spec"]
    assert [v["name"] for v in spec["volumes"]] == (["model", "tmp"] if kept else ["tmp"])
    assert [m["name"] for m in spec["containers"][0]["volumeMounts"]] == (["model", "tmp"] if kept else ["tmp"])


RULES = [{"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}]


def test_1_34_drops_container_restart_policies_and_rules_but_a_sidecars():
    pod = make_pod(containers=[{"name": "c", "image": "nginx", "restartPolicy": "Never", "restartPolicyRules": RULES}],
                   initContainers=[{"name": "side", "image": "envoy", "restartPolicy": "Always"},
                                   {"name": "init", "image": "busybox", "restartPolicy": "Never",
                                    "restartPolicyRules": RULES}])
    spec = run("1.34", pod).pending["spec"]
    assert "restartPolicy" not in spec["containers"][0] and "restartPolicyRules" not in spec["containers"][0]
    assert spec["initContainers"][0]["restartPolicy"] == "Always"
    assert "restartPolicy" not in spec["initContainers"][1] and "restartPolicyRules" not in spec["initContainers"][1]
    assert run("1.35", pod).pending["spec"]["containers"][0]["restartPolicyRules"] == RULES


def test_1_33_forbids_a_regular_containers_restart_policy():
    pod = make_pod(containers=[{"name": "c", "image": "nginx", "restartPolicy": "Never"}])
    assert refusal("1.33", pod) == ('Pod "web" is invalid: spec.containers[0].restartPolicy: '
                                    'Forbidden: may not be set for non-init containers')


def test_node_declared_features_are_kept_and_checked_from_1_36():
    features = {"declaredFeatures": ["RestartAllContainersOnContainerExits"]}
    old = [o for o, _ in run("1.35", None, node("n1", status=features)).objects if o["kind"] == "Node"][0]
    assert "declaredFeatures" not in old["status"]
    new = [o for o, _ in run("1.36", None, node("n1", status=features)).objects if o["kind"] == "Node"][0]
    assert new["status"]["declaredFeatures"] == ["RestartAllContainersOnContainerExits"]
    with pytest.raises(AdmissionRejected) as info:
        run("1.36", None, node("n1", status={"declaredFeatures": ["b/x", "A", "A"]}))
    assert info.value.message == (
        'Node "n1" is invalid: [status.declaredFeatures[0]: Invalid value: "b/x": invalid feature name "b/x": '
        "must start with an UpperCamelCase segment, with subsequent segments separated by '/' (e.g., MyFeature "
        "or MyFeature/mySubFeature), and contain only alphanumeric characters and slashes, "
        'status.declaredFeatures[1]: Invalid value: "A": list must be sorted alphabetically, '
        'status.declaredFeatures[2]: Duplicate value: "A"]')


# -- validation texts that differ ------------------------------------------------------------------

def _tolerating(operator: str, value: str = "5") -> dict:
    return make_pod(tolerations=[{"key": "k", "operator": operator, "value": value, "effect": "NoSchedule"}])


@pytest.mark.parametrize("minor,values", [("1.33", '"Equal", "Exists"'), ("1.34", '"Equal", "Exists"'),
                                          ("1.35", '"Equal", "Exists", "Lt", "Gt"'),
                                          ("1.36", '"Equal", "Exists", "Lt", "Gt"')])
def test_the_numeric_toleration_operators_are_refused_in_each_minors_words(minor, values):
    assert refusal(minor, _tolerating("Lt")) == \
        f'Pod "web" is invalid: spec.tolerations[0].operator: Unsupported value: "Lt": supported values: {values}'


def test_with_taint_toleration_comparison_operators_the_value_must_be_a_decimal_int64():
    kube = KubeVersion("1.35").with_feature_gates("TaintTolerationComparisonOperators=true")
    assert run(kube, _tolerating("Gt", "12")).pending["spec"]["tolerations"][0]["operator"] == "Gt"
    assert refusal(kube, _tolerating("Gt", "007")) == ('Pod "web" is invalid: spec.tolerations[0].value: Invalid value: '
                                                       '"007": must be a valid decimal integer in canonical form')
    assert refusal(kube, _tolerating("Lt", "99999999999999999999")) == (
        'Pod "web" is invalid: spec.tolerations[0].value: Invalid value: "99999999999999999999": '
        'strconv.ParseInt: parsing "99999999999999999999": value out of range')


def _restart_all(**container) -> dict:
    rules = [{"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [1]}}]
    return make_pod(restartPolicy="Never",
                    containers=[{"name": "c", "image": "nginx", "restartPolicy": "Never", "restartPolicyRules": rules,
                                 **container}])


def test_the_restart_all_containers_action_is_accepted_from_1_36():
    assert refusal("1.35", _restart_all()) == (
        'Pod "web" is invalid: spec.containers[0].restartPolicyRules[0].action: '
        'Unsupported value: "RestartAllContainers": supported values: "Restart"')
    spec = run("1.36", _restart_all()).pending["spec"]
    assert spec["containers"][0]["restartPolicyRules"][0]["action"] == "RestartAllContainers"


def test_an_unknown_restart_action_lists_the_allowed_ones_from_1_36():
    rules = [{"action": "Reboot", "exitCodes": {"operator": "In", "values": [1]}}]
    pod = make_pod(containers=[{"name": "c", "image": "nginx", "restartPolicy": "Never", "restartPolicyRules": rules}])
    assert refusal("1.35", pod).endswith('action: Unsupported value: "Reboot": supported values: "Restart"')
    assert refusal("1.36", pod).endswith(
        'action: Unsupported value: "Reboot": supported values: "Restart", "RestartAllContainers"')


def test_too_many_restart_rules_said_as_too_long_before_1_36():
    rules = [{"action": "Restart", "exitCodes": {"operator": "In", "values": [i]}} for i in range(21)]
    pod = make_pod(containers=[{"name": "c", "image": "nginx", "restartPolicy": "Never", "restartPolicyRules": rules}])
    assert refusal("1.35", pod) == ('Pod "web" is invalid: spec.containers[0].restartPolicyRules: '
                                    "Too long: may not be more than 20 bytes")
    assert refusal("1.36", pod) == ('Pod "web" is invalid: spec.containers[0].restartPolicyRules: '
                                    "Too many: 21: must have at most 20 items")
    codes = [{"action": "Restart", "exitCodes": {"operator": "NotIn", "values": list(range(256))}}]
    many = make_pod(containers=[{"name": "c", "image": "nginx", "restartPolicy": "Never", "restartPolicyRules": codes}])
    assert refusal("1.36", many).endswith(
        "spec.containers[0].restartPolicyRules[0].exitCodes.values: Too many: 256: must have at most 255 items")


def test_a_resize_policy_under_a_never_restart_policy_in_each_minors_words():
    pod = make_pod(restartPolicy="Never", containers=[{"name": "c", "image": "nginx", "resizePolicy": [
        {"resourceName": "cpu", "restartPolicy": "RestartContainer"}]}])
    assert refusal("1.35", pod) == ('Pod "web" is invalid: spec.containers[0].resizePolicy: Invalid value: '
                                    "\"RestartContainer\": must be 'NotRequired' when `restartPolicy` is 'Never'")
    assert refusal("1.36", pod) == ('Pod "web" is invalid: spec.containers[0].resizePolicy: Invalid value: '
                                    "\"RestartContainer\": must be 'NotRequired' when pod `restartPolicy` is 'Never'")


def test_1_36_refuses_a_restarting_resize_of_a_non_sidecar_init_container():
    pod = make_pod(initContainers=[{"name": "init", "image": "busybox", "resizePolicy": [
        {"resourceName": "memory", "restartPolicy": "RestartContainer"}]}])
    assert run("1.35", pod).pending["spec"]["initContainers"][0]["resizePolicy"][0]["resourceName"] == "memory"
    assert refusal("1.36", pod) == (
        'Pod "web" is invalid: spec.initContainers[0].resizePolicy[0].restartPolicy: Invalid value: '
        "\"RestartContainer\": must not be set to 'RestartContainer' for non-sidecar initContainers")


@pytest.mark.parametrize("minor,text", [("1.33", "when `pod.Spec.HostUsers` is false"),
                                        ("1.35", "when `hostUsers` is false"), ("1.36", "when `hostUsers` is false")])
def test_a_user_namespace_may_not_share_the_host_network(minor, text):
    pod = make_pod(hostNetwork=True, hostUsers=False)
    assert refusal(minor, pod) == f'Pod "web" is invalid: spec.hostNetwork: Forbidden: {text}'


def test_claim_statuses_are_checked_and_a_bad_claim_name_is_named_at_its_field_from_1_36():
    pod = make_pod(resourceClaims=[{"name": "gpu", "resourceClaimTemplateName": "t"}],
                   status={"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "Bad_Name"},
                                                     {"name": "tpu"}]})
    detail = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
              "must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
              "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
    unknown = ('status.resourceClaimStatuses[1].name: Invalid value: "tpu": must match the name of an entry in '
               "`spec.resourceClaims`")
    assert refusal("1.35", pod) == (f'Pod "web" is invalid: [status.resourceClaimStatuses[0].name: Invalid value: '
                                    f'"Bad_Name": {detail}, {unknown}]')
    assert refusal("1.36", pod) == (f'Pod "web" is invalid: [status.resourceClaimStatuses[0].resourceClaimName: '
                                    f'Invalid value: "Bad_Name": {detail}, {unknown}]')


# -- DRA objects -------------------------------------------------------------------------------------

def _claim(expression: str) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c", "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "r", "exactly": {
                "deviceClassName": "gpu", "selectors": [{"cel": {"expression": expression}}]}}]}}}


@pytest.mark.parametrize("expression,column", [
    ('device.attributes["gpu.example.com"].models.slice(0, 1) == ["a"]', 50),
    ("[3, 1].sort() == [1, 3]", 12),
])
def test_1_34_compiles_new_selectors_without_the_cel_lists_extension(expression, column):
    with pytest.raises(AdmissionRejected) as info:
        run("1.34", None, _claim(expression))
    function = "slice" if "slice" in expression else "sort"
    assert info.value.message.startswith(
        f'ResourceClaim.resource.k8s.io "c" is invalid: spec.devices.requests[0].exactly.selectors[0].cel.expression: '
        f"Invalid value: ")
    assert f"compilation failed: ERROR: <input>:1:{column}: undeclared reference to '{function}' (in container '')" \
        in info.value.message
    claims = [o for o, _ in run("1.35", None, _claim(expression)).objects if o["kind"] == "ResourceClaim"]
    assert len(claims) == 1


def _slice(**device) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
            "spec": {"driver": "gpu.example.com", "nodeName": "n1", "pool": {"name": "p", "resourceSliceCount": 1},
                     "devices": [{"name": "d0", **device}]}}


def test_device_taints_are_dropped_in_1_35_and_kept_in_1_36():
    taint = {"key": "broken", "value": "yes", "effect": "NoSchedule"}
    for minor, kept in (("1.35", False), ("1.36", True)):
        device = [o for o, _ in run(minor, None, _slice(taints=[taint])).objects
                  if o["kind"] == "ResourceSlice"][0]["spec"]["devices"][0]
        assert ("taints" in device) is kept


@pytest.mark.parametrize("minor,kept", [("1.33", False), ("1.34", True)])
def test_a_claims_volume_attributes_class_is_dropped_in_1_33(minor, kept):
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data"},
             "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
                      "storageClassName": "fast", "volumeAttributesClassName": "gold"}}
    volume = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv"},
              "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/d"},
                       "storageClassName": "fast", "volumeAttributesClassName": "gold"}}
    result = run(minor, None, claim, volume)
    for kind in ("PersistentVolumeClaim", "PersistentVolume"):
        (obj,) = [o for o, _ in result.objects if o["kind"] == kind]
        assert ("volumeAttributesClassName" in obj["spec"]) is kept
