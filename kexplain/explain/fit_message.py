"""The scheduler's FailedScheduling message (`framework.fit_error`) taken apart for the minor that wrote it."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Optional

from kexplain.features import KubeVersion
from kexplain.framework import fit_error, preemption
from kexplain.framework.schedule import ERR_ABSENT_FORMAT
from kexplain.plugins import (default_preemption, dynamic_resources, inter_pod_affinity, names, node_affinity,
                              node_declared_features, node_name, node_ports, node_resources_fit, node_unschedulable,
                              node_volume_limits, pod_topology_spread, taint_toleration, volume_binding,
                              volume_restrictions, volume_zone, volumes)
from kexplain.plugins.dra import state as dra_state

FRAMEWORK = "framework"          # texts of the scheduling framework itself, not of one plugin
_HEAD = re.compile(r"0/(\d+) nodes are available:")
_COUNT = re.compile(r"(\d+) ")
_CUT_COUNT = re.compile(r"\d* ?")
_SENTINEL = "\x00{}\x00"
TRUNCATION = " ..."


@dataclass(frozen=True)
class Reason:
    """One text a plugin can put in the message: its plugin, template (`{}`: a varying part) and part names."""

    plugin: str
    template: str
    parts: tuple[str, ...] = ()

    @property
    def pattern(self) -> re.Pattern[str]:
        return _pattern(self.template, self.parts)


@lru_cache(maxsize=64)
def _pattern(template: str, parts: tuple[str, ...]) -> re.Pattern[str]:
    pieces = template.split(_SENTINEL.format(""))
    out = re.escape(pieces[0])
    for name, piece in zip(parts, pieces[1:]):
        out += f"(?P<{name}>.*?)" + re.escape(piece)
    return re.compile(out)


@dataclass(frozen=True)
class Entry:
    """One `count reason` of a histogram; plugin None when no reason of the minor is that text."""

    count: int
    text: str
    plugin: Optional[str] = None
    parts: tuple[tuple[str, str], ...] = ()    # the varying parts: ("resource", "cpu"), ("key", ...)

    def to_json(self) -> dict[str, Any]:
        return {"count": self.count, "reason": self.text, "plugin": self.plugin, **dict(self.parts)}


@dataclass(frozen=True)
class Histogram:
    nodes: int
    entries: tuple[Entry, ...] = ()
    text: str = ""               # a sentence instead of counts (PreFilter, or preemption's eligibility)
    text_plugin: Optional[str] = None
    parts: tuple[tuple[str, str], ...] = ()      # the sentence's varying parts

    def to_json(self) -> dict[str, Any]:
        return {"nodes": self.nodes, "reasons": [e.to_json() for e in self.entries],
                "message": self.text or None, "messagePlugin": self.text_plugin, **dict(self.parts)}


@dataclass(frozen=True)
class FitMessage:
    """A FailedScheduling message taken apart."""

    filters: Histogram
    post_filter: tuple[tuple[str, Optional[str]], ...] = ()   # (text, plugin) of each PostFilter reason
    preemption: Optional[Histogram] = None     # DefaultPreemption's part, when it says one
    truncated: bool = False                    # the event kept only its first 1024 bytes


def counts_add_up(histogram: Histogram) -> bool:
    """Whether a histogram's counts fit its node count."""
    counts = [e.count for e in histogram.entries]
    return not counts or (sum(counts) >= histogram.nodes and max(counts) <= histogram.nodes)


# --- the vocabulary of one minor ------------------------------------------------------------------

def filter_reasons(kube: KubeVersion) -> tuple[Reason, ...]:
    """Every text a Filter plugin (or the framework) can give a node in `kube`'s minor."""
    fit = names.NODE_RESOURCES_FIT
    reasons = [
        Reason(fit, node_resources_fit.ERR_REASON_TOO_MANY_PODS),
        Reason(fit, node_resources_fit.ERR_REASON_INSUFFICIENT_FORMAT.format(_SENTINEL.format("")), ("resource",)),
        Reason(names.NODE_AFFINITY, node_affinity.ERR_REASON_POD),
        Reason(names.NODE_AFFINITY, node_affinity.ERR_REASON_ENFORCED),
        Reason(names.NODE_NAME, node_name.ERR_REASON),
        Reason(names.NODE_PORTS, node_ports.ERR_REASON),
        Reason(names.NODE_UNSCHEDULABLE, node_unschedulable.ERR_REASON_UNSCHEDULABLE),
        Reason(names.INTER_POD_AFFINITY, inter_pod_affinity.ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH),
        Reason(names.INTER_POD_AFFINITY, inter_pod_affinity.ERR_REASON_AFFINITY_RULES_NOT_MATCH),
        Reason(names.INTER_POD_AFFINITY, inter_pod_affinity.ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH),
        Reason(names.POD_TOPOLOGY_SPREAD, pod_topology_spread.ERR_REASON_NODE_LABEL_NOT_MATCH),
        Reason(names.POD_TOPOLOGY_SPREAD, pod_topology_spread.ERR_REASON_CONSTRAINTS_NOT_MATCH),
        Reason(names.VOLUME_BINDING, volume_binding.ERR_REASON_BIND_CONFLICT),
        Reason(names.VOLUME_BINDING, volume_binding.ERR_REASON_NODE_CONFLICT),
        Reason(names.VOLUME_BINDING, volume_binding.ERR_REASON_NOT_ENOUGH_SPACE),
        Reason(names.VOLUME_BINDING, volume_binding.ERR_REASON_PV_NOT_EXIST),
        Reason(names.VOLUME_RESTRICTIONS, volume_restrictions.ERR_REASON_DISK_CONFLICT),
        Reason(names.VOLUME_RESTRICTIONS, volume_restrictions.ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT
               if kube.since(volume_restrictions.RWOP_REASON_REWORDED_SINCE)
               else volume_restrictions.ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT_OLD),
        Reason(names.VOLUME_ZONE, volume_zone.ERR_REASON_CONFLICT),
        Reason(names.NODE_VOLUME_LIMITS, node_volume_limits.ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED),
        Reason(names.DYNAMIC_RESOURCES, dra_state.CANNOT_ALLOCATE),
        Reason(names.DYNAMIC_RESOURCES, dra_state.NOT_AVAILABLE),
        Reason(FRAMEWORK, ERR_ABSENT_FORMAT.format(_SENTINEL.format("")), ("plugins",)),
    ]
    if kube.since(taint_toleration.TAINT_REASON_GENERIC_SINCE):
        reasons.append(Reason(names.TAINT_TOLERATION, taint_toleration.ERR_REASON_UNTOLERATED))
    else:
        marker = _SENTINEL.format("")
        reasons.append(Reason(names.TAINT_TOLERATION,
                              taint_toleration.untolerated_taint_reason({"key": marker, "value": marker}),
                              ("key", "value")))
    if _gate(kube, node_declared_features.GATE):
        reasons.append(Reason(names.NODE_DECLARED_FEATURES, node_declared_features.ERR_REASON_UNSATISFIED_REQUIREMENTS))
    return tuple(reasons)


def preemption_reasons() -> tuple[Reason, ...]:
    """The texts DefaultPreemption gives a node it did not pick (beside Filter reasons)."""
    return (Reason(names.DEFAULT_PREEMPTION, preemption.ERR_NO_VICTIMS),
            Reason(names.DEFAULT_PREEMPTION, preemption.ERR_NOT_HELPFUL))


def pre_filter_reasons() -> tuple[Reason, ...]:
    """The PreFilter messages the plugins write (the rest are shown as they are)."""
    marker = _SENTINEL.format("")
    binding = names.VOLUME_BINDING
    return (Reason(binding, volume_binding.ERR_UNBOUND_IMMEDIATE),
            Reason(binding, volumes.not_found(volumes.PVC_RESOURCE, marker), ("claim",)),
            Reason(binding, volume_binding.ERR_CLAIM_DELETING.format(marker), ("claim",)),
            Reason(binding, volume_binding.ERR_EPHEMERAL_PENDING.format(marker), ("claim",)),
            Reason(binding, volume_binding.ERR_CLAIM_LOST.format(marker, marker), ("claim", "volume")),
            Reason(names.NODE_AFFINITY, node_affinity.ERR_REASON_CONFLICT))


def post_filter_reasons(kube: KubeVersion) -> tuple[Reason, ...]:
    """DynamicResources' PostFilter texts (DefaultPreemption's start with its prefix)."""
    dra = names.DYNAMIC_RESOURCES
    out = [Reason(dra, dynamic_resources.REASON_DEALLOCATED), Reason(dra, dynamic_resources.REASON_STILL_NOT_SCHEDULABLE),
           Reason(dra, dynamic_resources.REASON_DISABLED), Reason(dra, dynamic_resources.ERR_STATE_NOT_FOUND)]
    if kube.since(dynamic_resources.NO_CLAIMS_REASON_SINCE):
        out.insert(0, Reason(dra, dynamic_resources.REASON_NO_CLAIMS_TO_DEALLOCATE))
    return tuple(out)


def preemption_sentences() -> tuple[str, ...]:
    return (default_preemption.ERR_NOT_ELIGIBLE_NEVER, default_preemption.ERR_NOT_ELIGIBLE_TERMINATING,
            default_preemption.ERR_WAITING_FOR_PREEMPTION, preemption.ERR_NO_CANDIDATE, preemption.ERR_NO_NODES)


def _gate(kube: KubeVersion, name: str) -> bool:
    try:
        return kube.enabled(name)
    except (KeyError, ValueError):
        return False


# --- parsing --------------------------------------------------------------------------------------

def parse(message: str, kube: KubeVersion) -> Optional[FitMessage]:
    """The message taken apart with `kube`'s vocabulary; None when it is not a FailedScheduling message."""
    raw = message.strip()
    truncated = raw.endswith(TRUNCATION) and len(raw.encode()) >= fit_error.NOTE_LENGTH_LIMIT - 8
    if truncated:
        raw = raw[:-len(TRUNCATION)]
    found = _histogram(raw, filter_reasons(kube), pre_filter_reasons(), truncated)
    if found is None:
        return None
    filters, rest = found
    post, preempt = _post_filter(rest, kube, truncated)
    return FitMessage(filters, post, preempt, truncated)


def _histogram(text: str, reasons: tuple[Reason, ...], sentences: tuple[Reason, ...],
               truncated: bool) -> Optional[tuple[Histogram, str]]:
    """`0/N nodes are available: ...` at the start of `text`: the histogram and what follows it."""
    head = _HEAD.match(text)
    if head is None:
        return None
    nodes, pos = int(head[1]), head.end()
    if pos == len(text):
        return Histogram(nodes), ""
    if text[pos] != " ":
        return None
    pos += 1
    if _COUNT.match(text, pos) is None:       # a PreFilter message: a sentence up to ". "
        return _sentence(text, pos, nodes, sentences, truncated)
    entries: list[Entry] = []
    while True:
        count = _COUNT.match(text, pos)
        if truncated and _CUT_COUNT.fullmatch(text, pos):
            return Histogram(nodes, tuple(entries)), ""      # cut inside the next entry's count
        if count is None:
            return None
        pos = count.end()
        entry, pos = _entry(text, pos, int(count[1]), reasons, truncated)
        if entry is None:
            return None
        entries.append(entry)
        if text.startswith(", ", pos) and _COUNT.match(text, pos + 2):
            pos += 2
            continue
        if pos == len(text) and truncated:
            return Histogram(nodes, tuple(entries)), ""
        if text.startswith(".", pos):
            rest = text[pos + 1:]
            return Histogram(nodes, tuple(entries)), rest[1:] if rest.startswith(" ") else rest
        return None


def _entry(text: str, pos: int, count: int, reasons: tuple[Reason, ...],
           truncated: bool) -> tuple[Optional[Entry], int]:
    """The reason at `pos`: the longest known text ending where an entry may end, else the text as it is."""
    best: Optional[tuple[int, Entry]] = None
    for reason in reasons:
        m = reason.pattern.match(text, pos)
        while m is not None:
            end = m.end()
            if _entry_ends(text, end, truncated):
                if best is None or end > best[0]:
                    parts = tuple((name, m[name]) for name in reason.parts)
                    best = (end, Entry(count, text[pos:end], reason.plugin, parts))
                break
            m = _longer(reason.pattern, text, pos, end)
    if best is not None:
        return best[1], best[0]
    for end in range(pos, len(text) + 1):
        if _entry_ends(text, end, truncated) and end > pos:
            return Entry(count, text[pos:end]), end
    return None, pos


def _longer(pattern: re.Pattern[str], text: str, pos: int, end: int) -> Optional[re.Match[str]]:
    """The next match of a templated reason that ends after `end` (its parts took more text)."""
    if not pattern.groupindex:
        return None
    for stop in range(end + 1, len(text) + 1):
        m = pattern.fullmatch(text, pos, stop)
        if m is not None:
            return m
    return None


def _entry_ends(text: str, end: int, truncated: bool) -> bool:
    if text.startswith(", ", end) and _COUNT.match(text, end + 2):
        return True
    if text.startswith(".", end) and (end + 1 == len(text) or text[end + 1] == " "):
        return True
    return truncated and end == len(text)


def _sentence(text: str, pos: int, nodes: int, sentences: tuple[Reason, ...],
              truncated: bool) -> Optional[tuple[Histogram, str]]:
    """A PreFilter message: a known one ending where it may end, else the text up to the first end."""
    for end in _sentence_ends(text, pos):
        for reason in sentences:
            m = reason.pattern.fullmatch(text, pos, end)
            if m is not None:
                return Histogram(nodes, text=m.group(0), text_plugin=reason.plugin,
                                 parts=tuple((n, m[n]) for n in reason.parts)), text[end + 2:]
    for end in _sentence_ends(text, pos):
        return Histogram(nodes, text=text[pos:end]), text[end + 2:]
    if truncated:
        return Histogram(nodes, text=text[pos:]), ""
    return None


def _sentence_ends(text: str, pos: int) -> list[int]:
    """Where a PreFilter message may end: before each ". ", then at the final "."."""
    ends = [m.start() for m in re.finditer(r"\. ", text[pos:])]
    ends = [pos + e for e in ends]
    if text.endswith("."):
        ends.append(len(text) - 1)
    return ends


def _post_filter(rest: str, kube: KubeVersion, truncated: bool
                 ) -> tuple[tuple[tuple[str, Optional[str]], ...], Optional[Histogram]]:
    """The PostFilter reasons and DefaultPreemption's part, which comes last."""
    out: list[tuple[str, Optional[str]]] = []
    known = post_filter_reasons(kube)
    pos = 0
    while pos < len(rest):
        if rest.startswith(default_preemption.MESSAGE_PREFIX, pos):
            body = rest[pos + len(default_preemption.MESSAGE_PREFIX):]
            out.append((rest[pos:], names.DEFAULT_PREEMPTION))
            return tuple(out), _preemption(body, kube, truncated)
        reason = next((r for r in known if rest.startswith(r.template, pos)
                       and (rest.startswith(", ", pos + len(r.template)) or pos + len(r.template) == len(rest))), None)
        if reason is not None:
            out.append((reason.template, reason.plugin))
            pos += len(reason.template) + 2
            continue
        cut = rest.find(", ", pos)
        end = len(rest) if cut < 0 else cut
        out.append((rest[pos:end], None))
        pos = end + 2
    return tuple(out), None


def _preemption(body: str, kube: KubeVersion, truncated: bool) -> Histogram:
    """DefaultPreemption's message: a histogram of the nodes it tried, or a sentence."""
    for sentence in preemption_sentences():
        if body.startswith(sentence):
            return Histogram(0, text=sentence, text_plugin=names.DEFAULT_PREEMPTION)
    found = _histogram(body, (*preemption_reasons(), *filter_reasons(kube)), (), truncated)
    if found is None:
        return Histogram(0, text=body)
    return found[0]


def parse_counts(text: str, reasons: tuple[Reason, ...]) -> Optional[tuple[Entry, ...]]:
    """`count reason, ...` alone (CA's list) read with the histogram's grammar; None otherwise."""
    found = _histogram(f"0/0 nodes are available: {text}.", reasons, (), False)
    if found is None or found[1] or found[0].text:
        return None
    return found[0].entries
