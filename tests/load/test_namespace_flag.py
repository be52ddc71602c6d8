"""`-n NS` for manifest files, as `kubectl apply -n NS -f` takes them (cli-runtime's
RequireNamespace): a namespaced object without a namespace goes in NS, one in another namespace
is refused in kubectl's words (and the rest applied), a cluster-scoped object is as written; a
custom resource's scope is kexplain's own knowledge or its CustomResourceDefinition's."""
from __future__ import annotations

import pytest

from kexplain.errors import InputError, Source
from kexplain.load.manifests import load_objects
from kexplain.load.namespace_flag import in_namespace, mismatch, namespaced
from kexplain.load.problems import Problems

MISMATCH_A_B = ('the namespace from the provided object "a" does not match the namespace "b". You must pass '
                "'--namespace=a' to perform this operation.")


def obj(kind: str, api_version: str = "v1", namespace: str | None = None, name: str = "x") -> dict:
    meta = {"name": name, **({"namespace": namespace} if namespace is not None else {})}
    return {"apiVersion": api_version, "kind": kind, "metadata": meta}


def crd(group: str, kind: str, scope: str) -> dict:
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{kind.lower()}s.{group}"},
            "spec": {"group": group, "scope": scope, "names": {"kind": kind, "plural": f"{kind.lower()}s"}}}


@pytest.mark.parametrize("given, namespace", [
    (obj("Pod"), "b"),                                          # namespace-less: in -n's
    (obj("Pod", namespace="b"), "b"),                           # the same namespace: kept
    (obj("Deployment", "apps/v1"), "b"),
    (obj("PersistentVolumeClaim"), "b"),
    (obj("Node"), None),                                        # cluster-scoped: as written
    (obj("PriorityClass", "scheduling.k8s.io/v1"), None),
    (obj("Namespace", namespace="a"), "a"),                     # (cluster-scoped: not checked either)
    (obj("NodePool", "karpenter.sh/v1"), None),                 # Karpenter's: cluster-scoped
    (obj("LocalQueue", "kueue.x-k8s.io/v1beta1"), "b"),         # Kueue's LocalQueue: namespaced
    (obj("ClusterQueue", "kueue.x-k8s.io/v1beta1"), None),
    (obj("Widget", "example.com/v1"), None),                    # of unknown scope: as written
    (obj("Widget", "example.com/v1", namespace="a"), "a"),
])
def test_objects_as_kubectl_apply_n_takes_them(given, namespace):
    ((out, _),) = in_namespace([(given, Source("f.yaml", 1))], "b")
    assert out["metadata"].get("namespace") == namespace
    assert given["metadata"].get("namespace") == (namespace if "namespace" in given["metadata"] else None)


@pytest.mark.parametrize("given", [obj("Pod", namespace="a"), obj("Job", "batch/v1", namespace="a"),
                                   obj("LocalQueue", "kueue.x-k8s.io/v1beta1", namespace="a")])
def test_an_object_of_another_namespace_is_refused_and_the_rest_kept(given):
    problems = Problems(keep=True)
    other = obj("Pod", name="y")
    out = in_namespace([(given, Source("f.yaml", 1)), (other, Source("f.yaml", 2))], "b", problems)
    assert [o["metadata"]["name"] for o, _ in out] == ["y"]
    (err,) = problems.found
    assert isinstance(err, InputError) and err.message == MISMATCH_A_B == mismatch("a", "b")
    assert str(err).startswith(f"f.yaml: document 1: {given['kind']} a/x: the namespace from")
    with pytest.raises(InputError, match="You must pass '--namespace=a'"):
        in_namespace([(given, Source("f.yaml", 1))], "b")


def test_a_custom_resource_definition_of_the_input_tells_the_scope():
    widget = obj("Widget", "example.com/v1")
    gadget = obj("Gadget", "example.com/v1", namespace="a")
    objs = [(crd("example.com", "Widget", "Namespaced"), Source("f", 1)), (widget, Source("f", 2)),
            (crd("example.com", "Gadget", "Cluster"), Source("f", 3)), (gadget, Source("f", 4))]
    out = in_namespace(objs, "b")
    assert out[1][0]["metadata"]["namespace"] == "b"
    assert out[3][0] is gadget                  # cluster-scoped: its namespace is not checked
    assert namespaced(widget) is None           # (without the definition: unknown)


def test_without_the_flag_nothing_changes():
    objs = [(obj("Pod", namespace="a"), Source("f", 1)), (obj("Pod"), Source("f", 2))]
    assert in_namespace(objs, None) is objs


def test_load_objects_takes_the_namespace_before_one_apply(tmp_path):
    """A Pod written without a namespace and the same Pod in -n's namespace are one object."""
    (tmp_path / "a.yaml").write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: []}\n")
    (tmp_path / "b.yaml").write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: team, "
                                     "labels: {v: '2'}}\nspec: {containers: []}\n")
    ((pod, _),) = load_objects([str(tmp_path)], namespace="team")
    assert pod["metadata"] == {"name": "web", "namespace": "team", "labels": {"v": "2"}}
    assert len(load_objects([str(tmp_path)])) == 2      # without -n: default and team, two pods
