"""Device selectors: the CEL expressions of a DeviceClass and of a request, run against a device
with the texts the allocator wraps their failures in; each device's CEL input and each verdict
cached per snapshot (a pure function, asked again by copies, re-runs and explanations)."""
from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any, Sequence

from kexplain.model.dra import Device

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.cel import DeviceInput


def cel_module() -> ModuleType:
    """`kexplain.cel`, imported on a device's first selector: a run without one never loads the
    CEL compiler (about 0.1 s). The DRA plugins' one lazy import (docs/development.md, "Lazy imports")."""
    from kexplain import cel
    return cel


class SelectorError(Exception):
    """A selector that cannot be evaluated: the allocator's error, which ends the cycle."""


@dataclass(frozen=True)
class Owner:
    """Whose selectors these are, as the allocator names them in errors: `class NAME` or `claim NS/NAME`."""

    kind: str     # "class" or "claim"
    name: str

    def __str__(self) -> str:
        return f"{self.kind} {self.name}"


@dataclass(frozen=True)
class Verdict:
    """The first selector that did not match (its index), or None when all matched."""

    failed: int | None

    @property
    def matched(self) -> bool:
        return self.failed is None


MATCHED = Verdict(None)


class Selectors:
    """Evaluates selector lists against devices (selectorsMatch), caching each device's input."""

    def __init__(self) -> None:
        self._inputs: dict[Device, DeviceInput] = {}
        # (owner, expressions, device) -> the verdict, or the message of the SelectorError
        self._verdicts: dict[tuple[Owner, tuple[str | None, ...], Device], Verdict | str] = {}

    def device_input(self, device: Device) -> DeviceInput:
        got = self._inputs.get(device)
        if got is None:
            got = self._inputs[device] = cel_module().make_device(device.driver, device.attributes, device.capacity)
        return got

    def match(self, owner: Owner, selectors: Sequence[str | None], device: Device) -> Verdict:
        """Whether every selector is true for the device, stopping at the first that is not;
        SelectorError for an expression that does not compile or fails at run time."""
        key = (owner, tuple(selectors), device)
        got = self._verdicts.get(key)
        if got is None:
            try:
                got = self._match(owner, key[1], device)
            except SelectorError as err:
                got = str(err)
            self._verdicts[key] = got
        if isinstance(got, str):
            raise SelectorError(got)
        return got

    def _match(self, owner: Owner, selectors: Sequence[str | None], device: Device) -> Verdict:
        for i, expression in enumerate(selectors):
            if expression is None:
                raise SelectorError(f"{owner}: selector #{i}: CEL expression empty (unsupported selector type?)")
            program = self.program(owner, i, expression)
            result = program.evaluate(self.device_input(device))
            if result.error is not None:
                if isinstance(result.error, cel_module().CelUnsupported):
                    raise SelectorError(f"{owner}: selector #{i}: kexplain cannot evaluate it: {result.error}")
                raise SelectorError(f"{owner}: selector #{i}: CEL runtime error: {result.error}")
            if not result.value:
                return Verdict(i)
        return MATCHED

    @staticmethod
    def program(owner: Owner, index: int, expression: str) -> Any:
        cel = cel_module()
        try:
            return cel.compile_selector(expression)
        except cel.CelCompileError as err:
            raise SelectorError(f"{owner}: selector #{index}: CEL compile error: {err}") from None
        except cel.CelError as err:   # CelUnsupported: part of the environment kexplain lacks
            raise SelectorError(f"{owner}: selector #{index}: kexplain cannot evaluate it: {err}") from None
