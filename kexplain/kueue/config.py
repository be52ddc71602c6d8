"""Kueue's own Configuration (apis/config v1beta1 and v1beta2, read as pkg/config loads it: decoded
strictly, `config_fields`, v1beta1 converted, defaulted, then validated): what a pass reads of it.
v1beta1's `fairSharing.enable: false` (or no fairSharing) is none (the conversion drops it); enabled
without strategies, the default pair. Fair sharing is modelled; the other fields that change Kueue's
decisions are modelled too: which jobs Kueue manages (`integrations.frameworks`, `manageJobsWithoutQueueName`,
`managedJobsNamespaceSelector`, `externalFrameworks`), `waitForPodsReady`, `resources` and
`admissionFairSharing` (`config_afs`); `multiKueue` is validated (`config_external`) and changes nothing
the manager cluster decides that kexplain sees; the rest is read, validated and said when given
(`not_modelled`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Mapping

from kexplain.apimachinery.fielderrors import (NOT_SUPPORTED, FieldError, Raw, duplicate, go_quote, invalid,
                                               invalid_typed, not_supported, required)
from kexplain.apimachinery.names import is_label_key
from kexplain.config._decode import format_duration, parse_duration
from kexplain.errors import InputError, Source
from kexplain.kueue.config_afs import AdmissionFairSharing, parse_admission_fair_sharing, validate_admission_fair_sharing
from kexplain.kueue.config_external import validate_external_frameworks, validate_multikueue
from kexplain.kueue.config_fields import check_strict
from kexplain.kueue.feature_gates import GATES_0_17, FeatureGates, GateTable, read_gates, validate_gates
from kexplain.apimachinery.quantity import parse
from kexplain.model.labels import LabelSelector, SelectorError, parse_selector

GROUP = "config.kueue.x-k8s.io"
KIND = "Configuration"
LESS_THAN_OR_EQUAL_TO_FINAL_SHARE = "LessThanOrEqualToFinalShare"
LESS_THAN_INITIAL_SHARE = "LessThanInitialShare"
DEFAULT_STRATEGIES = (LESS_THAN_OR_EQUAL_TO_FINAL_SHARE, LESS_THAN_INITIAL_SHARE)
# validateFairSharing: the strategy lists Kueue accepts
VALID_STRATEGY_SETS = ((LESS_THAN_OR_EQUAL_TO_FINAL_SHARE,), (LESS_THAN_INITIAL_SHARE,), DEFAULT_STRATEGIES)
DEFAULT_NAMESPACE = "kueue-system"
DEFAULT_FRAMEWORKS = ("batch/job",)     # SetDefaults: a Configuration that lists none
# What Kueue runs with when no Configuration is given: the one its manifests install
# (config/components/manager/controller_manager_config.yaml of v0.17.8). A Configuration given without
# frameworks is read as changing the installed one's other fields (so a fairSharing-only document
# keeps the installed integrations, as the yardstick's harness runs Kueue), not as SetDefaults'
# batch/job alone: to run Kueue with batch/job only, list it.
INSTALLED_FRAMEWORKS = (
    "batch/job", "kubeflow.org/mpijob", "ray.io/rayjob", "ray.io/raycluster", "ray.io/rayservice",
    "jobset.x-k8s.io/jobset", "kubeflow.org/paddlejob", "kubeflow.org/pytorchjob", "kubeflow.org/tfjob",
    "kubeflow.org/xgboostjob", "kubeflow.org/jaxjob", "workload.codeflare.dev/appwrapper",
    "trainer.kubeflow.org/trainjob", "pod", "deployment", "statefulset", "leaderworkerset.x-k8s.io/leaderworkerset")
METADATA_NAME_LABEL = "kubernetes.io/metadata.name"
POD_FRAMEWORK = "pod"
# jobframework.GetIntegrationsList of v0.17.8 (every FrameworkName registered), sorted as it sorts them
FRAMEWORKS = tuple(sorted((
    "batch/job", "deployment", "jobset.x-k8s.io/jobset", "kubeflow.org/jaxjob", "kubeflow.org/mpijob",
    "kubeflow.org/paddlejob", "kubeflow.org/pytorchjob", "kubeflow.org/tfjob", "kubeflow.org/xgboostjob",
    "leaderworkerset.x-k8s.io/leaderworkerset", "pod", "ray.io/raycluster", "ray.io/rayjob", "ray.io/rayservice",
    "sparkoperator.k8s.io/sparkapplication", "statefulset", "trainer.kubeflow.org/trainjob",
    "workload.codeflare.dev/appwrapper")))
V1BETA1_PODS_READY_TIMEOUT = "5m"       # v1beta1's defaultPodsReadyTimeout, when enabled without one
REQUEUING_TIMESTAMPS = ("Creation", "Eviction")
DEFAULT_BACKOFF_BASE_SECONDS = 60
DEFAULT_BACKOFF_MAX_SECONDS = 3600
TRANSFORMATION_STRATEGIES = ("Retain", "Replace")
NEGATIVE = "must be greater than or equal to 0"     # apimachineryvalidation.IsNegativeErrorMsg
TOO_MANY = "Too many"     # field.TooMany's type


@dataclass(frozen=True)
class FairSharing:
    preemption_strategies: tuple[str, ...] = DEFAULT_STRATEGIES


@dataclass(frozen=True)
class WaitForPodsReady:
    """waitForPodsReady, defaulted (SetDefaults): durations in seconds; `backoff_limit_count` None:
    requeued without limit."""

    timeout: float
    block_admission: bool = False
    recovery_timeout: float | None = None
    timestamp: str = "Eviction"
    backoff_limit_count: int | None = None
    backoff_base_seconds: int = DEFAULT_BACKOFF_BASE_SECONDS
    backoff_max_seconds: int = DEFAULT_BACKOFF_MAX_SECONDS


@dataclass(frozen=True)
class Transformation:
    """One of resources.transformations: `outputs` (resource, factor) in the order written."""

    input: str
    strategy: str = "Retain"
    multiply_by: str = ""
    outputs: tuple[tuple[str, Fraction], ...] = ()


@dataclass(frozen=True)
class Resources:
    """resources: what Kueue drops from and makes of a pod set's requests before counting them."""

    exclude_prefixes: tuple[str, ...] = ()
    transformations: tuple[Transformation, ...] = ()
    # deviceClassMappings: each device class and the logical resource its devices count as (the
    # DynamicResourceAllocation gate: `kexplain.kueue.workload.dra`)
    device_classes: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ObjectRetention:
    """objectRetentionPolicies.workloads, in seconds (None: kept for ever): a finished Workload is
    deleted `after_finished` after it finished; a job whose Workload Kueue deactivated,
    `after_deactivated` after the eviction (its Workload with it)."""

    after_finished: float | None = None
    after_deactivated: float | None = None


def default_namespace_selector(namespace: str) -> LabelSelector:
    """SetDefaults' managedJobsNamespaceSelector: every namespace but kube-system and Kueue's own."""
    return parse_selector({"matchExpressions": [{"key": METADATA_NAME_LABEL, "operator": "NotIn",
                                                 "values": ["kube-system", namespace]}]})


@dataclass(frozen=True)
class KueueConfig:
    """What kexplain reads of a Configuration; `given`: its top-level fields as written. The defaults
    are Kueue's as installed (no Configuration given: INSTALLED_FRAMEWORKS)."""

    fair_sharing: FairSharing | None = None
    admission_fair_sharing: AdmissionFairSharing | None = None     # None: not given (AFS off)
    namespace: str = DEFAULT_NAMESPACE
    frameworks: tuple[str, ...] = INSTALLED_FRAMEWORKS
    external_frameworks: tuple[str, ...] = ()
    manage_jobs_without_queue_name: bool = False
    namespace_selector: LabelSelector = field(default_factory=lambda: default_namespace_selector(DEFAULT_NAMESPACE))
    wait_for_pods_ready: WaitForPodsReady | None = None
    resources: Resources = Resources()
    feature_gates: FeatureGates = FeatureGates()    # featureGates over the release's defaults
    retention: ObjectRetention = ObjectRetention()      # objectRetentionPolicies.workloads
    given: tuple[str, ...] = ()

    @property
    def pods_ready_eviction(self) -> bool:
        """podsReadyRequeuingTimestamp (cmd/kueue): the queue orders a Workload a PodsReady timeout
        evicted by that eviction (`Eviction`, also without waitForPodsReady or a timestamp), or by
        its creation (`Creation`): what the queue manager's and the scheduler's Ordering get."""
        ready = self.wait_for_pods_ready
        return ready is None or ready.timestamp != "Creation"

    @property
    def exclude_resource_prefixes(self) -> tuple[str, ...]:
        return self.resources.exclude_prefixes

    def namespace_managed(self, labels: Mapping[str, str]) -> bool:
        """managedJobsNamespaceSelector matches a namespace of these labels."""
        return self.namespace_selector.matches(labels)

    @property
    def not_modelled(self) -> tuple[str, ...]:
        """What is given that changes Kueue's decisions but kexplain decides as if unset: every field is
        modelled, so only the feature gates kexplain does not model (`FeatureGates.not_modelled`)."""
        return self.feature_gates.not_modelled()

    def enabled(self, gate: str) -> bool:
        """Whether Kueue runs with the feature gate on (featureGates over its release's default)."""
        return self.feature_gates.enabled(gate)

    def note(self) -> str | None:
        """One line saying what of the Configuration is read but not modelled, or None."""
        fields = self.not_modelled
        if not fields:
            return None
        return (f"the Configuration's {', '.join(fields)}: read and validated as Kueue's loader does, not modelled "
                "(kexplain decides as Kueue does with them at their defaults)")


def is_configuration(obj: Mapping[str, Any]) -> bool:
    api = obj.get("apiVersion")
    return obj.get("kind") == KIND and isinstance(api, str) and api.split("/", 1)[0] == GROUP


def parse_configuration(obj: Mapping[str, Any], source: Source | None = None,
                        gates: GateTable | None = GATES_0_17) -> KueueConfig:
    """The Configuration as Kueue's config loader reads it (strict decoding, conversion, defaults,
    validation), then its featureGates as the manager applies them at start against the release's
    `gates` (None: not yet, the release not known); whatever Kueue refuses is bad input in its words
    (several errors as its aggregate)."""
    version = str(obj.get("apiVersion") or "").partition("/")[2]
    check_strict(obj, version, source)
    converted = _as_v1beta2(obj, version)
    errors = _validate(converted) or (validate_gates(converted.get("featureGates"), gates) if gates else [])
    if errors:
        text = str(errors[0]) if len(errors) == 1 else f"[{', '.join(str(e) for e in errors)}]"
        raise InputError(text, source=source, obj=dict(obj))
    fs = converted.get("fairSharing")
    integrations = converted.get("integrations") or {}
    raw_selector = converted.get("managedJobsNamespaceSelector")
    return KueueConfig(
        fair_sharing=FairSharing(tuple(fs["preemptionStrategies"])) if fs is not None else None,
        admission_fair_sharing=parse_admission_fair_sharing(converted.get("admissionFairSharing")),
        namespace=_namespace(converted),
        frameworks=tuple(integrations.get("frameworks") or INSTALLED_FRAMEWORKS),
        external_frameworks=tuple(integrations.get("externalFrameworks") or ()),
        manage_jobs_without_queue_name=converted.get("manageJobsWithoutQueueName") is True,
        namespace_selector=(parse_selector(raw_selector) if raw_selector is not None
                            else default_namespace_selector(_namespace(converted))),
        wait_for_pods_ready=_pods_ready(converted.get("waitForPodsReady")),
        resources=_resources(converted.get("resources") or {}),
        feature_gates=read_gates(converted.get("featureGates"), gates or GATES_0_17),
        retention=_retention(converted.get("objectRetentionPolicies")),
        given=tuple(k for k in obj if k not in ("apiVersion", "kind")))


def _seconds(value: Any) -> float | None:
    return parse_duration(value) / 1e9 if isinstance(value, str) and parse_duration(value) is not None else None


def _pods_ready(ready: Mapping[str, Any] | None) -> WaitForPodsReady | None:
    """waitForPodsReady as SetDefaults leaves it (recoveryTimeout: the timeout's when not given)."""
    if ready is None:
        return None
    timeout = _seconds(ready.get("timeout")) or 0.0
    recovery = _seconds(ready.get("recoveryTimeout"))
    strategy = ready.get("requeuingStrategy") or {}
    limit = strategy.get("backoffLimitCount")
    return WaitForPodsReady(
        timeout=timeout, block_admission=ready.get("blockAdmission") is True,
        recovery_timeout=recovery if recovery is not None else timeout,
        timestamp=str(strategy.get("timestamp") or "Eviction"),
        backoff_limit_count=int(limit) if isinstance(limit, int) else None,
        backoff_base_seconds=int(strategy.get("backoffBaseSeconds") or DEFAULT_BACKOFF_BASE_SECONDS),
        backoff_max_seconds=int(strategy.get("backoffMaxSeconds") or DEFAULT_BACKOFF_MAX_SECONDS))


def _retention(raw: Mapping[str, Any] | None) -> ObjectRetention:
    workloads = (raw or {}).get("workloads") or {}
    return ObjectRetention(_seconds(workloads.get("afterFinished")), _seconds(workloads.get("afterDeactivatedByKueue")))


def _resources(raw: Mapping[str, Any]) -> Resources:
    transformations = tuple(
        Transformation(str(t.get("input") or ""), str(t.get("strategy") or "Retain"), str(t.get("multiplyBy") or ""),
                       tuple((str(k), parse(v).value) for k, v in (t.get("outputs") or {}).items()))
        for t in raw.get("transformations") or ())
    device_classes = tuple((str(dc), str(m.get("name") or "")) for m in raw.get("deviceClassMappings") or ()
                           for dc in m.get("deviceClassNames") or ())
    return Resources(tuple(str(p) for p in raw.get("excludeResourcePrefixes") or ()), transformations, device_classes)


def _as_v1beta2(obj: Mapping[str, Any], version: str) -> dict[str, Any]:
    """A v1beta1 Configuration as its conversion to v1beta2 leaves what kexplain reads: fair sharing and
    waitForPodsReady dropped unless enabled (enabled: their defaults), podOptions dropped."""
    out = dict(obj)
    if version != "v1beta1":
        return out
    fs = obj.get("fairSharing")
    if fs is None or fs.get("enable") is not True:
        out.pop("fairSharing", None)
    else:
        out["fairSharing"] = {"preemptionStrategies": list(fs.get("preemptionStrategies") or DEFAULT_STRATEGIES)}
    ready = obj.get("waitForPodsReady")
    if ready is None or ready.get("enable") is not True:
        out.pop("waitForPodsReady", None)
    else:
        out["waitForPodsReady"] = {"timeout": V1BETA1_PODS_READY_TIMEOUT,
                                   **{k: v for k, v in ready.items() if k != "enable" and v is not None}}
    return out


def _namespace(cfg: Mapping[str, Any]) -> str:
    return str(cfg.get("namespace") or DEFAULT_NAMESPACE)


def _validate(cfg: Mapping[str, Any]) -> list[FieldError]:
    """pkg/config validate, the parts that read what a decision depends on, after SetDefaults."""
    frameworks = list((cfg.get("integrations") or {}).get("frameworks") or DEFAULT_FRAMEWORKS)
    return [*_wait_for_pods_ready(cfg.get("waitForPodsReady")), *_integrations(cfg),
            *validate_multikueue(cfg.get("multiKueue"), frameworks), *_fair_sharing(cfg.get("fairSharing")),
            *validate_admission_fair_sharing(cfg.get("admissionFairSharing")), *_transformations(cfg.get("resources")),
            *_device_class_mappings((cfg.get("resources") or {}).get("deviceClassMappings") or ()),
            *_object_retention(cfg.get("objectRetentionPolicies"))]


def _name_errors(path: str, name: str) -> list[FieldError]:
    errors = [invalid_typed(path, name, "; ".join(errs))] if (errs := is_label_key(name)) else []
    return errors + ([invalid_typed(path, name, "must not exceed 253 characters")] if len(name) > 253 else [])


def _device_class_mappings(mappings: Any) -> list[FieldError]:
    """validateDeviceClassMappings: at most 16 mappings, each a resource name once, with one to eight
    device classes, none mapped to two resources."""
    base = "resources.deviceClassMappings"
    errors = [FieldError(TOO_MANY, base, None, f"{len(mappings)}: must have at most 16 items")] if len(mappings) > 16 else []
    seen: set[str] = set()
    mapped: dict[str, str] = {}
    for i, mapping in enumerate(mappings):
        path, name, classes = f"{base}[{i}]", str(mapping.get("name") or ""), list(mapping.get("deviceClassNames") or ())
        errors += _name_errors(f"{path}.name", name)
        errors += [duplicate(f"{path}.name", name, typed=True)] if name in seen else []
        seen.add(name)
        if not classes:
            errors.append(required(f"{path}.deviceClassNames", "at least one device class name is required"))
        if len(classes) > 8:
            errors.append(FieldError(TOO_MANY, f"{path}.deviceClassNames", None,
                                     f"{len(classes)}: must have at most 8 items"))
        own: set[str] = set()
        for j, dc in enumerate(map(str, classes)):
            where = f"{path}.deviceClassNames[{j}]"
            errors += _name_errors(where, dc) + ([duplicate(where, dc, typed=True)] if dc in own else [])
            own.add(dc)
            if mapped.setdefault(dc, name) != name:
                errors.append(invalid_typed(where, dc, f"device class already mapped to resource {mapped[dc]}"))
    return errors


def _object_retention(raw: Mapping[str, Any] | None) -> list[FieldError]:
    """validateObjectRetentionPolicies: no negative retention (printed as Go's Duration.String)."""
    workloads = (raw or {}).get("workloads") or {}
    return [invalid(f"objectRetentionPolicies.workloads.{key}", format_duration(_nanos(workloads[key])), NEGATIVE)
            for key in ("afterFinished", "afterDeactivatedByKueue") if _nanos(workloads.get(key)) < 0]


def _nanos(value: Any) -> int:
    return parse_duration(value) or 0 if isinstance(value, str) else 0


def _wait_for_pods_ready(ready: Mapping[str, Any] | None) -> list[FieldError]:
    if ready is None:
        return []
    errors: list[FieldError] = []
    timeout = _nanos(ready.get("timeout"))
    if timeout == 0:
        errors.append(required("waitForPodsReady.timeout", "must be specified"))
    elif timeout < 0:
        errors.append(invalid("waitForPodsReady.timeout", ready.get("timeout"), NEGATIVE))
    if _nanos(ready.get("recoveryTimeout")) < 0:
        errors.append(invalid("waitForPodsReady.recoveryTimeout", ready.get("recoveryTimeout"), NEGATIVE))
    strategy = ready.get("requeuingStrategy") or {}
    stamp = strategy.get("timestamp")
    if stamp is not None and stamp not in REQUEUING_TIMESTAMPS:
        errors.append(not_supported("waitForPodsReady.requeuingStrategy.timestamp", stamp, REQUEUING_TIMESTAMPS))
    for key in ("backoffLimitCount", "backoffBaseSeconds", "backoffMaxSeconds"):
        if isinstance(strategy.get(key), int) and strategy[key] < 0:
            errors.append(invalid(f"waitForPodsReady.requeuingStrategy.{key}", strategy[key], NEGATIVE))
    return errors


def _integrations(cfg: Mapping[str, Any]) -> list[FieldError]:
    """validateIntegrations with the defaults applied (no frameworks: batch/job)."""
    frameworks = list((cfg.get("integrations") or {}).get("frameworks") or DEFAULT_FRAMEWORKS)
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, name in enumerate(frameworks):
        if name not in FRAMEWORKS:
            errors.append(not_supported(f"integrations.frameworks[{i}]", name, FRAMEWORKS, typed=False))
        elif name in seen:
            errors.append(duplicate(f"integrations.frameworks[{i}]", name))
        seen.add(name)
    errors += validate_external_frameworks(frameworks, (cfg.get("integrations") or {}).get("externalFrameworks") or ())
    return errors + _namespace_selector(cfg, POD_FRAMEWORK in frameworks)


def _namespace_selector(cfg: Mapping[str, Any], pod: bool) -> list[FieldError]:
    """managedJobsNamespaceSelector must be a selector (the manager fails on one that is not); with the
    pod integration (defaulted: not kube-system nor Kueue's own namespace) it must select neither."""
    raw = cfg.get("managedJobsNamespaceSelector")
    if raw is None:
        return []       # the default excludes both
    try:
        selector = parse_selector(raw)
    except SelectorError as err:
        return [invalid("managedJobsNamespaceSelector", raw, str(err))]
    return [invalid("managedJobsNamespaceSelector", raw, f'should not match the "{ns}" namespace')
            for ns in ("kube-system", _namespace(cfg)) if pod and selector.matches({METADATA_NAME_LABEL: ns})]


def _fair_sharing(fs: Mapping[str, Any] | None) -> list[FieldError]:
    if fs is None:
        return []
    given = tuple(str(s) for s in fs.get("preemptionStrategies") or ())
    if not given:
        return [required("fairSharing.preemptionStrategies", "must be specified")]
    if given not in VALID_STRATEGY_SETS:
        shown = Raw("[]v1beta2.PreemptionStrategy{" + ", ".join(go_quote(s) for s in given) + "}")     # %#v
        return [FieldError(NOT_SUPPORTED, "fairSharing.preemptionStrategies", shown,
                           "supported values: " + ", ".join(f'"{",".join(s)}"' for s in VALID_STRATEGY_SETS))]
    return []


def _transformations(resources: Mapping[str, Any] | None) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, t in enumerate((resources or {}).get("transformations") or ()):
        strategy = t.get("strategy") or "Retain"        # SetDefaults: Retain
        if strategy not in TRANSFORMATION_STRATEGIES:
            errors.append(not_supported(f"resources.transformations[{i}].strategy", strategy,
                                        TRANSFORMATION_STRATEGIES))
        if t.get("input") in seen:
            errors.append(duplicate(f"resources.transformations[{i}].input", t.get("input"), typed=True))
        seen.add(t.get("input"))
    return errors

