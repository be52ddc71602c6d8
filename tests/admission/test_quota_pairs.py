"""A state's quota ledger: a list found without a quota is not read again; any other list is."""
from __future__ import annotations

from kexplain.admission import resourcequota
from kexplain.admission.resourcequota import QuotaLedger

QUOTA = {"kind": "ResourceQuota", "metadata": {"name": "q", "namespace": "ns"}, "spec": {"hard": {"pods": "1"}}}
POD = {"kind": "Pod", "metadata": {"name": "p", "namespace": "ns"}, "spec": {}}


def test_a_list_without_quotas_is_read_once_and_a_list_with_one_each_time(monkeypatch):
    reads = []
    real = QuotaLedger.of.__func__
    monkeypatch.setattr(QuotaLedger, "of", classmethod(lambda cls, objs, pod_level=True: reads.append(1)
                                                       or real(cls, objs, pod_level)))
    none = [(POD, None)]
    assert QuotaLedger.of_pairs(none) is None and QuotaLedger.of_pairs(none) is None
    assert len(reads) == 1
    held = [(QUOTA, None), (POD, None)]
    first, second = QuotaLedger.of_pairs(held), QuotaLedger.of_pairs(held)
    assert first is not None and second is not None and first is not second     # each its own usage
    assert len(reads) == 3
    none.append((QUOTA, None))      # (a list grown since: read again)
    assert QuotaLedger.of_pairs(none) is not None
    assert QuotaLedger.of_pairs([(POD, None)]) is None      # an equal list, another object: read
    assert len(reads) == 5
    assert resourcequota._NO_QUOTAS[1] == 1
