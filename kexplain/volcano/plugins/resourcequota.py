"""The resourcequota plugin (plugins/resourcequota): a job is enqueued only while its minResources, on
the resources a ResourceQuota of its namespace limits, fit that quota's hard less its used and less the
minResources of the namespace's jobs enqueued before it this session. The status is the quota's as the
cache holds it, not recomputed: Volcano's own pending pods are already in its `used`."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from kexplain.apimachinery import quantity
from kexplain.volcano.api.job import JobInfo
from kexplain.volcano.api.namespace import GoQuantity, QuotaStatus, go_list, go_quantity

NAME = "resourcequota"
PERMIT, REJECT = 1, -1
INSUFFICIENT = "resource quota insufficient"


@dataclass(frozen=True)
class Refusal:
    """Which quota refused a job's enqueue and on which resources (kexplain's record, for the document)."""

    quota: str
    exceeded: tuple[str, ...]
    message: str
    words: str                  # per resource: requested, used, enqueued before it, hard


def _add(a: dict[str, Fraction], b: dict[str, Fraction]) -> dict[str, Fraction]:
    """quotav1.Add: the union of the names, summed."""
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, Fraction(0)) + v
    return out


def _values(rl: dict[str, GoQuantity]) -> dict[str, Fraction]:
    return {k: q.value for k, q in rl.items()}


def check(quota: QuotaStatus, requests: dict[str, GoQuantity], pending: dict[str, Fraction]) -> Refusal | None:
    """One quota of the job's namespace (the body of OnSessionOpen's JobEnqueueableFn loop): the
    requests it limits, added to its used and the namespace's pending, against its hard."""
    requested = {k: q for k, q in requests.items() if k in quota.hard}
    new = _add(_add(pending, _values(quota.used)), _values(requested))
    exceeded = tuple(sorted(k for k, h in quota.hard.items() if k in requested and new[k] > h.value))
    if not exceeded:
        return None
    message = (f"{INSUFFICIENT}, requested: {go_list({k: requested[k] for k in exceeded})}, "
               f"used: {go_list({k: quota.used[k] for k in exceeded if k in quota.used})}, "
               f"limited: {go_list({k: quota.hard[k] for k in exceeded})}")
    used = _values(quota.used)
    words = "; ".join(f"{k} {_text(requested[k].value)} requested, {_text(used.get(k, Fraction(0)))} used"
                      + (f", {_text(pending[k])} by jobs enqueued before it" if pending.get(k) else "")
                      + f", hard {_text(quota.hard[k].value)}" for k in exceeded)
    return Refusal(quota.name, exceeded, message, words)


def _text(value: Fraction) -> str:
    return quantity.canonical(quantity.Quantity(value))


class ResourceQuota:
    name = NAME

    def __init__(self, arguments: dict[str, Any]) -> None:
        self.arguments = arguments
        self.pending: dict[str, dict[str, Fraction]] = {}
        self.refused: dict[str, Refusal] = {}          # job uid -> why

    def on_session_open(self, ssn: Any) -> None:
        infos = getattr(ssn, "namespace_info", None) or {}

        def enqueueable(job: JobInfo) -> int:
            """resourceQuotaPlugin's JobEnqueueableFn. Go walks a map of quotas (any order where two
            refuse); kexplain walks them by name."""
            raw = job.pod_group.min_resources if job.pod_group is not None else None
            info = infos.get(job.namespace)
            if raw is None or info is None:
                return PERMIT
            requests = {str(k): go_quantity(v) for k, v in raw.items()}
            pending = self.pending.get(job.namespace, {})
            for name in sorted(info.quotas):
                refusal = check(info.quotas[name], requests, pending)
                if refusal is not None:
                    self.refused[job.uid] = refusal
                    ssn.record(f"PodGroup {job.uid}", "Normal", "Unschedulable", refusal.message)
                    return REJECT
            self.pending[job.namespace] = _add(pending, _values(requests))
            return PERMIT

        ssn.add("jobEnqueueable", NAME, enqueueable)

    def explain(self, job_uid: str) -> str | None:
        """The refusal in plain words, naming the quota (the event prints Go's structs)."""
        r = self.refused.get(job_uid)
        if r is None:
            return None
        return f"{INSUFFICIENT}: ResourceQuota {r.quota} of the job's namespace ({r.words})"

    def on_session_close(self, ssn: Any) -> None:
        pass


def New(arguments: dict[str, Any]) -> ResourceQuota:
    return ResourceQuota(arguments)
