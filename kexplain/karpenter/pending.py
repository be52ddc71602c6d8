"""Karpenter's adapter to the pending pass (`kexplain.explain.pending_pass`), as the Cluster
Autoscaler's is (`kexplain.autoscaler.pending`): ONE provisioning pass over everything Karpenter
would see pending, and from it each pending pod's answer (`PodAnswer`)."""
from __future__ import annotations

import operator
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from typing import Any, BinaryIO, Callable, Mapping, Sequence

from kexplain.apimachinery import columns
from kexplain.errors import Source
from kexplain.explain.pending_pass import PassAnswers, PendingPass, PendingPod, PodAnswer, creation_time, pod_ref
from kexplain.explain.pods_file_pass import pods_file_pass
from kexplain.features import KubeVersion
from kexplain.karpenter.inputs import (CLOCK, PENDING_AGE, PassInputs, check_uids, joined, pass_of,
                                       pass_of_state, stored_bound, stored_pending)
from kexplain.karpenter.params import read_settings
from kexplain.karpenter.request import NodePoolsRequest
from kexplain.load.gcpolicy import bulk_load
from kexplain.load.manifests import load_objects
from kexplain.model.pod import PodInfo

KARPENTER = "Karpenter"         # the autoscaler's name in a pod's answers
DOCUMENT_KEY = "karpenter"      # where its document goes in -o json
PLACED = ("NewNodeClaim", "ExistingNode")
TYPES_SHOWN = 5                 # a new NodeClaim's cheapest instance types in a pod's answer


def load_world(aws_data: str | None) -> Any:
    """The EC2 world: `--aws-data DIR` (the AWS CLI's JSON), else the shipped catalog."""
    # lazy: the provider's world only when a pass runs (docs/development.md, "Lazy imports")
    from kexplain.karpenter.aws.world import catalog_world, load_world as world_of
    return world_of(aws_data) if aws_data else catalog_world()


def load_node_pools(req: NodePoolsRequest, kube: KubeVersion, now: datetime | None = None,
                    applied: PendingPass | None = None) -> tuple[PassInputs, Any]:
    """The pass's inputs (the cluster's own pending pods; `applied`'s set in the cluster) and the EC2
    world, the settings checked against it; a cluster state is never admitted again."""
    settings = read_settings(req.config, req.max_bytes)
    now = now or req.now or datetime.now(timezone.utc)
    if req.state is not None and not req.state.stored:     # (stored: the pass admits what the state did not)
        inputs = pass_of_state(req.state, settings, validate=req.validate, now=now, **_layers(applied))
    else:
        objects = _as_read(req)
        cluster = applied.applied_to(objects) if applied is not None else objects
        inputs = pass_of(cluster, settings, kube, validate=req.validate, now=now)
    if inputs.refused:          # an object the API server refuses: bad input, as a misspelled field is
        raise inputs.refused[0]
    world = load_world(req.aws_data)
    settings.check_world(world.instance_types, world.zones(), Source(req.config) if req.config else None)
    return inputs, world


def _as_read(req: NodePoolsRequest) -> list:
    """The request's cluster objects, as a dump (`columns.Dump`) when they are plain objects: its rows
    made once, the checks and admission of `pass_of` ask them, not each of 150,000 objects (the report
    hands the pass a plain list of its dump's objects; the inputs are those of the list alike)."""
    objects = req.cluster_objects
    if columns.rows_of(objects) is not None:
        return objects.same()       # type: ignore[attr-defined,no-any-return]
    objects = list(objects)
    rows = columns.Rows.read(map(operator.itemgetter(0), objects))
    return columns.Dump(objects, rows) if rows is not None and rows.plain and len(rows) == len(objects) else objects


def _layers(applied: PendingPass | None) -> dict[str, Any]:
    """What a pending pass layers on a cluster state (`pass_of_state`'s arguments): its set's
    objects, what controllers create unless it exists, its preemptions' victims."""
    if applied is None:
        return {}
    return {"set_objects": list(applied.objects), "created": list(applied.created), "victims": applied.victims}


def load_pods_pass(pods_path: str | None, node_paths: tuple[str, ...], settings_path: str | None, kube: KubeVersion,
                   *, max_bytes: int, max_objects: int, validate: str = "strict", now: datetime = CLOCK,
                   stdin: BinaryIO | None = None, namespace: str | None = None, objects: list | None = None,
                   release: str | None = None) -> tuple[PassInputs, PendingPass | None]:
    """`kexplain karpenter PODS`'s pass (`kexplain.explain.pods_file_pass`), and the merged pass when
    the file held workloads (None otherwise). `namespace`: -n, for PODS; `objects`: the cluster read
    already (live: `kexplain.app.karpenter_live`), with the files of `node_paths` after it; `release`:
    the Karpenter release whose CRDs admit its objects (--karpenter-version; default v1.13.0)."""
    settings = read_settings(settings_path, max_bytes)
    if release is not None:
        settings = replace(settings, release=release)
    with bulk_load():
        pod_objs = load_objects([pods_path], max_bytes, stdin, max_objects=max_objects,
                                namespace=namespace) if pods_path else []
        cluster = load_objects(node_paths, max_bytes, stdin, max_objects=max_objects) if node_paths else []
        cluster = [*objects, *cluster] if objects is not None else cluster
    found = pods_file_pass(pods_path or "", pod_objs, cluster, kube, max_bytes=max_bytes, max_objects=max_objects,
                           validate=validate)
    pp = found.pending_pass
    if found.state is not None:         # workloads: the state they were scheduled against
        inputs = pass_of_state(found.state, settings, validate=validate, now=now, given=found.pods, **_layers(pp))
    else:           # Pods alone: defaulted, then admitted once with the cluster (the README's order)
        applied = pp.applied_to(cluster) if pp is not None else cluster
        inputs = pass_of(joined(found.pods, applied), settings, kube, validate=validate, now=now)
    inputs.warnings[:0] = found.warnings
    if not found.workloads:
        return inputs, None
    assert pp is not None
    return pass_over(inputs, pp)


def pass_over(inputs: PassInputs, pp: PendingPass) -> tuple[PassInputs, PendingPass]:
    """`inputs` with the pass's pods (every pending pod, stored as unschedulable; the set's copies
    that fit bound), and the merged pass."""
    merged = existing_made(pp, inputs.pending).with_cluster_pending(inputs.pending)
    own = {id(p) for p in inputs.pending}
    pending: list[PodInfo] = []
    for i, p in enumerate(one_per_name(merged.pending)):
        if id(p.pod) in own:
            pending.append(p.pod)       # read from the cluster: defaulted already
        else:
            pending.append(PodInfo(stored_pending(p.pod.obj, p.created or inputs.now - PENDING_AGE
                                                  + timedelta(seconds=i))))
    check_uids(pending)
    bound = [PodInfo(stored_bound(p.obj, inputs.now)) for p in pp.bound]
    return replace(inputs, pending=pending, bound_pods=[*inputs.bound_pods, *bound],
                   warnings=list(inputs.warnings)), merged


def existing_made(pp: PendingPass, cluster_pending: Sequence[PodInfo]) -> PendingPass:
    """The pass with each copy a controller would make that the cluster holds already as the pod
    the cluster holds (its uid and creation time kept)."""
    held = {p.key: p for p in cluster_pending}
    if not any(p.key in held and _controller_made(p) for p in pp.pending):
        return pp
    pending = tuple(replace(p, pod=held[p.key], created=creation_time(held[p.key]))
                    if p.key in held and _controller_made(p) else p for p in pp.pending)
    return replace(pp, pending=pending)


def one_per_name(pods: Sequence[PendingPod]) -> list[PendingPod]:
    """Each pending pod once, as the API server holds one Pod per namespace and name (the pod given
    wins over its controller's copy), in the pass's order."""
    chosen: dict[str, PendingPod] = {}
    for p in pods:
        held = chosen.get(p.key)
        if held is None or (_controller_made(held) and not _controller_made(p)):
            chosen[p.key] = p
    return [p for p in pods if chosen[p.key] is p]


def _controller_made(p: PendingPod) -> bool:
    """A copy of a workload (made from its template), not a Pod the input gives."""
    return p.copy is not None or bool(p.stands_for) and p.stands_for != pod_ref(p.pod)


# The verified suggestions of a pass (`kexplain.suggest.karpenter`, a higher layer, given by the
# caller): (the inputs, the world, the pass run, its document) -> the suggestions, or None.
Suggest = Callable[[PassInputs, Any, Any, Mapping[str, Any]], "list[dict[str, Any]] | None"]


def run_pass(inputs: PassInputs, world: Any, pp: PendingPass, *, suggest: Suggest | None = None,
             every_pod: bool = False) -> tuple[PassInputs, PendingPass, PassAnswers]:
    """ONE provisioning pass (`pass_over`): inputs, pass, Karpenter's answers, verified suggestions."""
    # lazy: the provisioner only when a pass runs (docs/development.md, "Lazy imports")
    from kexplain.karpenter.run import EXPLAIN_ALL, EXPLAIN_UNPLACED, document, schedule

    inputs, merged = pass_over(inputs, pp)
    done = schedule(inputs, world)
    doc = document(done, explain=EXPLAIN_ALL if every_pod else EXPLAIN_UNPLACED)
    if suggest is not None:
        found = suggest(inputs, world, done, doc)
        if found is not None:
            doc["suggestions"] = found
    if inputs.warnings:
        doc["warnings"] = list(dict.fromkeys(inputs.warnings))
    doc = without_listings(doc)
    answers = {str(p.get("pod")): pod_answer(p, doc) for p in doc.get("pods") or ()}
    return inputs, merged, PassAnswers(KARPENTER, DOCUMENT_KEY, doc, answers)


def without_listings(doc: dict[str, Any]) -> dict[str, Any]:
    """The document without the provider's listings (`instanceTypes`, `nodePools[].instanceTypes`),
    which repeat the EC2 world for every pod; `kexplain karpenter -o json` prints them."""
    out = {k: v for k, v in doc.items() if k != "instanceTypes"}
    out["nodePools"] = [{k: v for k, v in p.items() if k != "instanceTypes"} for p in doc.get("nodePools") or ()]
    return out


def pod_answer(record: Mapping[str, Any], doc: Mapping[str, Any]) -> PodAnswer:
    """A pod's answer from its record in the pass's document: Karpenter's result, the reasons, its
    NodeClaim, its explanation and the suggestions that place it."""
    result = str(record.get("result") or "")
    key = str(record.get("pod") or "")
    detail: dict[str, Any] = {k: v for k, v in record.items() if k not in ("pod", "result")}
    reasons: list[str]
    claim = next((c for c in doc.get("nodeClaims") or () if c.get("name") == record.get("nodeClaim")), None)
    if result in PLACED:
        reasons = [placed_words(record, claim)]
        if claim is not None and result == "NewNodeClaim":
            detail["newNodeClaim"] = claim
    else:
        errors = record.get("nodePoolErrors")
        reasons = [f"NodePool {e['nodePool']}: {e['error']}" for e in errors] if errors else \
            list(record.get("errors") or [t for t in (record.get("error"), record.get("why")) if t])
    explained = next((e for e in (doc.get("explained") or {}).get("pods") or () if e.get("pod") == key), None)
    if explained is not None:
        detail["explained"] = explained
    fixes = [s for s in doc.get("suggestions") or () if key in (s.get("pods") or ())]
    if fixes:
        detail["suggestions"] = fixes
    return PodAnswer(KARPENTER, key, result, tuple(reasons), detail)


def placed_words(record: Mapping[str, Any], claim: Mapping[str, Any] | None) -> str:
    """Where Karpenter puts a pod: an existing node or in-flight NodeClaim, or a new NodeClaim
    from its NodePool with its cheapest instance types ($/hour)."""
    if record.get("result") == "ExistingNode":
        if record.get("node"):
            return f"existing node {record['node']}"
        return f"in-flight NodeClaim {record.get('nodeClaim', '')}"
    words = f"new NodeClaim {record.get('nodeClaim', '')} from NodePool {record.get('nodePool', '')}"
    if claim is None:
        return words
    pairs = [f"{t} ${p}" for t, p in zip(claim.get("instanceTypes") or (), claim.get("prices") or ())]
    more = len(pairs) - TYPES_SHOWN
    cheapest = ", ".join(pairs[:TYPES_SHOWN]) + (f" and {more} more" if more > 0 else "")
    return f"{words}: {cheapest}" if cheapest else words
