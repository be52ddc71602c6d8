"""AdmissionCheck (admissioncheck_types.go) and ProvisioningRequestConfig
(provisioningrequestconfig_types.go): a check a ClusterQueue's Workloads pass after they reserve
quota, and the configuration its ProvisioningRequest controller reads. Kueue's cache reads of a
check only its controller and whether it is `Active` (cache.go AddOrUpdateAdmissionCheck): the
check controllers set that condition, and kexplain reads it as given."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from kexplain.errors import Source
from kexplain.kueue.apis import schema
from kexplain.kueue.apis.constants import ADMISSION_CHECK, ADMISSION_CHECK_ACTIVE, PROVISIONING_REQUEST_CONFIG
from kexplain.kueue.apis.meta import ObjectMeta, object_meta


@dataclass(frozen=True)
class AdmissionCheck:
    meta: ObjectMeta
    controller_name: str
    active: bool
    parameters: Mapping[str, str] | None = None     # {apiGroup, kind, name}
    inactive_reason: str = ""                        # the Active condition's reason and message, when not True
    inactive_message: str = ""
    has_active_condition: bool = False               # the Active condition is there (its controller set it)

    @property
    def name(self) -> str:
        return self.meta.name


# the CRD's defaults of spec.retryStrategy (provisioningrequestconfig_types.go)
BACKOFF_LIMIT_COUNT, BACKOFF_BASE_SECONDS, BACKOFF_MAX_SECONDS = 3, 60, 1800


@dataclass(frozen=True)
class ProvisioningRequestConfig:
    meta: ObjectMeta
    provisioning_class: str
    parameters: Mapping[str, str] | None = None
    managed_resources: tuple[str, ...] = ()
    backoff_limit_count: int = BACKOFF_LIMIT_COUNT
    backoff_base_seconds: int = BACKOFF_BASE_SECONDS
    backoff_max_seconds: int = BACKOFF_MAX_SECONDS
    pod_set_updates: tuple[tuple[str, str], ...] = ()   # podSetUpdates.nodeSelector: (key, valueFromProvisioningClassDetail)
    pod_set_merge_policy: str | None = None

    @property
    def name(self) -> str:
        return self.meta.name


def _active(status: Any) -> tuple[bool, str, str] | None:
    """IsStatusConditionTrue(status.conditions, Active), with the condition's words when it is not
    (None: no Active condition)."""
    conditions = status.get("conditions") if isinstance(status, Mapping) else None
    for c in conditions if isinstance(conditions, list) else ():
        if isinstance(c, Mapping) and c.get("type") == ADMISSION_CHECK_ACTIVE:
            return c.get("status") == "True", str(c.get("reason") or ""), str(c.get("message") or "")
    return None


def parse_admission_check(obj: dict[str, Any], source: Source | None = None, *, validate: str = "strict",
                          warnings: list[str] | None = None) -> AdmissionCheck:
    stored = schema.store(obj, schema.ADMISSION_CHECK, ADMISSION_CHECK, source, validate, warnings)
    spec = stored.get("spec") or {}
    condition = _active(stored.get("status"))
    active, reason, message = condition or (False, "", "")
    params = spec.get("parameters")
    return AdmissionCheck(object_meta(stored, source, namespaced=False), str(spec.get("controllerName") or ""),
                          active, {str(k): str(v) for k, v in params.items()} if isinstance(params, Mapping) else None,
                          "" if active else reason, "" if active else message, condition is not None)


def parse_provisioning_request_config(obj: dict[str, Any], source: Source | None = None, *,
                                      validate: str = "strict", warnings: list[str] | None = None
                                      ) -> ProvisioningRequestConfig:
    stored = schema.store(obj, schema.PROVISIONING_REQUEST_CONFIG, PROVISIONING_REQUEST_CONFIG, source, validate,
                          warnings)
    spec = stored.get("spec") or {}
    params = spec.get("parameters")
    retry = spec.get("retryStrategy") if isinstance(spec.get("retryStrategy"), Mapping) else {}
    updates = spec.get("podSetUpdates") if isinstance(spec.get("podSetUpdates"), Mapping) else {}
    selectors = tuple((str(u.get("key") or ""), str(u.get("valueFromProvisioningClassDetail") or ""))
                      for u in updates.get("nodeSelector") or () if isinstance(u, Mapping))
    return ProvisioningRequestConfig(object_meta(stored, source, namespaced=False),
                                     str(spec.get("provisioningClassName") or ""),
                                     {str(k): str(v) for k, v in params.items()} if isinstance(params, Mapping)
                                     else None,
                                     tuple(str(r) for r in spec.get("managedResources") or ()),
                                     _int(retry.get("backoffLimitCount"), BACKOFF_LIMIT_COUNT),
                                     _int(retry.get("backoffBaseSeconds"), BACKOFF_BASE_SECONDS),
                                     _int(retry.get("backoffMaxSeconds"), BACKOFF_MAX_SECONDS), selectors,
                                     str(spec["podSetMergePolicy"]) if spec.get("podSetMergePolicy") else None)


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default
