"""The one seam from objects to Kueue's inputs: `inputs_of` turns objects, however read, into what
Kueue's controllers would hold."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, BinaryIO, Callable, Iterable, Mapping, Sequence

from kexplain.admission import admit
from kexplain.admission.workloads import object_uid
from kexplain.apimachinery.kinds import is_builtin_kind
from kexplain.apimachinery.stored_pods import OBJECTS, StoredPod
from kexplain.errors import CLUSTER_SCOPED_KINDS, InputError, KexplainError, Source
from kexplain.features import KubeVersion
from kexplain.kueue.apis import constants as c
from kexplain.kueue.apis.multikueue import (MultiKueueCluster, MultiKueueConfig, parse_multikueue_cluster,
                                            parse_multikueue_config)
from kexplain.kueue.config_afs import MULTI_KUEUE
from kexplain.kueue.controller.admissionchecks.multikueue import with_active_conditions
from kexplain.kueue.controller.jobframework.external import external_job
from kexplain.kueue.apis.admissioncheck import (AdmissionCheck, ProvisioningRequestConfig, parse_admission_check,
                                                parse_provisioning_request_config)
from kexplain.kueue.apis.clusterqueue import ClusterQueue, parse_cluster_queue
from kexplain.kueue.apis.cohort import Cohort, parse_cohort
from kexplain.kueue.apis.localqueue import LocalQueue, parse_local_queue
from kexplain.kueue.apis.priorityclass import PriorityClass, parse_priority_class, parse_workload_priority_class
from kexplain.kueue.apis.resourceflavor import ResourceFlavor, parse_resource_flavor
from kexplain.kueue.apis.topology import Topology, parse_topology
from kexplain.kueue.apis.workload import WorkloadObject, parse_workload
from kexplain.kueue.config import KueueConfig, is_configuration, parse_configuration
from kexplain.kueue.feature_gates import TOPOLOGY_AWARE_SCHEDULING, FeatureGates, read_gates
from kexplain.kueue.config_file import configuration_of, is_manager_config_map
from kexplain.kueue.controller.jobframework.defaults import apply_default_local_queue, default_queue_namespaces
from kexplain.kueue.controller.jobframework.interface import GenericJob
from kexplain.kueue.controller.jobs import INTEGRATION_READS, integration_for
from kexplain.kueue.controller.jobs.parents import kueue_objects
from kexplain.kueue.controller.jobs import pod_webhook
from kexplain.kueue.objects import makes_managed
from kexplain.kueue import versions
from kexplain.kueue.versions import KueueVersion
from kexplain.kueue.workload.dra import claim_templates
from kexplain.load.manifests import check_objects, load_objects

Objects = Sequence[tuple[dict[str, Any], Source]]
METADATA_NAME_LABEL = "kubernetes.io/metadata.name"
# What pod admission reads besides the pod: kexplain admits submitted Pods with them.
ADMISSION_CONTEXT = frozenset({"Namespace", "PriorityClass", "LimitRange", "RuntimeClass"})
# The API server the pods are admitted by: the Kubernetes libraries Kueue v0.17.8 vendors (v0.35).
KUBERNETES = "1.35"


@dataclass
class KueueInputs:
    """What one pass reads, in the order given."""

    flavors: dict[str, ResourceFlavor] = field(default_factory=dict)
    cluster_queues: list[ClusterQueue] = field(default_factory=list)
    cohorts: list[Cohort] = field(default_factory=list)
    local_queues: list[LocalQueue] = field(default_factory=list)
    workload_priority_classes: dict[str, PriorityClass] = field(default_factory=dict)
    admission_checks: dict[str, AdmissionCheck] = field(default_factory=dict)
    provisioning_request_configs: dict[str, ProvisioningRequestConfig] = field(default_factory=dict)
    multikueue_configs: dict[str, MultiKueueConfig] = field(default_factory=dict)
    multikueue_clusters: dict[str, MultiKueueCluster] = field(default_factory=dict)
    config: KueueConfig = field(default_factory=KueueConfig)        # Kueue's own Configuration
    priority_classes: dict[str, PriorityClass] = field(default_factory=dict)
    namespaces: dict[str, dict[str, str]] = field(default_factory=dict)    # name -> labels
    jobs: list[GenericJob] = field(default_factory=list)                   # the submitted jobs
    workloads: list[WorkloadObject] = field(default_factory=list)          # given as Workloads
    ignored: list[str] = field(default_factory=list)                       # `KIND NS/NAME: why`
    topologies: dict[str, Topology] = field(default_factory=dict)
    nodes: list[Mapping[str, Any]] = field(default_factory=list)           # TAS: the cluster's Nodes
    bound_pods: list[Mapping[str, Any]] = field(default_factory=list)      # TAS: pods bound to them
    warnings: list[str] = field(default_factory=list)
    claim_templates: dict[tuple[str, str], Mapping[str, Any]] = field(default_factory=dict)   # DRA: (ns, name)
    submitted: Objects = ()         # the objects read, as read (what a change is applied to)
    cluster: Objects = ()
    validate: str = "strict"        # the field validation they were read with

    def namespace_labels(self, name: str) -> dict[str, str]:
        """A namespace's labels; one no Namespace object gives exists with only its name label."""
        return self.namespaces.get(name) or {METADATA_NAME_LABEL: name}


def _kind(obj: Mapping[str, Any]) -> str:
    kind = obj.get("kind")
    return kind if isinstance(kind, str) else ""


def _described(obj: Mapping[str, Any]) -> str:
    if type(obj) is StoredPod:      # (a dump's bound pod: named by its view, not decoded whole)
        view = obj.view.metadata
        return f"Pod {view.namespace or 'default'}/{view.name or ''}"
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    # no namespace written: `default` for a namespaced kind kexplain knows (built-in, Kueue's, a job's);
    # another group's kind may be cluster-scoped (a NodePool): its name as written
    kind, api = _kind(obj), obj.get("apiVersion")
    known = is_builtin_kind(api, kind) or str(api or "").split("/", 1)[0] == c.GROUP \
        or integration_for(kind, str(api or "")) is not None
    namespace = meta.get("namespace") or ("" if kind in CLUSTER_SCOPED_KINDS | c.CLUSTER_SCOPED or not known
                                          else "default")
    name = meta.get("name") or ""
    return f"{_kind(obj)} {namespace}/{name}" if namespace else f"{_kind(obj)} {name}"


def _with_uid(obj: dict[str, Any]) -> dict[str, Any]:
    """A job as the API server stored it: with a uid (derived from its kind, namespace and name
    when the manifest gives none, as kexplain's admission does)."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    if meta.get("uid"):
        return obj
    return {**obj, "metadata": {**meta, "uid": object_uid(obj)}}


def inputs_of(submitted: Objects, cluster: Objects, *, validate: str = "strict", stored: bool = False,
              refused: list[KexplainError] | None = None, version: KueueVersion | None = None) -> KueueInputs:
    """Kueue's inputs from `submitted` and `cluster` objects already read: a refused Kueue object or job
    is bad input, or, given `refused`, left out as the API server leaves it and its error kept there;
    a submitted Pod is admitted unless `stored`."""
    # Kueue's webhooks at creation: the default LocalQueue (a stored job is as they left it already)
    if not stored and (defaulted := default_queue_namespaces([*submitted, *cluster])):
        submitted = [(apply_default_local_queue(o, defaulted), s) for o, s in submitted]
    if any(makes_managed(o) for o, _ in submitted):     # what Kueue meets of them (`jobs.parents`)
        submitted = [(part, s) for o, s in submitted for part in kueue_objects(o, s)]
    out = KueueInputs(submitted=tuple(submitted), cluster=tuple(cluster), validate=validate)
    pods = [(pod_webhook.default(o), s) for o, s in submitted if isinstance(o, dict) and _kind(o) == "Pod"
            and integration_for("Pod", str(o.get("apiVersion") or "")) is not None]
    admitted_pods = iter([_with_uid(o) for o, _ in pods] if stored else
                         _admitted_pods(pods, [*submitted, *cluster], validate))
    tas_read: list[int] = []    # the `ignored` notes of Nodes and bound pods: read when TAS is there
    gates = _configured_gates([*submitted, *cluster], version)      # what the webhooks run with
    unknown: list[tuple[int, Any, Source]] = []     # the submitted objects of kinds read by no one here
    for obj, src, is_submitted in [*((o, s, True) for o, s in submitted), *((o, s, False) for o, s in cluster)]:
        if not isinstance(obj, OBJECTS):
            raise InputError("not an object", source=src)
        kind = obj.get("kind")          # (read once each: most of a dump is bound pods, read by view)
        kind = kind if isinstance(kind, str) else ""
        api = obj.get("apiVersion")
        api = api if isinstance(api, str) else ""
        if kind in c.KINDS and api.split("/", 1)[0] == c.GROUP:         # one of Kueue's objects
            _refusable(refused, lambda: _read_kueue(out, obj, src, validate))
        elif is_configuration(obj):
            _read_configuration(out, obj, src, version)
        elif kind == "ConfigMap" and is_manager_config_map(obj):    # Kueue's manager ConfigMap: its Configuration
            if (configuration := configuration_of(obj, src)) is not None:
                _read_configuration(out, *configuration, version)
        elif kind == "Namespace":
            meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
            name = str(meta.get("name") or "")
            labels = {str(k): str(v) for k, v in (meta.get("labels") or {}).items()}
            labels[METADATA_NAME_LABEL] = name
            out.namespaces[name] = labels
        elif kind == "Node" and api == "v1":
            out.nodes.append(obj)
            out.ignored.append(f"{_described(obj)}: not a kind Kueue's admission reads")
            tas_read.append(len(out.ignored) - 1)
        elif kind == "ResourceClaimTemplate" and api.startswith("resource.k8s.io/"):     # (what DRA counts)
            out.claim_templates.update(claim_templates([obj]))
        elif kind == "PriorityClass" and api.startswith("scheduling.k8s.io/"):
            pc = parse_priority_class(obj, src)
            out.priority_classes[pc.name] = pc
        elif (kind, api.split("/", 1)[0]) in INTEGRATION_READS:     # (read by the jobs that read them)
            continue
        elif (integration := integration_for(kind, api)) is not None:
            if not is_submitted:
                out.ignored.append(f"{_described(obj)}: a job of the cluster files (the submitted ones are "
                                   "WORKLOADS')")
                if kind == "Pod" and _bound(obj):
                    out.bound_pods.append(obj)
                    tas_read.append(len(out.ignored) - 1)
                continue
            stored = next(admitted_pods) if kind == "Pod" else _with_uid(obj)
            _refusable(refused, lambda: out.jobs.append(_job(integration, stored, src, version, (submitted, cluster),
                                                             gates)))
        elif kind not in ADMISSION_CONTEXT:
            out.ignored.append(f"{_described(obj)}: not a kind Kueue's admission reads")
            if is_submitted:        # (an external framework's job: `_external_jobs`, once the Configuration is read)
                unknown.append((len(out.ignored) - 1, obj, src))
    taken = _taken(out, unknown) if out.config.external_frameworks else []
    if out.topologies or taken:     # TAS places on the Nodes and counts the pods bound to them
        used = set(tas_read if out.topologies else ()) | set(taken)
        out.ignored = [note for i, note in enumerate(out.ignored) if i not in used]
    if version is not None and out.config.feature_gates.table is not version.gates:    # (no Configuration given)
        out.config = replace(out.config, feature_gates=FeatureGates(version.gates))
    if not out.config.enabled(TOPOLOGY_AWARE_SCHEDULING):
        _without_topology(out)
    if out.config.enabled(MULTI_KUEUE):    # the MultiKueue check controller's Active conditions
        out.admission_checks = with_active_conditions(out.admission_checks, out.multikueue_configs,
                                                      out.multikueue_clusters,
                                                      seen=bool(out.multikueue_configs or out.multikueue_clusters))
    return out


def _without_topology(out: KueueInputs) -> None:
    """TopologyAwareScheduling off: Kueue reads no flavor as a TAS one (isTASFlavor) and acts on no
    pod set's topology request."""
    out.flavors = {name: replace(f, topology_name=None) for name, f in out.flavors.items()}
    out.workloads = [replace(wl, spec=replace(wl.spec, pod_sets=tuple(replace(ps, topology_request=None)
                                                                      for ps in wl.spec.pod_sets)))
                     for wl in out.workloads]


def _taken(out: KueueInputs, unknown: list[tuple[int, Any, Source]]) -> list[int]:
    """The notes of the submitted objects taken as external frameworks' jobs; those jobs added."""
    taken = []
    for index, obj, src in unknown:
        job = external_job(obj, src, out.config.external_frameworks)
        if job is not None:
            out.jobs.append(job)
            taken.append(index)
    return taken


def _read_configuration(out: KueueInputs, obj: Mapping[str, Any], src: Source, version: KueueVersion | None) -> None:
    """Kueue's Configuration (its featureGates over the release's), with a note of what it sets that
    kexplain does not model."""
    out.config = parse_configuration(obj, src, (version or versions.resolve(None)).gates)
    if (note := out.config.note()) is not None and note not in out.warnings:
        out.warnings.append(note)


def _configured_gates(objects: Objects, version: KueueVersion | None) -> FeatureGates:
    """The feature gates Kueue's webhooks run with: the Configuration's featureGates (the last given,
    or its manager ConfigMap's) over the release's defaults, read before the jobs, as the manager
    starts with them; one it cannot read is refused where the Configuration is read."""
    raw: Any = None
    for obj, src in objects:
        if not isinstance(obj, dict):
            continue
        if is_configuration(obj):
            raw = obj.get("featureGates")
        elif obj.get("kind") == "ConfigMap" and is_manager_config_map(obj):
            try:
                found = configuration_of(obj, src)
            except KexplainError:
                continue
            raw = found[0].get("featureGates") if found is not None else raw
    return read_gates(raw if isinstance(raw, Mapping) else None, (version or versions.resolve(None)).gates)


def _job(integration: Any, obj: dict[str, Any], src: Source, version: KueueVersion | None,
         objects: Sequence[Objects], gates: FeatureGates | None = None) -> Any:
    """The integration's job of `obj`, after its Kueue webhook's checks in the version's words and
    under its feature `gates` (an integration with a `webhook`: the operators' kinds); one that
    READS other kinds (a TrainJob its runtimes) is given them from `objects` (the submitted and the
    cluster's)."""
    if getattr(integration, "READS", None):
        job = integration.from_object(obj, src, integration.context(o for objs in objects for o in objs))
    else:
        job = integration.from_object(obj, src)
    webhook = getattr(integration, "webhook", None)
    if webhook is not None:
        webhook(obj, src, version or versions.resolve(None), gates)
    return job


def _bound(pod: Mapping[str, Any]) -> bool:
    """The pod is bound to a node (a dump's asked of its view: not decoded)."""
    if type(pod) is StoredPod:
        return pod.view.spec is not None and bool(pod.view.spec.nodeName)
    spec = pod.get("spec")
    return isinstance(spec, Mapping) and bool(spec.get("nodeName"))


def _refusable(refused: list[KexplainError] | None, read: Callable[[], object]) -> None:
    """`read()`; its refusal raised, or kept in `refused` when given (the object left out)."""
    if refused is None:
        read()
        return
    try:
        read()
    except KexplainError as err:
        refused.append(err)


def _admitted_pods(pods: Objects, everything: Objects, validate: str) -> list[dict[str, Any]]:
    """The submitted Pods as kube-apiserver stores them (kexplain's admission, with the
    namespaces, priority classes, LimitRanges and RuntimeClasses given), in order."""
    if not pods:
        return []
    kube = KubeVersion(KUBERNETES)
    context = [(o, s) for o, s in everything if isinstance(o, dict) and _kind(o) in ADMISSION_CONTEXT
               and (_kind(o) != "PriorityClass" or str(o.get("apiVersion") or "").startswith("scheduling.k8s.io/"))]
    objects = [*((_with_uid(o), s) for o, s in pods), *context]
    checked = check_objects(objects, frozenset({"Pod", *ADMISSION_CONTEXT}), validate=validate, kube=kube)
    admitted = admit(checked.objects, None, kube=kube)
    return [o for o, _ in admitted.objects if _kind(o) == "Pod"][:len(pods)]


def _read_kueue(out: KueueInputs, obj: dict[str, Any], src: Source, validate: str) -> None:
    kind = _kind(obj)
    warnings = out.warnings
    if kind == c.RESOURCE_FLAVOR:
        rf = parse_resource_flavor(obj, src, validate=validate, warnings=warnings)
        out.flavors[rf.name] = rf
    elif kind == c.CLUSTER_QUEUE:
        out.cluster_queues.append(parse_cluster_queue(obj, src, validate=validate, warnings=warnings))
    elif kind == c.COHORT:
        out.cohorts.append(parse_cohort(obj, src, validate=validate, warnings=warnings))
    elif kind == c.LOCAL_QUEUE:
        out.local_queues.append(parse_local_queue(obj, src, validate=validate, warnings=warnings))
    elif kind == c.WORKLOAD_PRIORITY_CLASS:
        wpc = parse_workload_priority_class(obj, src, validate=validate, warnings=warnings)
        out.workload_priority_classes[wpc.name] = wpc
    elif kind == c.WORKLOAD:
        out.workloads.append(parse_workload(obj, src, validate=validate, warnings=warnings))
    elif kind == c.ADMISSION_CHECK:
        check = parse_admission_check(obj, src, validate=validate, warnings=warnings)
        out.admission_checks[check.name] = check
    elif kind == c.TOPOLOGY:
        topology = parse_topology(obj, src, validate=validate, warnings=warnings)
        out.topologies[topology.name] = topology
    elif kind == c.PROVISIONING_REQUEST_CONFIG:
        config = parse_provisioning_request_config(obj, src, validate=validate, warnings=warnings)
        out.provisioning_request_configs[config.name] = config
    elif kind == c.MULTIKUEUE_CONFIG:
        mk_config = parse_multikueue_config(obj, src)
        out.multikueue_configs[mk_config.name] = mk_config
    elif kind == c.MULTIKUEUE_CLUSTER:
        cluster = parse_multikueue_cluster(obj, src)
        out.multikueue_clusters[cluster.name] = cluster


def load(workload_paths: Iterable[str], cluster_paths: Iterable[str], *, max_bytes: int, max_objects: int,
         validate: str = "strict", stdin: BinaryIO | None = None, namespace: str | None = None,
         extra: Objects = (), version: KueueVersion | None = None) -> KueueInputs:
    """Read the files and make Kueue's inputs of them; `namespace`: -n, for the WORKLOADS files;
    `extra`: cluster objects read otherwise (--kueue-config's Configuration), after the files';
    `version`: the release whose webhooks check the jobs (None: v0.17.8)."""
    submitted = load_objects(list(workload_paths), max_bytes, stdin, max_objects=max_objects, namespace=namespace)
    cluster = load_objects(list(cluster_paths), max_bytes, stdin, max_objects=max_objects) if cluster_paths else []
    return inputs_of(submitted, [*cluster, *extra] if extra else cluster, validate=validate, version=version)
