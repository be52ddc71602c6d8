"""`--kubernetes-version` and `--feature-gates`, shared by every command that schedules.

The version is resolved here, once, from the flag, then `KEXPLAIN_KUBERNETES_VERSION`, then
what the cluster reports (live mode, a snapshot), then the default; from here on it travels
as a `KubeVersion` argument.
"""
from __future__ import annotations

from typing import Any, Optional

import typer

from kexplain.cli.env import Environment
from kexplain.features import ENV_VAR, SUPPORTED, KubeVersion, resolve


def version_option() -> Any:
    return typer.Option(None, "--kubernetes-version", metavar="X.Y",
                        help=f"The Kubernetes version to follow: {', '.join(SUPPORTED)} (default: "
                             f"${ENV_VAR}, else the cluster's own in live mode and snapshots, else "
                             f"{KubeVersion().minor}).")


def feature_gates_option() -> Any:
    return typer.Option(None, "--feature-gates", metavar="NAME=BOOL,...",
                        help="kube-scheduler's feature gates, changed from the version's defaults.")


def kube_version(env: Environment, flag: Optional[str], feature_gates: Optional[str],
                 detected: Optional[str] = None) -> KubeVersion:
    """The version to follow, its warnings said on stderr (VersionError/FeatureGateError: exit 2)."""
    kube, warnings = resolve(flag, env.variables.get(ENV_VAR), feature_gates, detected)
    for warning in warnings:
        env.error(f"warning: {warning}")
    return kube
