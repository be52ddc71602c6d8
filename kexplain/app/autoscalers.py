"""An autoscaler answering the pending pods: ONE interface (`Autoscaler`), two implementations
(`app.cluster_autoscaler`, `app.karpenter`) run over the one pending pass. Looked up by module
name (`adapter`): the application's one start-up laziness (docs/development.md, "Lazy imports")."""
from __future__ import annotations

import importlib
from datetime import datetime
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Iterable, Optional, Protocol, Sequence, runtime_checkable

from kexplain.apimachinery import columns
from kexplain.errors import KexplainError
from kexplain.explain.pending_pass import (PassAnswers, PendingPass, answers_json, copies_json, not_created_json,
                                           object_ref)
from kexplain.features import KubeVersion

# Each implementation's module, by name: imported when the input calls for it (`adapter`).
ADAPTERS = {"cluster-autoscaler": "kexplain.app.cluster_autoscaler", "karpenter": "kexplain.app.karpenter"}

CA_DOCUMENT = "autoscaler"      # the Cluster Autoscaler's key of -o json (`autoscaler.pending.DOCUMENT_KEY`)

# The kinds of the objects that may report node groups (`cloudprovider.REPORTING_KINDS`) or be
# Karpenter's NodePools, asked first without importing an autoscaler.
MAY_REPORT = frozenset({"ConfigMap", "MachineDeployment", "MachineSet", "Machine"})
NODEPOOL = "NodePool"

# What reports node groups in a cluster's objects, in words.
REPORTED = "CA's status ConfigMap kube-system/cluster-autoscaler-status or Cluster API's objects"


def adapter(name: str) -> ModuleType:
    """The module of the implementation `name` (a key of `ADAPTERS`), imported now."""
    return importlib.import_module(ADAPTERS[name])


@dataclass
class AutoscalerRun:
    """The autoscalers' pass over what was explained: each one's answers (for CA, the loop it
    ran, which the node-group suggestions run again with a change) and the pass it ran over."""

    passes: list[PassAnswers]
    pending: PendingPass
    loop: Any = None

    @property
    def explained(self) -> bool:
        """Some pod explained is among the pending pods (not only the cluster's own)."""
        return any(p.stands_for for p in self.pending.pending)

    @property
    def document(self) -> dict:
        """The Cluster Autoscaler's document (-o json's key `autoscaler`; {} when CA did not run)."""
        return next((p.document for p in self.passes if p.key == CA_DOCUMENT), {})

    @property
    def documents(self) -> dict[str, dict]:
        """Each autoscaler's document under its key of -o json (`autoscaler`, `karpenter`)."""
        return {p.key: p.document for p in self.passes}

    def joined(self, other: Optional["AutoscalerRun"]) -> "AutoscalerRun":
        """This run and `other`'s passes over the same pending pass (CA and Karpenter both)."""
        if other is None:
            return self
        return AutoscalerRun([*self.passes, *other.passes], self.pending, self.loop if self.loop is not None
                             else other.loop)

    def pod(self, key: str) -> list[dict]:
        """A pod's slot (key `autoscalers`): every autoscaler's answer for it."""
        return answers_json(self.passes, key)

    def standing_for(self, explained: str) -> list[dict]:
        """An explained object's slot: the answers for each of its pending pods."""
        return copies_json(self.passes, self.pending, explained)


@runtime_checkable
class Autoscaler(Protocol):
    """An autoscaler answering the pending pods: its inputs read once (`check`: bad input refused
    whatever the verdicts), then ONE pass over a `PendingPass` (`run`)."""

    name: str

    def check(self, kube: KubeVersion) -> None:
        ...

    def run(self, pp: PendingPass, kube: KubeVersion, explained: Optional[str] = None) -> AutoscalerRun:
        ...

    def explain_one(self, trace: dict, pp: PendingPass, kube: KubeVersion, pod: Any) -> AutoscalerRun:
        ...


def run_all(autoscalers: Sequence[Autoscaler], pp: PendingPass, kube: KubeVersion) -> Optional[AutoscalerRun]:
    """Every autoscaler's pass over the one pending pass, joined (None: none runs)."""
    ran: Optional[AutoscalerRun] = None
    for a in autoscalers:
        run = a.run(pp, kube)
        ran = ran.joined(run) if ran is not None else run
    return ran


def kinds_of(objects: Iterable[tuple[Any, Any]]) -> set:
    """The kinds among `objects` (a dump's rows answer once, without reading each object: `Rows.held_kinds`)."""
    rows = columns.rows_of(objects)
    return set(rows.held_kinds()) if rows is not None else {o.get("kind") for o, _ in objects}


def reports_node_groups(cluster: list) -> bool:
    """Whether the cluster's objects report node groups; a cluster without any object of their
    kinds is answered without importing the autoscaler."""
    if not kinds_of(cluster) & MAY_REPORT:
        return False
    return adapter("cluster-autoscaler").reports_node_groups(cluster)


def has_node_pools(cluster: Iterable[tuple[Any, Any]]) -> bool:
    """Whether the cluster's objects hold Karpenter's NodePools (the cluster is kept for its
    pass); a cluster without any NodePool is answered without importing Karpenter."""
    if not isinstance(cluster, list):       # (a dump's own list: its rows answer the kinds)
        cluster = list(cluster)
    if NODEPOOL not in kinds_of(cluster):
        return False
    return adapter("karpenter").has_node_pools(cluster)


def keeps_cluster(objects: list) -> bool:
    """Whether the cluster read is kept for an autoscaler (`explain.inputs.load`'s `keep`)."""
    return has_node_pools(objects) or reports_node_groups(objects)


def node_pools(cluster: Optional[list], aws_data: Optional[str], config: Optional[str], *,
               max_bytes: Optional[int] = None, validate: str = "strict", node_pool: Optional[str] = None,
               applied: list = (), suggestions: bool = True, state: Any = None,
               now: Optional[datetime] = None) -> Optional[Autoscaler]:
    """Karpenter when the cluster set holds NodePools, else None (`--aws-data`,
    `--karpenter-config` or `--nodepool` then a one-line error: never silently ignored); `now`: its
    pass's clock (None: the wall clock)."""
    if has_node_pools(cluster or ()) or has_node_pools(applied):
        return adapter("karpenter").Karpenter.of(cluster or [], aws_data, config, max_bytes=max_bytes,
                                                 validate=validate, node_pool=node_pool, suggestions=suggestions,
                                                 state=state, now=now)
    for flag, given in (("--aws-data", aws_data), ("--karpenter-config", config), ("--nodepool", node_pool)):
        if given is not None:
            raise KexplainError(f"{flag} is for Karpenter's NodePools: the cluster's objects (--nodes) hold no "
                                "NodePool (karpenter.sh/v1)")
    return None


def annotated_list(doc: dict, run: Optional[AutoscalerRun]) -> dict:
    """A SchedulingTraceList with the autoscalers' pass: key `autoscaler`, each placements entry's
    answers (`autoscalers`, `notYetCreated`) and each pending pod's trace's own answers."""
    if run is None:
        return doc
    out = dict(doc)
    out["placements"] = [_placement(p, run) for p in doc.get("placements") or ()]
    if "items" in doc:
        out["items"] = [with_answers(t, run) for t in doc["items"]]
    out.update(run.documents)
    return out


def _placement(placement: dict, run: AutoscalerRun) -> dict:
    """An object's `placements` entry with its pods' answers (`autoscalers`) and the copies its
    controller has not created, which no autoscaler sees (`notYetCreated`)."""
    obj = placement["object"]
    ref = object_ref(obj["kind"], obj["namespace"], obj["name"])
    missing = not_created_json(run.pending, ref)
    return {**placement, "autoscalers": run.standing_for(ref), **({"notYetCreated": missing} if missing else {})}


def with_answers(trace: dict, run: AutoscalerRun) -> dict:
    """An item of a list (a pod's trace) with its pod's answers (`autoscalers`) when the pass
    held it: each pod's answers sit on its item, offline as live (`pod --pending`)."""
    more = answers_of(trace, run)
    return {**trace, **more} if more else trace


def answers_of(trace: dict, run: AutoscalerRun) -> dict:
    """The key `with_answers` adds to the item (none when the pass did not hold its pod): of
    the item, only its `pod` is read."""
    pod = trace.get("pod") or {}
    answers = run.pod(f"{pod.get('namespace')}/{pod.get('name')}")
    return {"autoscalers": answers} if answers else {}
