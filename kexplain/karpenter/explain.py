"""Everything that stands in the way of a pending pod, per NodePool, as Karpenter's own functions
see it at the end of the pass: the document's `explained` key."""
from __future__ import annotations

import copy
from typing import Any, Mapping, Sequence

from kexplain.apimachinery.selectors import EXISTS, IN
from kexplain.karpenter.apis.labels import NORMALIZED_LABELS, is_restricted_label
from kexplain.karpenter.document import error_parts
from kexplain.karpenter.errors import multierr_errors
from kexplain.karpenter.explain_types import (MAX_NAMES, check_types, excluded_by, instance_types_verdict,
                                              limits_verdict, offerings_verdict)
from kexplain.karpenter.provisioning.provisioner import (EXISTING_NODE, FAILED, NEW_NODE_CLAIM, PassResult,
                                                         order_by_weight)
from kexplain.karpenter.provisioning.scheduling import preferences as prefs
from kexplain.karpenter.provisioning.scheduling.existingnode import EXCEEDS_NODE_RESOURCES
from kexplain.karpenter.provisioning.scheduling.nodeclaim import (HOSTNAME_LABEL, NodeClaim,
                                                                  filter_instance_types_by_requirements)
from kexplain.karpenter.provisioning.scheduling.nodeclaimtemplate import new_node_claim_template
from kexplain.karpenter.provisioning.scheduling.scheduler import (DRA_NOT_SUPPORTED, EXCEED_LIMITS,
                                                                  NODE_LIMITS_EXHAUSTED, NodePoolError,
                                                                  filter_by_remaining_resources)
from kexplain.karpenter.scheduling.requirement import new_requirement
from kexplain.karpenter.scheduling.requirements import (ALLOW_UNDEFINED_WELL_KNOWN_LABELS, UndefinedLabelError,
                                                        new_requirements)
from kexplain.karpenter.scheduling.taints import Taints
from kexplain.karpenter.state.cluster import is_managed_node_claim
from kexplain.karpenter.utils.objects import name_of, template_spec
from kexplain.karpenter.utils import resources
from kexplain.model.pod import PodInfo
from kexplain.model.shapes import plugin_key
from kexplain.model.taints import taint_to_string
from kexplain.apimachinery.quantity import canonical, sub
from kexplain.karpenter.scheduling.hostportusage import get_host_ports
from kexplain.karpenter.scheduling.volumeusage import get_volumes

REQUIRED = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
NODE_SELECTOR = "spec.nodeSelector"
VOLUMES = "spec.volumes"          # the zones of the pod's volumes (volume topology)
TOPOLOGY = "topology"             # a topology spread or pod (anti-)affinity narrowed the key
PLACEHOLDER = "hostname-placeholder-explain"
POOL_LABELS = "spec.template.metadata.labels"
POOL_REQUIREMENTS = "spec.template.spec.requirements"
NODEPOOL_LABEL = "karpenter.sh/nodepool"                  # every NodePool's nodes carry its name
NODE_CLASS_LABEL = "karpenter.k8s.aws/ec2nodeclass"       # ... and their EC2NodeClass's

# Kinds of the nodes a pod may go to before a new NodeClaim.
NODES = "existingNodes"
IN_FLIGHT = "inflightNodeClaims"


def explain_pass(result: PassResult, cloud: Any, *, every_pod: bool = False) -> dict[str, Any]:
    """The `explained` key: the AWS data's source, every NodePool in Karpenter's order (tried or
    why not), and per pod Karpenter does not place (every pod with `every_pod`) its analysis."""
    sched = result.scheduler
    out: dict[str, Any] = {"awsData": aws_data(cloud.world), "nodePools": node_pools_entries(result, cloud),
                           "pods": []}
    explainer = PodExplainer(result, cloud) if sched is not None else None
    for pr in result.pods:
        if not every_pod and pr.result in (NEW_NODE_CLAIM, EXISTING_NODE):
            continue
        out["pods"].append(pod_entry(pr, explainer, result))
    return out


def aws_data(world: Any) -> dict[str, str]:
    """Where the EC2 facts and prices come from, and when the shipped catalog was taken."""
    out = {"source": world.source, "region": world.region}
    if world.taken:
        out["taken"] = world.taken
    if world.pricing.source:
        out["prices"] = world.pricing.source
    return out


# -- the NodePools ----------------------------------------------------------------------------------
def node_pools_entries(result: PassResult, cloud: Any) -> list[dict[str, Any]]:
    """Every NodePool in Karpenter's order: tried by the scheduler, or the reason it was not."""
    sched = result.scheduler
    ordered = list(result.node_pools)
    order_by_weight(ordered)
    tried = {id(t): t for t in sched.templates} if sched is not None else {}
    by_name = {t.node_pool_name: t for t in tried.values()}
    out = []
    for np in ordered:
        name = name_of(np)
        nct = by_name.get(name)
        types, err = cloud.get_instance_types(np)
        entry: dict[str, Any] = {"nodePool": name, "weight": (new_node_claim_template(np).node_pool_weight),
                                 "tried": nct is not None, "offered": len(types)}
        if nct is not None:
            entry["instanceTypes"] = len(nct.instance_type_options)
            entry["daemonSetOverhead"] = resources.to_json(sched.daemon_overhead[id(nct)])
        else:
            entry["why"], details = _not_tried(np, sched, cloud, types, err)
            entry.update(details)
        limits = cloud.limits(np)
        if limits:
            entry["limits"] = _limit_rows(limits, sched.remaining_resources.get(name) if sched is not None else None)
        out.append(entry)
    return out


def _limit_rows(limits: Mapping[str, Any], remaining: resources.Nanos | None) -> list[dict[str, str]]:
    """Each limit and, when the scheduler ran, what its nodes and new NodeClaims take of it
    (`remaining`: the scheduler's integer view of what is left)."""
    left = resources.from_nanos(remaining, limits) if remaining is not None else {}
    rows = []
    for name in sorted(limits):
        row = {"resource": name, "limit": canonical(limits[name])}
        if name in left:
            row["used"] = canonical(sub(limits[name], left[name]))
        rows.append(row)
    return rows


def _not_tried(np: Mapping[str, Any], sched: Any, cloud: Any, types: Sequence[Any], err: BaseException | None
               ) -> tuple[str, dict[str, Any]]:
    """Why the scheduler has no template of the NodePool, and for one whose requirements leave no
    type (NoCompatibleInstanceTypes) which requirement takes them away, or the offerings."""
    ref = template_spec(np).get("nodeClassRef") or {}
    if not is_managed_node_claim({"spec": {"nodeClassRef": ref}}):
        return (f"its nodeClassRef ({ref.get('group', '')}/{ref.get('kind', '')}) is not this provider's "
                "(karpenter.k8s.aws EC2NodeClass)"), {}
    if (np.get("spec") or {}).get("replicas") is not None:
        return "a static NodePool (spec.replicas): it does not provision for pending pods", {}
    if not cloud.node_pool_ready(np):
        conditions = [str(c) for c in cloud.node_pool_conditions(np) if not c.is_true()]
        return "not ready: " + "; ".join(conditions), {}
    if (np.get("metadata") or {}).get("deletionTimestamp"):
        return "being deleted", {}
    if sched is None:
        return "no pod reached the scheduler in this pass", {}
    if err is not None:
        return f"its instance types could not be listed: {err}", {}
    if not types:
        return "its EC2NodeClass gives no instance type", {}
    nct = new_node_claim_template(np)
    _, _, filter_err = filter_instance_types_by_requirements(types, nct.requirements, {}, {}, {}, False,
                                                             cloud.satisfies_min_values, sched.type_index)
    min_values = getattr(filter_err, "min_values_incompatible_err", None)
    if min_values is not None:
        return (f"its requirements' minValues cannot be met by the {len(types)} instance types "
                f"(NoCompatibleInstanceTypes): {min_values}"), {}
    checks = check_types(types, nct.requirements, {}, None, sched.type_index)
    if any(c.compatible for c in checks):
        return ("no instance type its requirements allow has an available offering (NoCompatibleInstanceTypes)",
                {"offerings": offerings_verdict(checks, nct.requirements, cloud.node_class_of(np), cloud.provider,
                                                sched.type_index)})
    narrowing = [(dict.__getitem__(nct.requirements, key), _pool_fields(np, key)) for key in sorted(nct.requirements)]
    return (f"its requirements match none of its {len(types)} instance types (NoCompatibleInstanceTypes)",
            {"excludedBy": excluded_by(checks, narrowing)})


def _pool_fields(np: Mapping[str, Any], key: str) -> list[str]:
    """The NodePool's fields that require `key`: template labels and requirements."""
    template = (np.get("spec") or {}).get("template") or {}
    if key == NODEPOOL_LABEL:
        return ["metadata.name"]
    if key == NODE_CLASS_LABEL:
        return ["spec.template.spec.nodeClassRef"]
    out = [f"{POOL_LABELS}.{k}" for k in ((template.get("metadata") or {}).get("labels") or {})
           if NORMALIZED_LABELS.get(k, k) == key]
    for i, r in enumerate(template_spec(np).get("requirements") or ()):
        if isinstance(r, dict) and NORMALIZED_LABELS.get(str(r.get("key") or ""), r.get("key")) == key:
            out.append(f"{POOL_REQUIREMENTS}[{i}]")
    return out


# -- a pod -------------------------------------------------------------------------------------------
def pod_entry(pr: Any, explainer: "PodExplainer | None", result: PassResult) -> dict[str, Any]:
    entry: dict[str, Any] = {"pod": pr.pod.key, "result": pr.result}
    if pr.error is not None:
        entry["karpenter"] = str(pr.error)
    if pr.why:
        entry["why"] = pr.why
    for key, value in (("node", pr.node), ("nodeClaim", pr.node_claim), ("nodePool", pr.node_pool)):
        if value:
            entry[key] = value
    if explainer is None or pr.result not in (FAILED, NEW_NODE_CLAIM, EXISTING_NODE):
        return entry
    analysis = explainer.explain(pr.pod)
    parts = error_parts(pr.error) if pr.result == FAILED else []
    tried = result.tried_node_pools
    paired = dict(zip(tried, parts)) if parts and len(parts) == len(tried) else {}
    pools = []
    for verdict in analysis["nodePools"]:
        verdict = dict(verdict)
        if verdict["nodePool"] in paired:
            verdict["karpenter"] = paired[verdict["nodePool"]]
        pools.append(verdict)
    for key, value in analysis.items():
        entry[key] = pools if key == "nodePools" else value
    return entry


def required_terms(pod: PodInfo) -> list[Mapping[str, Any]]:
    required = (((pod.spec.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution") or {})
    return [t if isinstance(t, dict) else {} for t in (required.get("nodeSelectorTerms") or ())] \
        if isinstance(required, dict) else []


def requirement_fields(pod: PodInfo, term: int | None) -> dict[str, list[str]]:
    """The pod's fields behind each requirement key (keys normalized as Karpenter reads them):
    its nodeSelector entries and the expressions of required node affinity term `term`."""
    out: dict[str, list[str]] = {}
    for key in pod.spec.get("nodeSelector") or {}:
        out.setdefault(NORMALIZED_LABELS.get(key, key), []).append(f"{NODE_SELECTOR}.{key}")
    terms = required_terms(pod)
    if term is not None and term < len(terms):
        for j, expr in enumerate(terms[term].get("matchExpressions") or ()):
            if isinstance(expr, dict):
                key = str(expr.get("key") or "")
                out.setdefault(NORMALIZED_LABELS.get(key, key), []).append(
                    f"{REQUIRED}.nodeSelectorTerms[{term}].matchExpressions[{j}]")
    return out


def relaxed_pod(pod: PodInfo, preferences: prefs.Preferences) -> PodInfo:
    """The pod as Karpenter last tried it: every preference relaxed."""
    obj = prefs.relaxable_copy(pod.obj)
    while preferences.relax(obj["spec"]) is not None:
        pass
    return PodInfo(obj)


def with_term(pod: PodInfo, term: Mapping[str, Any]) -> PodInfo:
    """`pod` (relaxed) with `term` as its only required node affinity term."""
    spec = dict(pod.spec)
    affinity = copy.deepcopy(spec.get("affinity") or {})
    node_affinity = affinity.setdefault("nodeAffinity", {})
    required = dict(node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution") or {})
    required["nodeSelectorTerms"] = [term]
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = required
    spec["affinity"] = affinity
    return PodInfo({**pod.obj, "spec": spec})


class PodExplainer:
    """Explains pods against the scheduler's final state; one analysis per pod shape
    (`kexplain.model.shapes.plugin_key`: pods with equal keys get the same answers from one state)."""

    def __init__(self, result: PassResult, cloud: Any) -> None:
        self.sched = result.scheduler
        self.cloud = cloud
        self.pools = {name_of(np): np for np in result.node_pools}
        self.claim_names = {id(c.claim): c.name for c in result.node_claims}
        self._cache: dict[bytes, dict[str, Any]] = {}
        self._nodes: list[tuple[Any, str, str, bool]] | None = None    # (node, its group, its name, ...): `nodes`

    def nodes(self) -> list[tuple[Any, str, str, bool]]:
        """The scheduler's existing nodes, each with the group it is explained in (an in-flight
        NodeClaim's or a node's), its name and whether it has neither taints nor volume limits (what
        `can_add` asks before the room): what the pass left them, read once for every pod."""
        if self._nodes is None:
            self._nodes = [(node, IN_FLIGHT if node.managed() and not node.state.registered() else NODES, node.name(),
                            not node.taints and not node.state.volume_usage.limits)
                           for node in self.sched.existing_nodes]
        return self._nodes

    # -- the pod's data as the scheduler reads it ------------------------------------------------
    def _pod_data(self, pod: PodInfo) -> Any:
        sched = self.sched
        saved = sched.cached_pod_data.get(pod.uid)
        sched.update_cached_pod_data(pod)
        data = sched.cached_pod_data[pod.uid]
        if saved is not None:
            sched.cached_pod_data[pod.uid] = saved
        else:
            del sched.cached_pod_data[pod.uid]
        return data

    def explain(self, pod: PodInfo) -> dict[str, Any]:
        shape = plugin_key(pod)
        if shape is not None and shape in self._cache:
            return self._cache[shape]
        sched = self.sched
        relaxed = relaxed_pod(pod, sched.preferences)
        sched.topology.update(relaxed)
        try:
            analysis = self._explain(pod, relaxed)
        finally:
            sched.topology.update(pod)
        if shape is not None:
            self._cache[shape] = analysis
        return analysis

    def _explain(self, pod: PodInfo, relaxed: PodInfo) -> dict[str, Any]:
        terms = required_terms(pod)
        data = self._pod_data(relaxed)
        last = len(terms) - 1 if terms else None
        per_term = [(i, self._pod_data(with_term(relaxed, t)) if i != last else data) for i, t in enumerate(terms)] \
            if len(terms) > 1 else [(last, data)]
        out: dict[str, Any] = {}
        if len(terms) > 1:
            out["nodeSelectorTerms"] = len(terms)
            out["termTried"] = last
        if data.has_resource_claim_requests and self.sched.options.ignore_dra_requests:
            out["dra"] = DRA_NOT_SUPPORTED
        out["nodePools"] = [self._pool(nct, pod, relaxed, data, per_term, last) for nct in self.sched.templates]
        out.update(self._existing(relaxed, data))
        claims = self._new_claims(relaxed, data)
        if claims:
            out["newNodeClaims"] = claims
        return out

    # -- one NodePool ------------------------------------------------------------------------------
    def _pool(self, nct: Any, pod: PodInfo, relaxed: PodInfo, data: Any, per_term: list[tuple[int | None, Any]],
              last: int | None) -> dict[str, Any]:
        sched, cloud = self.sched, self.cloud
        name = nct.node_pool_name
        np = self.pools.get(name) or {}
        out: dict[str, Any] = {"nodePool": name, "weight": nct.node_pool_weight}
        taints = [e.taint for e in multierr_errors(Taints(nct.taints).tolerates_pod(relaxed))]
        if taints:
            out["taints"] = [{"taint": taint_to_string(t), "key": t.get("key") or "", "effect": t.get("effect") or ""}
                             for t in taints]
        conflict = sched.daemon_host_ports[id(nct)].conflicts(relaxed, get_host_ports(relaxed))
        if conflict is not None:
            out["hostPorts"] = str(conflict)
        problems, clean = self._requirement_problems(nct, np, pod, per_term)
        if problems:
            out["requirements"] = problems
        if len(per_term) > 1:
            out["termsWithoutProblems"] = clean
        # The NodeClaim's requirements as NodeClaim.can_add builds them for the last attempt.
        requirements = new_requirements(*nct.requirements.values())
        requirements.add(new_requirement(HOSTNAME_LABEL, IN, PLACEHOLDER))
        requirements.add(*data.requirements.values())
        fields = requirement_fields(pod, last)
        narrowing = [(req, fields.get(key, [])) for key, req in sorted(data.requirements.items())
                     if key not in {p["key"] for p in problems}]
        volume_errors, chosen = [], None
        for alternative in data.volume_requirements or ():
            err = requirements.compatible(alternative, ALLOW_UNDEFINED_WELL_KNOWN_LABELS)
            if err is None:
                chosen = alternative
                break
            volume_errors.append(f"incompatible volume requirements, {err}")
        if data.volume_requirements and chosen is None:
            out["volumes"] = volume_errors
        if chosen is not None:
            requirements.add(*chosen.values())
            narrowing += [(req, [VOLUMES]) for _, req in sorted(chosen.items())]
        topology_reqs, err = sched.topology.add_requirements(relaxed, nct.taints, data.strict_requirements,
                                                            requirements, ALLOW_UNDEFINED_WELL_KNOWN_LABELS)
        if err is None:
            err = requirements.compatible(topology_reqs, ALLOW_UNDEFINED_WELL_KNOWN_LABELS)
        if err is not None:
            out["topology"] = str(err)
        else:
            narrowing += [(req, [TOPOLOGY]) for key, req in sorted(topology_reqs.items())
                          if key != HOSTNAME_LABEL and dict.get(requirements, key) != req]
            requirements.add(*topology_reqs.values())
        del requirements[HOSTNAME_LABEL]
        overhead = sched.daemon_overhead[id(nct)]
        offered, _ = cloud.get_instance_types(np)
        limits = cloud.limits(np)
        remaining = sched.remaining_resources.get(name)
        total = resources.merge(overhead, data.requests)
        checks = check_types(nct.instance_type_options, requirements, total, remaining if limits else None,
                             sched.type_index)
        out["instanceTypes"] = instance_types_verdict(len(offered), checks, narrowing, data.requests, overhead,
                                                      cloud.world, bool(limits))
        if requirements.has_min_values():
            _, _, ferr = filter_instance_types_by_requirements(
                [c.it for c in checks], requirements, data.requests, overhead, total,
                sched.options.min_values_best_effort, sched.satisfies_min_values, sched.type_index)
            if ferr is not None and ferr.min_values_incompatible_err is not None:
                out["minValues"] = str(ferr.min_values_incompatible_err)
        if checks:
            out["offerings"] = offerings_verdict(checks, requirements, cloud.node_class_of(np), cloud.provider,
                                                 sched.type_index)
        limited = limits_verdict(limits, remaining if limits else None, checks)
        if limited is not None:
            out["limits"] = limited
        out["inTheWay"] = in_the_way(out)
        if not out["inTheWay"]:
            # Nothing found: the engine's own answer for the NodePool now ("" when it takes the pod).
            verdict = self._replay(nct, relaxed, data)
            out["verdict"] = str(verdict) if verdict is not None else ""
        return out

    def _requirement_problems(self, nct: Any, np: Mapping[str, Any], pod: PodInfo,
                              per_term: list[tuple[int | None, Any]]) -> tuple[list[dict[str, Any]], list[int]]:
        """Every requirement of the pod (per required term) the NodePool's requirements refuse,
        each once; and the terms without any."""
        problems: list[dict[str, Any]] = []
        seen: set[tuple[tuple[str, ...], str]] = set()
        clean: list[int] = []
        for term, data in per_term:
            fields = requirement_fields(pod, term)
            found = False
            for key in sorted(data.requirements):
                req = dict.__getitem__(data.requirements, key)
                err = nct.requirements.compatible(new_requirements(req), ALLOW_UNDEFINED_WELL_KNOWN_LABELS)
                if err is None:
                    continue
                found = True
                names = tuple(fields.get(key, ()))
                if (names, str(err)) in seen:
                    continue
                seen.add((names, str(err)))
                problem: dict[str, Any] = {"key": key, "fields": list(names), "requirement": str(req),
                                           "error": str(err)}
                if key in nct.requirements:
                    problem["nodePool"] = str(dict.__getitem__(nct.requirements, key))
                    problem["nodePoolFields"] = _pool_fields(np, key)
                if isinstance(err, UndefinedLabelError):
                    problem["undefinedLabel"] = undefined_label(key, req, err)
                problems.append(problem)
            if not found and term is not None:
                clean.append(term)
        return problems, clean

    def _replay(self, nct: Any, pod: PodInfo, data: Any) -> BaseException | None:
        """The scheduler's answer for this NodePool now (addToNewNodeClaim for one template)."""
        sched = self.sched
        name = nct.node_pool_name
        its = nct.instance_type_options
        remaining = sched.remaining_resources.get(name)
        if remaining is not None:
            if remaining.get(resources.NODE) == 0:
                return NodePoolError(NODE_LIMITS_EXHAUSTED, name)
            its = filter_by_remaining_resources(its, remaining)
            if not its:
                return NodePoolError(EXCEED_LIMITS, name)
        claim = NodeClaim(nct, sched.topology, sched.daemon_overhead[id(nct)], sched.daemon_host_ports[id(nct)],
                          its, PLACEHOLDER, sched.context)
        return claim.can_add(pod, data, sched.options.min_values_best_effort)[3]

    # -- nodes and NodeClaims ----------------------------------------------------------------------
    def _existing(self, pod: PodInfo, data: Any) -> dict[str, Any]:
        """Why each existing node and in-flight NodeClaim does not take the pod, grouped by reason."""
        volumes, verr = get_volumes(self.sched.volume_index, pod)
        groups: dict[str, dict[tuple[str, tuple[str, ...]], list[str]]] = {NODES: {}, IN_FLIGHT: {}}
        requests = resources.nanos_of(data.requests)
        wanted = sorted(requests.items())     # (the pod's, asked of every node)
        # Without host ports, a node without taints or volume limits refuses the pod first for room, if
        # it does (`can_add`'s order): 70% of 5,000 nodes, weighed here without the call.
        roomy, fits = not get_host_ports(pod), resources.fits_nanos
        for node, kind, name, plain in self.nodes():
            short: tuple[str, ...] = ()
            if verr is not None:
                reason = f"its volumes cannot be read: {verr}"
            elif roomy and plain and not fits(requests, node.remaining_resources):
                reason = EXCEEDS_NODE_RESOURCES
            else:
                err = node.can_add(pod, data, volumes)[1]
                reason = str(err) if err is not None else ""
            if reason == EXCEEDS_NODE_RESOURCES:
                room = node.remaining_resources         # integers, as fits_nanos compares them
                short = tuple(n for n, v in wanted if v > room.get(n, 0))
            groups[kind].setdefault((reason, short), []).append(name)
        out = {}
        for kind, by_reason in groups.items():
            considered = sum(len(v) for v in by_reason.values())
            if considered:
                out[kind] = {"considered": considered, "reasons": _reason_rows(by_reason)}
        return out

    def _new_claims(self, pod: PodInfo, data: Any) -> list[dict[str, Any]]:
        """The NodeClaims this pass made, as the pod would be tried on them now (the scheduler's
        in-flight step), with the hostname their requirements had while scheduling."""
        out = []
        for claim in self.sched.new_node_claims:
            view = NodeClaim(claim.template, self.sched.topology, claim.daemon_resources, claim.host_port_usage,
                             list(claim.instance_type_options), claim.hostname, claim.context)
            view.template.requests = claim.template.requests
            view.reserved_offerings = list(claim.reserved_offerings)
            err = view.can_add(pod, data, False)[3]
            out.append({"nodeClaim": self.claim_names.get(id(claim), claim.hostname),
                        "nodePool": claim.node_pool_name, "reason": str(err) if err is not None else ""})
        return out


def in_the_way(verdict: Mapping[str, Any]) -> list[str]:
    """The kinds of obstacle a NodePool verdict holds, each of which alone keeps the pod off it."""
    out = [key for key in ("taints", "hostPorts") if verdict.get(key)]
    if verdict.get("requirements") and not verdict.get("termsWithoutProblems"):
        out.append("requirements")
    out += [key for key in ("volumes", "topology", "minValues") if verdict.get(key)]
    its = verdict.get("instanceTypes") or {}
    if its and (0 in (its.get("requirements"), its.get("offering"), its.get("resources"))):
        out.append("instanceTypes")
    offerings = verdict.get("offerings")
    if offerings is not None and not offerings.get("zones") and "instanceTypes" not in out:
        out.append("offerings")
    if verdict.get("limits"):
        out.append("limits")
    return out


def _reason_rows(by_reason: Mapping[tuple[str, tuple[str, ...]], list[str]]) -> list[dict[str, Any]]:
    rows = []
    for (reason, short), names in sorted(by_reason.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        row: dict[str, Any] = {"reason": reason, "count": len(names), "names": names[:MAX_NAMES]}
        if short:
            row["resources"] = list(short)
        rows.append(row)
    return rows


def undefined_label(key: str, req: Any, err: UndefinedLabelError) -> dict[str, Any]:
    """What a NodePool must declare so that `key` has known values, Karpenter's typo hint, or why no
    NodePool may declare it."""
    out: dict[str, Any] = {"key": key}
    if err.hint:
        out["hint"] = err.hint
    restricted = is_restricted_label(key)
    if restricted:
        out["restricted"] = restricted
        return out
    values = req.values()
    if req.operator() == IN and values:
        value = values[0]
    elif req.gte is not None:
        value = str(req.gte)
    elif req.lte is not None:
        value = str(req.lte)
    else:
        value = ""
    declare: list[dict[str, Any]] = [{"field": POOL_LABELS, "key": key, "value": value}]
    if req.operator() == IN and values:
        declare.append({"field": POOL_REQUIREMENTS, "key": key, "operator": IN, "values": values})
    elif value:
        declare.append({"field": POOL_REQUIREMENTS, "key": key, "operator": IN, "values": [value]})
    declare.append({"field": POOL_REQUIREMENTS, "key": key, "operator": EXISTS})
    out["declare"] = declare
    return out
