"""A family's per-node edit worked out once per distinct values of the label keys the pod's
selection reads (`by_labels`), and per node when the selection reads more of a node."""
from __future__ import annotations

from types import SimpleNamespace

from kexplain.suggest.parsed_terms import by_labels, selection_label_keys


def _spec(*terms: dict, selector: dict | None = None) -> dict:
    spec: dict = {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": list(terms)}}}}
    if selector is not None:
        spec["nodeSelector"] = selector
    return spec


def test_the_keys_of_the_selector_and_the_required_terms_once_each() -> None:
    spec = _spec({"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]},
                                       {"key": "pool", "operator": "Exists"}]},
                 {"matchExpressions": [{"key": "zone", "operator": "NotIn", "values": ["b"]}]},
                 selector={"pool": "gpu", "disk": "ssd"})
    assert selection_label_keys(spec) == ("pool", "disk", "zone")
    assert selection_label_keys({}) == ()


def test_a_selection_reading_more_than_labels_has_no_keys() -> None:
    assert selection_label_keys(_spec({"matchFields": [{"key": "metadata.name", "operator": "In",
                                                        "values": ["n1"]}]})) is None
    assert selection_label_keys(_spec({"matchExpressions": [{"key": 3, "operator": "Exists"}]})) is None
    assert selection_label_keys({"affinity": ["not", "a", "map"]}) is None
    assert selection_label_keys({"nodeSelector": ["zone"]}) is None


def test_worked_out_once_per_label_values() -> None:
    calls: list[str] = []

    def compute(node: SimpleNamespace) -> str:
        calls.append(node.name)
        return node.labels.get("zone", "-")
    nodes = [SimpleNamespace(name=f"n{i}", labels={"zone": "ab"[i % 2], "kubernetes.io/hostname": f"n{i}"})
             for i in range(6)] + [SimpleNamespace(name="bare", labels={})]
    at = by_labels(("zone",), compute)
    assert [at(n) for n in nodes] == ["a", "b", "a", "b", "a", "b", "-"]
    assert calls == ["n0", "n1", "bare"]
    per_node = by_labels(None, compute)
    calls.clear()
    assert [per_node(n) for n in nodes[:3]] == ["a", "b", "a"] and calls == ["n0", "n1", "n2"]
