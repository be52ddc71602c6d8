"""`kexplain karpenter --disruption` without --nodes: the pass over the live cluster, Karpenter's
events beside it. Imported by `cli.karpenter` only when it runs (`PATHS`), so that a pass over
files never loads the live client's application layer."""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

from kexplain.app.karpenter_disruption import NodeAsk
from kexplain.app.karpenter_live import disruption_live
from kexplain.app.live import Connect
from kexplain.cli.env import Environment
from kexplain.cli.exit_codes import ExitStatus, aggregate
from kexplain.cli.karpenter_disruption import disruption_status
from kexplain.cli.live import reading_bar, say_reads
from kexplain.cli.options import Output, parse_now
from kexplain.cli.output import save_page
from kexplain.karpenter.disruption import versions
from kexplain.render import structured
from kexplain.render.karpenter_disruption import print_disruption, print_node
from kexplain.render.karpenter_events import print_live_events

__all__ = ["run"]


def run(env: Environment, connect: tuple, pods: Optional[str], aws_data: Optional[str],
                     karpenter_config: Optional[str], kube, now: Optional[str], output: Output, max_input_size: int,
                     max_objects: int, validate: str, namespace: Optional[str], html: Optional[str] = None,
                     rules: versions.DisruptionRules = versions.DEFAULT, node: Optional[NodeAsk] = None
                     ) -> ExitStatus:
    """`--disruption` without --nodes: the pass over the live cluster, Karpenter's events beside it;
    the reads RBAC refused (Karpenter's kinds, its events) said once, in one block."""
    done = disruption_live(Connect(*connect), reading_bar(env), pods, aws_data, karpenter_config, kube, parse_now(now),
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
