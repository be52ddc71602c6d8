"""Fixes on the Workload's own object (the Job, Pod, JobSet or Workload submitted): lower a request by what is
missing, let Kueue admit fewer pods (a Job's `kueue.x-k8s.io/job-min-parallelism`, a Workload's minCount),
tolerate a flavor's taint, or name another LocalQueue whose ClusterQueue has room."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.kueue.apis.constants import JOB_MIN_PARALLELISM_ANNOTATION
from kexplain.kueue.resources import resource_quantity_text, resource_value
from kexplain.apimachinery.quantity import QuantityError, parse
from kexplain.suggest.change import pointer
from kexplain.suggest.kueue_context import Idea, KueueContext, ref

ID = "kueue-workload"
KINDS = ("lower-request", "partial-admission", "tolerate-flavor-taint", "other-local-queue")


def _at(obj: Mapping[str, Any], path: tuple[Any, ...]) -> Any:
    node: Any = obj
    for tok in path:
        if isinstance(node, list) and isinstance(tok, int) and tok < len(node):
            node = node[tok]
        elif isinstance(node, Mapping) and tok in node:
            node = node[tok]
        else:
            return None
    return node


def ideas(ctx: KueueContext) -> list[Idea]:
    if ctx.owner is None or ctx.entry is None:
        return _other_queues(ctx)
    out: list[Idea] = []
    for i, q in ctx.short_checks():
        total = ctx.entry.info.total_requests[i] if i < len(ctx.entry.info.total_requests) else None
        if total is None or total.count <= 0:
            continue
        short = q.assumed + q.request - q.available
        out.extend(_lower_request(ctx, i, q.resource, short, total.count))
        out.extend(_partial(ctx, i, q.resource, short, total))
    out.extend(_tolerations(ctx))
    out.extend(_other_queues(ctx))
    return out


def _lower_request(ctx: KueueContext, i: int, resource: str, short: int, count: int) -> list[Idea]:
    """The largest container's request of the resource, each pod lower by its share of what
    is missing (rounded up)."""
    path = ctx.template_path(i)
    spec = _at(ctx.owner, path) if path is not None and ctx.owner is not None else None
    if not isinstance(spec, Mapping):
        return []
    cut = -(-short // count)
    best = None
    for c, container in enumerate(spec.get("containers") or ()):
        raw = ((container.get("resources") or {}).get("requests") or {}).get(resource)
        try:
            amount = resource_value(resource, parse(raw).value) if raw is not None else 0
        except QuantityError:
            continue
        if amount > cut and (best is None or amount > best[1]):
            best = (c, amount)
    if best is None:
        return []
    c, amount = best
    new = resource_quantity_text(resource, amount - cut)
    name = str((spec["containers"][c] or {}).get("name") or c)
    return [Idea("lower-request", {"object": _described(ctx), "podSet": ctx.entry.info.total_requests[i].name,
                                   "container": name, "resource": resource,
                                   "from": resource_quantity_text(resource, amount), "to": new},
                 ({"op": "replace", "object": ref(ctx.owner),
                   "path": pointer(*path, "containers", c, "resources", "requests", resource), "value": new},))]


def _partial(ctx: KueueContext, i: int, resource: str, short: int, total: Any) -> list[Idea]:
    """Partial admission: as many pods as fit (a Job's min-parallelism; a Workload's minCount)."""
    per_pod = total.requests.get(resource, 0) // total.count if total.count else 0
    if per_pod <= 0:
        return []
    fits = total.count - -(-short // per_pod)
    if fits < 1 or fits >= total.count:
        return []
    values = {"object": _described(ctx), "podSet": total.name, "count": total.count, "minCount": fits}
    if ctx.owner_kind == "Job":
        return [Idea("partial-admission", values,
                     ({"op": "add", "object": ref(ctx.owner),
                       "path": pointer("metadata", "annotations", JOB_MIN_PARALLELISM_ANNOTATION), "value": str(fits)},))]
    if ctx.owner_kind == "Workload":
        return [Idea("partial-admission", values,
                     ({"op": "add", "object": ref(ctx.owner), "path": pointer("spec", "podSets", i, "minCount"),
                       "value": fits},))]
    return []


def _tolerations(ctx: KueueContext) -> list[Idea]:
    out = []
    seen = set()
    for i, t in ctx.trials():
        if t.skip != "taint" or t.taint is None or (i, t.flavor) in seen:
            continue
        seen.add((i, t.flavor))
        path = ctx.template_path(i)
        if path is None:
            continue
        taint = t.taint
        toleration: dict[str, Any] = {"key": taint.get("key"), "operator": "Equal" if taint.get("value") else "Exists",
                                      "effect": taint.get("effect")}
        if taint.get("value"):
            toleration["value"] = taint.get("value")
        out.append(Idea("tolerate-flavor-taint", {"object": _described(ctx), "flavor": t.flavor,
                                                  "taint": {k: taint.get(k) for k in ("key", "value", "effect")
                                                            if taint.get(k)}},
                        ({"op": "add", "object": ref(ctx.owner), "path": pointer(*path, "tolerations", "-"),
                          "value": toleration},)))
    return out


def _other_queues(ctx: KueueContext) -> list[Idea]:
    """Every other LocalQueue of the namespace that is not stopped, its ClusterQueue active."""
    out = []
    ns = ctx.workload.meta.namespace
    for lq in ctx.inputs.local_queues:
        if lq.meta.namespace != ns or lq.meta.name == ctx.workload.spec.queue_name or lq.stopped:
            continue
        if not ctx.done.cache.active(lq.cluster_queue):
            continue
        op = ctx.queue_label_op(lq.meta.name)
        if op is not None:
            out.append(Idea("other-local-queue", {"object": _described(ctx), "localQueue": lq.meta.name,
                                                  "clusterQueue": lq.cluster_queue}, (op,)))
    return out


def _described(ctx: KueueContext) -> str:
    r = ref(ctx.owner) if ctx.owner is not None else {"kind": "Workload", "name": ctx.workload.meta.name}
    return f"{r['kind']} {r.get('namespace', '')}/{r['name']}".replace(" /", " ")
