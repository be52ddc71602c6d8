"""CEL types for the checker, with cel-go's assignability and unification rules (checker/types.go);
`format_type` is `FormatCELType` (compile errors), `type_string` is `Type.String()` (the result-type error).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True, slots=True)
class Type:
    kind: str          # int uint double bool string bytes null dyn any error list map opaque
                       # object type typeparam
    name: str
    params: tuple["Type", ...] = ()


INT = Type("int", "int")
UINT = Type("uint", "uint")
DOUBLE = Type("double", "double")
BOOL = Type("bool", "bool")
STRING = Type("string", "string")
BYTES = Type("bytes", "bytes")
NULL = Type("null", "null_type")
DYN = Type("dyn", "dyn")
ANY = Type("any", "google.protobuf.Any")
ERROR = Type("error", "*error*")
QUANTITY = Type("opaque", "kubernetes.Quantity")
SEMVER = Type("opaque", "kubernetes.Semver")
DEVICE = Type("object", "kubernetes.DRADevice")


def list_of(t: Type) -> Type:
    return Type("list", "list", (t,))


def map_of(k: Type, v: Type) -> Type:
    return Type("map", "map", (k, v))


def optional_of(t: Type) -> Type:
    return Type("opaque", "optional_type", (t,))


def type_of(t: Type | None = None) -> Type:
    return Type("type", "type", (t,) if t is not None else ())


def param(name: str) -> Type:
    return Type("typeparam", name)


_PRIMS = {"int": INT, "uint": UINT, "double": DOUBLE, "bool": BOOL, "string": STRING,
          "bytes": BYTES, "null": NULL, "dyn": DYN, "any": ANY, "Q": QUANTITY, "S": SEMVER}
_TOKEN = re.compile(r"\s*([A-Za-z_][A-Za-z_0-9.]*|[(),])")


@lru_cache(maxsize=None)   # bounded: keyed by the signatures written in library/, a fixed set
def sig(text: str) -> Type:
    """A type from its short spelling: `int`, `list(A)`, `map(K, V)`, `optional(V)`, `Q`,
    `S`; single capital letters other than Q and S are type parameters."""
    toks = _TOKEN.findall(text)
    pos = 0

    def parse() -> Type:
        nonlocal pos
        name = toks[pos]
        pos += 1
        args: list[Type] = []
        if pos < len(toks) and toks[pos] == "(":
            pos += 1
            while toks[pos] != ")":
                args.append(parse())
                if toks[pos] == ",":
                    pos += 1
            pos += 1
        if name in _PRIMS:
            return _PRIMS[name]
        if name == "list":
            return list_of(args[0])
        if name == "map":
            return map_of(args[0], args[1])
        if name == "optional":
            return optional_of(args[0])
        if name == "type":
            return type_of(args[0] if args else None)
        if len(name) == 1 and name.isupper():
            return param(name)
        raise ValueError(f"bad signature type {name!r}")

    return parse()


def format_type(t: Type) -> str:
    """cel-go `FormatCELType`."""
    k = t.kind
    if k == "any":
        return "any"
    if k == "error":
        return "!error!"
    if k == "null":
        return "null"
    if k == "typeparam":
        return t.name
    if not t.params:
        return t.name
    return f"{t.name}({', '.join(format_type(p) for p in t.params)})"


def type_string(t: Type) -> str:
    """cel-go `Type.String()`."""
    if t.kind == "typeparam":
        return f"<{t.name}>"
    if not t.params:
        return t.name
    return f"{t.name}({', '.join(type_string(p) for p in t.params)})"


def is_dyn(t: Type) -> bool:
    return t.kind in ("dyn", "any")


def is_dyn_or_error(t: Type) -> bool:
    return t.kind in ("dyn", "any", "error")


def is_optional(t: Type) -> bool:
    return t.kind == "opaque" and t.name == "optional_type"


def unwrap_optional(t: Type) -> tuple[Type, bool]:
    if is_optional(t):
        return t.params[0], True
    return t, False


Mapping = dict[str, Type]


def _is_assignable_type(to: Type, frm: Type) -> bool:
    """cel-go `defaultIsAssignableType`: `to.IsAssignableType(frm)`."""
    if to == frm or is_dyn(to):
        return True
    if to.kind != frm.kind or to.name != frm.name or len(to.params) != len(frm.params):
        return False
    return all(_is_assignable_type(a, b) for a, b in zip(to.params, frm.params))


def _legacy_nullable(t: Type) -> bool:
    return t.kind in ("opaque", "object", "any")


def _assignable_null(t: Type) -> bool:
    return _legacy_nullable(t) or _is_assignable_type(t, NULL)


def is_equal_or_less_specific(t1: Type, t2: Type) -> bool:
    if is_dyn(t1) or t1.kind == "typeparam":
        return True
    if is_dyn(t2) or t2.kind == "typeparam":
        return False
    if t1.kind != t2.kind:
        return False
    if t1.kind == "opaque":
        if t1.name != t2.name or len(t1.params) != len(t2.params):
            return False
        return all(is_equal_or_less_specific(a, b) for a, b in zip(t1.params, t2.params))
    if t1.kind == "list":
        return is_equal_or_less_specific(t1.params[0], t2.params[0])
    if t1.kind == "map":
        return (is_equal_or_less_specific(t1.params[0], t2.params[0])
                and is_equal_or_less_specific(t1.params[1], t2.params[1]))
    if t1.kind == "type":
        return True
    return t1 == t2


def most_general(t1: Type, t2: Type) -> Type:
    return t1 if is_equal_or_less_specific(t1, t2) else t2


def _not_referenced_in(m: Mapping, t: Type, within: Type) -> bool:
    if t == within:
        return False
    if within.kind == "typeparam":
        sub = m.get(within.name)
        if sub is None:
            return True
        return _not_referenced_in(m, t, sub)
    if within.kind in ("opaque", "list", "map", "type"):
        return all(_not_referenced_in(m, t, p) for p in within.params)
    return True


def _valid_substitution(m: Mapping, t1: Type, t2: Type) -> tuple[bool, bool]:
    if t1.kind == t2.kind and t1 == t2:
        return True, True
    sub = m.get(t2.name)
    if sub is not None:
        if t1.kind == sub.kind and t1 == sub:
            return True, True
        if _internal_assignable(m, t1, sub):
            new = most_general(t1, sub)
            if _not_referenced_in(m, t2, new):
                m[t2.name] = new
            return True, True
        return False, True
    if _not_referenced_in(m, t2, t1):
        m[t2.name] = t1
        return True, False
    return False, False


def _internal_assignable(m: Mapping, t1: Type, t2: Type) -> bool:
    """cel-go `internalIsAssignable`: t1 assignable to t2, binding type parameters in `m`."""
    if t2.kind == "typeparam":
        valid, has_sub = _valid_substitution(m, t1, t2)
        if valid:
            return True
        if has_sub:
            return False
    if t1.kind == "typeparam":
        valid, _ = _valid_substitution(m, t2, t1)
        return valid
    if is_dyn_or_error(t1) or is_dyn_or_error(t2):
        return True
    if t1.kind == "null":
        return _assignable_null(t2)
    if t2.kind == "null":
        return _assignable_null(t1)
    k = t1.kind
    if k in ("bool", "bytes", "double", "int", "string", "uint", "object"):
        return _is_assignable_type(t2, t1)
    if k == "type":
        return t2.kind == "type"
    if k in ("opaque", "list", "map"):
        return (t1.kind == t2.kind and t1.name == t2.name and len(t1.params) == len(t2.params)
                and all(_internal_assignable(m, a, b) for a, b in zip(t1.params, t2.params)))
    return False


def is_assignable(m: Mapping, t1: Type, t2: Type) -> Mapping | None:
    """A new mapping if t1 is assignable to t2, else None (`m` is left untouched)."""
    c = dict(m)
    return c if _internal_assignable(c, t1, t2) else None


def is_assignable_list(m: Mapping, l1: list[Type], l2: list[Type]) -> Mapping | None:
    if len(l1) != len(l2):
        return None
    c = dict(m)
    for a, b in zip(l1, l2):
        if not _internal_assignable(c, a, b):
            return None
    return c


def substitute(m: Mapping, t: Type, to_dyn: bool) -> Type:
    if t.kind == "typeparam":
        sub = m.get(t.name)
        if sub is not None:
            return substitute(m, sub, to_dyn)
        return DYN if to_dyn else t
    if t.params:
        return Type(t.kind, t.name, tuple(substitute(m, p, to_dyn) for p in t.params))
    return t


def type_params(t: Type, out: set[str] | None = None) -> set[str]:
    out = set() if out is None else out
    if t.kind == "typeparam":
        out.add(t.name)
    for p in t.params:
        type_params(p, out)
    return out


def rename_params(t: Type, names: dict[str, Type]) -> Type:
    if t.kind == "typeparam":
        return names.get(t.name, t)
    if t.params:
        return Type(t.kind, t.name, tuple(rename_params(p, names) for p in t.params))
    return t


# What a runtime value of a declared type must be, for the evaluator's overload guards.
def runtime_kind(t: Type) -> str | None:
    """The runtime type name a value must have to match `t`, or None for any value."""
    if t.kind in ("dyn", "any", "typeparam", "error"):
        return None
    if t.kind == "null":
        return "null_type"
    if t.kind in ("list", "map", "type"):
        return t.kind
    return t.name
