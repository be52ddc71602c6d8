"""What to explain and how: the two settings objects every caller builds explicitly.

`Request` is what the command line gives: the POD file, the cluster, the configuration and
how to read them. `RunOptions` is how each scheduling cycle runs and what its trace records
beyond the scheduler's own keys; nothing else decides it (no ambient state), so two callers
that pass the same options get the same trace.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from kexplain.features import DEFAULT as DEFAULT_VERSION, KubeVersion, resolve
from kexplain.load.limits import DEFAULT_MAX_BYTES, DEFAULT_MAX_OBJECTS


@dataclass(frozen=True)
class RunOptions:
    """How to run one scheduling cycle, and which extra trace keys to record.

    `details`: per node facts (zone, allocatable and requested resources) under the extra key
    `details`, and for the nodes of `explain_nodes` every plugin's `explain` facts;
    `unexamined`: the nodes the search never reached, evaluated under the key `unexamined`."""

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
        """These options without the extra trace keys: for re-runs nobody reads in full
        (suggestions verified by running the cycle again)."""
        return replace(self, details=False, explain_nodes=frozenset(), unexamined=False)


@dataclass(frozen=True)
class VersionChoice:
    """The Kubernetes version as the command line asks for it, settled once the cluster is read:
    `given` (--kubernetes-version, else $KEXPLAIN_KUBERNETES_VERSION) wins over the version the
    cluster reports (a live API server's /version, the one a snapshot recorded), which wins over
    the default; `feature_gates` (--feature-gates) change that version's gates."""

    given: str | None = None
    feature_gates: str | None = None

    def settle(self, reported: str | None = None) -> tuple[KubeVersion, list[str]]:
        """The version to follow and the warnings to say (VersionError, FeatureGateError)."""
        return resolve(self.given, None, self.feature_gates, reported)


@dataclass(frozen=True)
class Request:
    """What to explain, as the command line gives it: the POD file, the cluster objects
    (--nodes), the scheduler configuration, how to read them, and `run`, how to run."""

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
    run: RunOptions = field(default_factory=RunOptions)
    kube: KubeVersion = DEFAULT_VERSION   # the Kubernetes version followed: scheduler, gates, API server
    # None: follow `kube`. Else the version is settled from this choice and the version a
    # snapshot in --nodes recorded (`kexplain.load.live.recorded_version`), and `kube` is unused.
    version: VersionChoice | None = None
