"""The pass as a document: the README's `expected-karpenter.json` shape, key for key."""
from __future__ import annotations

from collections import Counter
from typing import Any, Mapping, Sequence

from kexplain.karpenter.provisioning.provisioner import FAILED, PassResult
from kexplain.karpenter.provisioning.scheduling.scheduler import DRAError, NODEPOOLS_FILTERED_OUT
from kexplain.karpenter.errors import multierr_errors
from kexplain.karpenter.utils import resources

BUILD = ("sigs.k8s.io/karpenter v1.13.0 (github.com/openshift/kubernetes-sigs-karpenter 2b8ed744bf1c) in "
         "github.com/openshift/aws-karpenter-provider-aws abcf7d1e3417")


def error_parts(err: BaseException | None) -> list[str]:
    """The parts Karpenter joined with `; ` (multierr), each as its own text."""
    return [str(e) for e in multierr_errors(err)]


def _taint(t: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"key": t.get("key") or ""}
    if t.get("value"):
        out["value"] = t["value"]
    out["effect"] = t.get("effect") or ""
    if t.get("timeAdded"):
        out["timeAdded"] = t["timeAdded"]
    return out


def pod_document(result: Any, tried: Sequence[str]) -> dict[str, Any]:
    doc: dict[str, Any] = {"pod": result.pod.key, "result": result.result}
    for key, value in (("node", result.node), ("nodeClaim", result.node_claim), ("nodePool", result.node_pool)):
        if value:
            doc[key] = value
    if result.error is not None:
        doc["error"] = str(result.error)
        parts = error_parts(result.error)
        if len(parts) > 1:
            doc["errors"] = parts
        if result.result == FAILED and tried and len(parts) == len(tried) \
                and not isinstance(result.error, DRAError) and str(result.error) != NODEPOOLS_FILTERED_OUT:
            doc["nodePoolErrors"] = [{"nodePool": pool, "error": part} for pool, part in zip(tried, parts)]
    if result.why:
        doc["why"] = result.why
    return doc


def node_claim_document(created: Any, price_text: Any, type_index: Any, lists: dict[tuple, list[str]]) -> dict[str, Any]:
    """One `nodeClaims` entry; `lists`: the type names and price texts of the claims before, by
    their types' ids and their prices (hundreds of claims of a few shapes: worked out, and
    written, once)."""
    claim = created.claim
    doc: dict[str, Any] = {"name": created.name, "nodePool": claim.node_pool_name,
                           "pods": [p.key for p in claim.pods]}
    its = list(claim.instance_type_options)
    ids = ("names", *map(id, its))
    doc["instanceTypes"] = lists.get(ids) or lists.setdefault(ids, [it.name for it in its])
    prices = type_index.question(claim.requirements).cheapest_prices(its)
    key = ("prices", *prices) if 0 not in prices else ("claim", id(created))   # (0.0 == -0.0: they print apart)
    doc["prices"] = lists.get(key) or lists.setdefault(key, [price_text(price) for price in prices])
    obj = created.node_claim
    if obj:
        reqs = [r.to_dict() for r in obj["requirements"]]
        if reqs:
            doc["requirements"] = reqs
        if obj["requests"]:
            doc["requests"] = resources.to_json(obj["requests"])
        if obj["labels"]:
            doc["labels"] = dict(sorted(obj["labels"].items()))
        if obj["taints"]:
            doc["taints"] = [_taint(t) for t in obj["taints"]]
        if obj["startupTaints"]:
            doc["startupTaints"] = [_taint(t) for t in obj["startupTaints"]]
    if created.create_error is not None:
        doc["createError"] = str(created.create_error)
    return doc


def sorted_events(result: PassResult) -> list[dict[str, str]]:
    """Events on other objects first (object, reason, message), then the pods' (pod order, reason, message)."""
    order = {p.pod.key: i for i, p in enumerate(result.pods)}
    others = sorted((e for e in result.events if e.pod not in order), key=lambda e: (e.object, e.reason, e.message))
    pods = sorted((e for e in result.events if e.pod in order), key=lambda e: (order[e.pod], e.reason, e.message))
    return [e.to_json() for e in [*others, *pods]]


def build_document(result: PassResult, node_pools: list[dict[str, Any]], instance_types: dict[str, Any],
                   price_text: Any) -> dict[str, Any]:
    """The document; `price_text(price)` writes a price as the document does."""
    doc: dict[str, Any] = {"karpenter": BUILD}
    if result.schedule_error is not None:
        doc["scheduleError"] = str(result.schedule_error)
    doc["nodePools"] = node_pools
    doc["instanceTypes"] = instance_types
    doc["pods"] = [pod_document(p, result.tried_node_pools) for p in result.pods]
    lists: dict[tuple, list[str]] = {}
    doc["nodeClaims"] = [node_claim_document(c, price_text, result.type_index, lists) for c in result.node_claims]
    doc["events"] = sorted_events(result)
    counts = Counter(p.result for p in result.pods)
    doc["summary"] = {"pods": dict(sorted(counts.items())), "newNodeClaims": len(result.node_claims)}
    return doc
