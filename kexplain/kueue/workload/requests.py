"""What Kueue's Configuration makes of a pod set's requests before they are counted against quota
(pkg/workload totalRequestsFromPodSets): `resources.excludeResourcePrefixes` drops the resources
named so (dropExcludedResources), then `resources.transformations` turns an input resource into its
outputs, each the input's quantity (times the `multiplyBy` resource's, when the pod set asks for it)
times the output's factor, and keeps the input (Retain) or not (Replace). v0.17.8 writes the outputs
and the inputs into one list, a later write replacing an earlier one of the same name; v0.19 keeps
them apart and sums them (`KueueVersion.transformations_summed`)."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

from kexplain.kueue.config import Resources, Transformation

ResourceList = dict[str, Fraction]


@dataclass(frozen=True)
class InfoOptions:
    """workload.InfoOptions: the Configuration's resources and the release's way of applying them."""

    resources: Resources = Resources()
    summed: bool = False        # v0.19's applyResourceTransformations (outputs apart, summed, none negative)
    # WithPreprocessedDRAResources: per pod set, the logical resources its claims' devices count as,
    # per pod (`kexplain.kueue.workload.dra`); added to its requests after the above
    dra: Mapping[str, Mapping[str, Fraction]] | None = None

    def effective(self, requests: Mapping[str, Fraction]) -> Mapping[str, Fraction]:
        """One pod's requests as Kueue counts them."""
        if not self.resources.exclude_prefixes and not self.resources.transformations:
            return requests
        kept = {name: q for name, q in requests.items()
                if not any(name.startswith(p) for p in self.resources.exclude_prefixes)}
        by_input = {t.input: t for t in self.resources.transformations}
        if not any(name in by_input for name in kept):
            return kept
        return _summed(kept, by_input) if self.summed else _written_over(kept, by_input)


NO_OPTIONS = InfoOptions()


def _scaled_input(name: str, q: Fraction, t: Transformation, requests: Mapping[str, Fraction]) -> Fraction:
    return q * requests[t.multiply_by] if t.multiply_by and t.multiply_by in requests else q


def _written_over(requests: Mapping[str, Fraction], by_input: Mapping[str, Transformation]) -> ResourceList:
    """v0.17.8: one list; a retained input keeps its multiplied quantity."""
    out: ResourceList = {}
    for name, q in requests.items():
        t = by_input.get(name)
        if t is None:
            out[name] = q
            continue
        q = _scaled_input(name, q, t, requests)
        for output, factor in t.outputs:
            out[output] = q * factor + out.get(output, Fraction(0))
        if t.strategy == "Retain":
            out[name] = q
    return out


def _summed(requests: Mapping[str, Fraction], by_input: Mapping[str, Transformation]) -> ResourceList:
    """v0.19: the retained requests (as asked) and the generated outputs (a negative total: zero) summed."""
    retained: ResourceList = {}
    generated: ResourceList = {}
    for name, q in requests.items():
        t = by_input.get(name)
        if t is None:
            retained[name] = q
            continue
        base = _scaled_input(name, q, t, requests)
        for output, factor in t.outputs:
            generated[output] = generated.get(output, Fraction(0)) + base * factor
        if t.strategy == "Retain":
            retained[name] = q
    out = dict(retained)
    for name, q in generated.items():
        out[name] = out.get(name, Fraction(0)) + max(q, Fraction(0))
    return out
