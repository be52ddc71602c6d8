"""`kexplain kueue WORKLOADS --nodes CLUSTER`: Kueue's admission of the submitted Jobs, Pods,
JobSets and Workloads, as Kueue v0.17.8 (or v0.19.2) decides it."""
from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone
from typing import List, Optional

import typer

from kexplain.app.autoscalers import adapter
from kexplain.cli.env import env_of
from kexplain.cli.exit_codes import ExitStatus
from kexplain.cli.options import autoscaler_config_option, node_groups_option
from kexplain.cli.options import (MAX_INPUT_SIZE_OPTION, NAMESPACE_OPTION, OUTPUT_OPTION, VALIDATE_OPTION, Output,
                                  kueue_config_option, kueue_version_option, max_objects_option)
from kexplain.errors import KexplainError
from kexplain.kueue import versions
from kexplain.kueue.config_file import read_kueue_config
from kexplain.kueue.explain import explained_pass
from kexplain.kueue.inputs import load
from kexplain.kueue.run import Settings, run_pass
from kexplain.load.gcpolicy import bulk_load
from kexplain.render import structured
from kexplain.render.kueue import print_pass
from kexplain.suggest import kueue as fixes


def _now(text: Optional[str]) -> datetime:
    if not text:
        return datetime.now(timezone.utc).replace(microsecond=0)
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise KexplainError(f"--now {text}: not an RFC 3339 time (e.g. 2026-01-01T00:00:00Z)") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def command(
    ctx: typer.Context,
    workloads: List[str] = typer.Argument(..., metavar="WORKLOADS",
                                          help="What is submitted: Jobs, Pods and JobSets with the "
                                               "kueue.x-k8s.io/queue-name label, and Workloads (files, directories "
                                               "or '-')."),
    nodes: List[str] = typer.Option([], "--nodes", metavar="PATH",
                                    help="The cluster: ResourceFlavors, ClusterQueues, Cohorts, LocalQueues, "
                                         "WorkloadPriorityClasses, PriorityClasses, Namespaces and the admitted "
                                         "Workloads; any kind in any file (repeatable)."),
    now: Optional[str] = typer.Option(None, "--now", metavar="TIME",
                                      help="The clock (RFC 3339) for wait times and Workloads without a creation "
                                           "time (default: the current time)."),
    kueue_version: Optional[str] = kueue_version_option(),
    node_groups: Optional[str] = node_groups_option(
        "CA answers the ProvisioningRequests Kueue creates for a kueue.x-k8s.io/provisioning-request check "
        "(check-capacity, best-effort atomic scale-up), and the check state follows."),
    autoscaler_config: Optional[str] = autoscaler_config_option(),
    kueue_config: Optional[str] = kueue_config_option(),
    output: Output = OUTPUT_OPTION,
    suggestions: bool = typer.Option(True, "--suggestions/--no-suggestions",
                                     help="Show verified fixes for the Workloads left pending (each change run "
                                          "through Kueue's cycles again; key 'suggestions')."),
    max_input_size: int = MAX_INPUT_SIZE_OPTION,
    max_objects: int = max_objects_option(),
    validate: str = VALIDATE_OPTION,
    namespace: Optional[str] = NAMESPACE_OPTION,
) -> ExitStatus:
    """Explain Kueue's admission: the Workload each submitted job becomes, then Kueue's
    scheduling cycles (flavor assignment, quota, cohort borrowing and lending, preemption,
    partial admission) and the workload controller's checks, with Kueue's own conditions,
    reasons, messages and events; per pending Workload the numbers behind the verdict and
    verified fixes.

    Exit codes: 0 every submitted Workload holds quota, 1 some is pending or was not created,
    2 bad usage or bad input, 4 internal error."""
    env = env_of(ctx)
    settings = Settings(versions.resolve(kueue_version), _now(now))
    # The collector paused over loading and the first pass, then frozen (as `kexplain
    # karpenter`): a cluster dump is millions of objects without cycles the suggestions' passes
    # would otherwise rescan.
    with bulk_load(freeze=True):
        inputs = load(workloads, nodes, max_bytes=max_input_size, max_objects=max_objects, validate=validate,
                      stdin=env.stdin, namespace=namespace, extra=read_kueue_config(kueue_config, max_input_size),
                      version=settings.version)
        for warning in inputs.warnings:
            env.error(f"warning: {warning}")
        if node_groups is not None:
            settings = replace(settings, capacity=_provisioner(node_groups, autoscaler_config, max_input_size,
                                                               validate, list(inputs.cluster), env))
        elif autoscaler_config is not None:
            raise KexplainError("--autoscaler-config needs node groups: --node-groups FILE")
        done = run_pass(inputs, settings)
        doc = explained_pass(done)
    if suggestions and fixes.needed(doc):
        waiting: list[dict] = []
        doc["suggestions"] = fixes.suggestions(done, waiting=waiting)
        if waiting:
            doc["suggestionsWaiting"] = waiting
    if output.value in structured.FORMATS:
        structured.write(env.stdout, doc, output.value)
    else:
        print_pass(doc, env.console())
    return exit_status(doc)


def _provisioner(node_groups: str, autoscaler_config: Optional[str], max_bytes: int, validate: str,
                 cluster: list, env) -> object:
    """CA's adapter (imported only now: `app.autoscalers.adapter`) as the ProvisioningRequests' provisioner."""
    ca = adapter("cluster-autoscaler")
    return ca.kueue_provisioner(ca.read_node_groups(node_groups, max_bytes), autoscaler_config, max_bytes, validate, cluster,
                                say=lambda note: env.error(f"note: {note}"))


def exit_status(doc: dict) -> ExitStatus:
    """0 when every submitted Workload holds quota, else 1."""
    submitted = {f"{j.get('namespace')}/{j.get('workload')}" for j in doc.get("jobs") or () if j.get("workload")}
    for job in doc.get("jobs") or ():
        if job.get("error") and job.get("queueName"):
            return ExitStatus.UNSCHEDULABLE
    for wl in doc.get("workloads") or ():
        key = f"{wl.get('namespace')}/{wl.get('name')}"
        if (key in submitted or not wl.get("inputAdmitted")) and not wl.get("quotaReserved"):
            return ExitStatus.UNSCHEDULABLE
    return ExitStatus.SUCCESS
