"""What the API server does to a set's pods from its namespaces' policies (issue 39, item 1):
LimitRanger's defaults and refusals, ResourceQuota's refusals as the controllers meet them
(FailedCreate), Pod Security's refusals and warnings, each in the API server's words. Files
shaped like a team's namespace bundle: a Namespace, its LimitRange and ResourceQuota, its apps."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kexplain.admission import podsecurity
from kexplain.admission.limitranger import ANNOTATION
from kexplain.admission.resourcequota import QuotaLedger
from kexplain.cli.app import main
from kexplain.explain.inputs import load
from kexplain.explain.request import Request
from tests.support.cli_helpers import TestEnvironment
from tests.support.copies import copy_names

NODES = """\
apiVersion: v1
kind: Node
metadata:
  name: pool-a-1
  labels: {kubernetes.io/hostname: pool-a-1, topology.kubernetes.io/zone: europe-west1-b}
status:
  capacity: {cpu: "8", memory: 32Gi, pods: "110"}
  allocatable: {cpu: "7910m", memory: 29Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata:
  name: pool-a-2
  labels: {kubernetes.io/hostname: pool-a-2, topology.kubernetes.io/zone: europe-west1-c}
status:
  capacity: {cpu: "8", memory: 32Gi, pods: "110"}
  allocatable: {cpu: "7910m", memory: 29Gi, pods: "110"}
"""


def namespace(labels: str = "") -> str:
    return f"""\
apiVersion: v1
kind: Namespace
metadata:
  name: payments
  labels:
    team: payments{labels}
"""


LIMITS = """\
apiVersion: v1
kind: LimitRange
metadata: {name: container-defaults, namespace: payments}
spec:
  limits:
  - type: Container
    default: {cpu: "1", memory: 1Gi}
    defaultRequest: {cpu: 250m, memory: 256Mi}
    max: {cpu: "2", memory: 4Gi}
    min: {cpu: 50m}
    maxLimitRequestRatio: {memory: "4"}
"""


def deployment(name: str = "api", replicas: int = 3, resources: str = "", security: str = "") -> str:
    return f"""\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: payments, labels: {{app: {name}}}}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers:
      - name: {name}
        image: europe-docker.pkg.dev/acme/payments/{name}:3.2.1
        ports: [{{containerPort: 8443, name: https}}]{resources}{security}
"""


def _write(tmp_path: Path, *docs: str) -> tuple[str, str]:
    (tmp_path / "bundle.yaml").write_text("---\n".join(docs))
    (tmp_path / "nodes.yaml").write_text(NODES)
    return str(tmp_path / "bundle.yaml"), str(tmp_path / "nodes.yaml")


def _run(*argv: str) -> tuple[int, str, str]:
    env = TestEnvironment()
    code = main(list(argv), env=env)
    return code, env.out, env.err


# -- LimitRanger -------------------------------------------------------------------------------
def test_limit_range_defaults_reach_the_pods(tmp_path: Path) -> None:
    bundle, nodes = _write(tmp_path, namespace(), LIMITS, deployment(replicas=1))
    loaded = load(Request(pod_path=bundle, node_paths=(nodes,)))
    pod = loaded.single.pod.obj
    resources = pod["spec"]["containers"][0]["resources"]
    assert resources == {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "250m", "memory": "256Mi"}}
    assert pod["metadata"]["annotations"][ANNOTATION] == (
        "LimitRanger plugin set: cpu, memory request for container api; cpu, memory limit for container api")
    assert loaded.single.pod.priority == 0


def test_a_stored_pod_keeps_what_it_has(tmp_path: Path) -> None:
    """A pod read from a cluster (resourceVersion) went through LimitRanger already."""
    stored = """\
apiVersion: v1
kind: Pod
metadata: {name: api-7c9d-x2b4q, namespace: payments, resourceVersion: "48213"}
spec:
  containers:
  - name: api
    image: europe-docker.pkg.dev/acme/payments/api:3.2.1
    resources: {requests: {cpu: 100m}}
"""
    bundle, nodes = _write(tmp_path, namespace(), LIMITS, stored)
    loaded = load(Request(pod_path=bundle, node_paths=(nodes,)))
    assert loaded.single.pod.obj["spec"]["containers"][0]["resources"] == {"requests": {"cpu": "100m"}}


@pytest.mark.parametrize(("resources", "message"), [
    ('\n        resources: {limits: {cpu: "4"}}', "maximum cpu usage per Container is 2, but limit is 4"),
    ('\n        resources: {requests: {cpu: 10m}}', "minimum cpu usage per Container is 50m, but request is 10m"),
    ('\n        resources: {requests: {memory: 128Mi}, limits: {memory: 1Gi}}',
     "memory max limit to request ratio per Container is 4, but provided ratio is 8.000000"),
])
def test_limit_range_refusals(tmp_path: Path, resources: str, message: str) -> None:
    """The Deployment is admitted; the ReplicaSet controller's creates are refused: none of its
    pods exists (exit code 1, its section says so; not bad input)."""
    bundle, nodes = _write(tmp_path, namespace(), LIMITS, deployment(resources=resources))
    code, out, err = _run(bundle, "--nodes", nodes)
    assert code == 1 and "error:" not in err
    first = copy_names(deployment(resources=resources), 1)[0]
    assert (f'0 of 3 pods created (FailedCreate: Error creating: pods "{first}" is forbidden: '
            f"{message})") in " ".join(out.split())       # (wrapped at 80 columns)
    code, out, _ = _run("lint", bundle, "--nodes", nodes, "-o", "json")
    [finding] = [f for f in json.loads(out)["findings"] if f["rule"] == "admission"]
    assert finding["message"].endswith(message)


DEFAULT_LIMITS_ONLY = """\
apiVersion: v1
kind: LimitRange
metadata: {name: container-defaults, namespace: payments}
spec:
  limits:
  - type: Container
    default: {cpu: 500m, memory: 512Mi}
    defaultRequest: {cpu: 100m, memory: 128Mi}
    max: {cpu: "2"}
"""

AGENT = """\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: node-agent, namespace: payments}
spec:
  selector: {matchLabels: {app: node-agent}}
  template:
    metadata: {labels: {app: node-agent}}
    spec:
      containers:
      - name: agent
        image: europe-docker.pkg.dev/acme/ops/agent:1.0
        resources: {requests: {memory: 1Gi}}
"""


@pytest.mark.parametrize(("workload", "copies", "controller", "error"), [
    (deployment(replicas=2, resources='\n        resources: {requests: {cpu: "1"}}'), 2, "replicaset-controller",
     'spec.containers[0].resources.requests: Invalid value: "1": must be less than or equal to cpu limit of 500m'),
    (AGENT, 2, "daemonset-controller",
     'spec.containers[0].resources.requests: Invalid value: "1Gi": must be less than or equal to memory limit of '
     '512Mi'),
])
def test_a_default_limit_below_the_templates_request_refuses_the_pods_not_the_workload(
        tmp_path: Path, workload: str, copies: int, controller: str, error: str) -> None:
    """LimitRanger admits Pods only: the Deployment (DaemonSet) is stored, its template valid as
    written, and each pod its controller creates gets the default limit, below its request, and
    is invalid: 0 of N created (FailedCreate), exit code 1, not the workload refused."""
    bundle, nodes = _write(tmp_path, namespace(), DEFAULT_LIMITS_ONLY, workload)
    code, out, err = _run(bundle, "--nodes", nodes, "--no-suggestions")
    first = copy_names(workload, 1)[0]
    assert code == 1 and "error:" not in err, err
    assert (f'0 of {copies} pods created (FailedCreate: Error creating: Pod "{first}" is invalid: {error})'
            in " ".join(out.split()))
    code, out, _ = _run("lint", bundle, "--nodes", nodes, "-o", "json")
    [finding] = [f for f in json.loads(out)["findings"] if f["rule"] == "admission"]
    assert finding["message"] == (f'{controller} creates 0 of {copies} pods: FailedCreate: Error creating: '
                                  f'Pod "{first}" is invalid: {error}')
    assert (finding["details"]["replicas"], finding["details"]["created"]) == (copies, 0)


def test_a_template_invalid_as_written_still_refuses_the_workload(tmp_path: Path) -> None:
    """The template's own errors are the workload's (ValidatePodTemplateSpec), LimitRange or not."""
    bad = deployment(replicas=2, resources='\n        resources: {requests: {cpu: "1"}, limits: {cpu: 500m}}')
    bundle, nodes = _write(tmp_path, namespace(), DEFAULT_LIMITS_ONLY, bad)
    code, _, err = _run(bundle, "--nodes", nodes)
    assert code == 2
    assert ('Deployment payments/api: Deployment.apps "api" is invalid: spec.template.spec.containers[0].resources.'
            'requests: Invalid value: "1": must be less than or equal to cpu limit of 500m') in err


# -- ResourceQuota -----------------------------------------------------------------------------
QUOTA = """\
apiVersion: v1
kind: ResourceQuota
metadata: {name: payments-compute, namespace: payments}
spec:
  hard:
    pods: "4"
    requests.cpu: "2"
    requests.memory: 2Gi
    limits.memory: 4Gi
"""


def test_pods_beyond_the_quota_are_not_created(tmp_path: Path) -> None:
    """requests.cpu 2 with the LimitRange's default request of 250m: eight fit, but pods: 4 and
    limits.memory 4Gi (the default limit 1Gi each) stop the fifth; the controller's FailedCreate
    names every resource it would exceed, with the quota's used and hard."""
    bundle, nodes = _write(tmp_path, namespace(), LIMITS, QUOTA, deployment(replicas=6))
    code, out, err = _run(bundle, "--nodes", nodes, "-o", "json", "--no-suggestions")
    [placement] = json.loads(out)["placements"]
    assert (placement["replicas"], placement["created"], placement["fit"]) == (6, 4, 4)
    fifth = copy_names(deployment(replicas=6), 5)[4]
    expected = (f'Error creating: pods "{fifth}" is forbidden: exceeded quota: payments-compute, requested: '
                'limits.memory=1Gi,pods=1, used: limits.memory=4Gi,pods=4, limited: limits.memory=4Gi,pods=4')
    assert placement["failedCreate"] == expected and code == 1
    code, out, _ = _run(bundle, "--nodes", nodes, "--no-suggestions")
    assert f"=== Deployment payments/api (priority 0): 4 of 6 replicas fit 4 of 6 pods created (FailedCreate: " \
           f"{expected})" in " ".join(out.split())
    code, out, _ = _run("lint", bundle, "--nodes", nodes, "-o", "json")
    findings = json.loads(out)["findings"]
    assert code == 1 and [f["rule"] for f in findings] == ["admission", "fits"]


def test_the_quota_counts_the_clusters_pods_and_cpu(tmp_path: Path) -> None:
    """Two pods of the namespace run already (1500m of requests.cpu): the third pod's 500m
    would go beyond 2, so it is refused; a pod of another namespace does not count."""
    running = "".join(f"""---
apiVersion: v1
kind: Pod
metadata: {{name: ledger-{i}, namespace: {ns}}}
spec:
  nodeName: pool-a-1
  containers: [{{name: ledger, image: ledger:1, resources: {{requests: {{cpu: 750m, memory: 256Mi}}, limits: {{memory: 512Mi}}}}}}]
""" for i, ns in ((0, "payments"), (1, "payments"), (2, "default")))
    bundle, nodes = _write(tmp_path, namespace(), QUOTA, deployment(replicas=2, resources=(
        '\n        resources: {requests: {cpu: 500m, memory: 256Mi}, limits: {memory: 512Mi}}')))
    (tmp_path / "nodes.yaml").write_text(NODES + running)
    code, out, _ = _run(bundle, "--nodes", nodes, "-o", "json", "--no-suggestions")
    [placement] = json.loads(out)["placements"]
    assert (placement["replicas"], placement["created"]) == (2, 1)
    second = copy_names(deployment(replicas=2, resources=(
        '\n        resources: {requests: {cpu: 500m, memory: 256Mi}, limits: {memory: 512Mi}}')), 2)[1]
    assert placement["failedCreate"].endswith(
        f'pods "{second}" is forbidden: exceeded quota: payments-compute, requested: requests.cpu=500m, '
        'used: requests.cpu=2, limited: requests.cpu=2')


def test_a_quota_on_cpu_needs_every_container_to_say_it(tmp_path: Path) -> None:
    bundle, nodes = _write(tmp_path, namespace(), QUOTA, deployment(replicas=1))
    code, out, _ = _run(bundle, "--nodes", nodes)
    assert code == 1
    assert (f"0 of 1 pods created (FailedCreate: Error creating: pods \"{copy_names(deployment(replicas=1), 1)[0]}\" "
            "is forbidden: failed quota: "
            "payments-compute: must specify limits.memory for: api; requests.cpu for: api; requests.memory for: "
            "api)") in " ".join(out.split())


def test_scopes_and_priority_classes() -> None:
    quota = {"kind": "ResourceQuota", "metadata": {"name": "critical", "namespace": "payments"},
             "spec": {"hard": {"pods": "1"},
                      "scopeSelector": {"matchExpressions": [
                          {"scopeName": "PriorityClass", "operator": "In", "values": ["payments-critical"]}]}}}
    best_effort = {"kind": "ResourceQuota", "metadata": {"name": "best-effort", "namespace": "payments"},
                   "spec": {"hard": {"pods": "1"}, "scopes": ["BestEffort"]}}

    def pod(name: str, priority_class: str = "", cpu: str = "") -> dict:
        resources = {"requests": {"cpu": cpu}} if cpu else {}
        return {"kind": "Pod", "metadata": {"name": name, "namespace": "payments"},
                "spec": {"priorityClassName": priority_class,
                         "containers": [{"name": "c", "image": "i", "resources": resources}]}}

    ledger = QuotaLedger.of([quota, best_effort])
    assert ledger is not None
    assert ledger.create(pod("a", "payments-critical", "100m")) == ""
    assert ledger.create(pod("b", "payments-critical", "100m")).startswith(
        'pods "b" is forbidden: exceeded quota: critical, requested: pods=1, used: pods=1, limited: pods=1')
    assert ledger.create(pod("c", "", "100m")) == ""           # neither scope: not counted
    assert ledger.create(pod("d")) == ""                       # best effort: the first
    assert "exceeded quota: best-effort" in ledger.create(pod("e"))


def test_a_quota_status_read_from_a_cluster_is_used() -> None:
    quota = {"kind": "ResourceQuota", "metadata": {"name": "q", "namespace": "payments"},
             "spec": {"hard": {"pods": "10"}}, "status": {"hard": {"pods": "10"}, "used": {"pods": "10"}}}
    ledger = QuotaLedger.of([quota])
    refusal = ledger.create({"kind": "Pod", "metadata": {"name": "p", "namespace": "payments"}, "spec": {}})
    assert refusal.endswith("used: pods=10, limited: pods=10")



@pytest.mark.parametrize("kind", ["ResourceQuota", "LimitRange"])
def test_a_stored_policy_is_taken_as_it_is(tmp_path: Path, kind: str) -> None:
    """A LimitRange or ResourceQuota of the cluster's dump (a resourceVersion: the API server
    stored it) is not validated again, as no stored object is: it acts as it is, even where the
    version followed would refuse it as a create (a `request.cpu` key: a typo no create gets
    past, but a stored object is what the cluster has)."""
    policy = {"ResourceQuota": """\
apiVersion: v1
kind: ResourceQuota
metadata: {name: team-quota, namespace: payments, resourceVersion: "9120"}
spec:
  hard: {pods: "2", request.cpu: "4"}
status:
  hard: {pods: "2", request.cpu: "4"}
  used: {pods: "2"}
""", "LimitRange": """\
apiVersion: v1
kind: LimitRange
metadata: {name: container-defaults, namespace: payments, resourceVersion: "9121"}
spec:
  limits:
  - type: Container
    default: {cpu: 100m}
    defaultRequest: {cpu: 250m}
"""}[kind]
    (tmp_path / "app.yaml").write_text(deployment(replicas=1))
    (tmp_path / "nodes.yaml").write_text("---\n".join([NODES, namespace(), policy]))
    code, out, err = _run(str(tmp_path / "app.yaml"), "--nodes", str(tmp_path / "nodes.yaml"), "-o", "json")
    assert "is invalid" not in err and code == 1
    doc = json.loads(out)
    if kind == "ResourceQuota":     # full already: the ReplicaSet controller's create is refused
        assert doc["placements"][0]["failedCreate"].endswith(
            "exceeded quota: team-quota, requested: pods=1, used: pods=2, limited: pods=2")
    else:                           # its defaults reach the pod, which they make invalid
        assert "must be less than or equal to cpu limit of 100m" in doc["placements"][0]["failedCreate"]

# -- Pod Security -------------------------------------------------------------------------------
BASELINE = ("\n    pod-security.kubernetes.io/enforce: baseline\n    pod-security.kubernetes.io/enforce-version: latest"
            "\n    pod-security.kubernetes.io/warn: restricted")
PRIVILEGED = "\n        securityContext: {privileged: true}"


def test_a_privileged_pod_is_refused(tmp_path: Path) -> None:
    pod = """\
apiVersion: v1
kind: Pod
metadata: {name: netdebug, namespace: payments}
spec:
  hostNetwork: true
  containers:
  - name: netdebug
    image: nicolaka/netshoot:v0.13
    securityContext: {privileged: true, capabilities: {add: [NET_ADMIN]}}
"""
    bundle, nodes = _write(tmp_path, namespace(BASELINE), pod)
    code, _, err = _run(bundle, "--nodes", nodes)
    assert code == 2
    assert ('pods "netdebug" is forbidden: violates PodSecurity "baseline:latest": non-default capabilities '
            '(container "netdebug" must not include "NET_ADMIN" in securityContext.capabilities.add), host namespaces '
            '(hostNetwork=true), privileged (container "netdebug" must not set securityContext.privileged=true)') in err


def test_a_workloads_pods_are_refused_and_the_workload_warned(tmp_path: Path) -> None:
    bundle, nodes = _write(tmp_path, namespace(BASELINE), deployment(security=PRIVILEGED),
                           deployment(name="web", replicas=1))
    code, out, err = _run(bundle, "--nodes", nodes)
    first = copy_names(deployment(security=PRIVILEGED), 1)[0]
    assert (f'0 of 3 pods created (FailedCreate: Error creating: pods "{first}" is forbidden: violates PodSecurity '
            '"baseline:latest": privileged (container "api" must not set securityContext.privileged=true))') in \
        " ".join(out.split())
    assert ('Deployment payments/web: Warning: would violate PodSecurity "restricted:latest": '
            'allowPrivilegeEscalation != false (container "web" must set '
            'securityContext.allowPrivilegeEscalation=false)') in err
    assert code == 1
    code, out, _ = _run("lint", bundle, "--nodes", nodes, "-o", "json")
    report = json.loads(out)
    assert [f["rule"] for f in report["findings"]] == ["admission", "admission-warning", "fits"]
    warned = report["findings"][1]
    assert (warned["severity"], warned["object"]["name"]) == ("warning", "web")
    assert warned["message"].startswith('Warning: would violate PodSecurity "restricted:latest"')
    assert report["warnings"] == []


def test_policy_labels() -> None:
    p = podsecurity.policy_of({"pod-security.kubernetes.io/enforce": "baseline"})
    assert (str(p.enforce), str(p.warn), str(p.audit)) == ("baseline:latest", "baseline:latest", "privileged:latest")
    p = podsecurity.policy_of({"pod-security.kubernetes.io/enforce": "strict"})      # invalid: fail closed
    assert p.enforce.level == "restricted"
    p = podsecurity.policy_of({"pod-security.kubernetes.io/enforce": "restricted",
                               "pod-security.kubernetes.io/enforce-version": "v1.24"})
    assert str(p.warn) == "restricted:v1.24"
    # a probe host is refused from policy version 1.34 on only
    pod = {"metadata": {"name": "p"}, "spec": {"containers": [
        {"name": "c", "livenessProbe": {"httpGet": {"host": "10.0.0.1", "port": 80}}}]}}
    labels = {"pod-security.kubernetes.io/enforce": "baseline"}
    assert "probe or lifecycle host" in podsecurity.validate_pod(pod, labels, 35).refused
    labels["pod-security.kubernetes.io/enforce-version"] = "v1.33"
    assert podsecurity.validate_pod(pod, labels, 35).refused == ""


# -- Pod-level resources and the quantities a message sums (issue 39, audit) --------------------
POD_LIMITS = """\
apiVersion: v1
kind: LimitRange
metadata: {name: pod-bounds, namespace: payments}
spec:
  limits:
  - type: Pod
    max: {memory: 3Gi}
"""


def pod_level(name: str, cpu: str, containers: str = "") -> str:
    """A pod that states its resources once, for the pod (PodLevelResources), as the Kubernetes
    docs' example does; `containers`: more containers, with their own resources."""
    return f"""\
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: payments}}
spec:
  resources:
    requests: {{cpu: {cpu}, memory: 1Gi}}
    limits: {{cpu: "1", memory: 2Gi}}
  containers:
  - name: app
    image: europe-docker.pkg.dev/acme/payments/{name}:3.2.1{containers}
"""


def test_the_pod_limit_range_reads_pod_level_resources(tmp_path: Path) -> None:
    """podLimits takes the pod's own 2Gi (PodLevelResources is on from 1.34): within the Pod max
    of 3Gi; 1.33's API server drops spec.resources (the gate is off), and nothing is left."""
    bundle, nodes = _write(tmp_path, namespace(), POD_LIMITS, pod_level("ledger", "500m"))
    code, out, err = _run(bundle, "--nodes", nodes, "-o", "json")
    assert code == 0, err
    code, _, err = _run(bundle, "--nodes", nodes, "--kubernetes-version", "1.33")
    assert code == 2
    assert 'pods "ledger" is forbidden: maximum memory usage per Pod is 3Gi.  No limit is specified' in err


def test_a_pod_limit_sums_quantities_as_the_api_server_prints_them(tmp_path: Path) -> None:
    """Two containers' 2Gi add up to 4Gi (Quantity.Add keeps the first one's format), not
    4294967296."""
    pod = """\
apiVersion: v1
kind: Pod
metadata: {name: ledger, namespace: payments}
spec:
  containers:
  - {name: app, image: ledger:3, resources: {limits: {memory: 2Gi}}}
  - {name: proxy, image: envoy:1.31, resources: {limits: {memory: 2048Mi}}}
"""
    bundle, nodes = _write(tmp_path, namespace(), POD_LIMITS, pod)
    code, _, err = _run(bundle, "--nodes", nodes)
    assert code == 2
    assert 'pods "ledger" is forbidden: maximum memory usage per Pod is 3Gi, but limit is 4Gi' in err


def test_a_quota_asks_nothing_of_containers_when_the_pod_states_its_resources(tmp_path: Path) -> None:
    """podEvaluator.Constraints returns nil for a pod with pod-level resources: the first pod is
    admitted, and charged its pod-level 500m; the second's 800m exceeds requests.cpu 1."""
    quota = """\
apiVersion: v1
kind: ResourceQuota
metadata: {name: payments-compute, namespace: payments}
spec:
  hard: {requests.cpu: "1", limits.memory: 4Gi}
"""
    bundle, nodes = _write(tmp_path, namespace(), quota, pod_level("ledger", "500m"), pod_level("audit", "800m"))
    code, out, err = _run(bundle, "--nodes", nodes, "-o", "json", "--no-suggestions")
    assert [p["object"]["name"] for p in json.loads(out)["placements"]] == ["ledger"]
    assert ('pods "audit" is forbidden: exceeded quota: payments-compute, requested: requests.cpu=800m, '
            'used: requests.cpu=500m, limited: requests.cpu=1') in err
    assert "must specify" not in err and code == 2
    code, _, err = _run(bundle, "--nodes", nodes, "--kubernetes-version", "1.33")
    assert 'pods "ledger" is forbidden: failed quota: payments-compute: must specify limits.memory for: app; ' \
           'requests.cpu for: app' in err


def test_a_daemonsets_pods_are_charged_to_the_quota(tmp_path: Path) -> None:
    """The DaemonSet controller's creates pass quota admission like any other: a log agent on
    both nodes meets pods: 1 after its first pod, and the Deployment after it finds the quota
    used up (pods charged in the set's order)."""
    quota = """\
apiVersion: v1
kind: ResourceQuota
metadata: {name: payments-pods, namespace: payments}
spec:
  hard: {pods: "2"}
"""
    agent = """\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: log-agent, namespace: payments}
spec:
  selector: {matchLabels: {app: log-agent}}
  template:
    metadata: {labels: {app: log-agent}}
    spec:
      containers:
      - name: fluent-bit
        image: cr.fluentbit.io/fluent/fluent-bit:3.1
        resources: {requests: {cpu: 50m, memory: 64Mi}}
"""
    bundle, nodes = _write(tmp_path, namespace(), quota, deployment(name="api", replicas=1), agent,
                           deployment(name="web", replicas=1))
    code, out, err = _run(bundle, "--nodes", nodes, "-o", "json", "--no-suggestions")
    placements = {p["object"]["name"]: p for p in json.loads(out)["placements"]}
    daemon = placements["log-agent"]
    assert (daemon["replicas"], daemon["created"], daemon["fit"], daemon["notCreated"]) == (2, 1, 1, ["pool-a-2"])
    agent_pod = copy_names(agent, 2)[1]
    assert daemon["failedCreate"] == (
        f'Error creating: pods "{agent_pod}" is forbidden: exceeded quota: payments-pods, requested: pods=1, '
        'used: pods=2, limited: pods=2')
    web = placements["web"]         # admitted; its controller gets no pod created
    assert (web["replicas"], web["created"], web["fit"], web["pods"]) == (1, 0, 0, [])
    assert web["failedCreate"].startswith(f'Error creating: pods "{copy_names(deployment(name="web", replicas=1), 1)[0]}" '
                                          'is forbidden: exceeded quota: payments-pods')
    assert code == 1
    code, out, _ = _run(bundle, "--nodes", nodes)
    text = " ".join(out.split())
    assert "fits on 1 of 2 eligible nodes; no pod created on 1 of them (FailedCreate)" in text
    assert "1 of 2 pods created (FailedCreate: Error creating:" in text
    code, out, _ = _run("lint", bundle, "--nodes", nodes, "-o", "json")
    found = [(f["object"]["name"], f["rule"]) for f in json.loads(out)["findings"]]
    assert found == [("api", "fits"), ("log-agent", "admission"), ("log-agent", "fits"), ("web", "admission")]


@pytest.mark.parametrize(("labels", "error"), [
    ("\n    pod-security.kubernetes.io/enforce: strict\n    pod-security.kubernetes.io/enforce-version: v1.22",
     'metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, '
     'baseline, restricted'),
    ("\n    pod-security.kubernetes.io/enforce: restricted\n    pod-security.kubernetes.io/enforce-version: junk"
     "\n    pod-security.kubernetes.io/warn-version: v1.05",
     '[metadata.labels[pod-security.kubernetes.io/enforce-version]: Invalid value: "junk": must be "latest" or '
     '"v1.x", metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "v1.05": must be "latest" '
     'or "v1.x"]'),
])
def test_a_namespace_with_pod_security_labels_that_do_not_parse_is_refused(tmp_path: Path, labels: str,
                                                                          error: str) -> None:
    """PodSecurity's ValidateNamespace refuses the create; the namespace then does not exist, and
    NamespaceLifecycle refuses what is created in it (the LimitRange, the Deployment itself, the
    Pod); another namespace's pod is explained."""
    restricted_pod = """\
apiVersion: v1
kind: Pod
metadata: {name: ledger, namespace: payments}
spec:
  securityContext: {runAsNonRoot: true, seccompProfile: {type: RuntimeDefault}}
  containers:
  - name: ledger
    image: europe-docker.pkg.dev/acme/payments/ledger:3.2.1
    securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
"""
    elsewhere = restricted_pod.replace("ledger", "status").replace("namespace: payments", "namespace: default")
    bundle, nodes = _write(tmp_path, namespace(labels), LIMITS, deployment(), restricted_pod, elsewhere)
    code, out, err = _run(bundle, "--nodes", nodes, "-o", "json")
    assert f'Namespace payments: Namespace "payments" is invalid: {error}' in err
    for what in ("LimitRange payments/container-defaults", "Deployment payments/api", "Pod payments/ledger"):
        assert f'{what}: namespaces "payments" not found' in err
    assert [p["object"]["name"] for p in json.loads(out)["placements"]] == ["status"]
    assert code == 2
    code, out, _ = _run("lint", bundle, "--nodes", nodes, "-o", "json")
    found = [(f["object"]["kind"], f["rule"], f["message"]) for f in json.loads(out)["findings"]]
    assert found[0] == ("Namespace", "admission", f'Namespace "payments" is invalid: {error}')
    assert found[1:4] == [(kind, "admission", 'namespaces "payments" not found')
                          for kind in ("LimitRange", "Deployment", "Pod")]
    assert found[4][:2] == ("Pod", "fits") and code == 1
    # the pod alone with its Namespace: both refused, in the API server's words
    bundle, nodes = _write(tmp_path, namespace(labels), restricted_pod)
    code, _, err = _run(bundle, "--nodes", nodes)
    assert f'Namespace "payments" is invalid: {error}' in err and 'Pod payments/ledger: namespaces "payments" not found' \
        in err and code == 2


# -- the set's order -----------------------------------------------------------------------------
def _pod(name: str, extra: str = "") -> str:
    return f"""\
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: payments}}
spec:{extra}
  containers:
  - name: {name}
    image: europe-docker.pkg.dev/acme/payments/{name}:3.2.1
"""


ORDER_LIMITS = """\
apiVersion: v1
kind: LimitRange
metadata: {name: container-defaults, namespace: payments}
spec:
  limits:
  - type: Container
    default: {cpu: "3"}
    defaultRequest: {cpu: "3"}
"""
ORDER_QUOTA = """\
apiVersion: v1
kind: ResourceQuota
metadata: {name: payments-pods, namespace: payments}
spec:
  hard: {pods: "1"}
"""


def test_a_pod_created_before_its_namespaces_policies_meets_none(tmp_path: Path) -> None:
    """`kubectl apply -f` creates the objects in the order given: the Pod written before the
    LimitRange and the ResourceQuota is admitted without defaults and without a quota, which then
    counts it; the Pod written after gets the defaults and meets the full quota."""
    bundle, nodes = _write(tmp_path, namespace(), _pod("migrate"), ORDER_LIMITS, ORDER_QUOTA, _pod("ledger"))
    code, out, err = _run(bundle, "--nodes", nodes, "-o", "json", "--no-suggestions")
    [item] = json.loads(out)["items"]
    assert item["pod"]["name"] == "migrate" and item["result"]["status"] == "Scheduled"
    assert "limitRanger" not in item and code == 2
    assert ('Pod payments/ledger: pods "ledger" is forbidden: exceeded quota: payments-pods, requested: pods=1, '
            'used: pods=1, limited: pods=1') in err
    code, out, _ = _run("lint", bundle, "--nodes", nodes, "-o", "json")
    found = [(f["object"]["name"], f["rule"]) for f in json.loads(out)["findings"]]
    assert found == [("migrate", "fits"), ("ledger", "admission")]
    # the policies first, as Helm and kustomize sort them: both pods meet them
    bundle, nodes = _write(tmp_path, namespace(), ORDER_LIMITS, ORDER_QUOTA, _pod("migrate"), _pod("ledger"))
    code, out, err = _run(bundle, "--nodes", nodes, "-o", "json", "--no-suggestions")
    [item] = json.loads(out)["items"]
    assert item["pod"]["name"] == "migrate" and item["limitRanger"]["limitRanges"] == ["container-defaults"]


@pytest.mark.parametrize(("first", "fits"), [(True, True), (False, False)])
def test_a_bound_pod_meets_the_limit_ranges_created_before_it(tmp_path: Path, first: bool, fits: bool) -> None:
    """A pod of the set bound to pool-a-1 takes the LimitRange's 3 cpus only when it comes after
    it: then the 6-cpu batch pod no longer fits there (7910m allocatable)."""
    agent = _pod("agent", "\n  nodeName: pool-a-1")
    job = _pod("batch").replace("namespace: payments}", "namespace: default}").replace(
        "    image:", "    resources: {requests: {cpu: \"6\"}}\n    image:")
    docs = [namespace(), agent, ORDER_LIMITS] if first else [namespace(), ORDER_LIMITS, agent]
    bundle, nodes = _write(tmp_path, *docs, job)
    (tmp_path / "nodes.yaml").write_text(NODES.split("---")[0])
    code, out, _ = _run(bundle, "--nodes", nodes, "-o", "json", "--no-suggestions")
    trace = json.loads(out)
    assert trace["pod"]["name"] == "batch" and (trace["result"]["status"] == "Scheduled") is fits
