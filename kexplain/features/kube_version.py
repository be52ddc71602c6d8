"""The Kubernetes version kexplain follows: a minor and its feature gates. Everything a minor changes is
data read where its rule lives (gates here, default plugins in `kexplain.config`, served API versions in
`kexplain.admission`, ungated changes as named `since` checks); nothing else compares versions.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from kexplain.errors import KexplainError
from kexplain.features.admission_plugins import DEFAULT as DEFAULT_ADMISSION, AdmissionPlugins, parse as \
    parse_admission
from kexplain.features.featuregate import FeatureGates

# minor -> the kube-scheduler release kexplain reproduces for it (the conformance cases' source)
RELEASES: dict[str, str] = {"1.33": "v1.33.3", "1.34": "v1.34.7", "1.35": "v1.35.4", "1.36": "v1.36.3"}
SUPPORTED = tuple(RELEASES)
OLDEST, NEWEST = SUPPORTED[0], SUPPORTED[-1]
DEFAULT_MINOR = "1.36"
ENV_VAR = "KEXPLAIN_KUBERNETES_VERSION"

# What a minor newer than NEWEST is known to change, said when kexplain follows NEWEST for it.
KNOWN_CHANGES: dict[str, str] = {
    "1.37": "the preemption text in FailedScheduling events, StorageCapacityScoring and "
            "VolumeLimitScaling on by default, DeviceTaintRules GA, DRA CEL error texts and allocator fixes",
}

_VERSION = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+].*)?$")


class VersionError(KexplainError):
    """A Kubernetes version kexplain cannot follow."""


def _key(minor: str) -> tuple[int, int]:
    major, _, rest = minor.partition(".")
    return int(major), int(rest)


def parse_minor(text: str) -> tuple[str, str | None]:
    """The supported minor to follow for `text` ("v1.36.3", "1.36.0-gke.1"), with a warning when newer than
    the newest; VersionError when malformed or too old."""
    m = _VERSION.match(text.strip())
    if not m or m.group(1) != "1":
        raise VersionError(f"Kubernetes version {text!r} is not a version: write a minor such as {NEWEST} "
                           f"(supported: {', '.join(SUPPORTED)})")
    minor = f"1.{int(m.group(2))}"
    if minor in RELEASES:
        return minor, None
    if _key(minor) < _key(OLDEST):
        raise VersionError(f"Kubernetes {minor} is not supported: kexplain follows {', '.join(SUPPORTED)} "
                           f"(the oldest is {OLDEST})")
    known = KNOWN_CHANGES.get(minor)
    warning = (f"Kubernetes {minor} is newer than the newest version kexplain follows; explained as {NEWEST}"
               + (f" ({minor} is known to change {known})" if known else ""))
    return NEWEST, warning


@dataclass(frozen=True)
class KubeVersion:
    """One minor and its feature gates (the defaults unless `--feature-gates` changed them), and the
    admission plugins its API server runs (`--admission-plugins`, or a provider's recognised)."""

    minor: str = DEFAULT_MINOR
    gates: FeatureGates = field(default=None)  # type: ignore[assignment]  # set in __post_init__
    admission: AdmissionPlugins = DEFAULT_ADMISSION

    def __post_init__(self) -> None:
        if self.minor not in RELEASES:
            raise VersionError(f"Kubernetes {self.minor} is not supported: kexplain follows {', '.join(SUPPORTED)}")
        if self.gates is None:
            object.__setattr__(self, "gates", FeatureGates(self.minor))
        elif self.gates.minor != self.minor:
            raise ValueError("feature gates of another minor")

    @property
    def release(self) -> str:
        """The kube-scheduler release reproduced, e.g. v1.35.4."""
        return RELEASES[self.minor]

    def enabled(self, gate: str) -> bool:
        return self.gates.enabled(gate)

    def since(self, minor: str) -> bool:
        """Whether this minor is `minor` or newer: for the few changes no gate guards, each named
        where it is used (e.g. `TAINT_REASON_HIDES_VALUE = "1.34"`)."""
        return _key(self.minor) >= _key(minor)

    def with_feature_gates(self, value: str | None) -> "KubeVersion":
        """This version with `--feature-gates` applied (FeatureGateError as kube-scheduler says it)."""
        if not value:
            return self
        return KubeVersion(self.minor, self.gates.with_flag(value), self.admission)

    def with_admission(self, plugins: AdmissionPlugins) -> "KubeVersion":
        """This version with its API server's admission plugins set."""
        return self if plugins == self.admission else replace(self, admission=plugins)

    def describe(self) -> str:
        """"Kubernetes 1.35 (kube-scheduler v1.35.4)", with the gates changed from the defaults."""
        changed = self.gates.changed()
        gates = ", feature gates " + ",".join(f"{n}={'true' if v else 'false'}" for n, v in changed.items()) \
            if changed else ""
        return f"Kubernetes {self.minor} (kube-scheduler {self.release}{gates})"


def version_json(kube: KubeVersion) -> dict:
    """The trace's `kubernetesVersion`: which minor and release were followed, and the gates
    that differ from that minor's defaults."""
    out: dict = {"minor": kube.minor, "scheduler": kube.release}
    changed = kube.gates.changed()
    if changed:
        out["featureGates"] = changed
    return out


def resolve(flag: str | None, env_value: str | None, feature_gates: str | None = None,
            detected: str | None = None, admission: tuple[str, str] | None = None) -> tuple[KubeVersion, list[str]]:
    """The version to follow and the warnings to say: the flag wins, then the environment
    variable, then the version the cluster reports (live mode, a snapshot), then the default.
    `admission`: the admission plugins said and where (`--admission-plugins`), else recognised later."""
    text = next((t for t in (flag, env_value, detected) if t), None)
    warnings: list[str] = []
    minor = DEFAULT_MINOR
    if text is not None:
        minor, warning = parse_minor(text)
        if warning:
            warnings.append(warning)
    kube = KubeVersion(minor).with_feature_gates(feature_gates)
    if admission is not None:
        kube = kube.with_admission(parse_admission(*admission))
    return kube, warnings


DEFAULT = KubeVersion()
