"""Kueue's Configuration `admissionFairSharing` (configuration_types.go AdmissionFairSharing, read as
pkg/config defaults and validates it) and the gates Kueue's release turns on by default: what
orders a ClusterQueue's LocalQueues by their usage (`kexplain.kueue.queue.afs`)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

from kexplain.apimachinery.fielderrors import FieldError, Raw, go_json, invalid
from kexplain.config._decode import format_duration, parse_duration

DEFAULT_SAMPLING_SECONDS = 300.0        # SetDefaults: usageSamplingInterval 5m
NEGATIVE = "must be greater than or equal to 0"     # apimachineryvalidation.IsNegativeErrorMsg
# the feature gates the Configuration's admissionFairSharing and multiKueue parts ask (`KueueConfig.enabled`)
ADMISSION_FAIR_SHARING, MULTI_KUEUE = "AdmissionFairSharing", "MultiKueue"


@dataclass(frozen=True)
class AdmissionFairSharing:
    """admissionFairSharing, defaulted: durations in seconds; `resource_weights` (resource, weight)
    sorted, a resource not named weighing 1."""

    usage_half_life_seconds: float = 0.0
    usage_sampling_seconds: float = DEFAULT_SAMPLING_SECONDS
    resource_weights: tuple[tuple[str, float], ...] = ()

    def weight(self, resource: str) -> float:
        return dict(self.resource_weights).get(resource, 1.0)

    def alpha(self) -> float:
        """calculateAlphaRate(sampling, halfLife): the share of a Workload's requests an admission
        adds to its LocalQueue's usage at once (its entry penalty); 0 with no half-life."""
        if self.usage_half_life_seconds == 0:
            return 0.0
        return 1.0 - math.pow(0.5, self.usage_sampling_seconds / self.usage_half_life_seconds)


def parse_admission_fair_sharing(raw: Mapping[str, Any] | None) -> AdmissionFairSharing | None:
    """admissionFairSharing as SetDefaults leaves it (None: not given, AFS off)."""
    if raw is None:
        return None
    weights = raw.get("resourceWeights") or {}
    return AdmissionFairSharing(
        _nanos(raw.get("usageHalfLifeTime")) / 1e9,
        (_nanos(raw.get("usageSamplingInterval")) / 1e9) or DEFAULT_SAMPLING_SECONDS,
        tuple(sorted((str(k), float(v)) for k, v in weights.items())))


def validate_admission_fair_sharing(raw: Mapping[str, Any] | None) -> list[FieldError]:
    """validateAdmissionFairSharing after SetDefaults. Kueue shows the half-life as the bad value of
    a sampling interval it refuses (its words, kept)."""
    if raw is None:
        return []
    errors: list[FieldError] = []
    half_life = _nanos(raw.get("usageHalfLifeTime"))
    sampling = _nanos(raw.get("usageSamplingInterval")) or int(DEFAULT_SAMPLING_SECONDS * 1e9)
    shown = Raw(go_json(format_duration(half_life)))    # a metav1.Duration, marshalled
    if half_life < 0:
        errors.append(invalid("admissionFairSharing.usageHalfLifeTime", shown, NEGATIVE))
    if sampling <= 0:
        errors.append(invalid("admissionFairSharing.usageSamplingInterval", shown, "must be greater than 0"))
    weights = raw.get("resourceWeights") or {}
    for name in sorted(weights):
        if isinstance(weights[name], (int, float)) and weights[name] < 0:
            errors.append(invalid(f"admissionFairSharing.resourceWeights[{name}]", Raw(_go_map(weights)), NEGATIVE))
    return errors


def _nanos(value: Any) -> int:
    return (parse_duration(value) or 0) if isinstance(value, str) else 0


def _go_float(value: float) -> str:
    """encoding/json's float64: integral values without a point, exponents from 1e21."""
    f = float(value)
    if f.is_integer() and abs(f) < 1e21:
        return str(int(f))
    return repr(f)


def _go_map(weights: Mapping[str, Any]) -> str:
    """json.Marshal of a map[ResourceName]float64: keys sorted."""
    return "{" + ",".join(f"{go_json(k)}:{_go_float(weights[k])}" for k in sorted(weights)) + "}"
