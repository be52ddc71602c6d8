"""Redacting a snapshot so it can be attached to a bug report and still replay the same verdict.

Names, label values, taint values and images become tokens numbered in order of first appearance,
one map for every string, so equal stays equal and selectors select what they selected; each kind
keeps only the fields the scheduler reads. What is kept and why: docs/internals/load.md.
"""
from __future__ import annotations

import re
from typing import Any, Callable

from kexplain.apimachinery import labels as well_known
from kexplain.model.images import normalized_image_name

Obj = dict[str, Any]

KEEP_VALUES = frozenset({
    "", "true", "false", "True", "False",
    "linux", "windows", "amd64", "arm64", "arm", "386", "ppc64le", "s390x", "riscv64",
    "default", "kube-system", "kube-public", "kube-node-lease", "default-scheduler",
    "system-node-critical", "system-cluster-critical",
})
KEEP_VALUE_LABELS = frozenset({
    well_known.LABEL_OS, well_known.LABEL_ARCH, well_known.LABEL_OS_BETA, well_known.LABEL_ARCH_BETA,
    well_known.LABEL_INSTANCE_TYPE, well_known.LABEL_INSTANCE_TYPE_BETA,
})
MULTI_ZONE_DELIMITER = well_known.LABEL_MULTI_ZONE_DELIMITER
INTEGER = re.compile(r"^[+-]?\d+$")

KEEP_ANNOTATIONS = frozenset({
    *well_known.DEFAULT_STORAGE_CLASS_ANNOTATIONS,
    well_known.ANN_STORAGE_PROVISIONER, well_known.ANN_BETA_STORAGE_PROVISIONER,
    well_known.ANN_BIND_COMPLETED, well_known.ANN_BOUND_BY_CONTROLLER,
    well_known.ANN_PROVISIONED_BY, well_known.ANN_MIGRATED_TO,
    well_known.ANN_MIGRATED_PLUGINS,
})
POD_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/pod-claim-name"
NAME_ANNOTATIONS = {well_known.ANN_BETA_STORAGE_CLASS: "sc", well_known.ANN_SELECTED_NODE: "node",
                    POD_CLAIM_NAME_ANNOTATION: "claim"}

# Keys of volume sources whose values are kinds of things, not names: kept.
KEEP_SOURCE_KEYS = frozenset({
    "driver", "fsType", "type", "kind", "readOnly", "partition", "lun", "cachingMode", "medium",
    "sizeLimit", "iscsiInterface", "chapAuthDiscovery", "chapAuthSession", "defaultMode", "mode",
    "optional", "expirationSeconds", "storagePolicyName", "protocol",
})

NAME_PREFIX = {
    "Namespace": "ns", "Node": "node", "Pod": "pod", "PersistentVolumeClaim": "pvc",
    "PersistentVolume": "pv", "StorageClass": "sc", "CSINode": "node", "PodDisruptionBudget": "pdb",
    "PriorityClass": "pc", "RuntimeClass": "rc", "Service": "svc", "ReplicaSet": "rs",
    "StatefulSet": "sts", "ReplicationController": "rcon", "Deployment": "deploy", "DaemonSet": "ds",
    "Job": "job", "CronJob": "cronjob", "DeviceClass": "dc", "ResourceSlice": "slice", "ResourceClaim": "claim",
    "ResourceClaimTemplate": "claim",
}


class Redactor:
    """Redacts objects consistently; `mapping` is the key back (token -> original)."""

    def __init__(self) -> None:
        self._tokens: dict[str, str] = {}
        self._images: dict[str, str] = {}
        self._counters: dict[str, int] = {}
        self._keep: set[str] = set(KEEP_VALUES)

    # -- the token map -------------------------------------------------------------------
    def _new(self, prefix: str) -> str:
        self._counters[prefix] = self._counters.get(prefix, 0) + 1
        return f"{prefix}-{self._counters[prefix]}"

    def token(self, value: Any, prefix: str = "v") -> Any:
        """The token of a string (numbers, kept values and non-strings pass through)."""
        if not isinstance(value, str) or value in self._keep or INTEGER.match(value):
            return value
        if value not in self._tokens:
            self._tokens[value] = self._new(prefix)
        return self._tokens[value]

    def name(self, kind: str) -> Callable[[Any], Any]:
        prefix = NAME_PREFIX.get(kind, "obj")
        return lambda value: self.token(value, prefix)

    def image(self, image: Any, on_node: bool = False) -> Any:
        """Pod images are compared after normalisation (":latest" added to an untagged name)
        with node image names as reported; the tokens keep that relation."""
        if not isinstance(image, str) or not image:
            return image
        norm = normalized_image_name(image)
        key = image if on_node else norm
        if on_node and norm != image:      # an untagged node image name never matches a pod
            key = "\x00untagged\x00" + image
        if key not in self._images:
            n = len(self._images) + 1
            self._images[key] = f"img-{n}" if key.startswith("\x00") else f"img-{n}:redacted"
        return self._images[key]

    @property
    def mapping(self) -> dict[str, str]:
        out = {token: original for original, token in self._tokens.items()}
        for original, token in self._images.items():
            out[token] = original.split("\x00")[-1]
        return out

    # -- objects -------------------------------------------------------------------------
    def prepare(self, objects: list[Obj]) -> None:
        """Look at everything to be redacted first: the values kept, and readable tokens for
        the names that recur most (namespaces, then nodes)."""
        self._collect_kept_values(objects)
        for kind in ("Namespace", "Node"):
            for obj in objects:
                if obj.get("kind") == kind:
                    self.token(_meta(obj).get("name"), NAME_PREFIX[kind])

    def _collect_kept_values(self, objects: list[Obj]) -> None:
        """Zone and region names, operating systems, architectures and instance types stay."""
        for obj in objects:
            for key, value in (_meta(obj).get("labels") or {}).items():
                if isinstance(value, str) and (is_topology_key(key) or key in KEEP_VALUE_LABELS):
                    self._keep.update(part.strip() for part in value.split(MULTI_ZONE_DELIMITER))

    def redact(self, obj: Obj) -> Obj | None:
        """One object redacted; None for kinds the scheduler does not read."""
        kind = obj.get("kind")
        handler = getattr(self, f"_{kind}", None) if isinstance(kind, str) else None
        if handler is None:
            return None
        out: Obj = {"apiVersion": obj.get("apiVersion"), "kind": kind, "metadata": self.metadata(obj)}
        out.update(handler(obj))
        return out

    def metadata(self, obj: Obj) -> Obj:
        meta = _meta(obj)
        kind = obj.get("kind", "")
        out: Obj = {}
        name = meta.get("name")
        if kind == "PersistentVolumeClaim":
            out["name"] = self._claim_name(obj)
        elif name is not None:
            out["name"] = self.name(kind)(name)
        if meta.get("namespace"):
            out["namespace"] = self.token(meta["namespace"], "ns")
        for key in ("uid", "creationTimestamp", "deletionTimestamp", "generation"):
            if key in meta:
                out[key] = meta[key]
        if meta.get("labels"):
            out["labels"] = self.labels(meta["labels"])
        annotations = {}
        for key, value in (meta.get("annotations") or {}).items():
            if key in KEEP_ANNOTATIONS:
                annotations[key] = value
            elif key in NAME_ANNOTATIONS:
                annotations[key] = self.token(value, NAME_ANNOTATIONS[key])
        if annotations:
            out["annotations"] = annotations
        if meta.get("ownerReferences"):
            out["ownerReferences"] = [
                {**{k: ref[k] for k in ("apiVersion", "kind", "uid", "controller", "blockOwnerDeletion")
                    if k in ref},
                 "name": self.name(ref.get("kind", ""))(ref.get("name"))}
                for ref in meta["ownerReferences"] if isinstance(ref, dict)]
        return out

    def _claim_name(self, pvc: Obj) -> Any:
        """A generic ephemeral volume's claim is named `<pod>-<volume>`: its token must be the
        pod's token, '-', and the volume's token, as the scheduler recomputes it."""
        name = _meta(pvc).get("name")
        for ref in _meta(pvc).get("ownerReferences") or []:
            owner = ref.get("name") if isinstance(ref, dict) and ref.get("kind") == "Pod" else None
            if isinstance(name, str) and owner and name.startswith(owner + "-"):
                return f"{self.token(owner, 'pod')}-{self.token(name[len(owner) + 1:], 'vol')}"
        return self.token(name, "pvc")

    # -- shared pieces -------------------------------------------------------------------
    def labels(self, labels: Any) -> Any:
        if not isinstance(labels, dict):
            return labels
        return {k: self.label_value(k, v) for k, v in labels.items()}

    def label_value(self, key: str, value: Any) -> Any:
        if isinstance(value, str) and is_topology_key(key) and MULTI_ZONE_DELIMITER in value:
            return MULTI_ZONE_DELIMITER.join(self.token(p) for p in value.split(MULTI_ZONE_DELIMITER))
        return self.token(value)

    def selector(self, sel: Any) -> Any:
        """A metav1.LabelSelector (matchLabels, matchExpressions)."""
        if not isinstance(sel, dict):
            return sel
        out: Obj = {}
        if "matchLabels" in sel:
            out["matchLabels"] = self.labels(sel["matchLabels"])
        if "matchExpressions" in sel:
            out["matchExpressions"] = [self.requirement(r) for r in sel["matchExpressions"] or []]
        return out

    def requirement(self, req: Any, field_names: bool = False) -> Any:
        """{key, operator, values}; Gt/Lt values are numbers and stay; matchFields values are
        node names."""
        if not isinstance(req, dict):
            return req
        out = dict(req)
        if isinstance(req.get("values"), list) and req.get("operator") not in ("Gt", "Lt"):
            fn = self.name("Node") if field_names else (lambda v: self.label_value(req.get("key", ""), v))
            out["values"] = [fn(v) for v in req["values"]]
        return out

    def node_selector(self, ns: Any) -> Any:
        """A v1.NodeSelector (nodeSelectorTerms)."""
        if not isinstance(ns, dict):
            return ns
        return {"nodeSelectorTerms": [self.node_selector_term(t) for t in ns.get("nodeSelectorTerms") or []]}

    def node_selector_term(self, term: Any) -> Any:
        if not isinstance(term, dict):
            return term
        out: Obj = {}
        if "matchExpressions" in term:
            out["matchExpressions"] = [self.requirement(r) for r in term["matchExpressions"] or []]
        if "matchFields" in term:
            out["matchFields"] = [self.requirement(r, field_names=True) for r in term["matchFields"] or []]
        return out

    def affinity(self, aff: Any) -> Any:
        if not isinstance(aff, dict):
            return aff
        out: Obj = {}
        req = "requiredDuringSchedulingIgnoredDuringExecution"
        pref = "preferredDuringSchedulingIgnoredDuringExecution"
        na = aff.get("nodeAffinity")
        if isinstance(na, dict):
            out["nodeAffinity"] = {}
            if req in na:
                out["nodeAffinity"][req] = self.node_selector(na[req])
            if pref in na:
                out["nodeAffinity"][pref] = [
                    {**p, "preference": self.node_selector_term(p.get("preference"))}
                    for p in na[pref] or [] if isinstance(p, dict)]
        for key in ("podAffinity", "podAntiAffinity"):
            pa = aff.get(key)
            if not isinstance(pa, dict):
                continue
            out[key] = {}
            if req in pa:
                out[key][req] = [self.pod_affinity_term(t) for t in pa[req] or []]
            if pref in pa:
                out[key][pref] = [
                    {**w, "podAffinityTerm": self.pod_affinity_term(w.get("podAffinityTerm"))}
                    for w in pa[pref] or [] if isinstance(w, dict)]
        return out

    def pod_affinity_term(self, term: Any) -> Any:
        if not isinstance(term, dict):
            return term
        out = dict(term)
        if "labelSelector" in term:
            out["labelSelector"] = self.selector(term["labelSelector"])
        if "namespaceSelector" in term:
            out["namespaceSelector"] = self.selector(term["namespaceSelector"])
        if isinstance(term.get("namespaces"), list):
            out["namespaces"] = [self.token(n, "ns") for n in term["namespaces"]]
        return out

    def tolerations(self, tols: Any) -> Any:
        if not isinstance(tols, list):
            return tols
        return [{**t, **({"value": self.token(t["value"])} if "value" in t else {})}
                for t in tols if isinstance(t, dict)]

    taints = tolerations        # (a taint's value is a toleration's)

    def scrub(self, value: Any, key: str = "") -> Any:
        """A volume source: every string becomes a token, except the kinds of things
        (driver, fsType, ...); keys stay."""
        if isinstance(value, dict):
            return {k: self.scrub(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self.scrub(v, key) for v in value]
        if isinstance(value, str) and key not in KEEP_SOURCE_KEYS:
            return self.token(value, "x")
        return value

    # -- pods ------------------------------------------------------------------------------
    POD_SPEC_KEEP = ("schedulerName", "priority", "preemptionPolicy", "overhead", "schedulingGates",
                     "hostNetwork", "os", "resources", "restartPolicy", "enableServiceLinks")
    CONTAINER_KEEP = ("resources", "ports", "restartPolicy", "resizePolicy")

    def pod_spec(self, spec: Any) -> Obj:
        if not isinstance(spec, dict):
            return {}
        out: Obj = {k: spec[k] for k in self.POD_SPEC_KEEP if k in spec}
        if spec.get("nodeName"):
            out["nodeName"] = self.token(spec["nodeName"], "node")
        if "nodeSelector" in spec:
            out["nodeSelector"] = self.labels(spec["nodeSelector"])
        if "affinity" in spec:
            out["affinity"] = self.affinity(spec["affinity"])
        if "tolerations" in spec:
            out["tolerations"] = self.tolerations(spec["tolerations"])
        if isinstance(spec.get("topologySpreadConstraints"), list):
            out["topologySpreadConstraints"] = [
                {**c, **({"labelSelector": self.selector(c["labelSelector"])} if "labelSelector" in c else {})}
                for c in spec["topologySpreadConstraints"] if isinstance(c, dict)]
        if spec.get("priorityClassName"):
            out["priorityClassName"] = self.token(spec["priorityClassName"], "pc")
        if spec.get("runtimeClassName"):
            out["runtimeClassName"] = self.token(spec["runtimeClassName"], "rc")
        for key in ("initContainers", "containers", "ephemeralContainers"):
            if isinstance(spec.get(key), list):
                out[key] = [self.container(c) for c in spec[key] if isinstance(c, dict)]
        if isinstance(spec.get("volumes"), list):
            out["volumes"] = [self.volume(v) for v in spec["volumes"] if isinstance(v, dict)]
        if isinstance(spec.get("resourceClaims"), list):
            out["resourceClaims"] = [self.scrub_names(c, ("name", "resourceClaimName",
                                                          "resourceClaimTemplateName"), "claim")
                                     for c in spec["resourceClaims"] if isinstance(c, dict)]
        return out

    def scrub_names(self, obj: Obj, keys: tuple[str, ...], prefix: str) -> Obj:
        return {k: (self.token(v, prefix) if k in keys else v) for k, v in obj.items()}

    def container(self, c: Obj) -> Obj:
        out: Obj = {"name": self.token(c.get("name"), "container")}
        if "image" in c:
            out["image"] = self.image(c["image"])
        for key in self.CONTAINER_KEEP:
            if key in c:
                out[key] = c[key]
        res = c.get("resources")
        if isinstance(res, dict) and isinstance(res.get("claims"), list):
            out["resources"] = {**res, "claims": [self.scrub_names(x, ("name",), "claim")
                                                  for x in res["claims"] if isinstance(x, dict)]}
        return out

    def volume(self, vol: Obj) -> Obj:
        out: Obj = {"name": self.token(vol.get("name"), "vol")}
        for key, source in vol.items():
            if key == "name":
                continue
            if key == "persistentVolumeClaim" and isinstance(source, dict):
                out[key] = {**source, "claimName": self.token(source.get("claimName"), "pvc")}
            elif key == "ephemeral" and isinstance(source, dict):
                tmpl = source.get("volumeClaimTemplate") or {}
                out[key] = {"volumeClaimTemplate": {
                    "metadata": {"labels": self.labels((tmpl.get("metadata") or {}).get("labels") or {})},
                    "spec": self.pvc_spec(tmpl.get("spec"))}}
            elif key == "emptyDir":
                out[key] = source
            else:
                out[key] = self.scrub(source)
        return out

    def pod_status(self, status: Any) -> Obj:
        if not isinstance(status, dict):
            return {}
        out: Obj = {k: status[k] for k in ("phase", "startTime", "qosClass", "resize", "reason") if k in status}
        if status.get("nominatedNodeName"):
            out["nominatedNodeName"] = self.token(status["nominatedNodeName"], "node")
        if isinstance(status.get("conditions"), list):
            out["conditions"] = [{k: c[k] for k in ("type", "status", "reason", "lastTransitionTime") if k in c}
                                 for c in status["conditions"] if isinstance(c, dict)]
        for key in ("initContainerStatuses", "containerStatuses"):
            if isinstance(status.get(key), list):
                out[key] = [{"name": self.token(s.get("name"), "container"),
                             **{k: s[k] for k in ("allocatedResources", "resources", "ready", "started")
                                if k in s}}
                            for s in status[key] if isinstance(s, dict)]
        if isinstance(status.get("resourceClaimStatuses"), list):
            out["resourceClaimStatuses"] = [self.scrub_names(s, ("name", "resourceClaimName"), "claim")
                                            for s in status["resourceClaimStatuses"] if isinstance(s, dict)]
        return out

    def _Pod(self, pod: Obj) -> Obj:
        return {"spec": self.pod_spec(pod.get("spec")), "status": self.pod_status(pod.get("status"))}

    # -- nodes -----------------------------------------------------------------------------
    def _Node(self, node: Obj) -> Obj:
        spec = node.get("spec") or {}
        status = node.get("status") or {}
        out_spec: Obj = {k: spec[k] for k in ("unschedulable",) if k in spec}
        if "taints" in spec:
            out_spec["taints"] = self.taints(spec["taints"])
        out_status: Obj = {k: status[k] for k in ("capacity", "allocatable", "declaredFeatures") if k in status}
        if isinstance(status.get("images"), list):
            out_status["images"] = [
                {**{k: v for k, v in img.items() if k != "names"},
                 "names": [self.image(n, on_node=True) for n in img.get("names") or []]}
                for img in status["images"] if isinstance(img, dict)]
        if isinstance(status.get("conditions"), list):
            out_status["conditions"] = [{k: c[k] for k in ("type", "status", "reason") if k in c}
                                        for c in status["conditions"] if isinstance(c, dict)]
        return {"spec": out_spec, "status": out_status}

    def _CSINode(self, obj: Obj) -> Obj:
        drivers = ((obj.get("spec") or {}).get("drivers")) or []
        return {"spec": {"drivers": [
            {**{k: d[k] for k in ("name", "topologyKeys", "allocatable") if k in d},
             **({"nodeID": self.token(d["nodeID"], "x")} if "nodeID" in d else {})}
            for d in drivers if isinstance(d, dict)]}}

    # -- storage ---------------------------------------------------------------------------
    def pvc_spec(self, spec: Any) -> Obj:
        if not isinstance(spec, dict):
            return {}
        out: Obj = {k: spec[k] for k in ("accessModes", "resources", "volumeMode") if k in spec}
        if "storageClassName" in spec:
            out["storageClassName"] = self.token(spec["storageClassName"], "sc")
        if spec.get("volumeName"):
            out["volumeName"] = self.token(spec["volumeName"], "pv")
        if spec.get("volumeAttributesClassName"):
            out["volumeAttributesClassName"] = self.token(spec["volumeAttributesClassName"], "vac")
        if "selector" in spec:
            out["selector"] = self.selector(spec["selector"])
        return out

    def _PersistentVolumeClaim(self, pvc: Obj) -> Obj:
        status = pvc.get("status") or {}
        return {"spec": self.pvc_spec(pvc.get("spec")),
                "status": {k: status[k] for k in ("phase", "accessModes", "capacity", "allocatedResources")
                           if k in status}}

    PV_KEEP = ("capacity", "accessModes", "persistentVolumeReclaimPolicy", "volumeMode")

    def _PersistentVolume(self, pv: Obj) -> Obj:
        spec = pv.get("spec") or {}
        out: Obj = {}
        for key, value in spec.items():
            if key in self.PV_KEEP:
                out[key] = value
            elif key == "storageClassName":
                out[key] = self.token(value, "sc")
            elif key == "volumeAttributesClassName":
                out[key] = self.token(value, "vac")
            elif key == "nodeAffinity" and isinstance(value, dict):
                out[key] = {"required": self.node_selector(value.get("required"))}
            elif key == "claimRef" and isinstance(value, dict):
                ref = {k: value[k] for k in ("apiVersion", "kind", "uid") if k in value}
                if "namespace" in value:
                    ref["namespace"] = self.token(value["namespace"], "ns")
                if "name" in value:
                    ref["name"] = self.token(value["name"], "pvc")
                out[key] = ref
            elif key not in ("mountOptions",):
                out[key] = self.scrub(value)
        status = pv.get("status") or {}
        return {"spec": out, "status": {k: status[k] for k in ("phase",) if k in status}}

    def _StorageClass(self, sc: Obj) -> Obj:
        out: Obj = {k: sc[k] for k in ("provisioner", "reclaimPolicy", "volumeBindingMode",
                                       "allowVolumeExpansion") if k in sc}
        if isinstance(sc.get("allowedTopologies"), list):
            out["allowedTopologies"] = [
                {"matchLabelExpressions": [
                    {**e, "values": [self.label_value(e.get("key", ""), v) for v in e.get("values") or []]}
                    for e in t.get("matchLabelExpressions") or [] if isinstance(e, dict)]}
                for t in sc["allowedTopologies"] if isinstance(t, dict)]
        return out

    # -- the rest ------------------------------------------------------------------------
    def _Namespace(self, ns: Obj) -> Obj:
        return {}

    def _PriorityClass(self, pc: Obj) -> Obj:
        return {k: pc[k] for k in ("value", "globalDefault", "preemptionPolicy") if k in pc}

    def _RuntimeClass(self, rc: Obj) -> Obj:
        out: Obj = {"handler": self.token(rc.get("handler"), "handler")}
        if "overhead" in rc:
            out["overhead"] = rc["overhead"]
        sched = rc.get("scheduling")
        if isinstance(sched, dict):
            out["scheduling"] = {
                **({"nodeSelector": self.labels(sched["nodeSelector"])} if "nodeSelector" in sched else {}),
                **({"tolerations": self.tolerations(sched["tolerations"])} if "tolerations" in sched else {})}
        return out

    def _PodDisruptionBudget(self, pdb: Obj) -> Obj:
        spec = pdb.get("spec") or {}
        status = pdb.get("status") or {}
        out_spec = {k: spec[k] for k in ("minAvailable", "maxUnavailable", "unhealthyPodEvictionPolicy")
                    if k in spec}
        if "selector" in spec:
            out_spec["selector"] = self.selector(spec["selector"])
        out_status = {k: status[k] for k in ("disruptionsAllowed", "currentHealthy", "desiredHealthy",
                                             "expectedPods", "observedGeneration") if k in status}
        if isinstance(status.get("disruptedPods"), dict):
            out_status["disruptedPods"] = {self.token(k, "pod"): v for k, v in status["disruptedPods"].items()}
        return {"spec": out_spec, "status": out_status}

    def _Service(self, svc: Obj) -> Obj:
        spec = svc.get("spec") or {}
        return {"spec": {"selector": self.labels(spec["selector"])} if "selector" in spec else {}}

    _ReplicationController = _Service        # (its selector is a map, as a Service's)

    def _ReplicaSet(self, rs: Obj) -> Obj:
        spec = rs.get("spec") or {}
        out = {k: spec[k] for k in ("replicas",) if k in spec}
        if "selector" in spec:
            out["selector"] = self.selector(spec["selector"])
        return {"spec": out}

    _StatefulSet = _ReplicaSet

    # -- Dynamic Resource Allocation -----------------------------------------------------------
    def _DeviceClass(self, cls: Obj) -> Obj:
        spec = cls.get("spec") or {}
        return {"spec": {k: spec[k] for k in ("selectors", "extendedResourceName") if k in spec}}

    def device(self, device: Any) -> Any:
        if not isinstance(device, dict):
            return device
        out: Obj = {k: device[k] for k in ("attributes", "capacity", "allNodes", "bindsToNode", "bindingConditions",
                                           "bindingFailureConditions", "allowMultipleAllocations",
                                           "consumesCounters") if k in device}
        out["name"] = self.token(device.get("name"), "dev")
        if "taints" in device:
            out["taints"] = self.taints(device["taints"])
        if device.get("nodeName"):
            out["nodeName"] = self.token(device["nodeName"], "node")
        if "nodeSelector" in device:
            out["nodeSelector"] = self.node_selector(device["nodeSelector"])
        return out

    def _ResourceSlice(self, slice_: Obj) -> Obj:
        spec = slice_.get("spec") or {}
        out: Obj = {k: spec[k] for k in ("driver", "allNodes", "perDeviceNodeSelection", "sharedCounters") if k in spec}
        if isinstance(spec.get("pool"), dict):
            out["pool"] = {**spec["pool"], "name": self.token(spec["pool"].get("name"), "pool")}
        if spec.get("nodeName"):
            out["nodeName"] = self.token(spec["nodeName"], "node")
        if "nodeSelector" in spec:
            out["nodeSelector"] = self.node_selector(spec["nodeSelector"])
        if isinstance(spec.get("devices"), list):
            out["devices"] = [self.device(d) for d in spec["devices"]]
        return {"spec": out}

    def device_request(self, body: Any) -> Any:
        """An `exactly` request or a subrequest: its class is a token, the rest stays."""
        if not isinstance(body, dict):
            return body
        return {**body, **({"deviceClassName": self.token(body["deviceClassName"], "dc")}
                           if "deviceClassName" in body else {})}

    def claim_spec(self, spec: Any) -> Obj:
        devices = spec.get("devices") if isinstance(spec, dict) else None
        if not isinstance(devices, dict):
            return {}
        requests = []
        for request in devices.get("requests") or []:
            if not isinstance(request, dict):
                continue
            out = dict(request)
            if "exactly" in request:
                out["exactly"] = self.device_request(request["exactly"])
            if isinstance(request.get("firstAvailable"), list):
                out["firstAvailable"] = [self.device_request(sub) for sub in request["firstAvailable"]]
            requests.append(out)
        kept: Obj = {"requests": requests}
        if "constraints" in devices:
            kept["constraints"] = devices["constraints"]
        return {"devices": kept}

    def claim_status(self, status: Any) -> Obj:
        if not isinstance(status, dict):
            return {}
        out: Obj = {}
        allocation = status.get("allocation")
        if isinstance(allocation, dict):
            devices = allocation.get("devices") or {}
            results = [{**r, "pool": self.token(r.get("pool"), "pool"), "device": self.token(r.get("device"), "dev")}
                       for r in devices.get("results") or [] if isinstance(r, dict)]
            out["allocation"] = {"devices": {"results": results},
                                 **{k: allocation[k] for k in ("allocationTimestamp",) if k in allocation}}
            if "nodeSelector" in allocation:
                out["allocation"]["nodeSelector"] = self.node_selector(allocation["nodeSelector"])
        if isinstance(status.get("reservedFor"), list):
            out["reservedFor"] = [{**{k: r[k] for k in ("apiGroup", "resource", "uid") if k in r},
                                   "name": self.token(r.get("name"), "pod" if r.get("resource") == "pods" else "obj")}
                                  for r in status["reservedFor"] if isinstance(r, dict)]
        return out

    def _ResourceClaim(self, claim: Obj) -> Obj:
        return {"spec": self.claim_spec(claim.get("spec")), "status": self.claim_status(claim.get("status"))}

    def _ResourceClaimTemplate(self, template: Obj) -> Obj:
        spec = template.get("spec") or {}
        meta = spec.get("metadata") or {}
        return {"spec": {**({"metadata": {"labels": self.labels(meta["labels"])}} if meta.get("labels") else {}),
                         "spec": self.claim_spec(spec.get("spec"))}}


def is_topology_key(key: str) -> bool:
    """Zone and region labels, well-known or a CSI driver's (`topology.x.y/zone`)."""
    return key.rsplit("/", 1)[-1] in ("zone", "region")


def _meta(obj: Obj) -> Obj:
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}
