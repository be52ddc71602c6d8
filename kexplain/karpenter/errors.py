"""Go's error values as Karpenter builds them, so their text is Go's to the character.

Karpenter returns errors as values and words them only when they are printed; these are the
shapes it uses: `fmt.Errorf("context, %w", err)` (`wrap`), operatorpkg's `serrors.Wrap(err, k, v,
...)` which appends ` (k=v, ...)` with the keys sorted (`StructuredError`), and the API server's
NotFound (`NotFound`, `is_not_found` as apimachinery's `errors.IsNotFound`, which sees through
wrapping). They are KarpenterErrors (kexplain.karpenter.scheduling.requirements): values the
engine passes around, whose str() is Go's text.
"""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.karpenter.scheduling.requirements import KarpenterError


class GoError(KarpenterError):
    """An error value: `str()` is its text; `cause` the error it wraps (errors.Unwrap), if any."""

    def __init__(self, message: str = "", cause: "BaseException | None" = None) -> None:
        super().__init__(message)
        self.message = message
        self.cause = cause

    def __str__(self) -> str:
        return self.message


def wrap(context: str, err: BaseException) -> GoError:
    """fmt.Errorf("CONTEXT, %w", err)."""
    return _Wrapped(context, err)


class _Wrapped(GoError):
    def __init__(self, context: str, err: BaseException) -> None:
        super().__init__(context, err)

    def __str__(self) -> str:    # rendered when printed: the wrapped error may be lazy
        return f"{self.message}, {self.cause}"


def go_value(value: Any) -> str:
    """fmt's %v of the values Karpenter puts in structured errors: text as is, numbers in decimal."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class StructuredError(GoError):
    """serrors.Wrap(err, "k1", v1, ...): `TEXT (k1=v1, k2=v2)`, keys sorted."""

    def __init__(self, err: BaseException | str, values: Mapping[str, Any]) -> None:
        cause = err if isinstance(err, BaseException) else None
        super().__init__(str(err) if cause is None else "", cause)
        self.values = dict(values)

    def __str__(self) -> str:
        text = str(self.cause) if self.cause is not None else self.message
        pairs = ", ".join(f"{k}={go_value(self.values[k])}" for k in sorted(self.values))
        return f"{text} ({pairs})"


class NotFound(GoError):
    """The API's NotFound as a controller-runtime client reports it: `RESOURCE "NAME" not found`,
    RESOURCE plural and group-qualified outside the core group (`storageclasses.storage.k8s.io`)."""

    def __init__(self, resource: str, name: str) -> None:
        super().__init__(f'{resource} "{name}" not found')
        self.resource = resource
        self.name = name


def is_not_found(err: BaseException | None) -> bool:
    """apierrors.IsNotFound: a NotFound anywhere in the wrap chain."""
    while err is not None:
        if isinstance(err, NotFound):
            return True
        err = getattr(err, "cause", None)
    return False


# The resources of the objects Karpenter gets by name, as NotFound names them.
PERSISTENT_VOLUME_CLAIMS = "persistentvolumeclaims"
PERSISTENT_VOLUMES = "persistentvolumes"
STORAGE_CLASSES = "storageclasses.storage.k8s.io"
NODES = "nodes"
