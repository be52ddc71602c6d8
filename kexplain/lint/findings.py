"""What lint reports: a `Finding` of one rule at a file and line, about one object (`ObjectRef`).
The rules (`lint/rules/`) make them; the Linter gathers them into its `Report`."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable

from kexplain.apimachinery.stored_pods import OBJECTS
from kexplain.errors import is_builtin_api, object_namespace
from kexplain.lint.documents import Location
from kexplain.lint.rule import Severity


@dataclass(frozen=True)
class ObjectRef:
    api_version: str
    kind: str
    namespace: str
    name: str

    @classmethod
    def of(cls, obj: Any) -> "ObjectRef":
        """The object's reference, namespaced as the API server stores it (`errors.describe`); a
        custom resource's as written (its scope is unknown)."""
        if not isinstance(obj, OBJECTS):
            return cls("", "", "", "")
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
        api_version, kind, namespace, name = (v if isinstance(v, str) else "" for v in
                                              (obj.get("apiVersion"), obj.get("kind"), meta.get("namespace"),
                                               meta.get("name")))
        if kind:
            namespace = object_namespace(kind, namespace, namespaced=None if is_builtin_api(api_version) else False)
        return cls(api_version, kind, namespace, name)

    def __str__(self) -> str:
        if not self.kind:
            return "object"
        if not self.name:
            return self.kind
        return f"{self.kind} {self.namespace}/{self.name}" if self.namespace else f"{self.kind} {self.name}"

    def to_json(self) -> dict[str, str]:
        return {"apiVersion": self.api_version, "kind": self.kind, "namespace": self.namespace, "name": self.name}


@dataclass(frozen=True)
class Finding:
    rule: str
    location: Location
    obj: ObjectRef | None
    message: str
    details: dict[str, Any] = field(default_factory=dict, compare=False)
    suggestions: tuple[str, ...] = ()
    severity: Severity | None = None       # None: the rule's (`rules.with_severity` gives it, from the registry)
    field: str | None = None               # the field at fault, dotted (`spec.replicas`)
    suppressed: str | None = None          # suppressed by the object's annotation: its reason (`rules.suppression`)

    @property
    def level(self) -> Severity:
        """Its severity. A rule's default is its declaration's, in the registry (`lint.rules`), which
        the rules import this module to make findings: so a report's findings are given theirs by
        `rules.with_severity` (as `choice.choose` does), and a rule that reads a level meanwhile
        reads its own declaration."""
        if self.severity is None:
            raise ValueError(f"a {self.rule} finding's severity is its rule's: give it with "
                             "kexplain.lint.rules.with_severity")
        return self.severity

    def headline(self) -> str:
        """`Kind ns/name: field: message` (the location is the renderer's business)."""
        parts = [str(self.obj)] if self.obj is not None else []
        if self.field:
            parts.append(self.field)
        parts.append(self.message)
        return ": ".join(parts)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rule": self.rule, "severity": self.level.label, **self.location.to_json(),
                               "object": self.obj.to_json() if self.obj else None, "message": self.message}
        if self.field:
            out["field"] = self.field
        out["suggestions"] = list(self.suggestions)
        if self.details:
            out["details"] = self.details
        if self.suppressed is not None:
            out["suppressed"] = {"kind": "inSource", "justification": self.suppressed}
        return out


# Scheduling findings of an object whose pod the scheduler never ran (refused, bypassed, not ours).
NOT_SCHEDULED_RULES = frozenset({"admission", "not-scheduled", "other-scheduler"})
SCHEDULING_RULES = frozenset({"admission", "admission-warning", "unschedulable", "preemption", "replicas", "gated",
                              "scheduler-error", "fits", "not-scheduled", "no-eligible-nodes", "other-scheduler",
                              "kubelet-rejected"})

# the rules of a verdict on where an object's pods go (one per object scheduled)
VERDICT_RULES = frozenset({"fits", "unschedulable", "replicas", "preemption", "gated", "scheduler-error"})


def guarded(ref: ObjectRef, loc: Location, check: Callable[[], Any]) -> Any:
    """`check()`; a failure of kexplain itself on one object is a finding of that object
    (KEXPLAIN_DEBUG=1 raises it instead), so one bug does not hide every other result."""
    try:
        return check()
    except Exception as err:  # noqa: BLE001 - reported, not swallowed
        if os.environ.get("KEXPLAIN_DEBUG"):
            raise
        return [Finding("scheduler-error", loc, ref, f"kexplain internal error: {type(err).__name__}: {err} "
                                                     "(set KEXPLAIN_DEBUG=1 for a traceback, and please report it)",
                        details={"internalError": type(err).__name__})]
