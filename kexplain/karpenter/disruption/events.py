"""The events the disruption pass publishes (controllers/disruption/events, utils/pod/events.go) and
Karpenter's recorder (pkg/events/recorder.go): an event whose reason and dedupe values were
published within its dedupe timeout is dropped. One pass is shorter than every timeout, so a
dedupe key is published once per pass; what each method published before the dedupe is counted."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

NORMAL, WARNING = "Normal", "Warning"
DISRUPTION_BLOCKED = "DisruptionBlocked"
UNCONSOLIDATABLE = "Unconsolidatable"
CONSOLIDATION_CANDIDATE = "ConsolidationCandidate"
CONSOLIDATION_APPROVED = "ConsolidationApproved"          # v1.14, the Balanced policy


@dataclass(frozen=True)
class Event:
    object: str                     # `KIND NAME` or `KIND NAMESPACE/NAME`
    type: str
    reason: str
    message: str
    dedupe: tuple[str, ...] = ()

    def key(self) -> str:
        return f"{self.reason.lower()}-{'-'.join(self.dedupe)}"

    def as_dict(self) -> dict[str, str]:
        return {"object": self.object, "type": self.type, "reason": self.reason, "message": self.message}


@dataclass
class Recorder:
    """The pass's recorder: `published` counts per reason for the method running (`begin`), `emitted`
    the events kept after the dedupe, per method."""

    seen: set[str] = field(default_factory=set)
    published: Counter = field(default_factory=Counter)
    emitted: list[Event] = field(default_factory=list)

    def begin(self) -> None:
        self.published = Counter()
        self.emitted = []

    def publish(self, *events: Event) -> None:
        for e in events:
            self.published[e.reason] += 1
            if e.dedupe:
                key = e.key()
                if key in self.seen:
                    continue
                self.seen.add(key)
            self.emitted.append(e)


@dataclass
class Capture(Recorder):
    """Keeps what is published, in order and before any dedupe, to be replayed into the pass's
    recorder (`Context.candidate`)."""

    events: list[Event] = field(default_factory=list)

    def publish(self, *events: Event) -> None:
        self.events.extend(events)


class NopRecorder(Recorder):
    """Publishes nothing (the provisioning pass before the methods, the fixes' passes)."""

    def publish(self, *events: Event) -> None:
        return None


def uid_of(kind: str, obj: Any) -> str:
    meta = (obj or {}).get("metadata") or {}
    return str(meta.get("uid") or f"{kind}/{meta.get('name') or ''}")


def _name(obj: Any) -> str:
    return str(((obj or {}).get("metadata") or {}).get("name") or "")


def _pair(node: Any, node_claim: Any, reason: str, message: str, extra: tuple[str, ...] = (),
          node_required: bool = True) -> list[Event]:
    out = []
    if node is not None or node_required:
        out.append(Event(f"Node {_name(node)}", NORMAL, reason, message, (uid_of("Node", node), *extra)))
    if node_claim is not None or node_required:
        out.append(Event(f"NodeClaim {_name(node_claim)}", NORMAL, reason, message,
                         (uid_of("NodeClaim", node_claim), *extra)))
    return out


def blocked(node: Any, node_claim: Any, message: str) -> list[Event]:
    """Blocked: for the Node and the NodeClaim, each when there is one."""
    return _pair(node, node_claim, DISRUPTION_BLOCKED, message, node_required=False)


def unconsolidatable(node: Any, node_claim: Any, message: str) -> list[Event]:
    return _pair(node, node_claim, UNCONSOLIDATABLE, message)


def consolidation_candidate(node: Any, node_claim: Any, command: str, savings: float) -> list[Event]:
    return _pair(node, node_claim, CONSOLIDATION_CANDIDATE,
                 f"Consolidation candidate: {command} (savings: ${savings:.2f})", (command,))


def consolidation_approved(node: Any, node_claim: Any, message: str) -> list[Event]:
    """ConsolidationApproved (v1.14): a Balanced pool's one-node move whose score passed."""
    return _pair(node, node_claim, CONSOLIDATION_APPROVED, message)


def consolidation_approved_multi_node(node_pool: Any, message: str) -> Event:
    """ConsolidationApprovedMultiNode (v1.14): on the NodePool of a multi-node move."""
    return Event(f"NodePool {node_pool.name}", NORMAL, CONSOLIDATION_APPROVED, message,
                 (node_pool.uid or f"NodePool/{node_pool.name}",))


def node_pool_blocked_for_reason(node_pool: Any, reason: str) -> Event:
    return Event(f"NodePool {node_pool.name}", NORMAL, DISRUPTION_BLOCKED,
                 f"No allowed disruptions for disruption reason {reason} due to blocking budget",
                 (node_pool.uid or f"NodePool/{node_pool.name}", reason))


def invalid_do_not_disrupt(pod: Any, message: str) -> Event:
    return Event(f"Pod {pod.key}", WARNING, "InvalidDoNotDisruptAnnotation",
                 f"Invalid karpenter.sh/do-not-disrupt annotation: {message}, ignoring annotation",
                 (pod.uid, message))


def do_not_disrupt_until(pod: Any, at: str) -> Event:
    return Event(f"Pod {pod.key}", NORMAL, "DoNotDisruptUntil",
                 f"The karpenter.sh/do-not-disrupt grace period will elapse at {at}", (pod.uid, at))


def do_not_disrupt_elapsed(pod: Any) -> Event:
    return Event(f"Pod {pod.key}", NORMAL, "DoNotDisruptGracePeriodElapsed",
                 "The karpenter.sh/do-not-disrupt grace period has elapsed, pod is now disruptable", (pod.uid,))
