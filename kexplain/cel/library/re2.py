"""RE2 regular expressions (Go's regexp, as `matches`, `find` and `findAll` use them) on a
linear-time Pike VM.

Python's `re` backtracks: `(a+)+$` against 64 characters would never return, while Go's
engine runs in time linear in the input. A selector is untrusted input to kexplain, so the
matching here is Go's semantics on Go's algorithm: leftmost-first matches, `$` only at the end
of text unless `(?m)`, ASCII `\\d \\w \\s \\b`, no backreferences or lookaround (Go refuses
them, and so does this parser, with Go's messages: `error parsing regexp: invalid escape
sequence: `\\1``).

Not supported (CelUnsupported is raised so the caller can say so): Unicode script classes
such as `\\p{Greek}`; general categories (`\\pL`, `\\p{Lu}`) are supported.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache

MAX_REPEAT = 1000
MAX_NESTING = 1000
MAX_PROG = 200_000

_CATEGORIES = {"C", "Cc", "Cf", "Co", "Cs", "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me",
               "Mn", "N", "Nd", "Nl", "No", "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "S",
               "Sc", "Sk", "Sm", "So", "Z", "Zl", "Zp", "Zs"}
_PERL = {
    "d": [(0x30, 0x39)],
    "s": [(0x09, 0x0A), (0x0C, 0x0D), (0x20, 0x20)],
    "w": [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)],
}
_POSIX = {
    "alnum": [(0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)],
    "alpha": [(0x41, 0x5A), (0x61, 0x7A)],
    "ascii": [(0x00, 0x7F)],
    "blank": [(0x09, 0x09), (0x20, 0x20)],
    "cntrl": [(0x00, 0x1F), (0x7F, 0x7F)],
    "digit": [(0x30, 0x39)],
    "graph": [(0x21, 0x7E)],
    "lower": [(0x61, 0x7A)],
    "print": [(0x20, 0x7E)],
    "punct": [(0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)],
    "space": [(0x09, 0x0D), (0x20, 0x20)],
    "upper": [(0x41, 0x5A)],
    "word": [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)],
    "xdigit": [(0x30, 0x39), (0x41, 0x46), (0x61, 0x66)],
}
_WORD = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")


class RegexError(ValueError):
    """Go's `*syntax.Error`: `error parsing regexp: <code>: `<expr>``."""

    def __init__(self, code: str, expr: str) -> None:
        super().__init__(f"error parsing regexp: {code}: `{expr}`")


class RegexUnsupported(ValueError):
    """Valid RE2 that kexplain's engine does not implement."""


@dataclass(frozen=True, slots=True)
class CharClass:
    ranges: tuple[tuple[int, int], ...]
    cats: frozenset[str] = frozenset()       # Unicode general categories (prefix match)
    negate: bool = False
    fold: bool = False

    def match(self, c: str) -> bool:
        hit = self._hit(c)
        if not hit and self.fold:
            lo, up = c.lower(), c.upper()
            hit = (len(lo) == 1 and lo != c and self._hit(lo)) or (len(up) == 1 and up != c and self._hit(up))
        return hit != self.negate

    def _hit(self, c: str) -> bool:
        o = ord(c)
        for lo, hi in self.ranges:
            if lo <= o <= hi:
                return True
        if self.cats:
            cat = unicodedata.category(c)
            return cat in self.cats or cat[0] in self.cats
        return False


# Program instructions: (op, a, b)
CHAR, ANY, ANYNL, SPLIT, JMP, MATCH, SAVE, ASSERT = range(8)


class _Parser:
    def __init__(self, pattern: str) -> None:
        self.p = pattern
        self.i = 0
        self.depth = 0

    def error(self, code: str, expr: str) -> RegexError:
        return RegexError(code, expr)

    def parse(self):
        node = self.alternation({"i": False, "m": False, "s": False, "U": False})
        if self.i < len(self.p):
            # Only an unmatched ')' can stop the top level early.
            raise self.error("unexpected )", self.p)
        return node

    def alternation(self, flags):
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise self.error("expression nests too deeply", self.p)
        branches = [self.concat(flags)]
        while self.i < len(self.p) and self.p[self.i] == "|":
            self.i += 1
            branches.append(self.concat(flags))
        self.depth -= 1
        return branches[0] if len(branches) == 1 else ("alt", branches)

    def concat(self, flags):
        items: list = []
        p = self.p
        last_was_repeat = False
        while self.i < len(p) and p[self.i] not in "|)":
            c = p[self.i]
            if c in "*+?{":
                rep = self.repeat_op()
                if rep is None:   # a '{' that is not a repeat is a literal
                    items.append(("char", CharClass(((ord("{"), ord("{")),), fold=flags["i"])))
                    self.i += 1
                    last_was_repeat = False
                    continue
                lo, hi, greedy, text = rep
                if not items:
                    raise self.error("missing argument to repetition operator", text)
                if items[-1][0] == "rep" and last_was_repeat:
                    raise self.error("invalid nested repetition operator", items[-1][5] + text)
                last_was_repeat = True
                if flags["U"]:
                    greedy = not greedy
                items[-1] = ("rep", items[-1], lo, hi, greedy, text)
                continue
            items.append(self.atom(flags))
            last_was_repeat = False
        return ("cat", items)

    def repeat_op(self):
        p, start = self.p, self.i
        c = p[start]
        if c == "{":
            j = start + 1
            k = j
            while k < len(p) and p[k].isdigit():
                k += 1
            if k == j:
                return None
            lo = int(p[j:k])
            hi: int | None = lo
            if k < len(p) and p[k] == ",":
                k += 1
                m = k
                while k < len(p) and p[k].isdigit():
                    k += 1
                hi = int(p[m:k]) if k > m else None
            if k >= len(p) or p[k] != "}":
                return None
            k += 1
            text_end = k
            greedy = True
            if k < len(p) and p[k] == "?":
                greedy = False
                k += 1
            text = p[start:k]
            if lo > MAX_REPEAT or (hi is not None and (hi > MAX_REPEAT or hi < lo)):
                raise self.error("invalid repeat count", p[start:text_end])
            self.i = k
            return lo, hi, greedy, text
        self.i = start + 1
        lo, hi = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
        greedy = True
        if self.i < len(p) and p[self.i] == "?":
            greedy = False
            self.i += 1
        return lo, hi, greedy, p[start:self.i]

    def atom(self, flags):
        p = self.p
        c = p[self.i]
        if c == "(":
            return self.group(flags)
        if c == "[":
            return ("char", self.char_class(flags))
        if c == ".":
            self.i += 1
            return ("any", flags["s"])
        if c == "^":
            self.i += 1
            return ("assert", "bol" if flags["m"] else "bot")
        if c == "$":
            self.i += 1
            return ("assert", "eol" if flags["m"] else "eot")
        if c == "\\":
            return self.escape(flags)
        self.i += 1
        return ("char", _lit(c, flags["i"]))

    def group(self, flags):
        p = self.p
        start = self.i
        self.i += 1
        capture = True
        if p.startswith("?", self.i):
            if p.startswith("?P<", self.i) or p.startswith("?<", self.i):
                j = self.i + (3 if p[self.i + 1] == "P" else 2)
                k = p.find(">", j)
                name = p[j:k] if k >= 0 else ""
                if k < 0 or not name or not all(ch.isalnum() or ch == "_" for ch in name):
                    end = k + 1 if k >= 0 else len(p)
                    raise self.error("invalid named capture", p[start:end])
                self.i = k + 1
            else:
                # Flags: (?flags) or (?flags:re)
                j = self.i + 1
                new = dict(flags)
                neg = False
                seen = False
                while j < len(p) and p[j] not in ":)":
                    ch = p[j]
                    if ch == "-":
                        if neg:
                            raise self.error("invalid or unsupported Perl syntax", p[start:j + 1])
                        neg = True
                        seen = False
                    elif ch in "imsU":
                        new[ch] = not neg
                        seen = True
                    else:
                        raise self.error("invalid or unsupported Perl syntax", p[start:j + 1])
                    j += 1
                if j >= len(p) or (neg and not seen):
                    raise self.error("invalid or unsupported Perl syntax", p[start:j + 1 if j < len(p) else j])
                if p[j] == ")":
                    self.i = j + 1
                    flags.update(new)
                    return ("cat", [])
                self.i = j + 1
                node = self.alternation(new)
                if self.i >= len(p) or p[self.i] != ")":
                    raise self.error("missing closing )", p)
                self.i += 1
                return ("group", node, False)
        node = self.alternation(dict(flags))
        if self.i >= len(p) or p[self.i] != ")":
            raise self.error("missing closing )", p)
        self.i += 1
        return ("group", node, capture)

    def escape(self, flags, in_class: bool = False):
        p = self.p
        start = self.i
        if self.i + 1 >= len(p):
            raise self.error("trailing backslash at end of expression", "")
        c = p[self.i + 1]
        self.i += 2
        if c in "01234567":
            # A lone non-zero digit would be a backreference, which RE2 refuses.
            if c != "0" and not (self.i < len(p) and p[self.i] in "01234567"):
                raise self.error("invalid escape sequence", p[start:self.i])
            j = self.i
            while j < len(p) and j < self.i + 2 and p[j] in "01234567":
                j += 1
            v = int(p[self.i - 1:j], 8)
            self.i = j
            return ("char", _lit(chr(v), flags["i"]))
        if c == "x":
            if self.i < len(p) and p[self.i] == "{":
                k = p.find("}", self.i)
                digits = p[self.i + 1:k] if k >= 0 else ""
                if k < 0 or not digits or any(d not in "0123456789abcdefABCDEF" for d in digits) \
                        or int(digits, 16) > 0x10FFFF:
                    raise self.error("invalid escape sequence", p[start:(k + 1 if k >= 0 else len(p))])
                self.i = k + 1
                return ("char", _lit(chr(int(digits, 16)), flags["i"]))
            digits = p[self.i:self.i + 2]
            if len(digits) < 2 or any(d not in "0123456789abcdefABCDEF" for d in digits):
                raise self.error("invalid escape sequence", p[start:self.i + len(digits)])
            self.i += 2
            return ("char", _lit(chr(int(digits, 16)), flags["i"]))
        simple = {"a": "\a", "f": "\f", "t": "\t", "n": "\n", "r": "\r", "v": "\v"}
        if c in simple:
            return ("char", _lit(simple[c], flags["i"]))
        if c in "dswDSW":
            cls = CharClass(tuple(_PERL[c.lower()]), negate=c.isupper())
            return ("char", cls)
        if c in "pP":
            return ("char", self.unicode_class(c == "P", start))
        if not in_class:
            if c == "A":
                return ("assert", "bot")
            if c == "z":
                return ("assert", "eot")
            if c == "b":
                return ("assert", "word")
            if c == "B":
                return ("assert", "nonword")
            if c == "Q":
                k = p.find("\\E", self.i)
                text = p[self.i:] if k < 0 else p[self.i:k]
                self.i = len(p) if k < 0 else k + 2
                return ("cat", [("char", _lit(ch, flags["i"])) for ch in text])
        if c.isascii() and not c.isalnum():
            return ("char", _lit(c, flags["i"]))
        raise self.error("invalid escape sequence", p[start:self.i])

    def unicode_class(self, negate: bool, start: int) -> CharClass:
        p = self.p
        if self.i < len(p) and p[self.i] == "{":
            k = p.find("}", self.i)
            if k < 0:
                raise self.error("invalid character class range", p[start:])
            name = p[self.i + 1:k]
            self.i = k + 1
        elif self.i < len(p):
            name = p[self.i]
            self.i += 1
        else:
            raise self.error("invalid character class range", p[start:])
        if name.startswith("^"):
            negate = not negate
            name = name[1:]
        if name == "Any":
            return CharClass(((0, 0x10FFFF),), negate=negate)
        if name in _CATEGORIES:
            return CharClass((), frozenset({name}), negate=negate)
        if name and name[0].isupper() and name.isalpha():
            raise RegexUnsupported(f"the Unicode class \\p{{{name}}}")
        raise self.error("invalid character class range", p[start:self.i])

    def char_class(self, flags) -> CharClass:
        p = self.p
        start = self.i
        self.i += 1
        negate = False
        if self.i < len(p) and p[self.i] == "^":
            negate = True
            self.i += 1
        ranges: list[tuple[int, int]] = []
        cats: set[str] = set()
        subs: list[CharClass] = []
        first = True
        while True:
            if self.i >= len(p):
                raise self.error("missing closing ]", p[start:])
            c = p[self.i]
            if c == "]" and not first:
                self.i += 1
                break
            first = False
            if c == "[" and p.startswith("[:", self.i):
                k = p.find(":]", self.i + 2)
                if k >= 0:
                    name = p[self.i + 2:k]
                    neg = name.startswith("^")
                    base = name[1:] if neg else name
                    if base not in _POSIX:
                        raise self.error("invalid character class range", p[self.i:k + 2])
                    self.i = k + 2
                    if neg:
                        subs.append(CharClass(tuple(_POSIX[base]), negate=True))
                    else:
                        ranges += _POSIX[base]
                    continue
            lo_start = self.i
            lo = self._class_char(flags, subs, cats)
            if lo is None:
                continue
            if self.i + 1 < len(p) and p[self.i] == "-" and p[self.i + 1] != "]":
                self.i += 1
                hi = self._class_char(flags, subs, cats)
                if hi is None or hi < lo:
                    raise self.error("invalid character class range", p[lo_start:self.i])
                ranges.append((lo, hi))
            else:
                ranges.append((lo, lo))
        cls = CharClass(tuple(ranges), frozenset(cats), fold=flags["i"])
        if subs:
            return _Union(cls, tuple(subs), negate)
        return CharClass(cls.ranges, cls.cats, negate, flags["i"])

    def _class_char(self, flags, subs, cats) -> int | None:
        p = self.p
        c = p[self.i]
        if c != "\\":
            self.i += 1
            return ord(c)
        node = self.escape(flags, in_class=True)
        if node[0] == "char":
            cls = node[1]
            if len(cls.ranges) == 1 and cls.ranges[0][0] == cls.ranges[0][1] and not cls.cats and not cls.negate:
                return cls.ranges[0][0]
            subs.append(CharClass(cls.ranges, cls.cats, cls.negate))
            return None
        raise self.error("invalid escape sequence", p)


@dataclass(frozen=True, slots=True)
class _Union:
    """A class with negated members inside (`[\\D]`, `[[:^alpha:]x]`)."""

    base: CharClass
    subs: tuple[CharClass, ...]
    negate: bool

    def match(self, c: str) -> bool:
        hit = self.base.match(c) or any(s.match(c) for s in self.subs)
        return hit != self.negate


def _lit(c: str, fold: bool) -> CharClass:
    return CharClass(((ord(c), ord(c)),), fold=fold and c.lower() != c.upper())


class Program:
    """A compiled pattern: the NFA program, and the DFA built from it on demand."""

    __slots__ = ("code", "_dfa")

    def __init__(self, code: tuple[tuple, ...]) -> None:
        self.code = code
        self._dfa: _Dfa | None = None

    def dfa(self) -> "_Dfa":
        if self._dfa is None or len(self._dfa.sets) > _MAX_STATES:
            self._dfa = _Dfa(self)   # a pathological pattern starts over rather than grow
        return self._dfa


def _compile(node) -> Program:
    code: list[list] = []

    def emit(op, a=None, b=None) -> int:
        code.append([op, a, b])
        if len(code) > MAX_PROG:
            raise RegexUnsupported("a regular expression this large")
        return len(code) - 1

    def gen(n) -> None:
        kind = n[0]
        if kind == "char":
            emit(CHAR, n[1])
        elif kind == "any":
            emit(ANY if n[1] else ANYNL)
        elif kind == "assert":
            emit(ASSERT, n[1])
        elif kind == "cat":
            for x in n[1]:
                gen(x)
        elif kind == "group":
            gen(n[1])
        elif kind == "alt":
            branches = n[1]
            jumps = []
            for idx, br in enumerate(branches):
                if idx < len(branches) - 1:
                    split = emit(SPLIT)
                    code[split][1] = len(code)
                    gen(br)
                    jumps.append(emit(JMP))
                    code[split][2] = len(code)
                else:
                    gen(br)
            for j in jumps:
                code[j][1] = len(code)
        elif kind == "rep":
            _, sub, lo, hi, greedy, _text = n
            for _ in range(lo):
                gen(sub)
            if hi is None:
                split = emit(SPLIT)
                body = len(code)
                gen(sub)
                emit(JMP, split)
                after = len(code)
                code[split][1:] = [body, after] if greedy else [after, body]
            else:
                splits = []
                for _ in range(hi - lo):
                    split = emit(SPLIT)
                    splits.append(split)
                    body = len(code)
                    gen(sub)
                    code[split][1] = body   # placeholder, fixed below
                after = len(code)
                for s in splits:
                    body = s + 1
                    code[s][1:] = [body, after] if greedy else [after, body]
        else:  # pragma: no cover - parser produces only the kinds above
            raise AssertionError(kind)

    emit(SAVE, 0)
    gen(node)
    emit(SAVE, 1)
    emit(MATCH)
    return Program(tuple(tuple(x) for x in code))


@lru_cache(maxsize=256)   # bounded: regexes of the selectors being explained
def compile_regex(pattern: str) -> Program:
    """Parse and compile `pattern` with Go's syntax, or raise RegexError / RegexUnsupported."""
    return _compile(_Parser(pattern).parse())


def _assert(kind: str, text: str, i: int) -> bool:
    n = len(text)
    if kind == "bot":
        return i == 0
    if kind == "eot":
        return i == n
    if kind == "bol":
        return i == 0 or text[i - 1] == "\n"
    if kind == "eol":
        return i == n or text[i] == "\n"
    before = i > 0 and text[i - 1] in _WORD
    after = i < n and text[i] in _WORD
    return (before != after) if kind == "word" else (before == after)


def search(prog: Program, text: str, start: int = 0) -> tuple[int, int] | None:
    """The leftmost-first match at or after `start`, as (begin, end), or None."""
    code = prog.code
    n = len(text)
    clist: list[tuple[int, int]] = []   # (pc, match start)
    matched: tuple[int, int] | None = None

    def add(lst, seen, pc, begin, i):
        stack = [pc]
        while stack:
            pc = stack.pop()
            if pc in seen:
                continue
            seen.add(pc)
            op, a, b = code[pc]
            if op == JMP:
                stack.append(a)
            elif op == SPLIT:
                stack.append(b)
                stack.append(a)
            elif op == SAVE:
                stack.append(pc + 1)
            elif op == ASSERT:
                if _assert(a, text, i):
                    stack.append(pc + 1)
            else:
                lst.append((pc, begin))

    i = start
    seen: set[int] = set()
    add(clist, seen, 0, i, i)
    while True:
        nlist: list[tuple[int, int]] = []
        nseen: set[int] = set()
        c = text[i] if i < n else None
        for pc, begin in clist:
            op, a, _ = code[pc]
            if op == MATCH:
                matched = (begin, i)
                break   # lower-priority threads lose (leftmost-first)
            if c is None:
                continue
            if op == CHAR:
                ok = a.match(c)
            elif op == ANY:
                ok = True
            else:  # ANYNL
                ok = c != "\n"
            if ok:
                add(nlist, nseen, pc + 1, begin, i + 1)
        if c is None:
            break
        i += 1
        if matched is None:
            # Start a new, lowest-priority attempt at this position.
            add(nlist, nseen, 0, i, i)
        clist = nlist
        if not clist and matched is not None:
            break
    return matched


def find_all(prog: Program, text: str, limit: int) -> list[str]:
    """Go's `FindAllString(text, limit)`."""
    out: list[str] = []
    if limit == 0:
        return out
    pos = 0
    prev_end = -1
    n = len(text)
    while pos <= n:
        m = search(prog, text, pos)
        if m is None:
            break
        b, e = m
        accept = True
        if e == b and b == prev_end:
            accept = False   # an empty match right after the previous match is skipped
        if accept:
            out.append(text[b:e])
            if 0 < limit <= len(out):
                break
        prev_end = e
        pos = e + 1 if e == b else e
    return out


# -- a lazy DFA for yes/no questions ------------------------------------------------------------
# The Pike VM above costs a few microseconds per character in Python; `matches` only needs to know
# whether any match exists, which a DFA built lazily from the same program answers with two
# dictionary lookups per character. Assertions (^ $ \b ...) make the epsilon-closure depend on
# the characters either side, so the closure is cached per (state, kind before, kind after).

_BOT, _NL, _WORDK, _OTHER = 0, 1, 2, 3   # kinds of the character before a position (or start)
_EOT = 0                                 # ... and after it (or end)
_MAX_STATES = 4096


def _kind(c: str | None, edge: int) -> int:
    if c is None:
        return edge
    if c == "\n":
        return _NL
    if c in _WORD:
        return _WORDK
    return _OTHER


def _assert_ok(kind: str, before: int, after: int) -> bool:
    if kind == "bot":
        return before == _BOT
    if kind == "eot":
        return after == _EOT
    if kind == "bol":
        return before in (_BOT, _NL)
    if kind == "eol":
        return after in (_EOT, _NL)
    wb = (before == _WORDK) != (after == _WORDK)
    return wb if kind == "word" else not wb


class _Dfa:
    def __init__(self, prog: Program) -> None:
        self.code = prog.code
        self.has_asserts = any(op == ASSERT for op, _, _ in prog.code)
        self.ids: dict[frozenset[int], int] = {}
        self.sets: list[frozenset[int]] = []
        self.closure: dict[tuple[int, int, int], tuple[int, bool]] = {}
        self.step: dict[tuple[int, str], int] = {}

    def intern(self, s: frozenset[int]) -> int:
        i = self.ids.get(s)
        if i is None:
            i = len(self.sets)
            self.ids[s] = i
            self.sets.append(s)
        return i

    def close(self, sid: int, before: int, after: int) -> tuple[int, bool]:
        key = (sid, before, after)
        hit = self.closure.get(key)
        if hit is not None:
            return hit
        code = self.code
        seen: set[int] = set()
        out: set[int] = set()
        matched = False
        stack = list(self.sets[sid]) + [0]   # pc 0: a new unanchored attempt here
        while stack:
            pc = stack.pop()
            if pc in seen:
                continue
            seen.add(pc)
            op, a, b = code[pc]
            if op == JMP:
                stack.append(a)
            elif op == SPLIT:
                stack += (a, b)
            elif op == SAVE:
                stack.append(pc + 1)
            elif op == ASSERT:
                if _assert_ok(a, before, after):
                    stack.append(pc + 1)
            elif op == MATCH:
                matched = True
            else:
                out.add(pc)
        res = (self.intern(frozenset(out)), matched)
        self.closure[key] = res
        return res

    def advance(self, cid: int, c: str) -> int:
        key = (cid, c)
        hit = self.step.get(key)
        if hit is not None:
            return hit
        code = self.code
        nxt = set()
        for pc in self.sets[cid]:
            op, a, _ = code[pc]
            if op == CHAR:
                ok = a.match(c)
            elif op == ANY:
                ok = True
            else:
                ok = c != "\n"
            if ok:
                nxt.add(pc + 1)
        sid = self.intern(frozenset(nxt))
        self.step[key] = sid
        return sid


def has_match(prog: Program, text: str) -> bool:
    """Whether `prog` matches anywhere in `text` (RE2 `MatchString`)."""
    dfa = prog.dfa()
    sid = dfa.intern(frozenset())
    n = len(text)
    if not dfa.has_asserts:
        close, advance = dfa.close, dfa.advance
        for c in text:
            cid, matched = close(sid, _OTHER, _OTHER)
            if matched:
                return True
            sid = advance(cid, c)
        return close(sid, _OTHER, _OTHER)[1]
    before = _BOT
    for i in range(n + 1):
        c = text[i] if i < n else None
        after = _kind(c, _EOT)
        cid, matched = dfa.close(sid, before, after)
        if matched:
            return True
        if c is None:
            return False
        sid = dfa.advance(cid, c)
        before = after if after != _EOT else _OTHER
    return False
