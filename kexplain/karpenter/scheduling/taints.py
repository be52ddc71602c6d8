"""Taints as Karpenter's scheduler checks them (`pkg/scheduling/taints.go`): every taint not
tolerated is an error, PreferNoSchedule too, and tolerations may use Gt/Lt."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from kexplain.karpenter.apis.labels import KNOWN_EPHEMERAL_TAINT_KEY_PREFIXES, KNOWN_EPHEMERAL_TAINTS
from kexplain.karpenter.errors import KarpenterError, multierr_append
from kexplain.model.taints import taint_to_string as pretty_taint, tolerations_tolerate

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.model.pod import PodInfo

Taint = Mapping[str, Any]


class TaintNotToleratedError(KarpenterError):
    """One taint no toleration of the pod tolerates (serrors.Wrap with the `taint` value)."""

    def __init__(self, taint: Taint) -> None:
        super().__init__()
        self.taint = taint

    def __str__(self) -> str:
        return f"did not tolerate taint (taint={pretty_taint(self.taint)})"   # pretty.Taint's format


def match_taint(a: Taint, b: Taint) -> bool:
    """Taint.MatchTaint: same key and effect (the value does not count)."""
    return (a.get("key") or "") == (b.get("key") or "") and (a.get("effect") or "") == (b.get("effect") or "")


def is_known_ephemeral_taint(taint: Taint | None) -> bool:
    """IsKnownEphemeralTaint: a taint a node sheds while it initializes (matched by key and
    effect), or one whose key has an ephemeral prefix."""
    if taint is None:
        return False
    if any(match_taint(known, taint) for known in KNOWN_EPHEMERAL_TAINTS):
        return True
    key = taint.get("key") or ""
    return any(key.startswith(prefix) for prefix in KNOWN_EPHEMERAL_TAINT_KEY_PREFIXES)


class Taints(tuple):
    """A list of taints (dicts as the API writes them)."""

    def tolerates(self, tolerations: Iterable[Mapping[str, Any]] | None) -> KarpenterError | None:
        """Tolerates: None, or one error per taint not tolerated, in the taints' order."""
        tolerations = tuple(tolerations or ())
        errs = None
        for taint in self:
            if not tolerations_tolerate(tolerations, taint, enable_comparison_operators=True):
                errs = multierr_append(errs, TaintNotToleratedError(taint))
        return errs  # type: ignore[return-value]

    def tolerates_pod(self, pod: "PodInfo | Mapping[str, Any]") -> KarpenterError | None:
        """ToleratesPod: the pod's `spec.tolerations` against every taint."""
        spec = getattr(pod, "spec", None)
        if spec is None:
            spec = pod.get("spec") if isinstance(pod, Mapping) else None
        return self.tolerates((spec or {}).get("tolerations"))

    def merge(self, other: Sequence[Taint]) -> "Taints":
        """Merge: these taints, then each of `other` whose key and effect none has yet."""
        out = list(self)
        for taint in other:
            if not any(match_taint(taint, t) for t in out):
                out.append(taint)
        return Taints(out)
