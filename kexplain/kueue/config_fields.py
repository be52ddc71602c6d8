"""The shape of Kueue's `Configuration` (apis/config v1beta1 and v1beta2 of v0.17.8) as data, and the
strict decoding Kueue's config loader does of a file (`pkg/config` fromFile: the codec factory with
EnableStrict): an unknown field or a value of the wrong JSON type is refused before any validation.
A struct is a dict of its JSON names; a leaf is its Go type (`[]T`, `map[string]T`, `Duration`)."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.apimachinery.quantity import QuantityError, parse
from kexplain.config._decode import parse_duration
from kexplain.errors import InputError, Source

Spec = Any      # a Go type name, a struct (dict), or a list of one struct ([{...}]: a slice of structs)

_SELECTOR = {"matchLabels": "map[string]string",
             "matchExpressions": [{"key": "string", "operator": "string", "values": "[]string"}]}
_LEADER_ELECTION = {"leaderElect": "bool", "leaseDuration": "Duration", "renewDeadline": "Duration",
                    "retryPeriod": "Duration", "resourceLock": "string", "resourceName": "string",
                    "resourceNamespace": "string"}
_CONTROLLER_MANAGER = {
    "webhook": {"port": "int", "host": "string", "certDir": "string"},
    "leaderElection": _LEADER_ELECTION,
    "metrics": {"bindAddress": "string", "enableClusterQueueResources": "bool",
                "customLabels": [{"name": "string", "sourceLabelKey": "string", "sourceAnnotationKey": "string"}],
                "localQueueMetrics": {"enable": "bool", "localQueueSelector": _SELECTOR}},
    "health": {"healthProbeBindAddress": "string", "readinessEndpointName": "string",
               "livenessEndpointName": "string"},
    "pprofBindAddress": "string",
    "controller": {"groupKindConcurrency": "map[string]int", "cacheSyncTimeout": "int64"},
    "tls": {"minVersion": "string", "cipherSuites": "[]string"},
}
_REQUEUING = {"timestamp": "string", "backoffLimitCount": "int32", "backoffBaseSeconds": "int32",
              "backoffMaxSeconds": "int32"}
_MULTIKUEUE = {"gcInterval": "Duration", "origin": "string", "workerLostTimeout": "Duration",
               "dispatcherName": "string", "externalFrameworks": [{"name": "string"}]}
_RESOURCES = {"excludeResourcePrefixes": "[]string",
              "transformations": [{"input": "string", "strategy": "string", "multiplyBy": "string",
                                   "outputs": "map[string]Quantity"}],
              "deviceClassMappings": [{"name": "string", "deviceClassNames": "[]string"}]}
_COMMON = {
    "apiVersion": "string", "kind": "string", "namespace": "string", **_CONTROLLER_MANAGER,
    "manageJobsWithoutQueueName": "bool", "managedJobsNamespaceSelector": _SELECTOR,
    "internalCertManagement": {"enable": "bool", "webhookServiceName": "string", "webhookSecretName": "string"},
    "clientConnection": {"qps": "float32", "burst": "int32"},
    "admissionFairSharing": {"usageHalfLifeTime": "Duration", "usageSamplingInterval": "Duration",
                             "resourceWeights": "map[string]float64"},
    "resources": _RESOURCES,
    "featureGates": "map[string]bool",
    "objectRetentionPolicies": {"workloads": {"afterFinished": "Duration", "afterDeactivatedByKueue": "Duration"}},
}
# Each version's Configuration (configuration_types.go); where v1beta1 differs, its own fields.
CONFIGURATION: dict[str, dict[str, Spec]] = {
    "v1beta2": {
        **_COMMON,
        "waitForPodsReady": {"timeout": "Duration", "blockAdmission": "bool", "requeuingStrategy": _REQUEUING,
                             "recoveryTimeout": "Duration"},
        "integrations": {"frameworks": "[]string", "externalFrameworks": "[]string", "labelKeysToCopy": "[]string"},
        "multiKueue": {**_MULTIKUEUE, "clusterProfile": {"credentialsProviders": [
            {"name": "string", "execConfig": "object"}]}},
        "fairSharing": {"preemptionStrategies": "[]string"},
        "visibilityServer": {"bindAddress": "string", "bindPort": "int32"},
    },
    "v1beta1": {
        **_COMMON,
        "waitForPodsReady": {"enable": "bool", "timeout": "Duration", "blockAdmission": "bool",
                             "requeuingStrategy": _REQUEUING, "recoveryTimeout": "Duration"},
        "integrations": {"frameworks": "[]string", "externalFrameworks": "[]string", "labelKeysToCopy": "[]string",
                         "podOptions": {"namespaceSelector": _SELECTOR, "podSelector": _SELECTOR}},
        "multiKueue": _MULTIKUEUE,
        "fairSharing": {"enable": "bool", "preemptionStrategies": "[]string"},
        "queueVisibility": {"clusterQueues": {"maxCount": "int32"}, "updateIntervalSeconds": "int32"},
    },
}
_INT_RANGES = {"int32": 2 ** 31, "int64": 2 ** 63, "int": 2 ** 63}


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, Mapping) else "null"


def _type_name(spec: Spec) -> str:
    if isinstance(spec, list):
        return "[]struct"
    return "struct" if isinstance(spec, dict) else str(spec)


class _Refused(Exception):
    def __init__(self, message: str, path: str) -> None:
        super().__init__(message)
        self.message, self.path = message, path


def _leaf(value: Any, go: str, path: str) -> None:
    """One value of Go type `go` as encoding/json decodes it (null leaves it unset)."""
    jtype = _json_type(value)
    wrong = _Refused(f"json: cannot unmarshal {jtype} into Go struct field {path} of type {go}", path)
    if value is None or go == "object":
        if go == "object" and jtype not in ("object", "null"):
            raise wrong
        return
    if go.startswith("[]"):
        if jtype != "array":
            raise wrong
        for i, item in enumerate(value):
            _leaf(item, go[2:], f"{path}[{i}]")
    elif go.startswith("map[string]"):
        if jtype != "object":
            raise wrong
        for key, item in value.items():
            _leaf(item, go[len("map[string]"):], f"{path}.{key}")
    elif go in ("string", "bool"):
        if jtype != go:
            raise wrong
    elif go == "Duration":
        if jtype != "string":
            raise wrong
        if parse_duration(value) is None:
            raise _Refused(f'time: invalid duration "{value}"', path)
    elif go == "Quantity":
        if jtype not in ("string", "number"):
            raise wrong
        try:
            parse(value)
        except QuantityError as err:        # resource.Quantity's UnmarshalJSON
            raise _Refused(str(err), path) from None
    elif go in _INT_RANGES:
        if jtype != "number" or (isinstance(value, float) and not value.is_integer()) \
                or not -_INT_RANGES[go] <= value < _INT_RANGES[go]:
            raise wrong
    elif jtype != "number":         # float32, float64
        raise wrong


def _walk(value: Any, spec: Spec, path: str) -> None:
    if isinstance(spec, list):
        if value is None:
            return
        if not isinstance(value, list):
            raise _Refused(f"json: cannot unmarshal {_json_type(value)} into Go struct field {path} of type "
                           f"{_type_name(spec)}", path)
        for i, item in enumerate(value):
            _walk(item, spec[0], f"{path}[{i}]")
    elif isinstance(spec, dict):
        if value is None:
            return
        if not isinstance(value, Mapping):
            raise _Refused(f"json: cannot unmarshal {_json_type(value)} into Go struct field {path} of type "
                           "struct", path)
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if key not in spec:
                raise _Refused(f'strict decoding error: unknown field "{where}"', where)
            _walk(item, spec[key], where)
    else:
        _leaf(value, spec, path)


def check_strict(obj: Mapping[str, Any], version: str, source: Source | None = None) -> None:
    """`obj` decoded strictly as Kueue's loader decodes a Configuration of `version`; the first
    unknown field or wrong type is bad input in the decoder's words."""
    spec = CONFIGURATION.get(version)
    if spec is None:
        raise InputError(f'no kind "Configuration" is registered for version "{GROUP_PREFIX}{version}"; '
                         f"Kueue reads {', '.join(GROUP_PREFIX + v for v in CONFIGURATION)}", source=source)
    try:
        _walk(obj, spec, "")
    except _Refused as err:
        raise InputError(err.message, source=source, obj=dict(obj)) from None


GROUP_PREFIX = "config.kueue.x-k8s.io/"
