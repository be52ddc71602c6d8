"""Plain words for DynamicResources verdicts that puzzle people (a pod held in PreEnqueue with no
event; a release's quirks the trace reproduces), detected from the scheduler's own trace keys,
never from case names; the plugin's own `notes` last."""
from __future__ import annotations

import re
from typing import Any, Mapping

from kexplain.render.devices import dra_facts, error_device, where

PLUGIN = "DynamicResources"
REJECTED = ("Unschedulable", "UnschedulableAndUnresolvable", "Pending")

_GATES = [   # PreEnqueue message -> why and what to do
    (re.compile(r'could not find ResourceClaim "([^"]+)"'),
     lambda m: f"the ResourceClaim {m[1]} it names does not exist: create it (or fix spec.resourceClaims)"),
    (re.compile(r'resourceclaim "([^"]+)" is being deleted'),
     lambda m: f"its ResourceClaim {m[1]} is being deleted: the pod waits until a claim of that name exists again"),
    (re.compile(r"ResourceClaim not created yet"),
     lambda m: "the resourceclaim controller (kube-controller-manager) has not created the claim from the pod's "
               "ResourceClaimTemplate yet: check that the template exists and the controller runs"),
    (re.compile(r"ResourceClaim (\S+) was not created for [pP]od (\S+) \([pP]od is not owner\)"),
     lambda m: f"the claim {m[1]} its status names is owned by another pod, not by {m[2]}"),
    (re.compile(r"ResourceClaim (\S+) is not in the same namespace as Pod (\S+)"),
     lambda m: f"the claim {m[1]} its status names is in another namespace than the pod {m[2]}"),
]
DEFAULT_RELEASE = "v1.35.4"   # a trace that names no version was written before versions: v1.35.4 it followed

_SCORE = re.compile(r"number of allocations (\d+) is smaller than number of claims")
_MISSING_CLASS = re.compile(r"device class (\S+) does not exist")
_CEL = re.compile(r'running "DynamicResources" filter plugin: (.*?): selector #(\d+): CEL runtime error: (.*)$')
_ALL_INCOMPLETE = re.compile(r"request (\S+): asks for all devices, but resource pool (\S+) is currently being updated")


def _plugin_status(entries: Any) -> Mapping[str, Any] | None:
    return next((p for p in entries or () if p.get("plugin") == PLUGIN), None)


def gate_note(trace: Mapping[str, Any]) -> str | None:
    """Why the pod is gated by DynamicResources in PreEnqueue, in plain words."""
    st = _plugin_status(trace.get("preEnqueue"))
    if st is None or st.get("code") not in REJECTED:
        return None
    reason = "; ".join(st.get("reasons") or ())
    why = next((f(m) for pattern, f in _GATES if (m := pattern.search(reason))), reason)
    return ("The real scheduler holds this pod back in PreEnqueue (DynamicResources): " + why + ". It never "
            "tries to schedule it and emits no FailedScheduling event, which is why such a pod looks stuck "
            "with no reason given (kubectl describe shows no event).")


def release(trace: Mapping[str, Any]) -> str:
    """The kube-scheduler release the trace follows, e.g. v1.35.4."""
    version = trace.get("kubernetesVersion")
    return str(version.get("scheduler") or DEFAULT_RELEASE) if isinstance(version, Mapping) else DEFAULT_RELEASE


def quirk_notes(trace: Mapping[str, Any]) -> list[str]:
    """Notes for verdicts that come from one of the followed release's quirks."""
    out = []
    rel = release(trace)
    result = trace.get("result") or {}
    error = str(result.get("error") or "")
    m = _SCORE.search(error)
    if m:
        feasible = sum(1 for st in (trace.get("filter") or {}).values() if st.get("code") == "Success")
        out.append(f"This Error is a quirk of {rel}, reproduced: DynamicResources' Score compares the allocations "
                   f"it made in this cycle ({m[1]}) with all of the pod's claims, counting the claim that was "
                   f"already allocated as missing. It fails when a pod has allocated and unallocated claims and "
                   f"{feasible} nodes (two or more) pass Filter, so that Score runs; with one feasible node Score "
                   "is skipped and the pod would be scheduled. Making the pod fit a single node, or allocating "
                   "all its claims in one go (new claims), avoids it.")
    pre = _plugin_status(trace.get("preFilter"))
    post = trace.get("postFilter") or {}
    post_dra = _plugin_status(post.get("plugins")) if isinstance(post, Mapping) else None
    missing = _MISSING_CLASS.search("; ".join((pre or {}).get("reasons") or ())) if pre else None
    if missing and post_dra and "no new claims to deallocate" in (post_dra.get("reasons") or ()):
        out.append(f'"no new claims to deallocate" in the message is a quirk of {rel}: PreFilter stopped at the '
                   f"missing DeviceClass {missing[1]} before it recorded the pod's claims, so PostFilter finds none. "
                   f"It says nothing about the claims: the DeviceClass {missing[1]} is what is missing (create it, "
                   "or name an existing class in the claim's request).")
    m = _CEL.search(error)
    if m:
        out.append(_cel_note(trace, m, rel))
    m = _ALL_INCOMPLETE.search(error)
    if m:
        out.append(f"This Error is {rel}'s handling of allocationMode All: request {m[1]} asks for all devices, "
                   f"and pool {m[2]} is incomplete (the driver has not published all of its ResourceSlices, or "
                   f"their generations differ{_NODE_LOCAL.get(rel[:5], '')}). Instead of skipping the node, the "
                   "scheduler ends the whole cycle with an Error; the pod is retried once the pool is complete.")
    return out


# Releases whose allocator counts only the slices that target the node (before 1.35).
_NODE_LOCAL = {minor: "; this release counts only the slices that target the node, so a pool split into "
                      "slices for different nodes or zones looks incomplete from every node"
               for minor in ("v1.33", "v1.34")}


def _cel_note(trace: Mapping[str, Any], m: re.Match[str], rel: str) -> str:
    owner, index, problem = m[1], m[2], m[3]
    node = next((n for n, st in (trace.get("filter") or {}).items() if st.get("code") == "Error"), None)
    facts = dra_facts(trace).get(node or "")
    dev = error_device(facts) if facts else None
    kind, _, name = owner.partition(" ")
    selector = where({"owner": owner, "index": int(index)}) if kind in ("class", "claim") else \
        f"{owner} selector #{index}"
    at = f" on node {node}" if node else ""
    device = f"device {dev['device']}" if dev else "one device"
    text = (f"This Error is a quirk of {rel}, reproduced: the selector {selector} failed at runtime ({problem}) "
            f"for {device}{at}, and one device's CEL error ends the whole scheduling cycle with an Error instead "
            "of rejecting that device: no node is tried after it, even where other devices fit. Guard the "
            "selector (for an attribute: `'name' in device.attributes['driver'] && ...`) or publish the "
            "attribute on every device.")
    return text


def plugin_notes(trace: Mapping[str, Any]) -> list[str]:
    """What DynamicResources recorded it does not reproduce for this trace (trace key `notes`)."""
    return [str(n.get("note")) for n in trace.get("notes") or () if isinstance(n, Mapping) and n.get("plugin") == PLUGIN]


def dra_notes(trace: Mapping[str, Any]) -> list[str]:
    """Every note that applies: the PreEnqueue gate first, then the quirks, then what kexplain
    does not reproduce."""
    gate = gate_note(trace)
    return ([gate] if gate else []) + quirk_notes(trace) + plugin_notes(trace)
