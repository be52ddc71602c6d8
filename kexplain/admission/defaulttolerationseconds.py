"""DefaultTolerationSeconds (plugin/pkg/admission/defaulttolerationseconds): on a pod's create
(and update) it appends the not-ready and unreachable NoExecute tolerations, 300 s each, that the
pod does not already "cover". Its odd corner is kept: a toleration covers a key when its key is
that key or empty and its effect NoExecute or empty, whatever its operator, value or seconds.
This is what makes a pod stay 300 s on a NotReady node (`kexplain evict taints`)."""
from __future__ import annotations

from kexplain.apimachinery.labels import TAINT_NODE_NOT_READY as NOT_READY, TAINT_NODE_UNREACHABLE as UNREACHABLE

PLUGIN_NAME = "DefaultTolerationSeconds"
DEFAULT_SECONDS = 300       # --default-not-ready-toleration-seconds, --default-unreachable-toleration-seconds
KEYS = (NOT_READY, UNREACHABLE)     # in the order the plugin appends them


def _covers(toleration: object, key: str) -> bool:
    """Whether a toleration already answers for taint `key` (the plugin's own test, not ToleratesTaint)."""
    return isinstance(toleration, dict) and (toleration.get("key") or "") in ("", key) \
        and (toleration.get("effect") or "") in ("", "NoExecute")


def default_toleration(key: str, seconds: int = DEFAULT_SECONDS) -> dict:
    return {"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": seconds}


def missing(tolerations: object) -> list[dict]:
    """The tolerations the plugin would append to these (new dicts, in its order)."""
    present = tolerations if isinstance(tolerations, list) else []
    return [default_toleration(key) for key in KEYS if not any(_covers(t, key) for t in present)]


def admit(spec: dict) -> list[dict]:
    """Append what `missing` finds to `spec.tolerations` (the pod's spec, changed in place); the
    tolerations added, empty when none."""
    added = missing(spec.get("tolerations"))
    if added:
        tolerations = spec.get("tolerations")
        spec["tolerations"] = (tolerations if isinstance(tolerations, list) else []) + added
    return added
