"""Kueue's Configuration `integrations.externalFrameworks` and `multiKueue`, validated as pkg/config
validates them (validateIntegrations, validateMultiKueue): a kind an external controller turns into
Workloads is named `Kind.version.group` (schema.ParseKindArg) and must not be a framework listed."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from kexplain.apimachinery.fielderrors import FieldError, duplicate, invalid, invalid_typed
from kexplain.apimachinery.names import is_label_value
from kexplain.config._decode import parse_duration

NEGATIVE = "must be greater than or equal to 0"
EXTERNAL_FORMAT = "must be format, 'Kind.version.group.com'"
# what kexplain says of an external framework's job (`kexplain kueue`, plain `kexplain FILE`, lint)
EXTERNAL = ("its Workload is made by an external controller (integrations.externalFrameworks: {}): kexplain "
            "explains the Workload, given or live, not the job")
# Each framework's job type as GroupVersionKind.String() (the scheme's GVKForObject)
FRAMEWORK_GVK = {
    "batch/job": "batch/v1, Kind=Job", "pod": "/v1, Kind=Pod", "deployment": "apps/v1, Kind=Deployment",
    "statefulset": "apps/v1, Kind=StatefulSet", "jobset.x-k8s.io/jobset": "jobset.x-k8s.io/v1alpha2, Kind=JobSet",
    "kubeflow.org/mpijob": "kubeflow.org/v2beta1, Kind=MPIJob", "kubeflow.org/pytorchjob": "kubeflow.org/v1, Kind=PyTorchJob",
    "kubeflow.org/tfjob": "kubeflow.org/v1, Kind=TFJob", "kubeflow.org/xgboostjob": "kubeflow.org/v1, Kind=XGBoostJob",
    "kubeflow.org/paddlejob": "kubeflow.org/v1, Kind=PaddleJob", "kubeflow.org/jaxjob": "kubeflow.org/v1, Kind=JAXJob",
    "ray.io/rayjob": "ray.io/v1, Kind=RayJob", "ray.io/raycluster": "ray.io/v1, Kind=RayCluster",
    "ray.io/rayservice": "ray.io/v1, Kind=RayService",
    "leaderworkerset.x-k8s.io/leaderworkerset": "leaderworkerset.x-k8s.io/v1, Kind=LeaderWorkerSet",
    "workload.codeflare.dev/appwrapper": "workload.codeflare.dev/v1beta2, Kind=AppWrapper",
    "trainer.kubeflow.org/trainjob": "trainer.kubeflow.org/v1alpha1, Kind=TrainJob",
    "sparkoperator.k8s.io/sparkapplication": "sparkoperator.k8s.io/v1beta2, Kind=SparkApplication"}
# The frameworks without a MultiKueue adapter (GetMultiKueueAdapters skips them)
NO_MULTIKUEUE_ADAPTER = frozenset({"deployment", "sparkoperator.k8s.io/sparkapplication"})


def parse_kind_arg(arg: str) -> tuple[str, str, str] | None:
    """schema.ParseKindArg's GroupVersionKind: (group, version, kind), None without two dots."""
    if arg.count(".") < 2:
        return None
    kind, version, group = arg.split(".", 2)
    return group, version, kind


def gvk_string(gvk: tuple[str, str, str]) -> str:
    group, version, kind = gvk
    return f"{group}/{version}, Kind={kind}"


def external_framework(obj: Mapping[str, Any], names: Sequence[str]) -> str:
    """The name in `names` (`integrations.externalFrameworks`) of `obj`'s kind and API group, "" when
    none names it: a job Kueue manages whose Workload that kind's own controller makes."""
    api, kind = str(obj.get("apiVersion") or ""), str(obj.get("kind") or "")
    group = api.rsplit("/", 1)[0] if "/" in api else ""
    for name in names:
        gvk = parse_kind_arg(name)
        if gvk is not None and (gvk[0], gvk[2]) == (group, kind):
            return name
    return ""


def validate_external_frameworks(frameworks: Sequence[str], external: Sequence[Any]) -> list[FieldError]:
    """validateIntegrations' second half: each external name parses and is not a kind listed before."""
    managed = {FRAMEWORK_GVK[f] for f in frameworks if f in FRAMEWORK_GVK}
    errors: list[FieldError] = []
    for i, name in enumerate(external):
        path = f"integrations.externalFrameworks[{i}]"
        gvk = parse_kind_arg(str(name))
        if gvk is None:
            errors.append(invalid(path, str(name), EXTERNAL_FORMAT))
        elif gvk_string(gvk) in managed:
            errors.append(duplicate(path, str(name)))
        else:
            managed.add(gvk_string(gvk))
    return errors


def validate_multikueue(mk: Mapping[str, Any] | None, frameworks: Sequence[str]) -> list[FieldError]:
    """validateMultiKueue: durations not negative (shown as Go's nanoseconds), the origin a label
    value, external adapters named `kind.version.group`, once, none a built-in adapter's kind."""
    if mk is None:
        return []
    errors: list[FieldError] = []
    for key in ("gcInterval", "workerLostTimeout"):
        ns = parse_duration(mk[key]) if isinstance(mk.get(key), str) else None
        if ns is not None and ns < 0:
            errors.append(invalid_typed(f"multiKueue.{key}", ns, NEGATIVE))
    origin = mk.get("origin")
    if isinstance(origin, str) and is_label_value(origin):
        errors.append(invalid("multiKueue.origin", origin, ",".join(is_label_value(origin))))
    built_in = {FRAMEWORK_GVK[f] for f in frameworks if f in FRAMEWORK_GVK and f not in NO_MULTIKUEUE_ADAPTER}
    seen: set[str] = set()
    for i, entry in enumerate(mk.get("externalFrameworks") or ()):
        name = str((entry or {}).get("name") or "")
        path = f"multiKueue.externalFrameworks[{i}].name"
        gvk = parse_kind_arg(name)
        if gvk is None:
            errors.append(invalid(path, name, "must be in 'kind.version.group' format"))
            continue
        if gvk_string(gvk) in seen:
            errors.append(duplicate(path, name))
        seen.add(gvk_string(gvk))
        if gvk_string(gvk) in built_in:
            errors.append(invalid(path, name, "conflicts with a built-in MultiKueue adapter"))
    return errors
