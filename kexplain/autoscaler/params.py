"""CA's settings for one loop: `--autoscaler-config FILE` (params.yaml) over CA's flag defaults.

Every key but `mode` is a cluster-autoscaler flag (config/flags/flags.go, the set in data/flags.json);
each flag kexplain accepts is applied as CA applies it, one it cannot apply is refused as an unknown one
is, and values CA refuses at start-up are refused here in CA's words (docs/internals/autoscaler.md).
"""
from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Mapping

from kexplain.autoscaler.cloudprovider.provider import unknown_name
from kexplain.autoscaler.resourcelimits import ResourceLimits
from kexplain.config._decode import parse_duration
from kexplain.errors import InputError, Source
from kexplain.load.manifests import read_settings_document

SOURCE = "k8s.io/autoscaler/cluster-autoscaler (openshift/kubernetes-autoscaler 70920d3c6f5f)"
KUBERNETES = "k8s.io/kubernetes v1.36.2"
GIB = 1 << 30


@functools.lru_cache(maxsize=1)
def _flag_data() -> dict[str, Any]:
    """data/flags.json: CA's flag set (kind, default) and what kexplain does with each flag."""
    return json.loads(resources.files(__package__).joinpath("data", "flags.json").read_text(encoding="utf-8"))


# name -> (kind, default). kinds: bool, int, float, duration (seconds), string, multi (repeatable), slice;
# cores-total and memory-total default to 0:config.DefaultMaxClusterCores (Memory, GiB)
FLAGS: dict[str, tuple[str, Any]] = {name: (kind, tuple(default) if isinstance(default, list) else default)
                                     for name, (kind, default) in _flag_data()["flags"].items()}
# CA reads these, but one first loop decides the same whatever they say: why, per flag
NO_EFFECT: dict[str, str] = {name: group["why"] for group in _flag_data()["noEffect"] for name in group["flags"]}
# kexplain cannot apply these: refused whenever given
REFUSED: dict[str, str] = dict(_flag_data()["refused"])
# kexplain runs these with one value only (the value, why): any other is refused
ONLY: dict[str, tuple[Any, str]] = {name: (value, why) for name, (value, why) in _flag_data()["only"].items()}
ESTIMATORS = ("binpacking",)        # estimator.AvailableEstimators
# params.yaml's named keys and the flags they set
NAMED = {"expander": "expander", "maxNodesTotal": "max-nodes-total", "coresTotal": "cores-total",
         "memoryTotal": "memory-total", "balanceSimilarNodeGroups": "balance-similar-node-groups"}
MODES = ("scaleup", "scaledown")


@dataclass(frozen=True)
class Settings:
    """The loop's mode and every CA flag in force (`values`: typed, defaults included; `given`:
    what params.yaml set, as strings, by flag name)."""

    mode: str = "scaleup"
    given: Mapping[str, str] = field(default_factory=dict)
    values: Mapping[str, Any] = field(default_factory=dict)

    def flag(self, name: str) -> Any:
        """A flag's value (its default unless given): bool, int, float, seconds, str or a tuple."""
        if name in self.values:
            return self.values[name]
        return FLAGS[name][1]

    @property
    def expander(self) -> str:
        return self.flag("expander")

    @property
    def max_nodes_total(self) -> int:
        return self.flag("max-nodes-total")

    @property
    def cores_total(self) -> tuple[int, int]:
        return _min_max(self.flag("cores-total"), "cores-total")

    @property
    def memory_total(self) -> tuple[int, int]:
        """(min, max) bytes: the flag is in GiB."""
        low, high = _min_max(self.flag("memory-total"), "memory-total")
        return low * GIB, high * GIB

    @property
    def balance_similar_node_groups(self) -> bool:
        return self.flag("balance-similar-node-groups")

    def resource_limits(self) -> ResourceLimits:
        """The limits of --cores-total, --memory-total and --gpu-total."""
        return ResourceLimits.from_flags(self.flag("cores-total"), self.flag("memory-total"),
                                         tuple(self.flag("gpu-total")))

    @property
    def predicate_parallelism(self) -> int:
        """1 unless given: the cases ran with one worker (the earliest node always wins)."""
        return self.values.get("predicate-parallelism", 1)

    def to_json(self) -> dict[str, Any]:
        low, high = self.memory_total
        cores = self.cores_total
        return {"source": SOURCE, "kubernetes": KUBERNETES, "mode": self.mode, "expander": self.expander,
                "maxNodesTotal": self.max_nodes_total, "coresTotal": f"{cores[0]}:{cores[1]}",
                "memoryTotal": f"{low}:{high}", "balanceSimilarNodeGroups": self.balance_similar_node_groups,
                "predicateParallelism": self.predicate_parallelism, "flags": dict(self.given)}


def _min_max(text: str, name: str, src: Source | None = None) -> tuple[int, int]:
    parts = text.split(":")
    try:
        if len(parts) != 2:
            raise ValueError
        low, high = int(parts[0]), int(parts[1])
    except ValueError:
        raise InputError(f"{name}: expected <min>:<max> (integers), found {text!r}", source=src) from None
    if low < 0 or high < low:
        raise InputError(f"{name}: expected 0 <= min <= max, found {text!r}", source=src)
    return low, high


def read_settings(path: str | None, max_bytes: int | None = None) -> Settings:
    """The settings of `path` (None: CA's defaults, scale-up mode)."""
    if path is None:
        return Settings()
    return parse_settings(*read_settings_document(path, "CA settings", max_bytes))


def parse_settings(doc: Any, src: Source) -> Settings:
    """The settings of one params.yaml document."""
    if not isinstance(doc, dict):
        raise InputError("expected a mapping of CA settings (mode, expander, maxNodesTotal, coresTotal, "
                         "memoryTotal, balanceSimilarNodeGroups, flags)", source=src)
    accepted = ("mode", *NAMED, "flags")
    unknown = sorted(set(doc) - set(accepted))
    if unknown:
        raise InputError(f"unknown key {unknown[0]!r} (accepted: {', '.join(accepted)}; any other CA flag "
                         "goes under flags: by its name)", source=src)
    mode = doc.get("mode", "scaleup")
    if mode not in MODES:
        raise InputError(f"mode: expected scaleup or scaledown, found {mode!r}", source=src)
    raw: dict[str, Any] = {}
    for key, flag_name in NAMED.items():
        if doc.get(key) is not None:
            raw[flag_name] = doc[key]
    flags = doc.get("flags") or {}
    if not isinstance(flags, dict):
        raise InputError("flags: expected a mapping of CA flag names to values", source=src)
    for name, value in flags.items():
        name = str(name).lstrip("-")
        if name in raw:
            raise InputError(f"flags.{name}: set twice (also by its named key)", source=src)
        raw[name] = value
    given: dict[str, str] = {}
    values: dict[str, Any] = {}
    for name, value in raw.items():
        if name not in FLAGS:
            raise InputError(f"flags.{name}: cluster-autoscaler has no flag --{name}", source=src)
        given[name], values[name] = _value(name, value, src)
    for name in given:
        if name == "cloud-provider":
            wrong = unknown_name(values[name])
            if wrong:
                raise InputError(f"flags.{name}: {wrong}", source=src)
        if name in REFUSED:
            raise InputError(f"flags.{name}: kexplain cannot apply --{name}: {REFUSED[name]}", source=src)
        if name in ONLY and values[name] != ONLY[name][0]:
            raise InputError(f"flags.{name}: kexplain cannot apply --{name}={given[name]}: {ONLY[name][1]} "
                             f"(only {_text(ONLY[name][0])})", source=src)
    settings = Settings(mode, given, values)
    _check_startup(settings, src)
    return settings


def _check_startup(settings: Settings, src: Source) -> None:
    """What CA refuses when it starts, whether or not a loop would reach it."""
    # lazy: the expanders load the priority expander's RE2 through kexplain.cel (about 0.1 s), and
    # this module is read by every start-up of the command line (docs/development.md, "Lazy imports")
    from kexplain.autoscaler.expander.factory import build
    settings.cores_total, settings.memory_total    # a bad <min>:<max>
    settings.resource_limits()                      # a bad --gpu-total (InputError naming the flag)
    if settings.predicate_parallelism < 1:
        raise InputError("predicate-parallelism: Invalid value for --predicate-parallelism flag: "
                         f"{settings.predicate_parallelism}", source=src)
    if not settings.flag("enable-dynamic-resource-allocation"):     # CA runs DRA, as kexplain's scheduler does
        raise InputError("enable-dynamic-resource-allocation: --enable-dynamic-resource-allocation flag must be "
                         "true: false", source=src)
    allowed = settings.flag("allowed-scheduler-names")
    missing = [name for name in settings.flag("bypassed-scheduler-names") if allowed and name not in allowed]
    if missing:         # parseAllowedSchedulers (CA names one of them, in Go's map order)
        raise InputError("bypassed-scheduler-names: Invalid configuration. --bypassed-scheduler-names should be a "
                         f"subset of --allowed-scheduler-names. {missing[0]} not included in "
                         "--allowed-scheduler-names", source=src)
    if settings.flag("estimator") not in ESTIMATORS:
        raise InputError(f"estimator: unknown estimator: {settings.flag('estimator')} "
                         f"(accepted: {', '.join(ESTIMATORS)})", source=src)
    build(settings.expander, None, source=src, field="expander")
    if "drain-priority-config" in settings.given and "max-graceful-termination-sec" in settings.given:
        raise InputError("Invalid configuration, could not use --drain-priority-config together with "
                         "--max-graceful-termination-sec", source=src)
    drain = settings.given.get("drain-priority-config")
    if drain is not None and not _priority_grace_periods(drain):
        raise InputError("Invalid configuration, parsing --drain-priority-config", source=src)


def _priority_grace_periods(text: str) -> list[tuple[int, int]]:
    """parseShutdownGracePeriodsAndPriorities: `priority:seconds` pairs joined by `,`, each an
    integer as Go's strconv.Atoi reads it; none (CA's empty list) when any pair is not."""
    pairs = []
    for item in text.split(",") if text else ():
        parts = item.split(":")
        if len(parts) != 2 or not all(_GO_INT.fullmatch(x) and abs(int(x)) < 1 << 63 for x in parts):
            return []
        pairs.append((int(parts[0]), int(parts[1])))
    return pairs


_GO_INT = re.compile(r"[+-]?[0-9]+")


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _value(name: str, value: Any, src: Source) -> tuple[str, Any]:
    """A flag's value as given (a string, a repeated flag's values joined by `,`) and typed."""
    kind = FLAGS[name][0]
    if kind in ("multi", "slice"):
        items = value if isinstance(value, list) else [value]
        texts = [_text(v) for v in items]
        if kind == "slice":
            texts = [t for text in texts for t in text.split(",") if t]
        return ",".join(texts), tuple(texts)
    if isinstance(value, (list, dict)):
        raise InputError(f"flags.{name}: expected one value, found {type(value).__name__}", source=src)
    text = _text(value)
    bad = InputError(f"flags.{name}: expected {_KIND_WORDS[kind]}, found {text!r}", source=src)
    if kind == "bool":
        lowered = text.lower()
        if lowered in ("true", "1", "t"):
            return text, True
        if lowered in ("false", "0", "f"):
            return text, False
        raise bad
    if kind == "int":
        try:
            return text, int(text)
        except ValueError:
            raise bad from None
    if kind == "float":
        try:
            return text, float(text)
        except ValueError:
            raise bad from None
    if kind == "duration":
        nanos = parse_duration(text)
        if nanos is None:
            raise bad
        return text, nanos / 1e9
    if name in ("cores-total", "memory-total"):
        _min_max(text, name, src)
    return text, text


_KIND_WORDS = {"bool": "true or false", "int": "an integer", "float": "a number",
               "duration": "a duration such as 10m or 0s", "string": "a string"}
