"""OpportunisticBatching (runtime/batch.go): reusing one cycle's ranking for the next pod that signs alike."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kexplain.framework.cycle_state import CycleState
from kexplain.framework.search import SortedScores

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.framework.runtime import Framework
    from kexplain.model.pod import PodInfo


OPPORTUNISTIC_BATCHING = "OpportunisticBatching"   # the feature gate (beta and on from 1.35)


@dataclass(frozen=True)
class _LastCycle:
    count: int
    chosen: str


class OpportunisticBatch:
    """One profile's batch state across a sequence of cycles: the scheduler's memory between pods."""

    def __init__(self) -> None:
        self._signature: str | None = None
        self._ranking: SortedScores | None = None
        self._last: _LastCycle | None = None

    def clone(self) -> "OpportunisticBatch":
        """The same state, to go back to (a cycle run twice: quietly, then in full)."""
        out = OpportunisticBatch()
        out._signature, out._last = self._signature, self._last
        out._ranking = self._ranking.clone() if self._ranking is not None else None
        return out

    def get_node_hint(self, fw: "Framework", state: CycleState, pod: "PodInfo", cycle: int) -> tuple[str, str | None]:
        """The hint for `pod` in `cycle` ("" for none) and its signature; a hint is never handed out twice."""
        signature = fw.sign_pod(pod)
        if not self._compatible(fw, state, pod, signature, cycle):
            return "", signature
        assert self._ranking is not None
        return self._ranking.pop(), signature

    def may_hint(self, cycle: int) -> bool:
        """Whether a pod of cycle `cycle` may be handed a hint: the cycle before placed a pod
        and left a ranking. When not, the cycle neither reads nor changes this batch unless it
        places its pod (`store_results`)."""
        last = self._last
        return bool(self._ranking is not None and len(self._ranking) and last is not None
                    and cycle == last.count + 1)

    def _compatible(self, fw: "Framework", state: CycleState, pod: "PodInfo", signature: str | None,
                    cycle: int) -> bool:
        if self._ranking is None or not len(self._ranking):
            return False
        last = self._last
        if last is None or cycle != last.count + 1:
            return False             # the previous cycle was another profile's, or it failed
        if signature is None or signature != self._signature:
            return False
        # Only when the pod no longer fits where the previous one went is the next node of
        # the ranking the best one for it: otherwise that node might still rank first.
        chosen = fw.snapshot.get(last.chosen)
        if chosen is None:
            return False
        return fw.run_filter_plugins(state, pod, chosen).is_rejected

    def store_results(self, signature: str | None, hint: str, chosen: str, rest: SortedScores | None,
                      cycle: int) -> None:
        """After a pod of `cycle` was placed on `chosen`: keep the ranking for the next pods that sign alike."""
        self._last = _LastCycle(cycle, chosen)
        if hint and hint == chosen:
            return
        if signature is not None and rest is not None and len(rest):
            self._signature, self._ranking = signature, rest
        else:
            self._signature, self._ranking = None, None
