"""`kexplain karpenter PODS --nodes CLUSTER --nodes NODEPOOLS`: one Karpenter provisioning pass."""
from __future__ import annotations

import importlib
from types import ModuleType
from typing import List, Optional

import typer

from kexplain.cli.env import env_of
from kexplain.cli.exit_codes import ExitStatus
from kexplain.cli.live_options import chunk_size_option, context_option, kubeconfig_option, timeout_option
from kexplain.cli.options import (MAX_INPUT_SIZE_OPTION, NAMESPACE_OPTION, OUTPUT_OPTION, VALIDATE_OPTION, Output,
                                  aws_data_option, karpenter_config_option, max_objects_option)
from kexplain.cli.versions import admission_choice, admission_plugins_option
from kexplain.errors import KexplainError
from kexplain.features.kube_version import ENV_VAR, resolve
from kexplain.karpenter.disruption import versions

# The command's three passes, each a module imported when it runs (and --node's answer) (as `cli.app.COMMANDS` imports
# the command): a disruption pass over files loads neither the provisioning pass with its fixes
# nor the live client's application layer, nor the reverse (tests/cli/test_lazy_imports.py).
PATHS = {"provisioning": "kexplain.cli.karpenter_provisioning", "disruption": "kexplain.cli.karpenter_disruption",
         "live": "kexplain.cli.karpenter_disruption_live",
         "node": "kexplain.app.karpenter_disruption_node"}     # (--node's answer: the suggestions, only then)


def _path(name: str) -> ModuleType:
    """The module of the pass `name` (a key of `PATHS`), imported now."""
    return importlib.import_module(PATHS[name])


KARPENTER_KUBERNETES = "1.35"     # the Kubernetes libraries Karpenter v1.13.0 is built with (v0.35)
KARPENTER_VERSION_HELP = ("The Karpenter release whose disruption rules --disruption follows, and whose NodePool CRD "
                          "admits the NodePools: 1.13 (v1.13.0, the default) or 1.14 (v1.14.1: the Balanced "
                          "consolidation policy, consolidateAfter on destination nodes). The provisioning pass "
                          "follows v1.13.0.")


DISRUPTION_OPTION = typer.Option(False, "--disruption",
                                 help="Run Karpenter's disruption pass instead: per NodePool and reason the budgets, "
                                      "per method (Emptiness, StaticDrift, Drift, MultiNodeConsolidation, "
                                      "SingleNodeConsolidation) its candidates and command, per node whether it is a "
                                      "candidate and why not, the events.")
NODE_OPTION = typer.Option(None, "--node", metavar="NAME",
                           help="With --disruption: why Karpenter does not remove this node (every check that stops "
                                "it, verified fixes, what time changes; key 'node').")
HTML_OPTION = typer.Option(None, "--html", metavar="FILE",
                           help="With --disruption: also write the answer as a self-contained page (the verdict, the "
                                "budgets, the chain, the methods, the nodes, the events).")


def _karpenter_version_value(value: Optional[str]) -> Optional[str]:
    """A release kexplain follows (`karpenter.disruption.versions.resolve`), checked before anything
    is read; a one-line error naming the known ones otherwise (exit 2)."""
    if value is not None:
        versions.resolve(value)
    return value


def _karpenter_version_option() -> typer.models.OptionInfo:
    return typer.Option(None, "--karpenter-version", metavar="X.Y", callback=_karpenter_version_value,
                        help=KARPENTER_VERSION_HELP)


def _provisioning_release(value: Optional[str], rules: versions.DisruptionRules) -> None:
    """The provisioning pass is v1.13.0's: another release is --disruption's alone (exit 2)."""
    if rules is not versions.DEFAULT:
        raise KexplainError(f"--karpenter-version {value}: the provisioning pass follows {versions.DEFAULT.version} "
                            f"only; {rules.version} is followed by --disruption")


def command(
    ctx: typer.Context,
    pods: Optional[str] = typer.Argument(None, metavar="PODS",
                                         help="The pending Pods, and workloads whose copies that do not fit are "
                                              "pending, as `kexplain POD` takes them (file, directory or '-'). "
                                              "Unbound pods of any file are pending. Optional with --disruption "
                                              "(there, the pending pods nominate the nodes they would go to)."),
    nodes: List[str] = typer.Option([], "--nodes", metavar="PATH",
                                    help="Cluster objects and Karpenter's: Nodes, bound Pods, DaemonSets, NodeClaims, "
                                         "NodePools, EC2NodeClasses, PVCs, StorageClasses, ... any kind in any file "
                                         "(repeatable)."),
    aws_data: Optional[str] = aws_data_option(),
    karpenter_config: Optional[str] = karpenter_config_option(),
    output: Output = OUTPUT_OPTION,
    max_input_size: int = MAX_INPUT_SIZE_OPTION,
    max_objects: int = max_objects_option(),
    node_pool: Optional[str] = typer.Option(None, "--nodepool", metavar="NAME",
                                            help="Show one NodePool's full verdict for every pending pod (placed or "
                                                 "not): every taint, requirement, instance type, offering and limit "
                                                 "in the way."),
    validate: str = VALIDATE_OPTION,
    namespace: Optional[str] = NAMESPACE_OPTION,
    kubernetes_version: Optional[str] = typer.Option(
        None, "--kubernetes-version", metavar="X.Y",
        help=f"The Kubernetes version whose API server admits the inputs (default: "
             f"$KEXPLAIN_KUBERNETES_VERSION, else {KARPENTER_KUBERNETES}, the libraries Karpenter is built with)."),
    admission_plugins: Optional[str] = admission_plugins_option(),
    suggestions: bool = typer.Option(True, "--suggestions/--no-suggestions",
                                     help="Show verified fix suggestions for the pods Karpenter would not place "
                                          "(each change run through Karpenter's pass again; key 'suggestions')."),
    disruption: bool = DISRUPTION_OPTION,
    node: Optional[str] = NODE_OPTION,
    html: Optional[str] = HTML_OPTION,
    karpenter_version: Optional[str] = _karpenter_version_option(),
    now: Optional[str] = typer.Option(None, "--now", metavar="TIME",
                                      help="The clock (RFC 3339) for --disruption: node lifetimes, do-not-disrupt "
                                           "durations, budget schedules (default: the current time)."),
    kubeconfig: Optional[str] = kubeconfig_option(),
    context: Optional[str] = context_option(),
    request_timeout: float = timeout_option(),
    chunk_size: int = chunk_size_option(),
) -> ExitStatus:
    """Explain one Karpenter provisioning pass over the pending pods (PODS' Pods as written, and
    its workloads' copies the scheduler leaves pending): which of them Karpenter would place on an
    existing node or in-flight NodeClaim, which NodeClaims it would create from which NodePool
    with which instance types and prices, and why the other pods fail, events included, as
    sigs.k8s.io/karpenter v1.13.0 with the AWS provider (openshift/aws-karpenter-provider-aws
    abcf7d1e3417) decides.

    With --disruption, Karpenter's disruption pass over the cluster: which node it would delete or
    replace now, and why every other node stays.

    Exit codes: 0 every pending pod Karpenter provisions for is placed (--disruption: the pass
    ran, whatever it decided; with --node: the node would be disrupted now), 1 some pod failed or
    was ignored (--node: the node stays), 2 bad usage or bad input, 4 internal error."""
    env = env_of(ctx)
    kube, warnings = resolve(kubernetes_version, env.variables.get(ENV_VAR) or None, None, KARPENTER_KUBERNETES,
                             admission_choice(env, admission_plugins))
    for warning in warnings:
        env.error(f"warning: {warning}")
    rules = versions.resolve(karpenter_version)
    asked = (node, _path("node").node_document) if disruption and node is not None else None
    if disruption and not nodes:        # the live cluster, as `kexplain pod` reads it
        return _path("live").run(env, (kubeconfig, context, namespace, request_timeout, chunk_size), pods, aws_data,
                                 karpenter_config, kube, now, output, max_input_size, max_objects, validate,
                                 namespace, html, rules, asked)
    if kubeconfig is not None or context is not None:
        raise KexplainError("--kubeconfig and --context read the live cluster: give them to --disruption without "
                            "--nodes")
    if disruption:
        return _path("disruption").run(env, pods, nodes, aws_data, karpenter_config, kube, now, output,
                                       max_input_size, max_objects, validate, namespace, html, rules, asked)
    _provisioning_release(karpenter_version, rules)
    for given, flag in ((now, "--now"), (node, "--node"), (html, "--html")):
        if given is not None:
            raise KexplainError(f"{flag} is an option of --disruption")
    if pods is None:
        raise KexplainError("Missing argument 'PODS' (a file of pending pods; only --disruption runs without one)")
    return _path("provisioning").run(env, pods, nodes, aws_data, karpenter_config, kube, output, max_input_size,
                                     max_objects, validate, namespace, node_pool, suggestions)
