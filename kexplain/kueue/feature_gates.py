"""Kueue's feature gates as version data (pkg/features/kube_features.go: each gate's spec at the
release, its last versioned spec), and the Configuration's `featureGates` map read as Kueue's
manager applies it at start (config.LoadAndValidateFeatureGates: SetFromMap, then the gates'
dependencies); whatever it refuses is bad input in its words."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from kexplain.apimachinery.fielderrors import FieldError, Raw, go_json, invalid, invalid_typed

PATH = "featureGates"
TOPOLOGY_AWARE_SCHEDULING = "TopologyAwareScheduling"
PARTIAL_ADMISSION = "PartialAdmission"
NAMESPACE_SELECTOR_ALWAYS_RESPECTED = "ManagedJobsNamespaceSelectorAlwaysRespected"
LOCAL_QUEUE_DEFAULTING = "LocalQueueDefaulting"
OBJECT_RETENTION_POLICIES = "ObjectRetentionPolicies"
DYNAMIC_RESOURCE_ALLOCATION = "DynamicResourceAllocation"
FLAVOR_FUNGIBILITY = "FlavorFungibility"
ELASTIC_JOBS = "ElasticJobsViaWorkloadSlices"     # (its webhooks' part and the Workload's name: `workloadslicing`)
# component-base's own gates, known to every feature gate (its special "all alpha/beta" toggles)
SPECIAL = ("AllAlpha", "AllBeta")
# The gates whose either value kexplain decides as Kueue does (a gate Kueue locks is modelled at its
# locked value); any other gate set away from its default is said as not modelled.
MODELLED = frozenset({PARTIAL_ADMISSION, NAMESPACE_SELECTOR_ALWAYS_RESPECTED, LOCAL_QUEUE_DEFAULTING,
                      OBJECT_RETENTION_POLICIES, DYNAMIC_RESOURCE_ALLOCATION, TOPOLOGY_AWARE_SCHEDULING,
                      FLAVOR_FUNGIBILITY, "AdmissionFairSharing", "MultiKueue"})


@dataclass(frozen=True)
class Dependency:
    """One check LoadAndValidateFeatureGates makes once the gates are set: `gate` on needs each of
    `needs` on; `detail`, when given, is the check's own words (else `GATE requires DEP to be enabled`)
    and `value` the bad value it prints."""

    gate: str
    needs: tuple[str, ...]
    detail: str = ""
    value: Any = None


@dataclass(frozen=True)
class GateTable:
    """A release's gates: on or off by default, and those locked to their default."""

    on: frozenset[str]
    off: frozenset[str]
    locked: frozenset[str] = frozenset()
    dependencies: tuple[Dependency, ...] = ()

    def known(self, name: str) -> bool:
        return name in self.on or name in self.off or name in SPECIAL

    def default(self, name: str) -> bool:
        return name in self.on


def _deps(*pairs: tuple[str, tuple[str, ...]]) -> tuple[Dependency, ...]:
    return tuple(Dependency(gate, needs) for gate, needs in pairs)


_TAS = "TopologyAwareScheduling"
_REPLACEMENT = "TASFailedNodeReplacement"
_PROFILE = Dependency("TASProfileMixed", (_TAS,), "cannot use a TAS profile with TAS disabled", 1)
_ELASTIC_TAS = (Dependency("ElasticJobsViaWorkloadSlicesWithTAS", ("ElasticJobsViaWorkloadSlices",),
                           "ElasticJobsViaWorkloadSlicesWithTAS requires ElasticJobsViaWorkloadSlices to be enabled"),
                Dependency("ElasticJobsViaWorkloadSlicesWithTAS", (_TAS,),
                           "ElasticJobsViaWorkloadSlicesWithTAS requires TopologyAwareScheduling to be enabled"))
_TAS_DEPS = _deps(("TASFailedNodeReplacement", (_TAS,)), ("TASFailedNodeReplacementFailFast", (_TAS, _REPLACEMENT)),
                  ("TASReplaceNodeOnPodTermination", (_TAS, _REPLACEMENT)),
                  ("TASReplaceNodeDueToNotReadyOverFixedTime", (_TAS, _REPLACEMENT)),
                  ("TASBalancedPlacement", (_TAS,)), ("TASReplaceNodeOnNodeTaints", (_TAS,)),
                  ("TASMultiLayerTopology", (_TAS,)))

GATES_0_17 = GateTable(
    on=frozenset({
        "AdmissionFairSharing", "AssignQueueLabelsForPods", "CleanupProvisioningRequestsOnEviction",
        "DeferRayServiceFinalizationForRedisCleanup", "FairSharingPreemptWithinNominal",
        "FairSharingPrioritizeNonBorrowing", "FlavorFungibility", "LocalQueueMetrics",
        "ManagedJobsNamespaceSelectorAlwaysRespected", "MultiKueue", "MultiKueueAdaptersForCustomJobs",
        "MultiKueueRedoAdmissionOnEvictionInWorker", "MultiKueueWaitForWorkloadAdmitted", "PartialAdmission",
        "PrioritySortingWithinCohort", "ReclaimablePods", "RemoveFinalizersWithStrictPatch",
        "SkipFinalizersForPodsSuspendedByParent", "TASCacheNodeMatchResults", "TASCachingRemainingResources",
        "TASFailedNodeReplacement", "TASFailedNodeReplacementFailFast", "TASProfileMixed",
        "TASRecomputeAssignmentWithinSchedulingCycle", "TASReplaceNodeDueToNotReadyOverFixedTime",
        "TASReplaceNodeOnNodeTaints", "TASReplaceNodeOnPodTermination", "TLSOptions", "TopologyAwareScheduling",
        "VectorizedResourceRequests", "VisibilityOnDemand",
        # GA, locked to true
        "HierarchicalCohorts", "LendingLimit", "LocalQueueDefaulting", "MultiKueueBatchJobWithManagedBy",
        "ObjectRetentionPolicies", "PropagateBatchJobLabelsToWorkload", "SanitizePodSets"}),
    off=frozenset({
        "AdmissionGatedBy", "CustomMetricLabels", "DRAExtendedResources", "DynamicResourceAllocation",
        "ElasticJobsViaWorkloadSlices", "ElasticJobsViaWorkloadSlicesWithTAS", "FailureRecoveryPolicy",
        "FastQuotaReleaseInPodIntegration", "FinishOrphanedWorkloads", "MultiKueueAllowInsecureKubeconfigs",
        "MultiKueueClusterProfile", "MultiKueueOrchestratedPreemption", "PriorityBoost",
        "RejectUpdatesToCQWithInvalidOnFlavors", "SchedulerLongRequeueInterval", "SchedulerTimestampPreemptionBuffer",
        "SchedulingEquivalenceHashing", "ShortWorkloadNames", "SkipReassignmentForPodOwnedWorkloads",
        "SparkApplicationIntegration", "TASBalancedPlacement", "TASHandleOverlappingFlavors", "TASMultiLayerTopology",
        "WorkloadIdentifierAnnotations", "WorkloadRequestUseMergePatch"}),
    locked=frozenset({"HierarchicalCohorts", "LendingLimit", "LocalQueueDefaulting", "MultiKueueBatchJobWithManagedBy",
                      "ObjectRetentionPolicies", "PropagateBatchJobLabelsToWorkload", "SanitizePodSets"}),
    dependencies=(_PROFILE, *_deps(("TASHandleOverlappingFlavors", (_TAS,))), *_TAS_DEPS, *_ELASTIC_TAS,
                  Dependency("DRAExtendedResources", ("DynamicResourceAllocation",),
                             "DRAExtendedResources requires DynamicResourceAllocation to be enabled")))

# v0.19.2: LocalQueueDefaulting, LendingLimit, SanitizePodSets, MultiKueueBatchJobWithManagedBy and the
# DRA gates of v0.17 are gone (their behaviour always on; DRA is KueueDRAIntegration's).
GATES_0_19 = GateTable(
    on=frozenset({
        "AdmissionFairSharing", "AdmissionGatedBy", "AssignQueueLabelsForPods", "CleanupProvisioningRequestsOnEviction",
        "DeferRayServiceFinalizationForRedisCleanup", "ElasticJobsViaWorkloadSlices", "FairSharingPreemptWithinNominal",
        "FairSharingPrioritizeNonBorrowing", "FinishOrphanedWorkloads", "FlavorFungibility",
        "FlavorFungibilityPreserveScanProgress", "KueueDRAIntegration", "KueueDRAIntegrationExtendedResource",
        "KueueDRAIntegrationPartitionableDevices", "KueueDRARejectWorkloadsWhenDRADisabled", "LWSImmutableGroupSize",
        "LocalQueueMetrics", "MetricForWorkloadCreationLatency", "MetricsForCohorts", "MultiKueue",
        "MultiKueueAdaptersForCustomJobs", "MultiKueueIncrementalDispatcherConfig",
        "MultiKueueIncrementalDispatcherRespectConfigOrder", "MultiKueueRemoteSpecSync", "PartialAdmission",
        "PodIntegrationValidateGroupOwner", "PrioritySortingWithinCohort", "QuotaCheckStrategy", "ReclaimablePods",
        "RemoveFinalizersWithStrictPatch", "SchedulingEquivalenceHashing", "SkipAncestorCheckForDeletedWorkloads",
        "SkipReassignmentForPodOwnedWorkloads", "TASAssignmentsEncodingByHostnamePrefix", "TASCacheNodeMatchResults",
        "TASCachingRemainingResources", "TASFailedNodeReplacement", "TASFailedNodeReplacementFailFast",
        "TASHandleOverlappingFlavors", "TASMultiLayerTopology", "TASProfileMixed",
        "TASRecomputeAssignmentWithinSchedulingCycle", "TASReplaceNodeOnNodeTaints", "TASReplaceNodeOnPodTermination",
        "TASValidateWorkloadSliceSize", "TLSOptions", "TopologyAwareScheduling", "ValidateRayAndSparkJobUpdates",
        "VectorizedResourceRequests", "VisibilityOnDemand", "WorkloadIdentifierAnnotations",
        "WorkloadValidateResourcesAreNonNegative", "WorkloadValidationForPodSetMetadata",
        # GA, locked to true
        "HierarchicalCohorts", "ManagedJobsNamespaceSelectorAlwaysRespected", "MultiKueueRedoAdmissionOnEvictionInWorker",
        "MultiKueueWaitForWorkloadAdmitted", "ObjectRetentionPolicies", "PropagateBatchJobLabelsToWorkload",
        "SkipFinalizersForPodsSuspendedByParent"}),
    off=frozenset({
        "ConcurrentAdmission", "CustomMetricLabels", "DisableWaitForPodsReady", "ElasticJobsViaWorkloadSlicesWithTAS",
        "FailureRecoveryPolicy", "FastQuotaReleaseInPodIntegration", "KueueDRAIntegrationConsumableCapacity",
        "MultiKueueClusterProfile", "MultiKueueKubeConfigPathValidation", "MultiKueueManagerQuotaAutomation",
        "MultiKueueOrchestratedPreemption", "PrioritizePreemptorWorkloads", "PriorityBoost",
        "RecomputeAssignmentUponPreemptionTargetsOverlap", "RejectUpdatesToCQWithInvalidOnFlavors",
        "SchedulerLibraryIntegration", "SchedulerLongRequeueInterval", "SchedulerTimestampPreemptionBuffer",
        "ShortWorkloadNames", "SparkApplicationIntegration", "TASBalancedPlacement", "TASCacheTopologyTree",
        "TASReplaceNodeDueToNotReadyOverFixedTime", "TASRespectNodeAffinityPreferred",
        "UnadmittedWorkloadsExplicitStatus", "UnadmittedWorkloadsObservability", "WorkloadPriorityClassDefaulting",
        "WorkloadRequestUseMergePatch",
        "MultiKueueAllowInsecureKubeconfigs"}),     # (deprecated, locked to false)
    locked=frozenset({"HierarchicalCohorts", "ManagedJobsNamespaceSelectorAlwaysRespected",
                      "MultiKueueRedoAdmissionOnEvictionInWorker", "MultiKueueWaitForWorkloadAdmitted",
                      "ObjectRetentionPolicies", "PropagateBatchJobLabelsToWorkload",
                      "SkipFinalizersForPodsSuspendedByParent", "MultiKueueAllowInsecureKubeconfigs"}),
    dependencies=(_PROFILE, *_deps(("TASHandleOverlappingFlavors", (_TAS,))), *_TAS_DEPS,
                  *_deps(("TASRespectNodeAffinityPreferred", (_TAS,)),
                         ("TASRecomputeAssignmentWithinSchedulingCycle", (_TAS,)),
                         ("UnadmittedWorkloadsExplicitStatus", ("UnadmittedWorkloadsObservability",))),
                  *_ELASTIC_TAS))


@dataclass(frozen=True)
class FeatureGates:
    """The gates a Kueue release runs with: the Configuration's `featureGates` (`given`, by name) over
    the release's defaults (`table`)."""

    table: GateTable = GATES_0_17
    given: tuple[tuple[str, bool], ...] = ()

    def enabled(self, name: str) -> bool:
        return dict(self.given).get(name, self.table.default(name))

    def not_modelled(self) -> tuple[str, ...]:
        """`featureGates.NAME` of each gate given away from its default whose effect kexplain does not
        model, unless it has none (`_inert`); AllAlpha and AllBeta flip every gate of their stage:
        not modelled either."""
        return tuple(f"{PATH}.{name}" for name, value in self.given
                     if name not in MODELLED and (name in SPECIAL or value != self.table.default(name))
                     and not self._inert(name))

    def _inert(self, name: str) -> bool:
        """A gate that has no effect: one it needs is off (a TAS gate with TopologyAwareScheduling off)."""
        return any(dep.gate == name and not all(self.enabled(n) for n in dep.needs) for dep in self.table.dependencies)


def read_gates(raw: Mapping[str, Any] | None, table: GateTable) -> FeatureGates:
    """The Configuration's featureGates (decoded already: a map of bools) over `table`."""
    return FeatureGates(table, tuple(sorted((str(k), v is True) for k, v in (raw or {}).items())))


def validate_gates(raw: Mapping[str, Any] | None, table: GateTable) -> list[FieldError]:
    """LoadAndValidateFeatureGates for a Configuration's map: SetFromMap's refusals (a name no gate
    has, a locked gate set away from its value; Go's map order: sorted here) as one error on the
    whole map; else each dependency a gate set on lacks."""
    given = {str(k): v is True for k, v in (raw or {}).items()}
    refused = [f"unrecognized feature gate: {k}" if not table.known(k) else
               f"cannot set feature gate {k} to {str(v).lower()}, feature is locked to {str(not v).lower()}"
               for k, v in sorted(given.items()) if not table.known(k) or (k in table.locked and v != table.default(k))]
    if refused:
        detail = refused[0] if len(refused) == 1 else f"[{', '.join(refused)}]"
        return [invalid_typed(PATH, Raw(go_json(given, sort_keys=True)), detail)]
    gates = FeatureGates(table, tuple(given.items()))
    errors: list[FieldError] = []
    for dep in table.dependencies:
        if not gates.enabled(dep.gate):
            continue
        for need in dep.needs:
            if not gates.enabled(need):
                errors.append(invalid(PATH, dep.value if dep.value is not None else dep.gate,
                                      dep.detail or f"{dep.gate} requires {need} to be enabled"))
    return errors
