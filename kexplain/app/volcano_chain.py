"""The chain of a pod Volcano leaves pending (issue 93, item 5): the Cluster Autoscaler and Karpenter see
its job's pods as any pending pods, one by one, each with the PodScheduled condition Volcano wrote
(they list only those it says Unschedulable: a task that found a node before its gang was rolled back
is `Schedulable`, and neither autoscaler knows the gang nor the queue). Their pending pass is built
here from Volcano's session, then each autoscaler runs as for a pod of kube-scheduler's
(`app.explain.autoscale_one`)."""
from __future__ import annotations

from typing import Any

from kexplain.app.volcano_pod import Answered
from kexplain.explain.pending_pass import PassBuilder, PendingPass, object_ref
from kexplain.model.pod import PodInfo
from kexplain.volcano.api.task import GROUP_NAME_ANNOTATION

NOTE = ("the Cluster Autoscaler and Karpenter see the pods of PodGroup {group} as any pending pods, one by one, "
        "each with the PodScheduled condition Volcano wrote: they list a pod only when it says Unschedulable "
        "(Volcano's Schedulable, a task that found a node before its gang was rolled back, is not listed), and "
        "neither knows the gang (minMember {min_member}) nor the queue")


def _key(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name', '')}"


def _group(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{(meta.get('annotations') or {}).get(GROUP_NAME_ANNOTATION, '')}"


def volcano_pass(done: Answered, set_objects: Any = (), set_created: Any = ()) -> PendingPass:
    """What the autoscalers see after Volcano's session: every pod it bound on its node, the pending pods
    of the explained pod's job each standing for itself, the other jobs' pending pods as the cluster's
    (each as the session left it); the file's other objects applied."""
    entries = {p["name"]: p for p in done.doc.get("pods") or ()}
    trace_pod = done.trace["pod"]
    explained = f"{trace_pod['namespace']}/{trace_pod['name']}"
    job = next((_group(p) for p in done.pods if _key(p) == explained), "")
    builder = PassBuilder()
    builder.add_objects([(o, s) for o, s in set_objects if o.get("kind") != "Pod"], set_created)
    for pod in done.pods:
        key, entry = _key(pod), entries.get(_key(pod), {})
        if entry.get("boundTo"):
            builder.add_pod(PodInfo(pod), None, node=entry["boundTo"])
        elif (pod.get("spec") or {}).get("nodeName") or entry.get("evicted"):
            continue                # (on its node already: the cluster's, as read)
        elif _group(pod) == job:
            builder.add_pod(PodInfo(pod), None, stands_for=object_ref("Pod", *key.split("/", 1)))
        else:
            builder.add_pod(PodInfo(pod), None, stands_for="")
    return builder.build()


def note(done: Answered) -> str:
    """The chain's caveat, for the PodGroup of the explained pod."""
    pg = done.trace["volcano"].get("podGroup") or {}
    return NOTE.format(group=pg.get("name", "?"), min_member=pg.get("minMember", 1))
