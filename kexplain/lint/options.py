"""What one `kexplain lint` run is asked: the paths, the pool, the version checked against and the
checks' settings (the CLI's flags, as `LintOptions`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from kexplain.features import DEFAULT as DEFAULT_VERSION, KubeVersion
from kexplain.lint.rule import RuleChoice
from kexplain.load.limits import DEFAULT_MAX_BYTES

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.explain.request import VersionChoice


@dataclass(frozen=True)
class LintOptions:
    paths: tuple[str, ...]
    node_paths: tuple[str, ...] = ()
    kube: KubeVersion = DEFAULT_VERSION   # the version checked against: its schemas, API server and scheduler
    k8s_version: str | None = None    # schemas of another minor than `kube`'s (the deprecated --k8s-version)
    validate: str = "strict"          # kubectl's --validate: unknown fields are errors, warnings (warn) or ignored
    schema_dirs: tuple[str, ...] = ()
    config_path: str | None = None
    stored: bool = False              # the pool was read from an API server: no admission for it
    preemption: bool = True
    max_bytes: int = DEFAULT_MAX_BYTES
    explain: bool = False             # keep each scheduled object's traces, with every node's facts (--html)
    node_groups: str | None = None    # --node-groups: the Cluster Autoscaler's (rule no-node-group)
    autoscaler_config: str | None = None   # --autoscaler-config: CA's settings
    namespace: str | None = None      # -n: the set's namespace-less objects go in it (`kubectl apply -n`)
    # None: check against `kube`. Else the version is settled from this choice and the version a
    # snapshot in --nodes recorded (as `kexplain POD --nodes SNAPSHOT` settles it), and `kube`
    # becomes that version once the pool is read.
    version: "VersionChoice | None" = None
    kueue_version: str | None = None  # --kueue-version: the Kueue release lint's Kueue pass follows (None: v0.17.8)
    kueue_config: tuple = ()          # --kueue-config: Kueue's Configuration, as read (`kueue.config_file`)
    # who answers the ProvisioningRequests Kueue's pass creates, given the pool's objects (None: no one):
    # the Cluster Autoscaler with --node-groups, as for `kexplain POD` (`app.cluster_autoscaler.kueue_provisioner`)
    kueue_provisioner: Callable[[list], Any] | None = None
    rules: RuleChoice | None = None     # the rules reported, at which severity (`lint.choice`; None: all, as declared)

