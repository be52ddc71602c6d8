"""CA's settings for one loop: `--autoscaler-config FILE` (params.yaml) over CA's flag defaults.

Every key of the file but `mode` is a cluster-autoscaler flag: the named keys (`expander`,
`maxNodesTotal`, `coresTotal`, `memoryTotal`, `balanceSimilarNodeGroups`) and `flags:` (any flag
by its name; a list for a repeated flag). `FLAGS` is CA's flag set (config/flags/flags.go at
openshift/kubernetes-autoscaler 70920d3c6f5f) with each flag's kind and default; a flag CA does
not have is an input error naming it. `Settings.to_json` is the document's `autoscaler` key.

Every flag kexplain accepts is applied as CA applies it. Most change the loop (docs/autoscaler.md
says how); those in `NO_EFFECT` CA reads too, but one first loop decides the same whatever they
say (the process, its clients and metrics, later loops' actuation and backoffs, wall-clock
budgets kexplain never runs out of, other cloud providers). A flag kexplain cannot apply is
refused as an unknown one is: `REFUSED` whenever given, `ONLY` with any value but the one
kexplain runs. Values CA refuses at start-up (a bad `--expander`, `--estimator`, `--gpu-total`,
`<min>:<max>`, `--predicate-parallelism` below 1, `--enable-dynamic-resource-allocation=false`,
`--bypassed-scheduler-names` outside a non-empty `--allowed-scheduler-names`, a
`--drain-priority-config` CA cannot parse) are refused here, in CA's words, whether or not the loop
would reach them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from kexplain.autoscaler.cloudprovider.provider import unknown_name
from kexplain.autoscaler.resourcelimits import ResourceLimits
from kexplain.config._decode import parse_duration
from kexplain.errors import InputError, Source
from kexplain.load.manifests import read_settings_document

SOURCE = "k8s.io/autoscaler/cluster-autoscaler (openshift/kubernetes-autoscaler 70920d3c6f5f)"
KUBERNETES = "k8s.io/kubernetes v1.36.2"
GIB = 1 << 30
DEFAULT_MAX_CORES = 5000 * 64               # config.DefaultMaxClusterCores
DEFAULT_MAX_MEMORY_GIB = 5000 * 64 * 20     # config.DefaultMaxClusterMemory

# name -> (kind, default). kinds: bool, int, float, duration, string, multi (repeatable), slice.
FLAGS: dict[str, tuple[str, Any]] = {
    "cluster-name": ("string", ""), "address": ("string", ":8085"), "kubernetes": ("string", ""),
    "kubeconfig": ("string", ""), "kube-api-content-type": ("string", "application/vnd.kubernetes.protobuf"),
    "kube-client-burst": ("int", 10), "kube-client-qps": ("float", 5.0), "cloud-config": ("string", ""),
    "namespace": ("string", "kube-system"), "enforce-node-group-min-size": ("bool", False),
    "scale-down-enabled": ("bool", True), "scale-down-unready-enabled": ("bool", True),
    "scale-down-delay-after-add": ("duration", 600.0), "scale-down-delay-type-local": ("bool", False),
    "scale-down-delay-after-delete": ("duration", 0.0), "scale-down-delay-after-failure": ("duration", 180.0),
    "scale-down-unneeded-time": ("duration", 600.0), "scale-down-unready-time": ("duration", 1200.0),
    "scale-down-utilization-threshold": ("float", 0.5), "scale-down-gpu-utilization-threshold": ("float", 0.5),
    "scale-down-non-empty-candidates-count": ("int", 30), "scale-down-candidates-pool-ratio": ("float", 0.1),
    "scale-down-candidates-pool-min-count": ("int", 50), "scheduler-config-file": ("string", ""),
    "node-deletion-delay-timeout": ("duration", 120.0), "node-deletion-batcher-interval": ("duration", 0.0),
    "scan-interval": ("duration", 10.0), "max-nodes-total": ("int", 0),
    "cores-total": ("string", f"0:{DEFAULT_MAX_CORES}"), "memory-total": ("string", f"0:{DEFAULT_MAX_MEMORY_GIB}"),
    "gpu-total": ("multi", ()), "cloud-provider": ("string", "gce"), "max-bulk-soft-taint-count": ("int", 10),
    "max-bulk-soft-taint-time": ("duration", 3.0), "max-graceful-termination-sec": ("int", 600),
    "max-total-unready-percentage": ("float", 45.0), "ok-total-unready-count": ("int", 3),
    "scale-up-from-zero": ("bool", True), "parallel-scale-up": ("bool", False), "salvo-scale-up": ("bool", False),
    "salvo-scale-up-budget": ("duration", 60.0), "max-node-provision-time": ("duration", 900.0),
    "max-node-startup-time": ("duration", 900.0), "max-pod-eviction-time": ("duration", 120.0),
    "nodes": ("multi", ()), "node-group-auto-discovery": ("multi", ()), "estimator": ("string", "binpacking"),
    "expander": ("string", "least-waste"), "grpc-expander-cert": ("string", ""), "grpc-expander-url": ("string", ""),
    "ignore-daemonsets-utilization": ("bool", False), "ignore-mirror-pods-utilization": ("bool", False),
    "write-status-configmap": ("bool", True), "status-config-map-name": ("string", "cluster-autoscaler-status"),
    "max-inactivity": ("duration", 600.0), "max-binpacking-time": ("duration", 300.0),
    "max-failing-time": ("duration", 900.0), "max-startup-time": ("duration", 1200.0),
    "balance-similar-node-groups": ("bool", False), "unremovable-node-recheck-timeout": ("duration", 300.0),
    "expendable-pods-priority-cutoff": ("int", -10), "regional": ("bool", False),
    "new-pod-scale-up-delay": ("duration", 0.0), "ignore-taint": ("multi", ()), "startup-taint": ("multi", ()),
    "startup-taint-prefix": ("multi", ()), "status-taint": ("multi", ()),
    "balancing-ignore-label": ("multi", ()), "balancing-label": ("multi", ()),
    "aws-use-static-instance-list": ("bool", False), "scale-from-unschedulable": ("bool", False),
    "gce-concurrent-refreshes": ("int", 1), "gce-mig-instances-min-refresh-wait-time": ("duration", 5.0),
    "bulk-mig-instances-listing-enabled": ("bool", False), "profiling": ("bool", False),
    "clusterapi-cloud-config-authoritative": ("bool", False), "cordon-node-before-terminating": ("bool", True),
    "daemonset-eviction-for-empty-nodes": ("bool", False), "daemonset-eviction-for-occupied-nodes": ("bool", True),
    "user-agent": ("string", "cluster-autoscaler"), "emit-per-nodegroup-metrics": ("bool", False),
    "debugging-snapshot-enabled": ("bool", False), "node-info-cache-expire-time": ("duration", 87600 * 3600.0),
    "initial-node-group-backoff-duration": ("duration", 300.0), "max-node-group-backoff-duration": ("duration", 1800.0),
    "node-group-backoff-reset-timeout": ("duration", 10800.0), "max-scale-down-parallelism": ("int", 10),
    "max-drain-parallelism": ("int", 1), "record-duplicated-events": ("bool", False),
    "max-nodes-per-scaleup": ("int", 1000), "max-nodegroup-binpacking-duration": ("duration", 10.0),
    "fastpath-binpacking-enabled": ("bool", False), "skip-nodes-with-system-pods": ("bool", True),
    "skip-nodes-with-local-storage": ("bool", True), "skip-nodes-with-custom-controller-pods": ("bool", True),
    "min-replica-count": ("int", 0), "blocking-system-pod-distruption-timeout": ("duration", 3600.0),
    "node-delete-delay-after-taint": ("duration", 5.0), "scale-down-simulation-timeout": ("duration", 30.0),
    "memory-difference-ratio": ("float", 0.015), "max-free-difference-ratio": ("float", 0.05),
    "max-allocatable-difference-ratio": ("float", 0.05), "force-ds": ("bool", False),
    "dynamic-node-delete-delay-after-taint-enabled": ("bool", False), "bypassed-scheduler-names": ("slice", ()),
    "allowed-scheduler-names": ("slice", ()), "drain-priority-config": ("string", ""),
    "enable-provisioning-requests": ("bool", False), "provisioning-request-initial-backoff-time": ("duration", 60.0),
    "provisioning-request-max-backoff-time": ("duration", 600.0),
    "provisioning-request-max-backoff-cache-size": ("int", 1000), "frequent-loops-enabled": ("bool", True),
    "async-node-groups": ("bool", False), "enable-proactive-scaleup": ("bool", False),
    "pod-injection-limit": ("int", 5000), "check-capacity-batch-processing": ("bool", False),
    "check-capacity-provisioning-request-max-batch-size": ("int", 10),
    "check-capacity-provisioning-request-batch-timebox": ("duration", 10.0),
    "force-delete-unregistered-nodes": ("bool", False), "force-delete-failed-nodes": ("bool", False),
    "enable-dynamic-resource-allocation": ("bool", True), "enable-csi-node-aware-scheduling": ("bool", False),
    "predicate-parallelism": ("int", 4), "check-capacity-processor-instance": ("string", ""),
    "node-deletion-candidate-ttl": ("duration", 0.0), "capacity-buffer-controller-enabled": ("bool", False),
    "capacity-buffer-pod-injection-enabled": ("bool", False), "capacity-buffer-pod-dry-run-enabled": ("bool", True),
    "node-removal-latency-tracking-enabled": ("bool", False), "max-node-skip-eval-time-tracker-enabled": ("bool", False),
    "capacity-quotas-enabled": ("bool", False), "scaleup-simulation-for-skipped-node-groups-enabled": ("bool", False),
    "cluster-snapshot-parallelism": ("int", 16), "v": ("int", 0),
}
# CA reads these, but one first loop decides the same whatever they say: why, per flag
NO_EFFECT: dict[str, str] = {
    **dict.fromkeys(("cluster-name", "address", "kubernetes", "kubeconfig", "kube-api-content-type",
                     "kube-client-burst", "kube-client-qps", "user-agent", "profiling", "v", "max-inactivity",
                     "max-failing-time", "max-startup-time", "emit-per-nodegroup-metrics", "debugging-snapshot-enabled",
                     "node-removal-latency-tracking-enabled", "max-node-skip-eval-time-tracker-enabled",
                     "record-duplicated-events", "frequent-loops-enabled", "scan-interval", "cluster-snapshot-parallelism"),
                    "the process, its API clients, metrics and loop timing"),
    **dict.fromkeys(("node-deletion-delay-timeout", "node-deletion-batcher-interval", "max-bulk-soft-taint-time",
                     "max-graceful-termination-sec", "drain-priority-config", "max-pod-eviction-time",
                     "node-delete-delay-after-taint", "dynamic-node-delete-delay-after-taint-enabled",
                     "cordon-node-before-terminating", "daemonset-eviction-for-empty-nodes",
                     "daemonset-eviction-for-occupied-nodes", "force-delete-unregistered-nodes",
                     "force-delete-failed-nodes", "max-node-provision-time", "unremovable-node-recheck-timeout",
                     "node-info-cache-expire-time", "initial-node-group-backoff-duration",
                     "max-node-group-backoff-duration", "node-group-backoff-reset-timeout"),
                    "how later loops drain and delete nodes, time out and back off (a first loop has none)"),
    **dict.fromkeys(("max-binpacking-time", "max-nodegroup-binpacking-duration", "scale-down-simulation-timeout"),
                    "a wall-clock budget, which kexplain never runs out of"),
    **dict.fromkeys(("regional", "aws-use-static-instance-list", "gce-concurrent-refreshes",
                     "gce-mig-instances-min-refresh-wait-time", "bulk-mig-instances-listing-enabled",
                     "clusterapi-cloud-config-authoritative", "grpc-expander-cert", "grpc-expander-url"),
                    "another cloud provider's, or the grpc expander's, which this loop does not use"),
    **dict.fromkeys(("provisioning-request-initial-backoff-time", "provisioning-request-max-backoff-time",
                     "provisioning-request-max-backoff-cache-size", "check-capacity-batch-processing",
                     "check-capacity-provisioning-request-max-batch-size",
                     "check-capacity-provisioning-request-batch-timebox", "check-capacity-processor-instance",
                     "pod-injection-limit", "capacity-buffer-pod-dry-run-enabled", "salvo-scale-up-budget"),
                    "a feature that is off (provisioning requests, proactive scale-up, capacity buffers, salvo)"),
    **dict.fromkeys(("scale-down-non-empty-candidates-count", "scale-down-candidates-pool-ratio",
                     "scale-down-candidates-pool-min-count"), "no longer read by this CA"),
    "parallel-scale-up": "the same scale-ups; CA then records the groups' ScaledUpGroup events in any order",
}
# kexplain cannot apply these: refused whenever given
REFUSED: dict[str, str] = {
    "cloud-config": "kexplain reads no cloud provider config; give the node groups with --node-groups",
    "nodes": "the node groups come from --node-groups",
    "node-group-auto-discovery": "the node groups come from --node-groups (or are found in the cluster)",
    "scheduler-config-file": "kexplain runs the default scheduler profile CA embeds",
}
# kexplain runs these with one value only: any other is refused
ONLY: dict[str, tuple[Any, str]] = {
    "salvo-scale-up": (False, "salvo scale-up is not modelled"),
    "async-node-groups": (False, "node groups created asynchronously are not modelled"),
    "enable-provisioning-requests": (False, "ProvisioningRequests are not modelled"),
    "enable-proactive-scaleup": (False, "proactive scale-up (pod injection) is not modelled"),
    "capacity-buffer-controller-enabled": (False, "capacity buffers are not modelled"),
    "capacity-buffer-pod-injection-enabled": (False, "capacity buffers are not modelled"),
    "capacity-quotas-enabled": (False, "CapacityQuota objects are not modelled"),
    "fastpath-binpacking-enabled": (False, "the estimator's fast path is not modelled"),
}
ESTIMATORS = ("binpacking",)        # estimator.AvailableEstimators
# params.yaml's named keys and the flags they set
NAMED = {"expander": "expander", "maxNodesTotal": "max-nodes-total", "coresTotal": "cores-total",
         "memoryTotal": "memory-total", "balanceSimilarNodeGroups": "balance-similar-node-groups"}
MODES = ("scaleup", "scaledown")


@dataclass(frozen=True)
class Settings:
    """The loop's mode and every CA flag in force (`values`: typed, defaults included; `given`:
    what params.yaml set, as strings, by flag name)."""

    mode: str = "scaleup"
    given: Mapping[str, str] = field(default_factory=dict)
    values: Mapping[str, Any] = field(default_factory=dict)

    def flag(self, name: str) -> Any:
        """A flag's value (its default unless given): bool, int, float, seconds, str or a tuple."""
        if name in self.values:
            return self.values[name]
        return FLAGS[name][1]

    @property
    def expander(self) -> str:
        return self.flag("expander")

    @property
    def max_nodes_total(self) -> int:
        return self.flag("max-nodes-total")

    @property
    def cores_total(self) -> tuple[int, int]:
        return _min_max(self.flag("cores-total"), "cores-total")

    @property
    def memory_total(self) -> tuple[int, int]:
        """(min, max) bytes: the flag is in GiB."""
        low, high = _min_max(self.flag("memory-total"), "memory-total")
        return low * GIB, high * GIB

    @property
    def balance_similar_node_groups(self) -> bool:
        return self.flag("balance-similar-node-groups")

    def resource_limits(self) -> ResourceLimits:
        """The limits of --cores-total, --memory-total and --gpu-total."""
        return ResourceLimits.from_flags(self.flag("cores-total"), self.flag("memory-total"),
                                         tuple(self.flag("gpu-total")))

    @property
    def predicate_parallelism(self) -> int:
        """1 unless given: the cases ran with one worker (the earliest node always wins)."""
        return self.values.get("predicate-parallelism", 1)

    def to_json(self) -> dict[str, Any]:
        low, high = self.memory_total
        cores = self.cores_total
        return {"source": SOURCE, "kubernetes": KUBERNETES, "mode": self.mode, "expander": self.expander,
                "maxNodesTotal": self.max_nodes_total, "coresTotal": f"{cores[0]}:{cores[1]}",
                "memoryTotal": f"{low}:{high}", "balanceSimilarNodeGroups": self.balance_similar_node_groups,
                "predicateParallelism": self.predicate_parallelism, "flags": dict(self.given)}


def _min_max(text: str, name: str, src: Source | None = None) -> tuple[int, int]:
    parts = text.split(":")
    try:
        if len(parts) != 2:
            raise ValueError
        low, high = int(parts[0]), int(parts[1])
    except ValueError:
        raise InputError(f"{name}: expected <min>:<max> (integers), found {text!r}", source=src) from None
    if low < 0 or high < low:
        raise InputError(f"{name}: expected 0 <= min <= max, found {text!r}", source=src)
    return low, high


def read_settings(path: str | None, max_bytes: int | None = None) -> Settings:
    """The settings of `path` (None: CA's defaults, scale-up mode)."""
    if path is None:
        return Settings()
    return parse_settings(*read_settings_document(path, "CA settings", max_bytes))


def parse_settings(doc: Any, src: Source) -> Settings:
    """The settings of one params.yaml document."""
    if not isinstance(doc, dict):
        raise InputError("expected a mapping of CA settings (mode, expander, maxNodesTotal, coresTotal, "
                         "memoryTotal, balanceSimilarNodeGroups, flags)", source=src)
    accepted = ("mode", *NAMED, "flags")
    unknown = sorted(set(doc) - set(accepted))
    if unknown:
        raise InputError(f"unknown key {unknown[0]!r} (accepted: {', '.join(accepted)}; any other CA flag "
                         "goes under flags: by its name)", source=src)
    mode = doc.get("mode", "scaleup")
    if mode not in MODES:
        raise InputError(f"mode: expected scaleup or scaledown, found {mode!r}", source=src)
    raw: dict[str, Any] = {}
    for key, flag_name in NAMED.items():
        if doc.get(key) is not None:
            raw[flag_name] = doc[key]
    flags = doc.get("flags") or {}
    if not isinstance(flags, dict):
        raise InputError("flags: expected a mapping of CA flag names to values", source=src)
    for name, value in flags.items():
        name = str(name).lstrip("-")
        if name in raw:
            raise InputError(f"flags.{name}: set twice (also by its named key)", source=src)
        raw[name] = value
    given: dict[str, str] = {}
    values: dict[str, Any] = {}
    for name, value in raw.items():
        if name not in FLAGS:
            raise InputError(f"flags.{name}: cluster-autoscaler has no flag --{name}", source=src)
        given[name], values[name] = _value(name, value, src)
    for name in given:
        if name == "cloud-provider":
            wrong = unknown_name(values[name])
            if wrong:
                raise InputError(f"flags.{name}: {wrong}", source=src)
        if name in REFUSED:
            raise InputError(f"flags.{name}: kexplain cannot apply --{name}: {REFUSED[name]}", source=src)
        if name in ONLY and values[name] != ONLY[name][0]:
            raise InputError(f"flags.{name}: kexplain cannot apply --{name}={given[name]}: {ONLY[name][1]} "
                             f"(only {_text(ONLY[name][0])})", source=src)
    settings = Settings(mode, given, values)
    _check_startup(settings, src)
    return settings


def _check_startup(settings: Settings, src: Source) -> None:
    """What CA refuses when it starts, whether or not a loop would reach it."""
    # lazy: the expanders load the priority expander's RE2 through kexplain.cel (about 0.1 s), and
    # this module is read by every start-up of the command line (docs/development.md, "Lazy imports")
    from kexplain.autoscaler.expander.factory import build
    settings.cores_total, settings.memory_total    # a bad <min>:<max>
    settings.resource_limits()                      # a bad --gpu-total (InputError naming the flag)
    if settings.predicate_parallelism < 1:
        raise InputError("predicate-parallelism: Invalid value for --predicate-parallelism flag: "
                         f"{settings.predicate_parallelism}", source=src)
    if not settings.flag("enable-dynamic-resource-allocation"):     # CA runs DRA, as kexplain's scheduler does
        raise InputError("enable-dynamic-resource-allocation: --enable-dynamic-resource-allocation flag must be "
                         "true: false", source=src)
    allowed = settings.flag("allowed-scheduler-names")
    missing = [name for name in settings.flag("bypassed-scheduler-names") if allowed and name not in allowed]
    if missing:         # parseAllowedSchedulers (CA names one of them, in Go's map order)
        raise InputError("bypassed-scheduler-names: Invalid configuration. --bypassed-scheduler-names should be a "
                         f"subset of --allowed-scheduler-names. {missing[0]} not included in "
                         "--allowed-scheduler-names", source=src)
    if settings.flag("estimator") not in ESTIMATORS:
        raise InputError(f"estimator: unknown estimator: {settings.flag('estimator')} "
                         f"(accepted: {', '.join(ESTIMATORS)})", source=src)
    build(settings.expander, None, source=src, field="expander")
    if "drain-priority-config" in settings.given and "max-graceful-termination-sec" in settings.given:
        raise InputError("Invalid configuration, could not use --drain-priority-config together with "
                         "--max-graceful-termination-sec", source=src)
    drain = settings.given.get("drain-priority-config")
    if drain is not None and not _priority_grace_periods(drain):
        raise InputError("Invalid configuration, parsing --drain-priority-config", source=src)


def _priority_grace_periods(text: str) -> list[tuple[int, int]]:
    """parseShutdownGracePeriodsAndPriorities: `priority:seconds` pairs joined by `,`, each an
    integer as Go's strconv.Atoi reads it; none (CA's empty list) when any pair is not."""
    pairs = []
    for item in text.split(",") if text else ():
        parts = item.split(":")
        if len(parts) != 2 or not all(_GO_INT.fullmatch(x) and abs(int(x)) < 1 << 63 for x in parts):
            return []
        pairs.append((int(parts[0]), int(parts[1])))
    return pairs


_GO_INT = re.compile(r"[+-]?[0-9]+")


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _value(name: str, value: Any, src: Source) -> tuple[str, Any]:
    """A flag's value as given (a string, a repeated flag's values joined by `,`) and typed."""
    kind = FLAGS[name][0]
    if kind in ("multi", "slice"):
        items = value if isinstance(value, list) else [value]
        texts = [_text(v) for v in items]
        if kind == "slice":
            texts = [t for text in texts for t in text.split(",") if t]
        return ",".join(texts), tuple(texts)
    if isinstance(value, (list, dict)):
        raise InputError(f"flags.{name}: expected one value, found {type(value).__name__}", source=src)
    text = _text(value)
    bad = InputError(f"flags.{name}: expected {_KIND_WORDS[kind]}, found {text!r}", source=src)
    if kind == "bool":
        lowered = text.lower()
        if lowered in ("true", "1", "t"):
            return text, True
        if lowered in ("false", "0", "f"):
            return text, False
        raise bad
    if kind == "int":
        try:
            return text, int(text)
        except ValueError:
            raise bad from None
    if kind == "float":
        try:
            return text, float(text)
        except ValueError:
            raise bad from None
    if kind == "duration":
        nanos = parse_duration(text)
        if nanos is None:
            raise bad
        return text, nanos / 1e9
    if name in ("cores-total", "memory-total"):
        _min_max(text, name, src)
    return text, text


_KIND_WORDS = {"bool": "true or false", "int": "an integer", "float": "a number",
               "duration": "a duration such as 10m or 0s", "string": "a string"}
