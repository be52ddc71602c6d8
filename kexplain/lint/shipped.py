"""The custom kinds kexplain itself reads, checked by lint as kexplain's own readers check them, so
that lint and the commands that load them give one answer: Kueue's kinds (`kueue.apis`: v0.17.8's
CRD schemas and rules, its webhooks) and Karpenter's (`karpenter.apis`), each through the parser
`kexplain kueue`, `kexplain karpenter` and the chains call; and the job kinds Kueue's integrations
read, for which no CRD schema is shipped, through the integration's own decoding (the readers are
imported with lint: about 50 ms, the Kueue ones lint reads anyway). Details: docs/internals/lint.md."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from kexplain.errors import AdmissionRejected, InputError, KexplainError, Source
from kexplain.karpenter.apis import ec2nodeclass, nodeclaim, nodepool
from kexplain.kueue.apis import (admissioncheck, clusterqueue, cohort, localqueue, priorityclass, resourceflavor,
                                 topology, workload)
from kexplain.kueue.controller.jobs import decode, integration_for
from kexplain.kueue.objects import MANAGED_KINDS

KUEUE = "kueue.x-k8s.io"
KUEUE_ORIGIN = "Kueue v0.17.8 CRD (kexplain's own)"
KARPENTER_ORIGIN = "Karpenter v1 CRD (kexplain's own)"
# (group, kind) -> (the API versions served, the parser, keywords, origin)
_READERS: dict[tuple[str, str], tuple[tuple[str, ...], Callable[..., Any], dict[str, str], str]] = {
    **{(KUEUE, kind): (("v1beta1", "v1beta2"), parse, {}, KUEUE_ORIGIN) for kind, parse in (
        ("ResourceFlavor", resourceflavor.parse_resource_flavor),
        ("ClusterQueue", clusterqueue.parse_cluster_queue),
        ("Cohort", cohort.parse_cohort),
        ("LocalQueue", localqueue.parse_local_queue),
        ("WorkloadPriorityClass", priorityclass.parse_workload_priority_class),
        ("Workload", workload.parse_workload),
        ("AdmissionCheck", admissioncheck.parse_admission_check),
        ("ProvisioningRequestConfig", admissioncheck.parse_provisioning_request_config),
        ("Topology", topology.parse_topology))},
    # a manifest to apply: a value its CRD refuses is refused (`invalid`), as `karpenter.inputs.as_stored` does
    **{(group, kind): (("v1",), parse, {"invalid": "refuse"}, KARPENTER_ORIGIN) for group, kind, parse in (
        ("karpenter.sh", "NodePool", nodepool.parse_node_pool),
        ("karpenter.sh", "NodeClaim", nodeclaim.parse_node_claim),
        ("karpenter.k8s.aws", "EC2NodeClass", ec2nodeclass.parse_ec2_node_class))},
}
# the job kinds Kueue's integrations read whose CRD kexplain does not ship (the built-in ones have schemas)
INTEGRATION_KINDS = {kind: group for kind, group in MANAGED_KINDS.items() if "." in group}
_UNKNOWN_FIELD = re.compile(r'unknown field "(.*)"$')
STRICT_UNKNOWN = "strict decoding error: unknown field"     # (`admission.openapi.unknown_fields_error`)
# the first field an apierrors.NewInvalid message names: `Kind "name" is invalid: [spec.a: ...`
_FIRST_FIELD = re.compile(r' is invalid: \[?([A-Za-z][\w.\[\]/-]*): ')


def refused_field(message: str) -> str | None:
    """The first field a refusal's message names (where lint points), if any: the first error's of an
    apierrors.NewInvalid message, else the first unknown field of a strict decoding error."""
    found = _FIRST_FIELD.search(message) or re.search(r'unknown field "([^"]*)"', message)
    return found.group(1) if found else None


@dataclass(frozen=True)
class Checked:
    """What kexplain's reader says of one object: its refusal (None: read), the unknown fields it
    warns of (under --validate=warn), and where the check comes from."""

    origin: str
    refusal: KexplainError | None = None
    unknown: tuple[str, ...] = ()


def _group_version(api_version: str) -> tuple[str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version


def has_schema(api_version: str, kind: str) -> bool:
    """Whether kexplain ships the schema of this kind at this API version."""
    group, version = _group_version(api_version)
    reader = _READERS.get((group, kind))
    return reader is not None and version in reader[0]


def check(obj: dict[str, Any], source: Source, validate: str) -> Checked | None:
    """The object read as kexplain's reader of its kind reads it (None: kexplain ships no schema of
    it): the reader's own refusal, in its words, or the unknown fields it warns of."""
    api_version, kind = str(obj.get("apiVersion") or ""), str(obj.get("kind") or "")
    if not has_schema(api_version, kind):
        return None
    _, parse, keywords, origin = _READERS[_group_version(api_version)[0], kind]
    warnings: list[str] = []
    try:
        parse(obj, source, validate=validate, warnings=warnings, **keywords)
    except (AdmissionRejected, InputError) as err:
        return Checked(origin, err)
    found = (_UNKNOWN_FIELD.search(w) for w in warnings)
    return Checked(origin, unknown=tuple(m.group(1) for m in found if m is not None))


def integration(api_version: str, kind: str) -> str | None:
    """The kind of a job Kueue's integration reads (no CRD schema shipped), or None."""
    group = INTEGRATION_KINDS.get(kind)
    return kind if group is not None and _group_version(api_version)[0] == group else None


def decode_job(obj: dict[str, Any], source: Source) -> KexplainError | None:
    """A job of an integration kind decoded as Kueue's integration decodes it by itself (its pod sets,
    their templates and counts; a TrainJob what it reads of itself: `kueue.controller.jobs.decode`):
    None, or why it cannot be."""
    module = integration_for(str(obj.get("kind") or ""), str(obj.get("apiVersion") or ""))
    if module is None:
        return None
    try:
        decode(module, obj, source)
    except KexplainError as err:
        return err
    return None
