"""A large JSON List read in parts (`kexplain.load.json_list`) is exactly `json.loads` of its text
(values, types, key order), or steps aside (None) and leaves the text to the whole parse, whose
errors are today's; equal second-level lists are shared, and nothing a run does to the loaded
objects changes them (so sharing never shows a change of one in another).

The size limits are lowered here so that small texts take the path and are cut in many parts."""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from kexplain.apimachinery.columns import DumpItems
from kexplain.apimachinery.stored_pods import StoredPod, plain
from kexplain.cli.app import main
from kexplain.errors import InputError
from kexplain.load import json_list
from kexplain.load.manifests import objects_from_text
from tests.load.test_yaml_fast import same


@pytest.fixture
def small_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(json_list, "MIN_CHARS", 0)
    monkeypatch.setattr(json_list, "CHUNK_CHARS", 300)
    monkeypatch.setattr(json_list, "WINDOW", 300)


@pytest.fixture
def no_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    """A file read as `_read_mapped` reads it (whole dicts, shared where equal)."""
    monkeypatch.setattr(json_list, "_read_windows", lambda mapped, fd: None)


def plain_document(doc: Any) -> Any:
    """A document read with views (a dump's `DumpItems`, bound pods as `StoredPod`s) as the
    plain data it stands for."""
    if type(doc) is not dict or type(doc.get("items")) is not DumpItems:
        return doc
    return {key: [plain(item) for item in value] if key == "items" else value for key, value in doc.items()}


def pod(i: int, rng: random.Random) -> dict[str, Any]:
    app = f"app-{i % 3}"
    owners = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"{app}-rs", "uid": "u"}]
    if i % 4 == 0:      # entries that start as an item does, after `},{`
        owners.append({"apiVersion": "v1", "kind": "Pod", "name": "x", "uid": "v"})
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"{app}-{i}", "namespace": "ns", "labels": {"app": app},
                         **({"resourceVersion": str(i + 1)} if i % 5 else {}),
                         "ownerReferences": owners,
                         "annotations": {"note": '},{"apiVersion":"v1","kind":"Pod"}]'}},
            "spec": {"containers": [{"name": "c", "image": f"img:{i % 3}", "ports": [{"containerPort": 80}]}],
                     "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule"},
                                     {"key": "k2", "operator": "Exists", "tolerationSeconds": rng.choice([1, 1.0])}],
                     "nodeName": f"node-{i % 5}"},
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": rng.choice([True, "True"])}]}}


def dump(n: int, indent: int | None = None, **extra: Any) -> str:
    rng = random.Random(n)
    doc = {"apiVersion": "v1", "kind": "List", "items": [pod(i, rng) for i in range(n)], **extra}
    return json.dumps(doc, indent=indent, separators=None if indent else (",", ":"))


@pytest.mark.parametrize("indent", [None, 2, 4])
@pytest.mark.parametrize("n", [1, 2, 40])
def test_parts_give_what_json_loads_gives(small_parts: None, indent: int | None, n: int) -> None:
    text = dump(n, indent, metadata={"resourceVersion": ""})
    read = json_list.read_list(text)
    assert read is not None
    assert same(read, json.loads(text))


@pytest.mark.parametrize("windows", [True, False])
@pytest.mark.parametrize("indent", [None, 2, 4])
@pytest.mark.parametrize("n", [1, 2, 40])
def test_a_file_read_in_parts_gives_what_json_loads_gives(small_parts: None, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch, indent: int | None,
                                                          n: int, windows: bool) -> None:
    monkeypatch.setattr(json_list, "READ_ITEMS", 7)
    if not windows:
        monkeypatch.setattr(json_list, "_read_windows", lambda mapped, fd: None)
    text = dump(n, indent, metadata={"resourceVersion": "", "x": [1, [2]]})
    for prefix in ("", "\ufeff", " \n"):
        (tmp_path / "c.json").write_text(prefix + text, encoding="utf-8")
        read = json_list.read_file(str(tmp_path / "c.json"))
        assert read is not None and same(plain_document(read), json.loads(text))
        assert (type(read["items"]) is DumpItems) is windows
        assert [type(item) is StoredPod for item in read["items"]] == \
            [windows and "resourceVersion" in item["metadata"] for item in json.loads(text)["items"]]


def test_a_window_reads_bound_pods_as_views_of_the_mapping(small_parts: None, tmp_path: Path) -> None:
    """Stored bound pods are views whose whole text stays in the file's mapping (a change to the
    file shows in it) and whose own texts are copies, one per distinct text (the pods of one
    shape share them: the change does not show there); a node, and a pod no API server stored
    (admitted from its whole text), are dicts."""
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "status": {"images": []}}
    doc = json.loads(dump(40))
    doc["items"].insert(3, node)
    text = json.dumps(doc, indent=4)
    path = tmp_path / "c.json"
    path.write_text(text)
    read = json_list.read_file(str(path))
    assert read is not None and same(plain_document(read), json.loads(text))
    pods = [item for item in read["items"] if type(item) is StoredPod]
    assert len(pods) == 32 and read["items"][3] == node and type(read["items"][3]) is dict
    assert all(type(item) is dict for item in [*read["items"][:3], *read["items"][4:]][::5])   # (pods 0, 5, ...)
    containers: dict[bytes, Any] = {}
    for pod in pods:
        found = containers.setdefault(bytes(pod.view.spec.containers), pod.view.spec.containers)
        assert found is pod.view.spec.containers
    assert len(containers) == 3
    before = [bytes(pod.raw) for pod in pods]
    with open(path, "r+", encoding="utf-8") as fh:          # (in place: the same length)
        fh.write(text.replace('"img:', '"IMG:'))
    assert [bytes(pod.raw) for pod in pods] == [t.replace(b'"img:', b'"IMG:') for t in before] != before
    assert all(b'"img:' in bytes(pod.view.spec.containers) for pod in pods)


@pytest.mark.parametrize("cut", ["ascii", "window", "tail"])
def test_what_a_window_cannot_read_is_read_otherwise(small_parts: None, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch, cut: str) -> None:
    """A part that is not ASCII is made whole (strings checked for UTF-8); a part longer than
    MAX_WINDOW, or a List whose own fields after the items exceed EDGE, leave the file to
    `_read_mapped`: json.loads' value every time."""
    doc = json.loads(dump(40))
    if cut == "ascii":
        doc["items"][7]["metadata"]["annotations"]["note"] = "caf\u00e9"
    if cut == "window":
        monkeypatch.setattr(json_list, "WINDOW", 100)
        monkeypatch.setattr(json_list, "MAX_WINDOW", 200)
    if cut == "tail":
        monkeypatch.setattr(json_list, "EDGE", 2000)
        doc["metadata"] = {"x": "y" * 3000}
    text = json.dumps(doc, ensure_ascii=False)
    (tmp_path / "c.json").write_text(text, encoding="utf-8")
    read = json_list.read_file(str(tmp_path / "c.json"))
    assert read is not None and same(plain_document(read), json.loads(text))
    kinds = {type(item) for item in read["items"]}
    assert kinds == ({dict, StoredPod} if cut == "ascii" else {dict})
    if cut == "ascii":      # (the window of the pod that is not ASCII: made whole)
        assert type(read["items"][7]) is dict and type(read["items"][1]) is StoredPod


def test_a_file_shares_equal_values_and_no_others(small_parts: None, no_windows: None, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Read from a file, values written alike are one object (containers, tolerations, the
    strings of the conditions), values that differ in type are not, and the document is
    json.loads' value; what never repeats (a pod's name) is not remembered past its probation."""
    monkeypatch.setattr(json_list, "PROBE", 8)
    text = dump(60)
    (tmp_path / "c.json").write_text(text, encoding="utf-8")
    read = json_list.read_file(str(tmp_path / "c.json"))
    assert read is not None and same(read, json.loads(text))
    pods = read["items"]
    for field, kinds in (("containers", 3), ("tolerations", 2)):    # tolerationSeconds 1 and 1.0 differ
        groups: dict[str, set[int]] = {}
        for p in pods:
            groups.setdefault(json.dumps(p["spec"][field]), set()).add(id(p["spec"][field]))
        assert len(groups) == kinds and all(len(ids) == 1 for ids in groups.values()), field
    assert len({id(p["status"]["conditions"]) for p in pods}) == 2      # one per text
    statuses = {p["status"]["conditions"][0]["status"] for p in pods}
    assert statuses == {True, "True"}       # True and "True" are not one value
    assert {id(p["metadata"]["labels"]) for p in pods} == {id(p["metadata"]["labels"]) for p in pods[:3]}


@pytest.mark.parametrize("text", [
    '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a"}}',
    '{"kind":"List","items":{"a":1}}',
    '{"kind":"List","items":[1,2,3]}',
    '[{"kind":"List","items":[]}]',
    '{"kind":"List","items":[{"a":1}],"items":[{"b":2}]}',
    '{"kind":"List","items":[{"a":"\\ud800"}]}',
    '{"kind":"List","items":[{"a":NaN}]}',
    '{"kind":"List","items":[{"a":1}]} x',
    'kind: List',
])
def test_a_file_the_parts_do_not_read_is_left_to_its_text(small_parts: None, tmp_path: Path, text: str) -> None:
    """What the file reader gives is json.loads' value (a repeated key: its last value), or None."""
    (tmp_path / "c.json").write_text(text, encoding="utf-8")
    read = json_list.read_file(str(tmp_path / "c.json"))
    try:
        expected = json.loads(text)
    except ValueError:
        assert read is None
        return
    assert read is None or same(read, expected)
    (tmp_path / "c.json").write_bytes(text.encode("utf-16"))
    assert json_list.read_file(str(tmp_path / "c.json")) is None


def test_items_nested_like_items_and_a_list_inside_a_list(small_parts: None) -> None:
    inner = json.loads(dump(3))
    text = json.dumps({"kind": "List", "apiVersion": "v1", "items": [inner, *inner["items"], inner]})
    read = json_list.read_list(text)
    assert read is not None and same(read, json.loads(text))


def test_equal_lists_are_shared_and_unequal_ones_not(small_parts: None) -> None:
    read = json_list.read_list(dump(40))
    assert read is not None
    pods = read["items"]
    for field, kinds in (("containers", 3), ("tolerations", 2)):    # tolerationSeconds 1 and 1.0 differ
        groups: dict[str, set[int]] = {}
        for p in pods:
            groups.setdefault(json.dumps(p["spec"][field]), set()).add(id(p["spec"][field]))
        assert len(groups) == kinds and all(len(ids) == 1 for ids in groups.values()), field
    conditions = {id(p["status"]["conditions"]) for p in pods}
    assert len(conditions) == 2         # True and "True" are not one value


@pytest.mark.parametrize("text", [
    '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a"}}',
    '{"kind":"List","items":{"a":1}}',
    '{"kind":"List","items":[1,2,3]}',
    '[{"kind":"List","items":[]}]',
    '{"kind":"List","items":[{"a":1}],"items":[{"b":2}]}',
    '{"kind":"List","items":[]}',
])
def test_other_documents_are_left_to_the_whole_parse(small_parts: None, text: str) -> None:
    assert json_list.read_list(text) is None


def broken(text: str, rng: random.Random) -> str:
    i = rng.randrange(len(text))
    return text[:i] + rng.choice(["", "}", "]", ",", '"', "x", "{"]) + text[i + 1:]


def outcome(text: str) -> Any:
    """What reading `text` as a .json file gives: its objects, or its error's words."""
    try:
        return [obj for obj, _ in objects_from_text(text, "cluster.json")]
    except InputError as err:
        return str(err)


def test_invalid_json_reports_todays_error(small_parts: None, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(7)
    base = dump(12)
    texts = [broken(base, rng) for _ in range(150)]
    chunked = [outcome(text) for text in texts]
    monkeypatch.setattr(json_list, "MIN_CHARS", len(base) * 2)
    errors = 0
    for text, got in zip(texts, chunked):
        expected = outcome(text)
        assert got == expected if isinstance(expected, str) else same(got, expected)
        errors += isinstance(expected, str) and "invalid JSON: line " in expected
    assert errors > 50


def test_a_run_changes_no_loaded_object(small_parts: None, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    nodes = [{"apiVersion": "v1", "kind": "Node",
              "metadata": {"name": f"node-{i}", "labels": {"kubernetes.io/hostname": f"node-{i}"}},
              "spec": {"taints": [{"key": "k", "effect": "NoSchedule"}]},
              "status": {"capacity": {"cpu": "8", "memory": "16Gi", "pods": "110"},
                         "allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"}}} for i in range(5)]
    cluster = json.loads(dump(30))
    cluster["items"][:0] = nodes
    text = json.dumps(cluster, separators=(",", ":"))
    (tmp_path / "cluster.json").write_text(text)
    (tmp_path / "pod.yaml").write_text(yaml.safe_dump(
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "new", "namespace": "ns", "labels": {"app": "app-1"}},
         "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}],
                  "tolerations": [{"key": "k", "operator": "Exists"}],
                  "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname",
                                                 "whenUnsatisfiable": "DoNotSchedule",
                                                 "labelSelector": {"matchLabels": {"app": "app-1"}}}]}}))
    read: list[Any] = []
    real, real_file = json_list.read_list, json_list.read_file
    monkeypatch.setattr(json_list, "read_list", lambda t: read.append(real(t)) or read[-1])
    monkeypatch.setattr(json_list, "read_file", lambda p: read.append(real_file(p)) or read[-1])
    outputs = []
    for extra in ((), ("--stored",)):
        for args in ((), ("-o", "json")):
            main([str(tmp_path / "pod.yaml"), "--nodes", str(tmp_path / "cluster.json"), "--replicas", "20",
                  *extra, *args])
            outputs.append(capsys.readouterr().out)
    docs = [doc for doc in read if doc is not None]     # (the pod's file is none)
    assert docs and all(same(plain_document(doc), cluster) for doc in docs)
    monkeypatch.setattr(json_list, "MIN_CHARS", len(text) + 1)     # whole parse: the same outputs
    again = []
    for extra in ((), ("--stored",)):
        for args in ((), ("-o", "json")):
            main([str(tmp_path / "pod.yaml"), "--nodes", str(tmp_path / "cluster.json"), "--replicas", "20",
                  *extra, *args])
            again.append(capsys.readouterr().out)
    assert outputs == again


def test_a_text_under_the_threshold_is_read_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(json_list, "CHUNK_CHARS", 300)
    text = dump(40)
    monkeypatch.setattr(json_list, "MIN_CHARS", len(text) + 1)
    assert json_list.read_list(text) is None
    calls: list[str] = []
    real = json_list.read_list
    monkeypatch.setattr(json_list, "read_list", lambda t: calls.append(t) or real(t))
    assert same(outcome(text), [obj for obj, _ in objects_from_text(text, "cluster.yaml")])
    assert calls and all(real(t) is None for t in calls)
    monkeypatch.setattr(json_list, "MIN_CHARS", len(text))
    read = json_list.read_list(text)
    assert read is not None and same(read, json.loads(text))


def test_the_threshold_keeps_a_whole_read_within_the_memory_budget() -> None:
    assert json_list.MIN_CHARS * json_list.WHOLE_PEAK_PER_CHAR <= json_list.MEMORY_BUDGET < 1500 << 20
    assert json_list.read_list(" " * 1000 + dump(3)) is None


def nodes_and_pods(n: int) -> str:
    """Nodes whose images never repeat, then pods whose tolerations do and whose volumes appear
    only from the sixth pod on."""
    items: list[dict[str, Any]] = [
        {"kind": "Node", "metadata": {"name": f"n{i}"},
         "status": {"images": [{"names": [f"img-{i}", 1, 1.0, True]}], "conditions": [{"type": "Ready"}]}}
        for i in range(n)]
    items += [{"kind": "Pod", "metadata": {"name": f"p{i}"},
               "spec": {"tolerations": [{"key": "k", "value": [1, 1.0, True][i % 3]}],
                        **({"volumes": [{"name": "v", "emptyDir": {}}]} if i >= 5 else {})}}
              for i in range(n)]
    return json.dumps({"kind": "List", "apiVersion": "v1", "items": items})


def test_fields_that_rarely_repeat_are_no_longer_keyed(small_parts: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(json_list, "PROBE", 8)
    monkeypatch.setattr(json_list, "RESCAN", 4)
    text = nodes_and_pods(60)
    sharer = json_list._Sharer()
    doc = json.loads(text)
    sharer.share(doc["items"])
    assert same(doc, json.loads(text))
    node_fields, pod_fields = sharer.kinds["Node"], sharer.kinds["Pod"]
    assert ("status", "images") in node_fields.met and ("status", "images") not in node_fields.keyed
    assert ("status", "conditions") in node_fields.keyed and ("spec", "volumes") in pod_fields.keyed
    assert len(sharer.memo) == 8 + 1 + 3 + 1     # the images keyed before the drop, then one per value

    monkeypatch.setattr(json_list, "CHUNK_CHARS", 2000)     # parts of several items: keys met in each
    read = json_list.read_list(text)
    assert read is not None and same(read, json.loads(text))
    nodes, pods = read["items"][:60], read["items"][60:]
    assert len({id(n["status"]["conditions"]) for n in nodes}) == 1
    assert len({id(n["status"]["images"]) for n in nodes}) == 60
    assert len({id(p["spec"]["tolerations"]) for p in pods}) == 3       # 1, 1.0 and True apart
    assert len({id(p["spec"]["volumes"]) for p in pods[8:]}) == 1       # met again by a later scan
