"""Volcano's release followed, as data (the scheduler's behaviour is v1.15.1's; its predicates and
nodeorder call kube-scheduler's plugins, linked at Kubernetes 1.35)."""
from __future__ import annotations

from dataclasses import dataclass

from kexplain.errors import InputError
from kexplain.features import releases


@dataclass(frozen=True)
class VolcanoVersion:
    release: str
    commit: str
    kubernetes: str          # the kube-scheduler minor its predicates and nodeorder run

    def __str__(self) -> str:
        return f"{self.release} ({self.commit})"


V1_15_1 = VolcanoVersion("v1.15.1", "0a56ed331897f5455916a44d3075671376d731d6", "1.35")
DEFAULT = V1_15_1
RELEASES = {"1.15": V1_15_1}


def resolve(text: str | None) -> VolcanoVersion:
    """`--volcano-version X.Y` (or the release, v1.15.1): a release kexplain follows; InputError naming
    the ones it follows otherwise."""
    if text is None:
        return DEFAULT
    found = releases.named(text, RELEASES, _release)
    if found is None:
        known = releases.listed(RELEASES, _release)
        raise InputError(f"--volcano-version {text}: not a Volcano release kexplain follows (it follows {known})")
    return found


def _release(version: VolcanoVersion) -> str:
    return version.release
