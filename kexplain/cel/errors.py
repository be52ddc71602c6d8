"""The errors a CEL selector can produce, with the texts the API server and the scheduler print.
`CelCostError` (cel-go panics out of the whole evaluation) deliberately does not derive from
`CelEvalError`, which CEL's logical operators absorb. The wrapping texts: docs/internals/cel.md.
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
