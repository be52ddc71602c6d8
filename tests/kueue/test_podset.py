"""pkg/podset: what starting an admitted Workload merges into a pod template (node labels,
tolerations, the pod set and queue labels, the Workload annotation) and the conflicts Kueue
refuses."""
from __future__ import annotations

import pytest

from kexplain.kueue.podset import Conflict, PodSetInfo, merged

INFO = PodSetInfo("main", 2, ("spot",), {"kueue.x-k8s.io/podset": "main"}, {"kueue.x-k8s.io/workload": "wl"},
                  {"capacity": "spot"}, ({"key": "spot", "operator": "Equal", "value": "true", "effect": "NoSchedule"},))


@pytest.mark.parametrize(("template", "selector", "tolerations"), [
    ({}, {"capacity": "spot"}, [{"key": "spot", "operator": "Equal", "value": "true", "effect": "NoSchedule"}]),
    ({"spec": {"nodeSelector": {"zone": "a"}}}, {"zone": "a", "capacity": "spot"}, None),
    ({"spec": {"nodeSelector": {"capacity": "spot"}}}, {"capacity": "spot"}, None),
    # an equal toleration (empty operator is Equal) is not added twice
    ({"spec": {"tolerations": [{"key": "spot", "value": "true", "effect": "NoSchedule"}]}}, {"capacity": "spot"},
     [{"key": "spot", "value": "true", "effect": "NoSchedule"}]),
])
def test_merge_adds_the_flavor_node_labels_and_tolerations(template, selector, tolerations) -> None:
    out = merged(template, INFO)
    assert out["spec"]["nodeSelector"] == selector
    if tolerations is not None:
        assert out["spec"]["tolerations"] == tolerations
    assert out["metadata"]["labels"] == {"kueue.x-k8s.io/podset": "main"}
    assert out["metadata"]["annotations"] == {"kueue.x-k8s.io/workload": "wl"}
    assert template.get("metadata") is None         # the template given is not changed


@pytest.mark.parametrize(("template", "said"), [
    ({"spec": {"nodeSelector": {"capacity": "on-demand"}}},
     "invalid admission check PodSetUpdate: conflict for nodeSelector: conflict for key=capacity, "
     "value1=on-demand, value2=spot"),
    ({"metadata": {"labels": {"kueue.x-k8s.io/podset": "other"}}},
     "conflict for labels: conflict for key=kueue.x-k8s.io/podset, value1=other, value2=main"),
])
def test_a_conflicting_key_is_refused_as_kueue_refuses_it(template, said) -> None:
    with pytest.raises(Conflict, match=said.replace("(", r"\(")):
        merged(template, INFO)


def test_the_light_kinds_table_is_the_registrys() -> None:
    from kexplain.kueue.objects import MANAGED_KINDS
    from kexplain.kueue.controller.jobs import INTEGRATIONS
    assert MANAGED_KINDS == {kind: module.GROUP for kind, module in INTEGRATIONS.items()}
