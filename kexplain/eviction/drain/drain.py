"""kubectl drain's GetPodsForDeletion and its eviction loop (drain.go): the node's pods in the API
server's list order, each through the filters; the warnings and errors kubectl aggregates; then,
only when there is no error, one Eviction per pod to delete, each answered against the budgets the
previous ones left (one attempt each, in list order: kubectl sends them concurrently and retries a
429 every 5 s)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional

from kexplain.apimachinery.fielderrors import go_quote
from kexplain.eviction.api import Answer, Budget, Matches, evict
from kexplain.eviction.drain.filters import ERROR, WARNING, Helper, PodDeleteStatus, filter_pod
from kexplain.eviction.versions import DrainRules
from kexplain.model.pod import PodInfo

EVICTING = "evicting pod {namespace}/{name}"
RETRY = "error when evicting pods/{name} -n {namespace} (will retry after {delay}): {error}"
FAILED = "error when evicting pods/{name} -n {namespace}: {error}"
EVICT_ERROR_RETRY_DELAY = "5s"
UNEXPECTED = "unexpected error"


def list_key(pod: PodInfo) -> str:
    """The API server's list order: its storage keys, namespace/name, byte by byte."""
    return f"{pod.namespace}/{pod.name}"


@dataclass(frozen=True)
class PodDelete:
    """One pod and the filters' answer for it."""

    pod: PodInfo
    status: PodDeleteStatus

    @property
    def key(self) -> str:
        return list_key(self.pod)


@dataclass(frozen=True)
class PodDeleteList:
    """GetPodsForDeletion's answer: every pod looked at, in list order."""

    items: tuple[PodDelete, ...]

    def pods(self) -> list[PodInfo]:
        """The pods to delete."""
        return [i.pod for i in self.items if i.status.delete]

    def _grouped(self, reason: str, fallback: str = "") -> dict[str, list[str]]:
        groups: dict[str, list[str]] = {}
        for item in self.items:
            if item.status.reason == reason:
                groups.setdefault(item.status.message or fallback, []).append(item.key)
        return groups

    def warnings(self) -> list[str]:
        """Warnings(): "MESSAGE: ns/a, ns/b" per message (kubectl joins them with "; " in map order: sorted here)."""
        return sorted(f"{msg}: {', '.join(pods)}" for msg, pods in self._grouped(WARNING).items())

    def errors(self) -> list[str]:
        """errors(): "cannot delete MESSAGE: ns/a, ns/b" per message (an aggregate in map order: sorted here)."""
        return sorted(f"cannot delete {msg}: {', '.join(pods)}" for msg, pods in self._grouped(ERROR, UNEXPECTED).items())


def pods_for_deletion(pods: Iterable[PodInfo], helper: Helper) -> PodDeleteList:
    """GetPodsForDeletion: the node's pods as the API lists them, each through the filters."""
    return PodDeleteList(tuple(PodDelete(p, filter_pod(p, helper)) for p in sorted(pods, key=list_key)))


@dataclass(frozen=True)
class Eviction:
    """One eviction of the loop: the pod, the API's answer, the line kubectl prints, and the pod's
    budget before it (None: it has none, or more than one)."""

    pod: PodInfo
    answer: Answer
    kubectl: str
    before: Budget | None


def kubectl_line(pod: PodInfo, answer: Answer) -> str:
    """What kubectl prints for the answer: "evicting pod ..." or the error it retries or returns."""
    if answer.evicted:
        return EVICTING.format(namespace=pod.namespace, name=pod.name)
    template = RETRY if answer.code == 429 else FAILED
    return template.format(name=go_quote(pod.name), namespace=go_quote(pod.namespace),
                           delay=EVICT_ERROR_RETRY_DELAY, error=answer.message)


def evict_pods(pods: Iterable[PodInfo], budgets: Iterable[Budget], rules: DrainRules,
               matches: Optional[Matches] = None) -> tuple[list[Eviction], dict[str, Budget]]:
    """The eviction loop: every pod once, in order, each answer spending from the budgets the
    previous ones left; the evictions and the budgets after them (by namespace/name); `matches`: the
    selectors' answers kept across the drains of the same pods."""
    current = {b.key: b for b in budgets}
    in_namespace: dict[str, list[str]] = {}     # (spending keeps a budget's key, namespace and selector)
    for key, budget in current.items():
        in_namespace.setdefault(budget.namespace, []).append(key)
    out: list[Eviction] = []
    for pod in pods:
        keys = in_namespace.get(pod.namespace, ())
        matching = [current[k] for k in keys if current[k].selects(pod, matches)]    # (once per pod)
        answer = evict(pod, [current[k] for k in keys], rules, matching)
        before = matching[0] if len(matching) == 1 else None
        if answer.budget is not None:
            current[answer.budget.key] = answer.budget
        out.append(Eviction(pod, answer, kubectl_line(pod, answer), before))
    return out, current
