"""kubectl apply's size limit (`last-applied-too-long`): client-side `kubectl apply` writes the
whole object, as JSON, into its `kubectl.kubernetes.io/last-applied-configuration` annotation
(kubectl's util.CreateApplyAnnotation / GetModifiedConfiguration), and the API server refuses
annotations whose keys and values total more than 256 KiB (apimachinery's ValidateAnnotations,
TotalAnnotationSizeLimitB): an object whose JSON is about that large (big CRDs: Argo CD's
ApplicationSet, kube-prometheus's Prometheus and Alertmanager) can only be applied server-side."""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from kexplain.apimachinery.fielderrors import go_json, invalid_message, too_long
from kexplain.lint.documents import Document, line_of
from kexplain.lint.findings import Finding, ObjectRef
from kexplain.lint.rule import SCHEMAS, Severity, declare
from kexplain.load.apply_patch import LAST_APPLIED
from kexplain.load.namespace_flag import Scopes, placed

TOTAL_ANNOTATION_SIZE_LIMIT = 256 * (1 << 10)      # apimachinery's TotalAnnotationSizeLimitB

RULES = (
    declare("last-applied-too-long", Severity.WARNING, SCHEMAS,
            "The object is too large for client-side `kubectl apply`: its last-applied-configuration annotation "
            "would pass the API server's 262144-byte limit on metadata.annotations; apply it server-side.",
            "kubectl apply: CreateApplyAnnotation (kubectl.kubernetes.io/last-applied-configuration); "
            "apimachinery ValidateAnnotations: TotalAnnotationSizeLimitB"),
)


def _go_number(value: Any) -> Any:
    """A float as encoding/json writes a float64 (`1.0` is `1`); anything else as it is."""
    if isinstance(value, float) and math.isfinite(value) and value.is_integer() and abs(value) < 1e21:
        return int(value)
    if isinstance(value, dict):
        return {k: _go_number(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_go_number(v) for v in value]
    return value


def encoded(obj: dict[str, Any]) -> str:
    """unstructured.UnstructuredJSONScheme's encoding of `obj`: json.Encoder's (map keys sorted,
    HTML and U+2028/U+2029 escaped), with its trailing newline."""
    text = go_json(_go_number(obj), sort_keys=True)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029") + "\n"


def annotations_size(obj: dict[str, Any]) -> int:
    """ValidateAnnotationsSize's total (bytes of every key and value) of the annotations
    client-side apply sends: the object's own, its last-applied annotation replaced by the
    object's JSON without it (GetModifiedConfiguration; no annotations there: an empty map)."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    given = meta.get("annotations") if isinstance(meta.get("annotations"), dict) else {}
    own = {k: v for k, v in given.items() if k != LAST_APPLIED}
    value = encoded({**obj, "metadata": {**meta, "annotations": own}})
    own[LAST_APPLIED] = value
    return sum(len(str(k).encode()) + len(str(v).encode()) for k, v in own.items())


def last_applied_too_long(doc: Document, ref: ObjectRef, namespace: str, scopes: Scopes) -> Finding | None:
    """The API server's refusal of the object client-side apply sends (with `namespace`, as
    kubectl's builder sets it on a namespaced object without one), and the server-side way."""
    if not isinstance(doc.obj, dict):
        return None
    size = annotations_size(placed(doc.obj, namespace, scopes))
    if size <= TOTAL_ANNOTATION_SIZE_LIMIT:
        return None
    group = ref.api_version.rpartition("/")[0]
    kind = f"{ref.kind}.{group}" if group else ref.kind
    refusal = invalid_message(kind, ref.name, [too_long("metadata.annotations", TOTAL_ANNOTATION_SIZE_LIMIT)])
    loc = replace(doc.location, line=line_of(doc.node, ("metadata",)) or doc.location.line)
    return Finding("last-applied-too-long", loc, ref,
                   f"client-side `kubectl apply` is refused: {refusal} (its last-applied-configuration "
                   f"annotation makes them {size} bytes)",
                   details={"annotationsSize": size, "limit": TOTAL_ANNOTATION_SIZE_LIMIT},
                   suggestions=("apply it server-side: `kubectl apply --server-side -f FILE` (Argo CD: the "
                                "ServerSideApply=true sync option; Flux applies server-side already), or create "
                                "it with `kubectl create -f FILE` and update it with `kubectl replace -f FILE`",),
                   field="metadata.annotations")
