"""The order the scheduler tries pods in (provisioning/scheduling/queue.go)."""
from __future__ import annotations

from collections import deque
from datetime import datetime, timezone
from typing import Any, Callable, Iterable

from kexplain.karpenter.utils.resources import CPU, MEMORY, ResourceList, nanos_of

_EPOCH = datetime(1, 1, 1, tzinfo=timezone.utc)


class Queue:
    """Pods in try order; `pop` returns None once no progress is being made."""

    def __init__(self, pods: Iterable[Any], requests: Callable[[Any], ResourceList],
                 created: Callable[[Any], datetime | None]) -> None:
        def key(pod: Any) -> tuple[int, int, datetime, str]:
            # (in billionths: a quantity is exact at nano precision, so they order as the values do)
            reqs = nanos_of(requests(pod))
            return -reqs.get(CPU, 0), -reqs.get(MEMORY, 0), created(pod) or _EPOCH, pod.uid
        self.pods: deque[Any] = deque(sorted(pods, key=key))
        self.last_len: dict[str, int] = {}

    def pop(self) -> Any | None:
        if not self.pods:
            return None
        pod = self.pods[0]
        if self.last_len.get(pod.uid) == len(self.pods):
            return None
        return self.pods.popleft()

    def push(self, pod: Any) -> None:
        self.pods.append(pod)
        self.last_len[pod.uid] = len(self.pods)

    def __len__(self) -> int:
        return len(self.pods)
