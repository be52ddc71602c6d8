"""The reading rules: a file or stream that cannot be read or parsed (`unreadable`), a document
that is not a Kubernetes object (`invalid-document`), as kubectl apply's reader says them."""
from __future__ import annotations

from typing import Any

from kexplain.apimachinery.stored_pods import OBJECTS
from kexplain.apimachinery.unstructured import not_an_object
from kexplain.errors import InputError, Source
from kexplain.lint.documents import Location
from kexplain.lint.findings import Finding, ObjectRef
from kexplain.lint.rule import SCHEMAS, Severity, declare

RULES = (
    declare("unreadable", Severity.ERROR, SCHEMAS,
            "The file or stream cannot be read or parsed.",
            "kubectl apply's reader: sigs.k8s.io/yaml (YAML, JSON), its size limits"),
    declare("invalid-document", Severity.ERROR, SCHEMAS,
            "The document is not a Kubernetes object.",
            "kubectl apply: unstructured decoding (Object 'Kind' is missing, not a "
            "mapping)"),
)


def unreadable(path: str, err: InputError) -> Finding:
    src = err.source or Source(path)
    return Finding("unreadable", Location(src.path, src.doc, line=getattr(err, "line", None)), None, err.message)


def invalid(obj: Any, ref: ObjectRef, loc: Location) -> Finding | None:
    """Why the document is not an object lint checks (not a mapping, another tool's file, no apiVersion
    or kind), None when it is one."""
    if not isinstance(obj, OBJECTS):
        return Finding("invalid-document", loc, None,
                       f"document is a {type(obj).__name__}, not a Kubernetes object (a mapping)")
    other = not_an_object(obj)      # explain's words: another tool's file, not an object lacking a field
    if other is not None:
        return Finding("invalid-document", loc, None, other)
    for key in ("apiVersion", "kind"):
        if not isinstance(obj.get(key), str) or not obj[key]:
            return Finding("invalid-document", loc, ref, f"object has no {key}", field=key)
    return None
