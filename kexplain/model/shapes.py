"""Shape keys: the one way kexplain tells that values are alike, as bytes.

Pods of one workload are alike in everything but a few fields (their name, uid, node, ...), and
most work on a cluster of 150,000 pods is done once per kind of pod instead of once per pod:
admission (`kexplain.admission.shapes`), a pod's requests, host ports and affinity terms
(`kexplain.model.pod.PodFacts`), the terms a workload's pods share. Each asks one question of
the values it reads: are they alike? `shape_key` answers with bytes that are equal exactly when
the values are equal *and of equal types*, mappings in equal key order: MessagePack, written by
msgspec in C. Python's own equality would not do: `1 == 1.0 == True`, and a pod asking for
`cpu: 1` is not one asking for `cpu: true`.

MessagePack writes a tuple as a list and a `datetime.date` as its ISO text: loaded objects hold
neither (JSON has no such values, and YAML timestamps are read as their text, as kubectl sends
them), and the parts callers put together are tuples throughout. A value it cannot write (an
integer beyond 64 bits, an object of another type) has no key: the caller works it out alone.
"""
from __future__ import annotations

from typing import Any

import msgspec

_encode = msgspec.msgpack.Encoder().encode


def shape_key(value: Any) -> bytes | None:
    """Bytes equal for values equal with equal types and key orders; None when there are none."""
    try:
        return _encode(value)
    except (TypeError, ValueError, OverflowError, RecursionError):
        return None
