"""The conformance plugin (plugins/conformance): critical and kube-system pods are never evicted (it
takes part in preempt and reclaim only)."""
from __future__ import annotations

from typing import Any

NAME = "conformance"
CRITICAL = ("system-cluster-critical", "system-node-critical")


class Conformance:
    name = NAME

    def __init__(self, arguments: dict[str, Any]) -> None:
        self.arguments = arguments

    def on_session_open(self, ssn: Any) -> None:
        def evictable(_: Any, candidates: list[Any]) -> list[Any]:
            out = []
            for t in candidates:
                spec = t.pod.get("spec") or {}
                if spec.get("priorityClassName") in CRITICAL or t.namespace == "kube-system":
                    continue
                out.append(t)
            return out

        ssn.add("preemptable", NAME, evictable)
        ssn.add("reclaimable", NAME, evictable)
        ssn.add("unifiedEvictable", NAME, lambda ctx, candidates: (evictable(None, candidates), 1))

    def on_session_close(self, ssn: Any) -> None:
        pass


def New(arguments: dict[str, Any]) -> Conformance:
    return Conformance(arguments)
