"""The KubeletConfiguration's eviction settings, read and defaulted as the kubelet does
(`apis/config/v1beta1/defaults.go`, `cmd/kubelet/app` for `evictionHard`: unset, it is
`DefaultEvictionHard`; with `mergeDefaultEvictionSettings`, the missing default signals are added),
then the thresholds parsed (`ParseThresholdConfig`), refused with the kubelet's own words."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional

from kexplain.config._decode import parse_duration   # Go's time.ParseDuration
from kexplain.eviction.kubelet import thresholds as th

API_VERSION = "kubelet.config.k8s.io/v1beta1"
KIND = "KubeletConfiguration"

# eviction.DefaultEvictionHard (defaults_linux.go)
DEFAULT_EVICTION_HARD = {"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%",
                         "imagefs.available": "15%", "imagefs.inodesFree": "5%"}
DEFAULT_TRANSITION_PERIOD = "5m"
DEFAULT_NODE_ALLOCATABLE_ENFORCEMENT = ("pods",)
MAPS = ("evictionHard", "evictionSoft", "evictionSoftGracePeriod", "evictionMinimumReclaim")


class ConfigError(ValueError):
    """A KubeletConfiguration the kubelet refuses; `field` is where."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class EvictionConfig:
    """eviction.Config and what feeds it: the thresholds, the transition period, the cap on a
    soft eviction's grace period, whether local storage limits are enforced; the maps as given
    after defaulting (for the explanation)."""

    thresholds: tuple[th.Threshold, ...]
    transition_ns: int
    max_pod_grace_seconds: int
    local_storage_isolation: bool = True
    eviction_hard: Mapping[str, str] = None          # type: ignore[assignment]
    merged_defaults: bool = False
    hard_defaulted: bool = False


def _string_map(doc: Mapping, key: str) -> Optional[dict[str, str]]:
    raw = doc.get(key)
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise ConfigError(f"json: cannot unmarshal {_json_type(raw)} into Go struct field "
                          f"{KIND}.{key} of type map[string]string", key)
    for k, v in raw.items():
        if not isinstance(v, str):
            raise ConfigError(f"json: cannot unmarshal {_json_type(v)} into Go struct field "
                              f"{KIND}.{key} of type string", f"{key}[{k}]")
    return {str(k): v for k, v in raw.items()}


def _json_type(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def _typed(doc: Mapping, key: str, kind: type, go: str, default: Any) -> Any:
    raw = doc.get(key)
    if raw is None:
        return default
    if not isinstance(raw, kind) or (kind is int and isinstance(raw, bool)):
        raise ConfigError(f"json: cannot unmarshal {_json_type(raw)} into Go struct field {KIND}.{key} of type {go}",
                          key)
    return raw


def _duration(doc: Mapping, key: str, default: str) -> int:
    raw = _typed(doc, key, str, "string", default)
    ns = parse_duration(raw)
    if ns is None:
        raise ConfigError(f'time: invalid duration "{raw}"', key)
    return ns or parse_duration(default) or 0


CONFIGZ_KEY = "kubeletconfig"


def _check_kind(doc: Any) -> Mapping:
    if not isinstance(doc, Mapping):
        raise ConfigError(f"not a {KIND}: a mapping is expected")
    if set(doc) == {CONFIGZ_KEY} and isinstance(doc[CONFIGZ_KEY], Mapping):
        return doc[CONFIGZ_KEY]      # the node's /configz: the running configuration, defaulted already
    kind, version = doc.get("kind"), doc.get("apiVersion")
    if kind is not None and kind != KIND:
        raise ConfigError(f'no kind "{kind}" is registered for version "{version}"', "kind")
    if version is not None and version != API_VERSION:
        raise ConfigError(f'no kind "{kind or KIND}" is registered for version "{version}"', "apiVersion")
    return doc


def read(doc: Any) -> EvictionConfig:
    """The eviction configuration of a KubeletConfiguration document (`{}`: the kubelet's defaults),
    or of the node's `/configz` answer (`{"kubeletconfig": {...}}`)."""
    doc = _check_kind(doc)
    maps = {key: _string_map(doc, key) for key in MAPS}
    merge = _typed(doc, "mergeDefaultEvictionSettings", bool, "bool", False)
    hard = maps["evictionHard"]
    defaulted = hard is None
    if hard is None:
        hard = dict(DEFAULT_EVICTION_HARD)
    elif merge:
        hard = {**hard, **{k: v for k, v in DEFAULT_EVICTION_HARD.items() if k not in hard}}
    enforce = _typed(doc, "enforceNodeAllocatable", list, "[]string", list(DEFAULT_NODE_ALLOCATABLE_ENFORCEMENT))
    try:
        parsed = th.parse_threshold_config([str(x) for x in enforce], hard, maps["evictionSoft"] or {},
                                           maps["evictionSoftGracePeriod"] or {}, maps["evictionMinimumReclaim"] or {})
    except th.ThresholdError as err:
        raise ConfigError(str(err), err.key) from None
    return EvictionConfig(
        thresholds=tuple(parsed),
        transition_ns=_duration(doc, "evictionPressureTransitionPeriod", DEFAULT_TRANSITION_PERIOD),
        max_pod_grace_seconds=_typed(doc, "evictionMaxPodGracePeriod", int, "int32", 0),
        local_storage_isolation=_typed(doc, "localStorageCapacityIsolation", bool, "bool", True),
        eviction_hard=hard, merged_defaults=bool(merge), hard_defaulted=defaulted)
