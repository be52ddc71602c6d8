"""`kexplain karpenter --disruption`'s wiring: the inputs read once, Karpenter's disruption pass,
the decision's chain (`app.karpenter_chain`: the drain through the Eviction API) and `--node NAME`'s
answer. Apart from `app.karpenter` (the Autoscaler a pending pass runs when the cluster holds
NodePools), so that a pod's answer loads neither the eviction engine nor the disruption pass."""
from __future__ import annotations

from typing import Any, Optional

from kexplain.app.karpenter_chain import chain
from kexplain.errors import KexplainError, Source
from kexplain.karpenter.disruption import why
from kexplain.karpenter.pending import load_pods_pass, load_world
from kexplain.karpenter.run import disruption, disruption_document
from kexplain.load.gcpolicy import bulk_load
from kexplain.suggest import karpenter_disruption as node_fixes

__all__ = ["disruption_pass", "node_document"]


def disruption_pass(pods: Optional[str], nodes: tuple, aws_data: Optional[str], config: Optional[str], kube: Any,
                    now: Any, *, max_bytes: int, max_objects: int, validate: str = "strict",
                    namespace: Optional[str] = None, stdin: Any = None, objects: Optional[list] = None,
                    rules: Any = None, node: Optional[str] = None) -> tuple[Any, dict]:
    """`kexplain karpenter --disruption`: the files read once (PODS optional: the pending pods that
    nominate nodes), the EC2 world, Karpenter's disruption pass on the clock `now`; returns the
    inputs and the pass's document. `objects`: the cluster read live, in place of --nodes files;
    `rules`: the Karpenter release's (`karpenter.disruption.versions`, --karpenter-version);
    `node`: --node NAME, why Karpenter does not remove it (the document's `node`)."""
    with bulk_load(freeze=True):
        inputs, _ = load_pods_pass(pods, tuple(nodes), config, kube, max_bytes=max_bytes, max_objects=max_objects,
                                   validate=validate, stdin=stdin, namespace=namespace, now=now,
                                   objects=objects, release=rules.version if rules is not None else None)
        world = load_world(aws_data)
        inputs.settings.check_world(world.instance_types, world.zones(), Source(config) if config else None)
        result = disruption(inputs, world, now, rules)
        doc = disruption_document(result)
        if doc.get("decision"):         # the chain: the evictions its termination asks for, where the pods land
            doc["decision"]["chain"] = chain(result, inputs, kube.minor)
        if node is not None:
            doc["node"] = node_document(result, node, inputs, world)
    return inputs, doc


def node_document(result: Any, name: str, inputs: Any, world: Any) -> dict:
    """The document's `node`: the checks that stop it in Karpenter's order, the verified fixes,
    what time alone changes; an unknown name is bad usage (exit 2) with the closest names."""
    try:
        found = why.explain(result, name)
    except why.UnknownNode as err:
        raise KexplainError(str(err)) from None
    now = result.ctx.now
    return {"name": found.name, "verdict": found.verdict, **({"method": found.method} if found.method else {}),
            "checks": [c.as_dict() for c in found.checks],
            "fixes": [f.as_dict() for f in node_fixes.fixes(found, result, inputs, world, now)],
            "when": node_fixes.when(found, result, now)}
