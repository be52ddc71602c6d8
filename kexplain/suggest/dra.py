"""What the device fix families read: DynamicResources' facts on the nodes it rejected (from a
re-run recording its `explain`, as `--node` shows), where each claim lives, which pods hold one."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterator, Mapping

from kexplain.explain.run import explain
from kexplain.model.pod import PodInfo
from kexplain.plugins.dra.claims import ClaimLookupError, claim_name
from kexplain.plugins.names import DYNAMIC_RESOURCES
from kexplain.suggest.change import pointer
from kexplain.suggest.context import Context

SAMPLE_NODES = 40          # rejected nodes whose device facts are read

Facts = Mapping[str, Any]


def dra_nodes(ctx: Context) -> list[str]:
    """The nodes DynamicResources rejects, in visiting order."""
    return [n for n, b in ctx.blocked.items() if DYNAMIC_RESOURCES in b]


def node_facts(ctx: Context, nodes: list[str]) -> dict[str, Facts]:
    """node -> DynamicResources' explain facts, for the first SAMPLE_NODES of `nodes`."""
    sample = frozenset(nodes[:SAMPLE_NODES])
    if not sample:
        return {}
    options = replace(ctx.options.plain(), details=True, explain_nodes=sample, preemption=False, filter_all=False)
    details = explain(ctx.inputs, options).extra.get("details") or {}
    out = {}
    for name in nodes[:SAMPLE_NODES]:
        facts = (((details.get("nodes") or {}).get(name) or {}).get("plugins") or {}).get(DYNAMIC_RESOURCES)
        if isinstance(facts, Mapping) and "claims" in facts:
            out[name] = facts
    return out


@dataclass(frozen=True)
class ClaimSource:
    """Where a claim's spec is edited: the ResourceClaim itself, or the template it is made from."""

    claim: str                      # namespace/name of the claim the scheduler reads
    kind: str                       # ResourceClaim or ResourceClaimTemplate
    namespace: str
    name: str
    prefix: tuple[str, ...]         # the path to the claim spec's `devices` within the object

    @property
    def ref(self) -> dict[str, str]:
        return {"kind": self.kind, "namespace": self.namespace, "name": self.name}

    @property
    def label(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}"

    def field(self, *tokens: Any) -> str:
        """`spec.devices.requests[0].exactly.count` for tokens ("requests", 0, "exactly", "count")."""
        out = ".".join(self.prefix[1:] if self.prefix and self.prefix[0] == "" else self.prefix)
        for t in tokens:
            out += f"[{t}]" if isinstance(t, int) else f".{t}"
        return out

    def path(self, *tokens: Any) -> str:
        return pointer(*self.prefix, *tokens)

    def op(self, op: str, *tokens: Any, value: Any = None) -> dict[str, Any]:
        out: dict[str, Any] = {"op": op, "object": self.ref, "path": self.path(*tokens)}
        if op != "remove":
            out["value"] = value
        return out


def claim_source(pod: PodInfo, claim_key: str) -> ClaimSource | None:
    """The object to edit for one of the pod's claims."""
    for entry in pod.spec.get("resourceClaims") or ():
        try:
            name, _ = claim_name(pod, entry)
        except ClaimLookupError:
            continue
        if name is None or f"{pod.namespace}/{name}" != claim_key:
            continue
        template = entry.get("resourceClaimTemplateName")
        if template is not None:
            return ClaimSource(claim_key, "ResourceClaimTemplate", pod.namespace, str(template),
                               ("spec", "spec", "devices"))
        return ClaimSource(claim_key, "ResourceClaim", pod.namespace, name, ("spec", "devices"))
    return None


def request_index(ctx: Context, claim_key: str, request: str) -> tuple[int, int | None] | None:
    """(index in spec.devices.requests, index in its firstAvailable or None) of a request
    named `name` or `name/sub`, read from the claim object."""
    base, _, sub = request.partition("/")
    claim = claim_object(ctx, claim_key)
    if claim is None:
        return None
    for i, r in enumerate(((claim.get("spec") or {}).get("devices") or {}).get("requests") or ()):
        if r.get("name") != base:
            continue
        if not sub:
            return i, None
        for j, s in enumerate(r.get("firstAvailable") or ()):
            if s.get("name") == sub:
                return i, j
    return None


def request_tokens(index: tuple[int, int | None]) -> tuple[Any, ...]:
    """The path tokens of a request's exact part within `devices`."""
    i, j = index
    return ("requests", i, "exactly") if j is None else ("requests", i, "firstAvailable", j)


def claim_object(ctx: Context, key: str) -> dict[str, Any] | None:
    ns, _, name = key.partition("/")
    return next((c for c in ctx.snapshot.of_kind("ResourceClaim")
                 if (c.get("metadata") or {}).get("name") == name
                 and ((c.get("metadata") or {}).get("namespace") or "default") == ns), None)


def pending_requests(facts: Facts) -> Iterator[tuple[str, Facts]]:
    """(claim key, request facts) for every exact request (and subrequest) of the claims to allocate."""
    for claim in facts.get("claims") or ():
        if claim.get("allocated"):
            continue
        for r in claim.get("requests") or ():
            for req in r.get("subrequests") or (r,):
                yield str(claim.get("claim")), req


def claim_pods(ctx: Context, claim_key: str) -> list[PodInfo]:
    """The bound pods that use a claim: they name it, or its reservedFor lists them."""
    claim = claim_object(ctx, claim_key) or {}
    reserved = {str(r.get("uid") or "") for r in (claim.get("status") or {}).get("reservedFor") or ()}
    out = []
    for ni in ctx.snapshot.node_infos:
        for pod in ni.pods:
            if pod.uid in reserved or _names_claim(pod, claim_key):
                out.append(pod)
    return out


def _names_claim(pod: PodInfo, claim_key: str) -> bool:
    for entry in pod.spec.get("resourceClaims") or ():
        try:
            name, _ = claim_name(pod, entry)
        except ClaimLookupError:
            continue
        if name is not None and f"{pod.namespace}/{name}" == claim_key:
            return True
    return False
