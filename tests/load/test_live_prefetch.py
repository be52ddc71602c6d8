"""Live listing with a fetching thread one page ahead (`ClusterReader.read_cluster`): the same
objects, progress and failures as listing kind by kind in one thread (`list_served`), and the
continue token read from a page's metadata without decoding its items (`_page_metadata`)."""
from __future__ import annotations

import copy
import json

import pytest

from kexplain.load.live import (RESOURCES, ClusterReader, LiveError, _page_metadata, _stored, _stored_items,
                                connect)
from tests.support.live_server import RecordedApiServer, write_kubeconfig

TOKEN = "t0ken-DO-NOT-PRINT"
PODS = "/api/v1/pods"
NODES = "/api/v1/nodes"


@pytest.fixture(autouse=True)
def isolated(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)


def reader(api: RecordedApiServer, tmp_path, chunk_size: int = 2, progress=None) -> ClusterReader:
    conn = connect(str(write_kubeconfig(tmp_path / "kubeconfig", api.url, token=TOKEN)))
    return ClusterReader(conn, chunk_size=chunk_size, progress=progress)


def sequential(r: ClusterReader) -> list[tuple[str, dict]]:
    """What reading kind by kind in this thread gives, with each object's source."""
    out = []
    for res in RESOURCES:
        out += [(f"{r.conn.server}{res.path}", obj) for obj in r.list_served(res)]
    return out


def many_pods(api: RecordedApiServer, count: int = 9) -> None:
    body = api.collections[PODS]
    template = body["items"][0]
    for i in range(count):
        pod = copy.deepcopy(template)
        pod["metadata"]["name"] = f"zz-extra-{i}"
        pod["metadata"]["managedFields"] = [{"manager": "kubectl"}]
        body["items"].append(pod)
    # in the API server's (etcd's) order, which its continue tokens resume in
    body["items"].sort(key=lambda i: f"{i['metadata'].get('namespace', '')}/{i['metadata']['name']}")


def test_read_cluster_gives_what_listing_kind_by_kind_gives(tmp_path):
    with RecordedApiServer(token=TOKEN) as api:
        many_pods(api)
        r = reader(api, tmp_path)
        threaded = [(str(s), o) for o, s in r.read_cluster()]
        assert threaded == sequential(r)
        assert any(o["metadata"]["name"].startswith("zz-extra") for _, o in threaded)
        assert all("managedFields" not in o["metadata"] for _, o in threaded)


def test_progress_is_reported_page_by_page_in_the_reading_thread(tmp_path):
    import threading
    seen: list[tuple[str, int, int | None, str]] = []

    def progress(resource: str, read: int, total: int | None) -> None:
        seen.append((resource, read, total, threading.current_thread().name))
    with RecordedApiServer(token=TOKEN) as api:
        many_pods(api)
        got = reader(api, tmp_path, progress=progress).read_cluster()
    pods = sum(1 for o, _ in got if o["kind"] == "Pod")     # those the scheduler's field selector keeps
    pod_pages = [s for s in seen if s[0] == "pods"]
    assert len(pod_pages) == -(-pods // 2)
    assert [s[1] for s in pod_pages] == [min(2 * (i + 1), pods) for i in range(len(pod_pages))]
    assert pod_pages[-1][1:3] == (pods, pods)
    assert {s[3] for s in seen} == {threading.current_thread().name}


def test_a_failure_on_a_later_kind_is_the_same_error(tmp_path):
    with RecordedApiServer(token=TOKEN) as api:
        api.faults.forbidden["/apis/storage.k8s.io/v1/csinodes"] = "forbidden-list-csinodes.json"
        r = reader(api, tmp_path)
        with pytest.raises(LiveError) as threaded:
            r.read_cluster()
        with pytest.raises(LiveError) as one_by_one:
            sequential(r)
    assert str(threaded.value) == str(one_by_one.value)
    assert "csinodes" in str(threaded.value)


def test_an_expired_continue_token_lists_the_kind_again(tmp_path):
    with RecordedApiServer(token=TOKEN) as api:
        many_pods(api)
        api.faults.expire[PODS] = 1
        r = reader(api, tmp_path)
        got = [o for o, _ in r.read_cluster()]
        api.faults.expire[PODS] = 0
        assert got == [o for _, o in sequential(r)]
        names = [o["metadata"]["name"] for o in got if o["kind"] == "Pod"]
        assert len(names) == len(set(names))


def test_a_page_that_is_not_json_is_refused_in_words(tmp_path, monkeypatch):
    with RecordedApiServer(token=TOKEN) as api:
        r = reader(api, tmp_path)
        real = r._fetch
        monkeypatch.setattr(r, "_fetch", lambda path, query=None: b"<html>" if path == NODES else real(path, query))
        with pytest.raises(LiveError, match=r"answered GET /api/v1/nodes with something that is not a JSON object"):
            r.read_cluster()


@pytest.mark.parametrize("body, meta", [
    ({"kind": "PodList", "apiVersion": "v1", "metadata": {"continue": "abc", "remainingItemCount": 3}, "items": [1]},
     {"continue": "abc", "remainingItemCount": 3}),
    ({"items": [{"a": 1}], "metadata": {"continue": "x"}, "kind": "PodList"}, {"continue": "x"}),
    ({"kind": "PodList", "items": []}, {}),
    ({"kind": "PodList", "metadata": None, "items": []}, {}),
    ({"kind": "PodList", "metadata": [1], "items": []}, {}),
])
def test_page_metadata_is_the_metadata_json_gives(body, meta):
    for data in (json.dumps(body).encode(), json.dumps(body, indent=2).encode(), json.dumps(body).encode("utf-16")):
        text, found = _page_metadata(data)
        assert found == meta
        assert (json.loads(text) if not isinstance(text, dict) else text) == body


@pytest.mark.parametrize("data", [b"", b"[]", b"\"x\"", b"{\"kind\": ", b"\xff\xfe\x00", b"<html>"])
def test_page_metadata_of_what_is_not_a_json_object(data):
    assert _page_metadata(data)[1] is None


def test_stored_items_are_stored_objects():
    res = next(r for r in RESOURCES if r.plural == "pods")
    items = [{"metadata": {"name": "a", "managedFields": [1]}, "spec": {}},
             {"apiVersion": "v0", "kind": "Other", "metadata": {"name": "b"}},
             {"metadata": None, "kind": "Pod"}, {}]
    got = _stored_items(items, res)
    assert [list(o.items()) for o in got] == [list(_stored(i, res).items()) for i in items]
    assert got[0]["metadata"] == {"name": "a"} and items[0]["metadata"]["managedFields"] == [1]
