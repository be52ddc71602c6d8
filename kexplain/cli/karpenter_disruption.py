"""`kexplain karpenter --disruption --nodes ...`: Karpenter's disruption pass over files, written
as asked (and its page). Imported by `cli.karpenter` only when that pass runs (`PATHS`)."""
from __future__ import annotations

from typing import List, Optional

from kexplain.app.karpenter_disruption import NodeAsk, disruption_pass
from kexplain.cli.env import Environment
from kexplain.cli.exit_codes import ExitStatus, aggregate
from kexplain.cli.options import Output, parse_now
from kexplain.cli.output import save_page
from kexplain.karpenter.disruption import versions
from kexplain.render import structured
from kexplain.render.karpenter_disruption import print_disruption, print_node

__all__ = ["disruption_status", "run"]


def run(env: Environment, pods: Optional[str], nodes: List[str], aws_data: Optional[str],
                karpenter_config: Optional[str], kube, now: Optional[str], output: Output, max_input_size: int,
                max_objects: int, validate: str, namespace: Optional[str], html: Optional[str] = None,
                rules: versions.DisruptionRules = versions.DEFAULT, node: Optional[NodeAsk] = None) -> ExitStatus:
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


def disruption_status(doc: dict) -> ExitStatus:
    """--disruption: 0; with --node, 0 when the node would be disrupted now, else 1 (it stays)."""
    node = doc.get("node")
    if node is None or node.get("verdict") == "disrupted":
        return ExitStatus.SUCCESS
    return ExitStatus.UNSCHEDULABLE
