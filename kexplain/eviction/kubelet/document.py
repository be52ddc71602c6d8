"""A pass of the eviction manager as the document `kexplain evict pressure -o json` writes (the
keys of ../shared/eviction/README.md), with what the table view needs besides: every threshold
against its signal (`signals`), each ranked pod's keys (`rankingKeys`)."""
from __future__ import annotations

from datetime import datetime, timezone
from fractions import Fraction
from typing import Any, Mapping, Optional, Sequence

from kexplain.apimachinery.quantity import BINARY_SI, DECIMAL_SI, new_quantity
from kexplain.eviction.kubelet import manager as mgr
from kexplain.eviction.kubelet import message as msg
from kexplain.eviction.kubelet import rank
from kexplain.eviction.kubelet import thresholds as th
from kexplain.eviction.kubelet.admit import Admission
from kexplain.eviction.kubelet.signals import Observation


def rfc3339(t: Optional[datetime]) -> str:
    if t is None:
        return ""
    return t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def thresholds_doc(thresholds: Sequence[th.Threshold]) -> list[dict]:
    return [t.describe() for t in sorted(thresholds, key=th.sort_key)]


def observations_doc(observations: Mapping[str, Observation]) -> dict:
    return {s: observations[s].describe() for s in sorted(observations)}


def met_doc(met: Sequence[mgr.Met]) -> list[dict]:
    return [{**m.threshold.describe(), "quantity": m.quantity, "firstObservedAt": rfc3339(m.first_observed_at),
             "gracePeriodMet": m.grace_period_met} for m in met]


def _amount(value: int, signal: str) -> str:
    fmt = BINARY_SI if th.SIGNALS.get(signal, ("", ""))[1] in (th.RESOURCE_MEMORY, th.RESOURCE_EPHEMERAL_STORAGE) \
        else DECIMAL_SI
    return str(new_quantity(value, fmt))


def signals_doc(thresholds: Sequence[th.Threshold], observations: Mapping[str, Observation]) -> list[dict]:
    """Every configured threshold against its signal: the quantity for the observed capacity, the
    available, and how far it is (positive: above the threshold, by that much)."""
    out = []
    for t in sorted(thresholds, key=th.sort_key):
        seen = observations.get(t.signal)
        row: dict[str, Any] = {**t.describe()}
        if seen is None or t.operator != th.OP_LESS_THAN:
            row.update({"observed": seen is not None, "met": False})
            out.append(row)
            continue
        quantity = t.value.quantity_for(seen.capacity).value
        margin = int(seen.available.value - quantity)
        row.update({"observed": True, "quantity": str(t.value.quantity_for(seen.capacity)),
                    "available": str(seen.available), "capacity": str(seen.capacity),
                    "margin": _amount(margin, t.signal), "marginValue": margin,
                    "met": seen.available.value < quantity})
        out.append(row)
    return out


def _key_value(value: Any, resource: str) -> Any:
    if isinstance(value, Fraction):
        fmt = BINARY_SI if resource in (th.RESOURCE_MEMORY, th.RESOURCE_EPHEMERAL_STORAGE) else DECIMAL_SI
        return str(new_quantity(int(value), fmt))
    return value


def ranking_keys(ranking: Sequence[rank.Ranked], resource: str) -> list[dict]:
    """Each ranked pod with the key every comparator read (None: no stats, evicted first)."""
    return [{"pod": r.candidate.name, "critical": rank.is_critical(r.candidate.pod),
             "stats": r.candidate.stats is not None, "decidedBy": r.decided_by,
             "keys": [{"name": n, "value": _key_value(v, resource)} for n, v in r.keys]} for r in ranking]


def evicted_doc(evictions: Sequence[mgr.Eviction]) -> list[dict]:
    out = []
    for e in evictions:
        row: dict[str, Any] = {"pod": e.pod, "gracePeriodSeconds": e.grace_period_seconds, "phase": "Failed",
                               "reason": "Evicted", "message": e.message}
        if e.condition:
            row["conditions"] = [{"type": mgr.DISRUPTION_TARGET, "status": "True",
                                  "reason": mgr.TERMINATION_BY_KUBELET, "message": e.message}]
        if e.annotations:
            row["annotations"] = dict(e.annotations)
        out.append(row)
    return out


def choices_doc(choices: Sequence[mgr.Choice]) -> list[dict]:
    """Each memory threshold the kubelet may act on (the first: the one `reclaimSignal` and
    `evicted` follow), with the eviction it makes."""
    out = []
    for c in choices:
        row: dict[str, Any] = {**c.threshold.describe(), "quantity": c.quantity}
        if c.eviction is not None:
            row["evicted"] = evicted_doc([c.eviction])[0]
        out.append(row)
    return out


def events_doc(events: Sequence[mgr.Event]) -> list[dict]:
    out = []
    for e in events:
        row: dict[str, Any] = {"object": e.object, "type": e.type, "reason": e.reason, "message": e.message}
        if e.annotations:
            row["annotations"] = dict(e.annotations)
        out.append(row)
    return out


def pass_doc(p: mgr.Pass, thresholds: Sequence[th.Threshold]) -> dict:
    """The keys one pass fills (the `earlier` object holds the same for the earlier pass)."""
    doc: dict[str, Any] = {"at": rfc3339(p.at), "observations": observations_doc(p.observations),
                           "signals": signals_doc(thresholds, p.observations),
                           "thresholdsMet": met_doc(p.met), "nodeConditions": list(p.node_conditions),
                           "conditionsLastObservedAt": {c: rfc3339(t) for c, t in sorted(p.conditions_last.items())}}
    if p.stale:
        doc["staleStats"] = [t.describe() for t in sorted(p.stale, key=th.sort_key)]
    if p.reclaim is not None:
        doc["reclaimSignal"] = p.reclaim.signal
        doc["reclaimHard"] = p.reclaim.hard
        doc["reclaimResource"] = p.reclaim_resource
    if p.node_level_reclaim:
        doc["nodeLevelReclaim"] = list(p.node_level_reclaim)
        doc["nodeLevelResolved"] = p.node_level_resolved
    if p.ranking:
        doc["ranking"] = [r.candidate.name for r in p.ranking]
        doc["rankingKeys"] = ranking_keys(p.ranking, p.reclaim_resource)
    if p.skipped_critical:
        doc["skippedCritical"] = list(p.skipped_critical)
    if p.choices:
        doc["reclaimChoices"] = choices_doc(p.choices)
    doc.update({"evicted": evicted_doc(p.evicted), "events": events_doc(p.events), "log": list(p.log)})
    doc["evictionCauses"] = [{"pod": e.pod, "cause": msg.parse(e.message).kind} for e in p.evicted]
    return doc


def admission_doc(answers: Sequence[Admission]) -> list[dict]:
    out = []
    for a in answers:
        row: dict[str, Any] = {"pod": a.pod, "qosClass": a.qos_class, "admit": a.admit}
        if not a.admit:
            row.update({"reason": a.reason, "message": a.message})
        out.append(row)
    return out


def admission_why(answers: Sequence[Admission]) -> list[dict]:
    """Why each pod was admitted or refused (beside `admission`, which holds the kubelet's answer alone)."""
    return [{"pod": a.pod, "why": a.why} for a in answers]
