"""Eviction thresholds as the kubelet holds them (`pkg/kubelet/eviction/api`, `helpers.go`): parsed
once from the KubeletConfiguration's maps into values (signal, operator, quantity or percentage,
grace period, minimum reclaim), then every decision reads those values: which are met against the
observations, since when, whether their grace period has passed, which node conditions they raise.
Percentages are float32, as the kubelet's, so a threshold's quantity is the kubelet's to the byte.
"""
from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Iterable, Mapping, Optional

from kexplain.apimachinery.quantity import BINARY_SI, Quantity, QuantityError, add, must_parse, new_quantity
from kexplain.config._decode import parse_duration   # Go's time.ParseDuration

# -- signals (api/types.go) and what each maps to (helpers.go init) --------------------------------
MEMORY_AVAILABLE = "memory.available"
NODEFS_AVAILABLE = "nodefs.available"
NODEFS_INODES_FREE = "nodefs.inodesFree"
IMAGEFS_AVAILABLE = "imagefs.available"
IMAGEFS_INODES_FREE = "imagefs.inodesFree"
CONTAINERFS_AVAILABLE = "containerfs.available"
CONTAINERFS_INODES_FREE = "containerfs.inodesFree"
ALLOCATABLE_MEMORY_AVAILABLE = "allocatableMemory.available"
PID_AVAILABLE = "pid.available"

OP_LESS_THAN = "LessThan"

MEMORY_PRESSURE, DISK_PRESSURE, PID_PRESSURE = "MemoryPressure", "DiskPressure", "PIDPressure"
RESOURCE_MEMORY, RESOURCE_EPHEMERAL_STORAGE, RESOURCE_INODES, RESOURCE_PIDS = \
    "memory", "ephemeral-storage", "inodes", "pids"

# signal -> (node condition, resource to reclaim)
SIGNALS: dict[str, tuple[str, str]] = {
    MEMORY_AVAILABLE: (MEMORY_PRESSURE, RESOURCE_MEMORY),
    ALLOCATABLE_MEMORY_AVAILABLE: (MEMORY_PRESSURE, RESOURCE_MEMORY),
    IMAGEFS_AVAILABLE: (DISK_PRESSURE, RESOURCE_EPHEMERAL_STORAGE),
    IMAGEFS_INODES_FREE: (DISK_PRESSURE, RESOURCE_INODES),
    CONTAINERFS_AVAILABLE: (DISK_PRESSURE, RESOURCE_EPHEMERAL_STORAGE),
    CONTAINERFS_INODES_FREE: (DISK_PRESSURE, RESOURCE_INODES),
    NODEFS_AVAILABLE: (DISK_PRESSURE, RESOURCE_EPHEMERAL_STORAGE),
    NODEFS_INODES_FREE: (DISK_PRESSURE, RESOURCE_INODES),
    PID_AVAILABLE: (PID_PRESSURE, RESOURCE_PIDS),
}
CONDITION_ORDER = (MEMORY_PRESSURE, DISK_PRESSURE, PID_PRESSURE)

# the kubelet's own texts (helpers.go)
UNSUPPORTED_SIGNAL = "unsupported eviction signal {}"
GRACE_PERIOD_REQUIRED = "grace period must be specified for the soft eviction threshold {}"
PERCENT_NOT_NEGATIVE = "eviction percentage threshold {} must be >= 0%: {}"
PERCENT_AT_MOST_100 = "eviction percentage threshold {} must be <= 100%: {}"
MUST_BE_POSITIVE = "eviction threshold {} must be positive: {}"
GRACE_NOT_NEGATIVE = "invalid eviction grace period specified: {}, must be a positive value"
RECLAIM_PERCENT_POSITIVE = "eviction percentage minimum reclaim {} must be positive: {}"
RECLAIM_NOT_NEGATIVE = "negative eviction minimum reclaim specified for {}"
NODE_ALLOCATABLE_ENFORCEMENT_KEY = "pods"


class ThresholdError(ValueError):
    """A statement the kubelet refuses; `key` is the map and signal it came from."""

    def __init__(self, message: str, key: str = "") -> None:
        super().__init__(message)
        self.key = key


def float32(x: float) -> float:
    """x rounded to the nearest float32, as Go's float32(x)."""
    return struct.unpack("f", struct.pack("f", x))[0]


@dataclass(frozen=True)
class ThresholdValue:
    """evictionapi.ThresholdValue: a quantity, else a float32 fraction of the capacity."""

    quantity: Optional[Quantity] = None
    percentage: float = 0.0

    def __str__(self) -> str:
        if self.quantity is not None:
            return str(self.quantity)
        return f"{self.percentage * 100:.6g}%"    # a float32 read back as written (15%, not 15.000001%)

    def quantity_for(self, capacity: Quantity) -> Quantity:
        """GetThresholdQuantity: the quantity itself, or the percentage of the capacity, truncated."""
        if self.quantity is not None:
            return self.quantity
        return new_quantity(int(float(math.ceil(capacity.value)) * self.percentage), BINARY_SI)


@dataclass(frozen=True)
class Threshold:
    """evictionapi.Threshold; `grace_ns` 0 is a hard threshold."""

    signal: str
    operator: str
    value: ThresholdValue
    grace_ns: int = 0
    min_reclaim: Optional[ThresholdValue] = None

    @property
    def hard(self) -> bool:
        return self.grace_ns == 0

    @property
    def resource(self) -> str:
        return SIGNALS.get(self.signal, ("", ""))[1]

    def same(self, other: "Threshold") -> bool:
        """hasThreshold's equality: grace period, operator, signal and value (not min reclaim)."""
        return (self.grace_ns, self.operator, self.signal) == (other.grace_ns, other.operator, other.signal) \
            and _same_value(self.value, other.value)

    def describe(self) -> dict:
        """The threshold as the document shows it."""
        out: dict = {"signal": self.signal, "operator": self.operator, "value": str(self.value), "hard": self.hard}
        if not self.hard:
            out["gracePeriodSeconds"] = self.grace_ns // 10**9
        if self.min_reclaim is not None:
            out["minReclaim"] = str(self.min_reclaim)
        return out


def _same_value(a: ThresholdValue, b: ThresholdValue) -> bool:
    """compareThresholdValue."""
    if a.quantity is not None or b.quantity is not None:
        return a.quantity is not None and b.quantity is not None and a.quantity.value == b.quantity.value
    return a.percentage == b.percentage


def sort_key(t: Threshold) -> tuple:
    """The document's order of thresholds (the kubelet's is a map's, random)."""
    return (t.signal, t.grace_ns, t.operator, str(t.value))


# -- ParseThresholdConfig -------------------------------------------------------------------------
_GO_FLOAT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?(inf|infinity|nan)", re.IGNORECASE)


def parse_percentage(text: str) -> float:
    """parsePercentage: strconv.ParseFloat(..., 32) / 100 in float32."""
    number = text.rstrip("%")
    if not _GO_FLOAT.fullmatch(number):
        raise ThresholdError(f'strconv.ParseFloat: parsing "{number}": invalid syntax')
    value = float(number)
    if math.isfinite(value) and abs(value) > 3.4028234663852886e38:
        raise ThresholdError(f'strconv.ParseFloat: parsing "{number}": value out of range')
    return float32(float32(value) / 100)


def _quantity(text: str) -> Quantity:
    try:
        return must_parse(text) if text.strip() == text else must_parse(text.strip())
    except QuantityError as err:
        raise ThresholdError(str(err)) from None


def parse_statement(signal: str, text: str) -> Optional[Threshold]:
    """parseThresholdStatement: None for 0% and 100% (ignored)."""
    if signal not in SIGNALS:
        raise ThresholdError(UNSUPPORTED_SIGNAL.format(signal))
    if text.endswith("%"):
        if text in ("0%", "100%"):
            return None
        pct = parse_percentage(text)
        if pct < 0:
            raise ThresholdError(PERCENT_NOT_NEGATIVE.format(signal, text))
        if pct > 1:
            raise ThresholdError(PERCENT_AT_MOST_100.format(signal, text))
        return Threshold(signal, OP_LESS_THAN, ThresholdValue(percentage=pct))
    q = _quantity(text)
    if q.value <= 0:
        raise ThresholdError(MUST_BE_POSITIVE.format(signal, q))
    return Threshold(signal, OP_LESS_THAN, ThresholdValue(quantity=q))


def _statements(field: str, statements: Mapping[str, str]) -> list[Threshold]:
    out = []
    for signal, text in statements.items():
        try:
            parsed = parse_statement(signal, text)
        except ThresholdError as err:
            raise ThresholdError(str(err), f"{field}[{signal}]") from None
        if parsed is not None:
            out.append(parsed)
    return out


def _min_reclaim(signal: str, text: str) -> ThresholdValue:
    if signal not in SIGNALS:
        raise ThresholdError(UNSUPPORTED_SIGNAL.format(signal))
    if text.endswith("%"):
        pct = parse_percentage(text)
        if pct <= 0:
            raise ThresholdError(RECLAIM_PERCENT_POSITIVE.format(signal, text))
        return ThresholdValue(percentage=pct)
    q = _quantity(text)
    if q.value < 0:
        raise ThresholdError(RECLAIM_NOT_NEGATIVE.format(signal))
    return ThresholdValue(quantity=q)


def _grace_period(signal: str, text: str) -> int:
    if signal not in SIGNALS:
        raise ThresholdError(UNSUPPORTED_SIGNAL.format(signal))
    ns = parse_duration(text)
    if ns is None:
        missing = text.lstrip("+-").replace(".", "", 1).isdigit()
        raise ThresholdError(f'time: {"missing unit in" if missing else "invalid"} duration "{text}"')
    if ns < 0:
        raise ThresholdError(GRACE_NOT_NEGATIVE.format(text))
    return ns


def _keyed(field: str, statements: Mapping[str, str], parse) -> dict:
    out = {}
    for signal, text in statements.items():
        try:
            out[signal] = parse(signal, text)
        except ThresholdError as err:
            raise ThresholdError(str(err), f"{field}[{signal}]") from None
    return out


def parse_threshold_config(allocatable: Iterable[str], hard: Mapping[str, str], soft: Mapping[str, str],
                           grace: Mapping[str, str], min_reclaim: Mapping[str, str]) -> list[Threshold]:
    """ParseThresholdConfig: hard, then soft with their grace periods, minimum reclaims on every
    threshold of the signal, and allocatableMemory.available copied from a hard memory.available
    when node allocatable is enforced on pods."""
    results = _statements("evictionHard", hard)
    softs = _statements("evictionSoft", soft)
    periods = _keyed("evictionSoftGracePeriod", grace, _grace_period)
    reclaims = _keyed("evictionMinimumReclaim", min_reclaim, _min_reclaim)
    for i, t in enumerate(softs):
        if t.signal not in periods:
            raise ThresholdError(GRACE_PERIOD_REQUIRED.format(t.signal), f"evictionSoftGracePeriod[{t.signal}]")
        softs[i] = replace(t, grace_ns=periods[t.signal])
    results = [replace(t, min_reclaim=reclaims[t.signal]) if t.signal in reclaims else t for t in results + softs]
    if NODE_ALLOCATABLE_ENFORCEMENT_KEY in allocatable:
        results += [Threshold(ALLOCATABLE_MEMORY_AVAILABLE, t.operator, t.value, 0, t.min_reclaim)
                    for t in results if t.signal == MEMORY_AVAILABLE and t.hard]
    return results


# -- UpdateContainerFsThresholds ------------------------------------------------------------------
_EMPTY = Threshold("", "", ThresholdValue())


def update_container_fs_thresholds(thresholds: list[Threshold], image_fs: bool, split: bool) -> list[Threshold]:
    """UpdateContainerFsThresholds: containerfs thresholds copied from nodefs' (one filesystem, or
    split) or imagefs' (a dedicated image filesystem); a configured containerfs threshold is
    overridden in place, else one is appended (an empty one when the source is not configured).
    The list is changed in place, as the kubelet's slice is (its first pass still reads it)."""
    if image_fs and not split:
        source = (IMAGEFS_AVAILABLE, IMAGEFS_INODES_FREE)
    elif image_fs == split:
        source = (NODEFS_AVAILABLE, NODEFS_INODES_FREE)
    else:
        return list(thresholds)
    found: dict[tuple[str, bool], Threshold] = {}
    at: dict[tuple[str, bool], int] = {}
    for i, t in enumerate(thresholds):
        found[(t.signal, t.hard)] = t
        if t.signal in (CONTAINERFS_AVAILABLE, CONTAINERFS_INODES_FREE):
            at[(t.signal, t.hard)] = i
    out = list(thresholds)
    for target, src in zip((CONTAINERFS_AVAILABLE, CONTAINERFS_INODES_FREE), source):
        for hard in (True, False):
            base = found.get((src, hard), _EMPTY)
            made = Threshold(target, base.operator, base.value, 0 if hard else base.grace_ns, base.min_reclaim)
            if (target, hard) in at:
                thresholds[at[(target, hard)]] = made
                out[at[(target, hard)]] = made
            else:
                out.append(made)
    return out


# -- thresholdsMet and the bookkeeping around it --------------------------------------------------
def met(thresholds: Iterable[Threshold], observations: Mapping, enforce_min_reclaim: bool) -> list[Threshold]:
    """thresholdsMet: the thresholds whose observed available is below their quantity (plus the
    minimum reclaim when enforced); a signal not observed is skipped."""
    out = []
    for t in thresholds:
        seen = observations.get(t.signal)
        if seen is None:
            continue
        quantity = t.value.quantity_for(seen.capacity)
        if enforce_min_reclaim and t.min_reclaim is not None:
            quantity = add(quantity, t.min_reclaim.quantity_for(seen.capacity))
        if t.operator == OP_LESS_THAN and quantity.value > seen.available.value:
            out.append(t)
    return out


def merge(a: list[Threshold], b: Iterable[Threshold]) -> list[Threshold]:
    """mergeThresholds: a, then b's not already in it."""
    out = list(a)
    for t in b:
        if not any(x.same(t) for x in out):
            out.append(t)
    return out


def first_observed_at(thresholds: Iterable[Threshold], last: Mapping[Threshold, datetime],
                      now: datetime) -> dict[Threshold, datetime]:
    """thresholdsFirstObservedAt: when each threshold met now was first met."""
    return {t: last.get(t, now) for t in thresholds}


def met_grace_period(observed_at: Mapping[Threshold, datetime], now: datetime) -> list[Threshold]:
    """thresholdsMetGracePeriod: those met for at least their grace period."""
    return [t for t, at in observed_at.items() if grace_met(t, at, now)]


def grace_met(t: Threshold, at: datetime, now: datetime) -> bool:
    elapsed = (now - at).total_seconds() * 10**9
    return elapsed >= t.grace_ns


def node_conditions(thresholds: Iterable[Threshold]) -> list[str]:
    """nodeConditions: the conditions the thresholds raise, each once."""
    out: list[str] = []
    for t in thresholds:
        cond = SIGNALS.get(t.signal, ("", ""))[0]
        if cond and cond not in out:
            out.append(cond)
    return out


def conditions_last_observed_at(conditions: Iterable[str], last: Mapping[str, datetime],
                                now: datetime) -> dict[str, datetime]:
    """nodeConditionsLastObservedAt."""
    out = {c: now for c in conditions}
    for c, at in last.items():
        out.setdefault(c, at)
    return out


def conditions_observed_since(observed_at: Mapping[str, datetime], period_ns: int, now: datetime) -> list[str]:
    """nodeConditionsObservedSince: the conditions seen within the transition period (in the
    order Memory, Disk, PID: the kubelet's is a map's)."""
    fresh = {c for c, at in observed_at.items() if (now - at).total_seconds() * 10**9 < period_ns}
    return [c for c in CONDITION_ORDER if c in fresh] + sorted(fresh - set(CONDITION_ORDER))


def updated_stats(thresholds: Iterable[Threshold], observations: Mapping, last: Mapping) -> list[Threshold]:
    """thresholdsUpdatedStats: those whose signal was sampled after the previous pass's sample."""
    out = []
    for t in thresholds:
        seen = observations.get(t.signal)
        if seen is None:
            continue
        before = last.get(t.signal)
        if before is None or seen.time is None or before.time is None or seen.time > before.time:
            out.append(t)
    return out


def by_eviction_priority(thresholds: list[Threshold]) -> list[Threshold]:
    """sort.Sort(byEvictionPriority(...)) on a short list (Go's insertion sort below 13 items):
    memory signals first, thresholds with no resource to reclaim last."""
    out = list(thresholds)

    def less(i: int, j: int) -> bool:
        return out[i].signal in (MEMORY_AVAILABLE, ALLOCATABLE_MEMORY_AVAILABLE) or out[j].signal not in SIGNALS

    for i in range(1, len(out)):
        j = i
        while j > 0 and less(j, j - 1):
            out[j], out[j - 1] = out[j - 1], out[j]
            j -= 1
    return out


def reclaimable(thresholds: Iterable[Threshold]) -> Optional[tuple[Threshold, str]]:
    """getReclaimableThreshold: the first threshold with a resource to reclaim."""
    for t in thresholds:
        if t.signal in SIGNALS:
            return t, t.resource
    return None
