"""`kexplain volcano --nodes CLUSTER [--scheduler-conf FILE]`: one scheduling session of Volcano's
scheduler (v1.15.1) over the cluster: its PodGroups, pods and queues as Volcano leaves them."""
from __future__ import annotations

from typing import List, Optional

import typer

from kexplain.app.volcano import explain
from kexplain.cli.env import env_of
from kexplain.cli.exit_codes import ExitStatus
from kexplain.cli.options import MAX_INPUT_SIZE_OPTION, OUTPUT_OPTION, Output, max_objects_option
from kexplain.cli.output import save_page
from kexplain.render import structured
from kexplain.render.volcano import render


def command(
    ctx: typer.Context,
    nodes: List[str] = typer.Option(..., "--nodes", metavar="PATH",
                                    help="The cluster: Nodes, Pods (bound and pending), PodGroups, Queues, "
                                         "PriorityClasses; any kind in any file (repeatable)."),
    scheduler_conf: Optional[str] = typer.Option(None, "--scheduler-conf", metavar="FILE",
                                                 help="The scheduler configuration (the volcano-scheduler.conf key "
                                                      "of its ConfigMap); default: Volcano's built-in one."),
    output: Output = OUTPUT_OPTION,
    html: Optional[str] = typer.Option(None, "--html", metavar="FILE",
                                       help="Also write the session as a self-contained page: the actions, per "
                                            "PodGroup its verdicts, per task the predicates on every node and the "
                                            "scores, the queues, the events."),
    max_input_size: int = MAX_INPUT_SIZE_OPTION,
    max_objects: int = max_objects_option(),
) -> ExitStatus:
    """Explain one scheduling session of Volcano's scheduler: per PodGroup whether enqueue admits it, the
    gang's verdict and conditions, per pod the node it is bound to or why not, per queue its allocated,
    and the events, as Volcano v1.15.1 decides.

    Exit codes: 0 every PodGroup is scheduled, 1 some is not, 2 bad usage or bad input, 4 internal error."""
    env = env_of(ctx)
    doc = explain(nodes, scheduler_conf, max_bytes=max_input_size, max_objects=max_objects,
                  details=html is not None)
    for warning in doc.get("readWarnings") or ():
        env.error(f"warning: {warning}")
    shown = {k: v for k, v in doc.items() if k != "tasks"}     # (the page's details: what is printed stays)
    if output.value in structured.FORMATS:
        structured.write(env.stdout, shown, output.value)
    else:
        render(shown, env.stdout)
    if html:
        save_page(html, doc)
    waiting = any(pg["phase"] in ("Pending", "Inqueue") and any(c["type"] == "Unschedulable"
                                                                  for c in pg.get("conditions") or ())
                  or pg["phase"] == "Pending" for pg in doc.get("podGroups") or ())
    return ExitStatus.UNSCHEDULABLE if waiting else ExitStatus.SUCCESS
