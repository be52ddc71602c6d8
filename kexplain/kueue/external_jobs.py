"""The jobs of an external framework among the POD file's objects (the Configuration's
`integrations.externalFrameworks`): Kueue manages them, but their Workloads come from their own
controllers, which kexplain cannot run. Plain `kexplain FILE` and `lint` say so in the words of
`kexplain kueue` (`config_external.EXTERNAL`), naming a Workload owned by the job when one
is among the objects."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.controllers.queued import NOT_EXPLAINED
from kexplain.kueue.apis import constants as c
from kexplain.kueue.config_external import EXTERNAL, external_framework
from kexplain.kueue.config_file import external_frameworks_of
from kexplain.kueue.objects import Objects, kind_of, meta_of, of_kinds

# where Kueue's Configuration is (a document, or Kueue's manager ConfigMap's): all that is read to
# know the external kinds (a dump's other objects never looked at)
CONFIG_KINDS = frozenset({"Configuration", "ConfigMap"})
WORKLOADS = frozenset({c.WORKLOAD})
MANAGED = "Kueue manages it{queue}: {why}"
OWNED = "; its Workload {workload} is among the objects: `kexplain kueue` explains it"


def with_not_explained(objs: Objects, cluster: Objects, given: Objects = ()) -> Objects:
    """`objs` with each external framework's job carrying what is said of it (kexplain's own
    annotation `NOT_EXPLAINED`, which the POD file's entries read: left out, said)."""
    found = external_jobs(objs, cluster, given)
    return [(_annotated(o, found[i]), s) if i in found else (o, s) for i, (o, s) in enumerate(objs)] if found else objs


def _annotated(obj: Mapping[str, Any], why: str) -> dict[str, Any]:
    meta = dict(meta_of(obj))
    notes = meta.get("annotations")
    meta["annotations"] = {**(notes if isinstance(notes, Mapping) else {}), NOT_EXPLAINED: why}
    return {**obj, "metadata": meta}


def external_jobs(objs: Objects, cluster: Objects, given: Objects = ()) -> dict[int, str]:
    """By index into `objs`: each external framework's job, with what is said of it (the
    Configuration of `cluster`, `given` (--kueue-config) or `objs`, read in that order as the pass
    reads them; a Workload it owns among `objs` or `cluster`)."""
    frameworks = external_frameworks_of([*of_kinds(cluster, CONFIG_KINDS), *given, *of_kinds(objs, CONFIG_KINDS)])
    if not frameworks:
        return {}
    out = {}
    for i, (obj, _) in enumerate(objs):
        name = external_framework(obj, frameworks) if isinstance(obj, dict) else ""
        if name:
            out[i] = said_of(obj, EXTERNAL.format(name), [*objs, *of_kinds(cluster, WORKLOADS)])
    return out


def said_of(obj: Mapping[str, Any], why: str, objects: Objects) -> str:
    """What is said of the external job `obj`: Kueue's words, and its Workload among `objects`."""
    labels = meta_of(obj).get("labels")
    queue = labels.get(c.QUEUE_NAME_LABEL) if isinstance(labels, Mapping) else None
    text = MANAGED.format(queue=f" (LocalQueue {queue})" if isinstance(queue, str) and queue else "", why=why)
    owned = owned_workload(obj, objects)
    return text + OWNED.format(workload=owned) if owned else text


def owned_workload(job: Mapping[str, Any], objects: Objects) -> str:
    """`namespace/name` of a Workload among `objects` whose controller is `job` ("" when none): by
    uid when both carry one, else by kind and name in the job's namespace."""
    meta = meta_of(job)
    namespace, name, uid = str(meta.get("namespace") or "default"), str(meta.get("name") or ""), meta.get("uid")
    for obj, _ in objects:
        if not isinstance(obj, dict) or kind_of(obj) != c.WORKLOAD or \
                str(obj.get("apiVersion") or "").split("/", 1)[0] != c.GROUP:
            continue
        wmeta = meta_of(obj)
        if str(wmeta.get("namespace") or "default") != namespace:
            continue
        for ref in wmeta.get("ownerReferences") or ():
            if not isinstance(ref, Mapping) or ref.get("controller") is not True:
                continue
            both = bool(uid and ref.get("uid"))
            if (ref.get("uid") == uid) if both else (ref.get("kind") == kind_of(job) and ref.get("name") == name):
                return f"{namespace}/{wmeta.get('name')}"
    return ""
