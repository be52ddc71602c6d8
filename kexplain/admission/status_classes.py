"""Pods' statuses checked once per class of texts no check tells apart.

A pod written as an API server serves it writes its own status: its IPs, start time, container ids, the
kubelet's condition times. Each decodes to its own mapping, and the two checks every unstored pod's status
takes (`decode.status_decodes`, the schema's field check in `load.manifests.check_objects`) ran once per pod.
They read of a string only its type, except at a time (parsed), a quantity (parsed) and a byte string
(base64): so two status texts alike but for strings that no such field takes either way get the same
answers. `class_key` cuts those strings out: a time written as API servers write it (`openapi.PLAIN_TIME`:
it parses, and is no quantity nor base64 text), and a string of name characters that is neither a time's
beginning (four digits) nor quantity-like (`_NOT_QUANTITY`, a superset of what a quantity parses from);
everything else stays (numbers, keys, empty and spaced strings, anything with an escape: no key).
The pod status schema holds no byte string (`tests/admission/test_status_classes.py` asks each version's).
"""
from __future__ import annotations

import re
from typing import Any, Callable

_CLASSES_MAX = 4096         # classes of one load, at most
_STANDS_MAX = 65536         # pods placed in a class (by identity), at most

# a time in the form API servers write it, on a day every month has (`openapi.PLAIN_TIME`), or a string of
# name characters neither a time's beginning (four digits) nor quantity-like (sign, digits, one point, a
# suffix or exponent: a superset of what a quantity parses from)
_TIME_TEXT = rb'[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]Z'
_NOT_QUANTITY = rb'(?![0-9]{4})(?![+-]?[0-9]*(?:\.[0-9]*)?(?:[eE][+-]?[0-9]*|[a-zA-Z]{1,2})?%s)'
_NAME_CHARS = rb'[A-Za-z0-9._:/@+=-]'
_CUT = re.compile(rb'(%s)|%s%s+' % (_TIME_TEXT, _NOT_QUANTITY % rb'\Z', _NAME_CHARS)).fullmatch
_TIME, _NAME = b"\0T", b"\0S"
# the same cuts made over a whole text, each string whole between its quotes and a value (no colon
# after it). Without escapes every quote opens or closes a string, and valid JSON writes after a closing
# quote only a separator or a space: a time never starts there, and a name is not let start with the
# colon (the one separator among its characters), so each match is a whole string. (Whether it is a
# value is asked first, possessively: most strings fail there, and at once.)
_TIMES = re.compile(rb'"%s"(?!\s*:)' % _TIME_TEXT).sub
_NAMES = re.compile(rb'"(?=(?!:)%s++"(?!\s*:))%s[^"]*"' % (_NAME_CHARS, _NOT_QUANTITY % b'"')).sub


def class_key(text: bytes) -> bytes | None:
    """The text of a status (an object's valid JSON text) with the strings no check tells apart cut out;
    None when it writes an escape. Values only (a key is followed by its colon)."""
    if text.find(b"\\") != -1:
        return None
    return _NAMES(b'"%s"' % _NAME, _TIMES(b'"%s"' % _TIME, text))


# a class's text as a pattern its members' texts match whole: its cut strings as holes taking what
# `class_key` cuts there (a value is told by what follows it, the class's own text), the rest as written
_HOLES = {b'"%s"' % _TIME: rb'"%s"' % _TIME_TEXT,
          b'"%s"' % _NAME: rb'"(?!:)%s(?=%s++")%s++"' % (_NOT_QUANTITY % b'"', _NAME_CHARS, _NAME_CHARS)}
_HOLE = re.compile(rb'("\0[TS]")')
_COMPILE_AT = 32            # a class's members found by `class_key` before its pattern is made
_MATCHERS_MAX = 8           # patterns made in one load, at most (each takes milliseconds)


def class_matcher(key: bytes) -> Callable[[bytes], Any]:
    """The `fullmatch` of the texts whose `class_key` is `key` (a text without escapes)."""
    return re.compile(b"".join(_HOLES.get(piece) or re.escape(piece) for piece in _HOLE.split(key))).fullmatch


class StatusClasses:
    """The pods' statuses of one load by class (`class_key`): the first of each class stands in for the
    others in the checks, whose memories are by identity (`stand_in`). A pod whose status text falls in
    a class found before need not have it decoded for the checks (`first`)."""

    __slots__ = ("first", "stands", "compile_at", "members", "matchers", "recent", "last")

    def __init__(self, compile_at: int = _COMPILE_AT) -> None:
        self.first: dict[bytes, Any] = {}                    # a class's key -> its first status
        self.stands: dict[int, tuple[Any, Any]] = {}         # id(pod) -> (it, the status standing in)
        self.compile_at = compile_at
        self.members: dict[bytes, int] = {}                  # a class's key -> its texts keyed so far
        self.matchers: dict[bytes, Callable[[bytes], Any]] = {}     # a class's key -> `class_matcher`
        self.recent: tuple[bytes, Callable[[bytes], Any]] | None = None     # the last class matched
        self.last: tuple[bytes, bytes | None] = (b"", None)     # the last text keyed, and its key

    def key_of(self, text: bytes) -> bytes | None:
        """`class_key(text)`; the last text's key when it is that text again (a workload's pods often write
        one status), else a text of the class of the last one whose pattern was made is matched whole
        rather than cut (half the work: a workload's pods write one class of status)."""
        last = self.last
        if last[0] == text and text:
            return last[1]
        recent = self.recent
        if recent is not None and text.find(b"\\") == -1 and recent[1](text) is not None:
            self.last = (text, recent[0])
            return recent[0]
        key = class_key(text)
        self.last = (text, key)
        if key is None:
            return None
        matcher = self.matchers.get(key)
        if matcher is None and len(self.members) < _CLASSES_MAX:
            count = self.members[key] = self.members.get(key, 0) + 1
            if count >= self.compile_at and len(self.matchers) < _MATCHERS_MAX:
                matcher = self.matchers[key] = class_matcher(key)
        if matcher is not None:
            self.recent = (key, matcher)
        return key

    def place(self, key: bytes | None, pod: Any, status: Any) -> None:
        """Place `pod`, whose own status is `status` (its text's `class_key`: `key`), in its class."""
        first = status
        if key is not None:
            first = self.first.get(key, status)
            if first is status and len(self.first) < _CLASSES_MAX:
                self.first[key] = status
        self.stand(pod, first)

    def stand(self, pod: Any, first: Any) -> bool:
        """Whether `pod` is placed with `first` standing in for its status (at most `_STANDS_MAX` pods)."""
        if len(self.stands) >= _STANDS_MAX:
            return False
        self.stands[id(pod)] = (pod, first)
        return True

    def stand_in(self, pod: Any) -> Any:
        """The status the checks ask in place of `pod`'s own: its class's first, else its own."""
        found = self.stands.get(id(pod))
        return found[1] if found is not None and found[0] is pod else pod.get("status")
