"""CEL device selectors, evaluated as kube-scheduler v1.35.4 evaluates them (k8s.io/dynamic-resource-allocation/cel,
cel-go v0.26.0): kexplain's own parser, checker and evaluator, because no PyPI CEL library carries
Quantity/Semver, optional syntax and a per-subexpression trace. Errors carry the real components'
texts (`CelCompileError`, `CelEvalError`, `CelCostError`; `CelUnsupported` for what is not implemented).
Usage: docs/internals/cel.md.
"""
from __future__ import annotations

import sys
from collections.abc import Mapping    # not typing.Mapping: its isinstance goes through typing (slow)
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterator

from kexplain.cel import ast as A
from kexplain.cel import quantity as Q
from kexplain.cel import semver as SV
from kexplain.cel import types as T
from kexplain.cel.checker import Checked, check
from kexplain.cel.errors import (CelCompileError, CelCostError, CelError, CelEvalError,
                     CelUnsupported)
from kexplain.cel.evaluator import Compiler, ConstantError, Ctx
from kexplain.cel.library import UNSUPPORTED_GLOBAL, UNSUPPORTED_MEMBER, functions, has_ext_lists
from kexplain.cel.library import re2
from kexplain.cel.parser import ParseFailed, parse
from kexplain.cel.explain import Explanation, explain as explain_trace
from kexplain.cel.result import Result
from kexplain.cel.values import DefaultMap, DeviceObject, type_name

__all__ = [
    "COST_LIMIT", "MAX_EXPRESSION_LENGTH", "CelCompileError", "CelCostError", "CelError",
    "CelEvalError", "CelUnsupported", "DeviceInput", "Program", "Result", "api_validation_error",
    "compile_selector", "make_device",
]

COST_LIMIT = 1_000_000            # resourceapi.CELSelectorExpressionMaxCost
MAX_EXPRESSION_LENGTH = 10 * 1024  # resourceapi.CELSelectorExpressionMaxLength (bytes)
_DEEP = 120                       # AST depth above which evaluation gets a deeper Python stack
_STACK = 30_000


@contextmanager
def _deep_stack() -> Iterator[None]:
    """Room for deeply nested expressions (cel-go allows 250 levels per rule); Python 3.11 does not grow the
    C stack for nested Python calls, so a higher limit is safe."""
    old = sys.getrecursionlimit()
    if old < _STACK:
        sys.setrecursionlimit(_STACK)
    try:
        yield
    finally:
        if old < _STACK:
            sys.setrecursionlimit(old)


class Program:
    """A compiled selector; evaluate it against any number of devices."""

    def __init__(self, expression: str, root: A.Expr, checked: Checked, depth: int) -> None:
        self.expression = expression
        self.root = root
        self.checked = checked
        self.depth = depth
        with _deep_stack():
            try:
                self._run = Compiler(checked, trace=False).compile(root)
            except ConstantError as err:
                raise CelCompileError(f"program instantiation failed: {err}") from None
        self._traced = None

    def evaluate(self, device: DeviceObject | "DeviceInput", cost_limit: int = COST_LIMIT) -> Result:
        """Evaluate against one device, as `CompilationResult.DeviceMatches` does."""
        if isinstance(device, DeviceInput):
            if device.error is not None:
                return Result(None, device.error, 0)
            device = device.device
        ctx = Ctx({"device": device}, cost_limit)
        return self._finish(ctx, self._run)

    def _finish(self, ctx: Ctx, run: Any) -> Result:
        try:
            if self.depth > _DEEP:
                with _deep_stack():
                    v = run(ctx)
            else:
                v = run(ctx)
        except CelEvalError as err:
            if ctx.cost > ctx.limit:
                return Result(None, CelCostError(), ctx.cost)
            return Result(None, err, ctx.cost)
        except (CelCostError, CelUnsupported) as err:
            return Result(None, err, ctx.cost)
        if ctx.cost > ctx.limit:
            return Result(None, CelCostError(), ctx.cost)
        if type(v) is not bool:
            return Result(None, CelEvalError(_not_bool(v)), ctx.cost)
        return Result(v, None, ctx.cost)

    def trace(self, device: DeviceObject | "DeviceInput", cost_limit: int = COST_LIMIT
              ) -> tuple[Result, dict[A.Expr, Any]]:
        """Evaluate with every node's last value (or error) recorded."""
        if isinstance(device, DeviceInput):
            if device.error is not None:
                return Result(None, device.error, 0), {}
            device = device.device
        if self._traced is None:
            with _deep_stack():
                self._traced = Compiler(self.checked, trace=True).compile(self.root)
        trace: dict[A.Expr, Any] = {}
        ctx = Ctx({"device": device}, cost_limit, trace)
        return self._finish(ctx, self._traced), trace

    def explain(self, device: DeviceObject | "DeviceInput", cost_limit: int = COST_LIMIT) -> Explanation:
        """Why the selector was false (or failed) for this device: see explain.Explanation."""
        with _deep_stack():
            result, trace = self.trace(device, cost_limit)
            return explain_trace(self.expression, self.root, result, trace)


def _not_bool(v: Any) -> str:
    """DeviceMatches' text for a result that is not a bool (possible when the expression's
    type is an attribute's unknown type)."""
    t = type_name(v)
    native = {
        "string": "unsupported native conversion from string to 'bool'",
        "int": "unsupported type conversion from 'int' to bool",
        "uint": "unsupported type conversion from 'uint' to bool",
        "double": "type conversion error from Double to 'bool'",
        "bytes": "type conversion error from Bytes to 'bool'",
        "null_type": "type conversion error from 'null_type' to 'bool'",
        "list": "type conversion error from list to 'bool'",
        "map": "type conversion error from map to 'bool'",
        "kubernetes.Quantity": "type conversion error from 'Quantity' to 'bool'",
        "kubernetes.Semver": "type conversion error from 'Semver' to 'bool'",
    }.get(t, f"type conversion error from '{t}' to 'bool'")
    return f"CEL result of type {t} could not be converted to bool: {native}"


# -- compilation -----------------------------------------------------------------------------

def _location(src: str, pos: int | None) -> tuple[int, int, str | None]:
    if pos is None:
        return -1, -1, None
    line_start = src.rfind("\n", 0, pos) + 1
    line = src.count("\n", 0, pos) + 1
    end = src.find("\n", pos)
    snippet = src[line_start:] if end < 0 else src[line_start:end]
    return line, pos - line_start, snippet


def format_issues(src: str, issues: list[tuple[int | None, str]]) -> str:
    """cel-go `Errors.ToDisplayString`: sorted by position, each with its source line and a caret."""
    located = []
    for pos, msg in issues[:100]:
        line, col, snippet = _location(src, pos)
        located.append((line, col, msg, snippet))
    located.sort(key=lambda x: (x[0], x[1]))
    out = []
    for line, col, msg, snippet in located:
        text = f"ERROR: <input>:{line}:{col + 1}: {msg}"
        if snippet is not None and len(snippet) <= 16384:
            snippet = snippet.replace("\t", " ")
            marker = "".join("\uff0e" if len(c.encode("utf-8")) > 1 else "." for c in snippet[:col])
            at = snippet[col:col + 1]
            marker += "\uff3e" if at and len(at.encode("utf-8")) > 1 else "^"
            text += f"\n | {snippet}\n | {marker}"
        out.append(text)
    if len(issues) > 100:
        out.append(f"{len(issues) - 100} more errors were truncated")
    return "\n".join(out)


def _unsupported(root: A.Expr) -> str | None:
    stack = [root]
    while stack:
        e = stack.pop()
        stack.extend(A.children(e))
        if isinstance(e, A.Call):
            name = e.function
            if e.target is None and name.lstrip(".") in UNSUPPORTED_GLOBAL:
                return name.lstrip(".")
            if e.target is not None:
                if isinstance(e.target, A.Ident) and f"{e.target.name}.{name}" in UNSUPPORTED_GLOBAL:
                    return f"{e.target.name}.{name}"
                if name in UNSUPPORTED_MEMBER:
                    return name
    return None


def _depth(root: A.Expr) -> int:
    best = 0
    stack = [(root, 1)]
    while stack:
        e, d = stack.pop()
        best = max(best, d)
        stack.extend((c, d + 1) for c in A.children(e))
    return best


def _find_literal_regexes(root: A.Expr) -> str | None:
    """cel-go compiles literal patterns of the Kubernetes `find`/`findAll` when it builds the
    program: a bad one fails there, not at run time."""
    stack = [root]
    while stack:
        e = stack.pop()
        stack.extend(A.children(e))
        if isinstance(e, A.Call) and e.function in ("find", "findAll") and e.target is not None \
                and e.args and isinstance(e.args[0], A.Literal) and type(e.args[0].value) is str:
            try:
                re2.compile_regex(e.args[0].value)
            except re2.RegexError as err:
                return str(err)
            except re2.RegexUnsupported:
                pass
    return None


@lru_cache(maxsize=4096)   # bounded: one entry per distinct selector text (and environment)
def _compile_cached(expression: str, compatibility: str | None = None) -> Program | CelError:
    try:
        return _compile(expression, compatibility)
    except CelError as err:
        return err


def _compile(expression: str, compatibility: str | None = None) -> Program:
    with _deep_stack():
        try:
            root = parse(expression, has_ext_lists(compatibility))
        except ParseFailed as failed:
            raise CelCompileError("compilation failed: " + format_issues(
                expression, [(i.pos, i.message) for i in failed.issues])) from None
        name = _unsupported(root)
        if name is not None:
            raise CelUnsupported(f"kexplain does not implement the CEL function '{name}' of the "
                                 "Kubernetes CEL environment")
        checked = check(root, functions(compatibility))
    if checked.issues:
        raise CelCompileError("compilation failed: " + format_issues(
            expression, [(i.pos, i.message) for i in checked.issues]))
    out = checked.types[root]
    if out not in (T.BOOL, T.ANY):
        raise CelCompileError(f"must evaluate to bool or the unknown type, not {T.type_string(out)}")
    bad = _find_literal_regexes(root)
    if bad is not None:
        raise CelCompileError(f"program instantiation failed: {bad}")
    return Program(expression, root, checked, _depth(root))


def compile_selector(expression: str) -> Program:
    """Compile a selector once (cached); raise CelCompileError with the text
    `CompilationResult.Error` carries, or CelUnsupported."""
    result = _compile_cached(expression)
    if isinstance(result, CelError):
        raise result
    return result


def api_validation_error(expression: str, compatibility: str | None = None) -> str | None:
    """What the API server says of a selector on create, or None; `compatibility`: its CEL compatibility
    version (None: every library). The static cost estimate is not reproduced."""
    if len(expression.encode("utf-8", errors="surrogatepass")) > MAX_EXPRESSION_LENGTH:
        return f"Too long: may not be more than {MAX_EXPRESSION_LENGTH} bytes"
    try:
        found = _compile_cached(expression, compatibility)
        if isinstance(found, CelError):
            raise found
    except CelCompileError as err:
        return f"Invalid value: {_go_quote(expression)}: {err}"
    except CelUnsupported:
        return None
    return None


def _go_quote(s: str) -> str:
    """Go's %q for a string."""
    out = ['"']
    for c in s:
        o = ord(c)
        if c in '"\\':
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif c == "\r":
            out.append("\\r")
        elif o < 0x20 or o == 0x7f:
            out.append(f"\\x{o:02x}")
        elif not c.isprintable():
            out.append(f"\\u{o:04x}" if o <= 0xFFFF else f"\\U{o:08x}")
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


# -- device input ----------------------------------------------------------------------------

@dataclass(frozen=True)
class DeviceInput:
    """A device as the selector sees it, or the error DeviceMatches reports before evaluating
    (a version attribute that is not semver)."""

    device: DeviceObject | None
    error: CelEvalError | None = None


@lru_cache(maxsize=4096)   # bounded: capacity values repeat across the devices of a cluster
def _stored_quantity(text: str) -> Q.Quantity:
    """A capacity as the scheduler holds it: the API server stores `String()` of the parsed
    quantity, and the scheduler parses that again (`1000m` arrives as `1`)."""
    return Q.canonical(Q.parse(text))


def _split_name(name: str, driver: str) -> tuple[str, str]:
    if "/" in name:
        domain, _, ident = name.partition("/")
        return domain, ident
    return driver, name


def make_device(driver: str, attributes: Mapping[str, Any] | None = None,
                capacity: Mapping[str, Any] | None = None) -> DeviceInput:
    """The `device` variable from a ResourceSlice device's v1 fields (a bare quantity string accepted);
    names without a domain get the driver's."""
    attrs: dict[str, dict[str, Any]] = {}
    for name, attr in (attributes or {}).items():
        value: Any
        attr = attr if isinstance(attr, Mapping) else {}
        if attr.get("int") is not None:
            value = int(attr["int"])
        elif attr.get("bool") is not None:
            value = bool(attr["bool"])
        elif attr.get("string") is not None:
            value = str(attr["string"])
        elif attr.get("version") is not None:
            try:
                value = SV.parse(str(attr["version"]))
            except SV.SemverError as err:
                return DeviceInput(None, CelEvalError(f"attribute {name}: parse semantic version: {err}"))
        else:
            return DeviceInput(None, CelEvalError(f"attribute {name}: unsupported attribute value"))
        domain, ident = _split_name(name, driver)
        attrs.setdefault(domain, {})[ident] = value
    caps: dict[str, dict[str, Any]] = {}
    for name, cap in (capacity or {}).items():
        raw = cap.get("value") if isinstance(cap, Mapping) else cap
        q = raw if isinstance(raw, Q.Quantity) else _stored_quantity(str(raw))
        domain, ident = _split_name(name, driver)
        caps.setdefault(domain, {})[ident] = q
    return DeviceInput(DeviceObject(driver, DefaultMap(attrs), DefaultMap(caps)))


