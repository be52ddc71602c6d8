"""Semantic versions as github.com/blang/semver/v4 parses and orders them, with its messages: device
attributes of kind `version` and CEL's `semver()` both go through its `Parse`.
"""
from __future__ import annotations

from dataclasses import dataclass
from kexplain.apimachinery.fielderrors import go_quote as _quote

_NUMBERS = frozenset("0123456789")
_ALPHANUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789")
_UINT64_MAX = (1 << 64) - 1


class SemverError(ValueError):
    """blang/semver refused the text; the message is blang's (or strconv's)."""


def _only(s: str, charset: frozenset[str]) -> bool:
    return all(c in charset for c in s)


def _leading_zero(s: str) -> bool:
    return len(s) > 1 and s[0] == "0"


def _parse_uint(s: str) -> int:
    """strconv.ParseUint(s, 10, 64) on text already known to hold only digits."""
    if not s:
        raise SemverError('strconv.ParseUint: parsing "": invalid syntax')
    v = int(s) if len(s) <= 40 else _UINT64_MAX + 1
    if v > _UINT64_MAX:
        raise SemverError(f'strconv.ParseUint: parsing "{s}": value out of range')
    return v


@dataclass(frozen=True, slots=True)
class PRVersion:
    text: str
    num: int
    is_num: bool

    def compare(self, o: "PRVersion") -> int:
        if self.is_num != o.is_num:
            return -1 if self.is_num else 1
        if self.is_num:
            return (self.num > o.num) - (self.num < o.num)
        return (self.text > o.text) - (self.text < o.text)

    def __str__(self) -> str:
        return str(self.num) if self.is_num else self.text


@dataclass(frozen=True, slots=True)
class Semver:
    major: int
    minor: int
    patch: int
    pre: tuple[PRVersion, ...] = ()
    build: tuple[str, ...] = ()

    def compare(self, o: "Semver") -> int:
        for a, b in ((self.major, o.major), (self.minor, o.minor), (self.patch, o.patch)):
            if a != b:
                return 1 if a > b else -1
        if not self.pre or not o.pre:
            return (not self.pre) - (not o.pre)
        for a, b in zip(self.pre, o.pre):
            c = a.compare(b)
            if c:
                return c
        return (len(self.pre) > len(o.pre)) - (len(self.pre) < len(o.pre))

    def __str__(self) -> str:
        s = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            s += "-" + ".".join(map(str, self.pre))
        if self.build:
            s += "+" + ".".join(self.build)
        return s


def _pr_version(s: str) -> PRVersion:
    if not s:
        raise SemverError("Prerelease is empty")
    if _only(s, _NUMBERS):
        if _leading_zero(s):
            raise SemverError(f'Numeric PreRelease version must not contain leading zeroes "{s}"')
        return PRVersion("", _parse_uint(s), True)
    if _only(s, _ALPHANUM):
        return PRVersion(s, 0, False)
    raise SemverError(f"Invalid character(s) found in prerelease {_quote(s)}")



def parse(s: str) -> Semver:
    """blang/semver `Parse`."""
    if not s:
        raise SemverError("Version string empty")
    parts = s.split(".", 2)
    if len(parts) != 3:
        raise SemverError("No Major.Minor.Patch elements found")
    patch_str = parts[2]
    build: list[str] = []
    prerelease: list[str] = []
    if "+" in patch_str:
        i = patch_str.index("+")
        build = patch_str[i + 1:].split(".")
        patch_str = patch_str[:i]
    if "-" in patch_str:
        i = patch_str.index("-")
        prerelease = patch_str[i + 1:].split(".")
        patch_str = patch_str[:i]
    nums = []
    for name, part in zip(("major", "minor", "patch"), (parts[0], parts[1], patch_str)):
        if not _only(part, _NUMBERS):
            raise SemverError(f"Invalid character(s) found in {name} number {_quote(part)}")
        if _leading_zero(part):
            raise SemverError(f"{name.capitalize()} number must not contain leading zeroes {_quote(part)}")
        nums.append(_parse_uint(part))
    pre = tuple(_pr_version(p) for p in prerelease)
    for b in build:
        if not b:
            raise SemverError("Build meta data is empty")
        if not _only(b, _ALPHANUM):
            raise SemverError(f"Invalid character(s) found in build meta data {_quote(b)}")
    return Semver(nums[0], nums[1], nums[2], pre, tuple(build))


def normalize_and_parse(s: str) -> Semver:
    """The Kubernetes semver library's `semver(s, true)`: `v` prefix, leading zeros and missing
    minor/patch tolerated."""
    if s.startswith("v"):
        s = s[1:]
    parts = s.split(".", 2)
    for i, p in enumerate(parts):
        if len(p) > 1:
            p = p.lstrip("0")
            if not p or p[0] not in _NUMBERS:
                p = "0" + p
            parts[i] = p
    if len(parts) < 3:
        if any(c in "+-" for c in parts[-1]):
            raise SemverError("short version cannot contain PreRelease/Build meta data")
        parts += ["0"] * (3 - len(parts))
    return parse(".".join(parts))
