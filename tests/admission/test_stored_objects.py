"""Objects that carry a resourceVersion were stored by an API server (a cluster dump, a
snapshot): admission must not run on them again, while the other objects of the same input
still go through it (admission.md)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kexplain.admission import admit
from kexplain.admission.pipeline import is_stored
from kexplain.cli.app import main
from kexplain.errors import AdmissionRejected, InputError, Source
from kexplain.explain.inputs import load_inputs
from kexplain.state.build import build_cluster
from kexplain.explain.request import Request

SRC = Source("cluster.json", 1)
POD_SRC = Source("pod.yaml", 1)


def pod(name: str, *, stored: bool, node: str = "", **spec) -> dict:
    spec.setdefault("containers", [{"name": "c", "image": "nginx",
                                    "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}])
    if node:
        spec["nodeName"] = node
    meta: dict = {"name": name, "namespace": "default", "labels": {"app": name}}
    if stored:
        meta["resourceVersion"] = "4711"
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def node(name: str, *, stored: bool = True, zone: str = "z1") -> dict:
    meta: dict = {"name": name, "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone}}
    if stored:
        meta["resourceVersion"] = "17"
    return {"apiVersion": "v1", "kind": "Node", "metadata": meta, "spec": {},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def by_name(admitted, kind: str) -> dict[str, dict]:
    return {o["metadata"]["name"]: o for o, _ in admitted.objects if o["kind"] == kind}


def test_resource_version_marks_an_object_stored() -> None:
    assert is_stored({"metadata": {"resourceVersion": "1"}})
    assert not is_stored({"metadata": {"resourceVersion": ""}})     # kubectl's List wrapper writes ''
    assert not is_stored({"metadata": {"uid": "u", "creationTimestamp": "2024-01-01T00:00:00Z"}})
    assert not is_stored({"metadata": None})
    assert not is_stored([])


def test_stored_pods_are_taken_as_they_are_and_not_copied() -> None:
    stored, fresh = pod("old", stored=True, node="n1"), pod("new", stored=False, node="n1")
    admitted = admit([(node("n1"), SRC), (stored, SRC), (fresh, SRC)], None)
    pods = by_name(admitted, "Pod")
    assert pods["old"] is stored                                  # shared, never mutated
    assert "tolerations" not in pods["old"]["spec"]               # no DefaultTolerationSeconds
    assert "topology.kubernetes.io/zone" not in pods["old"]["metadata"]["labels"]   # no PodTopologyLabels
    assert pods["new"] is not fresh
    assert {t["key"] for t in pods["new"]["spec"]["tolerations"]} == {
        "node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}
    assert pods["new"]["metadata"]["labels"]["topology.kubernetes.io/zone"] == "z1"


def test_a_stored_pod_is_not_validated_again_but_an_unstored_one_is() -> None:
    bad = pod("bad", stored=True, node="n1")
    bad["metadata"]["labels"] = {"app": "not a valid label value!"}
    admit([(node("n1"), SRC), (bad, SRC)], None)                 # the API server already has it
    bad["metadata"].pop("resourceVersion")
    with pytest.raises(AdmissionRejected, match="metadata.labels"):
        admit([(node("n1"), SRC), (bad, SRC)], None)


def test_the_pending_pod_is_still_admitted_against_stored_priority_classes() -> None:
    pc = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
          "metadata": {"name": "high", "resourceVersion": "3"}, "value": 1000, "globalDefault": True}
    admitted = admit([(pc, SRC), (node("n1"), SRC)], (pod("pending", stored=False), POD_SRC))
    assert admitted.pending["spec"]["priority"] == 1000
    assert admitted.pending["spec"]["priorityClassName"] == "high"


def test_stored_and_admitted_pods_share_one_name_space() -> None:
    with pytest.raises(AdmissionRejected, match='pods "web" already exists'):
        admit([(node("n1"), SRC), (pod("web", stored=True, node="n1"), SRC)], (pod("web", stored=False), POD_SRC))


def test_a_stored_pods_namespace_exists() -> None:
    admitted = admit([(node("n1"), SRC), (pod("old", stored=True, node="n1"), SRC)], None)
    assert "default" in by_name(admitted, "Namespace")


def test_an_unreadable_stored_object_is_named_with_its_field() -> None:
    broken = pod("old", stored=True, node="n1")
    broken["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "lots"
    with pytest.raises(InputError) as info:
        build_cluster([(node("n1"), SRC), (broken, Source("cluster.json", 2))])
    message = str(info.value)
    assert "cluster.json" in message and "spec.containers[0].resources.requests.cpu" in message
    assert "quantities must match the regular expression" in message       # the API server's words


def test_a_dump_of_stored_objects_explains_like_the_stored_flag(tmp_path: Path) -> None:
    """Without --stored, a cluster dump (every object with a resourceVersion) gives the same
    trace as with it."""
    items = [node("n1"), node("n2", zone="z2"), pod("a", stored=True, node="n1"), pod("b", stored=True, node="n2")]
    cluster = tmp_path / "cluster.json"
    cluster.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    pending = tmp_path / "pod.json"
    pending.write_text(json.dumps(pod("pending", stored=False)))
    plain = load_inputs(Request(str(pending), (str(cluster),)))
    forced = load_inputs(Request(str(pending), (str(cluster),), stored=True))
    assert [(ni.name, [p.name for p in ni.pods], ni.requested) for ni in plain.snapshot.node_infos] == \
           [(ni.name, [p.name for p in ni.pods], ni.requested) for ni in forced.snapshot.node_infos]
    assert plain.pod.obj["spec"].get("tolerations")            # the pending pod was admitted
    assert not forced.pod.obj["spec"].get("tolerations")       # --stored takes it as written


def test_cli_reports_an_unreadable_stored_pod_in_one_line(tmp_path: Path, capsys) -> None:
    broken = pod("old", stored=True, node="n1")
    broken["spec"]["containers"] = {"name": "c"}                  # a mapping where a list belongs
    cluster = tmp_path / "cluster.json"
    cluster.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [node("n1"), broken]}))
    pending = tmp_path / "pod.json"
    pending.write_text(json.dumps(pod("pending", stored=False)))
    code = main([str(pending), "--nodes", str(cluster)])
    out, err = capsys.readouterr()
    assert code == 2 and not out
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].endswith(
        "spec.containers: json: cannot unmarshal object into Go struct field PodSpec.spec.containers of type "
        "[]v1.Container")


def test_a_stored_pending_pod_is_still_type_checked() -> None:
    """Its admission is skipped, but one object costs nothing to check: a wrong type is named."""
    pending = pod("pending", stored=True)
    pending["spec"]["containers"][0]["resources"]["requests"]["cpu"] = ["1"]
    with pytest.raises(InputError, match="spec.containers\\[0\\].resources.requests.cpu"):
        admit([(node("n1"), SRC)], (pending, POD_SRC))


def test_a_dumps_stored_pods_take_their_names_off_their_views() -> None:
    """Admitting a dump's stored pods as created (CA's loop over a snapshot) decodes none of them for
    their names and namespaces (each read off its view); a name taken twice is still refused."""
    from kexplain.apimachinery.pod_lists import dump_objects
    raws = [json.dumps(pod(name, stored=True, node="n1")).encode() for name in ("a", "b")]
    stored = dump_objects(raws)
    assert [type(o).__name__ for o in stored] == ["StoredPod", "StoredPod"]
    objects = [(node("n1"), SRC), *((o, SRC) for o in stored)]
    admitted = admit(objects, None)
    assert not any(o.decoded for o in stored)
    assert "default" in [o["metadata"]["name"] for o, _ in admitted.objects if o.get("kind") == "Namespace"]
    with pytest.raises(AdmissionRejected, match='pods "a" already exists'):
        admit(objects, (pod("a", stored=False), POD_SRC))
