"""`--kubernetes-version`, `--feature-gates`, `--admission-plugins` and `--compare-versions`, shared by
every command that schedules.

The version is resolved from the flag, then `KEXPLAIN_KUBERNETES_VERSION`, then what the
cluster reports (live mode's /version, the version a snapshot recorded), then the default
(`VersionChoice`); from there on it travels as a `KubeVersion` argument.
"""
from __future__ import annotations

from typing import Any, Optional

import typer

from kexplain.cli.env import Environment
from kexplain.errors import KexplainError
from kexplain.explain.request import VersionChoice
from kexplain.features import DEFAULT_MINOR, ENV_VAR, SUPPORTED, KubeVersion, parse_minor
from kexplain.features.admission_plugins import ENV_VAR as ADMISSION_ENV_VAR, FLAG as ADMISSION_FLAG, PROFILES, \
    parse as parse_admission

def version_option(reported: str = "", default: str = DEFAULT_MINOR, why: str = "") -> Any:
    """The option; `reported`: where the command finds the cluster's own version, if anywhere;
    `default`: the version followed when nothing says one (`why`: what it is)."""
    also = f"else {reported}, " if reported else ""
    return typer.Option(None, "--kubernetes-version", metavar="X.Y",
                        help=f"The Kubernetes version to follow: {', '.join(SUPPORTED)}. Default: ${ENV_VAR}, "
                             f"{also}else {default}{f' ({why})' if why else ''}.")


def feature_gates_option() -> Any:
    return typer.Option(None, "--feature-gates", metavar="NAME=BOOL,...",
                        help="kube-scheduler's feature gates, changed from the version's defaults.")


def compare_versions_option() -> Any:
    return typer.Option(None, "--compare-versions", metavar="X.Y,X.Y",
                        help=f"Explain under each of these versions ({', '.join(SUPPORTED)}) and show only "
                             "what differs.")


def admission_plugins_option() -> Any:
    return typer.Option(None, ADMISSION_FLAG, metavar="NAME,...|PROFILE",
                        help="The admission plugins the cluster's API server runs beyond kube-apiserver's "
                             "defaults, as its --enable-admission-plugins names them, or a provider's "
                             f"({', '.join(PROFILES)}; `default`: none). Default: ${ADMISSION_ENV_VAR}, else "
                             "the provider that registered the nodes (their providerIDs and node pool labels), else "
                             "kube-apiserver's defaults.")


def admission_choice(env: Environment, flag: Optional[str], config: Optional[tuple[str, str]] = None
                     ) -> Optional[tuple[str, str]]:
    """The admission plugins asked for and where: the flag, else the environment variable, else a
    configuration file's key (`config`: its value and name); checked now (an unknown plugin: exit 2)."""
    said = (flag, ADMISSION_FLAG) if flag is not None else \
        (env.variables[ADMISSION_ENV_VAR], f"${ADMISSION_ENV_VAR}") if env.variables.get(ADMISSION_ENV_VAR) else config
    if said is not None:
        parse_admission(*said)
    return said


def version_choice(env: Environment, flag: Optional[str], feature_gates: Optional[str],
                   admission_plugins: Optional[str] = None, config: Optional[tuple[str, str]] = None
                   ) -> VersionChoice:
    """What the command line asks for (the flag, else the environment variable; `config`: a
    configuration file's admission plugins), to be settled once the cluster's own version is known
    (`settle`)."""
    return VersionChoice(flag or env.variables.get(ENV_VAR) or None, feature_gates,
                         admission_choice(env, admission_plugins, config))


def settle(env: Environment, choice: VersionChoice, reported: Optional[str] = None) -> KubeVersion:
    """The version to follow, its warnings said on stderr (VersionError/FeatureGateError: exit 2)."""
    kube, warnings = choice.settle(reported)
    for warning in warnings:
        env.error(f"warning: {warning}")
    return kube


def compared_versions(env: Environment, value: str, flag: Optional[str],
                      feature_gates: Optional[str], admission: Optional[tuple[str, str]] = None
                      ) -> list[KubeVersion]:
    """`--compare-versions A,B[,...]`: each version with `--feature-gates` applied, in the order
    given; at least two, none twice (a minor newer than the newest is followed as it, with
    its warning); not with --kubernetes-version (it overrides $KEXPLAIN_KUBERNETES_VERSION)."""
    if flag is not None:
        raise KexplainError("--compare-versions chooses the versions: drop --kubernetes-version")
    out: list[KubeVersion] = []
    for text in (t.strip() for t in value.split(",")):
        if not text:
            raise KexplainError(f"--compare-versions {value!r}: give versions separated by commas, "
                                f"such as {SUPPORTED[-2]},{SUPPORTED[-1]}")
        minor, warning = parse_minor(text)
        if warning:
            env.error(f"warning: {warning}")
        if any(k.minor == minor for k in out):
            raise KexplainError(f"--compare-versions {value!r}: Kubernetes {minor} is given twice")
        out.append(VersionChoice(minor, feature_gates, admission).settle()[0])
    if len(out) < 2:
        raise KexplainError(f"--compare-versions {value!r}: give two versions or more, such as "
                            f"{SUPPORTED[-2]},{SUPPORTED[-1]}")
    return out
