"""The facts behind a plugin's verdict, in plain words ("Insufficient cpu" becomes "cpu: the pod
requests 6; ... 1 free"). Knows the shape of the recorded facts, nothing of how plugins compute
them; unknown plugins' facts are `key: value` lines."""
from __future__ import annotations

from typing import Any, Callable, Mapping

from kexplain.apimachinery.labels import ANN_BIND_COMPLETED as _BIND_COMPLETED
from kexplain.apimachinery.quantity import QuantityError, parse_quantity
from kexplain.render.devices import node_words as _dynamic_resources
from kexplain.render.style import quantity

Facts = Mapping[str, Any]


def describe(plugin: str, facts: Facts | None) -> list[str]:
    """Sentences for one plugin's facts on one node ([] when there are none)."""
    if not facts:
        return []
    if "error" in facts and len(facts) == 1:
        return [f"(could not be explained: {facts['error']})"]
    words = _BY_PLUGIN.get(plugin, _generic)
    return words(facts)


def _generic(facts: Facts) -> list[str]:
    return [f"{k}: {_plain(v)}" for k, v in facts.items()]


def _plain(value: Any) -> str:
    """A fact's value in words, as YAML would write it, not as Python's repr: `yes`, `-`, lists
    as `a, b`, mappings as `{k: v}`."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_plain(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}: {_plain(v)}" for k, v in value.items()) + "}"
    return str(value)


# -- per plugin -------------------------------------------------------------------------------------

def _node_unschedulable(f: Facts) -> list[str]:
    if not f.get("unschedulable"):
        return ["not cordoned"]
    if f.get("tolerated"):
        return [f"cordoned (spec.unschedulable), but the pod tolerates {f.get('taint')}"]
    return [f"cordoned (spec.unschedulable: true, kubectl cordon); the pod does not tolerate {f.get('taint')}"]


def _node_name(f: Facts) -> list[str]:
    if f.get("match"):
        return [f"the pod names this node (spec.nodeName: {f.get('nodeName')})"]
    return [f"the pod names another node (spec.nodeName: {f.get('nodeName')})"]


def _taint_toleration(f: Facts) -> list[str]:
    out = []
    for t in f.get("taints") or ():
        if t.get("tolerated"):
            out.append(f"taint {t['taint']}: tolerated ({t.get('toleration')})")
        elif t.get("missingToleration"):
            m = t["missingToleration"]
            tol = ", ".join(f"{k}: {v}" for k, v in m.items())
            out.append(f"taint {t['taint']}: not tolerated; the pod would need the toleration {{{tol}}}")
        else:
            out.append(f"taint {t['taint']}: not tolerated (PreferNoSchedule: lowers the score only)")
    return out or ["no taints"]


def _node_affinity(f: Facts) -> list[str]:
    out = []
    if "enforced" in f:
        out.append("the profile's enforced node affinity " + ("matches" if f["enforced"].get("match")
                                                              else "does not match this node"))
    for e in f.get("nodeSelector") or ():
        have = "has no such label" if e.get("node") is None else f"has {e['key']}={e['node']}"
        out.append(f"nodeSelector {e['key']}={e['want']}: " + ("matches" if e.get("match") else f"the node {have}"))
    terms = f.get("required") or []
    for i, term in enumerate(terms, 1):
        which = f"required term {i} of {len(terms)}" if len(terms) > 1 else "required node affinity"
        out.append(f"{which}: " + ("matches" if term.get("match") else "does not match") +
                   _expressions(term.get("expressions") or ()))
    for term in f.get("preferred") or ():
        out.append(f"preferred (weight {term.get('weight')}): " + ("matches" if term.get("match") else "does not match")
                   + _expressions(term.get("expressions") or ()))
    return out


def _expressions(exprs: Any) -> str:
    failing = [e for e in exprs if not e.get("match")]
    if not failing:
        return ""
    parts = []
    for e in failing:
        have = "no such label" if e.get("node") is None else e["node"]
        parts.append(f"{e['expression']} (node: {have})")
    return ": " + "; ".join(parts)


def _node_ports(f: Facts) -> list[str]:
    out = []
    for p in f.get("ports") or ():
        if p.get("free"):
            out.append(f"host port {p['port']}: free")
        else:
            out.append(f"host port {p['port']}: already used by {', '.join(p.get('usedBy') or ())}")
    return out


def _node_resources_fit(f: Facts) -> list[str]:
    out = []
    for r in f.get("resources") or ():
        name = str(r.get("name"))
        want, cap, have, free = (quantity(name, r.get(k)) for k in ("podRequest", "allocatable", "nodeRequested",
                                                                     "free"))
        if not r.get("fits") and _not_less(want, free):    # rounded alike: the exact amounts tell them apart
            want, free = str(r.get("podRequest")), str(r.get("free"))
        what = (f"{name}: the pod requests {want}; the node has {cap} allocatable, "
                f"{have} requested by its pods: {free} free")
        if name == "pods":
            what = (f"pods: the node runs {r.get('nodeRequested')} of at most {r.get('allocatable')} pods")
        if r.get("fits"):
            out.append(what)
        elif r.get("exceedsAllocatable"):     # the request, not the free room, is more than the whole
            out.append(f"{name}: the pod requests {want}, more than the node's whole allocatable ({cap}): evicting "
                       f"pods cannot help ({have} requested by its pods, {free} free)")
        else:
            out.append(what + " - not enough")
    score = f.get("score")
    if score:
        used = ", ".join(f"{r['name']} {r['percent']}%" for r in score.get("resources") or () if "percent" in r)
        if used:
            how = _STRATEGY.get(score.get("strategy"), "")
            out.append(f"score ({score.get('strategy')}{how}): with the pod, {used} of allocatable requested")
    return out


def _not_less(want: str, free: str) -> bool:
    """Would the rounded amounts read as if the request fitted?"""
    try:
        return parse_quantity(want) <= parse_quantity(free)
    except QuantityError:
        return want == free


_STRATEGY = {"LeastAllocated": ": the emptier, the higher", "MostAllocated": ": the fuller, the higher",
             "RequestedToCapacityRatio": ": by the configured shape"}


def _balanced_allocation(f: Facts) -> list[str]:
    used = ", ".join(f"{r['name']} {r['percent']}%" for r in f.get("resources") or () if "percent" in r)
    if not used:
        return []
    return [f"with the pod, {used} of allocatable requested; the closer together, the higher the score"]


def _pod_topology_spread(f: Facts) -> list[str]:
    out = []
    for c in f.get("hard") or ():
        head = f"spread over {c['topologyKey']} (maxSkew {c['maxSkew']}, pods {c['selector']})"
        if c.get("nodeDomain") is None:
            out.append(f"{head}: the node has no {c['topologyKey']} label")
            continue
        domains = ", ".join(f"{d['domain']} {d['matchingPods']}" for d in c.get("domains") or ())
        out.append(f"{head}: matching pods per domain: {domains or 'none'}; global minimum "
                   f"{c.get('globalMinimum')}" + (f" (fewer than minDomains {c['minDomains']} domains)"
                                                  if c.get("eligibleDomains", 0) < c.get("minDomains", 1) else ""))
        verdict = "within" if c.get("satisfied") else "over"
        out[-1] += (f"; placing the pod in {c['nodeDomain']} makes the skew {c.get('skew')}: {verdict} maxSkew "
                    f"{c['maxSkew']}")
    for c in f.get("soft") or ():
        if c.get("ignored"):
            out.append(f"preferred spread over {c['topologyKey']}: the node lacks a topology label: not scored")
        elif "matchingPods" in c:
            out.append(f"preferred spread over {c['topologyKey']} (pods {c['selector']}): {c['matchingPods']} "
                       f"matching pod(s) in {c.get('nodeDomain')}; fewer score higher")
    return out


def _inter_pod_affinity(f: Facts) -> list[str]:
    out = []
    for t in f.get("affinity") or ():
        where = _domain(t)
        if t.get("nodeDomain") is None:
            out.append(f"required affinity to pods {t['selector']}: the node has no {t['topologyKey']} label")
        elif t.get("matchingPods"):
            out.append(f"required affinity to pods {t['selector']}: {t['matchingPods']} matching pod(s) {where}")
        else:
            out.append(f"required affinity to pods {t['selector']}: no matching pod runs {where}")
    for t in f.get("antiAffinity") or ():
        pods = t.get("conflictingPods") or []
        if pods:
            out.append(f"anti-affinity to pods {t['selector']}: {', '.join(pods)} already run {_domain(t)}")
        else:
            out.append(f"anti-affinity to pods {t['selector']}: none runs {_domain(t)}")
    for e in f.get("existingAntiAffinity") or ():
        out.append(f"{e['pod']} (on {e['node']}) has required anti-affinity to pods {e['selector']} "
                   f"over {e['topologyKey']}, and this pod matches it")
    return out


def _domain(t: Facts) -> str:
    return f"in {t['topologyKey']}={t.get('nodeDomain')}"


def _volume_binding(f: Facts) -> list[str]:
    out = []
    for c in f.get("claims") or ():
        claim = f"claim {c['claim']}"
        if not c.get("found"):
            out.append(f"{claim}: does not exist")
            continue
        if c.get("volumeName") and c.get("bindCompleted") is False:
            out += _prebound_claim(claim, c)
            continue
        if c.get("boundVolume"):
            vol = c["boundVolume"]
            if not c.get("volumeExists"):
                out.append(f"{claim}: bound to PersistentVolume {vol}, which does not exist")
                continue
            if c.get("volumeError"):
                out.append(f"{claim}: bound to {vol}, which cannot be seen through CSI migration: {c['volumeError']}")
            elif c.get("volumeAdmitsNode"):
                out.append(f"{claim}: bound to {vol}, usable on this node")
            else:
                out.append(f"{claim}: bound to {vol}, whose node affinity "
                           f"({c.get('volumeNodeAffinity')}) excludes this node")
            if "claimRefMatches" in c and not c["claimRefMatches"]:
                out.append(f"{vol}'s claimRef {_claim_ref_gap(c)}: the scheduler does not read it (a claim is "
                           "bound for it by spec.volumeName and the annotation pv.kubernetes.io/bind-completed)")
            continue
        cls = c.get("storageClass")
        if c.get("bindingMode") != "WaitForFirstConsumer":
            if not cls:
                why = "it names no storage class"
            elif c.get("classExists") is False:
                why = f"its class {cls} does not exist (so it does not wait for a consumer)"
            else:
                why = f"class {cls} binds immediately"
            out.append(f"{claim}: not bound yet ({c.get('phase')}) and {why}: the PersistentVolume controller "
                       "must bind it before the pod can be scheduled")
            continue
        line = f"{claim} ({quantity('storage', c.get('request'))}, class {cls}, WaitForFirstConsumer):"
        if "availableVolumes" in c:
            here = c.get("volumesForNode") or []
            line += (f" {c['availableVolumes']} free volume(s) of the class, "
                     + (f"usable here: {', '.join(here)}" if here else "none usable on this node"))
        if "provisioner" in c:
            prov = c["provisioner"]
            if prov == "kubernetes.io/no-provisioner" or not prov:
                line += "; the class cannot provision new volumes"
            elif c.get("classAllowsNode"):
                line += f"; {prov} may provision one here"
            else:
                line += "; the class's allowedTopologies exclude this node"
        out.append(line)
    return out


def _prebound_claim(claim: str, c: Facts) -> list[str]:
    """A claim naming a volume without the bind-completed annotation: often a claim written
    by hand as bound. What the scheduler makes of it and what it lacks."""
    vol = c["volumeName"]
    phase = c.get("phase")
    written = (f"is written as bound to {vol} (spec.volumeName, status.phase Bound)" if phase == "Bound"
               else f"names volume {vol} (spec.volumeName, status.phase {phase})")
    out = [f"{claim} {written} but lacks the annotation {_BIND_COMPLETED} that the PersistentVolume controller "
           "adds when it completes a binding",
           "the scheduler counts a claim as bound only with spec.volumeName and that annotation (any value); "
           "without it the claim is pre-bound, not yet bound, and treated like an unbound Immediate claim: "
           "PreFilter rejects the pod for every node (pod has unbound immediate PersistentVolumeClaims)"]
    fix = f'to write it as bound by hand, add the annotation {_BIND_COMPLETED}: "yes" to the claim'
    if not c.get("volumeExists"):
        fix += (f"; PersistentVolume {vol} does not exist either: create it too, or with the annotation alone the "
                f'pod is still rejected for the missing volume (VolumeZone: persistentvolume "{vol}" not found; '
                "VolumeBinding: node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s))")
        return out + [fix]
    if c.get("claimRefMatches"):
        fix += f" ({vol}'s claimRef already names it)"
    else:
        fix += (f"; {vol}'s claimRef {_claim_ref_gap(c)}: the scheduler does not read it, but a bound volume names "
                f"its claim: set spec.claimRef to {_claim_ref_wanted(c)} on {vol}")
    out.append(fix)
    if c.get("volumeError"):
        out.append(f"with the annotation, {vol} could not be seen through CSI migration on this node: "
                   f"{c['volumeError']}")
    elif "volumeAdmitsNode" in c:
        affinity = c.get("volumeNodeAffinity")
        if c["volumeAdmitsNode"]:
            out.append(f"with the annotation, Filter would check {vol} against this node and pass: " +
                       (f"its node affinity ({affinity}) admits it" if affinity else "it has no node affinity"))
        else:
            out.append(f"with the annotation, Filter would still reject this node: {vol}'s node affinity "
                       f"({affinity}) excludes it")
    return out


def _claim_ref_gap(c: Facts) -> str:
    """How a volume's claimRef fails to name the claim."""
    ref = c.get("volumeClaimRef")
    if not ref:
        return "is missing"
    ns, _, name = str(c.get("claim") or "").partition("/")
    if ref.get("namespace") == ns and ref.get("name") == name and ref.get("uid"):
        return f"has uid {ref['uid']}, not the claim's"
    return f"names {ref.get('namespace') or '(no namespace)'}/{ref.get('name') or '(no name)'}, not this claim"


def _claim_ref_wanted(c: Facts) -> str:
    ns, _, name = str(c.get("claim") or "").partition("/")
    return f"{{namespace: {ns}, name: {name}}}"


def _volume_zone(f: Facts) -> list[str]:
    out = []
    if not f.get("nodeHasTopologyLabels"):
        out.append("the node has no zone or region label: volumes do not constrain it")
    for v in f.get("volumes") or ():
        have = "no such label" if v.get("node") is None else v["node"]
        verdict = "matches" if v.get("match") else "does not match"
        out.append(f"PersistentVolume {v['volume']} is in {v['label']}={'/'.join(v.get('values') or ())}; "
                   f"the node: {have} ({verdict})")
    return out


def _volume_restrictions(f: Facts) -> list[str]:
    out = []
    for c in f.get("readWriteOncePod") or ():
        users = c.get("usedBy") or []
        out.append(f"claim {c['claim']} is ReadWriteOncePod: " +
                   (f"already used by {', '.join(users)}" if users else "not in use"))
    for d in f.get("diskConflicts") or ():
        out.append(f"volume {d['volume']} ({d['source']} {d['disk']}) is already used by {d['pod']} on this node")
    return out


def _node_volume_limits(f: Facts) -> list[str]:
    if not f.get("csiNode"):
        return ["no CSINode for this node: no attach limits known"]
    out = []
    for d in f.get("drivers") or ():
        limit = "no limit" if d.get("limit") is None else f"limit {d['limit']}"
        verdict = ": over the limit" if d.get("exceeded") else ""
        out.append(f"{d['driver']}: {d['attached']} volume(s) attached, the pod adds {d['new']}, {limit}{verdict}")
    return out


def _image_locality(f: Facts) -> list[str]:
    out = []
    for i in f.get("images") or ():
        if i.get("onNode"):
            size = "size unknown" if i.get("size") is None else quantity("storage", i["size"])
            out.append(f"image {i['image']} is on this node ({size}, on {i.get('nodesWithImage')} node(s))")
        else:
            out.append(f"image {i['image']} is not on this node")
    return out


_BY_PLUGIN: dict[str, Callable[[Facts], list[str]]] = {
    "NodeUnschedulable": _node_unschedulable,
    "NodeName": _node_name,
    "TaintToleration": _taint_toleration,
    "NodeAffinity": _node_affinity,
    "NodePorts": _node_ports,
    "NodeResourcesFit": _node_resources_fit,
    "NodeResourcesBalancedAllocation": _balanced_allocation,
    "PodTopologySpread": _pod_topology_spread,
    "InterPodAffinity": _inter_pod_affinity,
    "VolumeBinding": _volume_binding,
    "VolumeZone": _volume_zone,
    "VolumeRestrictions": _volume_restrictions,
    "NodeVolumeLimits": _node_volume_limits,
    "ImageLocality": _image_locality,
    "DynamicResources": _dynamic_resources,
}


# -- a PreFilter rejection's facts (the trace's `rejection`) ---------------------------------------

def rejection(facts: Facts | None) -> list[str]:
    """The facts behind a PreFilter plugin's rejection of the pod for every node, in plain words
    (one sentence per claim VolumeBinding stopped at); [] when there are none."""
    if not facts:
        return []
    if "error" in facts and len(facts) <= 2:
        return [f"(could not be explained: {facts['error']})"]
    return [_unbound_claim(c) for c in facts.get("claims") or ()]


def _unbound_claim(c: Facts) -> str:
    claim = f"claim {c.get('claim')} (volume {c.get('volume')}"
    claim += ", ephemeral)" if c.get("ephemeral") else ")"
    what = f"{quantity('storage', c.get('request'))} {', '.join(c.get('accessModes') or ())}".strip()
    cause = c.get("cause")
    if cause == "missing":
        return f"{claim}: not in the input: neither the POD file nor --nodes has this PersistentVolumeClaim"
    if cause == "classMissing":
        return (f"{claim}: unbound: its StorageClass {c.get('storageClass')} is not in the input (no such "
                "StorageClass), so nothing provisions or binds it")
    if cause == "noDefaultClass":
        defaults = c.get("defaultClasses") or []
        if defaults:
            return (f"{claim}: unbound: it names no StorageClass (storageClassName unset); the default class "
                    f"{defaults[0]} was not there when it was created, and no PersistentVolume without class "
                    "binds it")
        return (f"{claim}: unbound: it names no StorageClass and the input has no default StorageClass (the "
                "API server gives a new claim the default class), and no PersistentVolume binds it")
    if cause == "noClass":
        return (f"{claim}: unbound: it asks for no class (storageClassName: \"\"), and no free PersistentVolume "
                f"without class matches it ({what})")
    if cause == "noMatchingVolume":
        text = (f"{claim}: unbound: its class {c.get('storageClass')} binds at once ({c.get('bindingMode')}) and no "
                f"free PersistentVolume of the class matches it ({what})")
        if c.get("provisioner"):
            text += (f"; in a cluster {c['provisioner']} would provision one (kexplain does not: the volume's size "
                     "and zone are the provisioner's)")
        return text
    if cause == "volumeNotBound":
        vol = c.get("volumeName")
        if not c.get("volumeExists"):
            return f"{claim}: names PersistentVolume {vol} (spec.volumeName), which is not in the input"
        taken = f", whose claimRef names {c['volumeClaimRef']}" if c.get("volumeClaimRef") else ""
        return (f"{claim}: names PersistentVolume {vol} (spec.volumeName){taken}, but the binding is not complete "
                "(no pv.kubernetes.io/bind-completed annotation)")
    return f"{claim}: {cause}"
