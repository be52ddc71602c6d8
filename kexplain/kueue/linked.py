"""Kueue's answer for a live pod its job's operator made (linked to its stored Workload by
`kexplain.kueue.pod_workload`): held as the Workload is (`kexplain.kueue.chain.Held`), or admitted
as its stored admission says. Imported with Kueue's pass only (`kexplain.kueue.chain.live_kueue`)."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.kueue.objects import ADMITTED, meta_of
from kexplain.kueue.pod_workload import POD_SET_LABEL, Link, controller_ref
from kexplain.kueue.podset import Conflict, infos


def linked_answer(pod: Mapping[str, Any], link: Link, done: Any, held: Mapping[str, Any],
                  live: dict[str, Any]) -> dict[str, Any]:
    """Kueue's answer for a pod its job's operator made (`kexplain.kueue.pod_workload`): the held
    answer of its Workload (`Held`), or, admitted, the ClusterQueue, flavors and topology of its
    stored admission (`kexplain.kueue.podset.infos`); the job named as the Workload's owner, the pod's
    pod set as its label says, the stored status beside (`live`)."""
    meta = meta_of(link.workload)
    namespace = str(meta.get("namespace") or "default")
    key = f"{namespace}/{meta.get('name') or ''}"
    owner = controller_ref(meta)
    spec = link.workload.get("spec") if isinstance(link.workload.get("spec"), Mapping) else {}
    head: dict[str, Any] = {"kueueVersion": done.settings.version.label}
    if owner is not None:
        head["object"] = {"kind": owner[0], "namespace": namespace, "name": owner[1]}
    head.update(queueName=spec.get("queueName"), workload=key)
    pod_set = (meta_of(pod).get("labels") or {}).get(POD_SET_LABEL)
    if pod_set:
        head["podSet"] = str(pod_set)
    if key in held:
        return {**head, **{k: v for k, v in held[key].answer.items() if k not in head}}
    wl = done.workloads.get(key)
    answer = {**head, "verdict": ADMITTED, "clusterQueue": (live.get("admission") or {}).get("clusterQueue")}
    if wl is not None and wl.admission is not None:
        answer["clusterQueue"] = wl.admission.cluster_queue
        try:
            answer["podSets"] = [p.to_json() for p in infos(wl, done.inputs.flavors)]
        except Conflict as err:
            answer["startError"] = str(err)
    answer["linkedBy"] = link.by
    answer["live"] = live
    return answer
