"""`kubectl apply -n NS -f DIR`: the namespace flag of the commands that read manifest files
(cli-runtime's resource builder, RequireNamespace).

Namespace-less namespaced objects go in NS, one of another namespace is refused in kubectl's words,
cluster-scoped ones stay; scopes: built-in, `KNOWN_SCOPES`, or a CRD's. Details: docs/internals/load.md.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping

from kexplain.apimachinery.fielderrors import go_quote
from kexplain.errors import CLUSTER_SCOPED_KINDS, InputError, Source, is_builtin_api
from kexplain.load.problems import RAISE, Problems

Objects = list[tuple[dict[str, Any], Source]]
Scopes = Mapping[tuple[str, str], bool]     # (API group, kind) -> namespaced

# The custom resources kexplain reads, by (API group, kind): namespaced or not (their CRDs' scope).
KNOWN_SCOPES: dict[tuple[str, str], bool] = {
    ("karpenter.sh", "NodePool"): False, ("karpenter.sh", "NodeClaim"): False,
    ("karpenter.k8s.aws", "EC2NodeClass"): False,
    ("kueue.x-k8s.io", "ClusterQueue"): False, ("kueue.x-k8s.io", "ResourceFlavor"): False,
    ("kueue.x-k8s.io", "Cohort"): False, ("kueue.x-k8s.io", "AdmissionCheck"): False,
    ("kueue.x-k8s.io", "WorkloadPriorityClass"): False, ("kueue.x-k8s.io", "Topology"): False,
    ("kueue.x-k8s.io", "LocalQueue"): True, ("kueue.x-k8s.io", "Workload"): True,
}


def mismatch(given: str, flag: str) -> str:
    """kubectl's words for an object in another namespace than -n's."""
    return (f"the namespace from the provided object {go_quote(given)} does not match the namespace "
            f"{go_quote(flag)}. You must pass '--namespace={given}' to perform this operation.")


def declared_scopes(objs: Iterable[Any]) -> dict[tuple[str, str], bool]:
    """The scopes the CustomResourceDefinitions among `objs` declare, by (group, kind)."""
    out: dict[tuple[str, str], bool] = {}
    for obj in objs:
        if not isinstance(obj, dict) or obj.get("kind") != "CustomResourceDefinition":
            continue
        spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
        names = spec.get("names") if isinstance(spec.get("names"), dict) else {}
        group, kind, scope = spec.get("group"), names.get("kind"), spec.get("scope")
        if isinstance(group, str) and isinstance(kind, str) and scope in ("Namespaced", "Cluster"):
            out[(group, kind)] = scope == "Namespaced"
    return out


def namespaced(obj: Mapping[str, Any], scopes: Scopes = KNOWN_SCOPES) -> bool | None:
    """Whether `obj`'s kind is namespaced; None when its scope cannot be known (a custom resource
    neither kexplain nor a CustomResourceDefinition of the input describes)."""
    kind, api_version = obj.get("kind"), obj.get("apiVersion")
    if not isinstance(kind, str):
        return None
    if is_builtin_api(api_version):
        return kind not in CLUSTER_SCOPED_KINDS
    group = api_version.rpartition("/")[0] if isinstance(api_version, str) else ""
    return scopes.get((group, kind), KNOWN_SCOPES.get((group, kind)))


def _namespace_of(obj: Mapping[str, Any]) -> str:
    meta = obj.get("metadata")
    value = meta.get("namespace") if isinstance(meta, dict) else None
    return value if isinstance(value, str) else ""


def refusal(obj: Any, flag: str, scopes: Scopes = KNOWN_SCOPES) -> str | None:
    """kubectl's refusal of `obj` under `-n flag` (a namespaced object in another namespace),
    or None."""
    if not isinstance(obj, dict) or namespaced(obj, scopes) is not True:
        return None
    given = _namespace_of(obj)
    return mismatch(given, flag) if given and given != flag else None


def placed(obj: dict[str, Any], flag: str, scopes: Scopes = KNOWN_SCOPES) -> dict[str, Any]:
    """`obj` as `-n flag` sends it: a namespaced object without a namespace gets `flag` (a
    copy); anything else as it is (refused first by `refusal`)."""
    if namespaced(obj, scopes) is not True or _namespace_of(obj):
        return obj
    meta = obj.get("metadata")
    return {**obj, "metadata": {**(meta if isinstance(meta, dict) else {}), "namespace": flag}}


def in_namespace(objs: Objects, flag: str | None, problems: Problems = RAISE) -> Objects:
    """`objs` as `kubectl apply -n flag` takes them: namespace-less namespaced objects put in `flag`, one of
    another namespace refused to `problems`. Without a flag, `objs` as they are."""
    if not flag:
        return objs
    scopes = {**KNOWN_SCOPES, **declared_scopes(o for o, _ in objs)}
    out: Objects = []
    for obj, src in objs:
        why = refusal(obj, flag, scopes)
        if why is not None:
            problems.add(InputError(why, source=src, obj=obj))
            continue
        out.append((placed(obj, flag, scopes), src))
    return out
