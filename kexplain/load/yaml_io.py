"""The one reader of YAML and JSON text: safe, bounded, and as kubectl reads it.

`parse_documents` is what every input goes through, with one set of guards (`kexplain.load.limits`):
safe loading only, scalars as go-yaml v2 and kubectl read them (`goyaml`), nesting and alias
expansion bounded before they can crash or explode. The guards: docs/internals/load.md.
"""
from __future__ import annotations

import json
import os
import pickle
import re
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Iterator

import yaml
from yaml.constructor import ConstructorError

from kexplain.apimachinery import pod_lists
from kexplain.errors import InputError, Source, clip
from kexplain.load import goyaml, json_list, json_parse
from kexplain.load.limits import MAX_DEPTH, MAX_EXPANDED_NODES


def _lift_libyaml_nesting_cap(depth: int = MAX_DEPTH) -> None:
    """Lift libyaml 0.2.6's own 1,000-level nesting cap (process-wide) above MAX_DEPTH, so that kexplain's
    guard (`nesting_error`, with document and line) answers, as kubectl reads deeper."""
    setter = getattr(getattr(yaml, "_yaml", None), "_set_max_nest_level", None)
    if setter is not None:
        setter(2 * depth + 16)


if hasattr(yaml, "CSafeLoader"):
    class _CSafeLoader(yaml.CSafeLoader):  # type: ignore[misc, name-defined]
        """The C loader, with libyaml's own nesting cap above kexplain's (every use goes here)."""

        def __init__(self, stream: Any) -> None:
            _lift_libyaml_nesting_cap()
            super().__init__(stream)

    _BaseLoader: type = _CSafeLoader
else:  # pragma: no cover - depends on how PyYAML was built
    _BaseLoader = yaml.SafeLoader

# A block collection nested in another starts at least one column further right every second
# level, and its column is made of the line's indentation and indicators (`- `, `? `, `: `):
# without such a prefix of MAX_DEPTH // 4 characters, block nesting stays under MAX_DEPTH // 2.
# (`\n` first, not `^` with MULTILINE: a literal start lets the regex engine skip ahead fast.)
_PREFIX_CHARS = "[ \t?:-]"
_OTHER_BREAKS = ("\x85", "\u2028", "\u2029")   # line breaks to libyaml besides \n and \r
_LONE_CR = re.compile("\r(?!\n)")


def _go_scalar(node: Any) -> Any:
    """The value kubectl sends for a scalar node (`goyaml.scalar`); what go-yaml or JSON refuse
    is a ConstructorError at the value's line."""
    try:
        return goyaml.scalar(node.tag, node.value)
    except goyaml.GoYamlError as err:
        raise ConstructorError(None, None, str(err), node.start_mark) from None


def _json_reason(err: ValueError) -> str:
    """Why a JSON number could not be read, in words."""
    if "Exceeds the limit" in str(err):   # Python's int() guard
        return "a number of more than 4,300 digits"
    return str(err).split(";")[0]


# -- double-quoted escapes as kubectl reads them ----------------------------------------------
# go-yaml v2 reads `\'` as a `'`, which libyaml and PyYAML refuse: the backslash of each such escape
# becomes a private-use stand-in (lengths kept, so lines and columns in errors stay as written), put
# back in the composed nodes. The escape tables compared: docs/internals/load.md.
_ESCAPED_QUOTE = re.compile(r"\\+'")
_STAND_INS = tuple(chr(code) for code in range(0xE000, 0xE010))


def kubectl_escapes(text: str) -> tuple[str, str | None]:
    """(`text` read for go-yaml's `\\'`, the stand-in used for its backslashes), or (`text`, None)
    when it has no such escape (or, absurdly, has every stand-in: then libyaml refuses it)."""
    if "\\'" not in text:
        return text, None
    stand_in = next((c for c in _STAND_INS if c not in text), None)
    if stand_in is None:
        return text, None
    found = False

    def replace(m: re.Match[str]) -> str:
        nonlocal found
        run = m.group()
        if len(run) % 2:                  # an even run of backslashes: `\\` escapes, then a quote
            return run
        found = True
        return run[:-2] + stand_in + "'"
    text = _ESCAPED_QUOTE.sub(replace, text)
    return text, (stand_in if found else None)


def _restore_node(root: Any, stand_in: str) -> None:
    """Puts back what `kubectl_escapes` replaced, in every scalar of a composed document."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            if stand_in in node.value:
                node.value = node.value.replace(stand_in, "" if node.style == '"' else "\\")
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.append(key)
                stack.append(value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)


def _restore_event(event: Any, stand_in: str) -> Any:
    if type(event) is yaml.ScalarEvent and stand_in in event.value:
        event.value = event.value.replace(stand_in, "" if event.style == '"' else "\\")
    return event


class NestingError(yaml.MarkedYAMLError):
    """A document nested deeper than MAX_DEPTH: refused before the C loader composes it."""

    def __init__(self, depth: int, document: int, mark: Any) -> None:
        super().__init__(problem=f"nested more than {depth:,} levels deep", problem_mark=mark)
        self.document = document


_STR_TAG = goyaml.STR
_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"


class _KubectlReading:
    """What makes a PyYAML loader read as kubectl does (mixed into SafeLoader): depth checked first,
    `\\'` and scalars and tags as go-yaml v2 (`goyaml`); PyYAML's constructors never run."""

    def __init__(self, stream: Any) -> None:
        self._stand_in: str | None = None
        if isinstance(stream, str):
            stream, self._stand_in = kubectl_escapes(stream)
        super().__init__(stream)  # type: ignore[call-arg]
        self._unchecked = stream if isinstance(stream, str) else None

    def _check_nesting(self) -> None:
        """On the first call that parses (inside the caller's `except YAMLError`, unlike __init__)."""
        if self._unchecked is not None:
            text, self._unchecked = self._unchecked, None
            nesting = nesting_error(text)
            if nesting is not None:
                raise nesting

    def check_data(self) -> bool:
        self._check_nesting()
        return super().check_data()  # type: ignore[misc]

    def check_node(self) -> bool:
        self._check_nesting()
        return super().check_node()  # type: ignore[misc]

    def check_event(self, *choices: Any) -> bool:
        self._check_nesting()
        return super().check_event(*choices)  # type: ignore[misc]

    def get_single_data(self) -> Any:
        self._check_nesting()
        return super().get_single_data()  # type: ignore[misc]

    def get_single_node(self) -> Any:
        self._check_nesting()
        node = super().get_single_node()  # type: ignore[misc]
        if self._stand_in is not None and node is not None:
            _restore_node(node, self._stand_in)
        return node

    def get_node(self) -> Any:
        node = super().get_node()  # type: ignore[misc]
        if self._stand_in is not None and node is not None:
            _restore_node(node, self._stand_in)
        return node

    def peek_event(self) -> Any:
        return self._as_go_reads(super().peek_event())  # type: ignore[misc]

    def get_event(self) -> Any:
        return self._as_go_reads(super().get_event())  # type: ignore[misc]

    def _as_go_reads(self, event: Any) -> Any:
        """An event as go-yaml reads it: `_restore_event`, and a scalar tagged `!` made `!!str` (`! 12` is
        "12"). Composers in Python only: see `_PythonComposing`."""
        if type(event) is yaml.ScalarEvent and event.tag == "!":
            event.tag = goyaml.STR
        return event if self._stand_in is None else _restore_event(event, self._stand_in)

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        """go-yaml's tag of a plain scalar (remembered: `goyaml.plain`); a plain `<<` is a merge
        key where it is a key (`_go_pairs`) and the string "<<" elsewhere."""
        if kind is yaml.ScalarNode and implicit[0]:
            return goyaml.MERGE if value == "<<" else goyaml.plain_tag(value)
        return super().resolve(kind, value, implicit)  # type: ignore[misc]

    def construct_go(self, node: yaml.Node) -> Any:
        """Any node as go-yaml decodes it into an interface (merges as `_go_pairs` says), built after it is
        returned (a generator: aliases may be cycles)."""
        if isinstance(node, yaml.ScalarNode):
            return _go_scalar(node)
        if node.tag == goyaml.NULL:
            return None
        if isinstance(node, yaml.MappingNode):
            return self._go_mapping(node)
        return self._go_sequence(node)

    def _go_mapping(self, node: yaml.MappingNode) -> Iterator[dict[Any, Any]]:
        data: dict[Any, Any] = {}
        yield data
        construct = self.construct_object  # type: ignore[attr-defined]
        for key_node, value_node in _go_pairs(node):
            key = construct(key_node, deep=False)
            if key is None:
                raise ConstructorError("while constructing a mapping", node.start_mark,
                                       "a null key, which JSON cannot have (kubectl: unsupported map key of "
                                       "type: <nil>)", key_node.start_mark)
            try:
                hash(key)
            except TypeError:
                raise ConstructorError("while constructing a mapping", node.start_mark, "found unhashable key",
                                       key_node.start_mark) from None
            data[key] = construct(value_node, deep=False)

    def _go_sequence(self, node: yaml.SequenceNode) -> Iterator[list[Any]]:
        data: list[Any] = []
        yield data
        construct = self.construct_object  # type: ignore[attr-defined]
        data.extend(construct(child, deep=False) for child in node.value)

    yaml_constructors: ClassVar[dict[Any, Any]] = {None: construct_go}
    yaml_multi_constructors: ClassVar[dict[Any, Any]] = {}


def _is_merge(key_node: yaml.Node) -> bool:
    """go-yaml's isMerge: the key `<<`, written plain or tagged `!!merge`."""
    return type(key_node) is yaml.ScalarNode and key_node.tag == goyaml.MERGE and key_node.value == "<<"


def _go_pairs(node: yaml.MappingNode, merging: frozenset[int] = frozenset()) -> list[tuple[yaml.Node, yaml.Node]]:
    """A mapping's (key, value) pairs in the order go-yaml sets them, the later winning: a key written
    after `<<` overrides what it merges (PyYAML lets every written key win). The nodes are unchanged."""
    pairs: list[tuple[yaml.Node, yaml.Node]] = []
    for key_node, value_node in node.value:
        if not _is_merge(key_node):
            pairs.append((key_node, value_node))
            continue
        if isinstance(value_node, yaml.MappingNode):
            merged: list[yaml.Node] = [value_node]
        elif isinstance(value_node, yaml.SequenceNode) and all(
                isinstance(item, yaml.MappingNode) for item in value_node.value):
            merged = list(reversed(value_node.value))
        else:
            raise ConstructorError("while constructing a mapping", node.start_mark,
                                   "map merge requires map or sequence of maps as the value", value_node.start_mark)
        inside = merging | {id(node)}
        for sub in merged:
            if id(sub) in inside:
                raise ConstructorError("while constructing a mapping", node.start_mark,
                                       "a merged mapping contains itself", sub.start_mark)
            pairs.extend(_go_pairs(sub, inside))
    return pairs


class SafeLoader(_KubectlReading, _BaseLoader):  # type: ignore[misc, valid-type]
    """The loader every reader uses (`_KubectlReading` over the C loader when there is one)."""


class _PythonComposing(yaml.composer.Composer):
    """PyYAML's composer in Python, over the C parser's events: what a text with a scalar of the
    non-specific tag `!` needs (the C composer resolves it before any Python code sees its tag)."""

    def __init__(self, stream: Any) -> None:
        super(yaml.composer.Composer, self).__init__(stream)  # type: ignore[call-arg]
        self.anchors: dict[Any, Any] = {}


class _NonSpecificTagLoader(_KubectlReading, _PythonComposing, _BaseLoader):  # type: ignore[misc, valid-type]
    """SafeLoader for a text that may have a non-specific tag (`_NON_SPECIFIC`)."""


# `!` alone where a node may start, then a space, a line break or a flow indicator: maybe the
# non-specific tag (or `!` in a string: the Python composer reads that text alike, more slowly).
_NON_SPECIFIC = re.compile(r"(?:^|(?<=[\s\[{,]))!(?=[\s,\]}]|$)")


_C_COMPOSER = _BaseLoader is not yaml.SafeLoader      # (PyYAML's own loader composes in Python)


def loader_class(text: str) -> type:
    """The loader that reads `text` as kubectl does: SafeLoader, or over the C loader a Python
    composer when the text may have a non-specific tag."""
    return _NonSpecificTagLoader if _C_COMPOSER and _NON_SPECIFIC.search(text) else SafeLoader


# -- building documents --------------------------------------------------------------------------
class _Unusual(Exception):
    """What the fast builder leaves to the constructor (merge keys, tags on collections,
    complex and null keys)."""


def _build(loader: Any, root: yaml.Node) -> Any:
    """A composed document's value as `construct_go` makes it, without its per-node overhead (same order,
    same errors, aliases shared); raises _Unusual for what only the constructor handles."""
    memo: dict[int, Any] = {}
    pending: deque[tuple[yaml.Node, Any]] = deque()

    def build(node: yaml.Node) -> Any:
        if type(node) is yaml.ScalarNode:
            return node.value if node.tag == _STR_TAG else _go_scalar(node)
        value = memo.get(id(node))
        if value is not None:
            return value
        if type(node) is yaml.MappingNode and node.tag == _MAP_TAG:
            value = {}
        elif type(node) is yaml.SequenceNode and node.tag == _SEQ_TAG:
            value = []
        else:
            raise _Unusual(node.tag)
        memo[id(node)] = value
        pending.append((node, value))
        return value

    root_value = build(root)
    while pending:
        node, value = pending.popleft()
        if type(value) is dict:
            for key_node, value_node in node.value:
                if type(key_node) is not yaml.ScalarNode or key_node.tag == goyaml.MERGE:
                    raise _Unusual("merge or complex key")
                key = build(key_node)
                if key is None:
                    raise _Unusual("null key")
                value[key] = build(value_node)
        else:
            value.extend(build(item) for item in node.value)
    return root_value


def _construct(loader: Any, node: yaml.Node) -> Any:
    """The value of a composed document: `_build`'s, or PyYAML's constructor's where it steps aside."""
    try:
        return _build(loader, node)
    except (_Unusual, TypeError):      # TypeError: an unhashable key
        return loader.construct_document(node)


def _sizes(root: Any, limit: int) -> tuple[int, int]:
    """(values with every alias expanded, values as written): each shared list or mapping is
    visited once; the first count stops growing past `limit`."""
    sizes: dict[int, int] = {}
    written = 0
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        obj, children_done = stack.pop()
        if not isinstance(obj, (dict, list)):
            continue
        oid = id(obj)
        if oid in sizes and not children_done:
            continue
        items = obj.values() if isinstance(obj, dict) else obj
        if children_done:
            total = 1
            for child in items:
                total += sizes.get(id(child), 1) if isinstance(child, (dict, list)) else 1
                if total > limit:
                    return total, written
            sizes[oid] = total
            written += 1 + sum(1 for child in items if not isinstance(child, (dict, list)))
        else:
            sizes[oid] = -1  # in progress: a cycle counts once
            stack.append((obj, True))
            stack.extend((child, False) for child in items if isinstance(child, (dict, list)))
    return sizes.get(id(root), 1), written


def _allowed_alias_ratio(values: int) -> float:
    """go-yaml's allowance (what kubectl and the API server decode with): 99% of the values of a
    document of up to 400,000 may come from aliases, 10% from 4,000,000 on, linear between."""
    if values <= 400_000:
        return 0.99
    if values >= 4_000_000:
        return 0.10
    return 0.99 - 0.89 * (values - 400_000) / 3_600_000


def excessive_aliasing(doc: Any) -> str | None:
    """Why `doc` is refused as an alias bomb (MAX_EXPANDED_NODES, or go-yaml's alias ratio), or None."""
    expanded, written = _sizes(doc, MAX_EXPANDED_NODES)
    if expanded > MAX_EXPANDED_NODES:
        return f"YAML aliases expand to more than {MAX_EXPANDED_NODES:,} values (an alias bomb?); refusing to read it"
    aliased = expanded - written
    if aliased > 100 and expanded > 1000 and aliased / expanded > _allowed_alias_ratio(expanded):
        return (f"YAML aliases make {aliased:,} of its {expanded:,} values (excessive aliasing, "
                "as kubectl would say: an alias bomb?); refusing to read it")
    return None


def may_nest_deeper(text: str, depth: int = MAX_DEPTH) -> bool:
    """False when no document of `text` can be nested `depth` levels deep (cheap and sound:
    flow nesting needs an opening bracket per level, block nesting a wider line prefix)."""
    flow = text.count("[") + text.count("{") + 1
    if flow > depth // 2:             # only then are the empty pairs worth counting
        flow -= text.count("[]") + text.count("{}")
        if flow > depth // 2:
            return True
    if any(brk in text for brk in _OTHER_BREAKS) or _LONE_CR.search(text):
        return True   # lines that do not end in "\n": not worth a slower search
    prefix = "%s{%d}" % (_PREFIX_CHARS, depth // 4)
    return re.match(prefix, text) is not None or re.search("\n" + prefix, text) is not None


def nesting_error(text: str, depth: int = MAX_DEPTH) -> NestingError | None:
    """The error for a document of `text` nested more than `depth` levels, found from the
    parser's events (which never recurse), or None."""
    if not may_nest_deeper(text, depth):
        return None
    level, doc = 0, 0
    for event in yaml.parse(text, Loader=_BaseLoader):
        cls = type(event)
        if cls is yaml.MappingStartEvent or cls is yaml.SequenceStartEvent:
            level += 1
            if level > depth:
                return NestingError(depth, doc, event.start_mark)
        elif cls is yaml.MappingEndEvent or cls is yaml.SequenceEndEvent:
            level -= 1
        elif cls is yaml.DocumentStartEvent:
            doc += 1
    return None


# -- the fast path for large texts -------------------------------------------------------------
# yaml-rs builds the same dicts and lists several times faster than PyYAML's constructor, but reads
# YAML 1.2: its result is used only when it is shown to be what SafeLoader would build, else the text
# is read by SafeLoader as before. The conditions checked: docs/internals/load.md.
try:  # pragma: no cover - depends on the platform having a wheel
    import yaml_rs as _yaml_rs
except ImportError:  # pragma: no cover
    _yaml_rs = None

FAST_MIN_CHARS = 512 * 1024          # smaller texts: SafeLoader is quick enough
_INT_RANGE = (-(1 << 63), (1 << 64) - 1)   # go-yaml's ints (int64, then uint64): past them, floats
# Events yaml-rs may copy for aliases, beyond one per alias: a document's aliases may add at
# most 2,000,000 values (10% of MAX_EXPANDED_NODES), so past that SafeLoader judges it.
_FAST_REPLAY_LIMIT = 2_000_000
_STR = goyaml.STR
# Characters after which a node may start (besides the start of the text) ...
_NODE_BEFORE = frozenset(" \n\r[{,\ufeff")
_LB = "[ \\n\\r\\[{,\\ufeff]"          # ... the same in a regex, and after a JSON-like key: `"a":1`
_LBQ = "[\"'\\]}]:"
_DELIM = r"(?=[\s,\]}:]|\Z)"         # ... and what may follow a plain scalar
_NAME = re.compile(r"[0-9A-Za-z_-]+")     # libyaml's anchor names
# Plain-looking tokens that yaml-rs and go-yaml read differently as ints (`0777` 777 or 511).
_RISKY_INT = re.compile(
    rf"0(?<=[ \n\r\[{{,\ufeff:+-]0)(?:(?<={_LB}0)|(?<={_LB}[-+]0)|(?<={_LBQ}0)|(?<={_LBQ}[-+]0))"
    rf"(?:[0-9_]+|[oOXB][0-9a-fA-F_]*){_DELIM}"
    rf"|_(?<=[ \n\r\[{{,\ufeff:+-]_)(?:(?<={_LB}_)|(?<={_LB}[-+]_)|(?<={_LBQ}_)|(?<={_LBQ}[-+]_))"
    rf"[0-9a-fA-FoOxXbB_]*{_DELIM}")
_RISKY_INT_START = re.compile(rf"[-+]?(?:0(?:[0-9_]+|[oOXB][0-9a-fA-F_]*)|_[0-9a-fA-FoOxXbB_]*){_DELIM}")


def _fast_unsafe_text(text: str) -> bool:
    """Whether `text` has what the fast path leaves to SafeLoader outright: tabs, line breaks
    YAML 1.1 and 1.2 disagree on, a byte order mark past the start, a directive, or a tag."""
    if "\t" in text or "\ufeff" in text or "%" in text[:1] or "\n%" in text:
        return True
    if any(brk in text for brk in _OTHER_BREAKS) or _LONE_CR.search(text):
        return True
    return any(_node_start(text, i) for i in _occurrences(text, "!"))


def _occurrences(text: str, char: str) -> Iterator[int]:
    i = text.find(char)
    while i != -1:
        yield i
        i = text.find(char, i + 1)


def _node_start(text: str, i: int) -> bool:
    """Whether a node (or its anchor, alias or tag) could start at `text[i]`: an over-approximation
    (inside a quoted string too), never missing one."""
    if i == 0 or text[i - 1] in _NODE_BEFORE:
        return True
    return text[i - 1] == ":" and i >= 2 and text[i - 2] in "\"']}"


def _risky_int(text: str) -> bool:
    """Whether `text` may hold a plain int yaml-rs and PyYAML read differently (`0777`, `_1`)."""
    if (m := _RISKY_INT_START.match(text)) and _whole_plain(text, 0, m.end()):
        return True
    for m in _RISKY_INT.finditer(text):
        start = m.start() - (text[m.start() - 1] in "+-")
        if _whole_plain(text, start, m.end()):
            return True
    return False


def _whole_plain(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]` could be a whole plain scalar (an over-approximation)."""
    n = len(text)
    j = end
    while j < n and text[j] == " ":
        j += 1
    if j < n and text[j] not in "\r\n#,]}:":
        return False
    i = start
    while i > 0 and text[i - 1] == " ":
        i -= 1
    if i == 0 or text[i - 1] in "\n[{,\ufeff":
        return True
    if i < start:                          # `- x`, `? x`, `key: x`, `&anchor x`
        if text[i - 1] in ":-?":
            return True
        k = text.rfind(" ", 0, i) + 1
        nl = text.rfind("\n", 0, i) + 1
        return text[max(k, nl)] == "&"
    return text[i - 1] == ":" and i >= 2 and text[i - 2] in "\"']}"   # `"key":x`


def _plain_occurrence(text: str, value: str) -> bool:
    """Whether `value` (no whitespace in it) may be written plain somewhere in `text`."""
    first = re.escape(value[0])
    pattern = re.compile(rf"{first}(?:(?<={_LB}{first})|(?<={_LBQ}{first})){re.escape(value[1:])}{_DELIM}")
    if text.startswith(value) and _whole_plain(text, 0, len(value)):
        return True
    return any(_whole_plain(text, m.start(), m.end()) for m in pattern.finditer(text))


def _aliases(text: str) -> int | None:
    """The number of alias-like tokens in `text`, or None when an anchor-like token repeats a
    name or an alias-like token names no anchor before it (SafeLoader refuses those)."""
    props = sorted((i, ch) for ch in "&*" for i in _occurrences(text, ch) if _node_start(text, i))
    anchors: set[str] = set()
    count = 0
    for i, ch in props:
        m = _NAME.match(text, i + 1)
        if m is None:        # not a property (libyaml accepted the text): inside a string
            continue
        if ch == "&":
            if m.group() in anchors:
                return None
            anchors.add(m.group())
        else:
            if m.group() not in anchors:
                return None
            count += 1
    return count


class _NotShown(Exception):
    """The fast path cannot show that its result is SafeLoader's."""


class _Check:
    """Walks yaml-rs's documents: counts their values and events, and collects what the text
    must then be checked for; raises _NotShown at the first doubt."""

    def __init__(self) -> None:
        self._good: set[str] = set()        # strings found to be strings to SafeLoader too
        self._good_keys: set[str] = set()   # keys found to be (kept apart: a small set is quick)
        self.ints = False
        self.nulls = False    # yaml-rs reads an alias inside its own anchor's node as null
        self.ambiguous: set[str] = set()    # strings to look for written plain in the text
        self.seen: set[str] = set()         # the strings above, once found
        self.floats: list[tuple[Any, Any, float]] = []   # (container, key, value): yaml-rs's floats

    def document(self, root: Any) -> tuple[int, int]:
        """(values the way `_sizes` counts them, libyaml events) of one document."""
        kind = type(root)
        if kind is not dict and kind is not list:
            if kind is float or not self.scalar(root):
                raise _NotShown
            return 1, 1
        first = limit = goyaml.RESOLVABLE_LEN
        good, string, floats, good_keys = self._good, self.string, self.floats, self._good_keys.issuperset
        ints = nulls = False
        containers = keys = children = 0
        stack = [root]
        pop, push = stack.pop, stack.append
        while stack:
            obj = pop()
            containers += 1
            children += len(obj)
            with_float = False
            if type(obj) is dict:
                keys += len(obj)
                if not good_keys(obj):
                    self.keys(obj)
                values = obj.values()
            else:
                values = obj
            for value in values:
                kind = type(value)
                if kind is str:
                    if (value[:1] in first and len(value) <= limit[value[:1]]
                            and value not in good and not string(value)):
                        raise _NotShown
                elif kind is dict or kind is list:
                    push(value)
                elif kind is int:
                    if not _INT_RANGE[0] <= value <= _INT_RANGE[1]:
                        raise _NotShown      # past 64 bits: go-yaml reads a float, or a string
                    ints = True
                elif value is None:
                    nulls = True
                elif kind is float:
                    with_float = True
                elif kind is not bool:
                    raise _NotShown          # a datetime, bytes ...: leave it to SafeLoader
            if with_float:
                pairs = obj.items() if type(obj) is dict else enumerate(obj)
                floats.extend((obj, k, v) for k, v in pairs if type(v) is float)
        self.ints |= ints
        self.nulls |= nulls
        scalars = children - (containers - 1)
        return containers + scalars, 2 * containers + keys + scalars

    def keys(self, obj: dict[Any, Any]) -> None:
        """Checks the keys of a mapping (`<<` is a merge key to go-yaml); remembers those that are
        strings to SafeLoader too."""
        if "<<" in obj:
            raise _NotShown
        for key in obj:
            if type(key) is not str or not self.string(key):
                raise _NotShown
        if len(self._good_keys) < 1_000:
            self._good_keys.update(key for key in obj if key in self._good
                                   or len(key) > goyaml.RESOLVABLE_LEN.get(key[:1], -1))

    def scalar(self, value: Any) -> bool:
        kind = type(value)
        if kind is str:
            return self.string(value)
        if kind is int:
            self.ints = True
            return _INT_RANGE[0] <= value <= _INT_RANGE[1]
        if value is None:
            self.nulls = True
        return kind is bool or value is None

    def string(self, value: str) -> bool:
        """Whether the string is what SafeLoader reads too (or may be, once the text is checked)."""
        if value in self.seen:
            return True
        if value.isdigit() and value.isascii():
            self._good.add(value)           # yaml-rs reads all digits as an int: this was quoted
            return True
        tag = goyaml.plain_tag(value)
        if tag == _STR or self._rs_types(value):
            self._good.add(value)           # a string either way, or quoted (yaml-rs types it plain)
            return True
        if any(c.isspace() for c in value):
            return False      # could be a folded plain scalar: not searchable in the text
        if tag != goyaml.FLOAT and len(self.ambiguous) < 16:
            self.ambiguous.add(value)   # `yes`, `y`, `0O17`: looked for in the text
        else:
            return False      # a float yaml-rs keeps a string (`1_0.5`)
        self.seen.add(value)
        return True

    def _rs_types(self, value: str) -> bool:
        got = _rs_plain(value)
        return got is None or type(got) in (bool, int, float)


# Where yaml-rs may read a float: a plain-looking number with a `.` or an exponent.
_FLOATISH = (re.compile(r"\.(?:(?<=[0-9_]\.)[0-9_]*|(?=[0-9_])[0-9_]+|(?:inf|Inf|INF|nan|NaN|NAN))"
                        rf"(?:[eE][-+]?[0-9_]+)?{_DELIM}"),
             re.compile(rf"e(?<=[0-9_.]e)[-+]?[0-9_]+{_DELIM}"), re.compile(rf"E(?<=[0-9_.]E)[-+]?[0-9_]+{_DELIM}"))
_FLOAT_CHARS = frozenset("0123456789_.eE+-")
_INF_NAN = tuple(f".{w}" for w in ("inf", "Inf", "INF", "nan", "NaN", "NAN"))
_TOKEN_END = frozenset(" \n\r[]{},:")
# A bounded cache (100,000 tokens, then no more entries): plain tokens recur across a snapshot.
_RS_PLAIN: dict[str, Any] = {}


def _rs_plain(token: str) -> Any:
    """What yaml-rs makes of `token` written plain (the token itself when it cannot read it)."""
    if token not in _RS_PLAIN:
        try:
            value = _yaml_rs.loads(token, parse_datetime=False)  # type: ignore[union-attr]
        except Exception:
            value = token
        if len(_RS_PLAIN) < 100_000:
            _RS_PLAIN[token] = value
        return value
    return _RS_PLAIN[token]


def _reference_plain(token: str) -> Any:
    """What SafeLoader makes of `token` written plain (raises what it raises: `.inf`)."""
    return goyaml.scalar(goyaml.plain(token)[0], token)


def _float_readings(text: str) -> dict[str, frozenset[tuple[type, Any]]] | None:
    """For each float yaml-rs reads from some plain-looking token of `text` (by its hex), what
    SafeLoader makes of those tokens; None when one is NaN or SafeLoader cannot read it (`.inf`)."""
    readings: dict[str, set[tuple[type, Any]]] = {}
    seen: set[int] = set()
    n = len(text)
    for regexp in _FLOATISH:
        for m in regexp.finditer(text):
            a = b = m.start()
            while a > 0 and text[a - 1] in _FLOAT_CHARS:
                a -= 1
            while b < n and text[b] in _FLOAT_CHARS:
                b += 1
            if text.startswith(_INF_NAN, b - 1):
                b += 3
            if (b < n and text[b] not in _TOKEN_END) or a in seen or not _whole_plain(text, a, b):
                continue
            seen.add(a)
            token = text[a:b]
            got = _rs_plain(token)
            if type(got) is not float:
                continue
            if got != got:
                return None         # NaN: equal to nothing, not worth the trouble
            try:
                value = _reference_plain(token)
            except Exception:
                return None
            readings.setdefault(got.hex(), set()).add((type(value), value))
    return {key: frozenset(found) for key, found in readings.items()}


def _fix_floats(readings: dict[str, frozenset[tuple[type, Any]]] | None,
                floats: list[tuple[Any, Any, float]]) -> bool:
    """Put SafeLoader's value in place of each yaml-rs float (`1e400` is a string to go-yaml); False when a
    float's tokens are not read alike."""
    if readings is None:
        return False
    for container, key, value in floats:
        if value != value:
            return False
        found = readings.get(value.hex())
        if found is None or len(found) != 1:
            return False
        kind, replacement = next(iter(found))
        if kind is not float or replacement != value:
            container[key] = replacement
    return True


def _allowed_aliased(values: int) -> float:
    """The most values aliases may add to a document of `values` that `excessive_aliasing` lets by."""
    if values <= 1000:
        return float("inf")
    return max(100, _allowed_alias_ratio(values) * values)


def _raw_event_count(text: str) -> int | None:
    """libyaml's event count for `text` as written; None when libyaml rejects it."""
    try:
        return _BaseLoader(text).raw_parse()
    except yaml.YAMLError:
        return None


@dataclass(frozen=True)
class _TextFacts:
    """What the fast path needs to know of the text alone (none of it from yaml-rs's result)."""

    events: int | None       # libyaml's events as written; None when libyaml rejects the text
    unsafe: bool             # _fast_unsafe_text
    risky_int: bool          # _risky_int
    floats: dict[str, frozenset[tuple[type, Any]]] | None   # _float_readings

    def encode(self) -> bytes:
        return pickle.dumps(self)

    @classmethod
    def decode(cls, data: bytes) -> "_TextFacts":
        facts = pickle.loads(data)    # our own child's answer, through a pipe only we hold
        if type(facts) is not cls:
            raise ValueError("not text facts")
        return facts


def _text_facts(text: str) -> _TextFacts:
    return _TextFacts(_raw_event_count(text), _fast_unsafe_text(text), _risky_int(text), _float_readings(text))


def _text_facts_aside(text: str) -> Callable[[], _TextFacts]:
    """`_text_facts` worked out in a forked child beside yaml-rs's parse (on the other core) where fork
    exists; the caller must call the returned function (it reaps the child)."""
    if not hasattr(os, "fork") or len(text) < FAST_MIN_CHARS:
        return lambda: _text_facts(text)
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return lambda: _text_facts(text)
    if pid == 0:                                       # the child: work out, answer, leave at once
        code = 0
        try:
            os.close(read_end)
            os.write(write_end, _text_facts(text).encode())
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(write_end)
    result: list[_TextFacts] = []

    def wait() -> _TextFacts:
        if not result:
            with os.fdopen(read_end, "rb") as answer:
                data = answer.read()
            os.waitpid(pid, 0)
            try:
                facts = _TextFacts.decode(data) if data else None
            except Exception:     # noqa: BLE001 - a cut-off answer: the child died midway
                facts = None
            result.append(facts if facts is not None else _text_facts(text))   # worked out here then
        return result[0]
    return wait


def fast_documents(text: str) -> list[Any] | None:
    """The documents of `text` exactly as SafeLoader would give them,
    read by yaml-rs; None when that is not shown (then read the text with SafeLoader)."""
    if _yaml_rs is None or not hasattr(_BaseLoader, "raw_parse"):
        return None
    if may_nest_deeper(text):      # before yaml-rs ever sees it: a parser's recursion has limits
        return None
    aliases = _aliases(text) if ("*" in text or "&" in text) else 0
    if aliases is None:
        return None
    facts = _text_facts_aside(text)
    try:
        docs = _fast_checked(text, aliases, facts)
    finally:
        facts()                                        # reaped, whatever happened (cached: no second pass)
    return docs


def _fast_checked(text: str, aliases: int, text_facts: Callable[[], _TextFacts]) -> list[Any] | None:
    try:
        result = _yaml_rs.loads(text, parse_datetime=False,
                                alias_limits=_yaml_rs.AliasLimits(max_total_replayed_events=_FAST_REPLAY_LIMIT + aliases),
                                duplicate_key_policy=_yaml_rs.DuplicateKeyPolicy.Error)
    except Exception:   # its errors are not ours; SafeLoader says what is wrong
        return None
    if type(result) is not dict and type(result) is not list:
        return None      # an empty text, or a scalar document: small, SafeLoader reads it
    check = _Check()
    try:
        if type(result) is dict:
            values, events = check.document(result)
            readings = [(4 + events, [result], [values])]          # stream, document, the mapping
        elif aliases:
            return None      # one list document, or several documents? the counts cannot tell
        else:
            per_doc = [check.document(doc) for doc in result]
            as_one = 6 + sum(e for _, e in per_doc)
            as_many = 2 + sum(2 + e for _, e in per_doc)
            readings = [(as_one, [result], [1 + sum(v for v, _ in per_doc)]),
                        (as_many, result, [v for v, _ in per_doc])]
    except _NotShown:
        return None
    if any(_plain_occurrence(text, value) for value in check.ambiguous):
        return None
    facts = text_facts()
    if facts.unsafe or (check.ints and facts.risky_int):
        return None
    if check.floats and not _fix_floats(facts.floats, check.floats):
        return None
    written = facts.events                           # libyaml's events, as written
    if written is None:
        return None
    if aliases:
        if check.nulls:
            return None   # maybe a recursive alias, which yaml-rs makes null and PyYAML a cycle
        expanded, docs, sizes = readings[0]
        # Each alias adds the events of its node less its own one, and a node has fewer values
        # than events (a collection: two events, one value): the events past those written
        # bound the values the aliases add.
        aliased = expanded - written
        if expanded < written or any(aliased > _allowed_aliased(size) for size in sizes):
            return None
    else:
        matching = [(docs, sizes) for expanded, docs, sizes in readings if expanded == written]
        if len(matching) != 1:
            return None
        docs, sizes = matching[0]
    if any(size > MAX_EXPANDED_NODES for size in sizes):
        return None
    return docs


# -- reading -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ParsedDocument:
    """One document of a text: its value (None when empty), its 1-based number (empty documents
    count), and when asked for, its composed node: where each of its values was written."""

    value: Any
    number: int
    node: yaml.Node | None = None

    @property
    def line(self) -> int | None:
        """The 1-based line the document starts on, when its node is known."""
        return self.node.start_mark.line + 1 if self.node is not None else None


class ReadError(InputError):
    """A text that cannot be read (past the documents before it): the error explain reports, with
    the document and line reading stopped at, for lint's findings."""

    def __init__(self, message: str, source: Source, *, document: int, line: int | None = None) -> None:
        super().__init__(message, source=source)
        self.document = document
        self.line = line


_JSON_STARTS = frozenset(b"{[")
_JSON_SPACE = re.compile(rb"[ \t\r\n]*")
_BOM = b"\xef\xbb\xbf"


def json_document(data: bytes) -> ParsedDocument | None:
    """The one document of a JSON text given as UTF-8 bytes (a dump), parsed without decoding it into a
    string first; None for anything `parse_documents` would read otherwise (then read the text)."""
    start = len(_BOM) if data.startswith(_BOM) else 0
    if len(data) - start >= json_list.MIN_CHARS:
        return None
    first = _JSON_SPACE.match(data, start).end()
    if first == len(data) or data[first] not in _JSON_STARTS:
        return None
    text = memoryview(data)[start:] if start else data
    dump = pod_lists.dump_list(text)      # (a dump: its stored, bound pods as views)
    if dump is not None:
        return ParsedDocument(dump, 1)
    try:
        return ParsedDocument(json_parse.decode_bytes(text), 1)
    except Exception:    # noqa: BLE001 - anything refused is the text's to read, with its errors
        return None


def parse_documents(text: str, source_path: str, *, nodes: bool = False) -> Iterator[ParsedDocument]:
    """Each document of a YAML (or JSON) text, read safely within the guards; an error ends the
    text (ReadError). `nodes`: give each document's composed node too (a JSON text has none).
    A text that starts with `{` is read as kubectl's YAMLOrJSONDecoder reads it (`_json_prefix`)."""
    after = 0                       # the JSON values read before the YAML (kubectl's decoder)
    json_error: ReadError | None = None
    if text.lstrip().startswith(("{", "[")):
        docs = _json_documents(text, source_path)
        if isinstance(docs, list):
            yield ParsedDocument(docs[0], 1)
            return
        json_error = _json_read_error(docs, source_path, 1)
        if text.lstrip().startswith("{"):
            prefix = _json_prefix(text, source_path)
            for i, value in enumerate(prefix.values, start=1):
                yield ParsedDocument(value, i, _json_value_node(text, prefix.end) if nodes and i == 1 else None)
            if prefix.error is None:        # `jq -c` output: values one by one
                return
            after, json_error = len(prefix.values), prefix.error
            if after > 1:                   # an unambiguous JSON stream: kubectl does not switch to YAML
                raise prefix.error
            if after:
                text = _yaml_rest(text, prefix.end)
    yield from _yaml_documents(text, source_path, nodes, after, json_error)


@dataclass(frozen=True)
class _JsonPrefix:
    """The JSON values at the start of a text, read one by one as kubectl's JSON decoder reads them, and
    where reading stopped: the end of the last, and the error of the next (None: the whole text was read)."""

    values: list[Any]
    end: int
    error: ReadError | None


def _json_prefix(text: str, source_path: str) -> _JsonPrefix:
    """YAMLOrJSONDecoder (k8s.io/apimachinery/pkg/util/yaml) on a text that starts with `{`: JSON values
    one after another, until one does not parse. Past two values the text is JSON and that error is the
    text's; before, kubectl reads the rest as YAML (`_yaml_rest`) and reports this error only if the first
    YAML document does not parse either (`_yaml_documents`)."""
    values: list[Any] = []
    end = 0
    pos = _WHITESPACE.match(text, 0).end()
    while pos < len(text):
        number = len(values) + 1
        where = Source(source_path, number) if values else Source(source_path)
        try:
            value, end = _STREAM_DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as err:
            return _JsonPrefix(values, end, _json_read_error(err, source_path, number, where))
        except RecursionError:
            return _JsonPrefix(values, end, ReadError("document is nested too deeply", where, document=number))
        except ValueError as err:   # e.g. an integer of more than 4,300 digits
            return _JsonPrefix(values, end, ReadError(f"invalid JSON: {_json_reason(err)}", where, document=number))
        values.append(value)
        pos = _WHITESPACE.match(text, end).end()
    return _JsonPrefix(values, end, None)


def _json_value_node(text: str, end: int) -> yaml.Node | None:
    """Where the values of the one JSON value before the YAML were written (its text composed as YAML, as
    the rest is): lint's lines; None when YAML does not read it."""
    loader = loader_class(text)(text[:end])
    try:
        return loader.get_single_node()
    except (yaml.YAMLError, RecursionError):
        return None
    finally:
        loader.dispose()


def _json_read_error(err: json.JSONDecodeError, source_path: str, number: int,
                     where: Source | None = None) -> ReadError:
    return ReadError(f"invalid JSON: line {err.lineno}, column {err.colno}: {err.msg}",
                     where or Source(source_path), document=number, line=err.lineno)


def _yaml_rest(text: str, end: int) -> str:
    """What kubectl's YAML decoder reads after the JSON values read (up to `end`): the rest, its whitespace
    eaten up to and including the first line break (`consumeWhitespace`), and blank lines in place of the
    lines before, so that lines in errors and nodes are the text's (a column on the first line is the rest's)."""
    rest = _BLANKS_TO_BREAK.match(text, end).end()
    return "\n" * text.count("\n", 0, rest) + text[rest:]


_BLANKS_TO_BREAK = re.compile(r"[ \t\r]*\n?")


def _yaml_documents(text: str, source_path: str, nodes: bool, after: int,
                    json_error: ReadError | None) -> Iterator[ParsedDocument]:
    """The YAML documents of `text`, numbered after the `after` JSON values read before them. When the first
    does not parse, the JSON decoder's error at it stands for a `.json` file (`json_error`); a later
    document's error is YAML's, as kubectl reports it. As kubectl's YAMLReader splits the text at `---`
    lines and decodes one document of each part (go-yaml reads the first and stops), what follows a
    whole document in its part (`{a: 1}` then `{a: 2}` on the next line) is not read (`_next_part`)."""
    if not nodes and not after and len(text) >= FAST_MIN_CHARS:
        fast = fast_documents(text)
        if fast is not None:
            for i, doc in enumerate(fast, start=1):
                yield ParsedDocument(doc, i)
            return
    number = after          # documents read whole: an error is in the next one
    part: int | None = 0    # where the text left to read starts
    while part is not None:
        reader = _YamlPart(text, part, number)
        yield from reader.documents(source_path, nodes, after, json_error)
        number, part = reader.number, reader.next_part


class _YamlPart:
    """The YAML documents of `text` from `start` (its lines kept: the text before is blank lines), one
    loader's; where the next part starts when a whole document is followed by more in its part."""

    def __init__(self, text: str, start: int, number: int) -> None:
        self.text, self.start, self.number = text, start, number
        self.next_part: int | None = None

    def documents(self, source_path: str, nodes: bool, after: int,
                  json_error: ReadError | None) -> Iterator[ParsedDocument]:
        text, base = self.text, self.number
        part = "\n" * text.count("\n", 0, self.start) + text[self.start:] if self.start else text
        may_alias = "*" in part
        loader = loader_class(part)(part)
        try:
            while self._more(loader, base):
                node = loader.get_node()
                value = _construct(loader, node)
                self.number += 1
                if may_alias and isinstance(value, (dict, list)):
                    problem = excessive_aliasing(value)
                    if problem:
                        raise ReadError(problem, Source(source_path, self.number), document=self.number)
                yield ParsedDocument(value, self.number, node if nodes else None)
        except NestingError as err:
            mark = err.problem_mark
            document = base + err.document
            raise ReadError(f"{err.problem} (line {mark.line + 1}, column {mark.column + 1}); refusing to read it",
                            Source(source_path, document), document=document, line=mark.line + 1) from None
        except yaml.YAMLError as err:
            number = self.number
            if json_error is not None and number == after and (after or source_path.endswith(".json")):
                raise json_error from None
            mark = getattr(err, "problem_mark", None)
            where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
            problem = getattr(err, "problem", None) or str(err).splitlines()[0]
            raise ReadError(f"invalid YAML: {where}{clip(problem, 300)}{template_hint(text)}",
                            Source(source_path), document=number + 1,
                            line=mark.line + 1 if mark is not None else None) from None
        except RecursionError:
            raise ReadError("document is nested too deeply", Source(source_path), document=self.number + 1) from None
        finally:
            loader.dispose()

    def _more(self, loader: Any, base: int) -> bool:
        """Whether another document starts; False, with `next_part` set, when what follows the last
        document read is no new document (no `---`): go-yaml never reads it, the next part is."""
        try:
            return bool(loader.check_node())
        except yaml.MarkedYAMLError as err:
            if self.number == base or err.problem_mark is None or isinstance(err, NestingError):
                raise
            self.next_part = _next_part(self.text, err.problem_mark.line)
            return False


# a line kubectl's YAMLReader splits documents at: `---`, then nothing but blanks or a comment
_SEPARATOR = re.compile(r"^---[ \t\r\f\v]*(?:#[^\n]*)?$", re.M)


def _next_part(text: str, line: int) -> int | None:
    """Where the next part of `text` starts: its first separator line after line `line` (0-based);
    None when there is none."""
    at = 0
    for _ in range(line):
        at = text.find("\n", at) + 1
        if at == 0:
            return None
    found = _SEPARATOR.search(text, at)
    return found.start() if found is not None else None


def template_hint(text: str) -> str:
    """What to say of a text that fails to parse and holds `{{`: a template is no manifest until rendered."""
    at = text.find("{{")
    if at < 0:
        return ""
    line = text.count("\n", 0, at) + 1
    return (f" (line {line} holds `{{{{`: a template, a Helm chart's or a placeholder to fill in, not a "
            "manifest; render it first: `helm template CHART | kexplain -`)")


_STREAM_DECODER = json.JSONDecoder()
_WHITESPACE = re.compile(r"[ \t\n\r]*")


def _json_documents(text: str, source_path: str) -> list[Any] | json.JSONDecodeError:
    """The one JSON document of `text` (a large List read in parts), or the JSON error (then read as YAML,
    the error reported for a `.json` file)."""
    listed = json_list.read_list(text)
    if listed is not None:
        return [listed]
    try:
        return [json_parse.loads(text)]
    except json.JSONDecodeError as err:
        return err
    except RecursionError:
        raise ReadError("document is nested too deeply", Source(source_path, 1), document=1) from None
    except ValueError as err:   # e.g. an integer of more than 4,300 digits
        raise ReadError(f"invalid JSON: {_json_reason(err)}", Source(source_path, 1), document=1) from None
