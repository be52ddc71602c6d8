"""The words for a pod's verdict in the scheduler's queue (the trace's `queue` key,
`kexplain.explain.queue_order`) and where CA's packing parts from it. Read by the terminal, the
page and `--pending`'s list alike, so that the text's list and the page's table print one line."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.explain.queue_order import in_queue
from kexplain.kueue.objects import QUOTA_RESERVED, checks_words
from kexplain.render.cluster_autoscaler import outcome_label
from kexplain.render.views import random_tie, shorten

TIED_LISTED = 8         # nodes named on a pod's line when a random pick among them is made


def _names(placed: list[Mapping[str, Any]]) -> str:
    return ", ".join(str(p.get("pod")) for p in placed)


def queue_line(trace: Mapping[str, Any]) -> str | None:
    """One sentence: the pod's verdict in the queue next to its verdict alone; None without a
    `queue` key (the queue changes nothing for it)."""
    queue = trace.get("queue")
    if not queue:
        return None
    result = queue.get("result") or {}
    alone = queue.get("alone") or {}
    ahead, moved = int(queue.get("ahead") or 0), int(queue.get("moved") or 0)
    where = alone.get("node")
    was = (f"alone it would be bound to {where}" if alone.get("status") == "Scheduled"
           else f"alone its preemption nominates {where}" if where else f"alone it is {alone.get('status')}")
    taken = queue.get("takenBy") or []
    of = (f"of the {ahead} pending pod{'s' if ahead != 1 else ''} it comes after (priority, then creation time), "
          f"{moved} {'is' if moved == 1 else 'are'} bound or nominated first")
    if taken and where:
        of += f", {_names(taken)} on {where}"
    if result.get("status") == "Scheduled":
        return f"In the scheduler's queue it goes to {result.get('suggestedHost')}: {was}, but {of}."
    post = queue.get("postFilter") or {}
    nominated = f"; its preemption nominates {post['nominatedNodeName']}" if post.get("nominatedNodeName") else ""
    then = str(result.get("message") or "").rstrip(".")
    return (f"In the scheduler's queue it is {result.get('status')}: {was}, but {of}; then: {then}{nominated}.")


def nomination_why(post: Mapping[str, Any] | None) -> str:
    """Where a pod's preemption nominates it (a trace's or a queue answer's `postFilter`), in
    the words of `--pending`'s list: "" when it nominates no node."""
    post = post or {}
    if not post.get("nominatedNodeName"):
        return ""
    victims = ", ".join(post.get("victims") or []) or "none"
    return f" (preemption would nominate {post['nominatedNodeName']}; victims: {victims})"


def _names_placed(placed: list[Mapping[str, Any]]) -> str:
    """The pods ahead placed where a pod went alone, each nominated one said so."""
    return ", ".join(f"{p.get('pod')}{' (nominated there)' if p.get('nominated') else ''}" for p in placed)


def queue_why(trace: Mapping[str, Any]) -> str | None:
    """The same in a few words, for a line of `--pending`'s list."""
    queue = trace.get("queue")
    if not queue:
        return None
    result = queue.get("result") or {}
    alone = queue.get("alone") or {}
    taken = queue.get("takenBy") or []
    if alone.get("status") == "Scheduled" and alone.get("node"):
        was = f"alone it fits {alone['node']}"
    elif alone.get("node"):
        was = f"alone its preemption nominates {alone['node']}"
    else:
        was = f"alone: {alone.get('status')}"
    by = f", taken first in the scheduler's queue by {_names_placed(taken)}" if taken else \
        " (in the scheduler's queue, after the pods ahead of it)"
    if result.get("status") == "Scheduled":
        return f"{was}{by}; it goes to {result.get('suggestedHost')}"
    return f"{was}{by}; then: {result.get('message') or result.get('status')}{nomination_why(queue.get('postFilter'))}"


def scheduler_line(trace: Mapping[str, Any]) -> str | None:
    """Where the Cluster Autoscaler's loop parts from the scheduler's queue on the pod (its
    answer's `scheduler` key says they differ), in one sentence; None when they agree."""
    answer = next((a for a in trace.get("autoscalers") or () if a.get("autoscaler") == "ClusterAutoscaler"), None)
    said = (answer or {}).get("scheduler") or {}
    if said.get("agrees", True):
        return None
    return f"CA and the scheduler's queue differ here: {said.get('why')}."


def scheduler_why(trace: Mapping[str, Any]) -> str | None:
    """The same in a few words, for a line of `--pending`'s list: what CA's loop does instead
    (its outcome), without why its packing differs."""
    answer = next((a for a in trace.get("autoscalers") or () if a.get("autoscaler") == "ClusterAutoscaler"), None)
    said = (answer or {}).get("scheduler") or {}
    if said.get("agrees", True):
        return None
    what = str(said.get("why") or "").split(" (", 1)[0]
    return f"but {what} ({outcome_label(answer or {})})"


def pending_line(trace: Mapping[str, Any]) -> tuple[str, str, str]:
    """A pod of a list, in one line: its verdict as the scheduler's queue leaves it
    (`queue_order.in_queue`), the node it goes to ("" when none) and why, in a few words."""
    result = in_queue(trace)
    status = str(result.get("status") or "")
    own = trace["result"]
    host = str(result.get("suggestedHost") or "") if status == "Scheduled" else ""
    tied = random_tie(trace)
    queued = queue_why(trace)       # the pods ahead in the scheduler's queue change its verdict
    differs = scheduler_why(trace)      # CA's loop parts from the queue on it
    if queued is not None:
        why = queued
    elif status == "Scheduled" and tied:
        why = f"fits now: would be bound to one of {shorten(tied, TIED_LISTED)}, picked at random"
        host = ""
    elif status == "Scheduled":
        host = host or ", ".join(own.get("selectedNodes") or ())
        why = f"fits now: would be bound to {host}"
    elif status == "Gated":
        gate = next((e for e in trace.get("preEnqueue") or [] if e.get("code") != "Success"), {})
        why = "; ".join(gate.get("reasons") or []) or f"gated by {gate.get('plugin', '')}"
    elif status == "Error":
        why = own.get("error") or ""
    else:
        why = (own.get("message") or "") + nomination_why(trace.get("postFilter"))
    if differs is not None:
        why += f"; {differs}"
    kueue = kueue_why(trace.get("kueue"))
    return status, host, f"{kueue}; {why}" if kueue else why


def kueue_why(answer: Any) -> str:
    """Kueue's answer for a pod it manages (the `kueue` key), in a few words: where it admits
    it (the pod then scheduled as Kueue starts it), or why not; "" for a pod Kueue does not manage."""
    if not isinstance(answer, Mapping):
        return ""
    if answer.get("verdict") == "Admitted":
        return f"Kueue admits it in ClusterQueue {answer.get('clusterQueue')}"
    said = answer.get("message") or answer.get("error") or ""
    if not said and answer.get("verdict") == QUOTA_RESERVED:     # as the text says it: the checks it waits for
        said = f"waits for its admission checks ({checks_words(answer.get('admissionChecks')) or 'none synced yet'})"
    return f"Kueue: {answer.get('verdict')}" + (f" ({said})" if said else "")
