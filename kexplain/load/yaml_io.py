"""Safe, bounded parsing of YAML and JSON text.

Only safe loading (the C loader when PyYAML has it). Inputs over a size limit are
refused before parsing, and documents whose aliases would expand past a node limit
(a "billion laughs" bomb) are refused after parsing without ever expanding them.
Documents nested deeper than MAX_DEPTH are refused before the C loader composes them
(its composer recurses once per level and would overflow the C stack at some tens of
thousands: a segfault) by SafeLoader itself, so that every reader using it is safe; and a
value YAML's own constructors cannot build (`2024-13-45`, an integer of more than 4,300
digits, `!!int abc`) is a YAML error with its line, not a crash.
"""
from __future__ import annotations

import json
import re
from typing import Any, Iterator

import yaml
from yaml.constructor import ConstructorError

from ..errors import InputError, Source, clip

try:  # pragma: no cover - depends on how PyYAML was built
    _BaseLoader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _BaseLoader = yaml.SafeLoader

DEFAULT_MAX_BYTES = 1 << 30          # 1 GiB: a 5,000-node snapshot is about 90 MB
MAX_EXPANDED_NODES = 20_000_000      # after alias expansion, per document
MAX_DEPTH = 5_000                    # nesting levels per document (real manifests: under 30)

# A block collection nested in another starts at least one column further right every second
# level, and its column is made of the line's indentation and indicators (`- `, `? `, `: `):
# without such a prefix of MAX_DEPTH // 4 characters, block nesting stays under MAX_DEPTH // 2.
# (`\n` first, not `^` with MULTILINE: a literal start lets the regex engine skip ahead fast.)
_PREFIX_CHARS = "[ \t?:-]"
_OTHER_BREAKS = ("\x85", "\u2028", "\u2029")   # line breaks to libyaml besides \n and \r
_LONE_CR = re.compile("\r(?!\n)")


def _safe_scalar(construct: Any) -> Any:
    """A scalar constructor whose failure (ValueError, KeyError, ...) is a ConstructorError
    that names the value and its line, instead of an exception from inside PyYAML."""
    def wrapped(loader: Any, node: Any) -> Any:
        try:
            return construct(loader, node)
        except yaml.YAMLError:
            raise
        except Exception as err:   # ValueError, IndexError (`!!int ""`), KeyError (`!!bool x`), ...
            value = node.value if isinstance(node.value, str) else ""
            raise ConstructorError(None, None, f"cannot read the value {clip(value, 40)!r}: "
                                   f"{_reason(err, node.tag)}", node.start_mark) from None
    return wrapped


def _reason(err: Exception, tag: str) -> str:
    """Why a scalar could not be built, in words (a date's own check says it best)."""
    text = str(err)
    if "Exceeds the limit" in text:   # Python's int() guard
        return "a number of more than 4,300 digits"
    if isinstance(err, ValueError) and not text.startswith(("invalid literal", "could not convert")):
        return text.split(";")[0]
    return f"not a valid {tag.rsplit(':', 1)[-1]}"


class NestingError(yaml.MarkedYAMLError):
    """A document nested deeper than MAX_DEPTH: refused before the C loader composes it."""

    def __init__(self, depth: int, document: int, mark: Any) -> None:
        super().__init__(problem=f"nested more than {depth:,} levels deep", problem_mark=mark)
        self.document = document


class SafeLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """The safe loader: scalar constructors that fail as YAML errors, and a text nested deeper
    than MAX_DEPTH refused (NestingError) before parsing, for every reader that uses it."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
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
        return super().check_data()

    def check_node(self) -> bool:
        self._check_nesting()
        return super().check_node()

    def check_event(self, *choices: Any) -> bool:
        self._check_nesting()
        return super().check_event(*choices)

    def get_single_data(self) -> Any:
        self._check_nesting()
        return super().get_single_data()

    def get_single_node(self) -> Any:
        self._check_nesting()
        return super().get_single_node()


for _tag in ("int", "float", "bool", "timestamp", "binary", "null"):
    _full = f"tag:yaml.org,2002:{_tag}"
    SafeLoader.add_constructor(_full, _safe_scalar(_BaseLoader.yaml_constructors[_full]))


def expanded_size(root: Any, limit: int) -> int:
    """Number of values the document would have with every alias expanded, computed over
    shared objects once (so a bomb is measured, not expanded); stops past `limit`."""
    return _sizes(root, limit)[0]


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
    """Why `doc` is refused as an alias bomb (None when it is not): more values than
    MAX_EXPANDED_NODES once its aliases are expanded, or, as go-yaml judges it, too large a
    share of its values coming from aliases."""
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
    flow = text.count("[") + text.count("{") - text.count("[]") - text.count("{}") + 1
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


def _yaml_error(err: yaml.YAMLError, source_path: str) -> InputError:
    mark = getattr(err, "problem_mark", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    problem = getattr(err, "problem", None) or str(err).splitlines()[0]
    return InputError(f"invalid YAML: {where}{clip(problem, 300)}", source=Source(source_path))


def _json_documents(text: str, source_path: str) -> list[Any] | json.JSONDecodeError:
    """The one JSON document of `text`, or the JSON error when it is not JSON (then it is read
    as YAML, which JSON is a subset of, and the JSON error is reported for a `.json` file)."""
    try:
        return [json.loads(text)]
    except json.JSONDecodeError as err:
        return err
    except RecursionError:
        raise InputError("document is nested too deeply", source=Source(source_path, 1)) from None
    except ValueError as err:   # e.g. an integer of more than 4,300 digits
        raise InputError(f"invalid JSON: {_reason(err, 'number')}", source=Source(source_path, 1)) from None


def parse_documents(text: str, source_path: str) -> Iterator[tuple[Any, Source]]:
    """Each document of a YAML (or JSON) text with its 1-based document number."""
    stripped = text.lstrip()
    json_error: json.JSONDecodeError | None = None
    if stripped.startswith(("{", "[")):
        docs = _json_documents(text, source_path)
        if isinstance(docs, list):
            yield docs[0], Source(source_path, 1)
            return
        json_error = docs
    may_alias = "*" in text
    try:
        for i, doc in enumerate(yaml.load_all(text, Loader=SafeLoader), start=1):
            if may_alias and isinstance(doc, (dict, list)):
                problem = excessive_aliasing(doc)
                if problem:
                    raise InputError(problem, source=Source(source_path, i))
            yield doc, Source(source_path, i)
    except NestingError as err:
        mark = err.problem_mark
        raise InputError(f"{err.problem} (line {mark.line + 1}, column {mark.column + 1}); refusing to read it",
                         source=Source(source_path, err.document)) from None
    except yaml.YAMLError as err:
        if json_error is not None and source_path.endswith(".json"):
            raise InputError(f"invalid JSON: line {json_error.lineno}, column {json_error.colno}: "
                             f"{json_error.msg}", source=Source(source_path)) from None
        raise _yaml_error(err, source_path) from None
    except RecursionError:
        raise InputError("document is nested too deeply", source=Source(source_path)) from None
