"""Section "queued": every Workload the cluster stores that Kueue does not admit (its job suspended,
or its pods gated), with Kueue's answer now from ONE pass of Kueue over the cluster's Kueue objects
and Workloads as stored (`kexplain.kueue.chain.live_kueue`, as `kexplain pod -A` answers held
Workloads), each with `kexplain kueue`'s explanation of it (why it waits: quota per flavor, fair
sharing, admission checks, TAS; its place in its ClusterQueue's queue) and Kueue's verified fixes
from that same pass (`kexplain.suggest.kueue_held.kueue_fixes`). Rows by ClusterQueue, the one
holding the most first, then in queue order."""
from __future__ import annotations

from typing import Any, Mapping, Optional

from kexplain.app.cluster.inputs import ClusterInputs
from kexplain.app.cluster.kueue_config import REFUSED, configuration_refused
from kexplain.app.cluster.pending import live_of, pod_args
from kexplain.app.live import kueue_capacity
from kexplain.kueue.chain import admission_gated, live_kueue
from kexplain.suggest.kueue_held import kueue_fixes

NAME = "queued"
TITLE = "Queued work"
ADMITTED = "Admitted"
NO_QUEUE = ""       # the rows of Workloads no ClusterQueue takes (a LocalQueue missing): last


def section(inputs: ClusterInputs) -> dict:
    """The held Workloads, each as `Held.to_json` writes it (`workload`, `owner`, `kueue`: Kueue's
    answer with its `explanation` and `suggestions`), with its ClusterQueue, its place and the pods
    Kueue's admission gate holds; the Workloads Kueue admits on its next cycle counted apart."""
    refused = configuration_refused(inputs)
    if refused is not None:         # (no pass of Kueue on a default it would not run with)
        return {"name": NAME, "title": TITLE, "skipped": REFUSED + refused}
    req = inputs.request
    capacity = kueue_capacity(pod_args(inputs), live_of(inputs)) if req.node_groups else None
    done = live_kueue([], inputs.objects, now=req.now, capacity=capacity, fixes=kueue_fixes)
    gated = gated_pods(inputs)
    rows, admits = [], 0
    for held in done.held:
        answer = held.answer
        if answer.get("verdict") == ADMITTED and not answer.get("startError"):
            admits += 1             # (stored not admitted; Kueue admits it on its next cycle)
            continue
        row = {**held.to_json(), "clusterQueue": answer.get("clusterQueue") or NO_QUEUE,
               "verdict": answer.get("verdict"), "message": answer.get("message") or answer.get("error") or ""}
        queue = (answer.get("explanation") or {}).get("queue")
        if queue:
            row["position"] = {"position": queue.get("position"), "of": queue.get("of")}
        pods = gated.get(held.workload) or gated.get(_owner_key(row.get("owner")))
        if pods:
            row["gatedPods"] = pods
        rows.append(row)
    rows = ordered(rows)
    out: dict[str, Any] = {"name": NAME, "title": TITLE, "held": len(rows),
                           "clusterQueues": len({r["clusterQueue"] for r in rows}), "rows": rows}
    if admits:
        out["admittedNextCycle"] = admits
    if done.notes:
        out["notes"] = [f"note: {n}" for n in done.notes]
    return out


def ordered(rows: list[dict]) -> list[dict]:
    """By ClusterQueue, the one holding the most Workloads first (those of no ClusterQueue last),
    then in the queue's order (the head first; those with no place after)."""
    count: dict[str, int] = {}
    for r in rows:
        count[r["clusterQueue"]] = count.get(r["clusterQueue"], 0) + 1

    def key(r: dict) -> tuple:
        cq = r["clusterQueue"]
        place = (r.get("position") or {}).get("position")
        return (cq == NO_QUEUE, -count[cq], cq, place is None, place or 0, r["workload"])
    return sorted(rows, key=key)


def gated_pods(inputs: ClusterInputs) -> dict[str, list[str]]:
    """The pods Kueue's admission gate holds (`kueue.x-k8s.io/admission`), by the Workload their
    controller owns (a pod group's, a plain pod's: the Workload owned by the pod itself), keyed as
    `NAMESPACE/NAME` of the Workload, else `KIND NAMESPACE/NAME` of the pod's controller."""
    owned: dict[tuple[str, str, str], str] = {}      # (kind, namespace, name) of an owner -> its Workload
    pods: list[Mapping[str, Any]] = []
    for obj, _ in inputs.objects:
        kind = obj.get("kind")
        if kind == "Workload" and str(obj.get("apiVersion") or "").startswith("kueue.x-k8s.io/"):
            meta = obj.get("metadata") or {}
            namespace = meta.get("namespace") or "default"
            for ref in meta.get("ownerReferences") or ():
                owned[(str(ref.get("kind")), namespace, str(ref.get("name")))] = f"{namespace}/{meta.get('name')}"
        elif kind == "Pod" and admission_gated(obj):
            pods.append(obj)
    out: dict[str, list[str]] = {}
    for pod in pods:
        meta = pod.get("metadata") or {}
        namespace, name = meta.get("namespace") or "default", str(meta.get("name") or "")
        ref = next((r for r in meta.get("ownerReferences") or () if r.get("controller")), None)
        key = owned.get(("Pod", namespace, name))
        if key is None and ref is not None:
            key = owned.get((str(ref.get("kind")), namespace, str(ref.get("name")))) or \
                _owner_key({"kind": ref.get("kind"), "namespace": namespace, "name": ref.get("name")})
        out.setdefault(key or f"Pod {namespace}/{name}", []).append(f"{namespace}/{name}")
    return out


def _owner_key(owner: Optional[Mapping[str, Any]]) -> str:
    return f"{owner.get('kind')} {owner.get('namespace')}/{owner.get('name')}" if owner else ""

