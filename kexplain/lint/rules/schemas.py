"""The schema rules: each object against the schema of its kind at the version checked against,
in the API server's words (a built-in kind's decoder error, a custom resource's OpenAPI
validation), a kind kexplain reads itself by its reader (`lint.shipped`), a job of Kueue's
integrations by its decoding. An object with an error is not in the set applied."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from kexplain.admission.openapi import (NOT_SERVED, OFF_BY_DEFAULT, builtin_index, dotted_path, unknown_field_warning,
                                        unknown_fields_error)
from kexplain.apimachinery.stored_pods import OBJECTS
from kexplain.apimachinery.unstructured import not_an_object
from kexplain.errors import Source
from kexplain.lint import shipped
from kexplain.lint.documents import Document, line_of, line_of_field
from kexplain.lint.findings import Finding, ObjectRef
from kexplain.lint.rule import SCHEMAS, Severity, declare
from kexplain.lint.schemas import SchemaError, SchemaStore
from kexplain.load.manifests import kustomization_dirs, kustomize_hint

RULES = (
    declare("schema", Severity.ERROR, SCHEMAS,
            "The object does not match the schema of its kind (Kubernetes', one of --schemas, or the Kueue or "
            "Karpenter CRD kexplain ships).",
            "kube-apiserver: the decoder of a built-in kind (encoding/json's errors), OpenAPI "
            "validation of a custom resource (k8s.io/kube-openapi validate), CRD rules and "
            "webhooks of the Kueue and Karpenter kinds kexplain ships"),
    declare("unknown-field", Severity.ERROR, SCHEMAS,
            "The object has a field its schema does not define (strict mode).",
            "kube-apiserver: strict field validation (kubectl apply --validate=strict)"),
    declare("unknown-api-version", Severity.ERROR, SCHEMAS,
            "A built-in API group at a version the chosen Kubernetes version does not serve (kubectl apply refuses "
            "the object), or (a warning) serves only when kube-apiserver's --runtime-config enables it.",
            "kube-apiserver: the group versions it serves (--runtime-config); "
            "kubectl: no matches for kind"),
    declare("unknown-kind", Severity.INFO, SCHEMAS,
            "No schema for this kind (a custom resource?): not validated.",
            "kubeconform --ignore-missing-schemas: a kind without a schema is skipped"),
    declare("unreadable-job", Severity.ERROR, SCHEMAS,
            "A job of a kind Kueue's integrations read (JobSet, RayJob, LeaderWorkerSet, a Kubeflow job, "
            "AppWrapper), whose CRD kexplain does not ship, cannot be read as the integration reads it (its pod "
            "sets, their templates and counts).",
            "Kueue's integration of the kind (jobframework: its PodSets)"),
)

_DECLARED = {r.id: r.severity for r in RULES}


def refusing(findings: list[Finding]) -> bool:
    """Whether a schema finding is an error (the API server refuses the object), each at its own
    severity or its rule's as declared here (the report gives them theirs only at its end)."""
    return any((f.severity if f.severity is not None else _DECLARED[f.rule]) >= Severity.ERROR for f in findings)


class Schemas:
    """The schema findings of the set's documents, each worked out once (the set's documents are
    checked before the set is applied, then reported in order)."""

    def __init__(self, store: SchemaStore) -> None:
        self.store = store
        self._found: dict[tuple[str, int, int | None], tuple[list[Finding], bool]] = {}

    def of(self, obj: dict[str, Any], ref: ObjectRef, doc: Document) -> tuple[list[Finding], bool]:
        """The schema findings of a document and whether it is fit to be scheduled, worked out once
        (the set's documents are checked before the set is applied)."""
        key = doc.location.key
        found = self._found.get(key)
        if found is None:
            found = self._found[key] = self._check(obj, ref, doc)
        return found

    def _check(self, obj: dict[str, Any], ref: ObjectRef, doc: Document) -> tuple[list[Finding], bool]:
        findings: list[Finding] = []
        status = builtin_index(self.store.version).api_version_status(ref.api_version, ref.kind)
        if status is not None and status.state in (NOT_SERVED, OFF_BY_DEFAULT):
            findings.append(Finding("unknown-api-version", replace(doc.location, line=line_of(doc.node, ("apiVersion",))),
                                    ref, status.message, field="apiVersion", details={"served": list(status.use)},
                                    severity=Severity.WARNING if status.state == OFF_BY_DEFAULT else None))
            if status.state == NOT_SERVED:
                return findings, False
        validator = self.store.validator(ref.api_version, ref.kind)
        if validator is None:
            own = self._shipped(obj, ref, doc)
            if own is not None:     # a kind kexplain reads itself: its reader's answer
                findings += own
                return findings, not refusing(own)
            return [*findings, *self._no_schema(obj, ref, doc)], False
        errors = validator.errors(obj)
        findings += [self.finding(err, ref, doc, validator.origin, self.store.validate) for err in errors]
        return findings, all(e.unknown_field for e in errors) and not (errors and self.store.validate == "strict")

    def _shipped(self, obj: dict[str, Any], ref: ObjectRef, doc: Document) -> list[Finding] | None:
        """A Kueue or Karpenter kind checked as kexplain's own reader of it checks it (`lint.shipped`):
        its refusal in the reader's words, or the unknown fields it warns of; None for another kind."""
        checked = shipped.check(obj, Source(doc.location.path, doc.location.doc), self.store.validate)
        if checked is None:
            return None
        details = {"schema": checked.origin}
        err = checked.refusal
        if err is not None:
            rule = "unknown-field" if shipped.STRICT_UNKNOWN in err.message else "schema"
            field = err.field or shipped.refused_field(err.message)
            loc = replace(doc.location, line=line_of_field(doc.node, field) or doc.location.line)
            return [Finding(rule, loc, ref, err.message, field=field, details=details)]
        return [Finding("unknown-field", replace(doc.location, line=line_of_field(doc.node, path) or doc.location.line),
                        ref, unknown_field_warning(path), field=path, details=details, severity=Severity.WARNING)
                for path in checked.unknown]

    def _no_schema(self, obj: dict[str, Any], ref: ObjectRef, doc: Document) -> list[Finding]:
        """A kind without a schema: skipped, unless it is a job Kueue's integration reads, which is
        decoded as the integration decodes it (`unreadable-job` when it cannot be)."""
        where = f"no schema for {ref.api_version} {ref.kind} in Kubernetes {self.store.version} or --schemas"
        loc = replace(doc.location, line=line_of(doc.node, ("kind",)))
        job = shipped.integration(ref.api_version, ref.kind)
        if job is not None:
            err = shipped.decode_job(obj, Source(doc.location.path, doc.location.doc))
            if err is not None:
                at = replace(doc.location, line=line_of_field(doc.node, err.field) or loc.line)
                return [Finding("unreadable-job", at, ref, f"Kueue's {job} integration cannot read it: {err.message}",
                                field=err.field)]
            return [Finding("unknown-kind", loc, ref, f"{where}: its fields are not validated (its CRD can be given "
                                                      f"with --schemas); read as Kueue's {job} integration reads it, "
                                                      "its pod sets, templates and counts are readable")]
        hint = kustomize_hint(kustomization_dirs([(obj, Source(doc.location.path))]), "kexplain lint -", "checked")
        return [Finding("unknown-kind", loc, ref, f"{where}: skipped{'; ' + hint if hint else ''}")]

    def refused(self, items: list[Document]) -> set[tuple[str, int, int | None]]:
        """The documents whose schema check has an error: the API server refuses them and `kubectl
        apply` goes on, so they are not in the set applied, whatever their kind."""
        out: set[tuple[str, int, int | None]] = set()
        for doc in items:
            obj = doc.obj
            if not isinstance(obj, OBJECTS) or not_an_object(obj) is not None or \
                    not all(isinstance(obj.get(k), str) and obj[k] for k in ("apiVersion", "kind")):
                continue
            findings, _ = self.of(obj, ObjectRef.of(obj), doc)
            if refusing(findings):
                out.add(doc.location.key)
        return out

    @staticmethod
    def finding(err: SchemaError, ref: ObjectRef, doc: Document, origin: str, validate: str = "strict") -> Finding:
        """A schema error as a finding in the API server's words (a built-in kind's decoding error, a
        custom resource's kube-openapi text; an unknown field: strict's error or warn's warning)."""
        loc = replace(doc.location, line=line_of(doc.node, err.path) or doc.location.line)
        field = dotted_path(err.path) or None
        details = {"schema": origin}
        if not err.unknown_field:
            return Finding("schema", loc, ref, err.message, field=field, details=details)
        if validate == "warn":
            return Finding("unknown-field", loc, ref, unknown_field_warning(err.dotted), field=field,
                           details=details, severity=Severity.WARNING)
        return Finding("unknown-field", loc, ref, unknown_fields_error([err.dotted]), field=field, details=details)

