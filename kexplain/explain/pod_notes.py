"""What the pod carries that its manifest did not say: LimitRanger's defaults, its controller's labels,
the tolerations an admission plugin beyond kube-apiserver's defaults gave it (ExtendedResourceToleration)."""
from __future__ import annotations

import re
from typing import Any

from kexplain.admission import extendedresourcetoleration as ert, limitranger
from kexplain.controllers.controller_utils import CONTROLLER_REVISION_HASH_LABEL, POD_TEMPLATE_HASH_LABEL
from kexplain.features import KubeVersion
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot

_PREFIX = "LimitRanger plugin set: "
_NOTE = re.compile(r"^(?P<resources>.+) (?P<kind>request|limit) for (?:init )?container .*$")
_DEFAULTS = {"request": "defaultRequest", "limit": "default"}
CONTROLLER_LABELS = (POD_TEMPLATE_HASH_LABEL, CONTROLLER_REVISION_HASH_LABEL)


def limit_ranger(pod: PodInfo, snapshot: Snapshot) -> dict[str, Any] | None:
    """What LimitRanger set on the pod and from which LimitRanges; None when it set nothing."""
    meta = pod.obj.get("metadata") or {}
    annotations = meta.get("annotations") if isinstance(meta.get("annotations"), dict) else {}
    text = annotations.get(limitranger.ANNOTATION)
    if not isinstance(text, str) or not text.startswith(_PREFIX):
        return None
    said = text[len(_PREFIX):]
    ranges = limitranger.by_namespace([o for o in snapshot.of_kind("LimitRange")
                                       if ((o.get("metadata") or {}).get("namespace") or "default") == pod.namespace])
    names: list[str] = []
    for note in said.split("; "):
        m = _NOTE.match(note)
        if m is None:
            continue
        key = _DEFAULTS[m.group("kind")]
        for resource in m.group("resources").split(", "):
            source = next((r.name for r in ranges.get(pod.namespace, ())
                           if any(resource in item.of(key) for item in r.items if item.type == limitranger.CONTAINER)),
                          None)
            if source is not None and source not in names:
                names.append(source)
    return {"set": said, "limitRanges": names}


def shown_labels(pod: PodInfo) -> dict[str, str] | None:
    """The pod's labels when its controller added some (`CONTROLLER_LABELS`), else None."""
    labels = pod.labels
    return dict(labels) if any(k in labels for k in CONTROLLER_LABELS) else None


def admission(pod: PodInfo, kube: KubeVersion) -> dict[str, Any] | None:
    """The admission plugins the pod was admitted with, when not plain kube-apiserver's and one beyond
    its defaults acts on it: which (a provider's profile, and what told it), and the tolerations
    ExtendedResourceToleration gave it (`ert.noted`)."""
    return ert.noted(kube.admission, [(None, pod.obj.get("spec"))])


def record(trace_extra: dict[str, Any], pod: PodInfo, snapshot: Snapshot, kube: KubeVersion | None = None) -> None:
    """Add the notes (`limitRanger`, `labels`, `admission`) to a trace's extra keys, when there are some."""
    said = admission(pod, kube) if kube is not None else None
    if said is not None:
        trace_extra["admission"] = said
    limits = limit_ranger(pod, snapshot)
    if limits is not None:
        trace_extra["limitRanger"] = limits
    labels = shown_labels(pod)
    if labels is not None:
        trace_extra["labels"] = labels
