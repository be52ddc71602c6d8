"""A large JSON List (a cluster dump) read in parts, in bounded memory: its bound pods as views,
its items' equal lists and mappings shared.

`json.loads` makes a new object for every value; read in parts, equal values (equal `shape_key`s)
are shared, which is safe because loaded objects are never changed in place. Anything unexpected
gives None and the caller parses the text whole. How: docs/internals/load.md.
"""
from __future__ import annotations

import json
import mmap
import os
import re
from json.decoder import WHITESPACE, scanstring
from typing import Any

import msgspec
from msgspec import Raw

from kexplain.apimachinery import pod_lists, stored_pods
from kexplain.load import json_parse
from kexplain.model.shapes import shape_key

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
READ_ITEMS = 8192               # items of a mapped file parsed between two hand-backs of its pages
WINDOW = 16 << 20               # bytes of a mapped file's items read at a time (`_read_windows`)
MAX_WINDOW = 256 << 20          # a part longer than this (no cut found): the file is read by `_read_mapped`
EDGE = 1 << 20                  # the List's own fields before and after its items: at most this many bytes
PAGE = mmap.PAGESIZE
_FIELDS = msgspec.json.Decoder(dict[str, msgspec.Raw]).decode       # an object's values, found in C
_ITEMS = msgspec.json.Decoder(list[msgspec.Raw]).decode             # an array's items, found in C
_decode = msgspec.json.Decoder().decode
_WS = "[ \t\n\r]*"
_DECODER = json.JSONDecoder()


def read_file(path: str) -> dict[str, Any] | None:
    """`json.loads` of the JSON file at `path` when it holds at least MIN_CHARS bytes of a List, read a
    window at a time (bound pods as views); None otherwise, or for anything msgspec refuses."""
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size < MIN_CHARS:
                return None
            mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
            document = _read_windows(mapped, fh.fileno())
    except (OSError, ValueError):
        return None
    if document is not None:
        return document         # (its pods' texts are views of the mapping: it stays open while they live)
    try:
        return _read_mapped(mapped)
    finally:
        try:
            mapped.close()
        except BufferError:     # (a view of it still alive: closed when the last one goes)
            pass


_SPACE = re.compile(rb"[ \t\n\r]*")
_AFTER_ITEM = re.compile(rb"[ \t\n\r]*,?[ \t\n\r]*")
_ITEMS_KEY = re.compile(rb'"items"[ \t\n\r]*:[ \t\n\r]*\[')
_WSB = rb"[ \t\n\r]*"


def _read_windows(mapped: mmap.mmap, fd: int) -> dict[str, Any] | None:
    """`read_file`'s document of the mapped text, its items read WINDOW bytes at a time and cut where an
    item starts (a bad cut does not parse: the next is tried); None when it is not so read."""
    start = 3 if mapped[:3] == b"\xef\xbb\xbf" else 0       # (a byte-order mark, as utf-8-sig drops it)
    head = mapped[start:start + 8192]
    if b"\x00" in head or head.startswith((b"\xff\xfe", b"\xfe\xff")) or not head.lstrip(b" \t\r\n").startswith(b"{"):
        return None
    view = memoryview(mapped)
    try:
        return _windows(mapped, view, start, fd)
    except (msgspec.MsgspecError, ValueError, TypeError, RecursionError, OverflowError, OSError):
        return None
    finally:
        view.release()


def _windows(mapped: mmap.mmap, view: memoryview, start: int, fd: int) -> dict[str, Any] | None:
    opened = _items_opened(mapped, start)
    if opened is None:
        return None
    first = _SPACE.match(mapped, opened).end()
    if mapped[first:first + 1] != b"{":
        return None
    cut = _cut_pattern(mapped, first)
    if cut is None:
        return None
    reader = _Windows(mapped, view, fd)
    pos = first
    while True:
        found = cut.search(mapped, pos + WINDOW)
        misses = 0
        while found is not None:
            if found.start() - pos > MAX_WINDOW:
                return None
            if reader.read(pos, found.start() + 1):
                break
            misses += 1                 # cut inside an item or a string: try the next one
            if misses > MAX_MISSES:
                return None
            found = cut.search(mapped, found.start() + 1)
        else:
            return _last_window(mapped, start, opened, pos, reader)
        pos = found.start(1)


def _items_opened(mapped: mmap.mmap, start: int) -> int | None:
    """Where the top-level "items" array's first item may begin, within EDGE bytes: the text up to
    there, closed by `]}`, must parse."""
    for found in _ITEMS_KEY.finditer(mapped, start, start + EDGE):
        try:
            fields = _FIELDS(mapped[start:found.end()] + b"]}")
        except (msgspec.MsgspecError, ValueError):
            continue
        return found.end() if list(fields)[-1] == "items" else None
    return None


def _last_window(mapped: mmap.mmap, start: int, opened: int, pos: int, reader: "_Windows") -> dict[str, Any] | None:
    """The document, the last part's items read up to the array's `]`: the last `]`s of the
    text within EDGE of its end are tried, last first, until the List's own fields parse."""
    size = len(mapped)
    if size - pos > MAX_WINDOW + EDGE:
        return None
    close = size
    for _ in range(MAX_MISSES):
        close = mapped.rfind(b"]", max(pos, size - EDGE), close)
        if close == -1:
            return None
        tail = mapped[close + 1:]
        if b'"items"' not in tail:      # (a repeated "items": its last value is the one read)
            try:
                fields = _FIELDS(mapped[start:opened] + b"]" + tail)
            except (msgspec.MsgspecError, ValueError):
                continue
            if not reader.read(pos, close):
                return None
            items = pod_lists.dump_items(reader.items)
            if items is None:
                return None
            return {key: items if key == "items" else _decode(raw) for key, raw in fields.items()}
    return None


def _read_mapped(mapped: mmap.mmap) -> dict[str, Any] | None:
    start = 3 if mapped[:3] == b"\xef\xbb\xbf" else 0       # (a byte-order mark, as utf-8-sig drops it)
    head = mapped[start:start + 8192]
    if b"\x00" in head or head.startswith((b"\xff\xfe", b"\xfe\xff")) or not head.lstrip(b" \t\r\n").startswith(b"{"):
        return None     # (binary, UTF-16 or no object: the text's own errors say so)
    view = memoryview(mapped)[start:]
    try:
        return _parsed(mapped, view)
    finally:
        view.release()


_STRING = rb'"(?:[^"\\]|\\.)*"'


def _cut_pattern(mapped: mmap.mmap, first: int) -> re.Pattern[bytes] | None:
    """Where a later item like the first one (at `first`) begins, as `_item_start` finds it in a text,
    in the mapped bytes. Group 1: the next item, from its `{`."""
    head = mapped[first:first + 4096]
    found = re.match(rb"\{" + _WSB + b"(" + _STRING + b")" + _WSB + b":" + _WSB, head)
    if found is None:
        return None
    signature = re.escape(found.group(1)) + _WSB + b":" + _WSB
    second = _SECOND_KEY.match(head, found.end()) if head[found.end():found.end() + 1] == b'"' else None
    if second is not None:
        signature += _STRING + _WSB + b"," + _WSB + re.escape(second.group(1)) + _WSB + b":"
    return re.compile(rb"\}" + _WSB + b"," + _WSB + rb"(\{" + _WSB + signature + b")")


_SECOND_KEY = re.compile(_STRING + _WSB + b"," + _WSB + b"(" + _STRING + b")" + _WSB + b":")


class _Windows:
    """The items of a mapped List read a part at a time (`read`): bound pods as views of the mapping,
    the rest made whole (`_ItemReader`), a part not all ASCII made whole throughout (UTF-8 checked)."""

    __slots__ = ("mapped", "view", "fd", "items", "texts", "reader", "part")

    def __init__(self, mapped: mmap.mmap, view: memoryview, fd: int) -> None:
        self.mapped, self.view, self.fd = mapped, view, fd
        self.items: list[Any] = []
        self.texts: dict[bytes, Raw] = {}
        self.reader = _ItemReader()
        self.part = bytearray()

    def read(self, pos: int, end: int) -> bool:
        """Read the items of the text from `pos` (an item's `{`) to `end`; False when it is not a
        run of whole items (nothing read)."""
        length = end - pos
        part = self.part
        if len(part) < length + 2:          # (a new one: the last part's texts may not all be gone yet)
            part = self.part = bytearray(length + 2 + (length >> 2))
        part[0], part[length + 1] = _OPEN, _CLOSE
        with memoryview(part) as inner:
            if os.preadv(self.fd, [inner[1:length + 1]], pos) != length:
                raise OSError("the file changed while it was read")
        aligned = pos - pos % PAGE          # (the pages the cut was searched in)
        self.mapped.madvise(mmap.MADV_DONTNEED, aligned, end - aligned)
        window = memoryview(part)[:length + 2]
        try:
            raws = _ITEMS(window)
        except (msgspec.MsgspecError, ValueError):
            return False
        if part.isascii():                  # (past the part: an earlier ASCII part's bytes, or zeros)
            view, at, texts = self.view, 1, self.texts
            located = []
            for raw in raws:                # (each item's place in the mapping: a view of it there)
                at = _SPACE.match(part, at).end()
                size = len(raw)
                located.append(Raw(view[pos + at - 1:pos + at - 1 + size]))
                at = _AFTER_ITEM.match(part, at + size).end()
            self.items += pod_lists.dump_objects(raws, lambda pod: _kept(pod, texts), located, self.reader.item)
        else:
            self.items += [self.reader.item(raw) for raw in raws]
            self.part = bytearray()         # (its bytes are not all ASCII: not to be read past a later part)
        return True


_OPEN, _CLOSE = ord("["), ord("]")


def _kept(pod: stored_pods.PodView, texts: dict[bytes, Raw]) -> stored_pods.PodView | None:
    """A stored pod's view with its own texts; None for a pod no API server stored (admitted by its
    shape from its whole text, so it is made whole instead)."""
    meta = pod.metadata
    return stored_pods.owning(pod, texts) if meta is not None and meta.resourceVersion else None


def _parsed(mapped: mmap.mmap, view: memoryview) -> dict[str, Any] | None:
    """`_read_mapped` of the text `view`; None when it is not what `read_file` reads. Its views of
    the mapping (msgspec's `Raw`s) are gone when it returns, refused or not."""
    try:
        return _parsed_items(mapped, _FIELDS(view))
    except (msgspec.MsgspecError, ValueError, TypeError, RecursionError, OverflowError):
        return None


def _parsed_items(mapped: mmap.mmap, fields: dict[str, msgspec.Raw]) -> dict[str, Any] | None:
    if "items" not in fields:
        return None
    items = _ITEMS(fields["items"])
    out = {key: None if key == "items" else _decode(raw) for key, raw in fields.items()}
    fields.clear()
    mapped.madvise(mmap.MADV_DONTNEED)      # the pages the scans read: read again as parsed
    listed: list[Any] = []
    reader = _ItemReader()
    for first in range(0, len(items), READ_ITEMS):
        part = [reader.item(raw) for raw in items[first:first + READ_ITEMS]]
        items[first:first + READ_ITEMS] = [None] * len(part)
        listed.extend(part)
        mapped.madvise(mmap.MADV_DONTNEED)
    out["items"] = listed
    return out


class _ItemReader:
    """Items of a mapped file made from their text, equal values made once and shared; by path (`_Paths`),
    a value whose path repeats is looked up by its text, one that rarely does is made at once."""

    __slots__ = ("memo", "kinds")

    def __init__(self) -> None:
        self.memo: dict[bytes, Any] = {}            # a value's text -> it, made once
        self.kinds: dict[Any, _Paths] = {}

    def item(self, raw: msgspec.Raw) -> dict[str, Any]:
        top = _FIELDS(raw)          # (ValidationError, a ValueError, for an item that is no object)
        kind = top.get("kind")
        kind = _decode(kind) if kind is not None else None
        if type(kind) is not str:
            kind = None
        paths = self.kinds.get(kind)
        if paths is None:
            paths = self.kinds[kind] = _Paths()
        out = {}
        for key, value in top.items():
            if memoryview(value)[0] == _OBJECT and paths.split((key,)):     # (an item's fields: never keyed)
                out[key] = self._object(_FIELDS(value), paths, (key,))
            else:
                out[key] = _decode(value)
        return out

    def _object(self, values: dict[str, msgspec.Raw], paths: "_Paths", path: tuple[str, ...]) -> dict[str, Any]:
        memo = self.memo
        out = {}
        for key, raw in values.items():
            here = (*path, key)
            if paths.keyed(here):
                text = bytes(raw)
                found = memo.get(text)
                if found is None:
                    found = memo[text] = _decode(text)
                    paths.count(here, False)
                else:
                    paths.count(here, True)
                out[key] = found
                continue
            value = _decode(raw)
            if (type(value) is dict or type(value) is list) and paths.split(here):
                self._intern(value, paths, here)        # (a pod's status conditions: made whole, their texts shared)
            out[key] = value
        return out

    def _intern(self, value: Any, paths: "_Paths", path: tuple[str, ...]) -> None:
        """The strings and empty values in `value` (made of one text, at `path`) replaced by equal
        ones already made, where values at their path repeat (probation as for texts)."""
        strings = self.memo
        items = value.items() if type(value) is dict else enumerate(value)
        inner = path if type(value) is dict else (*path, "*")
        for key, item in list(items):
            here = (*inner, key) if type(value) is dict else inner
            kind = type(item)
            if kind is str or ((kind is dict or kind is list) and not item):
                if paths.keyed(here):
                    found = strings.get(item if kind is str else _EMPTY[kind])
                    if found is None:
                        strings[item if kind is str else _EMPTY[kind]] = item
                        paths.count(here, False)
                    else:
                        value[key] = found
                        paths.count(here, True)
            elif (kind is dict or kind is list) and len(here) < MAX_DEPTH and paths.split(here):
                self._intern(item, paths, here)


_EMPTY = {dict: b"{}", list: b"[]"}         # the memo's keys of an empty mapping and list (their texts)
_OBJECT, _ARRAY = ord("{"), ord("[")
MAX_DEPTH = 6           # paths whose texts are shared: down to a status's init containers' states' reasons


class _Paths:
    """What `_ItemReader` knows of each path of one kind of item: on probation for PROBE values, then made
    from text when they repeat less than MIN_REPEATS."""

    __slots__ = ("counts", "dropped", "repeating", "splits")

    def __init__(self) -> None:
        self.counts: dict[tuple[str, ...], list[int]] = {}     # [looked up, found] until PROBE
        self.dropped: set[tuple[str, ...]] = set()
        self.repeating: set[tuple[str, ...]] = set()           # paths below which a value repeats
        self.splits: dict[tuple[str, ...], int] = {}           # how often a path was read field by field

    def keyed(self, path: tuple[str, ...]) -> bool:
        return path not in self.dropped

    def split(self, path: tuple[str, ...]) -> bool:
        """Whether to read the object or list at `path` field by field: while what is below it
        is on probation, then only when something below it repeats."""
        if path in self.repeating:
            return True
        splits = self.splits.get(path, 0)
        if splits >= PROBE:
            return False
        self.splits[path] = splits + 1
        return True

    def count(self, path: tuple[str, ...], found: bool) -> None:
        counts = self.counts.get(path)
        if counts is None:
            counts = self.counts[path] = [0, 0]
        if counts[0] >= PROBE:
            return
        counts[0] += 1
        counts[1] += found
        if counts[1] >= PROBE * MIN_REPEATS:
            for depth in range(1, len(path)):
                self.repeating.add(path[:depth])
        if counts[0] == PROBE and counts[1] < PROBE * MIN_REPEATS:
            self.dropped.add(path)


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
    """Where a later item like the first one (at `start`) begins: an item's end, a comma, and the first
    item's first key (and second, after a string value) as written. Group 1: what follows its `{`."""
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
                    if (type(value) is list or type(value) is dict) and value and (top, key) not in self.met:
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
    """Each item's second-level lists and mappings replaced by the first equal one read; a field whose
    values rarely repeat stops being keyed after PROBE of them."""

    def __init__(self) -> None:
        self.memo: dict[bytes, Any] = {}        # `shape_key` -> the first list or mapping of that value
        self.kinds: dict[Any, _Fields] = {}

    def share(self, items: list[Any]) -> None:
        memo, kinds = self.memo, self.kinds
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
                    if (type(value) is list or type(value) is dict) and value:
                        key = shape_key(value)
                        if key is None:         # (nested too deeply, or a value it cannot write: kept)
                            continue
                        shared = memo.setdefault(key, value)
                        if shared is not value:
                            field[path[1]] = shared
                        if probing and path in probing:
                            fields.count(path, shared is not value)
