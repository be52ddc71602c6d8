"""The type checker: cel-go's checker/checker.go over the DRA environment, plus the Kubernetes AST
validators (homogeneous aggregate literals, regex literals), reporting what cel-go reports, where and
in its words.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kexplain.cel import ast as A
from kexplain.cel import types as T
from kexplain.cel.functions import Function, Overload
from kexplain.cel.library import functions
from kexplain.cel.library.re2 import RegexError, RegexUnsupported, compile_regex
from kexplain.cel.types import Type
from kexplain.cel.values import UInt

DEVICE_FIELDS: dict[str, Type] = {
    "driver": T.STRING,
    "attributes": T.map_of(T.STRING, T.map_of(T.STRING, T.ANY)),
    "capacity": T.map_of(T.STRING, T.map_of(T.STRING, T.QUANTITY)),
}
STRUCT_FIELDS = {"kubernetes.DRADevice": DEVICE_FIELDS}
VARIABLES: dict[str, Type] = {
    "device": T.DEVICE,
    "bool": T.type_of(T.BOOL), "bytes": T.type_of(T.BYTES), "double": T.type_of(T.DOUBLE),
    "int": T.type_of(T.INT), "uint": T.type_of(T.UINT), "string": T.type_of(T.STRING),
    "null_type": T.type_of(T.NULL), "dyn": T.type_of(T.DYN), "type": T.type_of(T.type_of()),
    "list": T.type_of(T.list_of(T.DYN)), "map": T.type_of(T.map_of(T.DYN, T.DYN)),
    "optional_type": T.type_of(T.optional_of(T.DYN)),
    "kubernetes.Quantity": T.type_of(T.QUANTITY), "kubernetes.Semver": T.type_of(T.SEMVER),
}


@dataclass(frozen=True)
class Issue:
    pos: int | None
    message: str


@dataclass
class Checked:
    """What the checker learned: each node's type, and for calls the overloads that may run."""

    types: dict[A.Expr, Type] = field(default_factory=dict)
    calls: dict[A.Expr, tuple[Function, tuple[Overload, ...], bool]] = field(default_factory=dict)
    idents: dict[A.Expr, str] = field(default_factory=dict)   # Select chains naming a variable
    issues: list[Issue] = field(default_factory=list)


def qualified_name(e: A.Expr) -> str | None:
    """`a.b.c` for a chain of selects over an identifier (containers.ToQualifiedName)."""
    if isinstance(e, A.Ident):
        return e.name
    if isinstance(e, A.Select) and not e.test_only:
        base = qualified_name(e.operand)
        return None if base is None else f"{base}.{e.field}"
    return None


class Checker:
    def __init__(self, fns: dict[str, Function] | None = None) -> None:
        self.out = Checked()
        self.mappings: T.Mapping = {}
        self.fresh = 0
        self.scopes: list[dict[str, Type]] = []
        self.fns = fns if fns is not None else functions()

    # -- helpers ----------------------------------------------------------------------------

    def error(self, e: A.Expr | None, message: str, pos: int | None = None) -> None:
        self.out.issues.append(Issue(e.pos if e is not None else pos, message))

    def set_type(self, e: A.Expr, t: Type) -> None:
        self.out.types[e] = t

    def get_type(self, e: A.Expr) -> Type:
        return self.out.types[e]

    def new_var(self) -> Type:
        t = T.param(f"_var{self.fresh}")
        self.fresh += 1
        return t

    def assignable(self, t1: Type, t2: Type) -> bool:
        m = T.is_assignable(self.mappings, t1, t2)
        if m is None:
            return False
        self.mappings = m
        return True

    def lookup_ident(self, name: str) -> Type | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        name = name[1:] if name.startswith(".") else name
        return VARIABLES.get(name)

    def lookup_function(self, name: str) -> Function | None:
        return self.fns.get(name[1:] if name.startswith(".") else name)

    # -- traversal --------------------------------------------------------------------------

    def check(self, e: A.Expr) -> None:
        if isinstance(e, A.Literal):
            self.set_type(e, _literal_type(e.value))
        elif isinstance(e, A.Ident):
            t = self.lookup_ident(e.name)
            if t is None:
                self.set_type(e, T.ERROR)
                self.error(e, f"undeclared reference to '{e.name}' (in container '')")
            else:
                self.set_type(e, t)
        elif isinstance(e, A.Select):
            self.check_select(e)
        elif isinstance(e, A.Call):
            self.check_call(e)
        elif isinstance(e, A.ListLit):
            self.check_list(e)
        elif isinstance(e, A.MapLit):
            self.check_map(e)
        elif isinstance(e, A.StructLit):
            for _, v, _ in e.fields:
                self.check(v)
            self.set_type(e, T.ERROR)
            self.error(e, f"undeclared reference to '{e.type_name}' (in container '')")
        elif isinstance(e, A.Comprehension):
            self.check_comprehension(e)
        else:  # pragma: no cover
            raise AssertionError(type(e))

    def check_select(self, e: A.Select) -> None:
        qname = qualified_name(e)
        if qname is not None and not self._shadowed(qname):
            t = self.lookup_ident(qname)
            if t is not None:
                self.set_type(e, t)
                self.out.idents[e] = qname
                return
        result = self.check_select_field(e, e.operand, e.field, False)
        if e.test_only:
            result = T.BOOL
        self.set_type(e, T.substitute(self.mappings, result, False))

    def _shadowed(self, qname: str) -> bool:
        head = qname.split(".", 1)[0]
        return any(head in s for s in self.scopes)

    def check_select_field(self, e: A.Expr, operand: A.Expr, fname: str, optional: bool) -> Type:
        self.check(operand)
        operand_type = T.substitute(self.mappings, self.get_type(operand), False)
        target, is_opt = T.unwrap_optional(operand_type)
        result = T.ERROR
        if target.kind == "map":
            result = target.params[1]
        elif target.kind == "object":
            fields = STRUCT_FIELDS.get(target.name, {})
            if fname in fields:
                result = fields[fname]
            else:
                self.error(e, f"undefined field '{fname}'")
        elif target.kind == "typeparam":
            self.assignable(T.DYN, target)
            result = T.DYN
        else:
            if not T.is_dyn_or_error(target):
                self.error(e, f"type '{T.format_type(target)}' does not support field selection")
            result = T.DYN
        if is_opt or optional:
            return T.optional_of(result)
        return result

    def check_call(self, e: A.Call) -> None:
        name = e.function
        if name == "_?._":
            operand, fld = e.args
            result = self.check_select_field(e, operand, fld.value, True)
            self.set_type(fld, T.STRING)
            self.set_type(e, T.substitute(self.mappings, result, False))
            f = self.fns["_?._"]
            self.out.calls[e] = (f, f.overloads, False)
            return
        for a in e.args:
            self.check(a)
        if e.target is None:
            f = self.lookup_function(name)
            if f is None:
                self.error(e, f"undeclared reference to '{name}' (in container '')")
                self.set_type(e, T.ERROR)
                return
            self.resolve(e, f, None, e.args)
            return
        qual = qualified_name(e.target)
        if qual is not None and not self._shadowed(qual):
            f = self.lookup_function(f"{qual}.{name}")
            if f is not None:
                self.resolve(e, f, None, e.args, namespaced=True)
                return
        self.check(e.target)
        f = self.lookup_function(name)
        if f is not None:
            self.resolve(e, f, e.target, e.args)
            return
        self.set_type(e, T.ERROR)
        self.error(e, f"undeclared reference to '{name}' (in container '')")

    def resolve(self, e: A.Call, f: Function, target: A.Expr | None, args: tuple[A.Expr, ...],
                namespaced: bool = False) -> None:
        arg_types = ([self.get_type(target)] if target is not None else []) + [self.get_type(a) for a in args]
        result: Type | None = None
        matched: list[Overload] = []
        for o in f.overloads:
            if (target is None) == o.member:
                continue
            if f.name in ("_&&_", "_||_"):
                ok = True
                for a, at in zip(args, arg_types):
                    if not self.assignable(at, T.BOOL):
                        self.error(a, f"expected type 'bool' but found '{T.format_type(at)}'")
                        ok = False
                if not ok:
                    self.set_type(e, T.ERROR)
                    return
                self.set_type(e, T.BOOL)
                self.out.calls[e] = (f, (o,), namespaced)
                return
            names = set()
            for t in o.args + (o.result,):
                T.type_params(t, names)
            fresh = {n: self.new_var() for n in sorted(names)}
            cand = [T.rename_params(t, fresh) for t in o.args]
            m = T.is_assignable_list(self.mappings, arg_types, cand)
            if m is None:
                continue
            self.mappings = m
            matched.append(o)
            rt = T.substitute(self.mappings, T.rename_params(o.result, fresh), False)
            if result is None:
                result = rt
            elif not T.is_dyn(result) and rt != result:
                result = T.DYN
        if result is None:
            shown = [T.format_type(T.substitute(self.mappings, t, True)) for t in arg_types]
            sig = ("" if target is None else shown[0] + ".") + "(" + \
                  ", ".join(shown if target is None else shown[1:]) + ")"
            self.error(e, f"found no matching overload for '{f.name}' applied to '{sig}'")
            self.set_type(e, T.ERROR)
            return
        self.set_type(e, result)
        self.out.calls[e] = (f, tuple(matched), namespaced)

    def join(self, e: A.Expr, prev: Type | None, cur: Type) -> Type:
        if prev is None:
            return cur
        if self.assignable(prev, cur):
            return T.most_general(prev, cur)
        return T.DYN   # mixed literals are dyn; the homogeneity validator reports them

    def check_list(self, e: A.ListLit) -> None:
        elem: Type | None = None
        for i, x in enumerate(e.elements):
            self.check(x)
            t = self.get_type(x)
            if i in e.optional_indices:
                inner, is_opt = T.unwrap_optional(t)
                if not is_opt and not T.is_dyn(inner):
                    self.error(x, f"expected type '{T.format_type(T.optional_of(inner))}' but found "
                                  f"'{T.format_type(inner)}'")
                t = inner
            elem = self.join(x, elem, t)
        self.set_type(e, T.list_of(elem if elem is not None else self.new_var()))

    def check_map(self, e: A.MapLit) -> None:
        kt: Type | None = None
        vt: Type | None = None
        for en in e.entries:
            self.check(en.key)
            kt = self.join(en.key, kt, self.get_type(en.key))
            self.check(en.value)
            t = self.get_type(en.value)
            if en.optional:
                inner, is_opt = T.unwrap_optional(t)
                if not is_opt and not T.is_dyn(inner):
                    self.error(en.value, f"expected type '{T.format_type(T.optional_of(inner))}' but "
                                         f"found '{T.format_type(inner)}'")
                t = inner
            vt = self.join(en.value, vt, t)
        if kt is None:
            kt, vt = self.new_var(), self.new_var()
        self.set_type(e, T.map_of(kt, vt))

    def check_comprehension(self, e: A.Comprehension) -> None:
        self.check(e.iter_range)
        self.check(e.accu_init)
        rng = T.substitute(self.mappings, self.get_type(e.iter_range), False)
        accu_t = self.get_type(e.accu_init)
        self.scopes.append({e.accu_var: accu_t})
        v2: Type | None = None
        if rng.kind == "list":
            v1 = rng.params[0]
            if e.iter_var2 is not None:
                v1, v2 = T.INT, rng.params[0]
        elif rng.kind == "map":
            v1 = rng.params[0]
            if e.iter_var2 is not None:
                v2 = rng.params[1]
        elif rng.kind in ("dyn", "any", "error", "typeparam"):
            self.assignable(T.DYN, rng)
            v1 = T.DYN
            v2 = T.DYN if e.iter_var2 is not None else None
        else:
            self.error(e.iter_range, f"expression of type '{T.format_type(rng)}' cannot be range of a "
                                     "comprehension (must be list, map, or dynamic)")
            v1 = T.ERROR
            v2 = T.ERROR if e.iter_var2 is not None else None
        loop = {e.iter_var: v1}
        if e.iter_var2 is not None:
            loop[e.iter_var2] = v2
        self.scopes.append(loop)
        self.check(e.loop_cond)
        self.assert_type(e.loop_cond, T.BOOL)
        self.check(e.loop_step)
        self.assert_type(e.loop_step, accu_t)
        self.scopes.pop()
        self.check(e.result)
        self.scopes.pop()
        self.set_type(e, T.substitute(self.mappings, self.get_type(e.result), False))

    def assert_type(self, e: A.Expr, t: Type) -> None:
        actual = self.get_type(e)
        if not self.assignable(t, actual):
            self.error(e, f"expected type '{T.format_type(t)}' but found '{T.format_type(actual)}'")


_LITERAL_TYPES = {bool: T.BOOL, int: T.INT, UInt: T.UINT, float: T.DOUBLE, str: T.STRING, bytes: T.BYTES}


def _literal_type(v: object) -> Type:
    return _LITERAL_TYPES.get(type(v), T.NULL)


def _walk(e: A.Expr):
    stack = [e]
    while stack:
        x = stack.pop()
        yield x
        stack.extend(reversed(A.children(x)))


def validate(root: A.Expr, checked: Checked) -> None:
    """The Kubernetes environment's AST validators, run after a clean type-check."""
    issues = checked.issues
    types = checked.types
    for x in _walk(root):
        if isinstance(x, A.ListLit):
            first: Type | None = None
            for i, el in enumerate(x.elements):
                t = types[el]
                if i in x.optional_indices and T.is_optional(t):
                    t = t.params[0]
                if first is None:
                    first = t
                elif not _equivalent(first, t):
                    issues.append(Issue(el.pos, f"expected type '{T.format_type(first)}' but found "
                                                f"'{T.format_type(t)}'"))
                    break
        elif isinstance(x, A.MapLit):
            kt = vt = None
            for en in x.entries:
                k, v = types[en.key], types[en.value]
                if en.optional and T.is_optional(v):
                    v = v.params[0]
                if kt is None and vt is None:
                    kt, vt = k, v
                    continue
                if not _equivalent(kt, k):
                    issues.append(Issue(en.key.pos, f"expected type '{T.format_type(kt)}' but found "
                                                    f"'{T.format_type(k)}'"))
                if not _equivalent(vt, v):
                    issues.append(Issue(en.value.pos, f"expected type '{T.format_type(vt)}' but found "
                                                      f"'{T.format_type(v)}'"))
        elif isinstance(x, A.Call) and x.function == "matches" and x.args:
            lit = x.args[0]
            if isinstance(lit, A.Literal) and type(lit.value) is str:
                try:
                    compile_regex(lit.value)
                except RegexError:
                    issues.append(Issue(lit.pos, "invalid matches argument"))
                except RegexUnsupported:
                    pass


def _equivalent(a: Type, b: Type) -> bool:
    """cel-go `Type.IsEquivalentType`: same kind, name and (recursively) parameters."""
    return a == b


def check(root: A.Expr, fns: dict[str, Function] | None = None) -> Checked:
    """Type-check `root` against `fns` (`library.functions`; default: every library)."""
    c = Checker(fns)
    c.check(root)
    for e, t in list(c.out.types.items()):
        c.out.types[e] = T.substitute(c.mappings, t, True)
    if not c.out.issues:
        validate(root, c.out)
    return c.out
