"""A dump read with its stored, bound pods as views (`pod_lists.dump_list`) is the value
`json.loads` gives of its text, item by item, with the rows `plain_items` reads; a pod the view
cannot hold as the object holds it is decoded whole, and `PodInfo` reads the same of a view as of
the object."""
from __future__ import annotations

import copy
import json
from typing import Any

import msgspec
import msgspec.inspect
import pytest

from kexplain.apimachinery import columns, stored_pods
from kexplain.apimachinery.columns import DumpItems
from kexplain.apimachinery.pod_lists import dump_list, pod_list
from kexplain.apimachinery.stored_pods import StoredPod
from kexplain.admission.pipeline import is_stored
from kexplain.apimachinery.unstructured import plain_items
from kexplain.model.pod import PodInfo, StoredPodInfo
from kexplain.model.shapes import facts_key


def bound(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "team", "uid": f"u-{name}", "resourceVersion": "7",
                         "labels": {"app": "web"}},
            "spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": "100m"}}}],
                     "nodeName": "n1", "priority": 5, **spec},
            "status": {"phase": "Running"}}


def text(*items: Any, **top: Any) -> bytes:
    return json.dumps({"apiVersion": "v1", "items": list(items), "kind": "List", "metadata": {}, **top}).encode()


def read(*items: Any) -> list[Any]:
    got = dump_list(text(*items))
    assert got is not None
    return got["items"]


def test_the_value_is_json_loads_value_with_the_rows_plain_items_reads():
    items = [bound("a"), {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}},
             bound("b", volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "c"}}]),
             {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team", "resourceVersion": "1"}}]
    data = text(*items)
    got = dump_list(data)
    assert got == json.loads(data)
    assert [type(o) for o in got["items"]] == [StoredPod, dict, StoredPod, dict]
    assert type(got["items"]) is DumpItems
    objs, rows = plain_items(got)
    again = plain_items(json.loads(data))
    assert objs == again[0]
    assert all(getattr(rows, c) == getattr(again[1], c)
               for c in ("kinds", "api_versions", "names", "namespaces", "stored", "plain"))


@pytest.mark.parametrize("change", [
    lambda o: o["spec"].pop("nodeName"),                            # pending
    lambda o: o["spec"].update(nodeName=None),
    lambda o: o.update(apiVersion="v2"),
    lambda o: o["metadata"]["labels"].update(n=1),                  # a label that is not a string
    lambda o: o["spec"].update(priority=5.0),                       # not an int
    lambda o: o["spec"].update(priority=True),
    lambda o: o.update(metadata=None),
    lambda o: o["status"].update(conditions=[{"type": "PodResizePending", "reason": 1}]),
])
def test_what_the_view_cannot_hold_is_read_whole(change: Any):
    obj = bound("a")
    change(obj)
    view, got = read(bound("z"), obj)
    assert type(view) is StoredPod
    assert type(got) is dict and got == obj


def test_a_bound_pod_not_stored_is_read_as_a_view_too():
    obj = bound("a")
    obj["metadata"].pop("resourceVersion")
    got, pending = read(obj, {**bound("b"), "spec": {}})
    assert type(got) is StoredPod and not got.stored and got == obj
    assert type(pending) is dict
    assert is_stored(read(bound("a"))[0])


@pytest.mark.parametrize("data", [
    text(bound("a"), extra=1),                                      # a List field it does not know
    text(bound("a"), kind="PodList"),
    text(bound("a"), [1]),                                          # an item that is not an object
    text(bound("a"), {"apiVersion": "v1", "kind": "List", "items": []}),
    text(bound("a"), {"metadata": {}}),                             # no kind
    json.dumps([bound("a")]).encode(),
    text(bound("a")).replace(b'"a"', '"\u00e9"'.encode()),          # not ASCII: its strings are checked whole
])
def test_anything_else_is_not_read_so(data: bytes):
    assert dump_list(data) is None


def test_a_view_reads_as_its_object():
    obj = bound("a", volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "c"}}, {"name": "e"}])
    obj["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    obj["metadata"]["creationTimestamp"] = "2025-12-31T00:00:00Z"
    obj["status"]["nominatedNodeName"] = "n2"
    obj["status"]["startTime"] = "2026-01-01T00:00:01Z"
    stored, = read(obj)
    view, plain = PodInfo(stored), PodInfo(obj)
    assert type(view) is StoredPodInfo and type(plain) is PodInfo
    for attr in ("namespace", "name", "node_name", "labels", "priority", "uid", "phase", "has_volumes",
                 "pvc_names", "deletion_timestamp", "creation_timestamp", "nominated_node_name", "start_time", "owner_references",
                 "volumes", "spec", "status", "metadata",
                 "tolerations", "preemption_policy"):
        assert getattr(view, attr) == getattr(plain, attr), attr
    assert view.resource == plain.resource
    assert stored.get("kind") == "Pod" and dict(stored) == obj and stored == obj
    assert type(copy.copy(stored)) is dict and copy.deepcopy(stored) == obj


def test_pods_alike_share_a_facts_key_and_pods_unlike_do_not():
    a, b, other, spread = read(bound("a"), bound("b"), bound("c", priority=1, containers=[{"name": "app"}]),
                               bound("d", affinity={"podAntiAffinity": {}}))
    keys = [facts_key(PodInfo(p)) for p in (a, b, other, spread)]
    assert keys[0] == keys[1] and len({keys[0], keys[2], keys[3]}) == 3
    assert PodInfo(other).resource.resource.milli_cpu == 0


def test_a_dump_without_bound_pods_is_read_whole():
    pending = bound("a")
    del pending["spec"]["nodeName"]
    assert dump_list(text(pending, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})) is None
    many = [{**pending, "metadata": {**pending["metadata"], "name": f"p{i}"}} for i in range(40)]
    items = read(*many, bound("b"), bound("c"))     # (40 pending pods in a row: past them, read whole)
    assert [type(o) for o in items] == [dict] * 42


def test_a_dump_loaded_from_a_file_keeps_its_rows(tmp_path):
    from kexplain.load.manifests import DUMP_OBJECTS, load_objects
    path = tmp_path / "dump.json"
    path.write_bytes(text(*(bound(f"p{i}") for i in range(DUMP_OBJECTS + 3))))
    objs = load_objects([str(path)])
    assert type(objs) is columns.Dump and columns.rows_of(objs) is not None
    assert all(type(o) is StoredPod for o, _ in objs)


@pytest.mark.parametrize("change", [
    lambda o: None,
    lambda o: o["metadata"].pop("uid"),
    lambda o: o["metadata"].pop("creationTimestamp"),
    lambda o: o["status"].pop("phase"),
    lambda o: o["status"].update(phase=None),
    lambda o: o.pop("status"),
    lambda o: o["metadata"]["ownerReferences"].append({"kind": "DaemonSet", "name": "d"}),
    lambda o: o["metadata"]["ownerReferences"].append({"kind": "DaemonSet", "name": "d", "uid": ""}),
])
def test_karpenters_complete_bound_pod_reads_a_view_as_its_object(change: Any):
    from kexplain.karpenter.inputs import _complete_bound_pod
    obj = bound("a")
    obj["metadata"].update(creationTimestamp="2026-01-01T00:00:00Z", ownerReferences=[
        {"kind": "ReplicaSet", "name": "r"}, {"kind": "DaemonSet", "name": "e", "uid": "u"}])
    change(obj)
    _, view = read(bound("z"), obj)
    assert type(view) is StoredPod
    assert _complete_bound_pod(view) == _complete_bound_pod(obj)
    assert PodInfo(view).phase == PodInfo(obj).phase


def test_a_page_of_a_pod_list_reads_as_its_items_made_standalone():
    """A live list's page (`pod_list`): each item as `listed` makes it (here: kind and apiVersion
    added), stored and bound ones as views; anything else is left to the caller."""
    def listed(item: dict[str, Any]) -> dict[str, Any]:
        return {"apiVersion": "v1", "kind": "Pod", **item}

    items = [{k: v for k, v in bound(n).items() if k not in ("apiVersion", "kind")} for n in ("a", "b")]
    pending = {**items[1], "spec": {"containers": []}}
    page = json.dumps({"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "9"},
                       "items": [items[0], pending]}).encode()
    got = pod_list(page, listed)
    assert got is not None and got["metadata"] == {"resourceVersion": "9"}
    view, whole = got["items"]
    assert type(view) is StoredPod and type(whole) is dict
    assert view == listed(items[0]) and whole == listed(pending)
    assert view.get("kind") == "Pod" and PodInfo(view).name == "a"
    assert pod_list(page.replace(b'"PodList"', b'"List"'), listed) is None
    unstored = {**pending, "metadata": {"name": "c"}}     # (no stored pod: read as it is)
    assert pod_list(json.dumps({"kind": "PodList", "items": [unstored]}).encode(), listed) is None


def resized(name: str, cpu: str = "300m", *, reason: str | None = None, when: str = "2026-01-01T00:00:00Z",
            **spec: Any) -> dict[str, Any]:
    obj = bound(name, **spec)
    obj["status"] = {"phase": "Running", "conditions": [
        {"type": "Ready", "status": "True", "lastTransitionTime": when},
        *([{"type": "PodResizePending", "status": "True", "reason": reason}] if reason else [])],
        "containerStatuses": [{"name": "app", "containerID": f"c-{name}", "resources": {"requests": {"cpu": cpu}},
                               "allocatedResources": {"cpu": cpu}}]}
    return obj


def test_a_status_that_reports_container_resources_is_in_the_facts_key():
    """Pods whose containers report resources (as kubelets of 1.33 on do) share facts when they
    report the same, whatever else their statuses say; their requests are the object's."""
    objs = [resized("a"), resized("b", when="2026-01-02T00:00:00Z"), resized("c", "500m"),
            resized("d", reason="Infeasible"), resized("e", reason="Deferred"), bound("f")]
    views = read(*objs)
    keys = [facts_key(PodInfo(v)) for v in views]
    assert keys[0] == keys[1] and keys[0] == keys[4]
    assert len({keys[0], keys[2], keys[3], keys[5]}) == 4
    for view, obj in zip(views, objs):
        assert type(view) is StoredPod
        assert PodInfo(view).resource == PodInfo(obj).resource
    assert PodInfo(views[0]).resource.resource.milli_cpu == 300
    assert PodInfo(views[3]).resource.resource.milli_cpu == 300     # infeasible: the allocated, not the spec's


def _raw_fields(kind: Any, out: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """Every (struct, field) of a `Raw` type in `kind`, through its structs, lists and options."""
    info = msgspec.inspect.type_info(kind)
    stack = [info]
    while stack:
        t = stack.pop()
        if isinstance(t, msgspec.inspect.StructType):
            for field in t.fields:
                if isinstance(field.type, msgspec.inspect.RawType):
                    out.add((t.cls.__name__, field.name))
                stack.append(field.type)
        elif isinstance(t, msgspec.inspect.UnionType):
            stack.extend(t.types)
        elif isinstance(t, (msgspec.inspect.ListType, msgspec.inspect.DictType)):
            stack.append(getattr(t, "item_type", None) or t.value_type)
    return out


def test_owning_copies_every_text_of_a_view() -> None:
    """`owning` leaves no text of a view in the buffer it was decoded from (a change to it does
    not show), and equal texts become one; its list of fields is every `Raw` of a view."""
    assert _raw_fields(stored_pods.PodView, set()) == {(kind, name) for kind, names in stored_pods.RAW_FIELDS.items()
                                                      for name in names}
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "a", "namespace": "n", "resourceVersion": "1",
                        "ownerReferences": [{"kind": "ReplicaSet", "name": "r", "uid": "u"}],
                        "annotations": {"karpenter.sh/do-not-disrupt": "true"}},
           "spec": {"nodeName": "n1", "volumes": [{"name": "v", "emptyDir": {}}], "affinity": {"x": 1},
                    "tolerations": [{"operator": "Exists"}],
                    "resources": {"requests": {"cpu": "1"}}, "overhead": {"cpu": "1"},
                    "initContainers": [{"name": "i"}], "containers": [{"name": "c"}]},
           "status": {"containerStatuses": [{"name": "c", "resources": {"a": 1}, "allocatedResources": {"b": 2}}],
                      "initContainerStatuses": [{"name": "i", "resources": {"a": 1}}]}}
    texts: dict[bytes, msgspec.Raw] = {}
    views = []
    for _ in range(2):
        buffer = bytearray(json.dumps(pod).encode())
        view = stored_pods.owning(stored_pods.decode_view(buffer), texts)
        before = msgspec.json.encode(view)
        buffer[:] = buffer.replace(b'"', b"'")          # (the same length: any text still in it changes)
        assert msgspec.json.encode(view) == before
        views.append(view)
    first, second = views
    assert first.spec.containers is second.spec.containers and first.status.containerStatuses[0].resources \
        is second.status.initContainerStatuses[0].resources


def test_a_pods_object_shares_its_specs_lists_and_mappings_by_text() -> None:
    """Two pods of a DaemonSet (each its own node affinity) read as views: each object is
    `json.loads` of its text, their equal containers one list, their affinities apart."""
    pods = [bound(f"ds-{i}", affinity={"nodeAffinity": {"required": [f"n{i}"]}},
                  tolerations=[{"operator": "Exists"}]) for i in range(2)]
    dump = dump_list(json.dumps({"apiVersion": "v1", "kind": "List", "items": pods}).encode())
    assert dump is not None
    first, second = dump["items"]
    assert type(first) is StoredPod and first.obj == pods[0] and second.obj == pods[1]
    assert first.obj["spec"]["containers"] is second.obj["spec"]["containers"]
    assert first.obj["spec"]["tolerations"] is second.obj["spec"]["tolerations"]
    assert first.obj["spec"]["affinity"] != second.obj["spec"]["affinity"]
    assert list(first.obj) == list(pods[0]) and list(first.obj["spec"]) == list(pods[0]["spec"])
