"""The domains of one topology key that NodePools could create, with the taints of the NodePools
offering each (controllers/provisioning/scheduling/topologydomaingroup.go)."""
from __future__ import annotations

from typing import Any, Iterator, Mapping

from kexplain.karpenter.scheduling.taints import Taints

Taint = Mapping[str, Any]

NODE_INCLUSION_POLICY_IGNORE = "Ignore"
NODE_INCLUSION_POLICY_HONOR = "Honor"


class TopologyDomainGroup(dict):
    """domain -> the taint sets of the NodePools offering it. An untainted NodePool's domain
    keeps only the empty set (every pod may use it)."""

    def insert_times(self, domain: str, taints: tuple[Taint, ...], times: int) -> None:
        """Insert repeated `times` times (once per instance type with the domain): the first sets or
        appends, each other appends again unless the domain is untainted."""
        if times < 1:
            return
        entry = Taints(taints)          # (one tuple for every repeat: a Taints is never changed)
        if domain not in self or not taints:
            self[domain] = [entry]
            times -= 1
        if self[domain][0]:
            self[domain].extend([entry] * times)

    def for_each_domain(self, pod, taint_honor_policy: str) -> Iterator[str]:
        """The domains a pod may count: all when its policy ignores taints, else those of a NodePool whose
        taints it tolerates (any policy but Ignore honors them, as Go reads the empty one)."""
        tolerations = (pod.spec.get("tolerations") or ()) if taint_honor_policy != NODE_INCLUSION_POLICY_IGNORE else ()
        for domain, taint_groups in self.items():
            if taint_honor_policy == NODE_INCLUSION_POLICY_IGNORE:
                yield domain
                continue
            last = None
            for taints in taint_groups:
                if taints is last:      # a repeat (`insert_times`) the pod did not tolerate either
                    continue
                last = taints
                if taints.tolerates(tolerations) is None:
                    yield domain
                    break

