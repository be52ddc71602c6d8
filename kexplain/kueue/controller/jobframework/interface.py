"""GenericJob: what an integration gives the framework (interface.go): its kind and group, the
object's metadata, and its pod sets."""
from __future__ import annotations

from typing import Protocol

from kexplain.errors import Source
from kexplain.kueue.apis.meta import ObjectMeta
from kexplain.kueue.apis.workload import PodSet


class GenericJob(Protocol):
    kind: str           # the GVK's kind (`Job`)
    group: str          # the GVK's group (`batch`; "" for core)
    meta: ObjectMeta
    source: Source | None

    def pod_sets(self) -> tuple[PodSet, ...]:
        """PodSets(): the Workload's pod sets, in order."""
        ...

    def pod_priority_class_name(self) -> str:
        """The PriorityClass of the first pod set that names one (extractPriorityFromPodSets)."""
        ...
