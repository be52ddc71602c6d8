"""The smallest changes that let Karpenter remove one node, each verified by running the disruption
pass again over the input with the change applied (the node then in the acting decision, or at
least in a command of its method), and what time alone changes (when the NodeClaim turns
Consolidatable, when a pod's do-not-disrupt duration ends, when a budget's window opens or closes).
Ideas come from the checks that stop the node (`karpenter.disruption.why`); a fix is data the
renderers read (`as_dict`)."""
from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Mapping, Sequence

from kexplain.config._decode import parse_duration
from kexplain.controllers.disruption import scaled
from kexplain.errors import AdmissionRejected, InputError
from kexplain.karpenter.apis.nodepool import parse_node_pool
from kexplain.karpenter.disruption.budgets import window
from kexplain.karpenter.disruption.candidate import NODEPOOL_LABEL, condition
from kexplain.karpenter.disruption.pods import DO_NOT_DISRUPT, parse_do_not_disrupt
from kexplain.karpenter.disruption import why
from kexplain.karpenter.disruption.why import NodeWhy
from kexplain.karpenter.inputs import PassInputs, parse_time
from kexplain.karpenter.run import disruption
from kexplain.karpenter.utils.objects import name_of
from kexplain.model.pod import PodInfo
from kexplain.suggest.change import Op, apply_ops, pointer

MAX_RERUNS = 12                 # disruption passes the fixes of one node may run
CAPACITY_TYPE = "karpenter.sh/capacity-type"
TYPE_KEYS = ("node.kubernetes.io/instance-type", "karpenter.k8s.aws/instance-family",
             "karpenter.k8s.aws/instance-category", "karpenter.k8s.aws/instance-generation",
             "karpenter.k8s.aws/instance-size")
SETTINGS, PDB = "KarpenterSettings", "PodDisruptionBudget"
GATE = "SpotToSpotConsolidation"
NEVER = "never"                 # what time alone changes: the moment of a window that never closes


@dataclass(frozen=True)
class DisruptionFix:
    """A verified change: what it changes (ops on the objects as given), in words, and what the pass
    then does with the node (`method`; `acts`: its command is the pass's decision)."""

    kind: str
    target: str
    description: str
    change: tuple[Op, ...]
    method: str
    acts: bool
    command: str

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "target": self.target, "description": self.description,
                "change": list(self.change), "verified": {"method": self.method, "acts": self.acts,
                                                          "command": self.command}}


def op(kind: str, name: str, operation: str, path: str, value: Any = None, namespace: str = "") -> Op:
    obj = {"kind": kind, "name": name, **({"namespace": namespace} if namespace else {})}
    return {"object": obj, "op": operation, "path": path, **({"value": value} if operation != "remove" else {})}


# -- the input with a change -------------------------------------------------------------------------
def _named(obj: Mapping[str, Any], kind: str, name: str, namespace: str = "") -> bool:
    meta = obj.get("metadata") or {}
    return meta.get("name") == name and (kind in ("Node", "NodeClaim", "NodePool")
                                         or (meta.get("namespace") or "default") == (namespace or "default"))


def pdb_status(obj: dict[str, Any]) -> dict[str, Any]:
    """The disruption controller's disruptionsAllowed for a changed spec, from the stored health."""
    spec, status = obj.get("spec") or {}, dict(obj.get("status") or {})
    expected, healthy = status.get("expectedPods"), status.get("currentHealthy")
    if not isinstance(expected, int) or not isinstance(healthy, int):
        return obj
    try:
        if "maxUnavailable" in spec:
            desired = max(expected - scaled(spec["maxUnavailable"], expected), 0)
        else:
            desired = scaled(spec.get("minAvailable", 0), expected)
    except ValueError:
        return obj
    status.update({"desiredHealthy": desired, "disruptionsAllowed": max(healthy - desired, 0)})
    return {**obj, "status": status}


def overlaid(inputs: PassInputs, change: Sequence[Op]) -> PassInputs | None:
    """The inputs with the change applied; None when it cannot be (a NodePool its CRD refuses)."""
    bound, nodes, claims, pools = list(inputs.bound_pods), list(inputs.nodes), list(inputs.node_claims), \
        list(inputs.node_pools)
    objects, settings = dict(inputs.objects), inputs.settings
    for o in change:
        kind, name, ns = o["object"]["kind"], o["object"]["name"], o["object"].get("namespace", "")
        if kind == "Pod":
            bound = [PodInfo(apply_ops(p.obj, [o])) if p.name == name and p.namespace == (ns or "default") else p
                     for p in bound]
        elif kind in ("Node", "NodeClaim"):
            items = nodes if kind == "Node" else claims
            items[:] = [apply_ops(x, [o]) if _named(x, kind, name) else x for x in items]
        elif kind == PDB:
            objects[PDB] = [pdb_status(apply_ops(x, [o])) if _named(x, kind, name, ns) else x
                            for x in objects.get(PDB, ())]
        elif kind == "NodePool":
            try:
                pools = [parse_node_pool(apply_ops(np.obj, [o]), validate="ignore", invalid="refuse")
                         if np.name == name else np for np in pools]
            except (AdmissionRejected, InputError, KeyError, IndexError, ValueError):
                return None
        elif kind == SETTINGS:
            settings = replace(settings, feature_gates=replace(settings.feature_gates, spot_to_spot_consolidation=True))
    return replace(inputs, bound_pods=bound, nodes=nodes, node_claims=claims, node_pools=pools, objects=objects,
                   settings=settings, warnings=[])


class Verifier:
    """Runs the pass again over changed inputs (at most MAX_RERUNS times) and says what it did with the node."""

    def __init__(self, inputs: PassInputs, world: Any, now: datetime, node: str, base: int = 0,
                 rules: Any = None) -> None:
        self.inputs, self.world, self.now, self.node, self.left = inputs, world, now, node, MAX_RERUNS
        self.base = base                                  # how far the node got without a change (`rank`)
        self.rules = rules                                # the Karpenter release's (None: the default)
        self.last: tuple[Any, NodeWhy] | None = None     # the last pass run again and its answer for the node

    def verify(self, kind: str, target: str, description: str, change: list[Op]) -> DisruptionFix | None:
        found = self.rerun(change)
        if found is None:
            return None
        method, acts, cmd, _ = found
        return DisruptionFix(kind, target, description, tuple(change), method, acts, cmd)

    def rerun(self, change: list[Op]) -> tuple[str, bool, str, str] | None:
        """(the method whose command takes the node, whether it acts, the command, the replacement's
        first instance type) when the change takes the node further than it got (`rank`), else None."""
        if self.left <= 0:
            return None
        self.left -= 1
        changed = overlaid(self.inputs, change)
        if changed is None:
            return None
        try:
            result = disruption(changed, self.world, self.now, self.rules)
            after = why.explain(result, self.node)
        except Exception:          # noqa: BLE001 - a change the pass cannot run is no fix
            return None
        self.last = (result, after)
        if rank(after) <= self.base:
            return None
        for run in result.methods:
            for cmd in run.commands:
                mine = next((c for c in cmd.candidates if c.name() == self.node), None)
                if mine is not None:
                    types = [it.name for r in cmd.replacements[:1] for it in list(r.instance_type_options)[:1]]
                    return run.method.name, run.reached, cmd.text_for(mine), (types or [""])[0]
        order = next(c for c in after.checks if c.check == "order")     # a command of its own, not the first
        return order.step, False, order.detail["command"], order.detail.get("replacementType", "")


def rank(found: NodeWhy) -> int:
    """How far the node gets: 3 disrupted now, 2 in a command of a method not reached, 1 a command of
    its own that its method does not pick first, 0 none. A fix must take it further."""
    if found.verdict == why.DISRUPTED:
        return 3
    if found.verdict == why.NOT_REACHED:
        return 2
    return 1 if any(c.check == "order" and "command" in c.detail for c in found.checks) else 0


# -- the ideas --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Proposal:
    """An idea for one check that stops the node: only an idea until the pass run again verifies it."""

    kind: str
    target: str
    description: str
    change: tuple[Op, ...]


def fixes(found: NodeWhy, result: Any, inputs: PassInputs, world: Any, now: datetime) -> list[DisruptionFix]:
    """Every verified fix for the checks that stop the node, one idea per check, in their order;
    when none verifies alone (several checks stop it), all of them together."""
    if found.verdict == "disrupted":
        return []
    verifier = Verifier(inputs, world, now, found.name, rank(found), result.ctx.rules)
    ideas: dict[str, Callable[..., list[Proposal]]] = {
        "pod-do-not-disrupt": pod_annotation, "node-do-not-disrupt": node_annotation, "pdb": pdb_max_unavailable,
        "budget": budget, "simulation": node_pool_types, "filter": policy, "node-limit": node_limit}
    proposals = proposals_of(found, result, ideas)
    out, stuck = [], []
    for p in proposals.values():
        fix = verified(verifier, p)
        if fix is not None:
            out.append(fix)
        elif verifier.last is not None:     # what stops it then: this change with the next one
            stuck.append((p, proposals_of(verifier.last[1], verifier.last[0], ideas)))
    if out:
        return out
    for p, following in stuck:
        for q in following.values():
            both = together([p, q])
            fix = verifier.verify(both.kind, both.target, both.description, list(both.change))
            if fix is not None:
                return [fix]
    if len(proposals) < 2:
        return []
    every = together(list(proposals.values()))
    fix = verifier.verify(every.kind, every.target, every.description, list(every.change))
    return [fix] if fix is not None else []


def proposals_of(found: NodeWhy, result: Any, ideas: Mapping[str, Callable[..., list[Proposal]]]
                 ) -> dict[str, Proposal]:
    """Each check's ideas, one per distinct change."""
    out: dict[str, Proposal] = {}
    for check in found.checks:
        idea = ideas.get(check.check)
        for p in idea(check, found, result) if idea is not None else ():
            out.setdefault(json.dumps(p.change, sort_keys=True), p)
    return out


def together(proposals: list[Proposal]) -> Proposal:
    """Several changes as one: each alone leaves the node stopped by another check."""
    return Proposal("together", "; ".join(dict.fromkeys(p.target for p in proposals)),
                    " and ".join(p.description for p in proposals),
                    tuple(ordered(o for p in proposals for o in p.change)))


def ordered(ops: Any) -> list[Op]:
    """Replacements first, then removals from the highest index down (so paths stay right)."""
    ops = list(ops)
    return [o for o in ops if o["op"] != "remove"] + sorted((o for o in ops if o["op"] == "remove"),
                                                             key=lambda o: o["path"], reverse=True)


def verified(v: Verifier, p: Proposal) -> DisruptionFix | None:
    """The proposal verified; an instance-type requirement dropped is narrowed to the one type the
    replacement takes first, when that verifies too."""
    found = v.rerun(list(p.change))
    if found is None:
        return None
    method, acts, cmd, first = found
    removed = p.change[0] if p.kind == "nodepool-instance-types" else None
    if removed is not None and removed["op"] == "remove" and first:
        req = removed.get("requirement") or {}
        values = list(req.get("values") or ())
        if req.get("key") == TYPE_KEYS[0] and req.get("operator") == "In" and first not in values:
            index = int(removed["path"].rsplit("/", 1)[1])
            narrow = v.verify(p.kind, p.target, f"add {first} to {p.target}'s requirement {req['key']} In {values}",
                              [_req_op(removed["object"]["name"], index, "values", values + [first])])
            if narrow is not None:
                return narrow
    return DisruptionFix(p.kind, p.target, p.description, tuple(_plain(o) for o in p.change), method, acts, cmd)


def _plain(o: Op) -> Op:
    return {k: v for k, v in o.items() if k != "requirement"}


def pod_annotation(check: Any, found: NodeWhy, result: Any) -> list[Proposal]:
    """Every pod's do-not-disrupt removed at once (Karpenter stops at any one of them)."""
    pods = [c.detail["pod"] for c in found.checks if c.check == "pod-do-not-disrupt"]
    change = [op("Pod", p.split("/", 1)[1], "remove", pointer("metadata", "annotations", DO_NOT_DISRUPT),
                 namespace=p.split("/", 1)[0]) for p in pods]
    return [Proposal("remove-do-not-disrupt", ", ".join(f"pod {p}" for p in pods),
                     f"remove the {DO_NOT_DISRUPT} annotation from {', '.join(pods)}", tuple(change))]


def node_annotation(check: Any, found: NodeWhy, result: Any) -> list[Proposal]:
    state = found.verdict_of.state
    change = []
    for kind, obj in (("Node", state.node), ("NodeClaim", state.node_claim)):
        if obj is not None and DO_NOT_DISRUPT in ((obj.get("metadata") or {}).get("annotations") or {}):
            change.append(op(kind, name_of(obj), "remove", pointer("metadata", "annotations", DO_NOT_DISRUPT)))
    return [Proposal("remove-do-not-disrupt", f"node {found.name}",
                     f"remove the {DO_NOT_DISRUPT} annotation from the node", tuple(change))] if change else []


def pdb_max_unavailable(check: Any, found: NodeWhy, result: Any) -> list[Proposal]:
    """One PDB blocking: raise its maxUnavailable (or lower its minAvailable) to allow one disruption."""
    keys = check.detail.get("pdbs") or []
    if len(keys) != 1:
        return []
    ns, name = keys[0].split("/", 1)
    obj = next((p for p in result.ctx.inputs.objects.get(PDB, ()) if _named(p, PDB, name, ns)), None)
    if obj is None:
        return []
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    short = 1 - int(status.get("disruptionsAllowed") or 0)
    if isinstance(spec.get("maxUnavailable"), int):
        field, value = "maxUnavailable", spec["maxUnavailable"] + short
    elif isinstance(spec.get("minAvailable"), int) and spec["minAvailable"] - short >= 0:
        field, value = "minAvailable", spec["minAvailable"] - short
    else:
        return []
    return [Proposal("pdb", f"PodDisruptionBudget {keys[0]}",
                     f"set {field} of PodDisruptionBudget {keys[0]} to {value} (from {spec[field]}): it then allows "
                     "one disruption", (op(PDB, name, "replace", pointer("spec", field), value, namespace=ns),))]


def budget(check: Any, found: NodeWhy, result: Any) -> list[Proposal]:
    """The budgets that bind for the reason raised to the nodes disrupting plus one; a schedule
    Karpenter cannot parse (which blocks every reason) corrected first."""
    pool, reason = check.detail.get("nodePool"), check.detail.get("reason")
    bad = [b for b in check.detail.get("invalidBudgets") or () if b.get("fix")]
    if bad:
        which = ", ".join(f"budgets[{b['index']}]'s schedule \"{b['schedule']}\" to \"{b['fix']}\"" for b in bad)
        return [Proposal("budget-schedule", f"NodePool {pool}", f"correct NodePool {pool}'s {which} (as robfig/cron, "
                         "Karpenter's parser, reads it)",
                         tuple(op("NodePool", pool, "replace", pointer("spec", "disruption", "budgets", b["index"],
                                                                       "schedule"), b["fix"]) for b in bad))]
    verdicts = result.budget_details.get(pool, {}).get(reason, ())
    need = int(check.detail.get("disrupting") or 0) + 1
    binding = [b for b in verdicts if b.applies and (b.error or (b.active and b.allowed < need))]
    if not binding:
        return []
    which = ", ".join(f"budgets[{b.index}]" for b in binding)
    return [Proposal("budget", f"NodePool {pool}", f"set nodes of NodePool {pool}'s {which} to \"{need}\" "
                     f"({'its' if len(binding) == 1 else 'their'} limit for {reason} now)",
                     tuple(op("NodePool", pool, "replace", pointer("spec", "disruption", "budgets", b.index, "nodes"),
                              str(need)) for b in binding))]


def node_limit(check: Any, found: NodeWhy, result: Any) -> list[Proposal]:
    """StaticDrift held back by a static NodePool's node limit: raised to its NodeClaims counted plus
    the replacements up to this candidate's (its NodePool's candidates go in their order)."""
    d = check.detail
    value = int(d["nodeClaims"]) + int(d["position"]) + 1
    return [Proposal("nodepool-node-limit", f"NodePool {d['nodePool']}",
                     f"set limits.nodes of NodePool {d['nodePool']} to \"{value}\" (from \"{d['limit']}\"): room for "
                     "its replacement", (op("NodePool", d["nodePool"], "replace", pointer("spec", "limits", "nodes"),
                                            str(value)),))]


def _requirements(np: Any) -> list[Mapping[str, Any]]:
    return (((np.obj.get("spec") or {}).get("template") or {}).get("spec") or {}).get("requirements") or []


def node_pool_types(check: Any, found: NodeWhy, result: Any) -> list[Proposal]:
    """Consolidation refused: the SpotToSpotConsolidation gate, the node's NodePool allowing spot,
    or more instance types (a type requirement dropped; `verified` narrows it)."""
    cand = found.verdict_of.candidate
    if cand is None:
        return []
    np, out = cand.node_pool, []
    if "SpotToSpotConsolidation is disabled" in check.message:
        out.append(Proposal("feature-gate", "--karpenter-config",
                            f"turn on the {GATE} feature gate (--karpenter-config: featureGates: {GATE}=true)",
                            (op(SETTINGS, "featureGates", "replace", pointer("featureGates", GATE), True),)))
    target = f"NodePool {np.name}"
    for i, req in enumerate(_requirements(np)):
        values = list(req.get("values") or ())
        if req.get("key") == CAPACITY_TYPE and req.get("operator") == "In" and "spot" not in values:
            out.append(Proposal("nodepool-capacity-types", target,
                                f"allow spot in {target} ({CAPACITY_TYPE} In {values + ['spot']})",
                                (_req_op(np.name, i, "values", values + ["spot"]),)))
        elif req.get("key") in TYPE_KEYS and req.get("operator") in ("In", "NotIn"):
            drop = {**op("NodePool", np.name, "remove", pointer("spec", "template", "spec", "requirements", i)),
                    "requirement": dict(req)}
            out.append(Proposal("nodepool-instance-types", target,
                                f"drop {target}'s requirement {req['key']} {req['operator']} {values}", (drop,)))
    return out


def _req_op(pool: str, i: int, key: str, value: Any) -> Op:
    return op("NodePool", pool, "replace", pointer("spec", "template", "spec", "requirements", i, key), value)


def policy(check: Any, found: NodeWhy, result: Any) -> list[Proposal]:
    """consolidationPolicy WhenEmpty keeping a consolidatable node with pods: WhenEmptyOrUnderutilized."""
    if "has non-empty consolidation disabled" not in check.message or found.verdict_of.candidate is None:
        return []
    pool = found.verdict_of.candidate.node_pool.name
    return [Proposal("consolidation-policy", f"NodePool {pool}",
                     f"set NodePool {pool}'s consolidationPolicy to WhenEmptyOrUnderutilized",
                     (op("NodePool", pool, "replace", pointer("spec", "disruption", "consolidationPolicy"),
                         "WhenEmptyOrUnderutilized"),))]


# -- what time alone changes ------------------------------------------------------------------------
def stamp(t: datetime) -> str:
    return t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def when(found: NodeWhy, result: Any, now: datetime) -> list[dict[str, Any]]:
    """The times at which something stopping the node ends by itself, from --now."""
    if found.verdict == "disrupted":
        return []
    out = consolidatable_at(found, result, now)
    ctx = result.ctx
    for pod in ctx.pods_on(found.verdict_of.state):
        value = pod.annotation(DO_NOT_DISRUPT)
        ns = parse_do_not_disrupt(str(value))[0] if value not in (None, "true") else None   # (as the pass reads it)
        started = parse_time(pod.start_time)
        if ns and started is not None:
            until = _later(started, ns)
            if until is not None and until > now:
                out.append({"what": "do-not-disrupt", "at": stamp(until),
                            "text": f"pod {pod.key}'s do-not-disrupt ({value}) ends: its start "
                                    f"{stamp(started)} + {value}"})
    out.extend(budget_windows(found, result, now))
    out.extend(expires_at(found, now))
    return sorted(out, key=lambda w: w["at"])


def expires_at(found: NodeWhy, now: datetime) -> list[dict[str, Any]]:
    """The NodeClaim's expiry (nodeclaim/expiration: its creationTimestamp plus its expireAfter):
    Karpenter deletes the NodeClaim then, whatever its budgets and do-not-disrupt say (forceful in
    v1); the drain that follows is bounded by its terminationGracePeriod, without one it waits for
    the pods PodDisruptionBudgets and do-not-disrupt hold."""
    claim = found.verdict_of.state.node_claim
    spec = (claim or {}).get("spec") or {}
    expire = spec.get("expireAfter")
    created = parse_time(((claim or {}).get("metadata") or {}).get("creationTimestamp"))
    ns = parse_duration(str(expire)) if expire not in (None, "Never") else None
    at = _later(created, ns) if created is not None and ns is not None else None
    if at is None:
        return []
    grace = spec.get("terminationGracePeriod")
    grace_ns = parse_duration(str(grace)) if grace is not None else None
    ends = _later(max(at, now), grace_ns) if grace_ns is not None else None
    drain = (f"its drain evicts through PodDisruptionBudgets and waits for do-not-disrupt pods until its "
             f"terminationGracePeriod ({grace}) ends, {stamp(ends)}, then deletes the pods left" if ends is not None
             else "with no terminationGracePeriod, its drain waits for each pod a PodDisruptionBudget or "
             "do-not-disrupt holds, for as long as they hold")
    text = (f"NodeClaim {name_of(claim)} expires: its creationTimestamp {stamp(created)} + expireAfter {expire}"
            + (" (already past: Karpenter deletes it on its next reconcile)" if at <= now else "")
            + "; Karpenter's expiration deletes the NodeClaim then, whatever the budgets and do-not-disrupt say; "
            + drain)
    return [{"what": "expiration", "at": stamp(max(at, now)), "text": text}]


def _later(t: datetime, ns: int) -> datetime | None:
    """`t` plus `ns` nanoseconds; None past the last time a datetime holds (a duration the
    CRD's pattern lets through, no clock reaches)."""
    try:
        return t + timedelta(microseconds=ns // 1000)
    except OverflowError:
        return None


def consolidatable_at(found: NodeWhy, result: Any, now: datetime) -> list[dict[str, Any]]:
    """The Consolidatable condition is input (the NodeClaim's status as given); Karpenter's
    nodeclaim disruption controller sets it lastPodEventTime (else Initialized's time) + consolidateAfter."""
    state = found.verdict_of.state
    claim = state.node_claim
    pool = result.ctx.node_pools.get(state.labels().get(NODEPOOL_LABEL) or "")
    if claim is None or pool is None or (condition(claim, "Consolidatable") or {}).get("status") == "True":
        return []
    if pool.spec.replicas is not None:      # a static NodePool's nodes are never consolidated
        return []
    after = pool.spec.disruption.consolidate_after
    init = condition(claim, "Initialized")
    if after == "Never" or init is None or init.get("status") != "True":
        return []
    last = (claim.get("status") or {}).get("lastPodEventTime")
    since = parse_time(last) or parse_time(init.get("lastTransitionTime"))
    ns = parse_duration(after)
    if since is None or ns is None:
        return []
    at = _later(since, ns)
    if at is None:
        return []
    source = f"lastPodEventTime {last}" if last else f"Initialized at {init.get('lastTransitionTime')}"
    text = (f"NodeClaim {name_of(claim)} turns Consolidatable: {source} + consolidateAfter {after}"
            + (" (already past: Karpenter would set the condition on its next reconcile; the condition given "
               "in the NodeClaim's status is not True)" if at <= now else ""))
    return [{"what": "consolidatable", "at": stamp(max(at, now)), "text": text}]


def budget_windows(found: NodeWhy, result: Any, now: datetime) -> list[dict[str, Any]]:
    """Each scheduled budget of the node's NodePool: when its window closes (active) or next opens
    (`budgets.window`: a window the next firing reaches does not close; one that never closes is
    said as such, at "never")."""
    state = found.verdict_of.state
    pool = result.ctx.node_pools.get(state.labels().get(NODEPOOL_LABEL) or "")
    if pool is None:
        return []
    out = []
    for i, b in enumerate(pool.spec.disruption.budgets):
        change, at = window(b, now)
        reasons = f" for {', '.join(b.reasons)}" if b.reasons else ""
        which = f"budgets[{i}] (nodes {b.nodes}{reasons}, '{b.schedule}' for {b.duration})"
        if change == "always":
            out.append({"what": "budget", "at": NEVER, "text": f"{which} never closes: active at every instant, each "
                        "window reaching the schedule's next firing"})
        elif at is not None:
            out.append({"what": "budget", "at": stamp(at), "text": f"{which} {change}"})
    return out


# -- what stops it after each time event ------------------------------------------------------------
MAX_LATER = 6                   # passes run again for the times of one node


def _consolidatable(claim: Mapping[str, Any]) -> list[Op]:
    """The NodeClaim's Consolidatable condition set True, as Karpenter's nodeclaim disruption
    controller sets it once consolidateAfter has passed (the condition is input to the pass)."""
    conditions = (claim.get("status") or {}).get("conditions") or []
    name = name_of(claim)
    for i, c in enumerate(conditions):
        if isinstance(c, Mapping) and c.get("type") == "Consolidatable":
            return [op("NodeClaim", name, "replace", pointer("status", "conditions", i, "status"), "True")]
    return [op("NodeClaim", name, "add", pointer("status", "conditions", "-"),
               {"type": "Consolidatable", "status": "True", "reason": "Consolidatable"})]


def then_stops(found: NodeWhy, result: Any, inputs: PassInputs, world: Any,
               times: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`times` (from `when`), each with what stops the node once it has come (`then`: the verdict and
    every check, in Karpenter's order), from the pass run again at that moment over the input with
    every event so far (a NodeClaim turned Consolidatable is a change to its status; a
    do-not-disrupt's end and a budget window are the clock's). Neither the expiry (the NodeClaim
    is deleted then) nor a time after the one that disrupts it is run again."""
    out, change, left = [], [], MAX_LATER
    for w in times:
        entry = dict(w)
        out.append(entry)
        if w["what"] == "expiration" or w["at"] == NEVER or left <= 0:
            continue
        if w["what"] == "consolidatable" and found.verdict_of.state.node_claim is not None:
            change += _consolidatable(found.verdict_of.state.node_claim)
        changed = overlaid(inputs, change)
        at = parse_time(w["at"])
        if changed is None or at is None:
            continue
        left -= 1
        try:
            after = why.explain(disruption(changed, world, at, result.ctx.rules), found.name)
        except Exception:          # noqa: BLE001 - a moment the pass cannot run says nothing
            continue
        entry["then"] = {"verdict": after.verdict, **({"method": after.method} if after.method else {}),
                         "checks": [c.as_dict() for c in after.checks]}
        if after.verdict == why.DISRUPTED:      # (gone then: later times change nothing for it)
            left = 0
    return out
