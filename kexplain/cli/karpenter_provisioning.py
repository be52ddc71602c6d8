"""`kexplain karpenter PODS`: one provisioning pass over the pending pods, its verified fixes,
written as asked. Imported by `cli.karpenter` only when the provisioning pass runs (`PATHS`)."""
from __future__ import annotations

from typing import List, Optional

from kexplain.app.karpenter import check_node_pool
from kexplain.cli.env import Environment
from kexplain.cli.exit_codes import ExitStatus, aggregate
from kexplain.cli.options import Output
from kexplain.errors import Source
from kexplain.explain.pending_pass import pass_json
from kexplain.karpenter.pending import load_pods_pass, load_world
from kexplain.karpenter.run import EXPLAIN_ALL, EXPLAIN_UNPLACED, document, schedule
from kexplain.load.gcpolicy import bulk_load
from kexplain.render import structured
from kexplain.render.karpenter import print_pass
from kexplain.suggest import karpenter as fixes

__all__ = ["exit_status", "run"]


def run(env: Environment, pods: str, nodes: List[str], aws_data: Optional[str],
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


def exit_status(doc: dict) -> ExitStatus:
    """0 when every pod Karpenter provisions for is placed, else 1."""
    for pod in doc.get("pods") or ():
        if pod.get("result") in ("Failed", "Ignored", "NotConsidered"):
            return ExitStatus.UNSCHEDULABLE
    return ExitStatus.SUCCESS
