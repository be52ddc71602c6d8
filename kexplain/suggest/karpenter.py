"""Verified fix suggestions for the pods Karpenter will not place (`kexplain karpenter`'s `suggestions`).

Families (karpenter_nodepool, karpenter_pod, karpenter_nodeclass) propose changes per pod shape,
only where the change is the reason the pod fails; an idea is kept only when Karpenter's pass run
again places the pod and unplaces none, at most `budget` runs, shapes taking turns. Which pods a
run holds (`Verifier`: scope pods, shape or pass): docs/internals/suggest.md."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

import yaml

from kexplain.karpenter.inputs import EC2NODECLASS, NODEPOOL, PassInputs
from kexplain.karpenter.provisioning.provisioner import EXISTING_NODE, FAILED, NEW_NODE_CLAIM
from kexplain.karpenter.provisioning.scheduling.nodeclaim import InstanceTypeFilterError
from kexplain.karpenter.provisioning.scheduling.scheduler import NodePoolError
from kexplain.karpenter.provisioning.scheduling.typeindex import TypeIndex
from kexplain.karpenter.run import Pass
from kexplain.karpenter.scheduling.requirements import new_strict_pod_requirements
from kexplain.karpenter.utils import resources
from kexplain.model.pod import PodInfo
from kexplain.model.shapes import want_key
from kexplain.suggest.change import Candidate, Op, _tokens, apply_ops
from kexplain.suggest.karpenter_context import (
    Idea, KarpenterContext, Want, build_context, combined, not_placed, per_pool_errors, ready_pools, takes,
)
from kexplain.suggest.karpenter_nodeclass import FAMILIES as NODECLASS_FAMILIES
from kexplain.suggest.karpenter_nodepool import FAMILIES as NODEPOOL_FAMILIES
from kexplain.suggest.karpenter_pass import (
    BoundPods, PassRun, changed_pass, of_pass, run, scoped_inputs, shape_inputs,
)
from kexplain.suggest.karpenter_pod import FAMILIES as POD_FAMILIES
from kexplain.suggest.karpenter_scope import Scope, distinct_pods, has_reserved, pod_change_scope

ID = "karpenter"
COMBINED = "combined"
MAX_RERUNS = 24            # passes run to verify ideas, per call
SHAPE_PASS_ABOVE = 50      # pending pods above which a change is verified with the pods it concerns (Verifier)
WHOLE_BIG = 4              # passes over every pending pod of such a big pass, at most
MAX_PER_SHAPE = 4          # suggestions kept per shape of pods
MAX_POOLS = 2              # NodePools a family proposes the same kind of change to, per shape
TYPES_SHOWN = 5            # instance types named per NodeClaim (cheapest first)
BY = "karpenter"

# The order ideas are tried in for one shape: a label to declare, a taint to tolerate, a
# requirement to widen, a limit to raise, minValues, a subnet; then the pod's requests and terms.
FAMILIES = (NODEPOOL_FAMILIES[0], POD_FAMILIES[0], *NODEPOOL_FAMILIES[1:], *NODECLASS_FAMILIES, *POD_FAMILIES[1:])


def needed(doc: Mapping[str, Any]) -> bool:
    """Whether the pass's document has a pod to suggest for: one that failed, or sits on a
    NodeClaim Create refused."""
    refused = {c.get("name") for c in doc.get("nodeClaims") or () if c.get("createError")}
    return any(p.get("result") == FAILED or (p.get("result") == NEW_NODE_CLAIM and p.get("nodeClaim") in refused)
               for p in doc.get("pods") or ())


def suggestions(inputs: PassInputs, world: Any, budget: int = MAX_RERUNS, first: Pass | None = None
                ) -> list[dict[str, Any]]:
    """The verified suggestions for the pass over `inputs` ([] when every pod is placed); `first`:
    that pass when the caller ran it already (kexplain.karpenter.run.schedule)."""
    return suggestions_for(of_pass(first) if first is not None else run(inputs, world), world, budget)


@dataclass(frozen=True)
class Verdict:
    """What the pass run again said: the pods the first pass did not place that it places, and its
    scope (every pending pod, `pass`; the pods the change concerns, `shape`)."""

    after: PassRun
    placed: list[str]
    scope: str
    stands_for: Mapping[str, str]          # a placed pod -> the pod of its shape the pass ran with


NOT_PLACED = object()      # a pass over the pods a change concerns said no (Verifier._verify_within)


class Verifier:
    """Passes on changed inputs, each run once, at most `budget` of them (fewer over every pod of a
    big pass: `WHOLE_BIG`); a big pass whose pods do not reach each other is verified with the pods
    the change concerns alone, which gives the whole pass's verdict while NodePool limits play no
    part (why: docs/internals/suggest.md, "Verifier")."""

    def __init__(self, base: PassRun, world: Any, budget: int, shape_above: int = SHAPE_PASS_ABOVE) -> None:
        self.base, self.world = base, world
        self.left = budget
        self.big = len(base.inputs.pending) > shape_above
        self.whole_left = min(budget, WHOLE_BIG) if self.big else budget
        self.reducible = False
        self.done: dict[str, PassRun | None] = {}
        self.unplaced = [p.key for p in not_placed(base)]
        self.bound: BoundPods | None = None
        self.anti_affinity: list[PodInfo] | None = None     # one bound anti-affinity pod of each kind
        self.pod_keys: dict[int, tuple[PodInfo, str]] = {}   # `distinct_pods`' keys, every verify's

    def bind(self, ctx: KarpenterContext) -> None:
        self.ctx = ctx
        self.reserved = has_reserved(ctx.pools)
        self.reducible = self.big and uncoupled(ctx, self.reserved)

    def spent(self) -> bool:
        return self.left <= 0 or (self.whole_left <= 0 and not self.reducible)

    def rerun(self, change: Sequence[Op], scope: Sequence[str] | None = None, nodes: bool = True,
              within: Scope | None = None) -> PassRun | None:
        """The pass over the changed input: every pending pod (`scope` and `within` None), only
        those of `scope`, or only what `within` names (pods, Nodes, NodeClaims)."""
        key = change_key(change) + json.dumps([scope, nodes, within is not None])
        if key in self.done:
            return self.done[key]
        whole = scope is None and within is None
        if self.left <= 0 or (whole and self.whole_left <= 0):
            return None
        self.left -= 1
        if whole:
            self.whole_left -= 1
        changed = changed_pass(self.base.inputs, change)
        if changed is not None and within is not None:
            if self.bound is None:
                self.bound = BoundPods.of(self.base.inputs, self.base.cluster)
            changed = scoped_inputs(changed, set(within.pods), set(within.nodes), set(within.node_claims),
                                    set(within.node_pools), self.bound)
        elif changed is not None and scope is not None:
            changed = shape_inputs(changed, set(scope), nodes)
        try:
            found = run(changed, self.world, self.base) if changed is not None else None
        except Exception:                  # noqa: BLE001 - a change the pass cannot run is no fix
            found = None
        self.done[key] = found
        return found

    def verify(self, change: Sequence[Op], want: Want) -> Verdict | None:
        """The verdict on a change for the pods of `want`: None unless it places one of them and
        unplaces no pod the first pass placed."""
        kinds = {op["object"]["kind"] for op in change}
        if self.big and kinds == {"Pod"}:
            verdict = self._verify_within(change, want)
            if verdict is not None:
                return verdict if verdict is not NOT_PLACED else None
        limited = {p.name for p in self.ctx.pools if p.node_pool.spec.limits is not None}
        if self.reducible and "Pod" not in kinds and not self._changed_pools(change) & limited:
            pools = self._changed_pools(change)
            kept = _by_shape(p.pod for p in self.base.result.pods
                             if self.base.placements[p.pod.key].node_pool in pools
                             and self.base.placements[p.pod.key].placed)
            unplaced = {w.pod.key: w.keys for w in self.ctx.wants}
            after = self.rerun(change, [*unplaced, *kept], nodes=False)
            if after is None or any(not after.placed(k) for k in kept):
                return None
            if not any(self._doubt(after, k, limited) for k in unplaced):
                return self._verdict(after, want, "shape", unplaced)
        elif self.reducible and kinds == {"Pod"}:
            after = self.rerun(change, [want.pod.key])
            if after is None:
                return None
            if after.placements[want.pod.key].result != EXISTING_NODE and not self._doubt(after, want.pod.key, limited):
                return self._verdict(after, want, "shape", {want.pod.key: want.keys})
        after = self.rerun(change)
        if after is None or any(p.placed and not after.placed(k) for k, p in self.base.placements.items()):
            return None                       # it would leave a pod the first pass placed unplaced
        return self._verdict(after, want, "pass")

    def _verify_within(self, change: Sequence[Op], want: Want) -> Verdict | object | None:
        """A pass over the changed pods alone and their nodes, when nothing else can reach them
        (`karpenter_scope`): a Verdict, NOT_PLACED, or None when it cannot decide (the whole pass then)."""
        changed = changed_pass(self.base.inputs, change)
        if changed is None:
            return NOT_PLACED
        refs = {(op["object"].get("namespace") or "default", op["object"]["name"]) for op in change}
        keys = [p.key for p in changed.pending if (p.namespace, p.name) in refs]
        if self.anti_affinity is None:
            self.anti_affinity = distinct_pods(pod for pod, _ in self.base.cluster.anti_affinity_pods)
        scope = pod_change_scope(changed.pending, keys, self.ctx.pools,
                                 self.anti_affinity,
                                 self.base.inputs.nodes, self.base.inputs.node_claims, self.reserved, self.pod_keys)
        if scope is None:
            return None
        after = self.rerun(change, within=scope)
        if after is None:
            return NOT_PLACED
        if any(after.placements[k].result == EXISTING_NODE for k in scope.pods):
            return None                    # room on existing nodes, which the other pods take too
        if any(self.base.placements[k].placed and not after.placed(k) for k in scope.pods):
            return NOT_PLACED
        return self._verdict(after, want, "pods", {k: [k] for k in scope.pods}) or NOT_PLACED

    def _doubt(self, after: PassRun, key: str, limited: set[str]) -> bool:
        """Whether NodePool limits, which other pods draw on too, decided the pod's fate in a pass of some
        pods only: placed on a NodePool with limits, or kept off one by them."""
        placement = after.placements[key]
        if placement.placed:
            return placement.node_pool in limited
        pod = next(p.pod for p in after.result.pods if p.pod.key == key)
        alone = Want([pod], new_strict_pod_requirements(pod), resources.requests_for_pods([pod.spec]))
        for name, err in per_pool_errors(after, pod).items():
            if name not in limited:
                continue
            if isinstance(err, NodePoolError):
                return True
            pool = self.ctx.pool(name)
            if isinstance(err, InstanceTypeFilterError) and not err.fits and pool is not None and takes(pool, alone):
                return True
        return False

    def _verdict(self, after: PassRun, want: Want, scope: str,
                 shapes: Mapping[str, Sequence[str]] | None = None) -> Verdict | None:
        """`shapes`: the pods run, each standing for the pods of its shape (a pass of the
        shape's pods: each pod's fate there is its own)."""
        if shapes is None:
            stands_for = {k: k for k in self.unplaced if after.placed(k)}
        else:
            stands_for = {k: rep for rep, keys in shapes.items() if after.placed(rep) for k in keys}
        if not stands_for.keys() & set(want.keys):
            return None
        return Verdict(after, [k for k in self.unplaced if k in stands_for], scope, stands_for)

    def _changed_pools(self, change: Sequence[Op]) -> set[str]:
        names = {op["object"]["name"] for op in change if op["object"]["kind"] == NODEPOOL}
        classes = {op["object"]["name"] for op in change if op["object"]["kind"] == EC2NODECLASS}
        return names | {p.name for p in self.ctx.pools if p.node_pool.spec.template.spec.node_class_ref.name in classes}


def _by_shape(pods: Iterable[PodInfo]) -> list[str]:
    """One pod of each shape (the first)."""
    return list({want_key(p) or p.key: p.key for p in reversed(list(pods))}.values())[::-1]


def uncoupled(ctx: KarpenterContext, reserved: bool) -> bool:
    """No pod reaches another but through room on existing nodes and NodePool limits (weighed per
    verdict: `Verifier._doubt`): no topology spread, pod (anti-)affinity or `reserved` offerings."""
    if ctx.run.cluster.anti_affinity_pods or reserved:
        return False
    for pod in ctx.run.inputs.pending:
        affinity = pod.spec.get("affinity") or {}
        if pod.spec.get("topologySpreadConstraints") or affinity.get("podAffinity") or affinity.get("podAntiAffinity"):
            return False
    return True


def change_key(change: Sequence[Op]) -> str:
    return json.dumps(list(change), sort_keys=True, default=str)


def suggestions_for(base: PassRun, world: Any, budget: int = MAX_RERUNS,
                    shape_above: int = SHAPE_PASS_ABOVE) -> list[dict[str, Any]]:
    verifier = Verifier(base, world, budget, shape_above)
    try:
        ctx = build_context(base, world, verifier.rerun)
    except Exception:                      # noqa: BLE001 - suggestions never stop an explanation
        return []
    if not ctx.wants:
        return []
    verifier.bind(ctx)
    order = {p.pod.key: i for i, p in enumerate(base.result.pods)}
    kept: dict[str, dict[str, Any]] = {}
    per_want = [0] * len(ctx.wants)
    done_groups: set[str] = set()
    for index, idea in _turns(ctx, per_want):
        if per_want[index] >= MAX_PER_SHAPE or (idea.group and idea.group in done_groups):
            continue
        if verifier.spent():
            break
        want = ctx.wants[index]
        candidate = _candidate(idea)
        if candidate is None or not candidate.change:
            continue
        key = change_key(candidate.change)
        if key in kept:
            if set(kept[key]["pods"]) & set(want.keys):
                per_want[index] += 1
            continue
        try:
            verdict = verifier.verify(candidate.change, want)
        except Exception:                  # noqa: BLE001 - a change the pass cannot judge is no fix
            verdict = None
        if verdict is None:
            continue
        same = [s for s in kept.values() if (s["kind"], s["target"]) == (candidate.kind, candidate.target)]
        if any(set(verdict.placed) <= set(s["pods"]) for s in same):
            continue                         # one like it places these pods already
        kept[key] = suggestion(candidate, verdict, base.inputs)
        per_want[index] += 1
        if idea.group:
            done_groups.add(idea.group)
    return renumbered(sorted(kept.values(), key=lambda s: min(order[k] for k in s["pods"])),
                      len(base.result.node_claims))


def renumbered(found: list[dict[str, Any]], taken: int) -> list[dict[str, Any]]:
    """The suggestions' new NodeClaims numbered on after the `taken` ones of the pass explained and of
    the suggestions before (each pass run again numbers from `-00001`): no name for two NodeClaims."""
    number = taken
    for s in found:
        verified = s.get("verified") or {}
        names: dict[str, str] = {}
        made = [c.get("name") for c in verified.get("nodeClaims") or ()] + \
            [p.get("nodeClaim") for p in verified.get("pods") or () if p.get("result") == NEW_NODE_CLAIM]
        for name in dict.fromkeys(n for n in made if n):
            number += 1
            names[name] = f"{name.rsplit('-', 1)[0]}-{number:05d}"
        for c in verified.get("nodeClaims") or ():
            if c.get("name") in names:
                c["name"] = names[c["name"]]
        for p in verified.get("pods") or ():
            if p.get("result") == NEW_NODE_CLAIM and p.get("nodeClaim") in names:
                p["nodeClaim"] = names[p["nodeClaim"]]
    return found


def _candidate(idea: Idea) -> Candidate | None:
    if idea.candidate is not None:
        return idea.candidate
    try:
        return idea.make() if idea.make is not None else None
    except Exception:                      # noqa: BLE001 - an idea that fails on an input it did not foresee
        return None


def _ideas(ctx: KarpenterContext, want: Want) -> list[Idea]:
    """Each family's ideas, from its first `MAX_POOLS` NodePools (in the scheduler's order)."""
    out: list[Idea] = []
    for family in FAMILIES:
        try:
            found = family(ctx, want)
        except Exception:                  # noqa: BLE001 - suggestions never stop an explanation
            continue
        pools = list(dict.fromkeys(i.pool for i in found))[:MAX_POOLS]
        out.extend(i for i in found if i.pool in pools)
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
def suggestion(candidate: Candidate, verdict: Verdict, inputs: PassInputs) -> dict[str, Any]:
    """kind, target, description, change, the pods it places, a YAML fragment and what the pass run
    again did (`verified`); a shape pass's NodeClaims given as made for each pod alone (`alone`)."""
    after, placed = verdict.after, verdict.placed
    where = {k: after.placements[verdict.stands_for[k]] for k in placed}
    pods = []
    for key in placed:
        p = where[key]
        entry = {"pod": key, "result": p.result}
        for field, value in (("node", p.node), ("nodeClaim", p.node_claim), ("nodePool", p.node_pool)):
            if value and not (field == "nodeClaim" and verdict.scope == "shape"):
                entry[field] = value
        if verdict.stands_for[key] != key:
            entry["as"] = verdict.stands_for[key]     # verified with this pod of its shape
        pods.append(entry)
    claims = _alone(verdict) if verdict.scope == "shape" else _claims(after, [where[k].node_claim for k in placed])
    return {"kind": candidate.kind, "target": candidate.target, "description": candidate.description,
            "change": [dict(op) for op in candidate.change], "pods": placed,
            "yaml": fragment(candidate.change, objects_of(inputs)),
            "verified": {"by": BY, "scope": verdict.scope, "pods": pods, "nodeClaims": claims}}


def _claims(after: PassRun, names: Iterable[str]) -> list[dict[str, Any]]:
    """The new NodeClaims of the pass that the pods went to."""
    out = []
    for name in dict.fromkeys(n for n in names if n):
        created = after.claims.get(name)
        if created is None:
            continue
        claim = created.claim
        its = list(claim.instance_type_options)
        out.append({"name": name, "nodePool": claim.node_pool_name, "pods": [p.key for p in claim.pods],
                    "instanceTypes": [it.name for it in its[:TYPES_SHOWN]],
                    "prices": _prices(after, claim.requirements, its[:TYPES_SHOWN]),
                    "instanceTypeCount": len(its)})
    return out


def _alone(verdict: Verdict) -> list[dict[str, Any]]:
    """Per shape placed on a new NodeClaim, the NodeClaim its NodePool (as changed) makes for
    one of its pods alone: the types that take it, cheapest first."""
    after = verdict.after
    pools = {p.name: p for p in ready_pools(after)}
    shapes: dict[str, list[str]] = {}
    for key, rep in verdict.stands_for.items():
        shapes.setdefault(rep, []).append(key)
    out = []
    for rep, keys in shapes.items():
        placement = after.placements[rep]
        pool = pools.get(placement.node_pool)
        if placement.result != NEW_NODE_CLAIM or pool is None:
            continue
        pod = next(p.pod for p in after.result.pods if p.pod.key == rep)
        want = Want([pod], new_strict_pod_requirements(pod), resources.requests_for_pods([pod.spec]))
        reqs = combined(pool, want)
        if reqs is None:
            continue
        its = _index(after).question(reqs).order_by_price(takes(pool, want))
        out.append({"nodePool": pool.name, "pods": keys, "alone": True,
                    "instanceTypes": [it.name for it in its[:TYPES_SHOWN]],
                    "prices": _prices(after, reqs, its[:TYPES_SHOWN]),
                    "instanceTypeCount": len(its)})
    return out


def _index(run: PassRun) -> TypeIndex:
    """The pass's instance-type index (a fresh one when no scheduler ran)."""
    return run.result.type_index or TypeIndex()


def _prices(run: PassRun, requirements: Any, its: Sequence[Any]) -> list[str]:
    """Each type's cheapest available offering the requirements allow, as the document writes
    a NodeClaim's prices."""
    question = _index(run).question(requirements)
    return [run.cloud.price_text(question.cheapest_price(it)) for it in its]


def objects_of(inputs: PassInputs) -> Callable[[Mapping[str, Any]], Mapping[str, Any] | None]:
    """The stored object a change's `object` reference names (pending pods, NodePools, EC2NodeClasses)."""
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
    """The change as YAML people would write into the objects: per object (the first pod of a shape standing
    for the others) the fields it sets as they then read, a changed list entry shown whole (a named one, e.g.
    a container, by its name and the changed field); removals as comments."""
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
