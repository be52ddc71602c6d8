"""Kueue's feature gates (kexplain/kueue/feature_gates.py): each release's defaults and locks as
version data, the Configuration's `featureGates` refused in the manager's words at start, and the
gates kexplain models switching what the pass decides."""
from __future__ import annotations

from typing import Any

import pytest
import yaml

from kexplain.errors import InputError
from kexplain.kueue.config import parse_configuration
from kexplain.kueue.controller.jobframework.reconciler import NOT_MANAGED
from kexplain.kueue.feature_gates import GATES_0_17, GATES_0_19
from kexplain.kueue.inputs import inputs_of
from kexplain.kueue.versions import VERSIONS
from kexplain.load.manifests import objects_from_text
from kexplain.kueue.run import Settings, run_pass
from tests.kueue.builders import NOW
from tests.kueue.test_config_management import QUEUE, job, namespace, outcomes
from tests.support.paths import FIXTURES


def cfg(**gates: bool) -> dict[str, Any]:
    return {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration", "featureGates": gates}


def refused(config: dict[str, Any], version: str = "0.17") -> str:
    with pytest.raises(InputError) as info:
        parse_configuration(config, None, VERSIONS[version].gates)
    return info.value.message


def test_an_unknown_gate_is_refused_in_kueues_words() -> None:
    assert refused(cfg(NoSuchGate=True)) == ('featureGates: Invalid value: {"NoSuchGate":true}: '
                                             'unrecognized feature gate: NoSuchGate')


def test_a_locked_gate_is_refused_and_several_refusals_are_one_aggregate() -> None:
    assert refused(cfg(LocalQueueDefaulting=False)) == (
        'featureGates: Invalid value: {"LocalQueueDefaulting":false}: cannot set feature gate LocalQueueDefaulting '
        'to false, feature is locked to true')
    assert refused(cfg(Zed=True, ObjectRetentionPolicies=False)) == (
        'featureGates: Invalid value: {"ObjectRetentionPolicies":false,"Zed":true}: [cannot set feature gate '
        'ObjectRetentionPolicies to false, feature is locked to true, unrecognized feature gate: Zed]')


def test_the_releases_differ_in_their_gates() -> None:
    """v0.19.2 removed LocalQueueDefaulting (always on) and locked ManagedJobsNamespaceSelectorAlwaysRespected."""
    assert refused(cfg(LocalQueueDefaulting=True), "0.19").endswith("unrecognized feature gate: LocalQueueDefaulting")
    assert refused(cfg(ManagedJobsNamespaceSelectorAlwaysRespected=False), "0.19").endswith("feature is locked to true")
    parse_configuration(cfg(ManagedJobsNamespaceSelectorAlwaysRespected=False), None, GATES_0_17)
    assert not GATES_0_17.default("ElasticJobsViaWorkloadSlices") and GATES_0_19.default("ElasticJobsViaWorkloadSlices")
    assert VERSIONS["0.19"].gates is GATES_0_19 and VERSIONS["0.17"].gates is GATES_0_17


def test_a_gate_missing_what_it_needs_is_refused() -> None:
    """TopologyAwareScheduling off alone: the TAS gates on by default need it (Kueue refuses to start)."""
    said = refused(cfg(TopologyAwareScheduling=False))
    assert said.startswith('[featureGates: Invalid value: 1: cannot use a TAS profile with TAS disabled, '
                           'featureGates: Invalid value: "TASFailedNodeReplacement": TASFailedNodeReplacement requires '
                           'TopologyAwareScheduling to be enabled')
    assert refused(cfg(DRAExtendedResources=True)) == (
        'featureGates: Invalid value: "DRAExtendedResources": DRAExtendedResources requires DynamicResourceAllocation '
        'to be enabled')


def test_a_gate_not_modelled_is_said_only_away_from_its_default() -> None:
    at_default = parse_configuration(cfg(TopologyAwareScheduling=True, PartialAdmission=True))
    assert at_default.note() is None and at_default.enabled("PartialAdmission")
    off = parse_configuration(cfg(PrioritySortingWithinCohort=False, PartialAdmission=False))
    assert off.not_modelled == ("featureGates.PrioritySortingWithinCohort",) and not off.enabled("PartialAdmission")


def test_without_a_configuration_the_pass_runs_with_the_releases_defaults() -> None:
    got = inputs_of([], [], version=VERSIONS["0.19"])
    assert got.config.enabled("ElasticJobsViaWorkloadSlices")
    assert not inputs_of([], [], version=VERSIONS["0.17"]).config.enabled("ElasticJobsViaWorkloadSlices")


def test_a_configuration_among_the_objects_is_checked_against_the_passs_release() -> None:
    text = yaml.safe_dump(cfg(ManagedJobsNamespaceSelectorAlwaysRespected=False))
    inputs_of([], objects_from_text(text, "c.yaml"), version=VERSIONS["0.17"])
    with pytest.raises(InputError, match="feature is locked to true"):
        inputs_of([], objects_from_text(text, "c.yaml"), version=VERSIONS["0.19"])


def _min_parallelism_job() -> str:
    doc = yaml.safe_load(job("partial", QUEUE))
    doc["metadata"]["annotations"] = {"kueue.x-k8s.io/job-min-parallelism": "1"}
    doc["spec"]["parallelism"] = 3
    return yaml.safe_dump(doc)


@pytest.mark.parametrize(("gate", "min_count"), [(True, 1), (False, None)])
def test_partial_admission_off_clears_the_pod_sets_min_count(gate: bool, min_count: int | None) -> None:
    got = outcomes(yaml.safe_dump(cfg(PartialAdmission=gate)), submitted=(_min_parallelism_job(),))
    outcome, _ = got["default/partial"]
    assert outcome.workload.spec.pod_sets[0].min_count == min_count


@pytest.mark.parametrize(("gate", "managed"), [(True, False), (False, True)])
def test_the_namespace_selector_respected_always_or_only_without_a_queue_name(gate: bool, managed: bool) -> None:
    """ManagedJobsNamespaceSelectorAlwaysRespected off (v0.17): a job with a queue name in a namespace the
    selector leaves out is managed still; one without stays out under manageJobsWithoutQueueName."""
    config = {**cfg(ManagedJobsNamespaceSelectorAlwaysRespected=gate), "manageJobsWithoutQueueName": True,
              "managedJobsNamespaceSelector": {"matchLabels": {"team": "a"}}}
    got = outcomes(yaml.safe_dump(config), namespace("team-a", team="a"),
                   submitted=(job("x", QUEUE), job("plain")))
    assert got["default/x"][0].created is managed
    assert "namespace default is not selected" in got["default/plain"][0].error
    assert NOT_MANAGED not in got["default/plain"][0].error


TAS_OFF = {"TopologyAwareScheduling": False, "TASProfileMixed": False, "TASFailedNodeReplacement": False,
           "TASFailedNodeReplacementFailFast": False, "TASReplaceNodeOnPodTermination": False,
           "TASReplaceNodeDueToNotReadyOverFixedTime": False, "TASReplaceNodeOnNodeTaints": False}


@pytest.mark.parametrize(("gates", "placed"), [({}, True), (TAS_OFF, False)])
def test_topology_aware_scheduling_off_places_by_quota_alone(gates: dict[str, bool], placed: bool) -> None:
    """Off (with the TAS gates that need it): no flavor is a TAS one and no job asks for a topology, so
    the bundled TAS jobs are admitted on quota with no topology assignment; the stored admitted one
    keeps its own. The TAS gates off with it have no effect: not said."""
    tas = FIXTURES / "kueue" / "tas"
    cluster = [*objects_from_text((tas / "cluster.yaml").read_text(), "cluster.yaml"),
               *objects_from_text(yaml.safe_dump(cfg(**gates)), "c.yaml")]
    inputs = inputs_of(objects_from_text((tas / "jobs.yaml").read_text(), "jobs.yaml"), cluster,
                       version=VERSIONS["0.17"])
    done = run_pass(inputs, Settings(VERSIONS["0.17"], NOW))
    made = [o.workload.meta.key for o in done.outcomes if o.created]
    assert made and all(done.workloads[k].admission is not None for k in made)
    assert all((psa.topology_assignment is not None) is placed
               for k in made for psa in done.workloads[k].admission.pod_set_assignments)
    assert inputs.config.note() is None
