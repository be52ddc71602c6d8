"""Quota fixes for a Workload short of quota (the quota checks of its last evaluation): raise
its ClusterQueue's nominalQuota by what is missing; raise (or drop) the borrowingLimit that
caps what it may borrow; raise a named lender's lendingLimit; put a ClusterQueue with the quota
unused in one cohort with it; cover a resource the ClusterQueue does not have."""
from __future__ import annotations

from typing import Any

from kexplain.apimachinery.quantity import parse
from kexplain.kueue.apis.conversion import cohort_field, cohort_of
from kexplain.kueue.resources import FlavorResource, resource_quantity_text, resource_value
from kexplain.suggest.change import pointer
from kexplain.suggest.kueue_context import Idea, KueueContext, find, ref

ID = "kueue-quota"
KINDS = ("raise-nominal-quota", "raise-borrowing-limit", "raise-lending-limit", "join-cohort", "cover-resource")
COHORT_NAME = "shared"          # the cohort a suggestion creates when neither queue is in one


def _quota_path(cq_obj: dict[str, Any], flavor: str, resource: str) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
    for i, rg in enumerate((cq_obj.get("spec") or {}).get("resourceGroups") or ()):
        for j, fq in enumerate(rg.get("flavors") or ()):
            if fq.get("name") != flavor:
                continue
            for k, rq in enumerate(fq.get("resources") or ()):
                if rq.get("name") == resource:
                    return ("spec", "resourceGroups", i, "flavors", j, "resources", k), rq
    return None


def ideas(ctx: KueueContext) -> list[Idea]:
    out: list[Idea] = []
    cq_name = ctx.entry.info.cluster_queue if ctx.entry is not None else ctx.cluster_queue
    cq_obj = find(ctx.inputs, "ClusterQueue", cq_name)
    if cq_obj is None:
        return out
    for _, q in ctx.short_checks():
        r = q.resource
        want = q.assumed + q.request
        short = want - q.available
        located = _quota_path(cq_obj, q.flavor, r)
        if located is None:
            continue
        path, _ = located
        base = {"clusterQueue": cq_name, "flavor": q.flavor, "resource": r}
        new = q.nominal + short
        out.append(Idea("raise-nominal-quota", {**base, "from": resource_quantity_text(r, q.nominal),
                                                "to": resource_quantity_text(r, new),
                                                "by": resource_quantity_text(r, short)},
                        ({"op": "replace", "object": ref(cq_obj), "path": pointer(*path, "nominalQuota"),
                          "value": resource_quantity_text(r, new)},)))
        lendable = sum(lender.lendable for lender in q.lenders)
        if q.borrowing_limit is not None and lendable:
            new_limit = q.borrowing_limit + short
            out.append(Idea("raise-borrowing-limit", {**base, "from": resource_quantity_text(r, q.borrowing_limit),
                                                      "to": resource_quantity_text(r, new_limit)},
                            ({"op": "replace", "object": ref(cq_obj), "path": pointer(*path, "borrowingLimit"),
                              "value": resource_quantity_text(r, new_limit)},)))
        for lender in q.lenders:
            if lender.kind != "ClusterQueue" or lender.unused <= lender.lendable:
                continue
            lender_obj = find(ctx.inputs, "ClusterQueue", lender.name)
            located_l = _quota_path(lender_obj, q.flavor, r) if lender_obj is not None else None
            if lender_obj is None or located_l is None or "lendingLimit" not in located_l[1]:
                continue
            current = _value(located_l[1]["lendingLimit"], r)
            new_lending = current + min(short, lender.unused - lender.lendable)
            out.append(Idea("raise-lending-limit", {**base, "lender": lender.name,
                                                    "from": resource_quantity_text(r, current),
                                                    "to": resource_quantity_text(r, new_lending)},
                            ({"op": "replace", "object": ref(lender_obj),
                              "path": pointer(*located_l[0], "lendingLimit"),
                              "value": resource_quantity_text(r, new_lending)},)))
        if not cohort_of(cq_obj):
            out.extend(_join_cohort(ctx, cq_obj, q.flavor, r, short, base))
    out.extend(_uncovered(ctx, cq_obj, cq_name))
    return out


def _value(raw: Any, resource: str) -> int:
    return resource_value(resource, parse(raw).value)


def _join_cohort(ctx: KueueContext, cq_obj: dict[str, Any], flavor: str, resource: str, short: int,
                 base: dict[str, Any]) -> list[Idea]:
    """A ClusterQueue with at least `short` of the quota unused joins one cohort with this one."""
    out = []
    for other in ctx.done.cache.cluster_queues.values():
        if other.name == base["clusterQueue"]:
            continue
        located = _quota_path(find(ctx.inputs, "ClusterQueue", other.name) or {}, flavor, resource)
        if located is None:
            continue
        fr = FlavorResource(flavor, resource)
        quota = other.resource_node.quotas.get(fr)
        unused = (quota.nominal if quota else 0) - other.resource_node.usage.get(fr, 0)
        if unused < short:
            continue
        other_obj = find(ctx.inputs, "ClusterQueue", other.name)
        cohort = cohort_of(other_obj) or COHORT_NAME
        ops = [{"op": "add", "object": ref(cq_obj), "path": f"/spec/{cohort_field(cq_obj)}", "value": cohort}]
        if not cohort_of(other_obj):
            ops.append({"op": "add", "object": ref(other_obj), "path": f"/spec/{cohort_field(other_obj)}",
                        "value": cohort})
        out.append(Idea("join-cohort", {**base, "lender": other.name, "cohort": cohort,
                                        "unused": resource_quantity_text(resource, unused)}, tuple(ops)))
    return out


def _uncovered(ctx: KueueContext, cq_obj: dict[str, Any], cq_name: str) -> list[Idea]:
    """A resource the ClusterQueue covers in no group, covered by its first group: the first flavor with
    the Workload's request as nominal quota, the others with none (a flavor is in one group only)."""
    out = []
    groups = (cq_obj.get("spec") or {}).get("resourceGroups") or ()
    if not groups or not (groups[0].get("flavors") or ()):
        return out
    flavors = groups[0]["flavors"]
    for i, t in ctx.trials():
        if t.skip != "uncovered" or ctx.entry is None:
            continue
        total = ctx.entry.info.total_requests[i].requests.get(t.resource, 0)
        ops = [{"op": "add", "object": ref(cq_obj), "path": "/spec/resourceGroups/0/coveredResources/-",
                "value": t.resource}]
        for j, _ in enumerate(flavors):
            amount = resource_quantity_text(t.resource, total if j == 0 else 0)
            ops.append({"op": "add", "object": ref(cq_obj), "path": f"/spec/resourceGroups/0/flavors/{j}/resources/-",
                        "value": {"name": t.resource, "nominalQuota": amount}})
        out.append(Idea("cover-resource", {"clusterQueue": cq_name, "flavor": flavors[0].get("name"),
                                           "resource": t.resource, "to": resource_quantity_text(t.resource, total)},
                        tuple(ops)))
    return out
