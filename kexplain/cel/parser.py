"""A recursive-descent parser for CEL with cel-go's macros, limits and error texts (parser/gen/CEL.g4
precedence; 100,000 code points, a depth of 250 per rule as ANTLR counts it; the first syntax error
ends the parse). Details: docs/internals/cel.md.
"""
from __future__ import annotations

from dataclasses import dataclass

from kexplain.cel import ast as A
from kexplain.cel.lexer import BYTES, EOF, ERROR, ESC_IDENT, FLOAT, IDENT, INT, OP, STRING, UINT, Token, tokenize
from kexplain.cel.values import UInt

MAX_RECURSION = 250
MAX_CODE_POINTS = 100_000
RESERVED = frozenset({"as", "break", "const", "continue", "else", "false", "for", "function", "if",
                      "import", "in", "let", "loop", "package", "namespace", "null", "return",
                      "true", "var", "void", "while"})
_KEYWORDS = frozenset({"true", "false", "null", "in"})
_EXPR_START = ("{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, "
               "NUM_UINT, STRING, BYTES, IDENTIFIER}")
# Binary operators: precedence (higher binds tighter) and cel-go function name.
_BINARY = {
    "||": (1, "_||_"), "&&": (2, "_&&_"),
    "<": (3, "_<_"), "<=": (3, "_<=_"), ">=": (3, "_>=_"), ">": (3, "_>_"),
    "==": (3, "_==_"), "!=": (3, "_!=_"), "in": (3, "@in"),
    "+": (4, "_+_"), "-": (4, "_-_"),
    "*": (5, "_*_"), "/": (5, "_/_"), "%": (5, "_%_"),
}
_RULE_OF_PREC = {1: "conditionalOr", 2: "conditionalAnd", 3: "relation", 4: "calc", 5: "calc"}


@dataclass(frozen=True)
class ParseIssue:
    pos: int | None   # code-point offset; None is cel-go's NoLocation
    message: str


class ParseFailed(Exception):
    def __init__(self, issues: list[ParseIssue]) -> None:
        super().__init__(issues[0].message if issues else "parse failed")
        self.issues = issues


class _Abort(Exception):
    """Stop parsing: a syntax error or a limit was hit (the issue is already recorded)."""


class Parser:
    def __init__(self, src: str, sort_by: bool = True) -> None:
        self.src = src
        self.sort_by = sort_by          # the lists extension's sortBy macro is in the environment
        self.toks = tokenize(src)
        self.i = 0
        self.next_id = 1
        self.issues: list[ParseIssue] = []
        self.depth: dict[str, int] = {}

    # -- infrastructure -------------------------------------------------------------------

    def _id(self) -> int:
        n = self.next_id
        self.next_id += 1
        return n

    @property
    def tok(self) -> Token:
        return self.toks[self.i]

    def _peek(self, k: int = 1) -> Token:
        j = min(self.i + k, len(self.toks) - 1)
        return self.toks[j]

    def _is(self, text: str) -> bool:
        t = self.toks[self.i]
        return (t.kind == OP or (t.kind == IDENT and t.text in _KEYWORDS)) and t.text == text

    def _skip(self, text: str) -> bool:
        """Whether the next token is `text` (an optional marker, a separator), consumed if so."""
        if self._is(text):
            self.i += 1
            return True
        return False

    def _syntax(self, t: Token, message: str) -> _Abort:
        if t.kind == ERROR:
            message = f"token recognition error at: '{t.text}'"
        self.issues.append(ParseIssue(t.pos, "Syntax error: " + message))
        return _Abort()

    def _mismatch(self, expecting: str) -> _Abort:
        t = self.tok
        return self._syntax(t, f"mismatched input '{t.text}' expecting {expecting}")

    def _expect(self, text: str) -> Token:
        if not self._is(text):
            t = self.tok
            if t.kind == EOF:
                raise self._syntax(t, f"missing '{text}' at '<EOF>'")
            raise self._mismatch(f"'{text}'")
        t = self.tok
        self.i += 1
        return t

    def _enter(self, rule: str, n: int = 1) -> None:
        d = self.depth.get(rule, 0) + n
        self.depth[rule] = d
        if d > MAX_RECURSION:
            self.issues.append(ParseIssue(None, f"expression recursion limit exceeded: {MAX_RECURSION}"))
            raise _Abort()

    def _exit(self, rule: str, n: int = 1) -> None:
        self.depth[rule] -= n

    def _error(self, pos: int, message: str) -> None:
        self.issues.append(ParseIssue(pos, message))

    # -- entry ------------------------------------------------------------------------------

    def parse(self) -> A.Expr:
        n = len(self.src)
        if n > MAX_CODE_POINTS:
            raise ParseFailed([ParseIssue(None, "expression code point size exceeds limit: "
                                                f"size: {n}, limit {MAX_CODE_POINTS}")])
        for t in self.toks:
            if t.kind == ERROR:   # ANTLR reports lexer errors; the first one is enough
                self._syntax(t, "")
                raise ParseFailed(self.issues)
        try:
            e = self.expr()
            if self.tok.kind != EOF:
                raise self._mismatch("<EOF>")
        except _Abort:
            raise ParseFailed(self.issues) from None
        if self.issues:
            raise ParseFailed(self.issues)
        return e

    # -- expressions ----------------------------------------------------------------------

    def expr(self) -> A.Expr:
        """expr: conditionalOr ('?' conditionalOr ':' expr)?"""
        self._enter("expr")
        try:
            cond = self.binary()
            if not self._is("?"):
                return cond
            q = self.tok
            self.i += 1
            yes = self.binary()
            self._expect(":")
            no = self.expr()
            return A.Call(self._id(), q.pos, cond.start, no.end, "_?_:_", (cond, yes, no))
        finally:
            self._exit("expr")

    def binary(self) -> A.Expr:
        """conditionalOr: conditionalAnd ('||' conditionalAnd)*, balanced as cel-go balances it."""
        return self._logic("_||_", "||", self._and_level)

    def _and_level(self) -> A.Expr:
        return self._logic("_&&_", "&&", self._climb)

    def _logic(self, fn: str, op: str, sub) -> A.Expr:
        terms = [sub()]
        ops: list[Token] = []
        while self._is(op):
            ops.append(self.tok)
            self.i += 1
            terms.append(sub())
        if not ops:
            return terms[0]
        return self._balanced(fn, terms, ops, 0, len(ops) - 1)

    def _balanced(self, fn: str, terms: list[A.Expr], ops: list[Token], lo: int, hi: int) -> A.Expr:
        """cel-go's logicManager.balancedTree: a && b && c && d is (a && b) && (c && d)."""
        mid = (lo + hi + 1) // 2
        left = terms[mid] if mid == lo else self._balanced(fn, terms, ops, lo, mid - 1)
        right = terms[mid + 1] if mid == hi else self._balanced(fn, terms, ops, mid + 1, hi)
        return A.Call(self._id(), ops[mid].pos, left.start, right.end, fn, (left, right))

    def _climb(self) -> A.Expr:
        """The relation and calc levels, by precedence climbing over an explicit stack."""
        self._enter("relation")
        self._enter("calc")
        chain: dict[str, int] = {"relation": 1, "calc": 1}
        operands: list[A.Expr] = []
        ops: list[tuple[int, str, Token]] = []

        def reduce() -> None:
            _, fn, tok = ops.pop()
            rhs = operands.pop()
            lhs = operands.pop()
            operands.append(self._binary_node(fn, tok, lhs, rhs))

        try:
            operands.append(self.unary())
            while True:
                t = self.tok
                text = t.text if (t.kind == OP or (t.kind == IDENT and t.text == "in")) else None
                if text not in _BINARY or _BINARY[text][0] < 3:
                    break
                prec, fn = _BINARY[text]
                # ANTLR's left-recursive rules push one context per link of the chain.
                rule = _RULE_OF_PREC[prec]
                self._enter(rule)
                chain[rule] = chain.get(rule, 0) + 1
                while ops and ops[-1][0] >= prec:
                    reduce()
                ops.append((prec, fn, t))
                self.i += 1
                operands.append(self.unary())
            while ops:
                reduce()
        finally:
            for rule, n in chain.items():
                self._exit(rule, n)
        return operands[0]

    def _binary_node(self, fn: str, tok: Token, lhs: A.Expr, rhs: A.Expr) -> A.Expr:
        return A.Call(self._id(), tok.pos, lhs.start, rhs.end, fn, (lhs, rhs))

    def unary(self) -> A.Expr:
        """unary: member | '!'+ member | '-'+ member, with `-` before a number in the literal."""
        t = self.tok
        if self._is("!") or self._is("-"):
            op = t.text
            first = t
            count = 0
            while self._is(op):
                count += 1
                self.i += 1
            if op == "-" and self.tok.kind in (INT, FLOAT):
                # ANTLR prefers the signed literal: the last '-' belongs to the number.
                count -= 1
                operand = self.member(sign=self.toks[self.i - 1])
            else:
                operand = self.member()
            if count % 2 == 0:
                return operand
            fn = "!_" if op == "!" else "-_"
            return A.Call(self._id(), first.pos, first.pos, operand.end, fn, (operand,))
        return self.member()

    def member(self, sign: Token | None = None) -> A.Expr:
        """member: primary ('.' ident | '.?' ident | '.' ident '(' args ')' | '[' '?'? expr ']')*"""
        self._enter("member")
        links = 1
        try:
            e = self.primary(sign)
            while True:
                if self._is("."):
                    dot = self.tok
                    self.i += 1
                    opt = self._skip("?")
                    name_tok = self.tok
                    if name_tok.kind == ESC_IDENT:
                        self.i += 1
                        self._error(name_tok.pos, "unsupported syntax: '`'")
                        name = name_tok.text[1:-1]
                    elif name_tok.kind == IDENT and name_tok.text not in _KEYWORDS:
                        self.i += 1
                        name = name_tok.text
                    else:
                        raise self._mismatch("{IDENTIFIER, ESC_IDENTIFIER}")
                    self._enter("member")
                    links += 1
                    if not opt and self._is("("):
                        open_tok = self.tok
                        self.i += 1
                        args = self.expr_list(")")
                        close = self._expect(")")
                        e = self.receiver_call(open_tok, name, e, args, close.end)
                    elif opt:
                        lit = A.Literal(self._id(), name_tok.pos, name_tok.pos, name_tok.end, name)
                        e = A.Call(self._id(), dot.pos, e.start, name_tok.end, "_?._", (e, lit))
                    else:
                        e = A.Select(self._id(), dot.pos, e.start, name_tok.end, e, name)
                elif self._is("["):
                    open_tok = self.tok
                    self.i += 1
                    opt = self._skip("?")
                    self._enter("member")
                    links += 1
                    index = self.expr()
                    close = self._expect("]")
                    fn = "_[?_]" if opt else "_[_]"
                    e = A.Call(self._id(), open_tok.pos, e.start, close.end, fn, (e, index))
                else:
                    return e
        finally:
            if links:
                self._exit("member", links)

    def primary(self, sign: Token | None = None) -> A.Expr:
        self._enter("primary")
        try:
            return self._primary(sign)
        finally:
            self._exit("primary")

    def _primary(self, sign: Token | None) -> A.Expr:
        t = self.tok
        k = t.kind
        if sign is not None:
            self.i += 1
            return self.number(t, sign)
        if k in (INT, UINT, FLOAT):
            self.i += 1
            return self.number(t, None)
        if k in (STRING, BYTES):
            self.i += 1
            return self.string(t)
        if k == IDENT and t.text in ("true", "false"):
            self.i += 1
            return A.Literal(self._id(), t.pos, t.pos, t.end, t.text == "true")
        if k == IDENT and t.text == "null":
            self.i += 1
            return A.Literal(self._id(), t.pos, t.pos, t.end, None)
        if self._skip("("):
            e = self.expr()
            self._expect(")")
            return e
        if self._skip("["):
            elems, optional = self.list_init()
            close = self._expect("]")
            return A.ListLit(self._id(), t.pos, t.pos, close.end, tuple(elems), frozenset(optional))
        if self._skip("{"):
            entries = self.map_init()
            close = self._expect("}")
            return A.MapLit(self._id(), t.pos, t.pos, close.end, tuple(entries))
        leading_dot = False
        if self._is(".") and self._peek().kind == IDENT:
            leading_dot = True
            self.i += 1
            t2 = self.tok
        else:
            t2 = t
        if t2.kind == IDENT and t2.text not in _KEYWORDS:
            # CreateMessage: IDENT ('.' IDENT)* '{'
            j = self.i + 1
            while (self.toks[j].kind == OP and self.toks[j].text == "." and self.toks[j + 1].kind == IDENT
                   and self.toks[j + 1].text not in _KEYWORDS):
                j += 2
            if self.toks[j].kind == OP and self.toks[j].text == "{":
                return self.create_message(t, leading_dot, j)
            self.i += 1
            name = ("." if leading_dot else "") + t2.text
            if self._is("("):
                open_tok = self.tok
                self.i += 1
                args = self.expr_list(")")
                close = self._expect(")")
                if t2.text in RESERVED:
                    self._error(t.pos, f"reserved identifier: {t2.text}")
                return self.global_call(open_tok, name, args, t.pos, close.end)
            if t2.text in RESERVED:
                self._error(t.pos, f"reserved identifier: {t2.text}")
            return A.Ident(self._id(), t2.pos, t.pos, t2.end, name)
        raise self._mismatch(_EXPR_START)

    def create_message(self, first: Token, leading_dot: bool, brace_index: int) -> A.Expr:
        names = [self.toks[j].text for j in range(self.i, brace_index, 2)]
        name = ("." if leading_dot else "") + ".".join(names)
        self.i = brace_index
        brace = self.tok
        self.i += 1
        fields: list[tuple[str, A.Expr, bool]] = []
        while not self._is("}"):
            opt = self._skip("?")
            ft = self.tok
            if ft.kind == ESC_IDENT:
                self._error(ft.pos, "unsupported syntax: '`'")
                fname = ft.text[1:-1]
            elif ft.kind == IDENT and ft.text not in _KEYWORDS:
                fname = ft.text
            else:
                raise self._mismatch("{'?', IDENTIFIER, ESC_IDENTIFIER}")
            self.i += 1
            self._expect(":")
            fields.append((fname, self.expr(), opt))
            if not self._skip(","):
                break
        close = self._expect("}")
        return A.StructLit(self._id(), brace.pos, first.pos, close.end, name, tuple(fields))

    def expr_list(self, close: str) -> list[A.Expr]:
        args: list[A.Expr] = []
        if self._is(close):
            return args
        while True:
            args.append(self.expr())
            if not self._skip(","):
                return args

    def list_init(self) -> tuple[list[A.Expr], list[int]]:
        elems: list[A.Expr] = []
        optional: list[int] = []
        while not self._is("]"):
            if self._skip("?"):
                optional.append(len(elems))
            elems.append(self.expr())
            if not self._skip(","):
                break
        return elems, optional

    def map_init(self) -> list[A.MapEntry]:
        entries: list[A.MapEntry] = []
        while not self._is("}"):
            opt = self._skip("?")
            key = self.expr()
            col = self._expect(":")
            value = self.expr()
            entries.append(A.MapEntry(key, value, opt, col.pos))
            if not self._skip(","):
                break
        return entries

    # -- literals -------------------------------------------------------------------------

    def number(self, t: Token, sign: Token | None) -> A.Expr:
        start = sign.pos if sign is not None else t.pos
        text = t.text
        if t.kind == INT:
            base = 10
            if text.startswith("0x"):
                base, text = 16, text[2:]
            v = int(text, base)
            if sign is not None:
                v = -v
            if not -(1 << 63) <= v < (1 << 63):
                self._error(start, "invalid int literal")
            return A.Literal(self._id(), start, start, t.end, v)
        if t.kind == UINT:
            body = text[:-1]
            v = int(body[2:], 16) if body.startswith("0x") else int(body)
            if v >= 1 << 64:
                self._error(start, "invalid uint literal")
            return A.Literal(self._id(), start, start, t.end, UInt(v))
        f = float(text)
        if sign is not None:
            f = -f
        return A.Literal(self._id(), start, start, t.end, f)

    def string(self, t: Token) -> A.Expr:
        text = t.text
        is_bytes = t.kind == BYTES
        if is_bytes:
            text = text[1:]
        try:
            value = _unescape(text, is_bytes)
        except ValueError as err:
            self._error(t.pos, str(err))
            value = "" if not is_bytes else b""
        return A.Literal(self._id(), t.pos, t.pos, t.end, value)

    # -- calls and macros -----------------------------------------------------------------

    def global_call(self, open_tok: Token, name: str, args: list[A.Expr], start: int, end: int) -> A.Expr:
        if name == "has" and len(args) == 1:
            arg = args[0]
            if isinstance(arg, A.Select) and not arg.test_only:
                return A.Select(self._id(), open_tok.pos, start, end, arg.operand, arg.field, True)
            self._error(arg.pos, "invalid argument to has() macro")
            return A.Literal(self._id(), arg.pos, start, end, False)
        return A.Call(self._id(), open_tok.pos, start, end, name, tuple(args))

    def receiver_call(self, open_tok: Token, name: str, target: A.Expr, args: list[A.Expr],
                      end: int) -> A.Expr:
        n = len(args)
        pos, start = open_tok.pos, target.start
        macro = None
        if name in ("all", "exists", "exists_one", "existsOne") and n in (2, 3):
            macro = self._quantifier
        elif name == "map" and n in (2, 3):
            macro = self._map
        elif name == "filter" and n == 2:
            macro = self._filter
        elif name in ("transformList", "transformMap", "transformMapEntry") and n in (3, 4):
            macro = self._transform
        elif name == "bind" and n == 3 and isinstance(target, A.Ident) and target.name == "cel":
            macro = self._bind
        elif name in ("optMap", "optFlatMap") and n == 2:
            macro = self._opt_map
        elif name == "sortBy" and n == 2 and self.sort_by:
            macro = self._sort_by
        if macro is not None:
            result = macro(name, target, args, pos, start, end)
            if result is not None:
                return result
            return A.Literal(self._id(), pos, start, end, False)   # error already recorded
        return A.Call(self._id(), pos, start, end, name, tuple(args), target)

    def _ident(self, name: str, pos: int) -> A.Ident:
        return A.Ident(self._id(), pos, pos, pos, name)

    def _call(self, fn: str, pos: int, *args: A.Expr) -> A.Call:
        return A.Call(self._id(), pos, pos, pos, fn, tuple(args))

    def _lit(self, value: object, pos: int) -> A.Literal:
        return A.Literal(self._id(), pos, pos, pos, value)

    def _iter_var(self, arg: A.Expr, message: str) -> str | None:
        if not isinstance(arg, A.Ident):
            self._error(arg.pos, message)
            return None
        if arg.name in (A.ACCU, "__result__"):
            self._error(arg.pos, "iteration variable overwrites accumulator variable")
            return None
        return arg.name

    def _comp(self, pos: int, start: int, end: int, rng: A.Expr, v1: str, v2: str | None,
              init: A.Expr, cond: A.Expr, step: A.Expr, result: A.Expr, macro: str,
              args: tuple[A.Expr, ...], accu: str = A.ACCU) -> A.Comprehension:
        return A.Comprehension(self._id(), pos, start, end, rng, v1, v2, accu, init, cond, step,
                               result, macro, args)

    def _iter_vars(self, args: list[A.Expr], two: bool) -> tuple[str, str | None] | None:
        """The macro's iteration variable(s), or None with the error recorded."""
        v1 = self._iter_var(args[0], "argument must be a simple name")
        if v1 is None or not two:
            return None if v1 is None else (v1, None)
        v2 = self._iter_var(args[1], "argument must be a simple name")
        if v2 is None:
            return None
        if v1 == v2:
            self._error(args[1].pos, f"duplicate variable name: {v1}")
            return None
        return v1, v2

    def _quantifier(self, name, target, args, pos, start, end):
        names = self._iter_vars(args, len(args) == 3)
        if names is None:
            return None
        v1, v2 = names
        pred = args[-1]
        accu = self._ident(A.ACCU, pos)
        kind = "exists_one" if name == "existsOne" else name
        if kind == "all":
            init = self._lit(True, pos)
            cond = self._call("@not_strictly_false", pos, accu)
            step = self._call("_&&_", pos, self._ident(A.ACCU, pos), pred)
            result = self._ident(A.ACCU, pos)
        elif kind == "exists":
            init = self._lit(False, pos)
            cond = self._call("@not_strictly_false", pos, self._call("!_", pos, accu))
            step = self._call("_||_", pos, self._ident(A.ACCU, pos), pred)
            result = self._ident(A.ACCU, pos)
        else:
            init = self._lit(0, pos)
            cond = self._lit(True, pos)
            step = self._call("_?_:_", pos, pred,
                              self._call("_+_", pos, accu, self._lit(1, pos)), self._ident(A.ACCU, pos))
            result = self._call("_==_", pos, self._ident(A.ACCU, pos), self._lit(1, pos))
        return self._comp(pos, start, end, target, v1, v2, init, cond, step, result, kind, (pred,))

    def _map(self, name, target, args, pos, start, end):
        v = self._iter_var(args[0], "argument is not an identifier")
        if v is None:
            return None
        accu = self._ident(A.ACCU, pos)
        transform = args[-1]
        pred = args[1] if len(args) == 3 else None
        step: A.Expr = self._call("_+_", pos, accu, A.ListLit(self._id(), pos, pos, pos, (transform,)))
        if pred is not None:
            step = self._call("_?_:_", pos, pred, step, self._ident(A.ACCU, pos))
        init = A.ListLit(self._id(), pos, pos, pos, ())
        margs = (transform,) if pred is None else (pred, transform)
        return self._comp(pos, start, end, target, v, None, init, self._lit(True, pos), step,
                          self._ident(A.ACCU, pos), "map", margs)

    def _filter(self, name, target, args, pos, start, end):
        v = self._iter_var(args[0], "argument is not an identifier")
        if v is None:
            return None
        pred = args[1]
        accu = self._ident(A.ACCU, pos)
        step = self._call("_?_:_", pos, pred,
                          self._call("_+_", pos, accu,
                                     A.ListLit(self._id(), pos, pos, pos, (self._ident(v, args[0].pos),))),
                          self._ident(A.ACCU, pos))
        init = A.ListLit(self._id(), pos, pos, pos, ())
        return self._comp(pos, start, end, target, v, None, init, self._lit(True, pos), step,
                          self._ident(A.ACCU, pos), "filter", (pred,))

    def _transform(self, name, target, args, pos, start, end):
        names = self._iter_vars(args, True)
        if names is None:
            return None
        v1, v2 = names
        transform = args[-1]
        filt = args[2] if len(args) == 4 else None
        accu = self._ident(A.ACCU, pos)
        if name == "transformList":
            init: A.Expr = A.ListLit(self._id(), pos, pos, pos, ())
            step: A.Expr = self._call("_+_", pos, accu, A.ListLit(self._id(), pos, pos, pos, (transform,)))
        elif name == "transformMap":
            init = A.MapLit(self._id(), pos, pos, pos, ())
            step = self._call("cel.@mapInsert", pos, accu, self._ident(v1, pos), transform)
        else:
            init = A.MapLit(self._id(), pos, pos, pos, ())
            step = self._call("cel.@mapInsert", pos, accu, transform)
        if filt is not None:
            step = self._call("_?_:_", pos, filt, step, self._ident(A.ACCU, pos))
        margs = (transform,) if filt is None else (filt, transform)
        return self._comp(pos, start, end, target, v1, v2, init, self._lit(True, pos), step,
                          self._ident(A.ACCU, pos), name, margs)

    def _bind(self, name, target, args, pos, start, end):
        var = args[0]
        if not isinstance(var, A.Ident):
            self._error(var.pos, "cel.bind() variable names must be simple identifiers")
            return None
        rng = A.ListLit(self._id(), pos, pos, pos, ())
        return self._comp(pos, start, end, rng, "#unused", None, args[1], self._lit(False, pos),
                          self._ident(var.name, pos), args[2], "bind", (args[1], args[2]),
                          accu=var.name)

    def _opt_map(self, name, target, args, pos, start, end):
        var = args[0]
        if not isinstance(var, A.Ident):
            self._error(var.pos, f"{name}() variable name must be a simple identifier")
            return None
        body = args[1]
        value = A.Call(self._id(), pos, pos, pos, "value", (), target)
        comp = self._comp(pos, start, end, A.ListLit(self._id(), pos, pos, pos, ()), "#unused", None,
                          value, self._lit(False, pos), self._ident(var.name, pos), body, "bind",
                          (value, body), accu=var.name)
        has = A.Call(self._id(), pos, pos, pos, "hasValue", (), target)
        yes: A.Expr = self._call("optional.of", pos, comp) if name == "optMap" else comp
        return A.Call(self._id(), pos, start, end, "_?_:_", (has, yes, self._call("optional.none", pos)))

    def _sort_by(self, name, target, args, pos, start, end):
        if not isinstance(target, (A.ListLit, A.Select, A.Ident, A.Comprehension, A.Call)):
            self._error(target.pos, "sortBy can only be applied to a list, identifier, comprehension, "
                                    "call or select expression")
            return None
        var = "@__sortBy_input__"
        mapped = self._map("map", self._ident(var, pos), args, pos, pos, pos)
        if mapped is None:
            return None
        call = A.Call(self._id(), pos, pos, pos, "@sortByAssociatedKeys", (mapped,), self._ident(var, pos))
        return self._comp(pos, start, end, A.ListLit(self._id(), pos, pos, pos, ()), "#unused", None,
                          target, self._lit(False, pos), self._ident(var, pos), call, "bind",
                          (target, call), accu=var)


def _unescape(text: str, is_bytes: bool) -> str | bytes:
    """cel-go parser/unescape.go: quotes, raw strings, escapes; bytes keep raw \\x bytes."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    raw = False
    if text[:1] in ("r", "R"):
        raw = True
        text = text[1:]
    if len(text) >= 6 and (text.startswith("'''") or text.startswith('"""')):
        body = text[3:-3]
    else:
        body = text[1:-1]
    if raw or "\\" not in body:
        return body.encode("utf-8") if is_bytes else body
    out = bytearray()
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
            continue
        if i + 1 >= n:
            raise ValueError("unable to unescape string, found '\\' as last character")
        e = body[i + 1]
        i += 2
        simple = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
                  "\\": "\\", "'": "'", '"': '"', "`": "`", "?": "?"}
        if e in simple:
            out += simple[e].encode()
        elif e in "xXuU":
            width = 2 if e in "xX" else 4 if e == "u" else 8
            if is_bytes and e in "uU":
                raise ValueError("unable to unescape string")
            digits = body[i:i + width]
            if len(digits) < width or any(d not in "0123456789abcdefABCDEF" for d in digits):
                raise ValueError("unable to unescape string")
            v = int(digits, 16)
            i += width
            if is_bytes:
                out.append(v)
            else:
                if v > 0x10FFFF or 0xD800 <= v <= 0xDFFF:
                    raise ValueError("invalid unicode code point")
                out += chr(v).encode("utf-8")
        elif e in "0123":
            digits = body[i:i + 2]
            if len(digits) < 2 or any(d not in "01234567" for d in digits):
                raise ValueError("unable to unescape octal sequence in string")
            v = int(e + digits, 8)
            i += 2
            if is_bytes:
                out.append(v)
            else:
                out += chr(v).encode("utf-8")
        else:
            raise ValueError("unable to unescape string")
    if is_bytes:
        return bytes(out)
    return out.decode("utf-8", errors="replace")


def parse(src: str, sort_by: bool = True) -> A.Expr:
    """Parse `src`, raising ParseFailed with cel-go's issues; `sort_by`: with the lists
    extension's sortBy macro (without it, `sortBy` is an ordinary call)."""
    return Parser(src, sort_by).parse()
