"""The claims the resourceclaim controller (v1.35 pkg/controller/resourceclaim) creates for a pod: until
then the scheduler gates it (`ResourceClaim not created yet`). Played only for pods as people write them
(`writes_claims_for`); the claim's name is derived from its generateName so the same pod always gets
the same claim. The claim as the controller makes it: docs/internals/controllers.md.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from kexplain.apimachinery.identity import as_dict, generated_name

POD_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/pod-claim-name"
MAX_BASE_LENGTH = 57         # the controller leaves room for the API server's 5 random characters
API_VERSION = "resource.k8s.io/v1"

Key = tuple[str, str]         # (namespace, name)


def writes_claims_for(pod: Mapping[str, Any]) -> bool:
    """Whether kexplain creates this pod's template claims: it has no `status` at all (a
    workload's pod, or a Pod manifest as written), and names a template."""
    if pod.get("status") is not None:
        return False
    claims = as_dict(pod.get("spec")).get("resourceClaims")
    return isinstance(claims, list) and any(isinstance(c, dict) and c.get("resourceClaimTemplateName")
                                            for c in claims)


def generate_name(pod_name: str, claim_name: str) -> str:
    """The controller's generateName for a pod's claim."""
    base = f"{pod_name}-{claim_name}-"
    if len(base) <= MAX_BASE_LENGTH:
        return base
    return (pod_name[:len(pod_name) * MAX_BASE_LENGTH // len(base)] + "-"
            + claim_name[:len(claim_name) * MAX_BASE_LENGTH // len(base)])


@dataclass
class Created:
    """The pod with its `status.resourceClaimStatuses`, the claims made for it, and notes."""

    pod: dict[str, Any]
    claims: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _owned_claim(claims: Iterable[Mapping[str, Any]], namespace: str, uid: str, entry: str) -> str | None:
    """findPodResourceClaim: a claim of the namespace the pod controls, made for this entry."""
    for claim in claims:
        meta = as_dict(claim.get("metadata"))
        if (meta.get("namespace") or "default") != namespace:
            continue
        if as_dict(meta.get("annotations")).get(POD_CLAIM_NAME_ANNOTATION) != entry:
            continue
        if any(isinstance(r, dict) and r.get("controller") and r.get("uid") == uid
               for r in meta.get("ownerReferences") or ()):
            return meta.get("name")
    return None


def claim_from_template(pod: Mapping[str, Any], entry: str, template: Mapping[str, Any]) -> dict[str, Any]:
    """The ResourceClaim the controller creates for the pod's entry `entry` from `template`."""
    meta = as_dict(pod.get("metadata"))
    tspec = as_dict(template.get("spec"))
    tmeta = as_dict(tspec.get("metadata"))
    namespace = meta.get("namespace") or "default"
    prefix = generate_name(str(meta.get("name") or ""), entry)
    claim_meta: dict[str, Any] = {
        "name": generated_name({"kind": "ResourceClaim", "metadata": {"generateName": prefix, "namespace": namespace}}),
        "generateName": prefix,
        "namespace": namespace,
        "annotations": {**copy.deepcopy(as_dict(tmeta.get("annotations"))), POD_CLAIM_NAME_ANNOTATION: entry},
        "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": meta.get("name") or "",
                             "uid": meta.get("uid") or "", "controller": True, "blockOwnerDeletion": True}],
    }
    if tmeta.get("labels"):
        claim_meta["labels"] = copy.deepcopy(tmeta["labels"])
    return {"apiVersion": API_VERSION, "kind": "ResourceClaim", "metadata": claim_meta,
            "spec": copy.deepcopy(as_dict(tspec.get("spec")))}


def create_claims(pod: Mapping[str, Any], templates: Mapping[Key, Mapping[str, Any]],
                  existing: Iterable[Mapping[str, Any]] = ()) -> Created:
    """The controller's sync of an admitted `pod`: the pod with a status entry per claim made or found,
    the new claims, and a note for each claim created and each template missing."""
    out = copy.deepcopy(dict(pod))
    meta = as_dict(out.get("metadata"))
    namespace, pod_name, uid = meta.get("namespace") or "default", meta.get("name") or "", meta.get("uid") or ""
    status = out["status"] = dict(as_dict(out.get("status")))
    statuses = [s for s in status.get("resourceClaimStatuses") or () if isinstance(s, dict)]
    done = {s.get("name") for s in statuses}
    created = Created(out)
    existing = list(existing)
    for entry in as_dict(out.get("spec")).get("resourceClaims") or ():
        if not isinstance(entry, dict) or entry.get("resourceClaimName") or not entry.get("resourceClaimTemplateName"):
            continue
        name, template_name = str(entry.get("name") or ""), str(entry["resourceClaimTemplateName"])
        if name in done:
            continue
        found = _owned_claim([*existing, *created.claims], namespace, uid, name)
        if found is None:
            template = templates.get((namespace, template_name))
            if template is None:
                created.notes.append(
                    f"pod {namespace}/{pod_name}: no ResourceClaimTemplate {namespace}/{template_name} for its claim "
                    f"{name!r}: the resourceclaim controller cannot create the claim until the template exists, "
                    "and the scheduler keeps the pod waiting (ResourceClaim not created yet)")
                continue
            claim = claim_from_template(out, name, template)
            found = claim["metadata"]["name"]
            created.claims.append(claim)
            created.notes.append(
                f"pod {namespace}/{pod_name}: created ResourceClaim {namespace}/{found} from template {template_name} "
                f"for its claim {name!r}, as the resourceclaim controller would (the last 5 characters of the name "
                "are random in a cluster; kexplain derives them from the pod's name)")
        statuses.append({"name": name, "resourceClaimName": found})
        done.add(name)
    if statuses:
        status["resourceClaimStatuses"] = statuses
    elif not status:
        del out["status"]
    return created


def templates_by_key(objects: Iterable[Mapping[str, Any]]) -> dict[Key, Mapping[str, Any]]:
    """ResourceClaimTemplates by (namespace, name)."""
    out: dict[Key, Mapping[str, Any]] = {}
    for obj in objects:
        meta = as_dict(obj.get("metadata"))
        out.setdefault((meta.get("namespace") or "default", str(meta.get("name") or "")), obj)
    return out
