"""`kexplain cluster --nodes FILE|DIR`: what in the cluster is held, and why, one section per
question (`app.cluster.report`), over the cluster read once. It parses, asks the app, writes the
report (`render.cluster`, or -o json|yaml) and picks the exit code: 0 nothing held, 1 something
held, 2 bad usage or bad input."""
from __future__ import annotations

from typing import List, Optional

import typer

from kexplain.app.cluster.inputs import ClusterRequest
from kexplain.app.cluster.report import NAMES, as_written, report
from kexplain.cli.env import env_of
from kexplain.cli.exit_codes import ExitStatus
from kexplain.cli.output import save_page
from kexplain.cli.options import (MAX_INPUT_SIZE_OPTION, OUTPUT_OPTION, VALIDATE_OPTION, Output, max_objects_option,
                                  parse_now)
from kexplain.errors import KexplainError
from kexplain.features.kube_version import ENV_VAR, resolve
from kexplain.render import structured
from kexplain.render.cluster import print_report

EXIT_HELP = "Exit codes: 0 nothing is held, 1 something is held, 2 bad usage or bad input, 4 internal error."


def command(
    ctx: typer.Context,
    nodes: List[str] = typer.Option([], "--nodes", metavar="PATH",
                                    help="The cluster: files or a `kexplain snapshot` (file or directory), every "
                                         "kind in any file, the autoscalers', Kueue's and Karpenter's objects among "
                                         "them (repeatable)."),
    node_groups: Optional[str] = typer.Option(None, "--node-groups", metavar="FILE",
                                              help="The Cluster Autoscaler's node groups (NodeGroupList), in place "
                                                   "of those CA's status ConfigMap or Cluster API among --nodes "
                                                   "report, as for kexplain pod."),
    section: List[str] = typer.Option([], "--section", metavar="NAME",
                                      help=f"Only this section (repeatable): {', '.join(NAMES)}."),
    drain_check: bool = typer.Option(False, "--drain-check",
                                     help="Check every node's drain, not only the cordoned nodes'."),
    ignore_daemonsets: bool = typer.Option(False, "--ignore-daemonsets", help="As kubectl drain's, for every drain."),
    delete_emptydir_data: bool = typer.Option(False, "--delete-emptydir-data",
                                              help="As kubectl drain's, for every drain."),
    force: bool = typer.Option(False, "--force", help="As kubectl drain's, for every drain."),
    now: Optional[str] = typer.Option(None, "--now", metavar="TIME",
                                      help="The clock (RFC 3339; default: the current time)."),
    kubernetes_version: Optional[str] = typer.Option(None, "--kubernetes-version", metavar="X.Y",
                                                     help="The Kubernetes minor whose components decide (default: "
                                                          "$KEXPLAIN_KUBERNETES_VERSION, else the version a snapshot "
                                                          "recorded, else the newest followed)."),
    output: Output = OUTPUT_OPTION,
    html: Optional[str] = typer.Option(None, "--html", metavar="FILE",
                                       help="Also write the report as one self-contained page: the summary at the "
                                            "top, each row expanding into its single-object answer."),
    max_input_size: int = MAX_INPUT_SIZE_OPTION,
    max_objects: int = max_objects_option(),
    validate: str = VALIDATE_OPTION,
) -> ExitStatus:
    """What in the cluster is held, and why: pending pods, budgets, drains; each row the single-object
    answer.

    Every pending pod grouped by owner and reason (as `kexplain pod -A` explains them, with the
    autoscalers' answer), the PodDisruptionBudgets that allow no disruption and what they block,
    the cordoned nodes whose `kubectl drain` would not finish (as `kexplain evict drain NODE`).

    Exit codes: 0 nothing is held, 1 something is held, 2 bad usage or bad input, 4 internal error."""
    env = env_of(ctx)
    if not nodes:
        raise KexplainError("give the cluster with --nodes FILE|DIR (files or a `kexplain snapshot`); "
                            "the live cluster is not read yet")
    kube, warnings = resolve(kubernetes_version, env.variables.get(ENV_VAR) or None)
    for warning in warnings:
        env.error(f"warning: {warning}")
    given = bool(kubernetes_version or env.variables.get(ENV_VAR))
    drain = {"ignore_daemonsets": ignore_daemonsets, "delete_emptydir_data": delete_emptydir_data, "force": force}
    req = ClusterRequest(tuple(nodes), parse_now(now), kube, given, tuple(section), drain_check, max_input_size,
                         max_objects, validate, env.stdin, tuple(k for k, on in drain.items() if on), node_groups,
                         html=html is not None)
    doc = report(req)
    for warning in doc.get("readWarnings") or ():
        env.error(f"warning: {warning}")
    for said in (n for s in doc["sections"] for n in s.get("notes") or ()):
        env.error(said)         # what a section's run said, as its single-object command says it
    if output.value in structured.FORMATS:
        structured.write(env.stdout, as_written(doc), output.value)
    else:
        print_report(doc, env.console())
    if html:
        save_page(html, doc)
    return ExitStatus.UNSCHEDULABLE if doc["held"] else ExitStatus.SUCCESS
