"""Kueue's Configuration read as its config loader reads it (kexplain/kueue/config.py,
config_fields.py): strict decoding, v1beta1's conversion, the defaults and the validation; what
is read but not modelled is said."""
from __future__ import annotations

import pytest

from kexplain.errors import InputError
from kexplain.kueue.config import DEFAULT_STRATEGIES, parse_configuration


def cfg(version: str = "v1beta2", **fields) -> dict:
    return {"apiVersion": f"config.kueue.x-k8s.io/{version}", "kind": "Configuration", **fields}


@pytest.mark.parametrize(("fields", "said"), [
    ({"fairShare": {}}, 'strict decoding error: unknown field "fairShare"'),
    ({"fairSharing": {"enable": True}}, 'strict decoding error: unknown field "fairSharing.enable"'),  # v1beta1's
    ({"fairSharing": {"preemptionStrategies": "LessThanInitialShare"}},
     "json: cannot unmarshal string into Go struct field fairSharing.preemptionStrategies of type []string"),
    ({"manageJobsWithoutQueueName": "yes"},
     "json: cannot unmarshal string into Go struct field manageJobsWithoutQueueName of type bool"),
    ({"waitForPodsReady": {"timeout": "ten minutes"}}, 'time: invalid duration "ten minutes"'),
    ({"clientConnection": {"burst": 1.5}}, "cannot unmarshal number into Go struct field clientConnection.burst"),
    ({"fairSharing": {"preemptionStrategies": ["LessThanInitialShare", "LessThanOrEqualToFinalShare"]}},
     'fairSharing.preemptionStrategies: Unsupported value: []v1beta2.PreemptionStrategy{"LessThanInitialShare", '
     '"LessThanOrEqualToFinalShare"}: supported values: "LessThanOrEqualToFinalShare", "LessThanInitialShare", '
     '"LessThanOrEqualToFinalShare,LessThanInitialShare"'),
    ({"fairSharing": {"preemptionStrategies": []}}, "fairSharing.preemptionStrategies: Required value: must be "
                                                    "specified"),
    ({"integrations": {"frameworks": ["batch/job", "kubeflow.org/pytorchjobs"]}},
     'integrations.frameworks[1]: Unsupported value: "kubeflow.org/pytorchjobs": supported values: "batch/job", '),
    ({"integrations": {"frameworks": ["batch/job", "batch/job"]}},
     'integrations.frameworks[1]: Duplicate value: "batch/job"'),
    ({"integrations": {"frameworks": ["pod"]}, "managedJobsNamespaceSelector": {"matchLabels": {}}},
     'managedJobsNamespaceSelector: Invalid value: {"matchLabels":{}}: should not match the "kube-system" namespace'),
    ({"waitForPodsReady": {"timeout": "0s"}}, "waitForPodsReady.timeout: Required value: must be specified"),
    ({"waitForPodsReady": {"timeout": "5m", "requeuingStrategy": {"timestamp": "Now"}}},
     'waitForPodsReady.requeuingStrategy.timestamp: Unsupported value: "Now": supported values: "Creation", '
     '"Eviction"'),
    ({"resources": {"transformations": [{"input": "nvidia.com/mig-1g", "strategy": "Keep"}]}},
     'resources.transformations[0].strategy: Unsupported value: "Keep": supported values: "Retain", "Replace"'),
])
def test_what_kueues_loader_refuses(fields, said) -> None:
    with pytest.raises(InputError) as err:
        parse_configuration(cfg(**fields))
    assert said in str(err.value)
    assert "\n" not in str(err.value)


def test_two_errors_are_kueues_aggregate() -> None:
    with pytest.raises(InputError, match=r"Configuration: \[waitForPodsReady.timeout: Invalid value: \"-1s\": must be "
                                         r"greater than or equal to 0, fairSharing.preemptionStrategies: Required"):
        parse_configuration(cfg(waitForPodsReady={"timeout": "-1s"}, fairSharing={"preemptionStrategies": []}))


def test_a_version_kueue_does_not_read() -> None:
    with pytest.raises(InputError, match='no kind "Configuration" is registered for version '
                                         '"config.kueue.x-k8s.io/v1"'):
        parse_configuration(cfg("v1"))


def test_v1beta1_converts() -> None:
    """fairSharing and waitForPodsReady count only enabled; enabled waitForPodsReady gets its 5m timeout
    (so its validation passes); podOptions is v1beta1's own field."""
    got = parse_configuration(cfg("v1beta1", fairSharing={"enable": True}, waitForPodsReady={"enable": True},
                                  integrations={"frameworks": ["batch/job"], "podOptions": {}}))
    assert got.fair_sharing is not None and got.fair_sharing.preemption_strategies == DEFAULT_STRATEGIES
    assert got.wait_for_pods_ready
    off = parse_configuration(cfg("v1beta1", waitForPodsReady={"enable": False, "timeout": "0s"}))
    assert not off.wait_for_pods_ready and off.fair_sharing is None
    with pytest.raises(InputError, match='unknown field "integrations.podOptions"'):
        parse_configuration(cfg("v1beta2", integrations={"podOptions": {}}))


def test_what_is_read_but_not_modelled_is_said() -> None:
    """The modelled fields are read into the config; what is still not modelled is the note."""
    got = parse_configuration(cfg(manageJobsWithoutQueueName=True, waitForPodsReady={"timeout": "10m"},
                                  integrations={"frameworks": ["batch/job", "pod"], "externalFrameworks": ["A.v1.x.io"]},
                                  resources={"excludeResourcePrefixes": ["example.com/"]},
                                  featureGates={"SchedulingEquivalenceHashing": True},
                                  metrics={"bindAddress": ":8443"}, fairSharing={"preemptionStrategies":
                                                                                  ["LessThanInitialShare"]}))
    assert got.manage_jobs_without_queue_name and got.wait_for_pods_ready is not None
    assert got.wait_for_pods_ready.timeout == 600 and got.wait_for_pods_ready.recovery_timeout == 600
    assert got.frameworks == ("batch/job", "pod") and got.exclude_resource_prefixes == ("example.com/",)
    assert got.not_modelled == ("featureGates.SchedulingEquivalenceHashing",) and got.external_frameworks == ("A.v1.x.io",)
    assert got.note().startswith("the Configuration's featureGates.SchedulingEquivalenceHashing: read and validated")
    assert parse_configuration(cfg(metrics={"bindAddress": ":8443"}, manageJobsWithoutQueueName=True)).note() is None


def test_pods_ready_and_resources_are_read_defaulted() -> None:
    got = parse_configuration(cfg(
        waitForPodsReady={"timeout": "5m", "blockAdmission": True, "recoveryTimeout": "1m",
                          "requeuingStrategy": {"backoffLimitCount": 2, "backoffBaseSeconds": 10}},
        resources={"transformations": [{"input": "nvidia.com/mig-1g", "strategy": "Replace",
                                        "outputs": {"example.com/mem": "5Gi", "example.com/gpc": 1}}]}))
    ready = got.wait_for_pods_ready
    assert (ready.timeout, ready.block_admission, ready.recovery_timeout, ready.timestamp) == (300, True, 60, "Eviction")
    assert (ready.backoff_limit_count, ready.backoff_base_seconds, ready.backoff_max_seconds) == (2, 10, 3600)
    t, = got.resources.transformations
    assert (t.input, t.strategy, t.multiply_by) == ("nvidia.com/mig-1g", "Replace", "")
    assert t.outputs == (("example.com/mem", 5 * 2 ** 30), ("example.com/gpc", 1))
    with pytest.raises(InputError, match="quantities must match the regular expression"):
        parse_configuration(cfg(resources={"transformations": [{"input": "a", "outputs": {"b": "lots"}}]}))
