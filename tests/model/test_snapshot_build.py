"""A snapshot built from stored pods: facts shared per shape, nodes added in one batch.

`Snapshot.build` works out a pod's requests, host ports and affinity terms once per shape
(pods with equal `kexplain.model.shapes.facts_key`s share one `PodInfo.facts`) and adds each node's pods at once
(`NodeInfo.add_pods`). Whatever is shared, every NodeInfo must equal the one `add_pod` of each
pod in turn gives, and pods that differ in what their facts read must not share them.
"""
from __future__ import annotations

import copy
from typing import Any

from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.model.shapes import facts_key
from kexplain.model.snapshot import Snapshot


def node(name: str) -> dict[str, Any]:
    return {"kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": {"cpu": "64", "memory": "256Gi", "pods": "200"}}}


def container(name: str = "app", cpu: str = "100m", **extra: Any) -> dict[str, Any]:
    return {"name": name, "image": "registry.example/app:1", "resources": {"requests": {"cpu": cpu, **extra}}}


def pod(name: str, node_name: str, containers: list[dict[str, Any]], *, namespace: str = "team",
        init: list[dict[str, Any]] | None = None, affinity: dict[str, Any] | None = None,
        status: dict[str, Any] | None = None, volumes: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": copy.deepcopy(containers), "nodeName": node_name}
    if init is not None:
        spec["initContainers"] = copy.deepcopy(init)
    if affinity is not None:
        spec["affinity"] = copy.deepcopy(affinity)
    if volumes is not None:
        spec["volumes"] = volumes
    return {"kind": "Pod", "metadata": {"name": name, "namespace": namespace, "labels": {"app": name[:3]}},
            "spec": spec, "status": status or {"phase": "Running"}}


ANTI = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}}
PORTS = [{"containerPort": 80, "hostPort": 8080}]


def cluster_pods() -> list[dict[str, Any]]:
    """Pods of a few shapes over two nodes, equal shapes apart and next to each other, with the
    differences their facts read: containers split into init containers, ports, scalars,
    affinity in two namespaces, resized container statuses, claims."""
    resized = {"phase": "Running", "containerStatuses": [
        {"name": "app", "resources": {"requests": {"cpu": "300m"}}}]}
    return [
        pod("web-1", "n1", [container()], affinity=ANTI),
        pod("web-2", "n2", [container()], affinity=ANTI),
        pod("web-3", "n1", [container()], affinity=ANTI, namespace="other"),
        pod("gpu-1", "n1", [container(**{"example.com/gpu": "1"})]),
        pod("mem-1", "n1", [container(memory="1Gi", **{"hugepages-2Mi": "4Mi"})]),
        pod("gpu-2", "n1", [container(**{"example.com/gpu": "1"})]),
        pod("two-1", "n2", [container("a", "1"), container("b", "1")]),
        pod("spl-1", "n2", [container("b", "1")], init=[container("a", "1")]),
        pod("two-2", "n2", [container("a", "1"), container("b", "1")]),
        pod("prt-1", "n1", [{**container(), "ports": PORTS}]),
        pod("prt-2", "n2", [{**container(), "ports": PORTS}]),
        pod("app-1", "n1", [container()]),
        pod("rsz-1", "n1", [container()], status=resized),
        pod("app-2", "n1", [container()]),
        pod("pvc-1", "n2", [container()], volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "d-1"}}]),
        pod("pvc-2", "n2", [container()], volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "d-2"}}]),
        pod("done", "n1", [container("x", "8")], status={"phase": "Succeeded"}),
    ]


def one_by_one(nodes: list[dict[str, Any]], pods: list[dict[str, Any]]) -> dict[str, NodeInfo]:
    """What adding each pod by itself gives, every fact worked out from the pod's own object."""
    infos = {n["metadata"]["name"]: NodeInfo(Node.from_obj(n)) for n in nodes}
    for obj in pods:
        if obj["status"].get("phase") != "Succeeded":
            infos[obj["spec"]["nodeName"]].add_pod(PodInfo(obj))
    return infos


def state(ni: NodeInfo) -> tuple[Any, ...]:
    return (ni.name, [p.key for p in ni.pods], [p.key for p in ni.pods_with_affinity],
            [p.key for p in ni.pods_with_required_anti_affinity], ni.requested, list(ni.requested.scalar),
            ni.non_zero_requested, sorted((ip, sorted(m)) for ip, m in ni.used_ports._by_ip.items()),
            ni.pvc_ref_counts)


def test_built_nodes_equal_pods_added_one_by_one():
    nodes, pods = [node("n1"), node("n2")], cluster_pods()
    built = Snapshot.build([(n, None) for n in nodes], copy.deepcopy(pods))
    expected = one_by_one(nodes, pods)
    assert [state(ni) for ni in built.node_infos] == [state(expected[ni.name]) for ni in built.node_infos]
    # web-2, two-1, spl-1 (max of its init container and container), two-2, prt-2, pvc-1, pvc-2
    assert built.get("n2").requested.milli_cpu == 100 + 2000 + 1000 + 2000 + 100 + 100 + 100


def test_pods_of_one_shape_share_their_facts_and_others_do_not():
    built = Snapshot.build([(node("n1"), None), (node("n2"), None)], cluster_pods())
    pods = {p.name: p for p in built.all_pods()}
    assert pods["gpu-1"].resource is pods["gpu-2"].resource
    assert pods["two-1"].resource is pods["two-2"].resource
    assert pods["app-1"].resource is pods["app-2"].resource
    assert pods["web-1"].required_anti_affinity_terms is pods["web-2"].required_anti_affinity_terms
    assert pods["spl-1"].resource.resource.milli_cpu == 1000          # max(init, containers)
    assert pods["rsz-1"].resource.resource.milli_cpu == 300            # its status, not app-1's
    assert pods["prt-1"].host_ports == pods["prt-2"].host_ports != pods["app-1"].host_ports
    other, = pods["web-3"].required_anti_affinity_terms
    assert other.namespaces == frozenset({"other"})


def test_container_statuses_with_resources_tell_facts_apart():
    plain = PodInfo(pod("a-1", "n1", [container()]))
    resized = PodInfo(pod("a-2", "n1", [container()], status={"phase": "Running", "containerStatuses": [
        {"name": "app", "resources": {"requests": {"cpu": "300m"}}}]}))
    assert facts_key(plain) == facts_key(PodInfo(pod("a-3", "n2", [container()])))
    assert facts_key(resized) != facts_key(plain)


def test_facts_keys_tell_types_apart():
    """Python's equality takes `cpu: 1` for `cpu: true`; the facts of such pods differ (one does
    not parse), so their keys do too (`kexplain.model.shapes.shape_key`)."""
    def requests(cpu: Any) -> PodInfo:
        return PodInfo(pod("a-1", "n1", [{"name": "app", "resources": {"requests": {"cpu": cpu}}}]))
    keys = {facts_key(requests(1)), facts_key(requests(True)), facts_key(requests(1.0)), facts_key(requests("1"))}
    assert len(keys) == 4
    built = Snapshot.build([(node("n1"), None)], [requests(1).obj, requests(1.0).obj])
    one, other = built.get("n1").pods
    assert one.facts is not other.facts


def test_pods_read_from_a_dump_as_views_build_the_same_nodes():
    """A dump's stored, bound pods are read as views (`stored_pods.StoredPod`): their facts keys
    are their texts, and the nodes built equal those built from the objects."""
    import json

    from kexplain.apimachinery.pod_lists import dump_list
    from kexplain.apimachinery.stored_pods import StoredPod

    nodes, pods = [node("n1"), node("n2")], cluster_pods()
    for p in pods:
        p["apiVersion"] = "v1"
        p["metadata"]["resourceVersion"] = "1"
    read = dump_list(json.dumps({"apiVersion": "v1", "kind": "List", "items": pods}).encode())
    assert read is not None
    views = list(read["items"])
    assert all(type(p) is StoredPod for p in views)
    built = Snapshot.build([(n, None) for n in nodes], views)
    expected = one_by_one(nodes, pods)
    assert [state(ni) for ni in built.node_infos] == [state(expected[ni.name]) for ni in built.node_infos]
    by_name = {p.name: p for p in built.all_pods()}
    assert by_name["gpu-1"].resource is by_name["gpu-2"].resource
    assert by_name["web-1"].required_anti_affinity_terms is by_name["web-2"].required_anti_affinity_terms
    assert by_name["web-3"].required_anti_affinity_terms is not by_name["web-1"].required_anti_affinity_terms
    assert all(p.obj._obj is None for p in built.all_pods()
               if type(p.obj) is StoredPod and p.name not in {"web-1", "web-3", "gpu-1", "mem-1", "two-1", "spl-1",
                                                                 "prt-1", "app-1", "pvc-1", "rsz-1"})


def test_shapes_that_differ_in_images_only_share_their_requests_and_add_up_alike():
    """Requests read no image (`shapes.requests_key`), and a node adds its pods per amount
    (`PodFacts.amount`): the sums and the scalars' key order are those of adding each pod."""
    def imaged(name: str, image: str, **extra: str) -> dict[str, Any]:
        return pod(name, "n1", [{**container(**extra), "image": image}])
    pods = [imaged("a-1", "a:1", **{"example.com/gpu": "1"}), imaged("b-1", "b:1", memory="1Gi"),
            imaged("c-1", "c:1", **{"example.com/gpu": "1"}), imaged("d-1", "d:1", **{"hugepages-2Mi": "2Mi"}),
            imaged("e-1", "e:1", memory="1Gi")]
    built = Snapshot.build([(node("n1"), None)], copy.deepcopy(pods))
    assert [state(ni) for ni in built.node_infos] == [state(one_by_one([node("n1")], pods)["n1"])]
    by_name = {p.name: p for p in built.all_pods()}
    assert by_name["a-1"].facts is not by_name["c-1"].facts                 # (their images differ)
    assert by_name["a-1"].resource is by_name["c-1"].resource
    assert by_name["a-1"].facts.amount is by_name["c-1"].facts.amount is not by_name["b-1"].facts.amount
    assert list(built.get("n1").requested.scalar) == ["example.com/gpu", "hugepages-2Mi"]


def test_stored_pods_left_out_as_their_objects_are():
    """Stored pods read as views (`StoredPodInfo`, its phase and node off its view): a finished one, one
    on a node the snapshot lacks and one in phase `Unknown` or without a phase are kept or left out as their
    objects are, in the same nodes, namespaces and order."""
    import json

    from kexplain.apimachinery.pod_lists import dump_list
    from kexplain.apimachinery.stored_pods import StoredPod

    nodes, pods = [node("n1"), node("n2")], cluster_pods()
    extra = [pod("done-1", "n1", [container()], status={"phase": "Succeeded"}),
             pod("fail-1", "n2", [container()], status={"phase": "Failed"}, namespace="other"),
             pod("gone-1", "n9", [container()]), pod("unk-1", "n2", [container()], status={"phase": "Unknown"}),
             pod("nop-1", "n1", [container()], status={"startTime": "2026-01-01T00:00:00Z"})]
    pods = [*pods[:3], *extra, *pods[3:]]
    for p in pods:
        p["apiVersion"] = "v1"
        p["metadata"]["resourceVersion"] = "1"
    read = dump_list(json.dumps({"apiVersion": "v1", "kind": "List", "items": pods}).encode())
    assert read is not None and all(type(p) is StoredPod for p in read["items"])
    views, objects = Snapshot.build([(n, None) for n in nodes], list(read["items"])), \
        Snapshot.build([(n, None) for n in nodes], copy.deepcopy(pods))
    assert [state(ni) for ni in views.node_infos] == [state(ni) for ni in objects.node_infos]
    assert {ns: [(p.key, n.name) for p, n in members] for ns, members in views.pods_by_namespace.items()} == \
        {ns: [(p.key, n.name) for p, n in members] for ns, members in objects.pods_by_namespace.items()}
    kept = {p.name for p in views.all_pods()}
    assert {"unk-1", "nop-1"} <= kept and not {"done-1", "fail-1", "gone-1"} & kept


def test_a_dumps_stored_pods_read_by_columns_a_chunk_at_a_time(monkeypatch):
    """`stored_nodes.add_stored_pods` reads the facts keys a chunk at a time, each distinct key held once
    (a kubectl dump's keys are KBs a pod: 150,000 held at once were 257 MB at the peak): the nodes, their
    pods made when read and the namespace index are those of the objects built one by one."""
    import json

    from kexplain.apimachinery.pod_lists import dump_list
    from kexplain.model import stored_nodes

    nodes = [node("n1"), node("n2")]
    pods = [p for p in cluster_pods() if (p.get("status") or {}).get("phase") != "Succeeded"]    # (all bound, live)
    for p in pods:
        p["apiVersion"] = "v1"
        p["metadata"]["resourceVersion"] = "1"
    read = dump_list(json.dumps({"apiVersion": "v1", "kind": "List", "items": pods}).encode())
    monkeypatch.setattr(stored_nodes, "_CHUNK", 2)
    built = Snapshot.build([(n, None) for n in nodes], list(read["items"]))
    assert built._listed is not None                                    # (the columns' path was taken)
    objects = Snapshot.build([(n, None) for n in nodes], copy.deepcopy(pods))
    assert [state(ni) for ni in built.node_infos] == [state(ni) for ni in objects.node_infos]
    assert {ns: [(p.name, n.name) for p, n in members] for ns, members in built.pods_by_namespace.items()} == \
        {ns: [(p.name, n.name) for p, n in members] for ns, members in objects.pods_by_namespace.items()}


def test_stored_facts_keys_of_pods_that_all_have_container_statuses():
    """A kubectl dump's pods each carry their containers' statuses: their keys are `stored_facts_key`'s,
    pod by pod, as are those of a list where only some carry them."""
    import json

    from kexplain.apimachinery.pod_lists import dump_list
    from kexplain.model.shapes import stored_facts_key, stored_facts_keys

    pods = [p for p in cluster_pods() if (p.get("status") or {}).get("phase") != "Succeeded"]
    for k, p in enumerate(pods):
        p["apiVersion"] = "v1"
        p["metadata"]["resourceVersion"] = "1"
        p.setdefault("status", {})["containerStatuses"] = [{"name": "app", "ready": True}]
    for every in (True, False):
        items = [dict(p, status={"phase": "Running"}) if not every and k % 2 else p for k, p in enumerate(pods)]
        read = list(dump_list(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}).encode())["items"])
        views = [p.view for p in read]
        namespaces = [v.metadata.namespace or "default" for v in views]
        got = stored_facts_keys(views, [v.spec for v in views], [v.status for v in views], namespaces)
        assert got == [stored_facts_key(v, ns) for v, ns in zip(views, namespaces)]


def token_pods() -> list[dict[str, Any]]:
    """Pods as an API server stores them since Kubernetes 1.22: each mounts its service account's token
    from a volume of its own name (`kube-api-access-<suffix>`); some also name a claim, one with its key
    written with an escape, and a few have host ports or anti-affinity."""
    out = []
    for i in range(12):
        token = f"kube-api-access-{i:05x}"
        mounted = {**container(), "env": [{"name": "POD", "value": str(i)}],
                   "volumeMounts": [{"name": token, "mountPath": "/var/run/secrets"}]}
        if i % 5 == 4:
            mounted["ports"] = PORTS
        volumes: list[dict[str, Any]] = [{"name": token, "projected": {"sources": []}}]
        if i % 4 == 1:
            volumes.append({"name": "d", "persistentVolumeClaim": {"claimName": f"d-{i}"}})
        out.append(pod(f"app-{i}", f"n{i % 3 + 1}", [mounted], volumes=volumes,
                       affinity=ANTI if i == 6 else None))
    return out


def test_stored_pods_with_volumes_of_their_own_share_facts_and_count_claims():
    """Each pod's own token volume (and its mount, environment, image) leaves its facts key alike
    (`shapes._FactContainer`), and a node is not made one pod at a time for it: claims are counted
    for the pods whose volumes' text may name one (`pod.may_claim`), escaped keys included."""
    import json

    from kexplain.apimachinery.pod_lists import dump_list

    nodes = [node("n1"), node("n2"), node("n3")]
    pods = token_pods()
    for p in pods:
        p["apiVersion"] = "v1"
        p["metadata"]["resourceVersion"] = "1"
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": pods})
    text = text.replace('"d", "persistentVolumeClaim": {"claimName": "d-9"', '"d", "persistentVolume\\u0043laim": {"claimName": "d-9"')
    read = list(dump_list(text.encode())["items"])
    built = Snapshot.build([(n, None) for n in nodes], read)
    assert built._listed is not None                                    # (the columns' path was taken)
    expected = one_by_one(nodes, json.loads(text)["items"])
    assert [state(ni) for ni in built.node_infos] == [state(expected[ni.name]) for ni in built.node_infos]
    assert "Volume\\u0043laim" in text
    assert [ni.pvc_ref_counts for ni in built.node_infos] == [{"team/d-9": 1}, {"team/d-1": 1}, {"team/d-5": 1}]
    plain = [p for p in built.all_pods() if p.name in ("app-0", "app-2", "app-3", "app-5", "app-7")]
    assert len({id(p.facts) for p in plain}) == 1
    facts = {p.name: p.facts for p in built.all_pods()}
    assert facts["app-4"] is not facts["app-0"] and facts["app-6"] is not facts["app-0"]


def test_stored_facts_keys_leave_out_what_facts_do_not_read():
    """Containers alike but for their image, mounts or environment share a key, as do pods whose affinity
    is a node affinity only (a DaemonSet's, one node each); a name, requests, restart policy, ports or pod
    (anti-)affinity of their own do not; a text that is no value of its kind keys as written."""
    import json

    from kexplain.apimachinery.pod_lists import dump_list
    from kexplain.model.shapes import stored_facts_key

    def key(affinity: Any = None, namespace: str = "team", **changed: Any) -> bytes:
        c = {**container(), "image": "registry.example/app:1", **changed}
        obj = {**pod("a", "n1", [c], affinity=affinity), "apiVersion": "v1"}
        obj["metadata"]["resourceVersion"] = "1"
        view, = (p.view for p in dump_list(json.dumps({"kind": "List", "items": [obj]}).encode())["items"])
        return stored_facts_key(view, namespace)

    def on(node_name: str) -> dict[str, Any]:
        return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}}}

    same = key()
    assert key(image="other:2") == key(volumeMounts=[{"name": "t-1", "mountPath": "/x"}]) == key(env=[]) == same
    assert key(on("n1")) == key(on("n2")) == key({}) == same
    assert key({**on("n1"), **ANTI}) == key(ANTI) != key(ANTI, namespace="other")
    assert len({same, key(name="b"), key(resources={"requests": {"cpu": "2"}}), key(restartPolicy="Always"),
                key(ports=PORTS), key(ANTI), key({"podAffinity": ANTI["podAntiAffinity"]})}) == 7


def test_a_stored_pods_facts_are_read_off_its_view_as_off_its_object():
    """`PodFacts` of a stored pod read the five spec fields of its view (`pod.facts_spec`), never its object,
    unless its status reports containers: requests (sidecars, pod-level resources, overhead), host ports and
    affinity terms are those of the same pod's object, and only the resized pod is decoded whole."""
    import json

    from kexplain.apimachinery.pod_lists import dump_list
    from kexplain.model.pod import PodFacts, PodInfo, stored_pod_info

    sidecar = {"name": "log", "image": "log:1", "restartPolicy": "Always", "resources": {"requests": {"cpu": "1"}},
               "ports": [{"containerPort": 9, "hostPort": 9009}]}
    web = {"name": "web", "image": "web:1", "resources": {"requests": {"cpu": "250m", "memory": "1Gi"}},
           "ports": [{"containerPort": 80, "hostPort": 8080, "protocol": "UDP"}]}
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    specs = [{"containers": [web]}, {"initContainers": [sidecar], "containers": [web], "affinity": anti},
             {"containers": [web], "overhead": {"cpu": "100m"}, "resources": {"requests": {"cpu": "3"}}},
             {"containers": [web], "initContainers": None}]
    pods = []
    for k, spec in enumerate(specs):
        pods.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p-{k}", "namespace": "ns",
                                                                     "resourceVersion": "1"},
                     "spec": {**spec, "nodeName": "n1"}, "status": {"phase": "Running"}})
    resized = copy.deepcopy(pods[0])
    resized["metadata"]["name"] = "p-resized"
    resized["status"]["containerStatuses"] = [{"name": "web", "resources": {"requests": {"cpu": "2"}}}]
    pods.append(resized)
    read = dump_list(json.dumps({"apiVersion": "v1", "kind": "List", "items": pods}).encode())["items"]
    for view, obj in zip(read, pods):
        got, want = PodFacts(stored_pod_info(view)), PodFacts(PodInfo(copy.deepcopy(obj)))
        assert got.resource == want.resource and got.host_ports == want.host_ports
        assert (got.required_anti_affinity_terms, got.indexed) == (want.required_anti_affinity_terms, want.indexed)
        assert (view._obj is not None) is (obj is resized)
