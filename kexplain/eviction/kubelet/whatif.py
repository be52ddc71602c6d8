"""Verified changes for the pod the kubelet evicts: a request that covers its usage (it then ranks
behind every pod over its request), a priority above the next pod's. Each change is made to a copy
of the pod and checked by running the manager's passes again (`decide`): only a change after which
the kubelet evicts another pod, or none, is said, with the pod it evicts instead."""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, Sequence

from kexplain.eviction.kubelet import manager as mgr
from kexplain.eviction.kubelet import rank
from kexplain.eviction.kubelet import thresholds as th
from kexplain.eviction.kubelet.message import offenders
from kexplain.model.resources import resource_list

MI = 1 << 20
Decide = Callable[[Sequence[Mapping[str, Any]]], mgr.Pass]
REQUESTED = {th.RESOURCE_MEMORY: "memory", th.RESOURCE_EPHEMERAL_STORAGE: "ephemeral-storage"}


@dataclass(frozen=True)
class Change:
    """A change to the evicted pod and what the kubelet does after it (checked)."""

    pod: str
    change: str
    field: str
    value: Any
    evicts_instead: str          # "" when the kubelet evicts no pod after the change
    rank_after: int              # the pod's place in the new ranking (1-based)
    behind: str                  # the pod ranked just before it after the change
    ranked: int                  # how many pods were ranked

    def says(self) -> str:
        instead = f"the kubelet evicts {self.evicts_instead} instead" if self.evicts_instead else \
            "the kubelet evicts no pod"
        place = f"place {self.rank_after} of {self.ranked}"
        return f"{self.change} puts {self.pod} behind {self.behind} ({place}): {instead}"

    def describe(self) -> dict:
        return {"pod": self.pod, "change": self.change, "field": self.field, "value": self.value,
                "evictsInstead": self.evicts_instead, "rankAfter": self.rank_after, "behind": self.behind,
                "says": self.says(),
                "verified": True}


def _index(pods: Sequence[Mapping], name: str) -> Optional[int]:
    for i, p in enumerate(pods):
        if rank.Candidate(p, None).name == name:
            return i
    return None


def _check(pods: Sequence[Mapping], i: int, changed: dict, decide: Decide, name: str, change: str, field: str,
           value: Any) -> Optional[Change]:
    """The passes again with the pod changed; the change when the pod is no longer evicted."""
    trial = list(pods)
    trial[i] = changed
    after = decide(trial)
    evicted = [e.pod for e in after.evicted]
    if name in evicted:
        return None
    place = next((k for k, r in enumerate(after.ranking, 1) if r.candidate.name == name), 0)
    if place < 2:
        return None
    return Change(name, change, field, value, evicted[0] if evicted else "", place,
                  after.ranking[place - 2].candidate.name, len(after.ranking))


def request_change(pods: Sequence[Mapping], i: int, passed: mgr.Pass, decide: Decide) -> Optional[Change]:
    """A request covering the usage, added to the container most over its request."""
    resource = passed.reclaim_resource
    ranked = next((r for r in passed.ranking if r.candidate.name == rank.Candidate(pods[i], None).name), None)
    if resource not in REQUESTED or ranked is None or ranked.candidate.stats is None:
        return None
    keys = dict(ranked.keys)
    if not keys.get("exceedsRequest"):
        return None
    pod = pods[i]
    over = keys["usageOverRequest"]
    containers = (pod.get("spec") or {}).get("containers") or ()
    blamed = [o.name for o in offenders(resource, pod, ranked.candidate.stats)]
    k = next((n for n, c in enumerate(containers) if c.get("name") in blamed), 0 if containers else None)
    if k is None:
        return None
    resources = containers[k].get("resources") or {}
    current = resource_list(resources.get("requests")).get(resource, 0)
    wanted = math.ceil((current + over + 1) / MI)
    limit = resource_list(resources.get("limits")).get(resource)
    raise_limit = limit is not None and wanted * MI > limit
    changed = copy.deepcopy(dict(pod))
    edited = changed["spec"]["containers"][k].setdefault("resources", {})
    edited.setdefault("requests", {})[resource] = f"{wanted}Mi"
    if raise_limit:
        edited["limits"][resource] = f"{wanted}Mi"     # a request above its limit is refused
    name = containers[k].get("name")
    what = "request and limit" if raise_limit else "request"
    return _check(pods, i, changed, decide, ranked.candidate.name,
                  f"{_article(REQUESTED[resource])} {REQUESTED[resource]} {what} of {wanted}Mi on container {name}",
                  f"spec.containers[{k}].resources.requests.{resource}", f"{wanted}Mi")


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def priority_change(pods: Sequence[Mapping], i: int, passed: mgr.Pass, decide: Decide) -> Optional[Change]:
    """A priority one above the next evictable pod's, which puts the pod behind it."""
    name = rank.Candidate(pods[i], None).name
    order = [r for r in passed.ranking if not rank.is_critical(r.candidate.pod)]
    at = next((k for k, r in enumerate(order) if r.candidate.name == name), None)
    if at is None or at + 1 >= len(order):
        return None
    wanted = rank.priority_of(order[at + 1].candidate.pod) + 1
    if wanted <= rank.priority_of(pods[i]) or wanted >= rank.SYSTEM_CRITICAL_PRIORITY:
        return None
    changed = copy.deepcopy(dict(pods[i]))
    changed["spec"]["priority"] = wanted
    return _check(pods, i, changed, decide, name, f"a priority of {wanted} (a PriorityClass of that value)",
                  "spec.priority", wanted)


def changes(passed: mgr.Pass, pods: Sequence[Mapping], decide: Decide) -> list[Change]:
    """The verified changes for the pod the pass evicted under node pressure."""
    pressured = [e for e in passed.evicted if e.condition]
    if not pressured or not passed.ranking:
        return []
    i = _index(pods, pressured[0].pod)
    if i is None:
        return []
    found = [request_change(pods, i, passed, decide), priority_change(pods, i, passed, decide)]
    return [c for c in found if c is not None]
