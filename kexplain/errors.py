"""Errors a user can act on: each names the file, the object and the field at fault.

Anything raised as a `KexplainError` ends the command with one line on stderr and
exit code 2; nothing below the CLI prints.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Source:
    """Where an object came from: a path ('-' for stdin) and its 1-based document number."""

    path: str
    doc: int = 0

    def __str__(self) -> str:
        return f"{self.path}: document {self.doc}" if self.doc else self.path


def describe(obj: object) -> str:
    """`Kind ns/name` (or `Kind name`) for messages; tolerant of malformed objects."""
    if not isinstance(obj, dict):
        return "object"
    kind = obj.get("kind") if isinstance(obj.get("kind"), str) else "object"
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    name = meta.get("name") if isinstance(meta.get("name"), str) else ""
    ns = meta.get("namespace") if isinstance(meta.get("namespace"), str) else ""
    if not name:
        return kind
    return f"{kind} {ns}/{name}" if ns else f"{kind} {name}"


class KexplainError(Exception):
    """A problem with the user's input or invocation (exit code 2)."""

    exit_code = 2

    def __init__(self, message: str, source: Source | None = None, obj: object = None,
                 field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.source = source
        self.obj = obj
        self.field = field

    def __str__(self) -> str:
        parts = []
        if self.source is not None:
            parts.append(str(self.source))
        if self.obj is not None:
            parts.append(describe(self.obj))
        if self.field:
            parts.append(self.field)
        parts.append(self.message)
        return ": ".join(parts)


class InputError(KexplainError):
    """Malformed input: YAML syntax, wrong types, missing kind, invalid quantity, ..."""


class AdmissionRejected(KexplainError):
    """An object the API server would refuse; the message is the API server's own."""


class ConfigError(KexplainError):
    """An invalid KubeSchedulerConfiguration or a pod naming a profile that does not exist."""
