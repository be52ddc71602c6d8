"""What to explain (`Request`) and how (`RunOptions`): explicit settings objects, no ambient state."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from kexplain.features import DEFAULT as DEFAULT_VERSION, KubeVersion, resolve
from kexplain.load.limits import DEFAULT_MAX_BYTES, DEFAULT_MAX_OBJECTS


@dataclass(frozen=True)
class RunOptions:
    """How to run one scheduling cycle, and which extra trace keys (`details`, `unexamined`) to record."""

    start_index: int = 0          # the scheduler's round-robin position before this pod
    preemption: bool = True       # run DefaultPreemption's dry run when no node fits
    preemption_offset: int = 0    # where DefaultPreemption's candidate search starts
    filter_all: bool = True       # record every Filter plugin per node (trace key filterAll)
    details: bool = False
    explain_nodes: frozenset[str] = frozenset()
    unexamined: bool = False

    def at(self, start_index: int) -> "RunOptions":
        """These options from another round-robin position (the next pod of a batch, a copy)."""
        return self if start_index == self.start_index else replace(self, start_index=start_index)

    def plain(self) -> "RunOptions":
        """These options without extra trace keys, for re-runs nobody reads in full (verified suggestions)."""
        return replace(self, details=False, explain_nodes=frozenset(), unexamined=False)


@dataclass(frozen=True)
class VersionChoice:
    """The Kubernetes version asked for: --kubernetes-version over the cluster's over the default."""

    given: str | None = None
    feature_gates: str | None = None
    # `--admission-plugins` (or its environment variable), with where it was said; None: recognised
    # from the cluster's nodes as it is admitted (`admission.providers`)
    admission_plugins: tuple[str, str] | None = None

    def settle(self, reported: str | None = None) -> tuple[KubeVersion, list[str]]:
        """The version to follow and the warnings to say (VersionError, FeatureGateError,
        AdmissionPluginsError)."""
        return resolve(self.given, None, self.feature_gates, reported, self.admission_plugins)


@dataclass(frozen=True)
class Request:
    """What to explain, as the command line gives it, and `run`, how to run it."""

    pod_path: str
    node_paths: tuple[str, ...] = ()
    config_path: str | None = None
    stored: bool = False          # objects were already stored by an API server: no admission
    max_bytes: int = DEFAULT_MAX_BYTES
    max_objects: int = DEFAULT_MAX_OBJECTS   # per load (the POD file, --nodes, the configuration)
    validate: str = "strict"      # kubectl's --validate: unknown fields refused, warned of (warn) or not (ignore)
    namespace: str | None = None  # -n: the POD file's namespace-less objects go in it (`kubectl apply -n`)
    replicas: int | None = None   # --replicas: copies of every Pod or workload (None: their own counts)
    node_groups: str | None = None        # --node-groups: the Cluster Autoscaler's node groups
    autoscaler_config: str | None = None  # --autoscaler-config: CA's settings
    stats: str | None = None      # --stats: an evicted pod's node's stats Summary (its ranking now)
    kubelet_config: str | None = None     # --kubelet-config: that node's kubelet's configuration
    run: RunOptions = field(default_factory=RunOptions)
    kube: KubeVersion = DEFAULT_VERSION   # the Kubernetes version followed: scheduler, gates, API server
    # None: follow `kube`; else the version is settled from this choice and a snapshot's recorded one.
    version: VersionChoice | None = None
