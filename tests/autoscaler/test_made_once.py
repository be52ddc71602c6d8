"""What CA's loops ask again of the same objects is made once: a DaemonSet's template pod (every group's
template asks it, in each loop: `templates._template_pod`), a pod's semantic spec key (FilterOutSchedulable
and the scale-up's equivalence groups ask it: `equivalence.spec_key`); each the same as made alone."""
from __future__ import annotations

from pathlib import Path

import pytest

from kexplain.app.cluster import pending, scaledown
from kexplain.autoscaler import equivalence, templates
from tests.app.cluster.helpers import inputs_of

CASE = Path(__file__).parent / "cases" / "daemonsets-0007"


def _counted(monkeypatch: pytest.MonkeyPatch, module, name: str, key=id) -> list:
    """The calls of `module.name`, each by `key` of its first argument."""
    calls: list = []
    original = getattr(module, name)

    def counted(*args, **kw):
        calls.append(key(args[0]))
        return original(*args, **kw)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_the_loops_make_each_template_pod_and_spec_key_once(monkeypatch: pytest.MonkeyPatch) -> None:
    inputs = inputs_of(CASE / "cluster.yaml", CASE / "pods.yaml", node_groups=str(CASE / "nodegroups.yaml"))
    monkeypatch.setattr(templates, "_TEMPLATE_PODS", {}, raising=False)
    monkeypatch.setattr(equivalence, "_SPEC_KEYS", {}, raising=False)
    made = _counted(monkeypatch, templates, "pod_from_workload",
                    lambda ds: (ds["metadata"].get("namespace"), ds["metadata"]["name"]))
    keyed = _counted(monkeypatch, equivalence, "_spec_key" if hasattr(equivalence, "_spec_key") else "spec_key")
    first = scaledown.section(inputs)
    pending.section(inputs)
    again = scaledown.section(inputs)
    assert made and len(made) == len(set(made))
    assert keyed and len(keyed) == len(set(keyed))
    assert again == first


def test_a_daemonsets_pod_is_its_own_copy() -> None:
    ds = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "d", "namespace": "kube-system",
                                                                      "uid": "u"},
          "spec": {"template": {"metadata": {"labels": {"app": "d"}},
                                "spec": {"containers": [{"name": "c", "image": "i"}]}}}}
    a, b = templates.daemonset_pod(ds, "n1"), templates.daemonset_pod(ds, "n2")
    assert (a.node_name, b.node_name) == ("n1", "n2")
    assert "nodeName" not in templates._template_pod(ds)["spec"]
    assert a.obj["metadata"] is not b.obj["metadata"]
