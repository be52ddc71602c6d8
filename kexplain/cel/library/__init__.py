"""The functions of the Kubernetes CEL environment for DRA selectors (apiserver/pkg/cel/environment/base.go
at 1.35 plus ext.Bindings). A new selector is compiled at the API server's compatibility version (its
minor minus one: `functions(compatibility)`); the scheduler reads stored ones with all libraries.
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


# The overloads of the libraries the API server's base environment gained after 1.32, by the
# compatibility version that introduced them (apiserver/pkg/cel/environment/base.go): the
# Kubernetes semver library at 1.33, cel-go's lists extension (version 3) at 1.34.
_EXT_LISTS = ("slice", "flatten", "sort", "@sortByAssociatedKeys", "lists.range", "reverse", "distinct")
INTRODUCED: dict[str, frozenset[str]] = {
    "1.33": frozenset(o.id for f in k8s.FUNCTIONS for o in f.overloads if "semver" in o.id),
    "1.34": frozenset(o.id for f in lists.FUNCTIONS if f.name in _EXT_LISTS for o in f.overloads),
}


def _key(version: str) -> tuple[int, int]:
    major, _, minor = version.partition(".")
    return int(major), int(minor)


def has_ext_lists(compatibility: str | None) -> bool:
    """Whether an environment of this compatibility version (None: every library) has cel-go's
    lists extension, whose `sortBy` is a macro the parser expands."""
    return compatibility is None or _key(compatibility) >= _key("1.34")


@lru_cache(maxsize=8)   # one environment per compatibility version: built once
def functions(compatibility: str | None = None) -> dict[str, Function]:
    """Every implemented function by name, overloads merged; with `compatibility`, only the libraries
    `INTRODUCED` by then (a function left without overloads is absent)."""
    dropped = frozenset().union(*(ids for since, ids in INTRODUCED.items()
                                  if compatibility is not None and _key(compatibility) < _key(since)))
    out: dict[str, Function] = {}
    for lib in (stdlib, strings, lists, sets, optional, k8s):
        for f in lib.FUNCTIONS:
            overloads = tuple(o for o in f.overloads if o.id not in dropped)
            if not overloads:
                continue
            if f.name in out:
                out[f.name] = Function(f.name, out[f.name].overloads + overloads)
            else:
                out[f.name] = Function(f.name, overloads, f.doc) if overloads != f.overloads else f
    return out
