"""Kueue's DRA counting (kexplain/kueue/workload/dra.py, the DynamicResourceAllocation gate of v0.17):
a pod set's ResourceClaimTemplates' devices counted as `resources.deviceClassMappings`' logical
resources, and what Kueue cannot count left inadmissible in its words. Fixture: fixtures/kueue/dra."""
from __future__ import annotations

from typing import Any

import pytest
import yaml

from kexplain.errors import InputError
from kexplain.kueue.config import parse_configuration
from kexplain.kueue.explain import INADMISSIBLE, explanation
from kexplain.kueue.workload.dra import count_devices_per_class
from tests.kueue.builders import run
from tests.support.paths import FIXTURES

DRA = FIXTURES / "kueue" / "dra"


def _docs(path: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((DRA / path).read_text()) if d]


def _dump(docs: list[dict[str, Any]]) -> tuple[str, ...]:
    return tuple(yaml.safe_dump(d) for d in docs)


def passed(gates: dict[str, bool] | None = None, **pod: Any) -> Any:
    """The fixture's pass: its Configuration's featureGates replaced by `gates` when given, the job's
    pod spec updated with `pod`."""
    cluster, (job,) = _docs("cluster.yaml"), _docs("job.yaml")
    if gates is not None:
        cluster[0]["featureGates"] = gates
    job["spec"]["template"]["spec"].update(pod)
    done = run(*_dump(cluster), submitted=_dump([job]))
    wl, = done.workloads.values()
    return wl


def _usage(wl: Any) -> dict[str, str]:
    assert wl.admission is not None
    psa, = wl.admission.pod_set_assignments
    return {k: str(v) for k, v in psa.resource_usage.items()}


def test_the_claims_devices_count_as_the_mapped_resource() -> None:
    assert _usage(passed()) == {"cpu": "2", "example.com/gpu": "4"}


def test_with_the_gate_off_the_claims_are_not_counted() -> None:
    assert _usage(passed(gates={})) == {"cpu": "2"}


def test_a_device_class_not_mapped_leaves_the_workload_inadmissible() -> None:
    wl = passed(resourceClaims=[{"name": "gpus", "resourceClaimTemplateName": "a-tpu"}])
    said = ('spec.podSets[0].template.spec.resourceClaims[0].resourceClaimTemplateName: Not found: '
            '"DeviceClass tpu.example.com is not mapped in DRA configuration for podset main"')
    for ctype in ("QuotaReserved", "Requeued"):
        cond = wl.find(ctype)
        assert (cond.status, cond.reason, cond.message) == ("False", "Inadmissible", said)
    assert wl.admission is None


def test_the_workload_left_inadmissible_is_the_workload_controllers_verdict() -> None:
    cluster, (job,) = _docs("cluster.yaml"), _docs("job.yaml")
    job["spec"]["template"]["spec"]["resourceClaims"] = [{"name": "gpus", "resourceClaimTemplateName": "a-tpu"}]
    done = run(*_dump(cluster), submitted=_dump([job]))
    item, = explanation(done)["workloads"]
    assert item["verdict"] == INADMISSIBLE and "not mapped in DRA configuration" in item["message"]


@pytest.mark.parametrize(("claims", "said"), [
    ([{"name": "gpus", "resourceClaimName": "shared"}],
     "DynamicResourceAllocation feature does not support use of resource claims"),
    ([{"name": "gpus", "resourceClaimTemplateName": "gone"}],
     'spec.podSets[0].template.spec.resourceClaims[0]: Internal error: failed to get claim spec for '
     'ResourceClaimTemplate gone in podset main: resourceclaimtemplates.resource.k8s.io "gone" not found'),
])
def test_what_kueue_cannot_count_is_said_in_its_words(claims: list[dict[str, str]], said: str) -> None:
    cond = passed(resourceClaims=claims).find("QuotaReserved")
    assert (cond.status, cond.reason, cond.message) == ("False", "Inadmissible", said)


def _template(**request: Any) -> dict[str, Any]:
    return {"spec": {"spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "c", **request}}]}}}}


@pytest.mark.parametrize(("template", "counted", "said"), [
    (_template(), {"c": 1}, ""),
    (_template(count=3), {"c": 3}, ""),
    (_template(allocationMode="All"), {},
     'devices.requests[0].exactly.allocationMode: Invalid value: "All": AllocationMode \'All\' is not supported'),
    (_template(selectors=[{"cel": {"expression": "true"}}]), {},
     "devices.requests[0].exactly.selectors: Invalid value: null: CEL selectors are not supported"),
    ({"spec": {"spec": {"devices": {"requests": [{"name": "r", "firstAvailable": [{"name": "a", "deviceClassName": "c"}]}]}}}},
     {}, "devices.requests[0]: Invalid value: null: FirstAvailable device selection is not supported"),
    ({"spec": {"spec": {"devices": {"constraints": [{"matchAttribute": "x"}], "requests": []}}}}, {},
     "devices.constraints: Invalid value: null: device constraints (MatchAttribute) are not supported"),
])
def test_count_devices_per_class(template: dict[str, Any], counted: dict[str, int], said: str) -> None:
    got, error = count_devices_per_class(template)
    assert got == counted and (str(error) if error else "") == said


@pytest.mark.parametrize(("mappings", "said"), [
    ([{"name": "example.com/gpu", "deviceClassNames": []}],
     "resources.deviceClassMappings[0].deviceClassNames: Required value: at least one device class name is required"),
    ([{"name": "a", "deviceClassNames": ["x", "x"]}, {"name": "b", "deviceClassNames": ["x"]}],
     '[resources.deviceClassMappings[0].deviceClassNames[1]: Duplicate value: "x", '
     'resources.deviceClassMappings[1].deviceClassNames[0]: Invalid value: "x": device class already mapped to '
     'resource a]'),
    ([{"name": f"r{i}", "deviceClassNames": [f"c{i}"]} for i in range(17)],
     "resources.deviceClassMappings: Too many: 17: must have at most 16 items"),
])
def test_device_class_mappings_kueue_refuses(mappings: list[dict[str, Any]], said: str) -> None:
    with pytest.raises(InputError) as info:
        parse_configuration({"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
                             "resources": {"deviceClassMappings": mappings}})
    assert info.value.message == said
