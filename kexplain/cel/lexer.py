"""Tokens of the CEL grammar (cel-go parser/gen/CEL.g4) with code-point offsets, as cel-go's error
locations count; an unknown character is an ERROR token, reported as ANTLR does.
"""
from __future__ import annotations

from dataclasses import dataclass

# Token kinds.
IDENT, ESC_IDENT, INT, UINT, FLOAT, STRING, BYTES, OP, EOF, ERROR = (
    "IDENT", "ESC_IDENT", "INT", "UINT", "FLOAT", "STRING", "BYTES", "OP", "EOF", "ERROR")

_OPS2 = ("==", "!=", "<=", ">=", "&&", "||")
_OPS1 = "<>[]{}().,-!?:+*/%"
_ESC_IDENT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-/ ")


@dataclass(frozen=True, slots=True)
class Token:
    kind: str
    text: str
    pos: int    # code-point offset of the first character
    end: int    # offset just past the token


def _is_letter(c: str) -> bool:
    return ("a" <= c <= "z") or ("A" <= c <= "Z")


def _is_digit(c: str) -> bool:
    return "0" <= c <= "9"


def _is_hex(c: str) -> bool:
    return _is_digit(c) or ("a" <= c <= "f") or ("A" <= c <= "F")


def tokenize(src: str) -> list[Token]:
    """All tokens of `src`, ending with EOF; whitespace and `//` comments dropped."""
    out: list[Token] = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c in " \t\r\n\f":
            i += 1
            continue
        if c == "/" and src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
            continue
        if _is_letter(c) or c == "_":
            # String and bytes literals with prefixes: r"..", b"..", br"..", rb"..".
            lit = _prefixed_literal(src, i)
            if lit is not None:
                kind, end = lit
                out.append(Token(kind, src[i:end], i, end))
                i = end
                continue
            j = i + 1
            while j < n and (_is_letter(src[j]) or _is_digit(src[j]) or src[j] == "_"):
                j += 1
            out.append(Token(IDENT, src[i:j], i, j))
            i = j
            continue
        if _is_digit(c) or (c == "." and i + 1 < n and _is_digit(src[i + 1])):
            kind, end = _number(src, i)
            out.append(Token(kind, src[i:end], i, end))
            i = end
            continue
        if c in "\"'":
            end = _string_end(src, i)
            if end < 0:
                out.append(Token(ERROR, src[i:], i, n))
                i = n
                continue
            out.append(Token(STRING, src[i:end], i, end))
            i = end
            continue
        if c == "`":
            j = i + 1
            while j < n and src[j] in _ESC_IDENT_CHARS:
                j += 1
            if j < n and src[j] == "`" and j > i + 1:
                out.append(Token(ESC_IDENT, src[i:j + 1], i, j + 1))
                i = j + 1
                continue
            out.append(Token(ERROR, c, i, i + 1))
            i += 1
            continue
        two = src[i:i + 2]
        if two in _OPS2:
            out.append(Token(OP, two, i, i + 2))
            i += 2
            continue
        if c in _OPS1:
            out.append(Token(OP, c, i, i + 1))
            i += 1
            continue
        if c in "&|=":
            out.append(Token(ERROR, c, i, i + 1))
            i += 1
            continue
        out.append(Token(ERROR, c, i, i + 1))
        i += 1
    out.append(Token(EOF, "<EOF>", n, n))
    return out


def _prefixed_literal(src: str, i: int) -> tuple[str, int] | None:
    """A raw and/or bytes string literal starting at `i`, as (kind, end)."""
    n = len(src)
    j = i
    raw = is_bytes = False
    for _ in range(2):
        if j < n and src[j] in "rR" and not raw:
            raw = True
            j += 1
        elif j < n and src[j] in "bB" and not is_bytes:
            is_bytes = True
            j += 1
    if j == i or j >= n or src[j] not in "\"'":
        return None
    # The grammar allows b followed by r (BYTES : ('b'|'B') STRING, STRING may be raw) but
    # not r followed by b.
    if raw and is_bytes and src[i] in "rR":
        return None
    end = _string_end(src, j, raw)
    if end < 0:
        return None
    return (BYTES if is_bytes else STRING), end


def _string_end(src: str, i: int, raw: bool = False) -> int:
    """Offset past the string literal whose quote is at `i`, or -1 if it does not end."""
    n = len(src)
    q = src[i]
    if src.startswith(q * 3, i):
        j = i + 3
        while j < n:
            if not raw and src[j] == "\\":
                j += 2
                continue
            if src.startswith(q * 3, j):
                return j + 3
            j += 1
        return -1
    j = i + 1
    while j < n:
        c = src[j]
        if c == "\\" and not raw:
            j += 2
            continue
        if c in "\r\n":
            return -1
        if c == q:
            return j + 1
        j += 1
    return -1


def _number(src: str, i: int) -> tuple[str, int]:
    n = len(src)
    if src.startswith(("0x", "0X"), i) and i + 2 < n and _is_hex(src[i + 2]):
        # The grammar spells hex as '0x' only; '0X' lexes as 0 then an identifier.
        if src[i + 1] == "x":
            j = i + 2
            while j < n and _is_hex(src[j]):
                j += 1
            if j < n and src[j] in "uU":
                return UINT, j + 1
            return INT, j
    j = i
    while j < n and _is_digit(src[j]):
        j += 1
    is_float = False
    if j < n and src[j] == "." and j + 1 < n and _is_digit(src[j + 1]):
        is_float = True
        j += 1
        while j < n and _is_digit(src[j]):
            j += 1
    if j < n and src[j] in "eE":
        k = j + 1
        if k < n and src[k] in "+-":
            k += 1
        if k < n and _is_digit(src[k]):
            is_float = True
            j = k
            while j < n and _is_digit(src[j]):
                j += 1
    if is_float:
        return FLOAT, j
    if j < n and src[j] in "uU":
        return UINT, j + 1
    return INT, j
