"""A large JSON List (a cluster dump) read in parts, its items' equal lists shared.

`json.loads` of a dump of 150,000 pods makes a new object for every value written: the pods of
one workload each get their own copy of its tolerations, containers, owner references. Read in
parts of about CHUNK_CHARS, each part's items have their second-level lists (`spec.tolerations`,
`metadata.ownerReferences`, ...) replaced by the first equal one read, while the part is new: the
copies freed go back to the allocator before the next part is read, and the load's peak memory
falls by about half on such a dump. Only texts of at least MIN_CHARS are read so: the sharing
costs time, and a smaller text's whole read stays within the memory budget (see MIN_CHARS).

Sharing is safe because loaded objects are never changed in place (admission copies what it
changes; `kexplain.admission.shapes` shares unchanged parts of its output with its input the
same way). Equal means equal marshalled bytes: equal values of equal types in equal key order.

The parts are cut where the text has the first item's start (`}`, `,`, `{`, its first key, and
its second key after a string value) and each part is parsed on its own: a cut inside an item or
inside a string leaves the part unbalanced or unterminated, so it does not parse, and the next
candidate is tried. Anything else unexpected gives None, and the caller parses the text whole
(with today's errors: this reader never reports one).
"""
from __future__ import annotations

import json
import re
from json.decoder import WHITESPACE, scanstring
from typing import Any

from kexplain.apimachinery.marshal_memo import MarshalMemo
from kexplain.load import json_parse

CHUNK_CHARS = 1 << 20           # a part's length: the key strings of one part are shared by its parse
# Reading in parts is for memory only, and costs time: a whole `json.loads` of a dump peaks at
# about WHOLE_PEAK_PER_CHAR bytes per character of text (classic 177 MB: 1,061 MB; wide 266 MB:
# 1,650 MB), and issue 25 bounds a run's peak at 1,500 MB, of which MEMORY_BUDGET is left to the
# load (the rest to what the run builds after it). Texts whose whole read stays within it
# (MIN_CHARS, 200 Mi characters) are parsed whole, as they always were.
WHOLE_PEAK_PER_CHAR = 6
MEMORY_BUDGET = 1200 << 20
MIN_CHARS = MEMORY_BUDGET // WHOLE_PEAK_PER_CHAR
MAX_MISSES = 16                 # cuts inside items tried per part before the whole text is parsed
PROBE = 256                     # a field's lists keyed before how often they repeat is judged
MIN_REPEATS = 0.5               # a field whose lists repeat less often is no longer keyed (pure cost)
RESCAN = 64                     # every so many items of a kind are searched for list fields anew
_WS = "[ \t\n\r]*"
_DECODER = json.JSONDecoder()


def read_list(text: str) -> dict[str, Any] | None:
    """The document of `text`, equal to `json.loads(text)`, when it is a JSON object of at
    least MIN_CHARS with an array of objects under "items"; None otherwise (parse it whole)."""
    if len(text) < MIN_CHARS:
        return None
    try:
        return _read(text)
    except (ValueError, RecursionError):   # JSONDecodeError included: the whole parse says why
        return None


def _read(text: str) -> dict[str, Any] | None:
    pos = WHITESPACE.match(text, 0).end()
    if text[pos:pos + 1] != "{":
        return None
    pairs: list[tuple[str, Any]] = []
    items: list[Any] | None = None
    pos = WHITESPACE.match(text, pos + 1).end()
    if text[pos:pos + 1] == "}":
        return None
    while True:
        if text[pos:pos + 1] != '"':
            return None
        key, pos = scanstring(text, pos + 1)
        pos = WHITESPACE.match(text, pos).end()
        if text[pos:pos + 1] != ":":
            return None
        pos = WHITESPACE.match(text, pos + 1).end()
        if key == "items" and items is None and text[pos:pos + 1] == "[":
            items, pos = _items(text, pos)
            if items is None:
                return None
            value: Any = items
        else:
            value, pos = _DECODER.raw_decode(text, pos)
        pairs.append((key, value))
        pos = WHITESPACE.match(text, pos).end()
        if text[pos:pos + 1] == ",":
            pos = WHITESPACE.match(text, pos + 1).end()
            continue
        if text[pos:pos + 1] != "}" or WHITESPACE.match(text, pos + 1).end() != len(text):
            return None
        break
    out = dict(pairs)               # as json.loads builds it: a repeated key keeps its first place, last value
    return out if items is not None and out.get("items") is items else None


def _items(text: str, pos: int) -> tuple[list[Any] | None, int]:
    """The array starting at `pos` (a `[`), read in parts; (None, pos) when it is not read so."""
    start = WHITESPACE.match(text, pos + 1).end()
    if text[start:start + 1] != "{":
        return None, pos
    cut = _item_start(text, start)
    if cut is None:
        return None, pos
    items: list[Any] = []
    memo = _Sharer()
    while True:
        found = cut.search(text, start + CHUNK_CHARS)
        misses = 0
        while found is not None:
            try:
                part = json_parse.loads("[" + text[start:found.start() + 1] + "]")
                break
            except json.JSONDecodeError:    # cut inside an item or a string: try the next one
                misses += 1
                if misses > MAX_MISSES:
                    return None, pos
                found = cut.search(text, found.start() + 1)
        if found is None:                   # the last part: up to the array's `]`
            part, end = _DECODER.raw_decode("[" + text[start:])
            memo.share(part)
            items.extend(part)
            return items, start + end - 1
        memo.share(part)
        items.extend(part)
        start = found.start(1) - 1


def _item_start(text: str, start: int) -> re.Pattern[str] | None:
    """Where a later item like the first one (at `start`) begins: the end of an item, a comma,
    and the first item's first key (and second key, when the first value is a string), the
    key text as written. Group 1: what follows the item's `{`."""
    key_end = WHITESPACE.match(text, start + 1).end()
    if text[key_end:key_end + 1] != '"':
        return None
    _, after = scanstring(text, key_end + 1)
    signature = re.escape(text[key_end:after]) + _WS + ":" + _WS
    value = WHITESPACE.match(text, WHITESPACE.match(text, after).end() + 1).end()
    if text[value:value + 1] == '"':
        _, end = scanstring(text, value + 1)
        next_key = WHITESPACE.match(text, end).end()
        if text[next_key:next_key + 1] == ",":
            key2 = WHITESPACE.match(text, next_key + 1).end()
            if text[key2:key2 + 1] == '"':
                _, key2_end = scanstring(text, key2 + 1)
                signature += r'"(?:[^"\\]|\\.)*"' + _WS + "," + _WS + re.escape(text[key2:key2_end]) + _WS + ":"
    return re.compile(r"\}" + _WS + "," + _WS + r"\{(" + _WS + signature + ")")


class _Fields:
    """The list fields (top key, key) of one kind of item: those still keyed, in the order first
    met, and for those still on probation how often each was keyed and found already read."""

    __slots__ = ("seen", "keyed", "probing", "met")

    def __init__(self) -> None:
        self.seen = 0
        self.keyed: list[tuple[str, str]] = []
        self.probing: dict[tuple[str, str], list[int]] = {}    # [keyed, found] until PROBE
        self.met: set[tuple[str, str]] = set()                 # dropped ones included

    def scan(self, item: dict[str, Any]) -> None:
        """Add the non-empty second-level lists of `item` not met before."""
        for top, field in item.items():
            if type(field) is dict:
                for key, value in field.items():
                    if type(value) is list and value and (top, key) not in self.met:
                        self.met.add((top, key))
                        self.probing[(top, key)] = [0, 0]
                        self.keyed.append((top, key))

    def count(self, path: tuple[str, str], found: bool) -> None:
        """One more keyed list of `path`; after PROBE, a field that repeats too rarely is dropped."""
        counts = self.probing[path]
        counts[0] += 1
        counts[1] += found
        if counts[0] == PROBE:
            del self.probing[path]
            if counts[1] < PROBE * MIN_REPEATS:    # a new list: `share` may be going through this one
                self.keyed = [other for other in self.keyed if other != path]


class _Sharer:
    """Each item's second-level lists replaced by the first equal one read (one read's memos).

    The fields holding lists are found per kind of item, over its first item and every
    RESCAN-th (not every key of every item); a field whose lists rarely repeat (a node's images)
    stops being keyed after PROBE of them: its marshal and look-up would be pure cost."""

    def __init__(self) -> None:
        self.memo: MarshalMemo[list[Any]] = MarshalMemo()   # equal lists found by value
        self.kinds: dict[Any, _Fields] = {}

    def share(self, items: list[Any]) -> None:
        remember, kinds = self.memo.remember, self.kinds
        for item in items:
            if type(item) is not dict:
                continue
            kind = item.get("kind")
            if type(kind) is not str:
                kind = None
            fields = kinds.get(kind)
            if fields is None:
                fields = kinds[kind] = _Fields()
            if fields.seen % RESCAN == 0:
                fields.scan(item)
            fields.seen += 1
            probing = fields.probing
            for path in fields.keyed:
                field = item.get(path[0])
                if type(field) is dict:
                    value = field.get(path[1])
                    if type(value) is list and value:
                        try:
                            shared = remember(value, value)
                        except ValueError:      # nested too deeply to marshal: kept as read
                            continue
                        if shared is not value:
                            field[path[1]] = shared
                        if probing and path in probing:
                            fields.count(path, shared is not value)
