"""`kexplain volcano [FILE...] --nodes CLUSTER [--scheduler-conf FILE]`: one scheduling session of
Volcano's scheduler (v1.15.1) over the cluster and the files submitted (Volcano Jobs made into their
PodGroups and pods as its job controller makes them): its Jobs, PodGroups, pods and queues as Volcano
leaves them."""
from __future__ import annotations

from typing import Any, List, Optional

import typer

from kexplain.app.volcano import explain
from kexplain.app.volcano_jobs import waits
from kexplain.cli.env import env_of
from kexplain.cli.exit_codes import ExitStatus
from kexplain.cli.options import MAX_INPUT_SIZE_OPTION, OUTPUT_OPTION, Output, max_objects_option, parse_now
from kexplain.cli.output import save_page
from kexplain.render import structured
from kexplain.render.volcano import render
from kexplain.render.volcano_jobs import render_jobs
from kexplain.volcano.versions import RELEASES, resolve


def _version_value(value: Optional[str]) -> Optional[str]:
    """A Volcano release kexplain follows, checked before anything is read (exit 2 otherwise)."""
    if value is not None:
        resolve(value)
    return value


def volcano_version_option() -> Any:
    """`--volcano-version X.Y` (`kexplain volcano`, and `kexplain POD` for the pods Volcano schedules)."""
    return typer.Option(None, "--volcano-version", metavar="X.Y", callback=_version_value,
                        help="The Volcano release whose decisions to follow: "
                             + ", ".join(f"{m} ({v.release})" for m, v in RELEASES.items()) + ".")


def command(
    ctx: typer.Context,
    files: List[str] = typer.Argument(None, metavar="[FILE]...",
                                      help="What is submitted: Volcano Jobs (batch.volcano.sh/v1alpha1), PodGroups, "
                                           "pods (files, directories or '-')."),
    nodes: List[str] = typer.Option(..., "--nodes", metavar="PATH",
                                    help="The cluster: Nodes, Pods (bound and pending), PodGroups, Queues, "
                                         "Volcano Jobs, PriorityClasses, the scheduler's ConfigMap; any kind in any "
                                         "file (repeatable)."),
    scheduler_conf: Optional[str] = typer.Option(None, "--scheduler-conf", metavar="FILE",
                                                 help="The scheduler configuration (the volcano-scheduler.conf key "
                                                      "of its ConfigMap, or the ConfigMap); default: the ConfigMap "
                                                      "among the inputs, else Volcano's built-in one."),
    volcano_version: Optional[str] = volcano_version_option(),
    output: Output = OUTPUT_OPTION,
    html: Optional[str] = typer.Option(None, "--html", metavar="FILE",
                                       help="Also write the session as a self-contained page: the actions, per "
                                            "PodGroup its verdicts, per task the predicates on every node and the "
                                            "scores, the queues, the events."),
    max_input_size: int = MAX_INPUT_SIZE_OPTION,
    max_objects: int = max_objects_option(),
    suggestions: bool = typer.Option(True, "--suggestions/--no-suggestions",
                                     help="Show verified fixes for each PodGroup left waiting (each change run "
                                          "through the session again; key 'fixes')."),
    now: Optional[str] = typer.Option(None, "--now", metavar="TIME",
                                      help="The session's clock (RFC 3339; default: the current time), which the sla "
                                           "plugin's waiting times and the cdp plugin's cooldowns are judged by."),
) -> ExitStatus:
    """Explain one scheduling session of Volcano's scheduler: per Volcano Job its tasks, pods and
    PodGroup's verdict (or the webhook's refusal), per PodGroup whether enqueue admits it, the gang's
    verdict and conditions, per pod the node it is bound to or why not, per queue its allocated, and
    the events, as Volcano v1.15.1 decides.

    Exit codes: 0 every PodGroup is scheduled, 1 some is not (or a Job was refused), 2 bad usage or
    bad input, 4 internal error."""
    env = env_of(ctx)
    doc = explain(nodes, scheduler_conf, max_bytes=max_input_size, max_objects=max_objects, files=files or (),
                  stdin=env.stdin, version=resolve(volcano_version), suggestions=suggestions,
                  details=html is not None, now=parse_now(now) if now else None)
    for warning in doc.get("readWarnings") or ():
        env.error(f"warning: {warning}")
    shown = {k: v for k, v in doc.items() if k != "tasks"}     # (the page's details: what is printed stays)
    if output.value in structured.FORMATS:
        structured.write(env.stdout, shown, output.value)
    else:
        render_jobs(shown, env.stdout)
        render(shown, env.stdout)
    if html:
        save_page(html, doc)
    jobs = doc.get("jobs") or ()
    of_jobs = {job.get("podGroup") for job in jobs}
    waiting = any(pg["phase"] in ("Pending", "Inqueue") and any(c["type"] == "Unschedulable"
                                                                  for c in pg.get("conditions") or ())
                  or pg["phase"] == "Pending" for pg in doc.get("podGroups") or () if pg["name"] not in of_jobs)
    waiting = waiting or any(waits(job) for job in jobs)
    return ExitStatus.UNSCHEDULABLE if waiting else ExitStatus.SUCCESS
