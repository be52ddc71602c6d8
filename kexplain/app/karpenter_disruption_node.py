"""`kexplain karpenter --disruption --node NAME`'s answer: why Karpenter does not remove the node, with the
verified fixes (`suggest.karpenter_disruption`). Apart from the pass (`app.karpenter_disruption`) so that a pass
without --node loads none of the suggestions: `cli.karpenter` imports it by name (`PATHS`) when --node is given."""
from __future__ import annotations

from typing import Any

from kexplain.errors import KexplainError
from kexplain.karpenter.disruption import why
from kexplain.suggest import karpenter_disruption as node_fixes

__all__ = ["node_document"]


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
            **({"ignored": ignored} if (ignored := why.ignored(result, found.name)) else {}),
            "fixes": [f.as_dict() for f in node_fixes.fixes(found, result, inputs, world, now)],
            "when": node_fixes.then_stops(found, result, inputs, world, node_fixes.when(found, result, now))}
