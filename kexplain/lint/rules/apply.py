"""kubectl apply's rules: with `-n`, an object of another namespace it refuses
(`namespace-mismatch`); an object named only by `generateName`, which it refuses and `kubectl
create` names (`generate-name`)."""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from kexplain.lint.documents import Document, line_of
from kexplain.lint.findings import Finding, ObjectRef
from kexplain.lint.rule import SCHEMAS, Severity, declare
from kexplain.load.manifests import generate_name_refusal, named
from kexplain.load.namespace_flag import KNOWN_SCOPES, declared_scopes, placed, refusal

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.lint.set_state import SetFile

RULES = (
    declare("namespace-mismatch", Severity.ERROR, SCHEMAS,
            "The object names another namespace than --namespace: `kubectl apply -n` refuses it (and applies the "
            "rest).",
            "kubectl apply -n: the namespace from the provided object does not "
            "match the namespace"),
    declare("generate-name", Severity.WARNING, SCHEMAS,
            "The object gives only metadata.generateName: `kubectl apply` (and Argo CD, Flux) refuses it; `kubectl "
            "create` creates it, as lint checks it.",
            "kubectl apply: resource name may not be empty (it names no object by "
            "generateName); kubectl create"),
)


def namespace_mismatch(doc: Document, ref: ObjectRef, said: str) -> Finding:
    """An object `kubectl apply -n` refuses (`in_namespace`): not part of the set."""
    line = line_of(doc.node, ("metadata", "namespace")) or doc.location.line
    return Finding("namespace-mismatch", replace(doc.location, line=line), ref, said, field="metadata.namespace")


def generate_name(obj: dict[str, Any], ref: ObjectRef, doc: Document) -> Finding:
    """An object named from its generateName: `kubectl apply` refuses it, in its words
    (`generate_name_refusal`); lint checks it as `kubectl create` creates it."""
    meta = obj.get("metadata") or {}
    prefix = meta.get("generateName")
    loc = replace(doc.location, line=line_of(doc.node, ("metadata", "generateName")) or doc.location.line)
    return Finding("generate-name", loc, ref,
                   f"{generate_name_refusal(str(prefix))} (kubectl apply refuses it; `kubectl create` creates "
                   f"it, checked here as {meta.get('name')})", field="metadata.generateName")


def in_namespace(files: "list[SetFile]", flag: str | None) -> dict[tuple[str, int, int | None], str]:
    """The set as `kubectl apply -n flag` takes it: namespace-less objects put in `flag`; the
    documents of objects in another namespace, with kubectl's refusal."""
    if not flag:
        return {}
    scopes = {**KNOWN_SCOPES, **declared_scopes(doc.obj for f in files for doc in f.items)}
    refused: dict[tuple[str, int, int | None], str] = {}
    for f in files:
        for j, doc in enumerate(f.items):
            why = refusal(doc.obj, flag, scopes)
            if why is not None:
                refused[doc.location.key] = why
            elif isinstance(doc.obj, dict):
                obj = placed(doc.obj, flag, scopes)
                if obj is not doc.obj:
                    f.items[j] = replace(doc, obj=obj)
    return refused


def name_generated(files: "list[SetFile]") -> set[tuple[str, int, int | None]]:
    """Objects giving only a generateName, named as `kexplain POD` names them (`named`), in their
    documents; the documents so named."""
    docs = [(f, j, doc) for f in files for j, doc in enumerate(f.items) if isinstance(doc.obj, dict)]
    out: set[tuple[str, int, int | None]] = set()
    for (f, j, doc), (obj, _) in zip(docs, named([(doc.obj, doc.location) for _, _, doc in docs])):
        if obj is not doc.obj:
            f.items[j] = replace(doc, obj=obj)
            out.add(doc.location.key)
    return out

