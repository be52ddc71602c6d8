"""Compile a checked AST into nested Python closures, built once per expression and reused for every
device, and run them with CEL's semantics: errors absorbed where CEL absorbs them, cost as cel-go's
runtime tracker (interpreter/runtimecost.go) with the Kubernetes prices (library/cost.go), checked so a
hostile selector stops within budget. Details: docs/internals/cel.md.
"""
from __future__ import annotations

from typing import Any, Callable

from kexplain.cel import ast as A
from kexplain.cel import types as T
from kexplain.cel.checker import Checked
from kexplain.cel.errors import CelCostError, CelEvalError, CelUnsupported
from kexplain.cel.functions import Overload, traversal
from kexplain.cel.library.stdlib import (TYPE_IDENTS, add, contains_in, div, ge, go_format_g, gt,
                             le, lt, mod, mul, neg, sub, to_string)
from kexplain.cel.quantity import Quantity
from kexplain.cel.semver import Semver
from kexplain.cel.values import (NONE, DefaultMap, DeviceObject, Optional, TypeValue, UInt, equals, format_value,
                     map_find, no_such_overload, size, type_name)

MAX_VALUE_SIZE = 10_000_000   # elements or characters kexplain will hold in one value
Closure = Callable[["Ctx"], Any]


class Ctx:
    """Per-evaluation state: variables in scope, cost so far, the limit, the trace."""

    __slots__ = ("vars", "cost", "limit", "trace")

    def __init__(self, variables: dict[str, Any], limit: int, trace: dict | None = None) -> None:
        self.vars = variables
        self.cost = 0
        self.limit = limit
        self.trace = trace


def charge(ctx: Ctx, n: int) -> None:
    ctx.cost += n
    if ctx.cost > ctx.limit:
        raise CelCostError()


_PY_TYPES: dict[str, frozenset[type]] = {
    "int": frozenset({int}), "uint": frozenset({UInt}), "double": frozenset({float}),
    "bool": frozenset({bool}), "string": frozenset({str}), "bytes": frozenset({bytes}),
    "null_type": frozenset({type(None)}), "list": frozenset({tuple, list}),
    "map": frozenset({dict, DefaultMap}), "type": frozenset({TypeValue}),
    "optional_type": frozenset({Optional}), "kubernetes.Quantity": frozenset({Quantity}),
    "kubernetes.Semver": frozenset({Semver}), "kubernetes.DRADevice": frozenset({DeviceObject}),
}
_GO_TYPES = {str: "types.String", int: "types.Int", UInt: "types.Uint", float: "types.Double",
             bool: "types.Bool", bytes: "types.Bytes", type(None): "types.Null",
             Optional: "*types.Optional", Quantity: "apiservercel.Quantity",
             Semver: "apiservercel.Semver", TypeValue: "*types.Type",
             DeviceObject: "*types.Object"}


def _guard(o: Overload) -> tuple[frozenset[type] | None, ...]:
    return tuple(_PY_TYPES.get(k) if (k := T.runtime_kind(t)) is not None else None for t in o.args)


def _matches(guard: tuple[frozenset[type] | None, ...], args: tuple[Any, ...]) -> bool:
    for g, a in zip(guard, args):
        if g is not None and type(a) not in g:
            return False
    return True


def key_text(v: Any) -> str:
    """A key as Go's `%v` prints a CEL value in `no such key: %v`: a scalar as `string()` writes it."""
    return to_string(v) if type(v) in (str, bool, float, int, UInt) else format_value(v)


def _too_large() -> None:
    raise CelUnsupported(f"kexplain does not build CEL values of more than {MAX_VALUE_SIZE:,} "
                         "elements or characters")


def _check_size(v: Any) -> Any:
    t = type(v)
    if (t is str or t is bytes or t is tuple) and len(v) > MAX_VALUE_SIZE:
        _too_large()
    return v


# -- qualification (select, index, optional select/index) -----------------------------------

def select_field(v: Any, name: str) -> Any:
    t = type(v)
    if t is dict or t is DefaultMap:
        found, x = map_find(v, name)
        if found:
            return x
        raise CelEvalError(f"no such key: {name}")
    if t is DeviceObject:
        return v.field(name)
    if t is Optional:
        return _opt_qualify(v, name)
    raise CelEvalError(f"no such key: {name}")


def _present(v: Any, key: Any) -> tuple[bool, Any]:
    """Qualify-if-present: (found, value) without raising for a missing key or index."""
    t = type(v)
    if t is dict or t is DefaultMap:
        return map_find(v, key)
    if t is DeviceObject:
        if type(key) is str and key in ("driver", "attributes", "capacity"):
            return True, v.field(key)
        return False, None
    if t is tuple or t is list:
        i = _list_index(key)
        if 0 <= i < len(v):
            return True, v[i]
        return False, None
    return False, None


def _opt_qualify(opt: Optional, key: Any) -> Optional:
    if not opt.present:
        return NONE
    found, x = _present(opt.value, key)
    return Optional(True, x) if found else NONE


def _list_index(key: Any) -> int:
    t = type(key)
    if t is int:
        return key
    if t is UInt:
        if key > (1 << 63) - 1:
            raise CelEvalError(f"unsupported index value {int(key)} in list")
        return int(key)
    if t is float:
        if key == key and key == int(key) and -(2 ** 63) < key < 2 ** 63:
            return int(key)
        raise CelEvalError(f"unsupported index value {go_format_g(key)} in list")
    raise CelEvalError(f"unsupported index type '{type_name(key)}' in list")


def index(v: Any, key: Any) -> Any:
    t = type(v)
    if t is tuple or t is list:
        i = _list_index(key)
        if 0 <= i < len(v):
            return v[i]
        raise CelEvalError(f"index out of bounds: {i}")
    if t is dict or t is DefaultMap:
        found, x = map_find(v, key)
        if found:
            return x
        raise CelEvalError(f"no such key: {key_text(key)}")
    if t is Optional:
        return _opt_qualify(v, key)
    if t is DeviceObject and type(key) is str:
        return v.field(key)
    raise CelEvalError(f"no such key: {key_text(key)}")


def opt_index(v: Any, key: Any) -> Optional:
    if type(v) is Optional:
        return _opt_qualify(v, key)
    found, x = _present(v, key)
    return Optional(True, x) if found else NONE


class Compiler:
    """Turns checked nodes into closures (plain or tracing)."""

    def __init__(self, checked: Checked, trace: bool) -> None:
        self.checked = checked
        self.trace = trace
        self._consts: dict[A.Expr, tuple[bool, Any]] = {}

    def constant(self, e: A.Expr) -> tuple[bool, Any]:
        """cel-go's plan-time folding (OptOptimize): (True, value) when known, a CelEvalError for a constant
        aggregate that fails to build."""
        if e in self._consts:
            return self._consts[e]
        out: tuple[bool, Any] = (False, None)
        if isinstance(e, A.Literal):
            out = (True, e.value)
        elif isinstance(e, A.ListLit) and not e.optional_indices:
            vals = [self.constant(x) for x in e.elements]
            if all(ok and not isinstance(v, CelEvalError) for ok, v in vals):
                out = (True, tuple(v for _, v in vals))
        elif isinstance(e, A.MapLit) and not any(en.optional for en in e.entries):
            pairs = [(self.constant(en.key), self.constant(en.value)) for en in e.entries]
            if all(k[0] and v[0] and not isinstance(k[1], CelEvalError) and not isinstance(v[1], CelEvalError)
                   for k, v in pairs):
                built: dict = {}
                value: Any = built
                for (_, k), (_, v) in pairs:
                    try:
                        built[k] = v   # a repeated key keeps its last value, as in cel-go
                    except TypeError:
                        value = CelEvalError(f"unsupported map key: {format_value(k)}")
                        break
                out = (True, value)
        elif isinstance(e, A.Call) and e.target is None and len(e.args) == 1 \
                and e.function in _CONVERSIONS and e in self.checked.calls:
            ok, v = self.constant(e.args[0])
            if ok and not isinstance(v, CelEvalError):
                _, overloads, _ = self.checked.calls[e]
                for o in overloads:
                    if o.impl is not None and _matches(_guard(o), (v,)):
                        try:
                            out = (True, o.impl(v))
                        except CelEvalError as err:
                            raise ConstantError(str(err)) from None
                        break
        self._consts[e] = out
        return out

    def compile(self, e: A.Expr) -> Closure:
        f = self._compile(e)
        if not self.trace:
            return f

        def traced(ctx: Ctx, f=f, e=e) -> Any:
            try:
                v = f(ctx)
            except CelEvalError as err:
                ctx.trace[e] = err
                raise
            ctx.trace[e] = v
            return v
        return traced

    def _compile(self, e: A.Expr) -> Closure:
        ok, v = self.constant(e)
        if ok:
            if isinstance(v, CelEvalError):
                err = v

                def failing(ctx: Ctx) -> Any:
                    raise CelEvalError(str(err))
                return failing
            return lambda ctx: v
        if isinstance(e, A.Ident):
            return self.ident(e.name, self.checked.types.get(e))
        if isinstance(e, A.Select):
            if e in self.checked.idents:
                return self.ident(self.checked.idents[e], self.checked.types.get(e))
            return self.select(e)
        if isinstance(e, A.Call):
            return self.call(e)
        if isinstance(e, A.ListLit):
            return self.list_lit(e)
        if isinstance(e, A.MapLit):
            return self.map_lit(e)
        if isinstance(e, A.Comprehension):
            return self.comprehension(e)
        raise CelUnsupported(f"kexplain cannot evaluate {type(e).__name__}")   # pragma: no cover

    # -- leaves -----------------------------------------------------------------------------

    def ident(self, name: str, typ: T.Type | None) -> Closure:
        name = name[1:] if name.startswith(".") else name
        if name in TYPE_IDENTS and typ is not None and typ.kind == "type":
            tv = TypeValue(TYPE_IDENTS[name])   # a type name is a constant (cost 0)
            return lambda ctx: tv

        def var(ctx: Ctx) -> Any:
            ctx.cost += 1
            try:
                return ctx.vars[name]
            except KeyError:
                raise CelEvalError(f"no such attribute(s): {name}") from None
        return var

    def select(self, e: A.Select) -> Closure:
        operand = self.compile(e.operand)
        name = e.field
        if e.test_only:
            def has(ctx: Ctx) -> bool:
                v = operand(ctx)
                t = type(v)
                if t is dict or t is DefaultMap:
                    return map_find(v, name)[0]
                if t is DeviceObject:
                    return name in ("driver", "attributes", "capacity")
                if t is Optional:
                    return v.present and _present(v.value, name)[0]
                return False
            return has

        def sel(ctx: Ctx) -> Any:
            v = operand(ctx)
            ctx.cost += 1
            if type(v) is dict:
                try:
                    return v[name]
                except KeyError:
                    pass
            return select_field(v, name)
        return sel

    def list_lit(self, e: A.ListLit) -> Closure:
        elems = [self.compile(x) for x in e.elements]
        opt = e.optional_indices

        def make_list(ctx: Ctx) -> tuple:
            out = []
            for i, f in enumerate(elems):
                v = f(ctx)
                if i in opt:
                    if type(v) is not Optional:
                        raise CelEvalError("cannot initialize optional list element from non-optional "
                                           f"value {format_value(v)}")
                    if v.present:
                        out.append(v.value)
                else:
                    out.append(v)
            ctx.cost += 10
            return tuple(out)
        return make_list

    def map_lit(self, e: A.MapLit) -> Closure:
        entries = [(self.compile(en.key), self.compile(en.value), en.optional) for en in e.entries]

        def make_map(ctx: Ctx) -> dict:
            out: dict = {}
            for kf, vf, opt in entries:
                k = kf(ctx)
                v = vf(ctx)
                if opt:
                    if type(v) is not Optional:
                        raise CelEvalError(f"cannot initialize optional entry '{key_text(k)}' from "
                                           f"non-optional value {format_value(v)}")
                    if not v.present:
                        out.pop(k, None)
                        continue
                    v = v.value
                try:
                    out[k] = v   # a repeated key keeps its last value, as in cel-go
                except TypeError:
                    raise CelEvalError(f"unsupported map key: {format_value(k)}") from None
            ctx.cost += 30
            return out
        return make_map

    # -- calls ------------------------------------------------------------------------------

    def call(self, e: A.Call) -> Closure:
        fn = e.function
        special = _SPECIAL.get(fn)
        if special is not None:
            return special(self, e)
        func, overloads, namespaced = self.checked.calls[e]
        args = list(e.args) if (e.target is None or namespaced) else [e.target, *e.args]
        if fn in ("or", "orValue") and len(args) == 2:
            return self.optional_or(fn, args)
        arg_fns = [self.compile(a) for a in args]
        cands = [(o, _guard(o)) for o in overloads if o.impl is not None]
        if not cands:
            raise CelUnsupported(f"kexplain does not implement the CEL function '{fn}'")
        name = fn

        def dispatch(vals: tuple[Any, ...]) -> tuple[Overload, Any]:
            for o, g in cands:
                if _matches(g, vals):
                    return o, o.impl
            raise no_such_overload(name, *vals)

        if len(cands) == 1:
            o, g = cands[0]
            impl, pre, post = o.impl, o.precost, o.cost
            if len(arg_fns) == 1:
                a0 = arg_fns[0]
                g0 = g[0]

                def call1(ctx: Ctx) -> Any:
                    v = a0(ctx)
                    if g0 is not None and type(v) not in g0:
                        raise no_such_overload(name, v)
                    if pre is not None:
                        charge(ctx, pre((v,)))
                    r = impl(v)
                    ctx.cost += post((v,), r) if post is not None else (0 if pre is not None else 1)
                    return _check_size(r)
                return call1
            if len(arg_fns) == 2:
                a0, a1 = arg_fns
                g0, g1 = g

                def call2(ctx: Ctx) -> Any:
                    v0 = a0(ctx)
                    v1 = a1(ctx)
                    if (g0 is not None and type(v0) not in g0) or (g1 is not None and type(v1) not in g1):
                        raise no_such_overload(name, v0, v1)
                    if pre is not None:
                        charge(ctx, pre((v0, v1)))
                    r = impl(v0, v1)
                    ctx.cost += post((v0, v1), r) if post is not None else (0 if pre is not None else 1)
                    return _check_size(r)
                return call2

        def calln(ctx: Ctx) -> Any:
            vals = tuple(f(ctx) for f in arg_fns)
            o, impl = dispatch(vals)
            if o.precost is not None:
                charge(ctx, o.precost(vals))
            r = impl(*vals)
            ctx.cost += o.cost(vals, r) if o.cost is not None else (0 if o.precost is not None else 1)
            return _check_size(r)
        return calln

    def optional_or(self, fn: str, args: list[A.Expr]) -> Closure:
        target, alt = (self.compile(a) for a in args)
        is_or = fn == "or"

        def opt_or(ctx: Ctx) -> Any:
            v = target(ctx)
            if type(v) is not Optional:
                raise no_such_overload(fn, v)
            ctx.cost += 1
            if v.present:
                return v if is_or else v.value
            w = alt(ctx)
            if is_or and type(w) is not Optional:
                raise no_such_overload(fn, v, w)
            return w
        return opt_or

    def logical(self, e: A.Call) -> Closure:
        op = e.function
        terms: list[A.Expr] = []

        def flatten(x: A.Expr) -> None:
            if isinstance(x, A.Call) and x.function == op and x.target is None and len(x.args) == 2:
                flatten(x.args[0])
                flatten(x.args[1])
            else:
                terms.append(x)
        flatten(e)
        fns = [self.compile(t) for t in terms]
        stop = op == "_||_"   # the value that short-circuits

        def logic(ctx: Ctx) -> bool:
            err: CelEvalError | None = None
            for f in fns:
                try:
                    v = f(ctx)
                except CelEvalError as x:
                    if err is None:
                        err = x
                    continue
                if v is stop:
                    return stop
                if type(v) is not bool and err is None:
                    err = CelEvalError("no such overload")
            if err is not None:
                raise err
            return not stop
        return logic

    def conditional(self, e: A.Call) -> Closure:
        c, y, n = (self.compile(a) for a in e.args)

        def cond(ctx: Ctx) -> Any:
            v = c(ctx)
            if v is True:
                return y(ctx)
            if v is False:
                return n(ctx)
            raise CelEvalError("no such overload")
        return cond

    def binary_op(self, e: A.Call) -> Closure:
        impl = _BINARY_IMPLS[e.function]
        lhs, rhs = (self.compile(a) for a in e.args)
        string_cost = e.function in ("_<_", "_<=_", "_>_", "_>=_", "_+_")

        is_add = e.function == "_+_"

        def binop(ctx: Ctx) -> Any:
            a = lhs(ctx)
            b = rhs(ctx)
            ta = type(a)
            if string_cost and (ta is str or ta is bytes) and type(b) is ta:
                charge(ctx, traversal(len(a) + len(b)) if is_add else traversal(min(len(a), len(b))))
            else:
                ctx.cost += 1
                if is_add and ta is tuple and type(b) is tuple and len(a) + len(b) > MAX_VALUE_SIZE:
                    _too_large()
            return _check_size(impl(a, b))
        return binop

    def equality(self, e: A.Call) -> Closure:
        lhs, rhs = (self.compile(a) for a in e.args)
        negate = e.function == "_!=_"

        def eq(ctx: Ctx) -> bool:
            a = lhs(ctx)
            b = rhs(ctx)
            ta = type(a)
            if ta is str or ta is tuple or ta is dict or ta is bytes or ta is list or ta is DefaultMap:
                ctx.cost += traversal(min(size(a), size(b)))
            else:
                ctx.cost += 1
            r = equals(a, b)
            return not r if negate else r
        return eq

    def unary_op(self, e: A.Call) -> Closure:
        arg = self.compile(e.args[0])
        if e.function == "!_":
            def not_(ctx: Ctx) -> bool:
                v = arg(ctx)
                ctx.cost += 1
                if type(v) is bool:
                    return not v
                raise no_such_overload("!_", v)
            return not_

        def negate(ctx: Ctx) -> Any:
            v = arg(ctx)
            ctx.cost += 1
            return neg(v)
        return negate

    def not_strictly_false(self, e: A.Call) -> Closure:
        arg = self.compile(e.args[0])

        def nsf(ctx: Ctx) -> bool:
            ctx.cost += 1
            try:
                v = arg(ctx)
            except CelEvalError:
                return True
            return v is not False
        return nsf

    def in_op(self, e: A.Call) -> Closure:
        lhs, rhs = (self.compile(a) for a in e.args)
        ok, const = self.constant(e.args[1])
        if ok and type(const) is tuple and all(type(x) in (bool, int, UInt, float, str) for x in const):
            # cel-go turns `x in [constants]` into a set lookup, which costs nothing itself.
            def in_set(ctx: Ctx) -> bool:
                return contains_in(lhs(ctx), const)
            return in_set

        def in_(ctx: Ctx) -> bool:
            a = lhs(ctx)
            b = rhs(ctx)
            if type(b) is tuple or type(b) is list:
                charge(ctx, len(b))
            else:
                ctx.cost += 1
            return contains_in(a, b)
        return in_

    def index_op(self, e: A.Call) -> Closure:
        operand, key = (self.compile(a) for a in e.args)
        optional = e.function == "_[?_]"
        if isinstance(e.args[1], A.Literal):
            k = e.args[1].value

            def const_index(ctx: Ctx) -> Any:
                v = operand(ctx)
                ctx.cost += 1
                if not optional and type(v) is dict and type(k) is str:
                    try:
                        return v[k]
                    except KeyError:
                        pass
                return opt_index(v, k) if optional else index(v, k)
            return const_index

        # An attribute used as the index is observed once, as the qualifier (cel-go unwraps it).
        qual_cost = 0 if isinstance(e.args[1], (A.Ident, A.Select)) else 1

        def dyn_index(ctx: Ctx) -> Any:
            v = operand(ctx)
            kv = key(ctx)
            ctx.cost += qual_cost
            return opt_index(v, kv) if optional else index(v, kv)
        return dyn_index

    def opt_select(self, e: A.Call) -> Closure:
        operand = self.compile(e.args[0])
        name = e.args[1].value

        def opt_sel(ctx: Ctx) -> Optional:
            v = operand(ctx)
            ctx.cost += 1
            return opt_index(v, name)
        return opt_sel

    # -- macros -----------------------------------------------------------------------------

    def comprehension(self, e: A.Comprehension) -> Closure:
        m = e.macro
        if m == "bind":
            return self.bind(e)
        rng = self.compile(e.iter_range)
        v1, v2 = e.iter_var, e.iter_var2
        args = [self.compile(a) for a in e.args]
        two = v2 is not None

        def items(ctx: Ctx, r: Any) -> list:
            t = type(r)
            if two:
                if t is tuple or t is list:
                    return list(enumerate(r))
                if t is dict or t is DefaultMap:
                    return list(r.items())
                raise CelEvalError(f"unsupported comprehension range type: {_GO_TYPES.get(t, t.__name__)}")
            if t is tuple or t is list or t is dict or t is DefaultMap:
                return [(x, None) for x in r]
            raise CelEvalError(f"got '{_GO_TYPES.get(t, t.__name__)}', expected iterable type")

        def bound(ctx: Ctx, body: Callable[[Ctx, Any], Any]) -> Any:
            r = rng(ctx)
            vs = ctx.vars
            saved1 = vs.get(v1, _UNSET)
            saved2 = vs.get(v2, _UNSET) if two else _UNSET
            try:
                return body(ctx, items(ctx, r))
            finally:
                _restore(vs, v1, saved1)
                if two:
                    _restore(vs, v2, saved2)

        def setvars(ctx: Ctx, a: Any, b: Any) -> None:
            ctx.vars[v1] = a
            if two:
                ctx.vars[v2] = b

        if m in ("all", "exists"):
            pred = args[0]
            stop = m == "exists"
            cond_cost = 2 if m == "all" else 3   # @not_strictly_false(@result) / (!@result)

            def quant(ctx: Ctx, pairs: list) -> bool:
                err: CelEvalError | None = None
                last = len(pairs) - 1
                for i, (a, b) in enumerate(pairs):
                    charge(ctx, cond_cost + 1)   # the condition, and the step's @result
                    setvars(ctx, a, b)
                    try:
                        v = pred(ctx)
                    except CelEvalError as x:
                        err = err or x
                        continue
                    if v is stop:
                        ctx.cost += (cond_cost if i < last else 0) + 1
                        return stop
                    if type(v) is not bool:
                        err = err or CelEvalError("no such overload")
                ctx.cost += 1   # the result's @result
                if err is not None:
                    raise err
                return not stop
            return lambda ctx: bound(ctx, quant)

        if m == "exists_one":
            pred = args[0]

            def one(ctx: Ctx, pairs: list) -> bool:
                count = 0
                err: CelEvalError | None = None
                for a, b in pairs:
                    charge(ctx, 1)
                    setvars(ctx, a, b)
                    try:
                        v = pred(ctx)
                    except CelEvalError as x:
                        err = err or x
                        continue
                    if v is True:
                        count += 1
                        ctx.cost += 1
                    elif v is not False:
                        err = err or CelEvalError("no such overload")
                ctx.cost += 2   # @result == 1
                if err is not None:
                    raise err
                return count == 1
            return lambda ctx: bound(ctx, one)

        if m in ("map", "filter", "transformList", "transformMap", "transformMapEntry"):
            if m == "filter":
                pred, transform = args[0], None
            elif len(args) == 2:
                pred, transform = args
            else:
                pred, transform = None, args[0]
            # The step's cost besides the user's expressions: `@result + [t]` is an add, an
            # accumulator access and a list; cel.@mapInsert a call and its accesses.
            step_cost = {"transformMap": 3, "transformMapEntry": 2}.get(m, 12)
            to_map = m in ("transformMap", "transformMapEntry")
            entry = m == "transformMapEntry"

            def build(ctx: Ctx, pairs: list) -> Any:
                out: list = []
                outm: dict = {}
                err: CelEvalError | None = None
                for a, b in pairs:
                    charge(ctx, 0)
                    setvars(ctx, a, b)
                    try:
                        if pred is not None:
                            keep = pred(ctx)
                            if type(keep) is not bool:
                                raise CelEvalError("no such overload")
                            if not keep:
                                ctx.cost += 1
                                continue
                        if transform is None:
                            ctx.cost += 13
                            val = a
                        else:
                            val = transform(ctx)
                            ctx.cost += step_cost
                    except CelEvalError as x:
                        err = err or x
                        continue
                    if err is not None:
                        continue
                    if to_map:
                        if entry:
                            if not isinstance(val, dict):
                                err = no_such_overload("cel.@mapInsert", outm, val)
                                continue
                            new = list(val.items())
                        else:
                            new = [(a, val)]
                        for k, x in new:
                            if map_find(outm, k)[0]:
                                err = CelEvalError(f"insert failed: key {key_text(k)} already exists")
                                break
                            outm[k] = x
                    else:
                        out.append(val)
                        if len(out) > MAX_VALUE_SIZE:
                            _too_large()
                ctx.cost += 1   # the result's @result
                if err is not None:
                    raise err
                return outm if to_map else tuple(out)
            return lambda ctx: bound(ctx, build)
        raise CelUnsupported(f"kexplain does not implement the macro '{m}'")   # pragma: no cover

    def bind(self, e: A.Comprehension) -> Closure:
        init = self.compile(e.accu_init)
        body = self.compile(e.result)
        name = e.accu_var

        def bind_(ctx: Ctx) -> Any:
            v = init(ctx)
            vs = ctx.vars
            saved = vs.get(name, _UNSET)
            vs[name] = v
            try:
                return body(ctx)
            finally:
                _restore(vs, name, saved)
        return bind_


_UNSET = object()
_CONVERSIONS = frozenset({"bool", "bytes", "double", "dyn", "int", "string", "type", "uint"})


class ConstantError(Exception):
    """A type conversion of a constant failed while planning: cel-go refuses the program
    (`program instantiation failed: ...`)."""


def _restore(vs: dict, name: str | None, saved: Any) -> None:
    if name is None:
        return
    if saved is _UNSET:
        vs.pop(name, None)
    else:
        vs[name] = saved


_BINARY_IMPLS = {"_+_": add, "_-_": sub, "_*_": mul, "_/_": div, "_%_": mod,
                 "_<_": lt, "_<=_": le, "_>_": gt, "_>=_": ge}

_SPECIAL: dict[str, Callable[[Compiler, A.Call], Closure]] = {
    "_&&_": Compiler.logical, "_||_": Compiler.logical, "_?_:_": Compiler.conditional,
    "_==_": Compiler.equality, "_!=_": Compiler.equality,
    "!_": Compiler.unary_op, "-_": Compiler.unary_op,
    "@not_strictly_false": Compiler.not_strictly_false,
    "@in": Compiler.in_op, "_[_]": Compiler.index_op, "_[?_]": Compiler.index_op,
    "_?._": Compiler.opt_select,
    **{op: Compiler.binary_op for op in _BINARY_IMPLS},
}
