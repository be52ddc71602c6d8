"""What kube-apiserver v1.35.4 checks on a workload before storing it, with its messages
(pkg/apis/apps/validation, pkg/apis/batch/validation, core's ValidateReplicationController).

A workload the API server refuses never makes a pod, so `kexplain POD` and `kexplain lint` refuse it
too (`check_workload`). What is checked and what is not: docs/internals/admission.md.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import replace as with_path
from typing import Any, Callable, Iterator, Sequence

from kexplain.errors import AdmissionRejected, InputError, KexplainError, NamespaceNotFound, Source
from kexplain.features import DEFAULT as DEFAULT_VERSION, KubeVersion

from kexplain.apimachinery.fielderrors import (FieldError, forbidden, go_quote, invalid, invalid_typed, invalid_message, not_supported,
                          required)
from kexplain.apimachinery.names import is_dns1123_label, is_dns1123_subdomain, validate_labels
from kexplain.apimachinery.identity import as_dict, as_int, generated_name, object_uid
from kexplain.apimachinery.unstructured import copy_json
from kexplain.admission import defaults, gated_fields
from kexplain.admission.decode import SCHEMAS, check_decodes
from kexplain.admission.validate_common import validate_annotations, validate_label_selector, validate_object_meta
from kexplain.admission.validate_pod import validate_pod_create
from kexplain.model.labels import SelectorError, parse_selector

NameFn = Callable[[str], Sequence[str]]

# kind -> API group, for the API server's `Kind.group "name" is invalid` (core: no group)
GROUPS = {"Deployment": "apps", "ReplicaSet": "apps", "StatefulSet": "apps", "DaemonSet": "apps",
          "Job": "batch", "CronJob": "batch", "ReplicationController": ""}
NEGATIVE = "must be greater than or equal to 0"
SELECTOR_MISMATCH = "`selector` does not match template `labels`"
JOB_RESTART_POLICIES = ["OnFailure", "Never"]
CRONJOB_NAME_MAX = 52      # 63 minus the 11 characters of the `-<minutes>` suffix of its Jobs
# kind -> the path to its pod template
TEMPLATE_PATHS: dict[str, tuple[str, ...]] = {
    "Deployment": ("spec", "template"),
    "ReplicaSet": ("spec", "template"),
    "ReplicationController": ("spec", "template"),
    "StatefulSet": ("spec", "template"),
    "DaemonSet": ("spec", "template"),
    "Job": ("spec", "template"),
    "CronJob": ("spec", "jobTemplate", "spec", "template"),
}
WORKLOAD_KINDS = frozenset(TEMPLATE_PATHS)

# The labels the API server puts on a Job's pod template (batch/v1 generateSelector): the new
# prefixed ones, which its generated selector selects, and the legacy ones.
JOB_NAME_LABEL = "batch.kubernetes.io/job-name"
CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid"
LEGACY_JOB_NAME_LABEL = "job-name"
LEGACY_CONTROLLER_UID_LABEL = "controller-uid"


def qualified_kind(kind: str) -> str:
    """`Deployment.apps`, `Job.batch`, `ReplicationController`: how apierrors names the kind."""
    group = GROUPS.get(kind, "")
    return f"{kind}.{group}" if group else kind


def _child(parent: dict, key: str) -> dict:
    """parent[key] as a mapping, created (or replacing a value of another type) when needed."""
    if not isinstance(parent.get(key), dict):
        parent[key] = {}
    return parent[key]


def generate_job_selector(job: dict) -> None:
    """The Job registry's step for a Job without a manual selector (in place): the job-name and
    controller-uid labels added to the template, the selector the controller-uid."""
    spec = _child(job, "spec")
    if spec.get("manualSelector") is True:
        return
    labels = _child(_child(_child(spec, "template"), "metadata"), "labels")
    name = generated_name(job)
    uid = object_uid(job)
    for key in (LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL):
        labels.setdefault(key, name)
    for key in (LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL):
        labels.setdefault(key, uid)
    _child(_child(spec, "selector"), "matchLabels").setdefault(CONTROLLER_UID_LABEL, uid)


# -- values as Go prints them -------------------------------------------------------------------
def _labels_value(labels: Any) -> Any:
    """A map[string]string as json.Marshal writes it: keys sorted; nil is null."""
    if not isinstance(labels, dict):
        return None
    return {str(k): labels[k] for k in sorted(labels, key=str)}


def _selector_value(selector: Any) -> Any:
    """A *metav1.LabelSelector as json.Marshal writes it (empty fields omitted)."""
    if not isinstance(selector, dict):
        return None
    out: dict[str, Any] = {}
    if selector.get("matchLabels"):
        out["matchLabels"] = _labels_value(selector["matchLabels"])
    if selector.get("matchExpressions"):
        exprs = []
        for e in selector["matchExpressions"]:
            e = as_dict(e)
            item: dict[str, Any] = {"key": e.get("key") or "", "operator": e.get("operator") or ""}
            if e.get("values"):
                item["values"] = list(e["values"])
            exprs.append(item)
        out["matchExpressions"] = exprs
    return out


def _nonnegative(spec: dict, key: str, path: str) -> list[FieldError]:
    value = as_int(spec.get(key))
    return [invalid_typed(path, value, NEGATIVE)] if value is not None and value < 0 else []


# -- selectors ------------------------------------------------------------------------------------
class _Selector:
    """metav1.LabelSelectorAsSelector of a raw selector: None is nothing, {} is everything;
    `ok` False when it does not convert (a bad operator, key or value)."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw
        self.ok = True
        self.parsed = None
        if raw is not None and not isinstance(raw, dict):
            self.ok = False
            return
        if raw is not None and validate_label_selector(raw, ""):
            self.ok = False
            return
        try:
            self.parsed = parse_selector(raw)
        except (SelectorError, AttributeError, TypeError):
            self.ok = False

    @property
    def empty(self) -> bool:
        """labels.Selector.Empty(): selects everything (the null selector selects nothing)."""
        return self.parsed is not None and not self.parsed.nothing and not self.parsed.requirements

    def matches(self, labels: Any) -> bool:
        assert self.parsed is not None
        return self.parsed.matches({str(k): str(v) for k, v in as_dict(labels).items()})


def _selector_errors(spec: dict, path: str, what: str, required_: bool) -> list[FieldError]:
    """The selector itself: required (apps/v1 Deployments, ReplicaSets, StatefulSets), valid, not empty."""
    selector = spec.get("selector")
    if selector is None:
        return [required(path)] if required_ else []
    if not isinstance(selector, dict):
        return []
    errs = validate_label_selector(selector, path)
    if not (selector.get("matchLabels") or selector.get("matchExpressions")):
        errs.append(invalid_typed(path, _selector_value(selector), f"empty selector is invalid for {what}"))
    return errs


def _template_meta_errors(template: dict, path: str) -> list[FieldError]:
    """ValidatePodTemplateSpec's metadata part: the template's labels and annotations."""
    tmeta = as_dict(template.get("metadata"))
    return validate_labels(tmeta.get("labels"), f"{path}.labels") + \
        validate_annotations(tmeta.get("annotations"), f"{path}.annotations")


def _mismatch(selector: _Selector, template: dict, path: str) -> list[FieldError]:
    labels = as_dict(template.get("metadata")).get("labels")
    if selector.matches(labels):
        return []
    return [invalid_typed(f"{path}.metadata.labels", _labels_value(labels), SELECTOR_MISMATCH)]


def _restart_always(template: dict, path: str, what: str) -> list[FieldError]:
    spec = as_dict(template.get("spec"))
    errs: list[FieldError] = []
    policy = spec.get("restartPolicy") or "Always"
    if policy != "Always":
        errs.append(not_supported(f"{path}.spec.restartPolicy", policy, ["Always"]))
    if spec.get("activeDeadlineSeconds") is not None:
        errs.append(forbidden(f"{path}.spec.activeDeadlineSeconds", f"activeDeadlineSeconds in {what} is not Supported"))
    return errs


# -- the kinds ------------------------------------------------------------------------------------
def _replicaset_template(selector: _Selector, template: dict, path: str) -> list[FieldError]:
    """ValidatePodTemplateSpecForReplicaSet (Deployments use it too, message included)."""
    errs: list[FieldError] = []
    if not selector.empty:
        errs += _mismatch(selector, template, path)
    errs += _template_meta_errors(template, path)
    errs += _restart_always(template, path, "ReplicaSet")
    return errs


def _deployment_or_replicaset(spec: dict, deployment: bool) -> list[FieldError]:
    errs = _nonnegative(spec, "replicas", "spec.replicas")
    if not deployment:
        errs += _nonnegative(spec, "minReadySeconds", "spec.minReadySeconds")
    errs += _selector_errors(spec, "spec.selector", "deployment", True)   # sic: ReplicaSets too
    selector = _Selector(spec.get("selector"))
    if not selector.ok:
        errs.append(invalid_typed("spec.selector", _selector_value(spec.get("selector")), "invalid label selector"))
    else:
        errs += _replicaset_template(selector, as_dict(spec.get("template")), "spec.template")
    if deployment:
        errs += _nonnegative(spec, "minReadySeconds", "spec.minReadySeconds")
        errs += _nonnegative(spec, "revisionHistoryLimit", "spec.revisionHistoryLimit")
        deadline = as_int(spec.get("progressDeadlineSeconds"))
        deadline = 600 if spec.get("progressDeadlineSeconds") is None else deadline
        if deadline is not None:
            if deadline < 0:
                errs.append(invalid_typed("spec.progressDeadlineSeconds", deadline, NEGATIVE))
            if deadline <= (as_int(spec.get("minReadySeconds")) or 0):
                errs.append(invalid_typed("spec.progressDeadlineSeconds", deadline,
                                          "must be greater than minReadySeconds"))
    return errs


def _statefulset(spec: dict) -> list[FieldError]:
    errs: list[FieldError] = []
    policy = spec.get("podManagementPolicy") or "OrderedReady"
    if policy not in ("OrderedReady", "Parallel"):
        errs.append(invalid_typed("spec.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'"))
    retention = spec.get("persistentVolumeClaimRetentionPolicy")
    if isinstance(retention, dict):
        for key in ("whenDeleted", "whenScaled"):
            value = retention.get(key) or "Retain"
            if value not in ("Retain", "Delete"):
                errs.append(not_supported(f"spec.persistentVolumeClaimRetentionPolicy.{key}", value,
                                          ["Retain", "Delete"]))
    errs += _nonnegative(spec, "replicas", "spec.replicas")
    errs += _nonnegative(spec, "minReadySeconds", "spec.minReadySeconds")
    errs += _nonnegative(as_dict(spec.get("ordinals")), "start", "spec.ordinals.start")
    errs += _selector_errors(spec, "spec.selector", "statefulset", True)
    selector = _Selector(spec.get("selector"))
    template = as_dict(spec.get("template"))
    if not selector.ok:
        errs.append(invalid_typed("spec.selector", _selector_value(spec.get("selector")), ""))
    else:
        if not selector.empty:
            errs += _mismatch(selector, template, "spec.template")
        errs += _template_meta_errors(template, "spec.template")
    errs += _restart_always(template, "spec.template", "StatefulSet")
    return errs


def _daemonset(spec: dict) -> list[FieldError]:
    selector_raw = spec.get("selector")
    errs = validate_label_selector(selector_raw, "spec.selector") if isinstance(selector_raw, dict) else []
    selector = _Selector(selector_raw)
    template = as_dict(spec.get("template"))
    if selector.ok:
        errs += _mismatch(selector, template, "spec.template")
    if isinstance(selector_raw, dict) and not (selector_raw.get("matchLabels") or selector_raw.get("matchExpressions")):
        errs.append(invalid_typed("spec.selector", _selector_value(selector_raw), "empty selector is invalid for daemonset"))
    errs += _template_meta_errors(template, "spec.template")
    errs += _restart_always(template, "spec.template", "DaemonSet")
    errs += _nonnegative(spec, "minReadySeconds", "spec.minReadySeconds")
    errs += _nonnegative(spec, "templateGeneration", "spec.templateGeneration")
    errs += _nonnegative(spec, "revisionHistoryLimit", "spec.revisionHistoryLimit")
    return errs


def _job_spec(spec: dict, path: str) -> list[FieldError]:
    """validateJobSpec: the counts, then the pod template and its restartPolicy."""
    errs: list[FieldError] = []
    for key in ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished"):
        errs += _nonnegative(spec, key, f"{path}.{key}")
    template = as_dict(spec.get("template"))
    tpath = f"{path}.template"
    errs += _template_meta_errors(template, tpath)
    policy = as_dict(template.get("spec")).get("restartPolicy") or "Always"
    if policy not in JOB_RESTART_POLICIES:
        errs.append(not_supported(f"{tpath}.spec.restartPolicy", policy, JOB_RESTART_POLICIES))
    elif policy == "OnFailure" and spec.get("podFailurePolicy") is not None:
        errs.append(invalid_typed(f"{tpath}.spec.restartPolicy", policy,
                                  'only "Never" is supported when podFailurePolicy is specified'))
    return errs


def _has_label(template: dict, key: str, expected: str) -> list[FieldError]:
    """ValidateHasLabel on the template's metadata."""
    labels = as_dict(as_dict(template.get("metadata")).get("labels"))
    path = f"spec.template.metadata.labels[{key}]"
    if key not in labels:
        return [required(path, f"must be '{expected}'")]
    if labels[key] != expected:
        return [invalid_typed(path, _labels_value(labels), f"must be '{expected}'")]
    return []


def _job(job: dict) -> list[FieldError]:
    spec = as_dict(job.get("spec"))
    name = as_dict(job.get("metadata")).get("name") or ""
    errs: list[FieldError] = []
    template = as_dict(spec.get("template"))
    if spec.get("manualSelector") is not True and isinstance(spec.get("selector"), dict):
        uid = object_uid(job)
        errs += _has_label(template, CONTROLLER_UID_LABEL, uid)
        errs += _has_label(template, JOB_NAME_LABEL, str(name))
        generated = _Selector(spec["selector"])
        if generated.ok and not generated.matches({CONTROLLER_UID_LABEL: uid, JOB_NAME_LABEL: str(name)}):
            errs.append(invalid_typed("spec.selector", _selector_value(spec["selector"]), "`selector` not auto-generated"))
    errs += _job_spec(spec, "spec")
    selector_raw = spec.get("selector")
    if selector_raw is None:
        errs.append(required("spec.selector"))
    elif isinstance(selector_raw, dict):
        errs += validate_label_selector(selector_raw, "spec.selector")
    selector = _Selector(selector_raw)
    if selector.ok:
        errs += _mismatch(selector, template, "spec.template")
    return errs


def _cronjob(cronjob: dict) -> list[FieldError]:
    spec = as_dict(cronjob.get("spec"))
    errs: list[FieldError] = []
    if not spec.get("schedule"):
        errs.append(required("spec.schedule"))
    errs += _nonnegative(spec, "startingDeadlineSeconds", "spec.startingDeadlineSeconds")
    policy = spec.get("concurrencyPolicy") or "Allow"
    if policy not in ("Allow", "Forbid", "Replace"):
        errs.append(not_supported("spec.concurrencyPolicy", policy, ["Allow", "Forbid", "Replace"]))
    job_spec = as_dict(as_dict(spec.get("jobTemplate")).get("spec"))
    errs += _job_spec(job_spec, "spec.jobTemplate.spec")
    if job_spec.get("selector") is not None:
        errs.append(invalid_typed("spec.jobTemplate.spec.selector", _selector_value(job_spec["selector"]),
                                  "`selector` will be auto-generated"))
    if job_spec.get("manualSelector") is True:
        errs.append(not_supported("spec.jobTemplate.spec.manualSelector", True, ["nil", "false"]))
    errs += _nonnegative(spec, "successfulJobsHistoryLimit", "spec.successfulJobsHistoryLimit")
    errs += _nonnegative(spec, "failedJobsHistoryLimit", "spec.failedJobsHistoryLimit")
    return errs


def _replication_controller(spec: dict) -> list[FieldError]:
    errs = _nonnegative(spec, "replicas", "spec.replicas")
    errs += _nonnegative(spec, "minReadySeconds", "spec.minReadySeconds")
    template = as_dict(spec.get("template"))
    selector = spec.get("selector")
    if not isinstance(selector, dict) or not selector:   # defaulted to the template's labels
        selector = as_dict(as_dict(template.get("metadata")).get("labels"))
    if not selector:
        errs.append(required("spec.selector"))
    elif any(as_dict(as_dict(template.get("metadata")).get("labels")).get(k) != v for k, v in selector.items()):
        errs.append(invalid_typed("spec.template.metadata.labels",
                                  _labels_value(as_dict(template.get("metadata")).get("labels")), SELECTOR_MISMATCH))
    errs += _template_meta_errors(template, "spec.template")
    errs += _restart_always(template, "spec.template", "ReplicationController")
    return errs


_NAME_FNS: dict[str, NameFn] = {"StatefulSet": is_dns1123_label}


def validate_workload(obj: dict) -> list[FieldError]:
    """The API server's field errors for a workload as written (after the defaulting that
    precedes validation); [] when it would store it. `obj` is not changed."""
    kind = obj.get("kind") or ""
    work = copy_json(obj)
    assert isinstance(work, dict)
    meta = work.get("metadata") if isinstance(work.get("metadata"), dict) else {}
    work["metadata"] = meta
    if not meta.get("namespace"):
        meta["namespace"] = "default"
    if not meta.get("name") and generated_name(work):
        meta["name"] = generated_name(work)
    if kind == "Job":
        generate_job_selector(work)
    errs = validate_object_meta(meta, True, _NAME_FNS.get(kind, is_dns1123_subdomain))
    spec = as_dict(work.get("spec"))
    if kind in ("Deployment", "ReplicaSet"):
        errs += _deployment_or_replicaset(spec, kind == "Deployment")
    elif kind == "StatefulSet":
        errs += _statefulset(spec)
    elif kind == "DaemonSet":
        errs += _daemonset(spec)
    elif kind == "Job":
        errs += _job(work)
    elif kind == "CronJob":
        errs += _cronjob(work)
        name = meta.get("name") or ""
        if isinstance(name, str) and len(name) > CRONJOB_NAME_MAX:
            errs.append(invalid("metadata.name", name, f"must be no more than {CRONJOB_NAME_MAX} characters"))
    elif kind == "ReplicationController":
        errs += _replication_controller(spec)
    return errs


def check_workload(obj: dict, source: Source | None) -> None:
    """Raise AdmissionRejected with the API server's message when it would refuse `obj` (the decoder's
    error for a field of the wrong type, when not schema-checked before)."""
    try:
        errs = validate_workload(obj)
    except (AttributeError, TypeError, ValueError, KeyError) as exc:
        if obj.get("kind") in SCHEMAS:
            check_decodes(copy_json(obj), source or Source("-"))
        raise InputError(f"cannot read the workload: {type(exc).__name__}: {exc}", source=source, obj=obj) from None
    if errs:
        raise AdmissionRejected(invalid_message(qualified_kind(obj.get("kind") or ""), generated_name(obj), errs),
                                source=source, obj=obj)


# -- a workload's pods refused ------------------------------------------------------------------
REFUSED_PODS = "the API server would refuse its pods"


def _template_path(kind: str) -> str:
    return ".".join(TEMPLATE_PATHS.get(kind, ("spec", "template")))


def refused_pods(err: KexplainError, workload: Any, kube: KubeVersion = DEFAULT_VERSION) -> KexplainError:
    """`err`, raised for the pod made from `workload`'s template, as the API server refusing the pods
    its controller creates (`Deployment default/web: the API server would refuse its pods: ...`)."""
    pod = err.obj
    if not (isinstance(workload, dict) and workload.get("kind") not in (None, "Pod") and isinstance(pod, dict)
            and pod.get("kind") == "Pod"):
        return err
    if isinstance(err, NamespaceNotFound):      # the workload's namespace does not exist: it is refused itself
        return NamespaceNotFound(err.message, source=err.source, obj=workload)
    kind = str(workload.get("kind"))
    field = f"{_template_path(kind)}.{err.field}" if err.field else None
    if not isinstance(err, AdmissionRejected):
        out: KexplainError = type(err)(err.message, source=err.source, obj=workload, field=field)
    else:
        meta = pod.get("metadata") if isinstance(pod.get("metadata"), dict) else {}
        name = meta.get("name") if isinstance(meta.get("name"), str) else ""
        message = err.message
        forbidden_prefix = f"pods {go_quote(name)} is forbidden: "
        invalid_prefix = f"Pod {go_quote(name)} is invalid: "
        if kind == "StatefulSet":          # its pods' real names
            message = f"{REFUSED_PODS}: {message}"
        elif message.startswith(forbidden_prefix):
            message = f"{REFUSED_PODS}: {message[len(forbidden_prefix):]}"
        elif message.startswith(invalid_prefix):
            template = _template_refused(pod, name, message, workload, kube)
            if template is not None:     # the API server validates the template with the workload
                out = AdmissionRejected(template, source=err.source, obj=workload, field=field)
                out.__cause__ = err
                return out
            message = f"{REFUSED_PODS} as invalid: {message[len(invalid_prefix):]}"
        elif name and name in message:
            message = (f"{REFUSED_PODS} ({name}: kexplain's name for its first pod, after the controller's "
                       f"pattern): {message}")
        else:
            message = f"{REFUSED_PODS}: {message}"
        out = AdmissionRejected(message, source=err.source, obj=workload, field=field)
    out.__cause__ = err
    return out


_POD_ONLY_PATHS = ("metadata.name", "metadata.generateName", "metadata.namespace")


def _template_refused(pod: dict, name: str, message: str, workload: dict, kube: KubeVersion) -> str | None:
    """The refusal of `workload` itself for its template (ValidatePodTemplateSpec, defaulted, no plugins'
    changes) when its pod was refused as invalid; None when the template is valid or not at fault."""
    errs = validate_pod_create(_as_template(pod, workload, kube), kube)
    if not errs or any(e.path.startswith(_POD_ONLY_PATHS) for e in errs):
        return None
    prefix = _template_path(str(workload.get("kind")))
    moved = [with_path(e, path=f"{prefix}.{e.path}") for e in errs]
    return invalid_message(qualified_kind(str(workload.get("kind"))), generated_name(workload), moved)


def _as_template(pod: dict, workload: dict, kube: KubeVersion) -> dict:
    """The pod made of `workload`'s template with the template's own spec, defaulted as a pod's."""
    template: Any = workload
    for key in TEMPLATE_PATHS.get(str(workload.get("kind")), ("spec", "template")):
        template = template.get(key) if isinstance(template, dict) else None
    spec = template.get("spec") if isinstance(template, dict) else None
    out = {**pod, "spec": copy_json(spec) if isinstance(spec, dict) else {}}
    defaults.default_pod(out, kube)
    gated_fields.drop_disabled_fields(out, gated_fields.pod_dropped_by(kube))
    return out


@contextmanager
def pods_of(workload: Any, kube: KubeVersion = DEFAULT_VERSION) -> Iterator[None]:
    """Errors raised within for the pod made from `workload` become the workload's
    (`refused_pods`, in `kube`); a Pod's pass unchanged."""
    try:
        yield
    except KexplainError as err:
        converted = refused_pods(err, workload, kube)
        if converted is err:
            raise
        raise converted from err


def workload_warnings(warnings: list[str], workload: Any) -> list[str]:
    """Admission's warnings for the pod made from `workload`'s template as the user sees them: Pod
    Security's warning is the workload's (`Deployment shop/web: Warning: ...`)."""
    if not isinstance(workload, dict) or workload.get("kind") in (None, "Pod"):
        return warnings
    meta = as_dict(workload.get("metadata"))
    who = f"{workload.get('kind')} {meta.get('namespace') or 'default'}/{generated_name(workload)}"
    out = []
    for w in warnings:
        head, sep, rest = w.partition(": Warning: would violate PodSecurity ")
        if sep and head.rsplit(": ", 1)[-1].startswith("pods "):
            w = f"{head.rsplit(': ', 1)[0]}: {who}: Warning: would violate PodSecurity {rest}"
        out.append(w)
    return out
