"""`kexplain karpenter --disruption`'s wiring: the inputs read once, Karpenter's disruption pass,
the decision's chain (`app.karpenter_chain`: the drain through the Eviction API) and `--node NAME`'s
answer (`app.karpenter_disruption_node`, given by the caller). Apart from `app.karpenter` (the
Autoscaler a pending pass runs when the cluster holds NodePools), so that a pod's answer loads neither
the eviction engine nor the disruption pass."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Optional

from kexplain.app.karpenter_chain import chain
from kexplain.controllers.disruption import Statuses, note, note_head
from kexplain.errors import Source
from kexplain.karpenter.inputs import pass_of_state
from kexplain.karpenter.params import read_settings
from kexplain.karpenter.pending import load_pods_pass, load_world
from kexplain.karpenter.run import disruption, disruption_document
from kexplain.load.gcpolicy import bulk_load

__all__ = ["NodeAsk", "disruption_pass", "with_budget_notes"]

# --node NAME: the node's name and what answers it (`app.karpenter_disruption_node.node_document`,
# given by the caller, which imports it only then: the pass alone loads no suggestion)
NodeAsk = tuple[str, Callable[[Any, str, Any, Any], dict]]
KARPENTER_READS = "Karpenter's disruption (its candidates' pdb check) and the Eviction API"


def with_budget_notes(warnings: list[str], statuses: Statuses) -> list[str]:
    """`warnings` with what the output says of each budget the pass gave the disruption controller's
    status (one written without a status) that selects a pod, as `kexplain POD` says it for preemption,
    in place of that note where the PODS file's pass said it already."""
    notes = {note_head(pdb): note(pdb, status, KARPENTER_READS) for pdb, status in statuses.values()
             if status.selected}
    if not notes:
        return warnings
    return [*(w for w in warnings if not w.startswith(tuple(notes))), *notes.values()]


def disruption_pass(pods: Optional[str], nodes: tuple, aws_data: Optional[str], config: Optional[str], kube: Any,
                    now: Any, *, max_bytes: int, max_objects: int, validate: str = "strict",
                    namespace: Optional[str] = None, stdin: Any = None, objects: Optional[list] = None,
                    rules: Any = None, node: Optional[NodeAsk] = None, state: Any = None) -> tuple[Any, dict]:
    """`kexplain karpenter --disruption`: the files read once (PODS optional: the pending pods that
    nominate nodes), the EC2 world, Karpenter's disruption pass on the clock `now`; returns the
    inputs and the pass's document. `objects`: the cluster read live, in place of --nodes files;
    `rules`: the Karpenter release's (`karpenter.disruption.versions`, --karpenter-version);
    `node`: --node NAME and its answer, why Karpenter does not remove it (the document's `node`);
    `state`: the cluster's one state, read already (`kexplain cluster`), in place of PODS and the
    files: the pass's inputs are read from it (`pass_of_state`), never decoded or checked again."""
    release = rules.version if rules is not None else None
    with bulk_load(freeze=True):
        if state is not None:
            settings = read_settings(config, max_bytes)
            settings = replace(settings, release=release) if release is not None else settings
            inputs = pass_of_state(state, settings, validate=validate, now=now)
        else:
            inputs, _ = load_pods_pass(pods, tuple(nodes), config, kube, max_bytes=max_bytes, max_objects=max_objects,
                                       validate=validate, stdin=stdin, namespace=namespace, now=now,
                                       objects=objects, release=release)
        world = load_world(aws_data)
        inputs.settings.check_world(world.instance_types, world.zones(), Source(config) if config else None)
        result = disruption(inputs, world, now, rules)
        inputs.warnings[:] = with_budget_notes(inputs.warnings, result.ctx.budget_statuses)
        doc = disruption_document(result)
        if doc.get("decision"):         # the chain: the evictions its termination asks for, where the pods land
            doc["decision"]["chain"] = chain(result, inputs, kube.minor)
        if node is not None:
            name, explain_node = node
            doc["node"] = explain_node(result, name, inputs, world)
    return inputs, doc
