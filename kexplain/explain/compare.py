"""kexplain's verdict next to a live pod's PodScheduled condition: whether they agree, and if not, likely why."""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Optional

from kexplain.explain.request import RunOptions
from kexplain.explain.run import framework_for
from kexplain.framework.cycle_state import CycleState
from kexplain.framework.fit_error import truncate_message
from kexplain.features import DEFAULT_MINOR, RELEASES
from kexplain.load.live import pod_scheduled_condition

Obj = dict[str, Any]

_MINOR = re.compile(r"^v?(\d+)\.(\d+)")
STALE_HINT = ("the scheduler retries a pod when the cluster changes in a way that may help it, "
              "and at least every 5 minutes")
_NODE_COUNT = re.compile(r"^0/(\d+) nodes are available")


@dataclass(frozen=True)
class Comparison:
    """The pod's PodScheduled condition, whether kexplain agrees, and why they may differ."""

    pod_scheduled: Optional[Obj] = None
    agrees: Optional[bool] = None
    notes: tuple[str, ...] = ()
    hints: tuple[str, ...] = ()

    def to_json(self) -> Obj:
        return {"podScheduled": self.pod_scheduled, "agrees": self.agrees, "notes": list(self.notes),
                "hints": list(self.hints)}


def pod_key(pod: Obj) -> str:
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace')}/{meta.get('name')}"


def compare(trace: Obj, pod: Obj, *, config_given: bool, server_version: Optional[str],
            hints: tuple[str, ...] = ()) -> Comparison:
    """kexplain's verdict (`trace`) next to the pod's PodScheduled condition."""
    cond = pod_scheduled_condition(pod)
    result = trace["result"]
    status = result["status"]
    node = (pod.get("spec") or {}).get("nodeName")
    shown = _condition(cond)
    if cond is None:
        if node:
            return Comparison(shown, status == "Scheduled", (f"the pod is bound to {node}",), hints)
        name = (pod.get("spec") or {}).get("schedulerName") or "default-scheduler"
        return Comparison(shown, None, ("the scheduler has not reported on this pod yet (no PodScheduled "
                                        "condition): it may not have reached it, or no scheduler named "
                                        f'"{name}" runs',), hints)
    reason, message = cond.get("reason") or "", cond.get("message") or ""
    if cond.get("status") == "True" or node:
        where = f" to {node}" if node else ""
        notes: tuple[str, ...] = ()
        if status == "Scheduled" and node and result.get("suggestedHost") not in (None, node):
            notes = (f"the scheduler bound it{where}; now kexplain would pick "
                     f"{result.get('suggestedHost')}: scores change as pods come and go",)
        elif status != "Scheduled":
            notes = (f"the scheduler bound it{where} when it ran; the cluster has changed since",)
        return Comparison(shown, status == "Scheduled", notes, hints)
    agrees: Optional[bool] = None
    if reason == "SchedulingGated":
        agrees = status == "Gated"
    elif reason == "Unschedulable":
        agrees = status == "Unschedulable" and (result.get("message") or "") == truncate_message(message)
    elif reason == "SchedulerError":
        agrees = status == "Error"
    notes = tuple(_why_different(trace, pod, message, config_given, server_version)) if agrees is False else ()
    return Comparison(shown, agrees, notes, hints)


def nominated_notes(inputs: Any, trace: Obj) -> list[str]:
    """Nodes that reject the pod only because of pods nominated there (counted as if running)."""
    pod = inputs.pod
    suspects: dict[str, list[Any]] = {}
    if not any(inputs.nominated.values()):     # (no pod nominated anywhere: nothing to ask of each node)
        return []
    for node, status in (trace.get("filter") or {}).items():
        if (status or {}).get("code") == "Success":
            continue
        others = [p for p in inputs.nominated.get(node, []) if p.priority >= pod.priority and p.uid != pod.uid]
        if others:
            suspects[node] = others
    if not suspects:
        return []
    fw = framework_for(replace(inputs, nominated={}), RunOptions(preemption=False))
    state = CycleState()
    if not fw.run_pre_filter(state, pod).status.is_success:
        return []
    notes = []
    for node, others in suspects.items():
        info = fw.snapshot.get(node)
        if info is not None and fw.run_filter_plugins(state, pod, info).is_success:
            names = ", ".join(f"{p.namespace}/{p.name}" for p in others)
            notes.append(f"{node} would take this pod but for {names}, nominated there by preemption with a "
                         "priority at least this pod's: the scheduler counts it as running")
    return notes


def version_note(trace: Obj, server_version: Optional[str]) -> Optional[str]:
    """Why the scheduler's verdict may differ by version; None for the same minor."""
    followed = trace.get("kubernetesVersion") or {}
    minor = followed.get("minor") or DEFAULT_MINOR
    release = followed.get("scheduler") or RELEASES.get(minor, "")
    if not server_version:
        return (f"another scheduler version: the cluster's version is unknown; kexplain followed Kubernetes {minor} "
                f"(kube-scheduler {release}): choose the cluster's with --kubernetes-version")
    running = _MINOR.match(server_version.strip())
    if running and f"{int(running.group(1))}.{int(running.group(2))}" == minor:
        return None
    return (f"another scheduler version: the cluster runs Kubernetes {server_version}, kexplain followed "
            f"Kubernetes {minor} (kube-scheduler {release}), whose plugins and messages may differ: "
            f"--kubernetes-version chooses the version")


def _condition(cond: Optional[Obj]) -> Optional[Obj]:
    if cond is None:
        return None
    return {k: cond[k] for k in ("status", "reason", "message", "lastTransitionTime") if k in cond}


def _why_different(trace: Obj, pod: Obj, message: str, config_given: bool,
                   server_version: Optional[str]) -> list[str]:
    notes: list[str] = []
    cond_time = next((c.get("lastTransitionTime") for c in (pod.get("status") or {}).get("conditions") or []
                      if isinstance(c, dict) and c.get("type") == "PodScheduled"), None)
    since = f" (PodScheduled=False since {cond_time})" if cond_time else ""
    seen = _NODE_COUNT.match(message)
    now = (trace.get("search") or {}).get("numAllNodes")
    if seen and now is not None and int(seen.group(1)) != now:
        notes.append(f"stale: the scheduler saw {seen.group(1)} nodes, the cluster has {now} now; "
                     f"{STALE_HINT}")
    else:
        notes.append(f"stale: the cluster may have changed since the scheduler's last attempt{since}; "
                     f"{STALE_HINT}")
    nominated = (pod.get("status") or {}).get("nominatedNodeName")
    if nominated:
        notes.append(f"the scheduler nominated node {nominated} for this pod after preempting others; "
                     "their termination may still be under way")
    note = version_note(trace, server_version)
    if note:
        notes.append(note)
    if not config_given:
        notes.append("a profile kexplain was not given: the cluster's scheduler may run with its own "
                     "KubeSchedulerConfiguration (plugins, plugin arguments, percentageOfNodesToScore); "
                     "pass it with --config")
    return notes
