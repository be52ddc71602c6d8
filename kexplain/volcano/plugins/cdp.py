"""The cdp plugin (plugins/cdp, cooldown protection): preempt and reclaim leave alone a Running pod whose
`volcano.sh/cooldown-time` (label, else annotation; a Go duration) has not passed since its PodScheduled
condition turned True, so an elastic job's pods are not evicted again just after they started. It reads
the session's clock (`Session.clock`: `--now`, else the wall clock)."""
from __future__ import annotations

from typing import Any

from kexplain.config._decode import parse_duration     # Go's time.ParseDuration
from kexplain.framework.preemption import parse_timestamp
from kexplain.volcano.api.task import TaskInfo
from kexplain.volcano.plugins.sla import ZERO_TIME

NAME = "cdp"
COOLDOWN = "volcano.sh/cooldown-time"


def cooldown(pod: dict[str, Any]) -> int | None:
    """podCooldownTime: the label's duration, else the annotation's, in nanoseconds; None when neither is
    set or the one found does not parse."""
    meta = pod.get("metadata") or {}
    for where in (meta.get("labels") or {}, meta.get("annotations") or {}):
        if COOLDOWN in where:
            return parse_duration(str(where[COOLDOWN]))
    return None


def cooling(pod: dict[str, Any], now: int) -> bool:
    """A Running pod whose first True PodScheduled condition changed less than its cooldown ago."""
    wait = cooldown(pod)
    status = pod.get("status") or {}
    if wait is None or status.get("phase") != "Running":
        return False
    for c in status.get("conditions") or ():
        if isinstance(c, dict) and c.get("type") == "PodScheduled" and c.get("status") == "True":
            at = parse_timestamp(str(c.get("lastTransitionTime") or ""))
            return (ZERO_TIME if at is None else at) + wait > now
    return False


class Cdp:
    name = NAME

    def __init__(self, arguments: dict[str, Any]) -> None:
        self.arguments = arguments
        self.spared: dict[str, dict[str, str]] = {}      # preemptor's job -> task key -> why (kexplain's record)

    def on_session_open(self, ssn: Any) -> None:
        now = ssn.clock()

        def victims(evicting: TaskInfo, candidates: list[TaskInfo]) -> list[TaskInfo]:
            """filterVictimFn."""
            out = []
            for t in candidates:
                if cooling(t.pod, now):
                    self.spared.setdefault(evicting.job, {})[t.key] = \
                        f"it started less than its {COOLDOWN} ago"
                else:
                    out.append(t)
            return out

        ssn.add("preemptable", NAME, victims)
        ssn.add("reclaimable", NAME, victims)

    def on_session_close(self, ssn: Any) -> None:
        pass


def New(arguments: dict[str, Any]) -> Cdp:
    return Cdp(arguments)
