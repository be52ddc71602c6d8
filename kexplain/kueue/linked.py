"""Kueue's answer for a live pod its job's operator made (linked to its stored Workload by
`kexplain.kueue.pod_workload`): held as the Workload is (`kexplain.kueue.chain.Held`), or admitted
as its stored admission says. Imported with Kueue's pass only (`kexplain.kueue.chain.live_kueue`)."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.kueue.controller.tas.ungater import Given, assign, gated, ungate
from kexplain.kueue.objects import ADMITTED, meta_of
from kexplain.kueue.pod_workload import POD_SET_LABEL, Link, Workloads, controller_ref
from kexplain.kueue.podset import Conflict, PodSetInfo, infos

TERMINATED = frozenset({"Succeeded", "Failed"})     # utilpod.IsTerminated: the ungater lists no such pod


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


def topology_ungated(pods: list[Mapping[str, Any]], answers: Mapping[int, Mapping[str, Any]], index: Workloads,
                     done: Any, mates: list[Mapping[str, Any]]) -> dict[int, tuple[dict[str, Any], dict[str, Any]]]:
    """The linked pods (by index, with their `answers`) Kueue's topology ungater ungates: of a Workload
    admitted by TAS, still gated, each given its domain by ONE pass of the ungater over all its pod
    set's pods not terminated (`controller.tas.ungater.assign`: the gated ones and those already
    ungated or bound, found among `mates`, the cluster's pods, by the same linking): the pod as the
    ungater leaves it, and what it was given (`topologyUngated`)."""
    asked: dict[tuple[str, str], list[int]] = {}
    for i, answer in answers.items():
        if answer.get("verdict") == ADMITTED and "startError" not in answer and answer.get("podSet") \
                and gated(pods[i]):
            asked.setdefault((str(answer["workload"]), str(answer["podSet"])), []).append(i)
    out: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}
    listed = _by_pod_set(mates, index) if asked else {}
    for (key, pod_set), chosen in asked.items():
        info = _tas_info(done, key, pod_set)
        link = index.link(pods[chosen[0]])
        if info is None or info.assignment is None or link is None:
            continue
        members = _members([pods[i] for i in chosen], listed.get((id(link.workload), pod_set), []))
        given = assign(members, info.assignment, info.count, info.index, info.ranks)
        where = {_name(p): n for n, p in enumerate(members)}
        for i in chosen:
            labels = given.labels[where[_name(pods[i])]]
            if labels:
                out[i] = ungate(pods[i], labels), _given(pod_set, labels, given, info)
    return out


def _tas_info(done: Any, key: str, pod_set: str) -> PodSetInfo | None:
    """The pod set's PodSetInfo of the admitted Workload `key` (its assignment, count, index labels, ranks)."""
    wl = done.workloads.get(key)
    if wl is None or wl.admission is None:
        return None
    try:
        return next((p for p in infos(wl, done.inputs.flavors) if p.name == pod_set), None)
    except Conflict:
        return None


def _name(pod: Mapping[str, Any]) -> tuple[str, str]:
    meta = meta_of(pod)
    return str(meta.get("namespace") or "default"), str(meta.get("name") or "")


def _by_pod_set(mates: list[Mapping[str, Any]], index: Workloads) -> dict[tuple[int, str], list[Mapping[str, Any]]]:
    """The cluster's pods not terminated, in the order read, by (their linked Workload, their pod set):
    what the ungater lists of each pod set (podsForPodSet), each pod linked once."""
    out: dict[tuple[int, str], list[Mapping[str, Any]]] = {}
    for pod in mates:
        pod_set = (meta_of(pod).get("labels") or {}).get(POD_SET_LABEL)
        if not pod_set or (pod.get("status") or {}).get("phase") in TERMINATED:
            continue
        found = index.link(pod)
        if found is not None:
            out.setdefault((id(found.workload), str(pod_set)), []).append(pod)
    return out


def _members(chosen: list[Mapping[str, Any]], listed: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The pod set's pods as the ungater lists them: those read (`listed`), the asked ones as asked
    (those not read after them)."""
    mine = {_name(p): p for p in chosen}
    out = [mine.pop(_name(p), p) for p in listed]
    return out + list(mine.values())


def _given(pod_set: str, labels: Mapping[str, str], given: Given, info: PodSetInfo) -> dict[str, Any]:
    """What the ungater gives the pod: its pod set, its domain's node labels, how it chose (rank or order)."""
    out: dict[str, Any] = {"podSet": pod_set, "nodeSelector": dict(labels), "by": given.by}
    if given.by == "rank" and info.index is not None and info.index.pod_index:
        out["indexLabel"] = info.index.pod_index
    return out
