"""`kexplain karpenter PODS --nodes CLUSTER --nodes NODEPOOLS`: one Karpenter provisioning pass."""
from __future__ import annotations

from typing import List, Optional

import typer

from dataclasses import replace

from kexplain.app.karpenter import check_node_pool
from kexplain.app.karpenter_disruption import disruption_pass
from kexplain.app.karpenter_live import disruption_live
from kexplain.cli.env import Environment, env_of
from kexplain.cli.exit_codes import ExitStatus, aggregate
from kexplain.cli.live import (Connect, reading_bar, chunk_size_option, context_option, kubeconfig_option, say_reads,
                               timeout_option)
from kexplain.cli.options import (MAX_INPUT_SIZE_OPTION, NAMESPACE_OPTION, OUTPUT_OPTION, VALIDATE_OPTION, Output,
                                  aws_data_option, karpenter_config_option, max_objects_option, parse_now)
from kexplain.cli.output import save_page
from kexplain.errors import KexplainError, Source
from kexplain.explain.pending_pass import pass_json
from kexplain.features.kube_version import ENV_VAR, resolve
from kexplain.karpenter.disruption import versions
from kexplain.karpenter.pending import load_pods_pass, load_world
from kexplain.karpenter.run import EXPLAIN_ALL, EXPLAIN_UNPLACED, document, schedule
from kexplain.load.gcpolicy import bulk_load
from kexplain.render import structured
from kexplain.render.karpenter import print_pass
from kexplain.render.karpenter_disruption import print_disruption, print_node
from kexplain.render.karpenter_events import print_live_events
from kexplain.suggest import karpenter as fixes

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
    kube, warnings = resolve(kubernetes_version, env.variables.get(ENV_VAR) or None, None, KARPENTER_KUBERNETES)
    for warning in warnings:
        env.error(f"warning: {warning}")
    rules = versions.resolve(karpenter_version)
    if disruption and not nodes:        # the live cluster, as `kexplain pod` reads it
        return _disruption_live(env, Connect(kubeconfig, context, namespace, request_timeout, chunk_size), pods,
                                aws_data, karpenter_config, kube, now, output, max_input_size, max_objects, validate,
                                namespace, html, rules, node)
    if kubeconfig is not None or context is not None:
        raise KexplainError("--kubeconfig and --context read the live cluster: give them to --disruption without "
                            "--nodes")
    if disruption:
        return _disruption(env, pods, nodes, aws_data, karpenter_config, kube, now, output, max_input_size,
                           max_objects, validate, namespace, html, rules, node)
    _provisioning_release(karpenter_version, rules)
    for given, flag in ((now, "--now"), (node, "--node"), (html, "--html")):
        if given is not None:
            raise KexplainError(f"{flag} is an option of --disruption")
    if pods is None:
        raise KexplainError("Missing argument 'PODS' (a file of pending pods; only --disruption runs without one)")
    return _provisioning(env, pods, nodes, aws_data, karpenter_config, kube, output, max_input_size, max_objects,
                         validate, namespace, node_pool, suggestions)


def _provisioning(env: Environment, pods: str, nodes: List[str], aws_data: Optional[str],
                  karpenter_config: Optional[str], kube, output: Output, max_input_size: int, max_objects: int,
                  validate: str, namespace: Optional[str], node_pool: Optional[str], suggestions: bool) -> ExitStatus:
    """One provisioning pass over PODS: its document (with the verified fixes) written, its exit code."""
    inputs, world, done, merged = _pass(env, pods, nodes, aws_data, karpenter_config, kube, max_input_size,
                                        max_objects, validate, namespace)
    for warning in inputs.warnings:            # the inputs' and the cluster state's
        env.error(f"warning: {warning}")
    for err in inputs.refused:                 # bad input, as the API server says it; the pass reads them as written
        env.error(f"error: {err}")
    doc = document(done, explain=EXPLAIN_ALL if node_pool is not None else EXPLAIN_UNPLACED)
    if merged is not None:          # workloads: what each pod stands for, the copies not created
        doc["pendingPass"] = pass_json(merged)
    check_node_pool(node_pool, doc)
    if suggestions and fixes.needed(doc):
        doc["suggestions"] = fixes.suggestions(inputs, world, first=done)
    if output.value in structured.FORMATS:
        structured.write(env.stdout, doc, output.value)
    else:
        print_pass(doc, env.console(), node_pool=node_pool)
    return aggregate([exit_status(doc), *([ExitStatus.BAD_INPUT] if inputs.refused else [])])


def _pass(env: Environment, pods: str, nodes: List[str], aws_data: Optional[str], karpenter_config: Optional[str],
          kube, max_input_size: int, max_objects: int, validate: str, namespace: Optional[str]):
    """The pass's inputs, the EC2 world (the settings checked against it), the pass, and the
    merged pending pass when PODS held workloads (`karpenter.pending.load_pods_pass`)."""
    # The collector paused and then frozen over the first pass too: its cluster state, instance
    # types and scheduler live as long as the snapshot, and it makes next to no cycles (on the
    # benchmark, 11 full collections rescanned up to 1.1 million objects for about a third of
    # the pass's time, and the whole run collected 346 objects).
    with bulk_load(freeze=True):
        inputs, merged = load_pods_pass(pods, tuple(nodes), karpenter_config, kube, max_bytes=max_input_size,
                                        max_objects=max_objects, validate=validate, stdin=env.stdin,
                                        namespace=namespace)
        world = load_world(aws_data)
        inputs.settings.check_world(world.instance_types, world.zones(),
                                    Source(karpenter_config) if karpenter_config else None)
        done = schedule(inputs, world)
    return inputs, world, done, merged


def _disruption(env: Environment, pods: Optional[str], nodes: List[str], aws_data: Optional[str],
                karpenter_config: Optional[str], kube, now: Optional[str], output: Output, max_input_size: int,
                max_objects: int, validate: str, namespace: Optional[str], html: Optional[str] = None,
                rules: versions.DisruptionRules = versions.DEFAULT, node: Optional[str] = None) -> ExitStatus:
    """`--disruption`: the pass's document, written as asked (and its page, `--html`)."""
    inputs, doc = disruption_pass(pods, tuple(nodes), aws_data, karpenter_config, kube, parse_now(now),
                                  max_bytes=max_input_size, max_objects=max_objects, validate=validate,
                                  namespace=namespace, stdin=env.stdin, rules=rules, node=node)
    for warning in inputs.warnings:
        env.error(f"warning: {warning}")
    for err in inputs.refused:
        env.error(f"error: {err}")
    if output.value in structured.FORMATS:
        structured.write(env.stdout, doc, output.value)
    elif node is not None:
        print_node(doc, env.console())
    else:
        print_disruption(doc, env.console())
    if html:
        save_page(html, doc)
    return aggregate([disruption_status(doc), *([ExitStatus.BAD_INPUT] if inputs.refused else [])])


def _disruption_live(env: Environment, connect: Connect, pods: Optional[str], aws_data: Optional[str],
                     karpenter_config: Optional[str], kube, now: Optional[str], output: Output, max_input_size: int,
                     max_objects: int, validate: str, namespace: Optional[str], html: Optional[str] = None,
                     rules: versions.DisruptionRules = versions.DEFAULT, node: Optional[str] = None
                     ) -> ExitStatus:
    """`--disruption` without --nodes: the pass over the live cluster, Karpenter's events beside it;
    the reads RBAC refused (Karpenter's kinds, its events) said once, in one block."""
    done = disruption_live(connect, reading_bar(env), pods, aws_data, karpenter_config, kube, parse_now(now),
                           max_bytes=max_input_size, max_objects=max_objects, validate=validate,
                           namespace=namespace, stdin=env.stdin, rules=rules, node=node)
    karpenter = done.live.karpenter
    if done.events_refused is not None:
        karpenter = replace(karpenter, refusals=(*karpenter.refusals, done.events_refused))
    say_reads(env, karpenter)
    for warning in done.inputs.warnings:
        env.error(f"warning: {warning}")
    for err in done.inputs.refused:
        env.error(f"error: {err}")
    if output.value in structured.FORMATS:
        structured.write(env.stdout, done.document, output.value)
    elif node is not None:
        print_node(done.document, env.console())
    else:
        print_disruption(done.document, env.console())
        print_live_events(done.document, env.console())
    if html:
        save_page(html, done.document)
    return aggregate([disruption_status(done.document),
                      *([ExitStatus.BAD_INPUT] if done.inputs.refused else [])])


def disruption_status(doc: dict) -> ExitStatus:
    """--disruption: 0; with --node, 0 when the node would be disrupted now, else 1 (it stays)."""
    node = doc.get("node")
    if node is None or node.get("verdict") == "disrupted":
        return ExitStatus.SUCCESS
    return ExitStatus.UNSCHEDULABLE


def exit_status(doc: dict) -> ExitStatus:
    """0 when every pod Karpenter provisions for is placed, else 1."""
    for pod in doc.get("pods") or ():
        if pod.get("result") in ("Failed", "Ignored", "NotConsidered"):
            return ExitStatus.UNSCHEDULABLE
    return ExitStatus.SUCCESS
