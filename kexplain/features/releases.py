"""Picking a followed release by the words a user gives it (`X.Y`, `vX.Y.Z`, `X.Y.Z`): one rule for
every component whose version is data (Kueue, Volcano), so their flags read alike."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeVar

T = TypeVar("T")


def named(text: str, by_minor: Mapping[str, T], release: Callable[[T], str]) -> T | None:
    """The release `text` names, by its minor or its full release with or without the `v`; None if none."""
    wanted = text.strip().removeprefix("v")
    for minor, version in by_minor.items():
        if wanted in (minor, release(version).removeprefix("v")):
            return version
    return None


def listed(by_minor: Mapping[str, T], release: Callable[[T], str]) -> str:
    """The releases followed, as an error lists them: `1.15 (v1.15.1), ...`."""
    return ", ".join(f"{minor} ({release(version)})" for minor, version in by_minor.items())
