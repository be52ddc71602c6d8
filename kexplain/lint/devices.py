"""Lint checks of Dynamic Resource Allocation references, each at the line of its field: a missing
ResourceClaim or ResourceClaimTemplate (the pod waits in PreEnqueue, no event), a missing
DeviceClass, a CEL selector that does not compile. Missing means absent from the pool as the set
leaves it and from the set's documents; without a pool nothing is missing."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Collection, Iterator, Mapping, Sequence

from kexplain.admission.dra import qualified_kind
from kexplain.admission.dra_convert import V1BETA1
from kexplain.admission.dra_validate import validate_cel_expression
from kexplain.admission.workloads import TEMPLATE_PATHS
from kexplain.lint.documents import Document, Location, line_of_field

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.model.snapshot import Snapshot

SELECTOR = "device-selector"
MISSING_CLASS = "missing-device-class"
MISSING_CLAIM = "missing-resource-claim"
MISSING_TEMPLATE = "missing-resource-claim-template"

CLAIM_KINDS = ("ResourceClaim", "ResourceClaimTemplate")
DRA_API = "resource.k8s.io/"
Key = tuple[str, str]


@dataclass(frozen=True)
class DeviceProblem:
    """One finding of this module: its rule, where (the line of `field`), the object, the text
    and the field at fault, dotted as the API server writes it."""

    rule: str
    location: Location
    obj: Mapping[str, Any]
    message: str
    field: str | None = None


def _dict(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _name(obj: Mapping[str, Any]) -> str:
    return str(_dict(obj.get("metadata")).get("name") or "")


def _namespace(obj: Mapping[str, Any]) -> str:
    return str(_dict(obj.get("metadata")).get("namespace") or "default")


@dataclass(frozen=True)
class Known:
    """The DRA objects that exist for the file: device classes by name, claims and templates
    by (namespace, name), each with its object."""

    classes: frozenset[str]
    claims: Mapping[Key, Mapping[str, Any]]
    templates: Mapping[Key, Mapping[str, Any]]

    @classmethod
    def of(cls, cluster: "Snapshot", docs: Sequence[Document]) -> "Known":
        file_objs = [d.obj for d in docs if isinstance(d.obj, Mapping)
                     and str(d.obj.get("apiVersion") or "").startswith(DRA_API)]

        def kind(k: str) -> list[Mapping[str, Any]]:
            return [*cluster.of_kind(k), *(o for o in file_objs if o.get("kind") == k)]

        return cls(frozenset(_name(o) for o in kind("DeviceClass")),
                   {(_namespace(o), _name(o)): o for o in kind("ResourceClaim")},
                   {(_namespace(o), _name(o)): o for o in kind("ResourceClaimTemplate")})


# -- where the fields are ------------------------------------------------------------------------
def device_requests(obj: Mapping[str, Any]) -> Iterator[tuple[str, str, Mapping[str, Any]]]:
    """(field path, name as the scheduler writes it, body) of every `exactly` and `firstAvailable`
    request of a claim or template (v1beta1's body is the request itself)."""
    spec = "spec.spec" if obj.get("kind") == "ResourceClaimTemplate" else "spec"     # a template's: its claim's
    base = f"{spec}.devices.requests"
    beta = obj.get("apiVersion") == V1BETA1
    for i, request in enumerate(_list(_dict(_at(obj, spec).get("devices")).get("requests"))):
        request = _dict(request)
        name = str(request.get("name") or "")
        if beta and "exactly" not in request:
            yield f"{base}[{i}]", name, request
        elif isinstance(request.get("exactly"), Mapping):
            yield f"{base}[{i}].exactly", name, request["exactly"]
        for j, sub in enumerate(_list(request.get("firstAvailable"))):
            if isinstance(sub, Mapping):
                yield f"{base}[{i}].firstAvailable[{j}]", f"{name}/{sub.get('name') or ''}", sub


def api_path(obj: Mapping[str, Any], written: str) -> str:
    """A field path of `device_requests` as the API server names it: a v1beta1 request's body is
    validated as v1's `exactly` (`spec.devices.requests[0].exactly.selectors...`)."""
    head, sep, tail = written.partition(".devices.requests[")
    index, close, rest = tail.partition("]")
    if obj.get("apiVersion") != V1BETA1 or not sep or rest.startswith((".exactly", ".firstAvailable")):
        return written
    return f"{head}{sep}{index}{close}.exactly{rest}"


def selectors_of(obj: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """(field path of the `selectors` list, the list) of a DeviceClass, claim or template."""
    if obj.get("kind") == "DeviceClass":
        yield "spec.selectors", _dict(obj.get("spec")).get("selectors")
        return
    for path, _, body in device_requests(obj):
        yield f"{path}.selectors", body.get("selectors")


def pod_spec_path(kind: str) -> str | None:
    """Where the pod spec of a Pod or a workload is (None for other kinds)."""
    if kind == "Pod":
        return "spec"
    template = TEMPLATE_PATHS.get(kind)
    return ".".join((*template, "spec")) if template is not None else None


def _at(obj: Mapping[str, Any], dotted: str) -> Mapping[str, Any]:
    for part in dotted.split("."):
        obj = _dict(obj.get(part))
    return obj


# -- the checks -----------------------------------------------------------------------------------
def _problem(doc: Document, rule: str, message: str, field: str) -> DeviceProblem:
    line = line_of_field(doc.node, field) or doc.location.line
    return DeviceProblem(rule, replace(doc.location, line=line), doc.obj, message, field)


def selector_problems(doc: Document) -> list[DeviceProblem]:
    """Each selector of the object that does not compile, in the API server's words."""
    obj = doc.obj
    out = []
    for path, selectors in selectors_of(obj):
        for i, selector in enumerate(_list(selectors)):
            cel = _dict(selector).get("cel")
            if not isinstance(cel, Mapping):
                continue          # a missing `cel` is the schema's and admission's to report
            field = f"{path}[{i}].cel.expression"
            for err in validate_cel_expression(cel.get("expression"), api_path(obj, field)):
                problem = _problem(doc, SELECTOR, f'{qualified_kind(str(obj.get("kind")))} "{_name(obj)}" is '
                                                  f"invalid: {err}", field)
                out.append(replace(problem, field=err.path))
    return out


def missing_classes(obj: Mapping[str, Any], known: Known) -> list[tuple[str, str, str]]:
    """(field path of `deviceClassName`, request name, class) of every request of a claim or
    template whose class does not exist."""
    return [(f"{path}.deviceClassName", request, str(body.get("deviceClassName")))
            for path, request, body in device_requests(obj)
            if body.get("deviceClassName") and str(body.get("deviceClassName")) not in known.classes]


def class_problems(doc: Document, known: Known) -> list[DeviceProblem]:
    """A claim or template of the file whose request names a missing DeviceClass."""
    return [_problem(doc, MISSING_CLASS, f"device class {name} does not exist in the pool or the file: every pod "
                                         f"using this claim is unschedulable (request {request}: device class "
                                         f"{name} does not exist)", field)
            for field, request, name in missing_classes(doc.obj, known)]


def pod_problems(doc: Document, known: Known, in_file: Collection[Key]) -> list[DeviceProblem]:
    """A Pod or workload's `resourceClaims` that name a missing claim or template, or a claim
    or template (not of the file: those are reported themselves) that names a missing class."""
    obj = doc.obj
    base = pod_spec_path(str(obj.get("kind")))
    if base is None:
        return []
    namespace = _namespace(obj)
    out = []
    for i, entry in enumerate(_list(_at(obj, base).get("resourceClaims"))):
        entry = _dict(entry)
        for field_name, table, rule, what in (("resourceClaimName", known.claims, MISSING_CLAIM, "ResourceClaim"),
                                              ("resourceClaimTemplateName", known.templates, MISSING_TEMPLATE,
                                               "ResourceClaimTemplate")):
            name = entry.get(field_name)
            if not isinstance(name, str) or not name:
                continue
            field = f"{base}.resourceClaims[{i}].{field_name}"
            target = table.get((namespace, name))
            if target is None:
                out.append(_problem(doc, rule, _missing_text(what, namespace, name, str(entry.get("name") or "")),
                                    field))
                continue
            if (what, namespace, name) in in_file:
                continue
            for _, request, class_name in missing_classes(target, known):
                out.append(_problem(doc, MISSING_CLASS, f"{what} {namespace}/{name} names device class {class_name}, "
                                                        "which does not exist in the pool or the file: the pod is "
                                                        f"unschedulable (request {request}: device class "
                                                        f"{class_name} does not exist)", field))
    return out


def _missing_text(what: str, namespace: str, name: str, entry: str) -> str:
    if what == "ResourceClaim":
        return (f"ResourceClaim {namespace}/{name} (claim {entry!r}) does not exist in the pool or the file: the "
                f'scheduler keeps the pod waiting, without an event (could not find ResourceClaim "{namespace}/{name}")')
    return (f"ResourceClaimTemplate {namespace}/{name} (claim {entry!r}) does not exist in the pool or the file: "
            "the resourceclaim controller cannot create the claim, and the scheduler keeps the pod waiting, "
            "without an event (ResourceClaim not created yet)")


def check_devices(docs: Sequence[Document], cluster: "Snapshot | None",
                  refused: Collection[tuple[str, int, int | None]] = ()) -> list[DeviceProblem]:
    """The problems of the documents, in order, against `cluster` (None: selectors only), but those
    of `refused` documents: their findings say it already."""
    out: list[DeviceProblem] = []
    known = Known.of(cluster, docs) if cluster is not None else None
    in_file = {(str(d.obj.get("kind")), _namespace(d.obj), _name(d.obj)) for d in docs
               if isinstance(d.obj, Mapping) and d.obj.get("kind") in CLAIM_KINDS}
    for doc in docs:
        obj = doc.obj
        if not isinstance(obj, Mapping) or not isinstance(obj.get("kind"), str):
            continue
        loc = doc.location
        dra = str(obj.get("apiVersion") or "").startswith(DRA_API)
        if dra and (loc.path, loc.doc, loc.item) not in refused:
            out.extend(selector_problems(doc))
        if known is None:
            continue
        if dra and obj["kind"] in CLAIM_KINDS:
            out.extend(class_problems(doc, known))
        else:
            out.extend(pod_problems(doc, known, in_file))
    return out
