"""Feature gates as kube-scheduler's `--feature-gates` flag sets them (component-base's featuregate), with
the flag's own errors. A minor's gates are data (`gate_table`), so a new minor is a new table, never new code.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Mapping

from kexplain.errors import KexplainError
from kexplain.features.gate_table import DEPENDENCIES, SPECS

ALL_ALPHA = "AllAlpha"     # component-base's special gates: every alpha (beta) gate not set by name
ALL_BETA = "AllBeta"


class FeatureGateError(KexplainError):
    """`--feature-gates` refused, with kube-scheduler's own words after the flag's prefix."""

    def __init__(self, value: str, reason: str) -> None:
        super().__init__(f'invalid argument "{value}" for "--feature-gates" flag: {reason}')


def _parse_bool(text: str) -> bool | None:
    """Go's strconv.ParseBool."""
    if text in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if text in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    return None


def parse_flag(value: str) -> dict[str, bool]:
    """`--feature-gates`' text as featureGate.Set splits it: pairs in order, empty items skipped."""
    out: dict[str, bool] = {}
    for item in value.split(","):
        if not item:
            continue
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep:
            raise FeatureGateError(value, f"missing bool value for {key}")
        raw = raw.strip()
        parsed = _parse_bool(raw)
        if parsed is None:
            raise FeatureGateError(value, f'invalid value of {key}={raw}, err: strconv.ParseBool: '
                                          f'parsing "{raw}": invalid syntax')
        out[key] = parsed
    return out


@dataclass(frozen=True)
class FeatureGates(Mapping[str, bool]):
    """Every gate of one minor and whether it is on: its default unless `overrides` sets it."""

    minor: str
    overrides: tuple[tuple[str, bool], ...] = ()
    _enabled: dict[str, bool] = field(default_factory=dict, compare=False, hash=False, repr=False)
    _changed: dict[str, bool] = field(default_factory=dict, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        specs = SPECS[self.minor]
        enabled = {name: spec[0] for name, spec in specs.items()}
        given = dict(self.overrides)
        for special, stage in ((ALL_ALPHA, "Alpha"), (ALL_BETA, "Beta")):
            if given.get(special):
                enabled.update({n: True for n, s in specs.items() if s[1] == stage and n not in given})
        enabled.update({n: v for n, v in given.items() if n in specs})
        object.__setattr__(self, "_enabled", enabled)
        object.__setattr__(self, "_changed", {n: v for n, v in sorted(enabled.items()) if specs[n][0] != v})

    def __getitem__(self, name: str) -> bool:
        return self._enabled[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._enabled)

    def __len__(self) -> int:
        return len(self._enabled)

    def enabled(self, name: str) -> bool:
        """Whether gate `name` is on; a gate this minor does not know is off (removed gates were
        GA and locked on before they went, and their code is no longer behind them)."""
        return self._enabled.get(name, False)

    def with_flag(self, value: str) -> "FeatureGates":
        """These gates changed by a `--feature-gates` value, refused as kube-scheduler refuses it."""
        wanted = parse_flag(value)
        specs = SPECS[self.minor]
        problems = []
        for name, on in wanted.items():
            if name in (ALL_ALPHA, ALL_BETA):
                continue
            spec = specs.get(name)
            if spec is None:
                raise FeatureGateError(value, f"unrecognized feature gate: {name}")
            default, stage, locked = spec
            if locked and default != on:
                problems.append(f"cannot set feature gate {name} to {_go_bool(on)}, feature is locked to "
                                f"{_go_bool(default)}")
        if problems:
            raise FeatureGateError(value, _aggregate(problems))
        gates = FeatureGates(self.minor, tuple((dict(self.overrides) | wanted).items()))
        missing = gates.unmet_dependencies()
        if missing:
            raise FeatureGateError(value, _aggregate(missing))
        return gates

    def unmet_dependencies(self) -> list[str]:
        out = []
        for name, needs in sorted(DEPENDENCIES.get(self.minor, {}).items()):
            if self.enabled(name):
                off = [n for n in needs if not self.enabled(n)]
                if off:
                    out.append(f"{name} is enabled, but depends on features that are disabled: [{' '.join(off)}]")
        return out

    def changed(self) -> dict[str, bool]:
        """The gates whose value differs from this minor's default (for the trace and headings)."""
        return dict(self._changed)


def _go_bool(v: bool) -> str:
    return "true" if v else "false"


def _aggregate(messages: list[str]) -> str:
    """utilerrors.NewAggregate's text: one message as it is, several in brackets."""
    return messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]"
