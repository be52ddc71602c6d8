"""Shape keys: the one way kexplain tells that values, and pods, are alike, so that work on 150,000 pods
is done once per kind of pod (tests/model/test_shapes.py fails on a second key). `shape_key` is
msgspec MessagePack bytes: equal exactly when values and their types are (`1 == 1.0 == True` would
not do); None when unencodable. Each projection leaves out only what none of its consumers reads;
nothing is cached on the pod (Karpenter relaxes specs in place). Details: docs/internals/model.md.
"""
from __future__ import annotations

from itertools import compress
from operator import attrgetter
from typing import Any, Mapping

import msgspec
from msgspec import UNSET, Raw, Struct, UnsetType

from kexplain.apimachinery.stored_pods import PodView, StoredPod, resize_text

_encode = msgspec.msgpack.Encoder().encode
# The texts of a stored pod's spec fields its facts are worked out from, in C (`stored_facts_key`).
_FACT_TEXTS = attrgetter("affinity", "resources", "overhead", "initContainers", "containers")
_JOIN = b"\0".join
_AFFINITY = attrgetter("affinity")
_CONTAINER_STATUSES, _INIT_STATUSES = attrgetter("containerStatuses"), attrgetter("initContainerStatuses")

# Metadata that names one pod and decides nothing about where it goes (`pending_key`).
IDENTITY = frozenset({"name", "uid", "creationTimestamp", "resourceVersion", "managedFields", "generation",
                      "selfLink"})
# The pod status fields plugins read (DRA's claims made for the pod; `pending_key`).
READ_STATUS = ("resourceClaimStatuses", "extendedResourceClaimStatus")
# The spec fields a pod's requests are made of (PodRequests; `requests_key`, `Plugin.pod_fields`).
REQUEST_FIELDS = ("resources", "overhead", "initContainers", "containers")
# What of a pod's spec Karpenter's suggestions group pods by (`want_key`).
WANT_FIELDS = ("nodeSelector", "affinity", "tolerations", "topologySpreadConstraints", "overhead", "resources",
               "priority", "resourceClaims", "hostNetwork")


def shape_key(value: Any) -> bytes | None:
    """Bytes equal for values equal with equal types and key orders; None when there are none."""
    try:
        return _encode(value)
    except (TypeError, ValueError, OverflowError, RecursionError):
        return None


def status_parts(status: Mapping, parts: list[object]) -> None:
    """Appends what a pod's requests read of its status (resized containers, infeasible resize); nothing,
    without a loop, for the common pod."""
    if type(status) is dict and "containerStatuses" not in status and "initContainerStatuses" not in status:
        return
    resized = False
    for key in ("containerStatuses", "initContainerStatuses"):
        for cs in status.get(key) or ():
            if cs.get("resources") is not None or cs.get("allocatedResources") is not None:
                parts.append((key, cs.get("name"), cs.get("resources"), cs.get("allocatedResources")))
                resized = True
    if resized:
        parts.append(status.get("conditions"))


def requests_key(spec: Mapping, status: Mapping | None = None) -> bytes | None:
    """What a pod's requests are made of, and with `status` its resized containers (Kubernetes'
    PodRequests reads the status, Karpenter's does not)."""
    try:
        parts: list[object] = [spec.get("resources"), spec.get("overhead"), _requested(spec.get("initContainers")),
                               _requested(spec.get("containers"))]
        if status is not None:
            status_parts(status, parts)
    except (AttributeError, TypeError):
        return None
    return shape_key(parts)


def _requested(containers: Any, named: bool = True) -> Any:
    """What requests read of a containers list: each one's name, resources and restart policy (not its image,
    which would make each workload a shape of its own); anything but a list of mappings as it is. Not
    `named`: without names, which only match a container to its resized status."""
    if type(containers) is not list:
        return containers
    read = _REQUESTED if named else _REQUESTED[1:]
    return [{k: c[k] for k in read if k in c} if type(c) is dict else c for c in containers]


_REQUESTED = ("name", "resources", "restartPolicy")      # what requests read of a container (`_requested`)
_CONTAINER_LISTS = ("initContainers", "containers")


def facts_key(pod: Any) -> bytes | None:
    """What `PodFacts` read; a `StoredPod` is keyed by its dump texts, never decoded (its key never equals
    a decoded pod's: speed only)."""
    obj = pod.obj
    if type(obj) is StoredPod:
        return stored_facts_key(pod.view, pod.namespace)
    spec = pod.spec
    try:
        affinity = spec.get("affinity")
        parts: list[object] = [pod.namespace if affinity else None, affinity, spec.get("resources"),
                               spec.get("overhead"), spec.get("initContainers"), spec.get("containers")]
        status_parts(pod.status, parts)
    except (AttributeError, TypeError):
        return None
    return shape_key(parts)


class _FactContainer(Struct, omit_defaults=True):
    """What `PodFacts` read of a container: its requests and restart policy, its host ports, and the name
    a resize is reported by. Its mounts, environment and image are left out: a pod's own volume name
    (`kube-api-access-x7k2p`, in every pod since Kubernetes 1.22) must not make each pod a shape."""

    name: Raw | UnsetType = UNSET
    resources: Raw | UnsetType = UNSET
    restartPolicy: Raw | UnsetType = UNSET
    ports: Raw | UnsetType = UNSET


class _FactAffinity(Struct, omit_defaults=True):
    """What `PodFacts` read of an affinity: a DaemonSet's pods each carry a node affinity for their own node."""

    podAffinity: Raw | UnsetType = UNSET
    podAntiAffinity: Raw | UnsetType = UNSET


_encode_json = msgspec.json.Encoder().encode
_CUTS = (msgspec.json.Decoder(_FactAffinity).decode, msgspec.json.Decoder(list[_FactContainer]).decode)
_AFFINITY_CUT, _CONTAINERS_CUT = 0, 1
_NO_POD_AFFINITY = _encode_json(_FactAffinity())
_CUT: tuple[dict[bytes, bytes], ...] = ({}, {})     # per cut: a text -> what `PodFacts` read of it (bounded)
_CUT_MAX = 4096


def _cut(text: Raw, which: int) -> bytes:
    """An affinity's or containers' `text` cut to what `PodFacts` read (`_FactAffinity`, `_FactContainer`)
    in C, empty when that is nothing; as written when it is no such value (a cut text is one: they never
    meet)."""
    if not text:
        return b""
    written = bytes(text)
    memo = _CUT[which]
    cut = memo.get(written)
    if cut is None:
        try:
            cut = _encode_json(_CUTS[which](written))
        except msgspec.DecodeError:
            cut = written
        if cut == _NO_POD_AFFINITY and which == _AFFINITY_CUT:
            cut = b""
        if len(memo) < _CUT_MAX:
            memo[written] = cut
    return cut


def _fact_texts(spec: Any) -> tuple[bytes, bytes]:
    """A stored pod's spec texts its facts are worked out from, NUL-joined and each cut (`_cut`), and the
    affinity's cut (empty without pod (anti-)affinity)."""
    affinity, resources, overhead, init, containers = _FACT_TEXTS(spec)
    affinity = _cut(affinity, _AFFINITY_CUT)
    return _JOIN((affinity, resources, overhead, _cut(init, _CONTAINERS_CUT), _cut(containers, _CONTAINERS_CUT))), \
        affinity


def stored_facts_key(view: PodView, namespace: str) -> bytes:
    """`facts_key` of a stored pod (`view`, bound: it has a spec) in `namespace`: the common pod's (no pod
    affinity, no resized container) is its texts NUL-joined, which begin with a NUL (no MessagePack array
    does), the others' a MessagePack tuple."""
    spec, status = view.spec, view.status
    texts, affinity = _fact_texts(spec)
    if affinity:
        return _encode((namespace, texts, resize_text(status)))
    if status is None or not (status.containerStatuses or status.initContainerStatuses):
        return texts
    resized = resize_text(status)
    return _encode((None, texts, resized)) if resized else texts


def stored_spec_facts_key(spec: Any) -> bytes:
    """What a stored pod's spec (`PodView.spec`) alone decides of its facts, status and namespace left out:
    Karpenter's requests, host ports and whether it has required anti-affinity read neither (a served pod's
    resize text, `stored_facts_key`'s, is each pod's own work to read)."""
    return _fact_texts(spec)[0]


def stored_facts_keys(views: list[PodView], specs: list[Any], statuses: list[Any], namespaces: list[str]) -> list[bytes]:
    """`stored_facts_key` of each stored pod (`views`, with their specs, statuses and namespaces), the common
    pod's made in C over them all: its texts as written, each distinct one then cut once (`_fact_texts`)."""
    odd = set(compress(range(len(specs)), map(_AFFINITY, specs)))
    present = list(filter(None, statuses))
    if any(map(_CONTAINER_STATUSES, present)) or any(map(_INIT_STATUSES, present)):
        odd.update(i for i, status in enumerate(statuses)
                   if status is not None and (status.containerStatuses or status.initContainerStatuses))
    if len(odd) == len(specs):          # (a kubectl dump's pods, each with its containers' statuses)
        return list(map(stored_facts_key, views, namespaces))
    written = list(map(_JOIN, map(_FACT_TEXTS, specs)))
    cut = {text: _fact_texts(spec)[0] for text, spec in dict(zip(written, specs)).items()}
    keys = list(map(cut.__getitem__, written))
    for i in odd:
        keys[i] = stored_facts_key(views[i], namespaces[i])
    return keys


def plugin_key(pod: Any) -> bytes | None:
    """The pod as the scheduler's (and Karpenter's) plugins read it on one node, its identity left out so a
    workload's copies share it."""
    parts: list[object] = [pod.namespace, pod.metadata.get("labels"), pod.spec]
    try:
        status_parts(pod.status, parts)
    except (AttributeError, TypeError):
        return None
    return shape_key(parts)


def fields_key(pod: Any, fields: tuple[str, ...]) -> bytes | None:
    """The pod as a node-local plugin that reads only these spec fields sees it (`Plugin.pod_fields`),
    with the status' resized containers when it reads containers (requests read them): shapes that
    differ elsewhere share that plugin's answers."""
    spec = pod.spec
    try:
        parts: list[object] = [spec.get(name) for name in fields]
        if "containers" in fields:
            status_parts(pod.status, parts)
        if fields == REQUEST_FIELDS:    # (of containers what requests read: the workloads of one size share)
            named = len(parts) > len(fields)        # (`status_parts` added a resized status: matched by name)
            for i, name in enumerate(fields):
                if name in _CONTAINER_LISTS:
                    parts[i] = _requested(spec.get(name), named)
    except (AttributeError, TypeError):
        return None
    return shape_key(parts)


def node_fit_key(pod: Any) -> bytes | None:
    """What Karpenter's per-node checks but topology read of a pod; None with claimed volumes (their zones
    are its own)."""
    spec = pod.spec
    for volume in spec.get("volumes") or ():
        if isinstance(volume, dict) and ("persistentVolumeClaim" in volume or "ephemeral" in volume):
            return None
    affinity = spec.get("affinity")
    return shape_key((pod.namespace, spec.get("tolerations"), _fitting(spec.get("containers")),
                      _fitting(spec.get("initContainers")), spec.get("overhead"), spec.get("resources"),
                      spec.get("nodeSelector"), affinity.get("nodeAffinity") if isinstance(affinity, dict) else affinity))


def _fitting(containers: Any) -> Any:
    """What the per-node checks read of containers: their resources (requests, an init container's restart
    policy) and ports (host ports); not names, images or mounts (a token volume's name is each pod's own)."""
    if not isinstance(containers, list):
        return containers
    return [(c.get("resources"), c.get("ports"), c.get("restartPolicy")) if isinstance(c, dict) else c
            for c in containers]


def pending_key(pod: Any) -> bytes | None:
    """All a pending pod's verdict reads besides the cluster (its identity left out); None when the verdict
    is its own (resource claims, ephemeral volumes, a nominated node)."""
    spec = pod.spec
    status = pod.status
    if spec.get("resourceClaims") or status.get("nominatedNodeName") or any(
            isinstance(v, dict) and v.get("ephemeral") for v in spec.get("volumes") or ()):
        return None
    meta = [(k, v) for k, v in pod.metadata.items() if k not in IDENTITY]
    meta.sort(key=_first)
    return shape_key((meta, spec, [status.get(k) for k in READ_STATUS]))


def want_key(pod: Any) -> bytes | None:
    """What Karpenter's fix suggestions group unplaced pods by (`WANT_FIELDS` and the requests), a
    replica's own names left out."""
    spec = pod.spec
    containers = [(c.get("resources"), c.get("ports"), c.get("restartPolicy"))
                  for key in ("initContainers", "containers") for c in spec.get(key) or () if isinstance(c, dict)]
    claims = [v for v in spec.get("volumes") or ()
              if isinstance(v, dict) and (v.get("persistentVolumeClaim") or v.get("ephemeral"))]
    return shape_key((pod.namespace, containers, claims, [spec.get(f) for f in WANT_FIELDS]))



# What no verdict or score Volcano's allocate keeps per shape (`volcano.plugins.memo`) reads of a task's pod:
# the task's own names and the pod's running; of a container only its requests, ports and restart policy.
TASK_UNSHAPED = frozenset(("hostname", "subdomain", "nodeName", "priorityClassName", "priority",
                           "preemptionPolicy", "schedulerName", "restartPolicy", "terminationGracePeriodSeconds",
                           "activeDeadlineSeconds", "serviceAccountName", "serviceAccount", "dnsPolicy",
                           "enableServiceLinks", "containers", "initContainers"))
TASK_CONTAINER_FIELDS = ("resources", "ports", "restartPolicy")
_TASK_STATUSES = ("containerStatuses", "initContainerStatuses")


def task_key(pod: Mapping[str, Any]) -> bytes | None:
    """A Volcano task's pod as the checks and plugins its allocate keeps verdicts for read it: its spec but
    for `TASK_UNSHAPED`, its containers' `TASK_CONTAINER_FIELDS` (and names, when a container status may be
    matched to them: requests read resized ones), its status."""
    spec = pod.get("spec") or {}
    status = pod.get("status") or {}
    named = any(status.get(key) for key in _TASK_STATUSES)
    fields = (*TASK_CONTAINER_FIELDS, "name") if named else TASK_CONTAINER_FIELDS
    shape = {k: v for k, v in spec.items() if k not in TASK_UNSHAPED}
    for key in ("initContainers", "containers"):
        shape[key] = [{k: c.get(k) for k in fields} if isinstance(c, dict) else c for c in spec.get(key) or ()]
    return shape_key((shape, status))

def _first(pair: tuple[str, Any]) -> str:
    return pair[0]
