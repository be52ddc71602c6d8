"""`priority` (CA's expander/priority): keep the options of the highest user-given priority, read
from the `cluster-autoscaler-priority-expander` ConfigMap on every call, with CA's warnings
(returned, not printed) and its edge cases (docs/internals/autoscaler.md)."""
from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from kexplain.autoscaler.expander import Option
from kexplain.autoscaler.expander.events import ExpanderEvent
from kexplain.autoscaler.status import event_object
from kexplain.cel.library.re2 import Program, RegexError, RegexUnsupported, compile_regex, has_match
from kexplain.errors import InputError
from kexplain.load.yaml_io import parse_documents

if TYPE_CHECKING:
    from kexplain.model.nodeinfo import NodeInfo

CONFIGMAP_NAME = "cluster-autoscaler-priority-expander"
CONFIGMAP_KEY = "priorities"
DEFAULT_NAMESPACE = "kube-system"

_INT64 = (-(1 << 63), (1 << 63) - 1)
_GO_INT = re.compile(r"[+-]?[0-9]+\Z")     # strconv.ParseInt(s, 10, 64)'s grammar


class PriorityConfigError(ValueError):
    """Why CA would ignore the configuration (the text CA puts after `Wrong configuration for
    priority expander: `)."""


def _float32(f: float) -> float:
    return struct.unpack("f", struct.pack("f", f))[0]


def _float32_g(f: float) -> str:
    """strconv.FormatFloat(f, 'g', -1, 32), which sigs.k8s.io/yaml uses for a float map key."""
    if math.isnan(f):
        return ".nan"
    if math.isinf(f):
        return ".inf" if f > 0 else "-.inf"
    f32 = _float32(f)
    for digits in range(1, 10):     # the fewest digits that read back as the same float32
        mantissa, exp = f"{f32:.{digits - 1}e}".split("e")
        if _float32(float(f"{mantissa}e{exp}")) == f32:
            break
    sign = "-" if mantissa.startswith("-") else ""
    mantissa = mantissa.lstrip("-").replace(".", "").rstrip("0") or "0"
    exponent = int(exp)
    if exponent < -4 or exponent >= 6:   # Go's shortest %g switches to %e at these exponents
        frac = mantissa[1:]
        return f"{sign}{mantissa[0]}{'.' + frac if frac else ''}e{'+' if exponent >= 0 else '-'}{abs(exponent):02d}"
    if exponent < 0:
        return f"{sign}0.{'0' * (-exponent - 1)}{mantissa}"
    whole = mantissa.ljust(exponent + 1, "0")
    return f"{sign}{whole[:exponent + 1]}{'.' + whole[exponent + 1:] if whole[exponent + 1:] else ''}"


def _key_text(key: Any) -> str:
    """The map key as sigs.k8s.io/yaml sends it to JSON."""
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    if isinstance(key, float):
        return _float32_g(key)
    return str(key)


def _priority(key: Any) -> int:
    """The key as encoding/json reads it into an int (ParseInt base 10, 64 bits)."""
    text = _key_text(key)
    if _GO_INT.match(text) and _INT64[0] <= int(text) <= _INT64[1]:
        return int(text)
    raise PriorityConfigError(f"Can't parse YAML with priorities in the configmap: error unmarshaling JSON: "
                              f"while decoding JSON: json: cannot unmarshal number {text} into Go value of type int")


def _json_kind(value: Any) -> str:
    return ("object" if isinstance(value, dict) else "array" if isinstance(value, list)
            else "bool" if isinstance(value, bool) else "number" if isinstance(value, (int, float))
            else "string")


def _pattern(item: Any) -> str:
    """A list item as the []string target receives it: numbers and booleans as text (the YAML-to-JSON step
    converts them for a string target), null as "" (JSON null leaves a Go string as it was)."""
    if item is None:
        return ""
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, float):
        return _float32_g(item)
    if isinstance(item, (int, str)):
        return str(item)
    raise PriorityConfigError(f"Can't parse YAML with priorities in the configmap: error unmarshaling JSON: "
                              f"while decoding JSON: json: cannot unmarshal {_json_kind(item)} "
                              "into Go value of type string")


def parse_priorities(text: str) -> dict[int, tuple[Program, ...]]:
    """The `priorities` YAML as CA reads it: priority -> compiled expressions, in the order
    written; PriorityConfigError with CA's words when CA would refuse it."""
    if text == "":
        raise PriorityConfigError(f"priority configuration in {CONFIGMAP_NAME} configmap is empty; "
                                  "please provide valid configuration")
    try:
        docs = [d.value for d in parse_documents(text, CONFIGMAP_KEY)]
    except InputError as err:
        raise PriorityConfigError(f"Can't parse YAML with priorities in the configmap: "
                                  f"error converting YAML to JSON: {err.message}") from None
    config = docs[0] if docs else None
    if config is None:
        return {}
    if not isinstance(config, dict):
        raise PriorityConfigError(f"Can't parse YAML with priorities in the configmap: error unmarshaling JSON: "
                                  f"while decoding JSON: json: cannot unmarshal {_json_kind(config)} "
                                  "into Go value of type map[int][]string")
    raw: dict[int, list[str]] = {}
    for key, patterns in config.items():
        prio = _priority(key)
        if patterns is not None and not isinstance(patterns, list):
            raise PriorityConfigError(f"Can't parse YAML with priorities in the configmap: error unmarshaling JSON: "
                                      f"while decoding JSON: json: cannot unmarshal {_json_kind(patterns)} "
                                      "into Go value of type []string")
        raw[prio] = [_pattern(p) for p in patterns or ()]
    out: dict[int, tuple[Program, ...]] = {}
    for prio, patterns in raw.items():
        compiled = []
        for pattern in patterns:
            try:
                compiled.append(compile_regex(pattern))
            except (RegexError, RegexUnsupported) as err:
                raise PriorityConfigError(f"Can't compile regexp rule for priority {prio} "
                                          f"and rule {pattern}: {err}") from None
        out[prio] = tuple(compiled)
    return out


@dataclass(frozen=True)
class PriorityVerdict:
    """What one call decided: the options kept and the events CA records meanwhile."""

    options: list[Option]
    events: tuple[ExpanderEvent, ...]


class Priority:
    """A Filter over the priority ConfigMap given (None: CA finds none)."""

    name = "priority"

    def __init__(self, configmap: Mapping[str, Any] | None) -> None:
        self.configmap = configmap

    def _object(self) -> str:
        meta = (self.configmap or {}).get("metadata") or {}
        return event_object("ConfigMap", meta.get("namespace") or DEFAULT_NAMESPACE, meta.get("name") or CONFIGMAP_NAME)

    def _warning(self, reason: str, message: str) -> ExpanderEvent:
        return ExpanderEvent(self._object(), "Warning", reason, message)

    def evaluate(self, options: Sequence[Option], node_infos: Mapping[str, "NodeInfo"]) -> PriorityVerdict:
        if not options:
            return PriorityVerdict([], ())
        if self.configmap is None:
            return PriorityVerdict(list(options), ())
        data = self.configmap.get("data") or {}
        if CONFIGMAP_KEY not in data:
            return PriorityVerdict(list(options), (self._warning(
                "PriorityConfigMapInvalid",
                f"Wrong configmap for priority expander, doesn't contain {CONFIGMAP_KEY} key. Ignoring update."),))
        try:
            priorities = parse_priorities(str(data[CONFIGMAP_KEY] or ""))
        except PriorityConfigError as err:
            return PriorityVerdict(list(options), (self._warning(
                "PriorityConfigMapInvalid", f"Wrong configuration for priority expander: {err}. Ignoring update."),))
        events: list[ExpanderEvent] = []
        ranked: list[tuple[int, Option]] = []
        for option in options:
            group = option.node_group.name
            matched = [prio for prio, programs in priorities.items()
                       if any(has_match(p, group) for p in programs)]
            if not matched:
                events.append(self._warning(
                    "PriorityConfigMapNotMatchedGroup",
                    f"Priority expander: node group {group} not found in priority expander configuration. "
                    "The group won't be used."))
            elif max(matched) >= -1:         # CA's running maximum starts at -1
                ranked.append((max(matched), option))
        if not ranked:
            events.append(self._warning(
                "PriorityConfigMapNoGroupMatched",
                "Priority expander: no priorities info found for any of the expansion options. No options filtered."))
            return PriorityVerdict(list(options), tuple(events))
        top = max(prio for prio, _ in ranked)
        return PriorityVerdict([o for prio, o in ranked if prio == top], tuple(events))

    def best_options(self, options: Sequence[Option], node_infos: Mapping[str, "NodeInfo"]) -> list[Option]:
        return self.evaluate(options, node_infos).options
