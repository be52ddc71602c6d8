"""Go's error values as Karpenter builds them, so their text is Go's to the character: the one
home of the engine's errors."""
from __future__ import annotations

from typing import Any, Mapping, Sequence


class KarpenterError(Exception):
    """An error value of Karpenter's; str() is Go's Error() text."""


class MultiError(KarpenterError):
    """go.uber.org/multierr's list: its parts joined with `; `."""

    def __init__(self, errors: Sequence[BaseException]) -> None:
        super().__init__()
        self.errors = tuple(errors)

    def __str__(self) -> str:
        return "; ".join(str(e) for e in self.errors)


def multierr_append(left: BaseException | None, right: BaseException | None) -> BaseException | None:
    """multierr.Append: None-tolerant; a MultiError on either side is flattened into the result."""
    if left is None:
        return right
    if right is None:
        return left
    return MultiError([*multierr_errors(left), *multierr_errors(right)])


def multierr_errors(err: BaseException | None) -> list[BaseException]:
    """multierr.Errors: the parts of a MultiError, [err] for another error, [] for None."""
    if err is None:
        return []
    return list(err.errors) if isinstance(err, MultiError) else [err]


def combine(errs: Sequence[BaseException | None]) -> BaseException | None:
    """multierr.Combine: None without errors, the one error alone, else their parts in one list."""
    found = [e for e in errs if e is not None]
    if not found:
        return None
    if len(found) == 1:
        return found[0]
    return MultiError([part for e in found for part in multierr_errors(e)])


class GoError(KarpenterError):
    """An error value: `str()` is its text; `cause` the error it wraps (errors.Unwrap), if any."""

    def __init__(self, message: str = "", cause: "BaseException | None" = None) -> None:
        super().__init__(message)
        self.message = message
        self.cause = cause

    def __str__(self) -> str:
        return self.message


class WrappedError(GoError):
    """fmt.Errorf("CONTEXT, %w", err): `message` is the context."""

    def __init__(self, context: str, err: BaseException) -> None:
        super().__init__(context, err)

    def __str__(self) -> str:    # rendered when printed: the wrapped error may be lazy
        return f"{self.message}, {self.cause}"


def wrap(context: str, err: BaseException) -> WrappedError:
    """fmt.Errorf("CONTEXT, %w", err)."""
    return WrappedError(context, err)


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
