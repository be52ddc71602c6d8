"""Go's regexp for CEL's `matches`, `find` and `findAll`: parsed with Go's grammar (regexp_syntax.py),
matched by google-re2 with Go's options (leftmost-first, Perl syntax, no dot_nl, UTF-8), because a
selector is untrusted input and Python's `re` backtracks where Go and RE2 run in linear time. `findAll`
follows Go's FindAllString. The measurements behind the choice: docs/internals/cel.md.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import re2 as google_re2

from kexplain.cel.library.regexp_syntax import RegexError, RegexUnsupported, translate

__all__ = ["Program", "RegexError", "RegexUnsupported", "compile_regex", "find", "find_all", "has_match"]

MAX_MEM = 8 << 20       # RE2's default budget for one program and its DFAs (see the docstring)

_SURROGATES = re.compile("[\ud800-\udfff]")


def _options() -> Any:
    opts = google_re2.Options()
    opts.max_mem = MAX_MEM
    opts.log_errors = False          # RE2 would print refusals on stderr
    opts.never_capture = True
    opts.longest_match = False
    opts.posix_syntax = False
    opts.dot_nl = False
    opts.never_nl = False
    opts.case_sensitive = True
    opts.encoding = google_re2.Options.Encoding.UTF8
    return opts


_OPTIONS = _options()


@dataclass(frozen=True, slots=True)
class Program:
    """A compiled pattern: the source, its RE2 form, and RE2's compiled regexp."""

    pattern: str
    re2_pattern: str
    regexp: Any


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATES.sub("\ufffd", text).encode("utf-8")


@lru_cache(maxsize=256)   # bounded: regexes of the selectors being explained
def compile_regex(pattern: str) -> Program:
    """Parse `pattern` with Go's syntax and compile it, or raise RegexError / RegexUnsupported."""
    translated = translate(_SURROGATES.sub("\ufffd", pattern))
    try:
        regexp = google_re2.compile(translated, _OPTIONS)
    except google_re2.error as err:   # past MAX_MEM, which Go's smaller programs do not reach
        raise RegexUnsupported(f"a regular expression this large ({_message(err)})") from None
    return Program(pattern, translated, regexp)


def _message(err: Exception) -> str:
    arg = err.args[0] if err.args else ""
    return arg.decode("utf-8", "replace") if isinstance(arg, bytes) else str(arg)


def has_match(prog: Program, text: str) -> bool:
    """Whether `prog` matches anywhere in `text` (Go's MatchString)."""
    return prog.regexp.search(_utf8(text)) is not None


def find(prog: Program, text: str) -> str | None:
    """The leftmost-first match (Go's FindString), None when there is none."""
    data = _utf8(text)
    m = prog.regexp.search(data)
    return None if m is None else data[m.start():m.end()].decode("utf-8")


def _width(data: bytes, pos: int) -> int:
    """The length of the UTF-8 sequence at data[pos]."""
    lead = data[pos]
    return 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4


def find_all(prog: Program, text: str, limit: int) -> list[str]:
    """Go's FindAllString(text, limit): all when limit < 0."""
    out: list[str] = []
    if limit == 0:
        return out
    data = _utf8(text)
    search = prog.regexp.search
    end = len(data)
    pos, prev_end = 0, -1
    while pos <= end:
        m = search(data, pos)
        if m is None:
            break
        b, e = m.start(), m.end()
        accept = True
        if e == pos:                    # an empty match where the search began
            accept = b != prev_end      # none right after the previous match
            pos = pos + _width(data, pos) if pos < end else end + 1
        else:
            pos = e
        prev_end = e
        if accept:
            out.append(data[b:e].decode("utf-8"))
            if 0 < limit <= len(out):
                break
    return out
