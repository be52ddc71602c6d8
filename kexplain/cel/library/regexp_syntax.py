"""Go's regexp/syntax (Go 1.25, which builds Kubernetes v1.35): a pattern parsed with Go's grammar,
limits and error texts, then written out in the part of RE2's syntax whose meaning both share, so that
re2.py matches what Go means. Refused as unsupported rather than guessed where Go would first simplify
the tree. Where Go and RE2 differ, and the limits: docs/internals/cel.md.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files

MAX_REPEAT = 1000                   # Go's maxRepeat: one count, and the product of nested ones
MAX_HEIGHT = 1000                   # Go's maxHeight
MAX_SIZE = (128 << 20) // 40        # Go's maxSize, in instructions

# Flags in force while parsing (Go's FoldCase, ^$ per line (not OneLine), DotNL, NonGreedy).
FOLD, MULTILINE, DOTNL, UNGREEDY = 1, 2, 4, 8
_FLAG_BITS = {"i": FOLD, "m": MULTILINE, "s": DOTNL, "U": UNGREEDY}


class RegexError(ValueError):
    """Go's `*syntax.Error`: `error parsing regexp: <code>: `<expr>``."""

    def __init__(self, code: str, expr: str) -> None:
        super().__init__(f"error parsing regexp: {code}: `{expr}`")


class RegexUnsupported(ValueError):
    """Valid Go syntax that kexplain does not match (the message names what)."""


# -- character sets ------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class CharSet:
    """One member of a class: RE2 class atoms, their complement if `complement`; `folds` says
    whether Go closes it under case folding in `(?i)`."""

    atoms: tuple[str, ...]
    complement: bool = False
    folds: bool = True


def _x(cp: int) -> str:
    return f"\\x{{{cp:X}}}"


def _range(lo: int, hi: int) -> CharSet:
    return CharSet((_x(lo) if lo == hi else f"{_x(lo)}-{_x(hi)}",))


_ASSIGNED_BUT_C = ("\\p{L}", "\\p{M}", "\\p{N}", "\\p{P}", "\\p{S}", "\\p{Z}")
_ASSIGNED = _ASSIGNED_BUT_C + ("\\p{Cc}", "\\p{Cf}", "\\p{Co}", "\\p{Cs}")
_LC = ("\\p{Lu}", "\\p{Ll}", "\\p{Lt}")
_ANY = (f"{_x(0)}-{_x(0x10FFFF)}",)

# Go 1.25's tables by name (unicode.Categories), as (set, its negation).
_RE2_CATEGORIES = ("Cc", "Cf", "Co", "Cs", "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me", "Mn",
                   "N", "Nd", "Nl", "No", "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "S", "Sc",
                   "Sk", "Sm", "So", "Z", "Zl", "Zp", "Zs")
_TABLES: dict[str, tuple[CharSet, CharSet]] = {
    name: (CharSet((f"\\p{{{name}}}",)), CharSet((f"\\P{{{name}}}",))) for name in _RE2_CATEGORIES}
_TABLES |= {
    # Go 1.25's C includes the unassigned code points; RE2's \pC does not.
    "C": (CharSet(_ASSIGNED_BUT_C, complement=True, folds=False), CharSet(_ASSIGNED_BUT_C, folds=False)),
    "Cn": (CharSet(_ASSIGNED, complement=True, folds=False), CharSet(_ASSIGNED, folds=False)),
    "Assigned": (CharSet(_ASSIGNED, folds=False), CharSet(_ASSIGNED, complement=True, folds=False)),
    "Lc": (CharSet(_LC, folds=False), CharSet(_LC, complement=True, folds=False)),
    "Any": (CharSet(_ANY), CharSet(())),
    "Ascii": (CharSet(("[:ascii:]",)), CharSet(("[:^ascii:]",))),
}
# unicode.CategoryAliases (by canonical name) and unicode.Scripts of Go 1.25 (Unicode 15.0): unicode_names.json.
_NAMES = json.loads(files("kexplain.cel.library").joinpath("unicode_names.json").read_text())
_CATEGORY_ALIASES: dict[str, str] = _NAMES["category_aliases"]
_SCRIPTS: frozenset[str] = frozenset(_NAMES["scripts"])

_PERL = {c: CharSet((f"\\{c}",)) for c in "dDsSwW"}
_POSIX = frozenset(("alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print",
                    "punct", "space", "upper", "word", "xdigit"))


def canonical_name(name: str) -> str:
    """Go 1.25's canonicalName: `_`, `-` and spaces dropped, first letter upper, the rest lower."""
    out, first = [], True
    for c in name:
        if c in "_- ":
            continue
        if first:
            out.append(c.upper() if "a" <= c <= "z" else c)
            first = False
        else:
            out.append(c.lower() if "A" <= c <= "Z" else c)
    return "".join(out)


def _unicode_table(name: str, negate: bool, seq: str) -> CharSet:
    canon = canonical_name(name)
    canon = _CATEGORY_ALIASES.get(canon, canon) if canon not in _TABLES else canon
    if canon in _TABLES:
        return _TABLES[canon][negate]
    if canon in _SCRIPTS:
        return CharSet((f"\\{'P' if negate else 'p'}{{{canon}}}",))
    script = next((s for s in _SCRIPTS if canonical_name(s) == canon), None)
    if script is not None:
        raise RegexUnsupported(f"the Unicode script {seq} (Go 1.25 patch releases differ on "
                               f"names like {script})")
    raise RegexError("invalid character class range", seq)


# -- the tree ------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Node:
    """A node of Go's parse tree, with the RE2 text it prints as and Go's size and height."""

    kind: str                       # lit, class, leaf, empty, capture, repeat, concat, alternate
    text: str                       # RE2 syntax
    size: int                       # Go's calcSize
    height: int                     # Go's calcHeight
    exact: bool = True              # size and height are Go's (no alternation Go would factor)
    subs: tuple["Node", ...] = ()
    runes: tuple[int, ...] = ()     # lit: the code points
    fold: bool = False              # lit: case-folded
    count: int = -1                 # repeat: the count Go's repeatIsValid reads (-1: not x{n,m})


def _lit_text(runes: tuple[int, ...], fold: bool) -> str:
    body = "".join(chr(r) if chr(r).isascii() and chr(r).isalnum() else _x(r) for r in runes)
    return f"(?i:{body})" if fold else body


@lru_cache(maxsize=1024)   # nodes are immutable; patterns repeat their characters
def _lit(cp: int, fold: bool) -> Node:
    return Node("lit", _lit_text((cp,), fold), 1, 1, runes=(cp,), fold=fold)


@lru_cache(maxsize=None)   # a handful of assertions and dots
def _leaf(text: str) -> Node:
    return Node("leaf", text, 1, 1)


_EMPTY = Node("empty", "(?:)", 1, 1)
_NO_MATCH = f"[^{_ANY[0]}]"


def _class(members: list[CharSet], negate: bool, fold: bool) -> Node:
    """A class as RE2 text: RE2 folds a whole bracket, Go each member, and RE2 has no
    intersection, so members Go does not fold, and complements, become alternatives."""
    if not negate and len(members) == 1:
        only = members[0]
        if not only.complement and len(only.atoms) == 1 and not (fold and only.folds):
            atom = only.atoms[0]
            if atom.startswith("\\x{") and "-" not in atom:   # [a] is the literal a
                return _lit(int(atom[3:-1], 16), False)
    folded = [a for m in members if not m.complement and m.folds and fold for a in m.atoms]
    plain = [a for m in members if not m.complement and not (m.folds and fold) for a in m.atoms]
    complements = [m for m in members if m.complement]
    exact = not (fold and len(members) == 1)   # Go may turn a folded [x] into a literal
    if negate:
        if not complements and not (folded and plain):
            atoms = folded or plain
            text = f"[^{''.join(atoms)}]" if atoms else f"[{_ANY[0]}]"
            return Node("class", f"(?i:{text})" if folded else text, 1, 1, exact)
        if len(complements) == 1 and not folded and not plain and not complements[0].folds:
            return Node("class", f"[{''.join(complements[0].atoms)}]", 1, 1, exact)
        raise RegexUnsupported("a negated class that mixes complemented Unicode tables "
                               "(such as \\pC, \\p{Cn}, \\P{LC}) or unfolded ones with other members")
    parts = []
    if folded:
        parts.append(f"(?i:[{''.join(folded)}])")
    if plain:
        parts.append(f"[{''.join(plain)}]")
    for m in complements:
        text = f"[^{''.join(m.atoms)}]"
        parts.append(f"(?i:{text})" if m.folds and fold else text)
    if not parts:
        return Node("class", _NO_MATCH, 1, 1, exact)
    text = parts[0] if len(parts) == 1 else f"(?:{'|'.join(parts)})"
    return Node("class", text, 1, 1, exact)


def _concat(items: list[Node]) -> Node:
    """Go's concatenation: nested ones flattened, runs of literals with one fold merged."""
    flat: list[Node] = []
    run: list[Node] = []                     # literals with one fold, not yet merged

    def flush() -> None:
        if len(run) == 1:
            flat.append(run[0])
        elif run:
            runes = tuple(r for n in run for r in n.runes)
            flat.append(Node("lit", _lit_text(runes, run[0].fold), len(runes), 1, runes=runes, fold=run[0].fold))
        run.clear()

    for item in items:
        for sub in (item.subs if item.kind == "concat" else (item,)):
            if sub.kind == "lit" and (not run or run[0].fold == sub.fold):
                run.append(sub)
                continue
            flush()
            if sub.kind == "lit":
                run.append(sub)
            else:
                flat.append(sub)
    flush()
    if not flat:
        return _EMPTY
    if len(flat) == 1:
        return flat[0]
    return Node("concat", "".join(n.text for n in flat), sum(n.size for n in flat),
                1 + max(n.height for n in flat), all(n.exact for n in flat), tuple(flat))


def _alternate(branches: list[Node]) -> Node:
    flat = [b for n in branches for b in (n.subs if n.kind == "alternate" else (n,))]
    if len(flat) == 1:
        return flat[0]
    return Node("alternate", "(?:" + "|".join(n.text for n in flat) + ")",
                sum(n.size for n in flat) + len(flat) - 1, 1 + max(n.height for n in flat),
                False, tuple(flat))


def _capture(sub: Node) -> Node:
    return Node("capture", f"(?:{sub.text})", 2 + sub.size, 1 + sub.height, sub.exact, (sub,))


def _repeat(sub: Node, lo: int, hi: int, greedy: bool, op: str) -> Node:
    """op is *, +, ? or {} (lo, hi; hi -1 for no upper bound)."""
    if op == "{}":
        suffix = f"{{{lo}}}" if lo == hi else f"{{{lo},}}" if hi < 0 else f"{{{lo},{hi}}}"
        size = (2 + sub.size if lo == 0 else 1 + lo * sub.size) if hi < 0 else hi * sub.size + hi - lo
        count = hi if hi >= 0 else lo
    else:
        suffix, count = op, -1
        size = (2 if op == "*" else 1) + sub.size
    text = f"(?:{sub.text}){suffix}{'' if greedy else '?'}"
    return Node("repeat", text, max(1, size), 1 + sub.height, sub.exact, (sub,), count=count)


def _repeat_is_valid(node: Node, budget: int) -> bool:
    """Go's repeatIsValid: counts multiply along nesting; their product may not pass the budget."""
    stack = [(node, budget)]
    while stack:
        n, left = stack.pop()
        if n.kind == "repeat" and n.count >= 0:
            if n.count == 0:
                continue
            if n.count > left:
                return False
            left //= n.count
        stack.extend((s, left) for s in n.subs)
    return True


# -- the parser ----------------------------------------------------------------------------------
@dataclass(slots=True)
class _Group:
    capture: bool
    flags: int                       # restored at its `)`
    branches: list[Node]
    items: list[Node]


class _Parser:
    """Go's parser, on an explicit stack of open groups (no recursion: 1000 levels are valid)."""

    def __init__(self, pattern: str) -> None:
        self.p = pattern
        self.flags = 0
        self.groups = [_Group(False, 0, [], [])]

    def error(self, code: str, expr: str) -> RegexError:
        return RegexError(code, expr)

    def check(self, node: Node) -> Node:
        """Go's checkLimits on a node it builds."""
        if node.size > MAX_SIZE or node.height > MAX_HEIGHT:
            if not node.exact:
                raise RegexUnsupported("a regular expression this large or this deeply nested")
            raise self.error("expression too large" if node.size > MAX_SIZE else
                             "expression nests too deeply", self.p)
        return node

    def push(self, node: Node) -> None:
        self.groups[-1].items.append(node)

    def parse(self) -> Node:
        p, n, i = self.p, len(self.p), 0
        last_repeat = -1                       # where the previous token began, if a repetition
        while i < n:
            c, repeat_at = p[i], -1
            if c == "(":
                i = self.perl_flags(i) if p.startswith("?", i + 1) else self.open(i + 1, True)
            elif c == "|":
                group = self.groups[-1]
                group.branches.append(self.check(_concat(group.items)))
                group.items = []
                i += 1
            elif c == ")":
                self.close()
                i += 1
            elif c in "^$":
                multi = self.flags & MULTILINE
                self.push(_leaf(("(?m:^)" if multi else "\\A") if c == "^" else ("(?m:$)" if multi else "\\z")))
                i += 1
            elif c == ".":
                self.push(_leaf("(?s:.)" if self.flags & DOTNL else "[^\\n]"))
                i += 1
            elif c == "[":
                i = self.char_class(i)
            elif c in "*+?":
                lo, hi = {"*": (0, -1), "+": (1, -1), "?": (0, 1)}[c]
                repeat_at, i = i, self.repeat(i, i + 1, lo, hi, c, last_repeat)
            elif c == "{":
                parsed = self.parse_repeat(i)
                if parsed is None:             # not a repetition: { is a literal
                    self.push(_lit(ord("{"), bool(self.flags & FOLD)))
                    i += 1
                else:
                    lo, hi, end = parsed
                    if lo < 0 or lo > MAX_REPEAT or hi > MAX_REPEAT or 0 <= hi < lo:
                        raise self.error("invalid repeat count", p[i:end])
                    repeat_at, i = i, self.repeat(i, end, lo, hi, "{}", last_repeat)
            elif c == "\\":
                i = self.escape(i)
            else:
                self.push(_lit(ord(c), bool(self.flags & FOLD)))
                i += 1
            last_repeat = repeat_at
        group = self.groups[-1]
        node = self.check(_concat(group.items))
        if group.branches:
            node = self.check(_alternate(group.branches + [node]))
        if len(self.groups) > 1:
            raise self.error("missing closing )", p)
        return node

    def open(self, i: int, capture: bool) -> int:
        self.groups.append(_Group(capture, self.flags, [], []))
        return i

    def close(self) -> None:
        group = self.groups[-1]
        node = self.check(_concat(group.items))
        if group.branches:
            node = self.check(_alternate(group.branches + [node]))
        if len(self.groups) < 2:
            raise self.error("unexpected )", self.p)
        self.groups.pop()
        self.flags = group.flags
        self.push(self.check(_capture(node)) if group.capture else node)

    def perl_flags(self, i: int) -> int:
        """(?P<name>, (?<name>, (?flags) and (?flags: at p[i] == '('."""
        p = self.p
        rest = p[i:]
        named = (len(rest) > 4 and rest[2] == "P" and rest[3] == "<") or (len(rest) > 3 and rest[2] == "<")
        if named:
            begin = i + (4 if rest[2] == "P" else 3)
            end = p.find(">", i)
            if end < 0:
                raise self.error("invalid named capture", rest)
            name = p[begin:end]
            if not name or not all(ch == "_" or (ch.isascii() and ch.isalnum()) for ch in name):
                raise self.error("invalid named capture", p[i:end + 1])
            return self.open(end + 1, True)
        flags, negated, saw = self.flags, False, False
        j = i + 2
        while j < len(p):
            c = p[j]
            j += 1
            if c in _FLAG_BITS:
                flags = flags & ~_FLAG_BITS[c] if negated else flags | _FLAG_BITS[c]
                saw = True
            elif c == "-" and not negated:
                negated, saw = True, False
            elif c in ":)" and (saw or not negated):
                if c == ":":
                    self.open(j, False)
                self.flags = flags
                return j
            else:
                break
        raise self.error("invalid or unsupported Perl syntax", p[i:j])

    def parse_repeat(self, i: int) -> tuple[int, int, int] | None:
        """{n}, {n,} or {n,m} at p[i]: (lo, hi, end), hi -1 for none and lo -1 for a count too
        big to read; None when the braces are a literal."""
        p = self.p

        def number(j: int) -> tuple[int, int] | None:
            k = j
            while k < len(p) and p[k].isascii() and p[k].isdigit():
                k += 1
            if k == j or (k - j > 1 and p[j] == "0"):      # no digits, or a leading zero
                return None
            return (int(p[j:k]) if k - j <= 8 else -1), k

        first = number(i + 1)
        if first is None:
            return None
        lo, j = first
        hi = lo
        if j < len(p) and p[j] == ",":
            j += 1
            if j < len(p) and p[j] == "}":
                hi = -1
            else:
                second = number(j)
                if second is None:
                    return None
                hi, j = second
                if hi < 0:
                    lo = -1
        if j >= len(p) or p[j] != "}":
            return None
        return lo, hi, j + 1

    def repeat(self, start: int, after: int, lo: int, hi: int, op: str, last_repeat: int) -> int:
        p = self.p
        greedy = True
        if after < len(p) and p[after] == "?":
            after, greedy = after + 1, False
        if self.flags & UNGREEDY:
            greedy = not greedy
        if last_repeat >= 0:
            raise self.error("invalid nested repetition operator", p[last_repeat:after])
        items = self.groups[-1].items
        if not items:
            raise self.error("missing argument to repetition operator", p[start:after])
        node = self.check(_repeat(items[-1], lo, hi, greedy, op))
        if op == "{}" and (lo >= 2 or hi >= 2) and not _repeat_is_valid(node, MAX_REPEAT):
            raise self.error("invalid repeat count", p[start:after])
        items[-1] = node
        return after

    def escape(self, i: int) -> int:
        p = self.p
        fold = bool(self.flags & FOLD)
        c = p[i + 1] if i + 1 < len(p) else ""
        assertion = {"A": "\\A", "b": "\\b", "B": "\\B", "z": "\\z"}.get(c)
        if assertion:
            self.push(_leaf(assertion))
            return i + 2
        if c == "C":
            raise self.error("invalid escape sequence", "\\C")
        if c == "Q":
            end = p.find("\\E", i + 2)
            for ch in p[i + 2:] if end < 0 else p[i + 2:end]:
                self.push(_lit(ord(ch), fold))
            return len(p) if end < 0 else end + 2
        if c in ("p", "P"):
            member, i = self.unicode_class(i)
            self.push(_class([member], False, fold))
            return i
        if c and c in _PERL:
            self.push(_class([_PERL[c]], False, fold))
            return i + 2
        cp, i = self.parse_escape(i)
        self.push(_lit(cp, fold))
        return i

    def parse_escape(self, i: int) -> tuple[int, int]:
        """A one-character escape at p[i] == '\\': (code point, next index)."""
        p, n = self.p, len(self.p)
        if i + 1 >= n:
            raise self.error("trailing backslash at end of expression", "")
        c = p[i + 1]
        j = i + 2
        if c.isascii() and not c.isalnum():
            return ord(c), j
        if c in "1234567" and j < n and p[j] in "01234567" or c == "0":
            value, k = int(c), j
            while k < n and k < j + 2 and p[k] in "01234567":
                value, k = value * 8 + int(p[k]), k + 1
            return value, k
        if c == "x" and j < n:
            if p[j] == "{":
                value, k, digits = 0, j + 1, 0
                while k < n:
                    d = p[k]
                    k += 1
                    if d == "}":
                        if digits:
                            return value, k
                        break
                    if d not in "0123456789abcdefABCDEF":
                        break
                    value = value * 16 + int(d, 16)
                    digits += 1
                    if value > 0x10FFFF:
                        break
                raise self.error("invalid escape sequence", p[i:k])
            pair = p[j:j + 2]
            if len(pair) == 2 and all(d in "0123456789abcdefABCDEF" for d in pair):
                return int(pair, 16), j + 2
            raise self.error("invalid escape sequence", p[i:j + len(pair)])
        simple = {"a": 7, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11}
        if c in simple:
            return simple[c], j
        raise self.error("invalid escape sequence", p[i:j])

    def unicode_class(self, i: int) -> tuple[CharSet, int]:
        """\\pN, \\p{Name}, \\PN, \\P{Name} (a leading ^ negates) at p[i]."""
        p = self.p
        negate = p[i + 1] == "P"
        j = i + 2
        if j < len(p) and p[j] == "{":
            end = p.find("}", j)
            if end < 0:
                raise self.error("invalid character class range", p[i:])
            seq, name, after = p[i:end + 1], p[j + 1:end], end + 1
        else:
            seq = p[i:j + 1]
            name, after = seq[2:], i + len(seq)
        if name.startswith("^"):
            negate, name = not negate, name[1:]
        return _unicode_table(name, negate, seq), after

    def char_class(self, i: int) -> int:
        p, n = self.p, len(self.p)
        start = i
        i += 1
        negate = i < n and p[i] == "^"
        if negate:
            i += 1
        members: list[CharSet] = []
        first = True
        while i >= n or p[i] != "]" or first:
            first = False
            if p.startswith("[:", i):
                end = p.find(":]", i + 2)
                if end >= 0:
                    name = p[i + 2:end]
                    if name.removeprefix("^") not in _POSIX:
                        raise self.error("invalid character class range", p[i:end + 2])
                    members.append(CharSet((f"[:{name}:]",)))
                    i = end + 2
                    continue
            if p.startswith("\\", i) and i + 1 < n and p[i + 1] in "pP":
                member, i = self.unicode_class(i)
                members.append(member)
                continue
            if p.startswith("\\", i) and i + 1 < n and p[i + 1] in _PERL:
                members.append(_PERL[p[i + 1]])
                i += 2
                continue
            range_start = i
            lo, i = self.class_char(i, start)
            hi = lo
            if i + 1 < n and p[i] == "-" and p[i + 1] != "]":
                hi, i = self.class_char(i + 1, start)
                if hi < lo:
                    raise self.error("invalid character class range", p[range_start:i])
            members.append(_range(lo, hi))
        self.push(_class(members, negate, bool(self.flags & FOLD)))
        return i + 1

    def class_char(self, i: int, class_start: int) -> tuple[int, int]:
        if i >= len(self.p):
            raise self.error("missing closing ]", self.p[class_start:])
        if self.p[i] == "\\":
            return self.parse_escape(i)
        return ord(self.p[i]), i + 1


def translate(pattern: str) -> str:
    """`pattern` in RE2 syntax meaning what Go means by it, or RegexError / RegexUnsupported."""
    return _Parser(pattern).parse().text
