"""`kubectl apply` onto an object the cluster has (`apply_patch.patched`): the three-way merge of
CreateThreeWayMergePatch and the API server applying it. Expected results worked out by hand from
apimachinery's strategicpatch (the fields' patch strategies and merge keys of the built-in
definitions) and from RFC 7386's JSON merge patch for a custom resource."""
from __future__ import annotations

import json

import pytest

from kexplain.errors import AdmissionRejected, Source
from kexplain.load.apply_patch import LAST_APPLIED, apply_onto, last_applied, patched


def ns(labels: dict, **meta) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "volcano-system", "labels": labels, **meta}}


def deploy(spec: dict, **meta) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", **meta},
            "spec": {"template": {"spec": spec}}}


def pod_spec(result: dict) -> dict:
    return result["spec"]["template"]["spec"]


ENFORCE = {"pod-security.kubernetes.io/enforce": "restricted"}


@pytest.mark.parametrize("live, manifest, want", [
    # the issue: an install file's Namespace keeps the admin's label (maps merge key by key)
    (ns({**ENFORCE, "kubernetes.io/metadata.name": "volcano-system"}), ns({"app": "volcano"}),
     ns({**ENFORCE, "kubernetes.io/metadata.name": "volcano-system", "app": "volcano"})),
    # the manifest's value of a key wins
    (ns({"team": "a"}), ns({"team": "b"}), ns({"team": "b"})),
    # a null deletes
    (ns({**ENFORCE, "team": "a"}), ns({"team": None}), ns(ENFORCE)),
])
def test_maps_merge(live, manifest, want):
    assert patched(live, manifest) == want


def test_the_live_objects_other_fields_stay():
    live = {**ns(ENFORCE, resourceVersion="7", uid="u-1"), "status": {"phase": "Active"}}
    out = patched(live, ns({"app": "volcano"}))
    assert out["status"] == {"phase": "Active"} and out["metadata"]["uid"] == "u-1"
    assert out["metadata"]["resourceVersion"] == "7"
    assert live == {**ns(ENFORCE, resourceVersion="7", uid="u-1"), "status": {"phase": "Active"}}   # unchanged


@pytest.mark.parametrize("live, manifest, want", [
    # containers merge by name: a live sidecar stays, before the manifest's items it came before
    ({"containers": [{"name": "sidecar", "image": "s"}, {"name": "app", "image": "a:1", "args": ["x"]}]},
     {"containers": [{"name": "app", "image": "a:2"}, {"name": "new", "image": "n"}]},
     {"containers": [{"name": "sidecar", "image": "s"}, {"name": "app", "image": "a:2", "args": ["x"]},
                     {"name": "new", "image": "n"}]}),
    # ... and after those it came after
    ({"containers": [{"name": "app", "image": "a"}, {"name": "sidecar", "image": "s"}]},
     {"containers": [{"name": "app", "image": "b"}]},
     {"containers": [{"name": "app", "image": "b"}, {"name": "sidecar", "image": "s"}]}),
    # tolerations have no patch strategy: replaced
    ({"tolerations": [{"key": "a", "operator": "Exists"}]}, {"tolerations": [{"key": "b", "operator": "Exists"}]},
     {"tolerations": [{"key": "b", "operator": "Exists"}]}),
    # volumes merge by name, each with retainKeys: the source the manifest gives replaces the live one
    ({"volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "c"}}]},
     {"volumes": [{"name": "d", "emptyDir": {}}]},
     {"volumes": [{"name": "d", "emptyDir": {}}]}),
    # env merges by name inside a container merged by name
    ({"containers": [{"name": "app", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]}]},
     {"containers": [{"name": "app", "env": [{"name": "B", "value": "3"}]}]},
     {"containers": [{"name": "app", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "3"}]}]}),
])
def test_lists_merge_by_their_patch_strategy(live, manifest, want):
    assert pod_spec(patched(deploy(live), deploy(manifest))) == want


def test_retain_keys_on_a_struct():
    live = {**deploy({}), "spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}}}
    manifest = {**deploy({}), "spec": {"strategy": {"type": "Recreate"}}}
    assert patched(live, manifest)["spec"]["strategy"] == {"type": "Recreate"}


def test_a_list_of_values_with_the_merge_strategy_is_a_set():
    live = ns({}, finalizers=["a", "b"])
    assert patched(live, ns({}, finalizers=["c", "a"]))["metadata"]["finalizers"] == ["c", "a", "b"]


def test_the_last_applied_manifest_says_what_the_new_one_removed():
    """Fields and list items the last-applied manifest had and the new one drops are deleted;
    what it never had (a label an admin added) stays."""
    before = deploy({"containers": [{"name": "app", "image": "a"}, {"name": "old", "image": "o"}]},
                    labels={"v": "1", "gone": "x"})
    live = deploy({"containers": [{"name": "app", "image": "a"}, {"name": "old", "image": "o"},
                                  {"name": "injected", "image": "i"}]},
                  labels={"v": "1", "gone": "x", "admin": "y"}, annotations={LAST_APPLIED: json.dumps(before)})
    manifest = deploy({"containers": [{"name": "app", "image": "a"}]}, labels={"v": "2"})
    assert last_applied(live) == before
    out = patched(live, manifest)
    assert out["metadata"]["labels"] == {"v": "2", "admin": "y"}
    assert pod_spec(out)["containers"] == [{"name": "app", "image": "a"}, {"name": "injected", "image": "i"}]
    # without an original (an object kubectl did not create), nothing is deleted
    out = patched(live, manifest, original=None)
    assert out["metadata"]["labels"] == {"v": "2", "gone": "x", "admin": "y"}
    assert [c["name"] for c in pod_spec(out)["containers"]] == ["app", "old", "injected"]


def test_a_custom_resource_is_json_merge_patched():
    live = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "labels": {"a": "1"}},
            "spec": {"items": [{"name": "x"}, {"name": "y"}], "size": 1}}
    manifest = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "labels": {"b": "2"}},
                "spec": {"items": [{"name": "z"}]}}
    assert patched(live, manifest) == {"apiVersion": "example.com/v1", "kind": "Widget",
                                       "metadata": {"name": "w", "labels": {"a": "1", "b": "2"}},
                                       "spec": {"items": [{"name": "z"}], "size": 1}}


@pytest.mark.parametrize("earlier, later", [
    (deploy({"containers": [{"name": "a", "image": "1"}, {"name": "b", "image": "1"}]}, labels={"x": "1"}),
     deploy({"containers": [{"name": "b", "image": "2"}]}, labels={"y": "1"})),
    (ns({"team": "a", "old": "x"}), ns({"team": "b"})),
])
def test_within_one_apply_the_later_manifest_stands_whole(earlier, later):
    """The same object given twice in one apply: created from the first, whose manifest is then
    both the live object and the last applied: the patch leaves the later manifest
    (`manifests.one_apply` takes it so)."""
    assert patched(earlier, later, original=earlier) == later


def test_an_update_the_api_server_refuses_leaves_the_live_object():
    live = ({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
             "value": 1000}, Source("cluster.yaml", 1))
    manifest = ({**live[0], "value": 5000, "description": "x"}, Source("install.yaml", 3))
    update = apply_onto(live, manifest)
    assert update.applied is live
    assert isinstance(update.refused, AdmissionRejected) and update.refused.source is manifest[1]
    assert update.refused.message == ('PriorityClass.scheduling.k8s.io "high" is invalid: value: Forbidden: '
                                      "may not be changed in an update.")
    taken = apply_onto(live, ({**live[0], "description": "x"}, manifest[1]))
    assert taken.refused is None and taken.applied == ({**live[0], "description": "x"}, manifest[1])


def test_a_manifest_alike_the_live_object_changes_nothing():
    """kubectl apply: `unchanged`; the live object stands (not a copy)."""
    live = (ns(ENFORCE), Source("cluster.yaml", 1))
    update = apply_onto(live, (ns(dict(ENFORCE)), Source("install.yaml", 1)))
    assert update.applied is live and update.refused is None


def test_a_dumps_stored_pod_is_patched(tmp_path):
    """A pod a dump holds (stored: its uid, resourceVersion and status stay)."""
    from kexplain.load.manifests import load_objects

    dump = {"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default", "resourceVersion": "9",
                                                          "uid": "u", "labels": {"app": "web"}},
         "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "nginx:1"}]},
         "status": {"phase": "Running"}}]}
    (tmp_path / "dump.json").write_text(json.dumps(dump))
    ((stored, src),) = load_objects([str(tmp_path / "dump.json")])
    manifest = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"tier": "front"}},
                "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "nginx:2"}]}}
    update = apply_onto((stored, src), (manifest, Source("pods.yaml", 1)))
    assert update.refused is None
    obj = update.applied[0]
    assert obj["metadata"]["labels"] == {"app": "web", "tier": "front"} and obj["metadata"]["uid"] == "u"
    assert obj["spec"]["containers"] == [{"name": "c", "image": "nginx:2"}] and obj["status"] == {"phase": "Running"}
