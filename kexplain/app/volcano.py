"""`kexplain volcano`'s wiring: the cluster's files read and admitted once as kube-apiserver would
(Volcano's own PodGroups and Queues kept aside: admission does not read them), then one session of
Volcano's scheduler over them (`volcano.run`)."""
from __future__ import annotations

from typing import Any, Iterable

from kexplain.admission import admit
from kexplain.load.manifests import load_objects
from kexplain.volcano import conf as volcano_conf
from kexplain.volcano.cache import is_volcano_object
from kexplain.volcano.run import run_session
from kexplain.volcano.versions import DEFAULT


def explain(nodes: Iterable[str], scheduler_conf: str | None, *, max_bytes: int, max_objects: int) -> dict[str, Any]:
    """The session's document over the files `nodes`, with the configuration file or Volcano's default."""
    conf = volcano_conf.read(scheduler_conf)
    loaded = load_objects(list(nodes), max_bytes=max_bytes, max_objects=max_objects)
    volcano = [o for o, _ in loaded if is_volcano_object(o)]
    core = [(o, s) for o, s in loaded if not is_volcano_object(o)]
    admitted = admit(core, None)
    objects = [o for o, _ in admitted.objects]
    doc = run_session(objects, volcano, conf, DEFAULT)
    warnings = [w for w in admitted.warnings if "not read by the scheduler" not in w]
    if warnings:
        doc["readWarnings"] = warnings
    return doc
