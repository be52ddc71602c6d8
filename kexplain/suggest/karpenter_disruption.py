"""The smallest changes that let Karpenter remove one node, each verified by running the disruption
pass again over the input with the change applied (the node then in the acting decision, or at
least in a command of its method), and what time alone changes (when the NodeClaim turns
Consolidatable, when a pod's do-not-disrupt duration ends, when a budget's window opens or closes).
Ideas come from the checks that stop the node (`karpenter.disruption.why`); a fix is data the
renderers read (`as_dict`)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Mapping, Sequence

from kexplain.config._decode import parse_duration
from kexplain.controllers.disruption import scaled
from kexplain.errors import AdmissionRejected, InputError
from kexplain.karpenter.apis.nodepool import parse_node_pool
from kexplain.karpenter.disruption.budgets import is_active
from kexplain.karpenter.disruption.candidate import condition
from kexplain.karpenter.disruption.pods import DO_NOT_DISRUPT, annotations
from kexplain.karpenter.disruption import why
from kexplain.karpenter.disruption.why import NodeWhy
from kexplain.karpenter.inputs import PassInputs, parse_time
from kexplain.karpenter.run import disruption
from kexplain.karpenter.utils.cron import CronError, parse_standard
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
HORIZON = timedelta(days=366)   # how far a budget window's next opening is looked for


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

    def __init__(self, inputs: PassInputs, world: Any, now: datetime, node: str) -> None:
        self.inputs, self.world, self.now, self.node, self.left = inputs, world, now, node, MAX_RERUNS

    def verify(self, kind: str, target: str, description: str, change: list[Op]) -> DisruptionFix | None:
        found = self.rerun(change)
        if found is None:
            return None
        method, acts, cmd, _ = found
        return DisruptionFix(kind, target, description, tuple(change), method, acts, cmd)

    def rerun(self, change: list[Op]) -> tuple[str, bool, str, str] | None:
        """(the method whose command takes the node, whether it acts, the command, the replacement's
        first instance type), or None."""
        if self.left <= 0:
            return None
        self.left -= 1
        changed = overlaid(self.inputs, change)
        if changed is None:
            return None
        try:
            result = disruption(changed, self.world, self.now)
            after = why.explain(result, self.node)
        except Exception:          # noqa: BLE001 - a change the pass cannot run is no fix
            return None
        for run in result.methods:
            for cmd in run.commands:
                mine = next((c for c in cmd.candidates if c.name() == self.node), None)
                if mine is not None:
                    types = [it.name for r in cmd.replacements[:1] for it in list(r.instance_type_options)[:1]]
                    return run.method.name, run.reached, cmd.text_for(mine), (types or [""])[0]
        order = next((c for c in after.checks if c.check == "order"), None)     # a command of its own, not first
        if order is not None:
            return order.step, False, order.detail["command"], order.detail.get("replacementType", "")
        return None


# -- the ideas --------------------------------------------------------------------------------------
def fixes(found: NodeWhy, result: Any, inputs: PassInputs, world: Any, now: datetime) -> list[DisruptionFix]:
    """Every verified fix for the checks that stop the node, one idea per check, in their order."""
    if found.verdict == "disrupted":
        return []
    verifier = Verifier(inputs, world, now, found.name)
    out: list[DisruptionFix] = []
    ideas: dict[str, Callable[..., list[DisruptionFix]]] = {
        "pod-do-not-disrupt": pod_annotation, "node-do-not-disrupt": node_annotation, "pdb": pdb_max_unavailable,
        "budget": budget, "simulation": node_pool_types, "filter": policy}
    seen: set[str] = set()
    for check in found.checks:
        idea = ideas.get(check.check)
        if idea is None or (check.check, check.message) in seen:
            continue
        seen.add((check.check, check.message))       # type: ignore[arg-type]
        out.extend(f for f in idea(check, found, result, verifier) if f is not None)
    return out


def pod_annotation(check: Any, found: NodeWhy, result: Any, v: Verifier) -> list[DisruptionFix | None]:
    """Every pod's do-not-disrupt removed at once (Karpenter stops at any one of them)."""
    pods = [c.detail["pod"] for c in found.checks if c.check == "pod-do-not-disrupt"]
    if check.detail.get("pod") != pods[0]:
        return []
    change = [op("Pod", p.split("/", 1)[1], "remove", pointer("metadata", "annotations", DO_NOT_DISRUPT),
                 namespace=p.split("/", 1)[0]) for p in pods]
    return [v.verify("remove-do-not-disrupt", ", ".join(f"pod {p}" for p in pods),
                     f"remove the {DO_NOT_DISRUPT} annotation from {', '.join(pods)}", change)]


def node_annotation(check: Any, found: NodeWhy, result: Any, v: Verifier) -> list[DisruptionFix | None]:
    state = found.verdict_of.state
    change = []
    for kind, obj in (("Node", state.node), ("NodeClaim", state.node_claim)):
        if obj is not None and DO_NOT_DISRUPT in ((obj.get("metadata") or {}).get("annotations") or {}):
            change.append(op(kind, name_of(obj), "remove", pointer("metadata", "annotations", DO_NOT_DISRUPT)))
    return [v.verify("remove-do-not-disrupt", f"node {found.name}",
                     f"remove the {DO_NOT_DISRUPT} annotation from the node", change)] if change else []


def pdb_max_unavailable(check: Any, found: NodeWhy, result: Any, v: Verifier) -> list[DisruptionFix | None]:
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
    change = [op(PDB, name, "replace", pointer("spec", field), value, namespace=ns)]
    return [v.verify("pdb", f"PodDisruptionBudget {keys[0]}",
                     f"set {field} of PodDisruptionBudget {keys[0]} to {value} (from {spec[field]}): it then allows "
                     "one disruption", change)]


def budget(check: Any, found: NodeWhy, result: Any, v: Verifier) -> list[DisruptionFix | None]:
    """The budgets that bind for the reason raised to the nodes disrupting plus one."""
    pool, reason = check.detail.get("nodePool"), check.detail.get("reason")
    verdicts = result.budget_details.get(pool, {}).get(reason, ())
    need = int(check.detail.get("disrupting") or 0) + 1
    change = [op("NodePool", pool, "replace", pointer("spec", "disruption", "budgets", b.index, "nodes"), str(need))
              for b in verdicts if b.applies and (b.error or (b.active and b.allowed < need))]
    if not change:
        return []
    which = ", ".join(f"budgets[{o['path'].split('/')[4]}]" for o in change)
    return [v.verify("budget", f"NodePool {pool}",
                     f"set nodes of NodePool {pool}'s {which} to \"{need}\" (for {reason})", change)]


def _requirements(np: Any) -> list[Mapping[str, Any]]:
    return (((np.obj.get("spec") or {}).get("template") or {}).get("spec") or {}).get("requirements") or []


def node_pool_types(check: Any, found: NodeWhy, result: Any, v: Verifier) -> list[DisruptionFix | None]:
    """Consolidation refused: the node's NodePool allowing spot, or more instance types (the
    requirement removed, then narrowed to the type the replacement would take), or the
    SpotToSpotConsolidation gate."""
    cand = found.verdict_of.candidate
    if cand is None:
        return []
    np, out = cand.node_pool, []
    if "SpotToSpotConsolidation is disabled" in check.message:
        out.append(v.verify("feature-gate", "--karpenter-config",
                            f"turn on the {GATE} feature gate (featureGates: {{{GATE}: true}})",
                            [op(SETTINGS, "featureGates", "replace", pointer("featureGates", GATE), True)]))
    for i, req in enumerate(_requirements(np)):
        values = list(req.get("values") or ())
        if req.get("key") == CAPACITY_TYPE and req.get("operator") == "In" and "spot" not in values:
            out.append(v.verify("nodepool-capacity-types", f"NodePool {np.name}",
                                f"allow spot in NodePool {np.name} ({CAPACITY_TYPE} In {values + ['spot']})",
                                [_req_op(np.name, i, "values", values + ["spot"])]))
        elif req.get("key") in TYPE_KEYS and req.get("operator") in ("In", "NotIn"):
            out.append(widen_types(v, np, i, req))
    return out


def _req_op(pool: str, i: int, key: str, value: Any) -> Op:
    return op("NodePool", pool, "replace", pointer("spec", "template", "spec", "requirements", i, key), value)


def widen_types(v: Verifier, np: Any, i: int, req: Mapping[str, Any]) -> DisruptionFix | None:
    """The type requirement removed; for instance types, narrowed to the one type the replacement
    takes first when that verifies too."""
    key, values = req["key"], list(req.get("values") or ())
    remove = [op("NodePool", np.name, "remove", pointer("spec", "template", "spec", "requirements", i))]
    found = v.rerun(remove)
    if found is None:
        return None
    target, kind = f"NodePool {np.name}", "nodepool-instance-types"
    if key == TYPE_KEYS[0] and req["operator"] == "In" and found[3] and found[3] not in values:
        narrow = v.verify(kind, target, f"add {found[3]} to NodePool {np.name}'s requirement {key} In {values}",
                          [_req_op(np.name, i, "values", values + [found[3]])])
        if narrow is not None:
            return narrow
    method, acts, cmd, _ = found
    return DisruptionFix(kind, target, f"drop NodePool {np.name}'s requirement {key} {req['operator']} {values}",
                         tuple(remove), method, acts, cmd)


def policy(check: Any, found: NodeWhy, result: Any, v: Verifier) -> list[DisruptionFix | None]:
    """consolidationPolicy WhenEmpty keeping a consolidatable node with pods: WhenEmptyOrUnderutilized."""
    if "has non-empty consolidation disabled" not in check.message or found.verdict_of.candidate is None:
        return []
    pool = found.verdict_of.candidate.node_pool.name
    return [v.verify("consolidation-policy", f"NodePool {pool}",
                     f"set NodePool {pool}'s consolidationPolicy to WhenEmptyOrUnderutilized",
                     [op("NodePool", pool, "replace", pointer("spec", "disruption", "consolidationPolicy"),
                         "WhenEmptyOrUnderutilized")])]


# -- what time alone changes ------------------------------------------------------------------------
def stamp(t: datetime) -> str:
    return t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def when(found: NodeWhy, result: Any, now: datetime) -> list[dict[str, Any]]:
    """The times at which something stopping the node ends by itself, from --now."""
    if found.verdict == "disrupted":
        return []
    out = consolidatable_at(found, now)
    ctx = result.ctx
    for pod in ctx.pods_on(found.verdict_of.state):
        value = annotations(pod).get(DO_NOT_DISRUPT)
        ns = parse_duration(str(value)) if value not in (None, "true") else None
        started = parse_time(pod.start_time)
        if ns and ns > 0 and started is not None:
            until = started + timedelta(microseconds=ns // 1000)
            if until > now:
                out.append({"what": "do-not-disrupt", "at": stamp(until),
                            "text": f"pod {pod.key}'s do-not-disrupt ({value}) ends: its start "
                                    f"{stamp(started)} + {value}"})
    out.extend(budget_windows(found, result, now))
    return sorted(out, key=lambda w: w["at"])


def consolidatable_at(found: NodeWhy, now: datetime) -> list[dict[str, Any]]:
    """The Consolidatable condition is input (the NodeClaim's status as given); Karpenter's
    nodeclaim disruption controller sets it lastPodEventTime (else Initialized's time) + consolidateAfter."""
    state = found.verdict_of.state
    claim, pool = state.node_claim, found.verdict_of.candidate or found.verdict_of.candidate_eventual
    if claim is None or pool is None or condition(claim, "Consolidatable") and \
            condition(claim, "Consolidatable").get("status") == "True":
        return []
    after = pool.node_pool.spec.disruption.consolidate_after
    init = condition(claim, "Initialized")
    if after == "Never" or init is None or init.get("status") != "True":
        return []
    last = (claim.get("status") or {}).get("lastPodEventTime")
    since = parse_time(last) or parse_time(init.get("lastTransitionTime"))
    ns = parse_duration(after)
    if since is None or ns is None:
        return []
    at = since + timedelta(microseconds=ns // 1000)
    source = f"lastPodEventTime {last}" if last else f"Initialized at {init.get('lastTransitionTime')}"
    text = (f"NodeClaim {name_of(claim)} turns Consolidatable: {source} + consolidateAfter {after}"
            + (" (already past: Karpenter would set the condition on its next reconcile; the condition given "
               "in the NodeClaim's status is not True)" if at <= now else ""))
    return [{"what": "consolidatable", "at": stamp(max(at, now)), "text": text}]


def budget_windows(found: NodeWhy, result: Any, now: datetime) -> list[dict[str, Any]]:
    """Each scheduled budget of the node's NodePool: when its window closes (active) or next opens."""
    cand = found.verdict_of.candidate or found.verdict_of.candidate_eventual
    if cand is None:
        return []
    out = []
    for i, b in enumerate(cand.node_pool.spec.disruption.budgets):
        if b.schedule is None:
            continue
        try:
            schedule = parse_standard(f"TZ=UTC {b.schedule}")
        except CronError:
            continue
        span = timedelta(microseconds=(parse_duration(b.duration or "0s") or 0) // 1000)
        active, _ = is_active(b, now)
        reasons = f" for {', '.join(b.reasons)}" if b.reasons else ""
        if active:
            hit = schedule.next(now - span, now)
            while hit is not None:
                later = schedule.next(hit, now)
                if later is None:
                    break
                hit = later
            if hit is not None:
                out.append({"what": "budget", "at": stamp(hit + span),
                            "text": f"budgets[{i}] (nodes {b.nodes}{reasons}, '{b.schedule}' for {b.duration}) "
                                    f"closes"})
        else:
            nxt = schedule.next(now, now + HORIZON)
            if nxt is not None:
                out.append({"what": "budget", "at": stamp(nxt),
                            "text": f"budgets[{i}] (nodes {b.nodes}{reasons}, '{b.schedule}' for {b.duration}) "
                                    "opens"})
    return out
