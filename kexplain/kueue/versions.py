"""Kueue versions as data: v0.17.8 is the base; code asks a `KueueVersion` for the behaviour it
needs, never a version's name."""
from __future__ import annotations

from dataclasses import dataclass, replace

from kexplain.errors import KexplainError
from kexplain.features import releases
from kexplain.kueue.feature_gates import GATES_0_17, GATES_0_19, GateTable

NAMESPACE_MISMATCH_0_17 = "Workload namespace doesn't match ClusterQueue selector"
NAMESPACE_MISMATCH_0_19 = "workload namespace doesn't match ClusterQueue selector"
RAYCLUSTER_AUTOSCALING_0_17 = ("a kueue managed job can use autoscaling only when the ElasticJobsViaWorkloadSlices "
                               "feature gate is on and the job is an elastic job")
RAYCLUSTER_AUTOSCALING_0_19 = ('a kueue-managed RayCluster can use autoscaling only as an elastic job: enable the '
                               'ElasticJobsViaWorkloadSlices feature gate and set the "kueue.x-k8s.io/elastic-job": '
                               '"true" annotation')


@dataclass(frozen=True)
class KueueVersion:
    """One Kueue release and the behaviours that differ between the releases followed."""

    minor: str
    release: str
    commit: str
    # SchedulingEquivalenceHashing (on by default since v0.18.0, kueue #11097): when a pending
    # Workload does not fit, BestEffortFIFO moves the Workloads of the same shape waiting behind
    # it to the inadmissible list without trying them.
    equivalence_hashing: bool = False
    # The nominate step's namespace-selector text (lower-cased in v0.19.0, kueue #12659).
    namespace_mismatch: str = NAMESPACE_MISMATCH_0_17
    # FlavorFungibilityPreserveScanProgress (on since v0.19.0): a head skipped in a cycle keeps
    # the flavor it got to, so the next cycle resumes the scan there.
    preserve_scan_progress: bool = False
    # isPreferred ranks a flavor without preemption candidates below every viable mode before
    # the fungibility preference compares borrowing and preemption (v0.19.0).
    no_candidates_rank_lowest: bool = False
    # The flavor assigner adds the `pods` count to a copy of the requests (v0.19.0), not to the
    # Workload's own totals, which preemption then reads (v0.17).
    pods_request_copied: bool = False
    # The admission checks' eviction and deactivation texts name each check, its state and its
    # message (v0.18.0, kueue #10623), not "At least one admission check is false".
    check_states_named: bool = False
    # A flavor found short of one resource is still checked for the others, so a NoFit message
    # lists every short resource (v0.19.0, kueue #12378: the loop became a closure whose early
    # return no longer stops it).
    every_short_resource: bool = False
    # SliceRequests (v0.19): a pod set's requests ranged over sorted by the FNV-64a hash of their
    # names; before, a Go map's order (`resources.iteration_order`)
    requests_in_hash_order: bool = False
    # The most roles (pod sets) a pod group may have: 8 (v0.17), jobframework.MaxPodSets 18 (v0.19).
    max_pod_group_roles: int = 8
    # PodIntegrationValidateGroupOwner (on since v0.18): a Workload named as a pod group that the pod
    # group framework did not create (no `kueue.x-k8s.io/is-group-workload` annotation) is not adopted.
    validate_group_owner: bool = False
    # Kueue's Ray webhooks (a RayCluster's, a RayJob's cluster): at most 7 worker groups (v0.17), or
    # at most MaxPodSets pod sets, the head's and the worker groups' (v0.19.0: 18).
    ray_max_pod_sets: int | None = None
    # The RayCluster webhook's words for in-tree autoscaling (v0.19.0 names the elastic-job annotation).
    raycluster_autoscaling: str = RAYCLUSTER_AUTOSCALING_0_17
    # TASAssignmentsEncodingByHostnamePrefix (v0.19.0): a topology assignment is stored as runs of
    # hostnames sharing a prefix, one slice each, when that serializes shorter than one slice.
    tas_hostname_prefix_encoding: bool = False
    # applyResourceTransformations (v0.19.0): the outputs kept apart from the requests and summed with
    # them (a negative total output: zero; a retained input as asked, not multiplied), not written
    # into one list where a later write replaces an earlier one.
    transformations_summed: bool = False
    # waitForPodsReadyIfNeeded (v0.19.0): blockAdmission does not hold a Workload that needs a second
    # pass (it holds its quota already: delayed topology, a failed node's replacement).
    pods_ready_block_skips_second_pass: bool = False
    # A pod set group's TAS placement (v0.19.0): the leader's domain chosen among those that keep the
    # workers' capacity (prioritizeLeaderDomain), best fit only among domains holding the leader,
    # least free capacity counting the leader, a partly used domain's pods set to what it takes.
    tas_leader_prioritized: bool = False
    # admission fair sharing's CalculateUsage (v0.19): a LocalQueue weighing 0 or less ranks last
    # (+Inf); v0.17.8 divides by its weight (0/0 is NaN, sorted first)
    afs_nonpositive_weight_last: bool = False
    # The release's feature gates, their defaults and locks (`feature_gates`).
    gates: GateTable = GATES_0_17

    @property
    def label(self) -> str:
        """`v0.17.8 (818686e...)`: what the document's kueueVersion says."""
        return f"{self.release} ({self.commit})"


BASE = KueueVersion(minor="0.17", release="v0.17.8", commit="818686e072da52af3564ba21f37f826fe05190af")

VERSIONS: dict[str, KueueVersion] = {
    "0.17": BASE,
    "0.19": replace(BASE, minor="0.19", release="v0.19.2", commit="8eab68778fc1b52affe165fdf5af29d1e9b4f3cb",
                    equivalence_hashing=True, namespace_mismatch=NAMESPACE_MISMATCH_0_19, preserve_scan_progress=True,
                    no_candidates_rank_lowest=True, pods_request_copied=True, check_states_named=True,
                    every_short_resource=True, requests_in_hash_order=True, max_pod_group_roles=18,
                    validate_group_owner=True, ray_max_pod_sets=18, raycluster_autoscaling=RAYCLUSTER_AUTOSCALING_0_19,
                    tas_hostname_prefix_encoding=True, transformations_summed=True,
                    pods_ready_block_skips_second_pass=True, tas_leader_prioritized=True, gates=GATES_0_19,
                    afs_nonpositive_weight_last=True),
}
DEFAULT = "0.17"


def resolve(text: str | None) -> KueueVersion:
    """The release a `--kueue-version` names (`0.17`, `v0.19.2`, `0.19`); a one-line error
    naming the supported ones otherwise."""
    if not text:
        return VERSIONS[DEFAULT]
    found = releases.named(text, VERSIONS, _release)
    if found is not None:
        return found
    supported = releases.listed(VERSIONS, _release)
    raise KexplainError(f"--kueue-version {text}: not a Kueue version kexplain follows; supported: {supported}")


def _release(version: KueueVersion) -> str:
    return version.release
