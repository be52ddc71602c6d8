"""Kueue's pod webhook on the pods of a group (pkg/controller/jobs/pod/pod_webhook.go): Default
stores the pod's role hash as an annotation when it suspends the pod; ValidateCreate refuses a pod
whose group label and total-count annotation do not come together, or whose name or count is not
valid (validatePodGroupMetadata), in the webhook's words."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.apimachinery.fielderrors import FieldError, aggregate, invalid, required
from kexplain.apimachinery.names import is_dns1123_subdomain
from kexplain.kueue.apis.constants import POD_GROUP_NAME_LABEL, QUEUE_NAME_LABEL
from kexplain.kueue.controller.jobs.rolehash import annotated

GROUP_NAME_LABEL = POD_GROUP_NAME_LABEL
GROUP_TOTAL_COUNT_ANNOTATION = "kueue.x-k8s.io/pod-group-total-count"
WEBHOOK = "vpod.kb.io"
_BOTH = (f"both the '{GROUP_TOTAL_COUNT_ANNOTATION}' annotation and the '{GROUP_NAME_LABEL}' label should be set")
_LABEL_PATH = f"metadata.labels[{GROUP_NAME_LABEL}]"
_COUNT_PATH = f"metadata.annotations[{GROUP_TOTAL_COUNT_ANNOTATION}]"


def _maps(obj: Mapping[str, Any]) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    labels = meta.get("labels") if isinstance(meta.get("labels"), Mapping) else {}
    annotations = meta.get("annotations") if isinstance(meta.get("annotations"), Mapping) else {}
    return labels, annotations


def default(pod: dict[str, Any]) -> dict[str, Any]:
    """Default on a pod of a group it suspends (one with a queue name): addRoleHash, over the pod as
    written (the cases' Kueue hashes it so)."""
    labels, _ = _maps(pod)
    return annotated(pod) if labels.get(GROUP_NAME_LABEL) and labels.get(QUEUE_NAME_LABEL) else pod


def atoi(text: str | None) -> int:
    """strconv.Atoi, its error as Go words it (ValueError)."""
    raw = "" if text is None else text
    body = raw[1:] if raw[:1] in "+-" else raw
    if not (body.isascii() and body.isdigit()):
        raise ValueError(f'strconv.Atoi: parsing "{raw}": invalid syntax')
    value = int(raw)
    if not -(1 << 63) <= value < 1 << 63:
        raise ValueError(f'strconv.Atoi: parsing "{raw}": value out of range')
    return value


def total_count_error(text: str) -> str:
    """groupTotalCount's error for an annotation's text ("" when it is a count)."""
    try:
        count = atoi(text)
    except ValueError as err:
        return str(err)
    if count < 1:
        return (f"incorrect annotation value '{GROUP_TOTAL_COUNT_ANNOTATION}={text}': "
                "group total count should be greater than zero")
    return ""


def group_metadata_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """validatePodGroupMetadata (the webhook's): the label and the annotation together, the group a
    DNS subdomain, the count a positive integer."""
    labels, annotations = _maps(obj)
    name, count = labels.get(GROUP_NAME_LABEL), annotations.get(GROUP_TOTAL_COUNT_ANNOTATION)
    if not name:
        return [required(_LABEL_PATH, _BOTH)] if count is not None else []
    errs = [invalid(_LABEL_PATH, str(name), ",".join(bad)) for bad in [is_dns1123_subdomain(str(name))] if bad]
    if count is None:
        return [*errs, required(_COUNT_PATH, _BOTH)]
    detail = total_count_error(str(count))
    return [*errs, invalid(_COUNT_PATH, str(count), detail)] if detail else errs


def denied(errs: list[FieldError]) -> str:
    """The API server's words for the webhook's refusal."""
    return f'admission webhook "{WEBHOOK}" denied the request: {aggregate(errs)}'
