"""--enable-provisioning-requests in CA's own loop (`kexplain autoscale`): CA's default is false
(config/flags/flags.go), and kexplain accepts either value; with it true CA's builder adds
ProvisioningRequestPodsFilter after the default pod list processors: a pod that consumes a
ProvisioningRequest triggers no scale-up, with CA's event saying so. (Kueue's requests answered
through the flag: tests/autoscaler/test_provisioningrequest.py.)"""
from __future__ import annotations

import pytest

from kexplain.autoscaler.params import FLAGS, NO_EFFECT, ONLY, REFUSED, parse_settings
from kexplain.autoscaler.podlistprocessor import MAX_PROVISIONING_REQUEST_EVENTS, PROVISIONING_REQUEST
from kexplain.errors import Source
from tests.autoscaler.test_flags import filler, group, node, pod, run

FLAG = "enable-provisioning-requests"
ON = {"flags": {FLAG: True}}


def consuming(name: str, request: str, key: str = "autoscaling.x-k8s.io/consume-provisioning-request") -> dict:
    out = pod(name, "2")
    out["metadata"]["annotations"] = {key: request}
    return out


def test_the_flag_defaults_as_cas_and_takes_either_value() -> None:
    assert FLAGS[FLAG] == ("bool", False)
    assert FLAG not in ONLY and FLAG not in REFUSED and FLAG not in NO_EFFECT
    for value in (True, False, "true"):
        assert parse_settings({"flags": {FLAG: value}}, Source("params.yaml")).flag(FLAG) is (value in (True, "true"))
    assert parse_settings({}, Source("params.yaml")).flag(FLAG) is False


@pytest.mark.parametrize("key", ["autoscaling.x-k8s.io/consume-provisioning-request",
                                 "cluster-autoscaler.kubernetes.io/consume-provisioning-request"])
def test_with_the_flag_a_pod_consuming_a_request_triggers_no_scale_up(tmp_path, key) -> None:
    cluster = [node("n1", "small"), filler("n1", "4")]
    pending = [consuming("p", "train", key), pod("q", "2")]
    code, doc, err = run(tmp_path, pending, cluster, [group("small")], ON)
    p, q = doc["pods"]
    assert (p["outcome"], p["filteredBy"]) == ("FilteredOut", PROVISIONING_REQUEST), err
    assert p["events"] == [{"type": "Normal", "reason": "", "message": "Unschedulable pod didn't trigger scale-up, "
                                                                       "because it's consuming ProvisioningRequest "
                                                                       "default/train"}]
    assert q["outcome"] == "TriggeredScaleUp" and doc["result"] == "ScaleUpSuccessful"


def test_without_the_flag_the_same_pod_is_one_like_any_other(tmp_path) -> None:
    cluster = [node("n1", "small"), filler("n1", "4")]
    for params in (None, {"flags": {FLAG: False}}):
        code, doc, _ = run(tmp_path, [consuming("p", "train")], cluster, [group("small")], params)
        [p] = doc["pods"]
        assert p["outcome"] == "TriggeredScaleUp" and "filteredBy" not in p


def test_only_the_filters_first_events_are_recorded(tmp_path) -> None:
    count = MAX_PROVISIONING_REQUEST_EVENTS + 2
    cluster = [node("n1", "small"), filler("n1", "4")]
    code, doc, _ = run(tmp_path, [consuming(f"p{i:02d}", "train") for i in range(count)], cluster,
                       [group("small")], ON)
    assert all(p["filteredBy"] == PROVISIONING_REQUEST for p in doc["pods"])
    assert sum(1 for p in doc["pods"] if p["events"]) == MAX_PROVISIONING_REQUEST_EVENTS
    assert (doc["result"], doc["scaleUpCalled"]) == ("ScaleUpNotNeeded", False)


REQUEST = {"apiVersion": "autoscaling.x-k8s.io/v1", "kind": "ProvisioningRequest",
           "metadata": {"name": "train", "namespace": "default"},
           "spec": {"provisioningClassName": "check-capacity.autoscaling.x-k8s.io",
                    "podSets": [{"count": 2, "podTemplateRef": {"name": "train"}}]}}


@pytest.mark.parametrize(("params", "said"), [
    (None, "CA runs with --enable-provisioning-requests=false (its default) and ignores them"),
    (ON, "CA's injector takes one a loop and its class answers it in a loop of its own"),
])
def test_the_requests_among_the_cluster_are_said_not_answered_in_the_loop(tmp_path, params, said) -> None:
    cluster = [node("n1", "small"), filler("n1", "4"), REQUEST]
    code, doc, err = run(tmp_path, [pod("q", "2")], cluster, [group("small")], params)
    assert f"warning: ProvisioningRequest default/train among the cluster's objects: {said}" in err
    assert doc["pods"][0]["outcome"] == "TriggeredScaleUp"
    code, doc, err = run(tmp_path, [pod("q", "2")], cluster[:2], [group("small")], params)
    assert "ProvisioningRequest" not in err


def test_the_text_gives_cas_reasonless_event_as_kubectl_lists_it() -> None:
    from kexplain.render.cluster_autoscaler import event_line
    said = "Unschedulable pod didn't trigger scale-up, because it's consuming ProvisioningRequest default/train"
    assert event_line({"type": "Normal", "reason": "", "message": said}) == f"Event: Normal: {said}"
    assert event_line({"type": "Normal", "reason": "TriggeredScaleUp", "message": "m"}) == \
        "Event: Normal TriggeredScaleUp: m"
