"""The errors a CEL selector can produce, with the texts the API server and the scheduler print.

`CelCompileError` carries the detail that k8s.io/dynamic-resource-allocation/cel puts in its
`CompilationResult.Error` (`compilation failed: ERROR: <input>:1:5: ...`); the scheduler's
allocator wraps it as `class <name>: selector #<i>: CEL compile error: <detail>`.

`CelEvalError` is a CEL runtime error value (`no such key: model`, `integer overflow`, ...);
the allocator wraps it as `... selector #<i>: CEL runtime error: <message>`. CEL's logical
operators absorb these (`true || error` is true), so they are ordinary exceptions inside the
evaluator.

`CelCostError` is the cost limit: cel-go panics out of the whole evaluation, nothing absorbs it,
so it deliberately does not derive from `CelEvalError`.
"""
from __future__ import annotations

# cel-go interpreter/runtimecost.go, raised when the actual cost passes the limit.
COST_LIMIT_MESSAGE = "operation cancelled: actual cost limit exceeded"


class CelError(Exception):
    """Any failure of a selector; `str()` is the message the real components print."""


class CelCompileError(CelError):
    """The expression does not compile (parse, type-check, result type, length)."""


class CelEvalError(CelError):
    """A CEL runtime error value."""


class CelCostError(CelError):
    """The runtime cost limit was exceeded; never absorbed by `&&`, `||` or macros."""

    def __init__(self, message: str = COST_LIMIT_MESSAGE) -> None:
        super().__init__(message)


class CelUnsupported(CelError):
    """The selector uses a part of the Kubernetes CEL environment kexplain does not implement
    (timestamps, URLs, IP addresses, ...): kexplain cannot say what the scheduler would decide."""
