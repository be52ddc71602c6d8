"""The FailedScheduling message, exactly as kube-scheduler's FitError formats it."""
from __future__ import annotations

from collections import Counter

from kexplain.framework.interface import NodeToStatus

NOTE_LENGTH_LIMIT = 1024


def fit_error_message(num_all_nodes: int, statuses: NodeToStatus, pre_filter_msg: str = "",
                      post_filter_msg: str = "") -> str:
    """`0/N nodes are available: <PreFilter msg>. | <sorted reason histogram>. <PostFilter msg>`."""
    msg = f"0/{num_all_nodes} nodes are available:"
    if pre_filter_msg:
        msg += f" {pre_filter_msg}."
    else:
        counts: Counter[str] = Counter()
        for status in statuses.statuses.values():
            counts.update(status.reasons)
        if len(statuses) < num_all_nodes:
            for reason in statuses.absent.reasons:
                counts[reason] += num_all_nodes - len(statuses)
        # Go sorts the "<count> <reason>" strings themselves, so "10 x" sorts before "2 y".
        histogram = sorted(f"{n} {reason}" for reason, n in counts.items())
        if histogram:
            msg += f" {', '.join(histogram)}."
    if post_filter_msg:
        msg += f" {post_filter_msg}"
    return msg


def truncate_message(message: str) -> str:
    """Events keep at most 1024 bytes: the first 1020 and " ..."."""
    raw = message.encode()
    if len(raw) <= NOTE_LENGTH_LIMIT:
        return message
    return raw[:NOTE_LENGTH_LIMIT - 4].decode(errors="replace") + " ..."
