"""Kueue's own Configuration (apis/config v1beta1 and v1beta2, read as pkg/config loads it): what
a pass reads of it, its fair sharing. v1beta1's `fairSharing.enable: false` (or no fairSharing)
is none (the conversion drops it); enabled without strategies, the default pair."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from kexplain.errors import InputError, Source

GROUP = "config.kueue.x-k8s.io"
KIND = "Configuration"
LESS_THAN_OR_EQUAL_TO_FINAL_SHARE = "LessThanOrEqualToFinalShare"
LESS_THAN_INITIAL_SHARE = "LessThanInitialShare"
DEFAULT_STRATEGIES = (LESS_THAN_OR_EQUAL_TO_FINAL_SHARE, LESS_THAN_INITIAL_SHARE)
# validateFairSharing: the strategy lists Kueue accepts
VALID_STRATEGY_SETS = ((LESS_THAN_OR_EQUAL_TO_FINAL_SHARE,), (LESS_THAN_INITIAL_SHARE,), DEFAULT_STRATEGIES)


@dataclass(frozen=True)
class FairSharing:
    preemption_strategies: tuple[str, ...] = DEFAULT_STRATEGIES


@dataclass(frozen=True)
class KueueConfig:
    fair_sharing: FairSharing | None = None


def is_configuration(obj: Mapping[str, Any]) -> bool:
    api = obj.get("apiVersion")
    return obj.get("kind") == KIND and isinstance(api, str) and api.split("/", 1)[0] == GROUP


def parse_configuration(obj: Mapping[str, Any], source: Source | None = None) -> KueueConfig:
    """The Configuration's fair sharing, defaulted and validated as Kueue's config loader does;
    a list of strategies Kueue refuses is bad input in its words."""
    version = str(obj.get("apiVersion") or "").split("/", 1)[-1]
    raw = obj.get("fairSharing")
    if raw is None:
        return KueueConfig()
    if not isinstance(raw, Mapping):
        raise InputError("must be an object", source=source, obj=obj, field="fairSharing")
    if version == "v1beta1" and raw.get("enable") is not True:
        return KueueConfig()
    strategies = raw.get("preemptionStrategies")
    if strategies is None and version == "v1beta1":
        strategies = list(DEFAULT_STRATEGIES)
    given = tuple(str(s) for s in strategies or ())
    if not given:
        raise InputError("Required value: must be specified", source=source, obj=obj,
                         field="fairSharing.preemptionStrategies")
    if given not in VALID_STRATEGY_SETS:
        supported = ", ".join(f'"{",".join(s)}"' for s in VALID_STRATEGY_SETS)
        raise InputError(f"Unsupported value: {list(given)}: supported values: {supported}", source=source, obj=obj,
                         field="fairSharing.preemptionStrategies")
    return KueueConfig(FairSharing(given))
