"""Fix suggestions: the smallest changes that would let an unschedulable pod schedule, each proven.

The trace's `filterAll` names every reason on every node. From those reasons and the pod and
node objects, kexplain proposes small changes, either to the pod (lower a request, add a
toleration, relax a node selector or node affinity, soften or widen a spread constraint,
remove or move a host port, drop a required pod (anti-)affinity term) or to the cluster
(uncordon a node, free room on a node by naming the pods that would have to go, the same for
pods whose anti-affinity keeps the pod off a node, add a node of an existing shape without a
taint or with a label). An idea is only an idea until it is
verified: the change is applied to the inputs and the whole scheduling cycle is run again
(`kexplain.explain.run`); only changes after which the pod is scheduled are kept, and the number
of nodes each opens is the number the re-run found feasible. A changed pod is re-run over the
same snapshot (its cached indexes are reused); a cluster change gets a new snapshot. At most
`MAX_VERIFIED` candidates are verified per explanation.

A change is a list of JSON-patch-like operations, each naming the object it applies to:

    {"op": "add" | "replace" | "remove", "object": {"kind": "Pod", "namespace": "default",
     "name": "web"}, "path": "/spec/tolerations/-", "value": {...}}
    {"op": "create", "object": {"kind": "Node", "name": "new-node-like-n1"}, "value": {<the Node>}}
    {"op": "delete", "object": {"kind": "Pod", "namespace": "default", "name": "cache-0"}}

Paths are JSON pointers into the object as kexplain saw it (a workload's pod: its pod template,
so prefix `/spec/template` for a Deployment); `add` sets an object member (creating missing
parents) or appends to a list with `-`. `apply_ops` applies the path operations to one object.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from kexplain.explain.run import Inputs, Request, explain
from kexplain.model.labels import parse_selector
from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.nodeselector import DOES_NOT_EXIST, EXISTS, GT, IN, LT, NOT_IN, ParsedTerm, RequiredNodeAffinity, \
    is_empty_term, parse_int64
from kexplain.model.pod import HostPort, PodInfo
from kexplain.apimachinery.quantity import format_bytes, format_milli, milli_value, value
from kexplain.model.resources import CPU, MEMORY, PODS, Resource, is_hugepage, pod_level_requests_set, pod_requests, \
    resource_list
from kexplain.model.snapshot import Snapshot, node_tree_order
from kexplain.model.taints import NO_EXECUTE, NO_SCHEDULE, taint_to_string, tolerations_tolerate
from kexplain.framework.trace import SCHEDULED, UNSCHEDULABLE, Trace

MAX_VERIFIED = 10          # candidates verified (pipeline re-runs) per explanation, at most
MAX_PER_REASON = 2         # alternatives offered for one reason
MAX_GROUPS = 5             # distinct per-node fixes compared when choosing the best ones
PORT_SEARCH = 100          # how far above a taken host port a free one is looked for

# Suggestion kinds.
LOWER_REQUEST = "lower-request"
ADD_TOLERATION = "add-toleration"
REMOVE_NODE_SELECTOR = "remove-node-selector"
RELAX_NODE_AFFINITY = "relax-node-affinity"
RAISE_MAX_SKEW = "raise-max-skew"
SCHEDULE_ANYWAY = "schedule-anyway"
REMOVE_HOST_PORT = "remove-host-port"
CHANGE_HOST_PORT = "change-host-port"
DROP_POD_AFFINITY_TERM = "drop-pod-affinity-term"
DROP_POD_ANTI_AFFINITY_TERM = "drop-pod-anti-affinity-term"
COMBINED = "combined"
UNCORDON_NODE = "uncordon-node"
FREE_RESOURCES = "free-resources"
REMOVE_CONFLICTING_PODS = "remove-conflicting-pods"
ADD_NODE = "add-node"

# The plugins and reasons suggestions are made for (their byte-exact strings).
NODE_RESOURCES_FIT = "NodeResourcesFit"
TAINT_TOLERATION = "TaintToleration"
NODE_AFFINITY = "NodeAffinity"
NODE_UNSCHEDULABLE = "NodeUnschedulable"
NODE_PORTS = "NodePorts"
POD_TOPOLOGY_SPREAD = "PodTopologySpread"
INTER_POD_AFFINITY = "InterPodAffinity"
NODE_VOLUME_LIMITS = "NodeVolumeLimits"
REASON_TOO_MANY_PODS = "Too many pods"
REASON_INSUFFICIENT = "Insufficient "
REASON_NODE_AFFINITY = "node(s) didn't match Pod's node affinity/selector"
REASON_POD_AFFINITY = "node(s) didn't match pod affinity rules"
REASON_POD_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"
REASON_SPREAD_MISSING_LABEL = "node(s) didn't match pod topology spread constraints (missing required label)"

REJECTED = ("Unschedulable", "UnschedulableAndUnresolvable")
UNRESOLVABLE = "UnschedulableAndUnresolvable"
CORDON_TAINT_KEY = "node.kubernetes.io/unschedulable"
HOSTNAME_LABEL = "kubernetes.io/hostname"
MIRROR_ANNOTATION = "kubernetes.io/config.mirror"
DO_NOT_SCHEDULE = "DoNotSchedule"
# Taints a pod should not be told to tolerate: node conditions, the cordon, the control plane.
SYSTEM_TAINT_PREFIXES = ("node.kubernetes.io/", "node.cloudprovider.kubernetes.io/",
                         "node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/master")
# Reasons an empty copy of a node does not have: room, ports, pods of its own.
FRESH_NODE_FIXES = frozenset({NODE_RESOURCES_FIT, NODE_PORTS, INTER_POD_AFFINITY, POD_TOPOLOGY_SPREAD,
                              NODE_VOLUME_LIMITS})

Op = dict[str, Any]


# --- the result -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Verification:
    """What the scheduling cycle said about the changed input."""

    status: str
    suggested_host: str | None
    feasible: tuple[str, ...]       # nodes that passed Filter in the re-run
    searched: int                   # nodes the re-run visited
    complete: bool                  # every node was visited: `feasible` is all of them

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "suggestedHost": self.suggested_host, "feasibleNodes": list(self.feasible),
                "numNodesSearched": self.searched, "complete": self.complete}


@dataclass(frozen=True)
class Suggestion:
    """One verified change: what it is, in plain words and as operations, and what it opens."""

    kind: str
    target: str                     # "pod default/web", "node n3" or "cluster"
    description: str
    change: tuple[Op, ...]
    nodes_opened: int
    opened: tuple[str, ...]         # the nodes that were not feasible before and are after
    verified: Verification

    @property
    def text(self) -> str:
        """The description with what it opens, as one line."""
        at_least = "" if self.verified.complete else "at least "
        names = ", ".join(self.opened[:5]) + (", ..." if len(self.opened) > 5 else "")
        plural = "node" if self.nodes_opened == 1 else "nodes"
        return f"{self.description} (opens {at_least}{self.nodes_opened} {plural}: {names})"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "target": self.target, "description": self.description,
                "change": [copy.deepcopy(op) for op in self.change], "nodesOpened": self.nodes_opened,
                "nodesOpenedExact": self.verified.complete, "openedNodes": list(self.opened),
                "verified": self.verified.to_json()}


@dataclass
class _Candidate:
    kind: str
    target: str
    description: str
    change: list[Op]


# --- JSON-pointer operations --------------------------------------------------------------------

def pointer(*tokens: Any) -> str:
    """A JSON pointer from path tokens (`~` and `/` escaped)."""
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in tokens)


def _tokens(path: str) -> list[str]:
    if not path.startswith("/"):
        raise ValueError(f"not a JSON pointer: {path!r}")
    return [t.replace("~1", "/").replace("~0", "~") for t in path[1:].split("/")]


def apply_ops(obj: dict[str, Any], ops: Iterable[Op]) -> dict[str, Any]:
    """A copy of `obj` with the path operations (`add`, `replace`, `remove`) applied in order."""
    out = copy.deepcopy(obj)
    for op in ops:
        kind = op["op"]
        *parents, last = _tokens(op["path"])
        node: Any = out
        for i, tok in enumerate(parents):
            if isinstance(node, list):
                node = node[int(tok)]
                continue
            if tok not in node or node[tok] is None:
                if kind != "add":
                    raise KeyError(op["path"])
                following = parents[i + 1] if i + 1 < len(parents) else last
                node[tok] = [] if following == "-" or following.isdigit() else {}
            node = node[tok]
        if isinstance(node, list):
            if kind == "remove":
                del node[int(last)]
            elif last == "-":
                node.append(copy.deepcopy(op["value"]))
            elif kind == "add":
                node.insert(int(last), copy.deepcopy(op["value"]))
            else:
                node[int(last)] = copy.deepcopy(op["value"])
        elif kind == "remove":
            del node[last]
        else:
            node[last] = copy.deepcopy(op["value"])
    return out


def _pod_ref(pod: PodInfo) -> dict[str, str]:
    return {"kind": "Pod", "namespace": pod.namespace, "name": pod.name}


def _node_ref(name: str) -> dict[str, str]:
    return {"kind": "Node", "name": name}


def _pod_op(pod: PodInfo, op: str, path: str, val: Any = None) -> Op:
    out: Op = {"op": op, "object": _pod_ref(pod), "path": path}
    if op != "remove":
        out["value"] = val
    return out


# --- what the trace says -------------------------------------------------------------------------

@dataclass
class _Context:
    inputs: Inputs
    request: Request
    trace: Trace
    blocked: dict[str, dict[str, dict[str, Any]]]    # node -> rejecting plugin -> its status

    @property
    def pod(self) -> PodInfo:
        return self.inputs.pod

    @property
    def snapshot(self) -> Snapshot:
        return self.inputs.snapshot

    def only(self, *plugins: str) -> list[str]:
        """Nodes rejected by these plugins and no other (each of them rejecting)."""
        want = set(plugins)
        return [n for n, b in self.blocked.items() if set(b) == want]

    def within(self, plugins: Iterable[str]) -> list[str]:
        allowed = set(plugins)
        return [n for n, b in self.blocked.items() if set(b) <= allowed]

    def reasons(self, node: str, plugin: str) -> list[str]:
        return list((self.blocked.get(node, {}).get(plugin) or {}).get("reasons") or ())

    def info(self, node: str) -> NodeInfo | None:
        return self.snapshot.get(node)


def _blocked(filter_all: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> dict[str, dict[str, dict[str, Any]]]:
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for node, plugins in filter_all.items():
        if any(st.get("code") == "Error" for st in plugins.values()):
            continue
        rejecting = {p: dict(st) for p, st in plugins.items() if st.get("code") in REJECTED}
        if rejecting:
            out[node] = rejecting
    return out


# --- resources -----------------------------------------------------------------------------------

def _amount(name: str, q: Fraction) -> int:
    return milli_value(q) if name == CPU else value(q)


def _format(name: str, amount: int) -> str:
    if name == CPU:
        return format_milli(amount)
    if name == MEMORY or name == "ephemeral-storage" or is_hugepage(name):
        return format_bytes(amount)
    return str(amount)


def _round_down(name: str, amount: int) -> int:
    """A target people would write: memory-like amounts down to whole MiB when at least 1 MiB."""
    if name in (MEMORY, "ephemeral-storage") and amount >= 1 << 20:
        return amount - amount % (1 << 20)
    return amount


def _fit_request(spec: Mapping[str, Any]) -> Resource:
    return Resource.from_list(pod_requests({"spec": spec}))


def _insufficient(node: str, ctx: _Context) -> list[str] | None:
    """The resources NodeResourcesFit says the node lacks; None when one cannot be lowered."""
    names = []
    for r in ctx.reasons(node, NODE_RESOURCES_FIT):
        if r == REASON_TOO_MANY_PODS or not r.startswith(REASON_INSUFFICIENT):
            return None
        names.append(r[len(REASON_INSUFFICIENT):])
    return names or None


def _free(info: NodeInfo, name: str) -> int:
    return info.allocatable.get(name) - info.requested.get(name)


def _lower_ops(pod: PodInfo, name: str, target: int) -> tuple[list[Op], list[str]] | None:
    """Operations that bring the pod's request of `name` down to at most `target`, taking it
    from the largest containers first; None when that cannot be done."""
    obj = copy.deepcopy(pod.obj)
    spec = obj.setdefault("spec", {})
    current = _fit_request(spec).get(name)
    if current <= target:
        return [], []
    changed: dict[tuple[str, int], int] = {}

    def request_of(section: str, i: int) -> int:
        c = spec[section][i]
        q = resource_list((c.get("resources") or {}).get("requests")).get(name)
        return _amount(name, q) if q is not None else 0

    def set_request(section: str, i: int, amount: int) -> None:
        c = spec[section][i]
        c.setdefault("resources", {}).setdefault("requests", {})[name] = _format(name, amount)
        changed[(section, i)] = amount

    if pod_level_requests_set(spec) and (name in (CPU, MEMORY) or is_hugepage(name)):
        overhead = _amount(name, resource_list(spec.get("overhead")).get(name, Fraction(0)))
        if target - overhead <= 0:
            return None
        spec["resources"]["requests"][name] = _format(name, target - overhead)
        ops = [_pod_op(pod, "add", pointer("spec", "resources", "requests", name), _format(name, target - overhead))]
        return ops, [f"the pod-level {name} request"]
    running = [("containers", i) for i in range(len(spec.get("containers") or ()))]
    running += [("initContainers", i) for i, c in enumerate(spec.get("initContainers") or ())
                if c.get("restartPolicy") == "Always"]
    overhead = _amount(name, resource_list(spec.get("overhead")).get(name, Fraction(0)))
    excess = sum(request_of(*si) for si in running) + overhead - target   # what the running containers add
    for section, i in sorted(running, key=lambda si: -request_of(*si)):
        if excess <= 0:
            break
        have = request_of(section, i)
        take = min(have, excess)
        if take > 0:
            set_request(section, i, have - take)
            excess -= take
    for _ in range(3):          # init containers that need more than the target while they run
        total = _fit_request(spec).get(name)
        if total <= target:
            break
        inits = [("initContainers", i) for i, c in enumerate(spec.get("initContainers") or ())
                 if c.get("restartPolicy") != "Always" and request_of("initContainers", i) > 0]
        if not inits:
            break
        section, i = max(inits, key=lambda si: request_of(*si))
        set_request(section, i, max(0, request_of(section, i) - (total - target)))
    if _fit_request(spec).get(name) > target:
        return None
    ops, where = [], []
    for (section, i), amount in sorted(changed.items()):
        ops.append(_pod_op(pod, "add", pointer("spec", section, i, "resources", "requests", name),
                           _format(name, amount)))
        where.append(f"{'init container' if section == 'initContainers' else 'container'} "
                     f"{spec[section][i].get('name', i)}")
    return ops, where


def _lower_request(ctx: _Context) -> list[_Candidate]:
    """Lower the requests the least that opens a node blocked by resources alone."""
    request = _fit_request(ctx.pod.spec)
    best: tuple[float, str, dict[str, int]] | None = None
    for node in ctx.only(NODE_RESOURCES_FIT):
        names, info = _insufficient(node, ctx), ctx.info(node)
        if names is None or info is None:
            continue
        targets: dict[str, int] = {}
        for name in names:
            free = _round_down(name, _free(info, name))
            if free <= 0 or free >= request.get(name):
                targets = {}
                break
            targets[name] = free
        if not targets:
            continue
        kept = min(t / request.get(n) for n, t in targets.items())
        if best is None or kept > best[0]:
            best = (kept, node, targets)
    if best is None:
        return []
    ops: list[Op] = []
    words = []
    for name, target in best[2].items():
        lowered = _lower_ops(ctx.pod, name, target)
        if lowered is None:
            return []
        more, where = lowered
        ops += more
        words.append(f"the {name} request from {_format(name, request.get(name))} to {_format(name, target)}"
                     f" ({', '.join(where)})")
    return [_Candidate(LOWER_REQUEST, _pod_target(ctx.pod), "lower " + " and ".join(words), ops)]


def _pod_target(pod: PodInfo) -> str:
    return f"pod {pod.key}"


# --- taints --------------------------------------------------------------------------------------

def _untolerated(pod: PodInfo, node: Node) -> list[dict[str, Any]]:
    return [t for t in node.taints if t.get("effect") in (NO_SCHEDULE, NO_EXECUTE)
            and not tolerations_tolerate(pod.tolerations, t)]


def _system_taint(taint: Mapping[str, Any]) -> bool:
    return str(taint.get("key") or "").startswith(SYSTEM_TAINT_PREFIXES)


def _toleration(taint: Mapping[str, Any]) -> dict[str, Any]:
    if taint.get("value"):
        return {"key": taint.get("key", ""), "operator": "Equal", "value": taint["value"],
                "effect": taint.get("effect", "")}
    return {"key": taint.get("key", ""), "operator": "Exists", "effect": taint.get("effect", "")}


def _taint_key(taint: Mapping[str, Any]) -> tuple[str, str, str]:
    return (str(taint.get("key") or ""), str(taint.get("value") or ""), str(taint.get("effect") or ""))


def _add_toleration(ctx: _Context) -> list[_Candidate]:
    """Tolerate the taints that alone keep the pod off some nodes: the sets opening most nodes."""
    per_node: dict[str, frozenset[tuple[str, str, str]]] = {}
    taints: dict[tuple[str, str, str], dict[str, Any]] = {}
    for node in ctx.only(TAINT_TOLERATION):
        info = ctx.info(node)
        if info is None:
            continue
        untolerated = _untolerated(ctx.pod, info.node)
        if not untolerated or any(_system_taint(t) for t in untolerated):
            continue
        keys = frozenset(_taint_key(t) for t in untolerated)
        taints.update((_taint_key(t), t) for t in untolerated)
        per_node[node] = keys
    counts: dict[frozenset[tuple[str, str, str]], int] = {}
    for keys in per_node.values():
        counts[keys] = counts.get(keys, 0) + 1
    groups = sorted(counts, key=lambda k: (len(k), -counts[k], sorted(k)))[:MAX_GROUPS]
    opened = {g: sum(1 for keys in per_node.values() if keys <= g) for g in groups}
    out = []
    for group in sorted(groups, key=lambda g: (len(g), -opened[g], sorted(g)))[:MAX_PER_REASON]:
        chosen = [taints[k] for k in sorted(group)]
        ops = [_pod_op(ctx.pod, "add", "/spec/tolerations/-", _toleration(t)) for t in chosen]
        names = ", ".join(taint_to_string(t) for t in chosen)
        plural = "s" if len(chosen) > 1 else ""
        out.append(_Candidate(ADD_TOLERATION, _pod_target(ctx.pod),
                              f"add a toleration{plural} for the taint{plural} {names}", ops))
    return out


# --- node selector and node affinity -----------------------------------------------------------

REQUIRED_PATH = ("spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")


def _runtime_selector_keys(ctx: _Context) -> set[str]:
    """nodeSelector keys the pod's RuntimeClass puts there (admission would add them back)."""
    name = ctx.pod.spec.get("runtimeClassName")
    for rc in ctx.snapshot.of_kind("RuntimeClass"):
        if (rc.get("metadata") or {}).get("name") == name:
            return set(((rc.get("scheduling") or {}).get("nodeSelector") or {}))
    return set()


def _expr_text(expr: Mapping[str, Any]) -> str:
    values = expr.get("values") or []
    shown = f" [{', '.join(map(str, values))}]" if values else ""
    return f"{expr.get('key', '')} {expr.get('operator', '')}{shown}"


def _term_edits(pod: PodInfo, term_index: int, term: Mapping[str, Any], node: Node) -> tuple[list[Op], list[str]]:
    """The smallest edits of one required term after which it selects the node."""
    base = (*REQUIRED_PATH, "nodeSelectorTerms", term_index)
    ops: list[Op] = []
    words: list[str] = []
    removals: list[tuple[str, int, str]] = []
    exprs = term.get("matchExpressions") or []
    fields = term.get("matchFields") or []
    for i, expr in enumerate(exprs):
        if ParsedTerm.parse({"matchExpressions": [expr]}).matches(node):
            continue
        op, key, values = expr.get("operator"), expr.get("key", ""), list(expr.get("values") or [])
        have = node.labels.get(key)
        if op == IN and have is not None:
            ops.append(_pod_op(pod, "add", pointer(*base, "matchExpressions", i, "values", "-"), have))
            words.append(f"allow {key}={have} in the node affinity expression {_expr_text(expr)}")
        elif op == NOT_IN and have is not None and len(values) > 1 and have in values:
            ops.append(_pod_op(pod, "remove", pointer(*base, "matchExpressions", i, "values", values.index(have))))
            words.append(f"stop excluding {key}={have} in the node affinity expression {_expr_text(expr)}")
        else:
            removals.append(("matchExpressions", i, _expr_text(expr)))
    for i, f in enumerate(fields):
        if not ParsedTerm.parse({"matchFields": [f]}).matches(node):
            removals.append(("matchFields", i, _expr_text(f)))
    if len(removals) == len(exprs) + len(fields):   # nothing would be left: the term would select nothing
        return ([_pod_op(pod, "remove", pointer(*REQUIRED_PATH))], ["remove the required node affinity"])
    for section, i, text in sorted(removals, key=lambda r: (r[0], -r[1])):
        ops.append(_pod_op(pod, "remove", pointer(*base, section, i)))
        words.append(f"remove the node affinity expression {text}")
    return ops, words


def _affinity_fix(ctx: _Context, node: Node, runtime_keys: set[str]) -> tuple[list[Op], list[str]] | None:
    """Edits of nodeSelector and required node affinity after which the pod selects the node."""
    pod = ctx.pod
    ops: list[Op] = []
    words: list[str] = []
    for k, v in (pod.spec.get("nodeSelector") or {}).items():
        if node.labels.get(k) != str(v):
            if k in runtime_keys:
                return None
            ops.append(_pod_op(pod, "remove", pointer("spec", "nodeSelector", k)))
            words.append(f"remove the nodeSelector entry {k}={v}")
    required = ((pod.spec.get("affinity") or {}).get("nodeAffinity") or {}).get(REQUIRED_PATH[-1])
    if required is not None:
        best: tuple[list[Op], list[str]] | None = None
        for i, term in enumerate(required.get("nodeSelectorTerms") or []):
            if is_empty_term(term) or ParsedTerm.parse(term).errors:
                continue
            if ParsedTerm.parse(term).matches(node):
                best = ([], [])
                break
            edits = _term_edits(pod, i, term, node)
            if best is None or len(edits[0]) < len(best[0]):
                best = edits
        if best is None:
            return None
        ops += best[0]
        words += best[1]
    return (ops, words) if ops else None


def _relax_node_affinity(ctx: _Context) -> list[_Candidate]:
    nodes = [n for n in ctx.only(NODE_AFFINITY) if ctx.reasons(n, NODE_AFFINITY) == [REASON_NODE_AFFINITY]]
    if not nodes:
        return []
    runtime_keys = _runtime_selector_keys(ctx)
    fixes: dict[str, tuple[list[Op], list[str]]] = {}
    counts: dict[str, int] = {}
    for node in nodes:
        info = ctx.info(node)
        fix = _affinity_fix(ctx, info.node, runtime_keys) if info is not None else None
        if fix is None:
            continue
        key = repr(fix[0])
        fixes.setdefault(key, fix)
        counts[key] = counts.get(key, 0) + 1
    groups = sorted(fixes, key=lambda k: (len(fixes[k][0]), -counts[k]))[:MAX_GROUPS]
    opened = {}
    for key in groups:
        changed = RequiredNodeAffinity.from_pod(PodInfo(apply_ops(ctx.pod.obj, fixes[key][0])))
        opened[key] = sum(1 for n in nodes if changed.matches(ctx.info(n).node))
    out = []
    for key in sorted(groups, key=lambda k: (len(fixes[k][0]), -opened[k]))[:MAX_PER_REASON]:
        ops, words = fixes[key]
        selector_only = all(op["path"].startswith("/spec/nodeSelector/") for op in ops)
        out.append(_Candidate(REMOVE_NODE_SELECTOR if selector_only else RELAX_NODE_AFFINITY,
                              _pod_target(ctx.pod), "; ".join(words), ops))
    return out


# --- topology spread -------------------------------------------------------------------------------

def _spread_selector(constraint: Mapping[str, Any], pod: PodInfo):
    raw = copy.deepcopy(constraint.get("labelSelector"))
    if raw is not None:
        extra = [{"key": k, "operator": "In", "values": [pod.labels[k]]}
                 for k in constraint.get("matchLabelKeys") or () if k in pod.labels]
        if extra:
            raw["matchExpressions"] = [*(raw.get("matchExpressions") or []), *extra]
    return parse_selector(raw)


def _needed_skew(ctx: _Context, constraint: Mapping[str, Any], nodes: list[str]) -> dict[str, int]:
    """For each node, the smallest maxSkew at which this constraint would let the pod there:
    matching pods in the node's domain, plus the pod itself, minus the least loaded domain."""
    key = constraint.get("topologyKey", "")
    selector = _spread_selector(constraint, ctx.pod)
    affinity = RequiredNodeAffinity.from_pod(ctx.pod)
    honor_affinity = (constraint.get("nodeAffinityPolicy") or "Honor") == "Honor"
    honor_taints = (constraint.get("nodeTaintsPolicy") or "Ignore") == "Honor"
    counts: dict[str, int] = {}
    for info in ctx.snapshot.node_infos:
        labels = info.node.labels
        if key not in labels:
            continue
        if honor_affinity and not affinity.matches(info.node):
            continue
        if honor_taints and _untolerated(ctx.pod, info.node):
            continue
        n = sum(1 for p in info.pods if p.namespace == ctx.pod.namespace and not p.deletion_timestamp
                and selector.matches(p.labels))
        counts[labels[key]] = counts.get(labels[key], 0) + n
    if not counts:
        return {}
    least = min(counts.values())
    if len(counts) < int(constraint.get("minDomains") or 1):
        least = 0
    own = 1 if selector.matches(ctx.pod.labels) else 0
    out = {}
    for node in nodes:
        info = ctx.info(node)
        if info is not None and key in info.node.labels:
            out[node] = counts.get(info.node.labels[key], 0) + own - least
    return out


def _spread(ctx: _Context) -> list[_Candidate]:
    nodes = ctx.only(POD_TOPOLOGY_SPREAD)
    if not nodes:
        return []
    constraints = ctx.pod.spec.get("topologySpreadConstraints") or []
    hard = [(i, c) for i, c in enumerate(constraints) if (c.get("whenUnsatisfiable") or DO_NOT_SCHEDULE) == DO_NOT_SCHEDULE]
    labelled = [n for n in nodes if REASON_SPREAD_MISSING_LABEL not in ctx.reasons(n, POD_TOPOLOGY_SPREAD)]
    needed = {i: _needed_skew(ctx, c, labelled) for i, c in hard}
    out = []
    for i, c in hard:
        where = f"topology spread constraint #{i + 1} ({c.get('topologyKey', '')}, maxSkew {c.get('maxSkew', 1)})"
        skew = int(c.get("maxSkew") or 1)
        others_pass = [n for n in labelled
                       if all(needed[j].get(n, 0) <= int(cj.get("maxSkew") or 1) for j, cj in hard if j != i)]
        wanted = sorted(needed[i][n] for n in others_pass if needed[i].get(n, 0) > skew)
        if wanted:
            op = _pod_op(ctx.pod, "replace", pointer("spec", "topologySpreadConstraints", i, "maxSkew"), wanted[0])
            out.append(_Candidate(RAISE_MAX_SKEW, _pod_target(ctx.pod),
                                  f"raise maxSkew of {where} to {wanted[0]}", [op]))
        op = _pod_op(ctx.pod, "replace", pointer("spec", "topologySpreadConstraints", i, "whenUnsatisfiable"),
                     "ScheduleAnyway")
        out.append(_Candidate(SCHEDULE_ANYWAY, _pod_target(ctx.pod),
                              f"make {where} a preference: whenUnsatisfiable ScheduleAnyway", [op]))
    return out


# --- host ports --------------------------------------------------------------------------------------

def _host_ports(pod: PodInfo) -> list[tuple[tuple[Any, ...], str, HostPort]]:
    """(path of the port, container name, host port) for every port with a hostPort."""
    out = []
    spec = pod.spec
    sections = [("initContainers", i, c) for i, c in enumerate(spec.get("initContainers") or ())
                if c.get("restartPolicy") == "Always"]
    sections += [("containers", i, c) for i, c in enumerate(spec.get("containers") or ())]
    for section, i, c in sections:
        for j, p in enumerate(c.get("ports") or ()):
            hp = p.get("hostPort") or 0
            if hp > 0:
                out.append((("spec", section, i, "ports", j), str(c.get("name", i)),
                            HostPort(p.get("hostIP") or "0.0.0.0", p.get("protocol") or "TCP", int(hp))))
    return out


def _ports(ctx: _Context) -> list[_Candidate]:
    nodes = ctx.only(NODE_PORTS)
    if not nodes or ctx.pod.spec.get("hostNetwork"):
        return []
    ports = _host_ports(ctx.pod)
    conflicts: dict[str, frozenset[int]] = {}
    for node in nodes:
        info = ctx.info(node)
        if info is not None:
            conflicts[node] = frozenset(k for k, (_, _, hp) in enumerate(ports) if info.used_ports.conflicts(hp))
    counts: dict[frozenset[int], int] = {}
    for group in conflicts.values():
        if group:
            counts[group] = counts.get(group, 0) + 1
    if not counts:
        return []
    group = min(counts, key=lambda g: (len(g), -sum(1 for c in conflicts.values() if c <= g), sorted(g)))
    chosen = [ports[k] for k in sorted(group)]
    names = ", ".join(f"hostPort {hp.port}/{hp.protocol} of container {c}" for _, c, hp in chosen)
    removal = [_pod_op(ctx.pod, "remove", pointer(*path, "hostPort")) for path, _, _ in chosen]
    out = [_Candidate(REMOVE_HOST_PORT, _pod_target(ctx.pod), f"remove {names}", removal)]
    own = {hp.port for _, _, hp in ports}
    moves, words = [], []
    for path, c, hp in chosen:
        free = next((q for q in range(hp.port + 1, min(65535, hp.port + PORT_SEARCH) + 1)
                     if q not in own and not any(ni.used_ports.conflicts(HostPort(hp.ip, hp.protocol, q))
                                                 for ni in ctx.snapshot.node_infos)), None)
        if free is None:
            return out
        own.add(free)
        moves.append(_pod_op(ctx.pod, "replace", pointer(*path, "hostPort"), free))
        words.append(f"hostPort {hp.port}/{hp.protocol} of container {c} to {free}")
    out.append(_Candidate(CHANGE_HOST_PORT, _pod_target(ctx.pod), f"change {', '.join(words)}", moves))
    return out


# --- pod (anti-)affinity terms -----------------------------------------------------------------------

def _selector_text(term: Mapping[str, Any]) -> str:
    sel = term.get("labelSelector") or {}
    parts = [f"{k}={v}" for k, v in (sel.get("matchLabels") or {}).items()]
    parts += [_expr_text(e) for e in sel.get("matchExpressions") or ()]
    return f"{', '.join(parts) or 'every pod'}, topologyKey {term.get('topologyKey', '')}"


def _pod_affinity_terms(ctx: _Context) -> list[_Candidate]:
    out = []
    for reason, block, kind, words in (
            (REASON_POD_AFFINITY, "podAffinity", DROP_POD_AFFINITY_TERM, "pod affinity"),
            (REASON_POD_ANTI_AFFINITY, "podAntiAffinity", DROP_POD_ANTI_AFFINITY_TERM, "pod anti-affinity")):
        if not any(reason in ctx.reasons(n, INTER_POD_AFFINITY) for n in ctx.only(INTER_POD_AFFINITY)):
            continue
        terms = ((ctx.pod.spec.get("affinity") or {}).get(block) or {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution") or []
        for i, term in enumerate(terms[:MAX_PER_REASON]):
            op = _pod_op(ctx.pod, "remove", pointer("spec", "affinity", block,
                                                     "requiredDuringSchedulingIgnoredDuringExecution", i))
            out.append(_Candidate(kind, _pod_target(ctx.pod),
                                  f"drop the required {words} term #{i + 1} ({_selector_text(term)})", [op]))
    return out


# --- several reasons at once (pod side) ------------------------------------------------------------

def _combined(ctx: _Context) -> list[_Candidate]:
    """For a node that only pod changes keep from the pod, but several of them: every change at
    once. Nodes with the fewest reasons, and the least lowering of requests, are tried first."""
    fixable = {NODE_RESOURCES_FIT, TAINT_TOLERATION, NODE_AFFINITY, NODE_PORTS}
    runtime_keys = _runtime_selector_keys(ctx)
    request = _fit_request(ctx.pod.spec)

    def rank(item: tuple[int, str]) -> tuple[int, float, int]:
        position, node = item
        info = ctx.info(node)
        kept = 1.0
        names = _insufficient(node, ctx) if NODE_RESOURCES_FIT in ctx.blocked[node] else []
        for name in names or ():
            if info is not None and request.get(name) > 0:
                kept = min(kept, _free(info, name) / request.get(name))
        return (len(ctx.blocked[node]), -kept, position)

    nodes = [(i, n) for i, n in enumerate(ctx.within(fixable)) if len(ctx.blocked[n]) >= 2]
    best: tuple[int, list[Op], list[str]] | None = None
    for _, node in sorted(nodes, key=rank)[:MAX_GROUPS * 4]:
        info = ctx.info(node)
        if info is None:
            continue
        ops: list[Op] = []
        words: list[str] = []
        for plugin in sorted(ctx.blocked[node]):
            part = _node_fix(ctx, plugin, node, info, runtime_keys)
            if part is None:
                ops = []
                break
            ops += part[0]
            words += part[1]
        if ops and (best is None or len(ops) < best[0]):
            best = (len(ops), ops, words)
    if best is None:
        return []
    return [_Candidate(COMBINED, _pod_target(ctx.pod), "; and ".join(best[2]), best[1])]


def _node_fix(ctx: _Context, plugin: str, node: str, info: NodeInfo,
              runtime_keys: set[str]) -> tuple[list[Op], list[str]] | None:
    """The pod change that removes one plugin's rejection on one node."""
    if plugin == NODE_RESOURCES_FIT:
        names = _insufficient(node, ctx)
        if names is None:
            return None
        request = _fit_request(ctx.pod.spec)
        ops, words = [], []
        for name in names:
            target = _round_down(name, _free(info, name))
            lowered = _lower_ops(ctx.pod, name, target) if target > 0 else None
            if lowered is None:
                return None
            ops += lowered[0]
            words.append(f"lower the {name} request from {_format(name, request.get(name))} to "
                         f"{_format(name, target)} ({', '.join(lowered[1])})")
        return ops, words
    if plugin == TAINT_TOLERATION:
        untolerated = _untolerated(ctx.pod, info.node)
        if not untolerated or any(_system_taint(t) for t in untolerated):
            return None
        return ([_pod_op(ctx.pod, "add", "/spec/tolerations/-", _toleration(t)) for t in untolerated],
                [f"tolerate {', '.join(taint_to_string(t) for t in untolerated)}"])
    if plugin == NODE_AFFINITY:
        if ctx.reasons(node, NODE_AFFINITY) != [REASON_NODE_AFFINITY]:
            return None
        return _affinity_fix(ctx, info.node, runtime_keys)
    if plugin == NODE_PORTS and not ctx.pod.spec.get("hostNetwork"):
        taken = [(path, c, hp) for path, c, hp in _host_ports(ctx.pod) if info.used_ports.conflicts(hp)]
        if not taken:
            return None
        return ([_pod_op(ctx.pod, "remove", pointer(*path, "hostPort")) for path, _, _ in taken],
                [f"remove hostPort {hp.port}/{hp.protocol} of container {c}" for _, c, hp in taken])
    return None


# --- cluster changes -----------------------------------------------------------------------------------

def _uncordon(ctx: _Context) -> list[_Candidate]:
    """Uncordon the first node that only its cordon keeps from the pod."""
    for node in ctx.within({NODE_UNSCHEDULABLE, TAINT_TOLERATION}):
        if NODE_UNSCHEDULABLE not in ctx.blocked[node]:
            continue
        info = ctx.info(node)
        if info is None:
            continue
        untolerated = _untolerated(ctx.pod, info.node)
        if any(t.get("key") != CORDON_TAINT_KEY for t in untolerated):
            continue
        ops: list[Op] = [{"op": "remove", "object": _node_ref(node), "path": "/spec/unschedulable"}]
        for i in reversed(range(len(info.node.taints))):
            if info.node.taints[i].get("key") == CORDON_TAINT_KEY:
                ops.append({"op": "remove", "object": _node_ref(node), "path": pointer("spec", "taints", i)})
        return [_Candidate(UNCORDON_NODE, f"node {node}", f"uncordon node {node} (kubectl uncordon {node})", ops)]
    return []


def _evictable(pod: PodInfo) -> bool:
    if MIRROR_ANNOTATION in (pod.metadata.get("annotations") or {}) or pod.deletion_timestamp:
        return False
    return not any(o.get("kind") == "DaemonSet" for o in pod.metadata.get("ownerReferences") or ())


def _pods_to_free(info: NodeInfo, needs: dict[str, int]) -> list[PodInfo] | None:
    """Few pods, lowest priority first, whose requests cover `needs` (name -> amount; `pods`: a count)."""
    def gives(p: PodInfo, name: str) -> int:
        return 1 if name == PODS else p.resource.resource.get(name)

    left = dict(needs)
    chosen: list[PodInfo] = []
    pool = [p for p in info.pods if _evictable(p)]
    while any(v > 0 for v in left.values()):
        useful = [p for p in pool if p not in chosen and any(gives(p, n) > 0 for n, v in left.items() if v > 0)]
        if not useful:
            return None
        p = min(useful, key=lambda q: (q.priority, -sum(min(gives(q, n), v) / v for n, v in left.items() if v > 0)))
        chosen.append(p)
        for n in left:
            left[n] -= gives(p, n)
    for p in reversed(list(chosen)):       # drop any that the others make unnecessary
        rest = [q for q in chosen if q is not p]
        if all(sum(gives(q, n) for q in rest) >= v for n, v in needs.items()):
            chosen = rest
    return chosen


def _free_resources(ctx: _Context) -> list[_Candidate]:
    """Free room on the node that needs the fewest pods to go."""
    request = _fit_request(ctx.pod.spec)
    best: tuple[tuple[int, int, int], str, dict[str, int], list[PodInfo]] | None = None
    for position, node in enumerate(ctx.only(NODE_RESOURCES_FIT)):
        if ctx.blocked[node][NODE_RESOURCES_FIT].get("code") == UNRESOLVABLE:
            continue
        info = ctx.info(node)
        if info is None:
            continue
        needs: dict[str, int] = {}
        for r in ctx.reasons(node, NODE_RESOURCES_FIT):
            if r == REASON_TOO_MANY_PODS:
                needs[PODS] = len(info.pods) + 1 - info.allocatable.allowed_pod_number
            elif r.startswith(REASON_INSUFFICIENT):
                name = r[len(REASON_INSUFFICIENT):]
                needs[name] = request.get(name) - _free(info, name)
        needs = {k: v for k, v in needs.items() if v > 0}
        if not needs:
            continue
        pods = _pods_to_free(info, needs)
        if not pods:
            continue
        rank = (len(pods), max(p.priority for p in pods), position)
        if best is None or rank < best[0]:
            best = (rank, node, needs, pods)
    if best is None:
        return []
    _, node, needs, pods = best
    amounts = " and ".join(f"{v} pod slot{'s' if v > 1 else ''}" if n == PODS else f"{_format(n, v)} {n}"
                           for n, v in needs.items())
    names = ", ".join(p.key for p in pods)
    ops = [{"op": "delete", "object": _pod_ref(p)} for p in pods]
    return [_Candidate(FREE_RESOURCES, f"node {node}",
                       f"free {amounts} on node {node}: {'pod' if len(pods) == 1 else 'pods'} {names} would have "
                       f"to go (moved elsewhere or deleted)", ops)]


def _conflicting_pods(ctx: _Context, node: Node) -> list[PodInfo]:
    """Bound pods whose required anti-affinity refuses this pod in the node's topology domain."""
    pod, ns_labels = ctx.pod, ctx.snapshot.namespace_labels(ctx.pod.namespace)
    out = []
    for ni in ctx.snapshot.have_pods_with_required_anti_affinity:
        for other in ni.pods_with_required_anti_affinity:
            for term in other.required_anti_affinity_terms:
                key = term.topology_key
                if (key in node.labels and ni.node.labels.get(key) == node.labels[key]
                        and term.matches(pod, ns_labels)):
                    out.append(other)
                    break
    return out


def _remove_conflicting_pods(ctx: _Context) -> list[_Candidate]:
    """Free the node that the fewest existing pods' anti-affinity keeps from the pod."""
    best: tuple[tuple[int, int], str, list[PodInfo]] | None = None
    for position, node in enumerate(ctx.only(INTER_POD_AFFINITY)):
        info = ctx.info(node)
        if info is None or ctx.reasons(node, INTER_POD_AFFINITY) != [REASON_EXISTING_ANTI_AFFINITY]:
            continue
        pods = _conflicting_pods(ctx, info.node)
        if pods and all(_evictable(p) for p in pods) and (best is None or (len(pods), position) < best[0]):
            best = ((len(pods), position), node, pods)
    if best is None:
        return []
    _, node, pods = best
    names = ", ".join(p.key for p in pods)
    ops = [{"op": "delete", "object": _pod_ref(p)} for p in pods]
    return [_Candidate(REMOVE_CONFLICTING_PODS, f"node {node}",
                       f"make room on node {node}: {'pod' if len(pods) == 1 else 'pods'} {names}, whose required "
                       f"anti-affinity excludes this pod there, would have to go (moved elsewhere or deleted)", ops)]


def _labels_for(ctx: _Context, node: Node) -> dict[str, str | None] | None:
    """Label changes (None: remove) after which the pod's node selector and required node
    affinity select the node; None when labels cannot do it."""
    changes: dict[str, str | None] = {}
    for k, v in (ctx.pod.spec.get("nodeSelector") or {}).items():
        if node.labels.get(k) != str(v):
            changes[k] = str(v)
    required = ((ctx.pod.spec.get("affinity") or {}).get("nodeAffinity") or {}).get(REQUIRED_PATH[-1])
    if required is not None:
        best: dict[str, str | None] | None = None
        for term in required.get("nodeSelectorTerms") or []:
            if is_empty_term(term) or ParsedTerm.parse(term).errors or term.get("matchFields"):
                continue
            edits = _term_labels(term, node)
            if edits is not None and (best is None or len(edits) < len(best)):
                best = edits
        if best is None:
            return None
        for k, v in best.items():
            if k in changes and changes[k] != v:
                return None
            changes[k] = v
    if HOSTNAME_LABEL in changes:
        return None
    return changes


def _term_labels(term: Mapping[str, Any], node: Node) -> dict[str, str | None] | None:
    edits: dict[str, str | None] = {}
    for expr in term.get("matchExpressions") or []:
        if ParsedTerm.parse({"matchExpressions": [expr]}).matches(node):
            continue
        op, key, values = expr.get("operator"), expr.get("key", ""), [str(v) for v in expr.get("values") or []]
        if op == IN:
            edits[key] = values[0]
        elif op == EXISTS:
            edits[key] = "true"
        elif op in (NOT_IN, DOES_NOT_EXIST):
            edits[key] = None
        elif op in (GT, LT):
            bound = parse_int64(values[0]) if values else None
            if bound is None:
                return None
            edits[key] = str(bound + 1 if op == GT else bound - 1)
        else:
            return None
    return edits


def _new_node(info: NodeInfo, name: str, drop_taints: list[dict[str, Any]],
              labels: dict[str, str | None]) -> dict[str, Any]:
    """An empty node of the same shape: its labels (changed as asked), capacity and allocatable,
    the taints that were not dropped; not cordoned."""
    src = info.node.obj
    new_labels = dict(info.node.labels)
    for k, v in labels.items():
        if v is None:
            new_labels.pop(k, None)
        else:
            new_labels[k] = v
    if HOSTNAME_LABEL in new_labels:
        new_labels[HOSTNAME_LABEL] = name
    dropped = {_taint_key(t) for t in drop_taints}
    taints = [copy.deepcopy(t) for t in info.node.taints
              if _taint_key(t) not in dropped and t.get("key") != CORDON_TAINT_KEY]
    status = src.get("status") or {}
    obj: dict[str, Any] = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": new_labels},
                           "spec": {}, "status": {k: copy.deepcopy(status[k]) for k in ("capacity", "allocatable")
                                                  if k in status}}
    if taints:
        obj["spec"]["taints"] = taints
    return obj


def _shape(info: NodeInfo) -> str:
    alloc = info.allocatable
    return f"cpu {format_milli(alloc.milli_cpu)}, memory {format_bytes(alloc.memory)}"


def _fresh_fixable(ctx: _Context, node: str) -> bool:
    plugins = ctx.blocked[node]
    nrf = plugins.get(NODE_RESOURCES_FIT)
    return nrf is None or nrf.get("code") != UNRESOLVABLE


NEW_NODE_PREFIX = "new-node-like-"
MAX_NODE_NAME = 253     # a Node's name is a DNS subdomain


def new_node_name(like: str, taken: set[str] | frozenset[str] = frozenset()) -> str:
    """The name of a suggested new node like `like`: `new-node-like-<like>` (then `-2`, `-3`, ...
    when taken), a valid DNS subdomain of at most 253 characters (the end of a long name cut,
    without a trailing `-` or `.`)."""
    for i in range(1, 1000):
        suffix = "" if i == 1 else f"-{i}"
        base = (NEW_NODE_PREFIX + like)[:MAX_NODE_NAME - len(suffix)].rstrip("-.")
        name = base + suffix
        if name not in taken:
            return name
    return name  # pragma: no cover - a thousand suggested nodes like one


def _add_node(ctx: _Context) -> list[_Candidate]:
    """A new node like an existing one, without the taints or with the labels the pod needs."""
    allowed = FRESH_NODE_FIXES | {TAINT_TOLERATION, NODE_AFFINITY, NODE_UNSCHEDULABLE}
    uncertain = {INTER_POD_AFFINITY, POD_TOPOLOGY_SPREAD, NODE_VOLUME_LIMITS}
    shapes: dict[str, tuple[tuple[int, int], str, list[dict[str, Any]], dict[str, str | None]]] = {}
    for position, node in enumerate(ctx.within(allowed)):
        plugins = set(ctx.blocked[node])
        info = ctx.info(node)
        if info is None or not _fresh_fixable(ctx, node) or plugins <= {NODE_UNSCHEDULABLE}:
            continue
        drop = _untolerated(ctx.pod, info.node) if TAINT_TOLERATION in plugins else []
        labels: dict[str, str | None] = {}
        if NODE_AFFINITY in plugins:
            if ctx.reasons(node, NODE_AFFINITY) != [REASON_NODE_AFFINITY]:
                continue
            found = _labels_for(ctx, info.node)
            if not found:
                continue
            labels = found
        group = "label" if labels else "taint" if drop else "capacity"
        rank = (len(plugins & uncertain), position)
        if group not in shapes or rank < shapes[group][0]:
            shapes[group] = (rank, node, drop, labels)
    out = []
    taken = {ni.name for ni in ctx.snapshot.node_infos}
    for group in ("taint", "label", "capacity"):
        if group not in shapes or (group == "capacity" and len(shapes) > 1):
            continue
        _, node, drop, labels = shapes[group]
        info = ctx.info(node)
        name = new_node_name(node, taken)
        obj = _new_node(info, name, drop, labels)
        words = [f"add a node like {node} ({_shape(info)})"]
        if drop:
            words.append(f"without the taint{'s' if len(drop) > 1 else ''} "
                         f"{', '.join(taint_to_string(t) for t in drop)}")
        if labels:
            words.append("labelled " + ", ".join(f"{k}={v}" if v is not None else f"without {k}"
                                                 for k, v in labels.items()))
        out.append(_Candidate(ADD_NODE, "cluster", " ".join(words),
                              [{"op": "create", "object": _node_ref(name), "value": obj}]))
    return out


# --- applying and verifying ------------------------------------------------------------------------------

def changed_inputs(inputs: Inputs, change: Sequence[Op]) -> Inputs:
    """The inputs with a change applied: the pending pod patched, nodes patched or created,
    bound pods deleted. A change to the pod alone keeps the snapshot (and its cached indexes)."""
    pod_key = (inputs.pod.namespace, inputs.pod.name)
    pod_ops: list[Op] = []
    node_ops: dict[str, list[Op]] = {}
    created: list[dict[str, Any]] = []
    deleted: set[str] = set()
    for op in change:
        ref = op["object"]
        if ref["kind"] == "Pod" and op["op"] == "delete":
            deleted.add(f"{ref.get('namespace') or 'default'}/{ref['name']}")
        elif ref["kind"] == "Pod" and (ref.get("namespace") or "default", ref["name"]) == pod_key:
            pod_ops.append(op)
        elif ref["kind"] == "Node" and op["op"] == "create":
            created.append(op["value"])
        elif ref["kind"] == "Node":
            node_ops.setdefault(ref["name"], []).append(op)
        else:
            raise ValueError(f"cannot apply {op['op']} to {ref}")
    out = inputs
    if pod_ops:
        out = replace(out, pod=PodInfo(apply_ops(inputs.pod.obj, pod_ops)))
    if node_ops or created or deleted:
        out = replace(out, snapshot=_changed_snapshot(inputs.snapshot, node_ops, created, deleted))
    return out


def _changed_snapshot(snapshot: Snapshot, node_ops: Mapping[str, list[Op]], created: list[dict[str, Any]],
                      deleted: set[str]) -> Snapshot:
    infos: list[NodeInfo] = []
    for ni in snapshot.node_infos:
        doomed = [p for p in ni.pods if p.key in deleted]
        if ni.name in node_ops or doomed:
            ni = ni.clone()
            if ni.name in node_ops:
                ni = replace(ni, node=Node.from_obj(apply_ops(ni.node.obj, node_ops[ni.name])))
            for p in doomed:
                ni.remove_pod(p)
        infos.append(ni)
    if created:
        by_name = {ni.name: ni for ni in infos}
        for obj in created:
            info = NodeInfo(Node.from_obj(obj))
            by_name[info.name] = info
        infos = [by_name[n.name] for n in node_tree_order([*(ni.node for ni in infos),
                                                             *(by_name[o["metadata"]["name"]].node for o in created)])]
    return Snapshot(infos, snapshot.namespaces, snapshot.objects)


def _feasible(trace: Trace) -> tuple[str, ...]:
    return tuple(n for n, st in (trace.filter or {}).items() if st.get("code") == "Success")


def _complete(trace: Trace, inputs: Inputs) -> bool:
    search = trace.search
    if search is None:
        return False
    if trace.pre_filter_node_names is not None:
        expected = sum(1 for n in set(trace.pre_filter_node_names) if inputs.snapshot.get(n) is not None)
    else:
        expected = len(inputs.snapshot)
    return search.num_nodes_searched >= expected


def verify(inputs: Inputs, request: Request, change: Sequence[Op],
           before: Iterable[str] = ()) -> tuple[Verification, tuple[str, ...]] | None:
    """Run the scheduling cycle on the changed inputs: the verification and the nodes opened
    (feasible now, not in `before`), or None when the pod would still not be scheduled."""
    changed = changed_inputs(inputs, change)
    trace = explain(changed, replace(request, filter_all=False, preemption=False))
    if trace.result.status != SCHEDULED:
        return None
    feasible = _feasible(trace)
    was = set(before)
    opened = tuple(n for n in feasible if n not in was)
    if not opened:
        return None
    searched = trace.search.num_nodes_searched if trace.search else 0
    return Verification(trace.result.status, trace.result.suggested_host, feasible, searched,
                        _complete(trace, changed)), opened


# --- the entry point -------------------------------------------------------------------------------------

POD_GENERATORS: tuple[Callable[[_Context], list[_Candidate]], ...] = (
    _lower_request, _add_toleration, _relax_node_affinity, _spread, _ports, _pod_affinity_terms)
CLUSTER_GENERATORS: tuple[Callable[[_Context], list[_Candidate]], ...] = (
    _uncordon, _free_resources, _remove_conflicting_pods, _add_node)


def _round_robin(lists: Sequence[list[_Candidate]]) -> Iterator[_Candidate]:
    depth = max((len(xs) for xs in lists), default=0)
    for i in range(depth):
        for xs in lists:
            if i < len(xs):
                yield xs[i]


def suggestions(inputs: Inputs, trace: Trace, request: Request | None = None,
                budget: int = MAX_VERIFIED) -> list[Suggestion]:
    """Verified fix suggestions for a pod the trace says is Unschedulable ([] otherwise):
    pod changes first, then cluster changes, each proven by re-running the scheduling cycle."""
    if trace.result.status != UNSCHEDULABLE or trace.search is None:
        return []
    if request is None:
        request = Request(pod_path="", start_index=trace.search.start_index)
    filter_all = trace.filter_all
    if filter_all is None:
        filter_all = explain(inputs, replace(request, filter_all=True, preemption=False)).filter_all or {}
    ctx = _Context(inputs, request, trace, _blocked(filter_all))
    if not ctx.blocked:
        return []
    before = _feasible(trace)
    out: list[Suggestion] = []
    seen: set[str] = set()
    attempts = 0

    def attempt(candidates: Iterable[_Candidate]) -> None:
        nonlocal attempts
        for cand in candidates:
            key = repr(cand.change)
            if attempts >= budget:
                return
            if key in seen or not cand.change:
                continue
            seen.add(key)
            attempts += 1
            try:
                proven = verify(inputs, request, cand.change, before)
            except Exception:       # noqa: BLE001 - a change that cannot be run is not verified
                proven = None
            if proven is not None:
                verification, opened = proven
                out.append(Suggestion(cand.kind, cand.target, cand.description, tuple(cand.change),
                                      len(opened), opened, verification))

    attempt(_round_robin([_ideas(g, ctx) for g in POD_GENERATORS]))
    if not out:
        attempt(_ideas(_combined, ctx))
    attempt(_round_robin([_ideas(g, ctx) for g in CLUSTER_GENERATORS]))
    return out


def _ideas(generator: Callable[[_Context], list[_Candidate]], ctx: _Context) -> list[_Candidate]:
    """A generator's candidates; one that fails on an input it did not foresee offers none
    (suggestions never stop an explanation)."""
    try:
        return generator(ctx)
    except Exception:           # noqa: BLE001
        return []


def verified_suggestions(inputs: Inputs, trace: Trace, request: Request | None = None) -> list[Suggestion]:
    """`suggestions` under the name lint looks for (each item has `.text`)."""
    return suggestions(inputs, trace, request)
