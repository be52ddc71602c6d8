"""The settings scale-down reads, from CA's flags and each group's own options.

`ScaleDownConfig` gathers the flags (CA's defaults unless params.yaml sets them); the per-group
values follow CA's NodeGroupConfigProcessor: a group's option when it sets one, else the flag.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kexplain.autoscaler.cloudprovider.provider import TEST, CloudProvider
from kexplain.autoscaler.nodegroups import NodeGroup
from kexplain.autoscaler.params import Settings
from kexplain.autoscaler.resourcelimits import ResourceLimits
from kexplain.autoscaler.scaledown.drainability import DeleteOptions

NS = 10**9


@dataclass(frozen=True)
class ScaleDownConfig:
    """Scale-down's flags (times in nanoseconds)."""

    utilization_threshold: float = 0.5
    gpu_utilization_threshold: float = 0.5
    unneeded_time_ns: int = 600 * NS
    unready_time_ns: int = 1200 * NS
    ignore_daemonsets_utilization: bool = False
    ignore_mirror_pods_utilization: bool = False
    scale_down_unready_enabled: bool = True
    delay_after_add_ns: int = 600 * NS
    delay_after_delete_ns: int = 0
    delay_after_failure_ns: int = 180 * NS
    delay_type_local: bool = False
    max_scale_down_parallelism: int = 10
    max_drain_parallelism: int = 1
    deletion_candidate_ttl_ns: int = 0      # --node-deletion-candidate-ttl (0: marks not read back)
    limits: ResourceLimits = field(default_factory=ResourceLimits)   # their minimums hold scale-down
    delete_options: DeleteOptions = field(default_factory=DeleteOptions)
    provider: CloudProvider = TEST      # whose GPU label makes a GPU node (GPU utilization and threshold)

    @classmethod
    def from_settings(cls, settings: Settings, provider: CloudProvider = TEST) -> "ScaleDownConfig":
        flag = settings.flag

        def ns(name: str) -> int:
            return round(flag(name) * NS)

        return cls(
            utilization_threshold=flag("scale-down-utilization-threshold"),
            gpu_utilization_threshold=flag("scale-down-gpu-utilization-threshold"),
            unneeded_time_ns=ns("scale-down-unneeded-time"), unready_time_ns=ns("scale-down-unready-time"),
            ignore_daemonsets_utilization=flag("ignore-daemonsets-utilization"),
            ignore_mirror_pods_utilization=flag("ignore-mirror-pods-utilization"),
            scale_down_unready_enabled=flag("scale-down-unready-enabled"),
            delay_after_add_ns=ns("scale-down-delay-after-add"),
            delay_after_delete_ns=ns("scale-down-delay-after-delete"),
            delay_after_failure_ns=ns("scale-down-delay-after-failure"),
            delay_type_local=flag("scale-down-delay-type-local"),
            max_scale_down_parallelism=flag("max-scale-down-parallelism"),
            max_drain_parallelism=flag("max-drain-parallelism"),
            deletion_candidate_ttl_ns=ns("node-deletion-candidate-ttl"),
            limits=settings.resource_limits(), provider=provider,
            delete_options=DeleteOptions(
                skip_nodes_with_system_pods=flag("skip-nodes-with-system-pods"),
                skip_nodes_with_local_storage=flag("skip-nodes-with-local-storage"),
                skip_nodes_with_custom_controller_pods=flag("skip-nodes-with-custom-controller-pods"),
                min_replica_count=flag("min-replica-count"),
                bsp_disruption_timeout_ns=ns("blocking-system-pod-distruption-timeout")))

    def in_cooldown(self, scaled_up: bool, forbidden: bool) -> bool:
        """isScaleDownInCooldown in a first loop: scale-down forbidden (pods too new) or, unless delays are per
        group, a delay not over (CA starts with its last scale-up, deletion and failure an hour ago)."""
        if self.delay_type_local:
            return forbidden
        hour = 3600 * NS
        since_up = 0 if scaled_up else hour
        return (forbidden or self.delay_after_add_ns > since_up or self.delay_after_delete_ns > hour
                or self.delay_after_failure_ns > hour)

    # -- per group (NodeGroupConfigProcessor) --------------------------------------------
    def threshold(self, group: NodeGroup) -> float:
        own = group.options.scale_down_utilization_threshold
        return self.utilization_threshold if own is None else own

    def gpu_threshold(self, group: NodeGroup) -> float:
        own = group.options.scale_down_gpu_utilization_threshold
        return self.gpu_utilization_threshold if own is None else own

    def unneeded_time_ns_for(self, group: NodeGroup) -> int:
        own = group.options.scale_down_unneeded_time
        return self.unneeded_time_ns if own is None else round(own * NS)

    def ignore_daemonsets(self, group: NodeGroup) -> bool:
        own = group.options.ignore_daemonsets_utilization
        return self.ignore_daemonsets_utilization if own is None else own
