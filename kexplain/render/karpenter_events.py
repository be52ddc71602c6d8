"""Karpenter's own events read from the cluster, after `kexplain karpenter --disruption`'s answer
(the document's `live` key): what Karpenter said of its Nodes, NodeClaims, NodePools and pods,
beside what the pass would say now. Read only from the document."""
from __future__ import annotations

from typing import Any, Mapping

from rich.console import Console
from rich.text import Text


def event_line(event: Mapping[str, Any]) -> str:
    """`type reason on Kind/name: message` with how often and when last, as the pass's events."""
    seen = [f"×{event['count']}"] if event.get("count") else []
    seen += [f"last {event['lastSeen']}"] if event.get("lastSeen") else []
    tail = f" ({', '.join(seen)})" if seen else ""
    return f"  {event.get('type', '')} {event.get('reason', '')} on {event.get('object', '')}: " \
           f"{event.get('message', '')}{tail}"


def print_live_events(doc: Mapping[str, Any], console: Console) -> None:
    """The `live` section: where it was read, then Karpenter's events (or why none are shown)."""
    live = doc.get("live")
    if not live:
        return
    console.print()
    if live.get("eventsRefused"):
        console.print(Text(f"Karpenter's events in the cluster ({live.get('server', '')}): not read (RBAC "
                           "refused, 403; said above)"))
        return
    events = live.get("events") or ()
    console.print(Text(f"Karpenter's events in the cluster ({live.get('server', '')}): "
                       + (f"{len(events)}" if events else "none")))
    for event in events:
        console.print(Text(event_line(event)))
