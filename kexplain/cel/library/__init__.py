"""The functions of the Kubernetes CEL environment DRA selectors are compiled in
(apiserver/pkg/cel/environment/base.go at 1.35 plus ext.Bindings): the CEL standard library,
cel-go's strings (v2), sets, lists (v3), two-variable comprehensions and optional types, and
the Kubernetes quantity, semver, lists and regex libraries.
"""
from __future__ import annotations

from functools import lru_cache

from kexplain.cel.functions import Function
from kexplain.cel.library import k8s, lists, optional, sets, stdlib, strings

# Functions of the environment kexplain does not implement. A selector using one is reported
# as kexplain's limitation instead of being evaluated wrongly. Global names, and member names
# that no implemented library declares.
UNSUPPORTED_GLOBAL = frozenset({
    "timestamp", "duration", "url", "isURL", "ip", "isIP", "cidr", "isCIDR", "format.named",
    "ip.isCanonical", "authorizer", "fieldSelector", "labelSelector",
})
UNSUPPORTED_MEMBER = frozenset({
    "getScheme", "getHost", "getHostname", "getPort", "getEscapedPath", "getQuery", "family",
    "isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast",
    "containsIP", "containsCIDR", "masked", "prefixLength", "getFullYear", "getMonth",
    "getDayOfYear", "getDayOfMonth", "getDate", "getDayOfWeek", "getHours", "getMinutes",
    "getSeconds", "getMilliseconds", "validate", "format", "path", "group", "serviceAccount",
    "resource", "subresource", "namespace", "name", "check", "allowed", "reason", "errored",
    "error", "fieldSelector", "labelSelector",
})


@lru_cache(maxsize=1)   # the environment is fixed: built once
def functions() -> dict[str, Function]:
    """Every implemented function by name, overloads merged across libraries."""
    out: dict[str, Function] = {}
    for lib in (stdlib, strings, lists, sets, optional, k8s):
        for f in lib.FUNCTIONS:
            if f.name in out:
                out[f.name] = Function(f.name, out[f.name].overloads + f.overloads)
            else:
                out[f.name] = f
    return out
