"""Go's regexp for CEL's `matches`, `find` and `findAll`: parsed with Go's grammar
(regexp_syntax.py), matched by google-re2, RE2's own C++ engine.

A selector is untrusted input: Python's `re` backtracks (`(a+)+$` on 64 characters never
returns), Go's engine and RE2 run in time linear in the text. Go's semantics on RE2: options
leftmost-first (longest_match off), Perl syntax (posix_syntax off: `^`/`$` at the ends of the
text unless `(?m)`, `[^a]` matches a newline), `.` not matching `\\n` (dot_nl off), UTF-8 text
(`.` is one code point, `\\b \\d \\s \\w` ASCII), no captures. Texts are matched as UTF-8 bytes; a
lone surrogate (which Go's JSON decoding would have turned into U+FFFD) is U+FFFD here too.
`findAll` follows Go's FindAllString: an empty match right after the previous match is skipped,
and the search then moves on by one code point.

Why google-re2 and not the Pike VM / lazy DFA in Python this module held before (743 lines),
measured with benchmarks/regex_bench.py (CPython 3.11.7, x86_64, 2 shared cores), per match of
a compiled pattern:
- the CEL cases (tests/cel and the DRA conformance selectors `^(A100|H100|H200)$`, `A100|H100`,
  `^H[0-9]+$` on device models): Python 1.7-8.9 µs, google-re2 2.1-5.7 µs (the binding's cost
  per call dominates strings this short); the 10,000-character text of tests/cel: Python 6.4 ms,
  google-re2 5 µs. Compiling, once per pattern (cached): Python 34-123 µs, google-re2 137-352 µs
  (Go's grammar here, then RE2's compiler);
- a ReDoS corpus ((a+)+$, (a|aa)+$, (a|a)*b, (.*a){20}, (x+x+)+y, ^(\\w+\\s?)*$ and an e-mail
  pattern on 1,000 to 100,000 characters that almost match): both linear, Python 440-1,070
  ns/char (45-107 ms for 100,000 characters), google-re2 2-9 ns/char (0.01-0.53 ms; RE2 settles
  end-anchored ones like (a+)+$ from the end);
- verdicts: the same on every case above, on tests/cel, and on 9,000 random ASCII patterns
  compared with Python's re (leftmost-first, as tests/cel/test_re2.py keeps checking); parsing
  with Go's grammar also fixed what the old parser got wrong (`\\Qab\\E+` repeated "ab",
  `a{01}` was a count, `(?i)s` missed "ſ", Unicode 14 tables, no scripts, nested counts and
  depth unchecked, a recursion error past ~250 nested groups).
The price: RE2 compiles to UTF-8 byte automata, where a Unicode class costs some 1,200
instructions (one in Go). `[\\pL]{400}` takes 0.7 s and 90 MB to compile, and `[\\pL]{1000}`
(valid in Go) passes MAX_MEM and is refused as unsupported; the Python engine compiled it in
9 ms and matched 5,000 characters in 0.8 s. google-re2 installs as a manylinux wheel (CPython
3.11-3.14, x86_64 and aarch64, needing only libstdc++ at run time): no compiler.
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
