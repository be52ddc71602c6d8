"""Verified fix suggestions for the pods Karpenter will not place: the `kexplain karpenter`
document's `suggestions` key.

The pods the pass failed (or whose NodeClaim Create refused) are grouped by shape (the replicas
of one workload fail alike); for each shape the fix families propose changes, each only on a
NodePool (or EC2NodeClass) where it is the reason the pod fails there:
- on a NodePool (karpenter_nodepool): declare the label the pod selects, widen a requirement just
  enough for the cheapest instance type that takes the pod, raise a limit to what the NodeClaim
  needs, relax minValues;
- on the pod (karpenter_pod): tolerate a NodePool's taint, lower a request to what the largest
  fitting type takes after overhead, drop a nodeSelector or affinity term no NodePool can meet;
- on an EC2NodeClass (karpenter_nodeclass): a subnet in the zone the pod needs;
and, for a shape none of these places, each NodePool's changes together.

An idea is only an idea until Karpenter's pass, run again on the changed input (every pending
pod, the same cluster and settings), places the pod (an existing node or in-flight NodeClaim, or
a new NodeClaim that Create makes) and leaves no pod the first pass placed unplaced. Changes are
made to every pod of the shape, so one run answers for all of them, and every other pod the first
pass did not place is checked too: a suggestion names all the pods it places. Ideas of different
shapes that are the same change run once. At most `budget` passes are run per call (the first
pass not counted); ideas are tried shape by shape in turn, pods in pass order, so that every shape
gets its first ideas before any gets its last.

Why the whole pass and not the shape's pods alone: other pods take room on existing nodes, in
in-flight NodeClaims and from NodePool limits, and take part in topology, so a pass without them
can place a pod the whole pass does not, and it cannot show that no other pod is made worse. A
pass over a few hundred pending pods takes well under a second (the scheduler's per-shape scan
and the instance types of unchanged EC2NodeClasses are not recomputed), which the budget bounds.
"""
from __future__ import annotations

import json
from typing import Any, Callable, Iterator, Mapping, Sequence

import yaml

from kexplain.karpenter.inputs import PassInputs
from kexplain.karpenter.provisioning.provisioner import FAILED, NEW_NODE_CLAIM
from kexplain.suggest.change import Candidate, Op, _tokens, apply_ops
from kexplain.suggest.karpenter_context import Idea, KarpenterContext, Want, build_context, not_placed
from kexplain.suggest.karpenter_nodeclass import FAMILIES as NODECLASS_FAMILIES
from kexplain.suggest.karpenter_nodepool import FAMILIES as NODEPOOL_FAMILIES
from kexplain.suggest.karpenter_pass import PassRun, changed_pass, run
from kexplain.suggest.karpenter_pod import FAMILIES as POD_FAMILIES

ID = "karpenter"
COMBINED = "combined"
MAX_RERUNS = 24            # passes run to verify ideas, per call
MAX_PER_SHAPE = 4          # suggestions kept per shape of pods
TYPES_SHOWN = 5            # instance types named per NodeClaim (cheapest first)
BY = "karpenter"

# The order ideas are tried in for one shape: NodePool changes, the EC2NodeClass, the pod.
FAMILIES = (*NODEPOOL_FAMILIES[:2], *POD_FAMILIES[:1], *NODEPOOL_FAMILIES[2:], *NODECLASS_FAMILIES,
            *POD_FAMILIES[1:])


def needed(doc: Mapping[str, Any]) -> bool:
    """Whether the pass's document has a pod to suggest for: one that failed, or sits on a
    NodeClaim Create refused."""
    refused = {c.get("name") for c in doc.get("nodeClaims") or () if c.get("createError")}
    return any(p.get("result") == FAILED or (p.get("result") == NEW_NODE_CLAIM and p.get("nodeClaim") in refused)
               for p in doc.get("pods") or ())


def suggestions(inputs: PassInputs, world: Any, budget: int = MAX_RERUNS) -> list[dict[str, Any]]:
    """The verified suggestions for the pass over `inputs` ([] when every pod is placed)."""
    return suggestions_for(run(inputs, world), world, budget)


class _Runs:
    """Passes on changed inputs, each change run once, at most `budget` of them."""

    def __init__(self, base: PassRun, world: Any, budget: int) -> None:
        self.base, self.world, self.left = base, world, budget
        self.done: dict[str, PassRun | None] = {}

    def __call__(self, change: Sequence[Op]) -> PassRun | None:
        key = change_key(change)
        if key in self.done:
            return self.done[key]
        if self.left <= 0:
            return None
        self.left -= 1
        changed = changed_pass(self.base.inputs, change)
        try:
            found = run(changed, self.world, self.base) if changed is not None else None
        except Exception:                  # noqa: BLE001 - a change the pass cannot run is no fix
            found = None
        self.done[key] = found
        return found


def change_key(change: Sequence[Op]) -> str:
    return json.dumps(list(change), sort_keys=True, default=str)


def suggestions_for(base: PassRun, world: Any, budget: int = MAX_RERUNS) -> list[dict[str, Any]]:
    runs = _Runs(base, world, budget)
    ctx = build_context(base, world, runs)
    if not ctx.wants:
        return []
    order = {p.pod.key: i for i, p in enumerate(base.result.pods)}
    unplaced = [p.key for p in not_placed(base)]
    kept: dict[str, dict[str, Any]] = {}
    per_want = [0] * len(ctx.wants)
    done_groups: set[str] = set()
    for index, idea in _turns(ctx, per_want):
        if per_want[index] >= MAX_PER_SHAPE or (idea.group and idea.group in done_groups):
            continue
        want = ctx.wants[index]
        candidate = _candidate(idea)
        if candidate is None or not candidate.change:
            continue
        key = change_key(candidate.change)
        if key in kept:
            if set(kept[key]["pods"]) & set(want.keys):
                per_want[index] += 1
            continue
        if runs.left <= 0 and key not in runs.done:
            break
        after = runs(candidate.change)
        if after is None or not any(after.placed(k) for k in want.keys):
            continue
        if any(p.placed and not after.placed(k) for k, p in base.placements.items()):
            continue                         # it would leave a pod the first pass placed unplaced
        placed = [k for k in unplaced if after.placed(k)]
        same = [s for s in kept.values() if (s["kind"], s["target"]) == (candidate.kind, candidate.target)]
        if any(set(placed) <= set(s["pods"]) for s in same):
            continue                         # one like it places these pods already
        kept[key] = suggestion(candidate, placed, after, base.inputs)
        per_want[index] += 1
        if idea.group:
            done_groups.add(idea.group)
    return sorted(kept.values(), key=lambda s: min(order[k] for k in s["pods"]))


def _candidate(idea: Idea) -> Candidate | None:
    if idea.candidate is not None:
        return idea.candidate
    try:
        return idea.make() if idea.make is not None else None
    except Exception:                      # noqa: BLE001 - an idea that fails on an input it did not foresee
        return None


def _ideas(ctx: KarpenterContext, want: Want) -> list[Idea]:
    out: list[Idea] = []
    for family in FAMILIES:
        try:
            out.extend(family(ctx, want))
        except Exception:                  # noqa: BLE001 - suggestions never stop an explanation
            continue
    return out


def _turns(ctx: KarpenterContext, per_want: list[int]) -> Iterator[tuple[int, Idea]]:
    """(shape index, idea) in turn over the shapes; a shape's combined ideas come after its own,
    only when none of them was kept."""
    queues = [_ideas(ctx, want) for want in ctx.wants]
    combos_added = [False] * len(queues)
    depth = 0
    while True:
        more = False
        for i, queue in enumerate(queues):
            if depth >= len(queue) and not combos_added[i]:
                combos_added[i] = True
                if per_want[i] == 0:
                    queue.extend(_combined(queue))
            if depth < len(queue):
                more = True
                yield i, queue[depth]
        if not more:
            return
        depth += 1


def _combined(ideas: Sequence[Idea]) -> list[Idea]:
    """For each NodePool with ideas of two or more kinds, all of them at once."""
    by_pool: dict[str, list[Candidate]] = {}
    for idea in ideas:
        if idea.pool and idea.candidate is not None:
            by_pool.setdefault(idea.pool, []).append(idea.candidate)
    out = []
    for pool, found in by_pool.items():
        if len({c.kind for c in found}) < 2:
            continue
        first = {}
        for c in found:
            first.setdefault(c.kind, c)
        parts = list(first.values())
        ops = [op for c in parts for op in c.change]
        removals = sorted((op for op in ops if op["op"] == "remove"), key=_remove_order, reverse=True)
        change = tuple([op for op in ops if op["op"] != "remove"] + removals)
        targets = list(dict.fromkeys(c.target for c in parts))
        out.append(Idea(Candidate(COMBINED, ", ".join(targets), "; ".join(c.description for c in parts), change),
                        pool))
    return out


def _remove_order(op: Op) -> tuple[Any, ...]:
    """List entries removed from the end first, so that the indices of the others still hold."""
    return tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in _tokens(op["path"]))


# -- the suggestion as the document holds it ------------------------------------------------------
def suggestion(candidate: Candidate, placed: list[str], after: PassRun, lookup: PassInputs | None = None
               ) -> dict[str, Any]:
    """kind, target, description, change (as kexplain.suggest.change writes it), the pods it
    places, a YAML fragment of the change, and what the pass run again did (`verified`)."""
    claims = []
    for name in dict.fromkeys(after.placements[k].node_claim for k in placed if after.placements[k].node_claim):
        created = after.claims.get(name)
        if created is None:
            continue
        claim = created.claim
        its = list(claim.instance_type_options)
        claims.append({"name": name, "nodePool": claim.node_pool_name, "pods": [p.key for p in claim.pods],
                       "instanceTypes": [it.name for it in its[:TYPES_SHOWN]],
                       "prices": [after.cloud.price_of(it, claim.requirements) for it in its[:TYPES_SHOWN]],
                       "instanceTypeCount": len(its)})
    pods = []
    for key in placed:
        p = after.placements[key]
        entry = {"pod": key, "result": p.result}
        for field, value in (("node", p.node), ("nodeClaim", p.node_claim), ("nodePool", p.node_pool)):
            if value:
                entry[field] = value
        pods.append(entry)
    return {"kind": candidate.kind, "target": candidate.target, "description": candidate.description,
            "change": [dict(op) for op in candidate.change], "pods": placed,
            "yaml": fragment(candidate.change, objects_of(after.inputs if lookup is None else lookup)),
            "verified": {"by": BY, "pods": pods, "nodeClaims": claims}}


def objects_of(inputs: PassInputs) -> Callable[[Mapping[str, Any]], Mapping[str, Any] | None]:
    """The stored object a change's `object` reference names (pending pods, NodePools,
    EC2NodeClasses)."""
    found: dict[tuple[str, str, str], Mapping[str, Any]] = {}
    for pod in inputs.pending:
        found[("Pod", pod.namespace, pod.name)] = pod.obj
    for np in inputs.node_pools:
        found[("NodePool", "", np.name)] = np.obj
    for nc in inputs.node_classes:
        found[("EC2NodeClass", "", nc.name)] = nc.obj
    return lambda ref: found.get((ref["kind"], (ref.get("namespace") or "default") if ref["kind"] == "Pod" else "",
                                  ref["name"]))


def fragment(change: Sequence[Op], lookup: Callable[[Mapping[str, Any]], Mapping[str, Any] | None]) -> str:
    """The change as YAML people would write into the objects: per object (the first pod of a
    shape standing for the others) the fields it sets as they then read, a changed list entry
    shown whole (a named one, e.g. a container, by its name and the changed field); removals
    as comments."""
    groups: dict[tuple[str, str, str], list[Op]] = {}
    for op in change:
        ref = op["object"]
        groups.setdefault((ref["kind"], ref.get("namespace") or "", ref["name"]), []).append(op)
    pods = [k for k in groups if k[0] == "Pod"]
    out: list[str] = []
    for (kind, namespace, name), ops in groups.items():
        if kind == "Pod" and (kind, namespace, name) != pods[0]:
            continue
        more = f" (and {len(pods) - 1} more like it)" if kind == "Pod" and len(pods) > 1 else ""
        out.append(f"# {kind} {namespace + '/' if namespace else ''}{name}{more}")
        original = lookup(ops[0]["object"])
        try:
            changed = apply_ops(dict(original), ops) if original is not None else None
        except (KeyError, IndexError, ValueError):
            changed = None
        tree: dict[str, Any] = {}
        for op in ops:
            tokens = _tokens(op["path"])
            if op["op"] == "remove":
                gone = _at(original, tokens)
                out.append("# remove " + _dotted(tokens) + (f": {_flow(gone)}" if isinstance(gone, (dict, list)) else ""))
                continue
            cut = next((i for i, t in enumerate(tokens) if t == "-" or t.isdigit()), None)
            if cut is None:
                _nest(tree, tokens, _at(changed, tokens, op.get("value")))
                continue
            if tokens[cut] == "-":
                _nest(tree, [*tokens[:cut], f"\0{len(_at(tree, tokens[:cut], {}) or {}):08d}"], op.get("value"))
                continue
            at = [*tokens[:cut], f"\0{int(tokens[cut]):08d}"]
            element = _at(changed, tokens[:cut + 1], op.get("value"))
            rest = tokens[cut + 1:]
            if isinstance(element, dict) and "name" in element and rest:
                _nest(tree, [*at, "name"], element["name"])
                _nest(tree, [*at, *rest], _at(element, rest))
            else:
                _nest(tree, at, element)
        if tree:
            out.append(yaml.safe_dump(_lists(tree), default_flow_style=None, sort_keys=False, width=1000).rstrip())
    return "\n".join(out)


def _at(obj: Any, tokens: Sequence[str], default: Any = None) -> Any:
    node = obj
    for tok in tokens:
        if isinstance(node, list) and tok.isdigit() and int(tok) < len(node):
            node = node[int(tok)]
        elif isinstance(node, dict) and tok in node:
            node = node[tok]
        else:
            return default
    return node


def _dotted(tokens: Sequence[str]) -> str:
    return "".join(f"[{t}]" if t.isdigit() else (("." if i else "") + t) for i, t in enumerate(tokens))


def _flow(value: Any) -> str:
    return yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=1000).strip()


def _nest(tree: dict[str, Any], tokens: Sequence[str], value: Any) -> None:
    node = tree
    for tok in tokens[:-1]:
        node = node.setdefault(tok, {})
    node[tokens[-1]] = value


def _lists(node: Any) -> Any:
    """Maps whose keys are list positions written as lists."""
    if not isinstance(node, dict):
        return node
    if node and all(k.startswith("\0") for k in node):
        return [_lists(node[k]) for k in sorted(node)]
    return {k: _lists(v) for k, v in node.items()}


__all__ = ["MAX_RERUNS", "fragment", "needed", "suggestion", "suggestions", "suggestions_for"]
