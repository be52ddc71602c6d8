"""One pod explained under several Kubernetes versions, and only what differs. Never prints."""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, BinaryIO, Callable, Iterable, Mapping, Sequence

from kexplain.errors import AdmissionRejected, KexplainError
from kexplain.explain.batch import explain_batch
from kexplain.explain.created import said
from kexplain.explain.inputs import Loaded, load_read
from kexplain.state.objects import Objects
from kexplain.explain.request import Request, RunOptions
from kexplain.explain.run import explain
from kexplain.features import KubeVersion, version_json
from kexplain.framework.trace import API_VERSION
from kexplain.load.gcpolicy import bulk_load
from kexplain.load.manifests import load_objects

KIND = "VersionComparison"
REJECTING = ("Unschedulable", "UnschedulableAndUnresolvable", "Error", "Pending", "Wait")
PASSES = {"code": "Success"}      # a node examined that the plugin did not reject

# The kinds of change, in the order they are listed.
STATUS, NODE, TIE, REFUSED, ERROR, GATE, PRE_FILTER, MESSAGE, FILTER, SCORE, PREEMPTION = (
    "status", "node", "tie", "refused", "error", "gate", "preFilter", "message", "filter", "score", "preemption")
ORDER = (REFUSED, STATUS, NODE, TIE, ERROR, GATE, PRE_FILTER, MESSAGE, PREEMPTION, FILTER, SCORE)

Trace = Mapping[str, Any]


@dataclass(frozen=True)
class Change:
    """One thing that differs (`ORDER`), its node and plugin, and its value under each version."""

    what: str
    values: Mapping[str, Any]
    node: str | None = None
    plugin: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"what": self.what}
        if self.node is not None:
            out["node"] = self.node
        if self.plugin is not None:
            out["plugin"] = self.plugin
        out["values"] = dict(self.values)
        return out


@dataclass(frozen=True)
class Run:
    """One version's explanation: its trace, or why the input was refused under it."""

    kube: KubeVersion
    trace: Trace | None = None
    refused: str | None = None
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Comparison:
    """The runs of one pod under each version, and what differs between them."""

    pod: Mapping[str, str]
    runs: tuple[Run, ...]
    changes: tuple[Change, ...] = field(default=())

    @property
    def same(self) -> bool:
        return not self.changes

    def to_json(self) -> dict[str, Any]:
        return {"apiVersion": API_VERSION, "kind": KIND, "pod": dict(self.pod),
                "versions": [version_json(r.kube) for r in self.runs],
                "verdicts": {r.kube.minor: verdict(r) for r in self.runs},
                "same": self.same, "changes": [c.to_json() for c in self.changes]}


def verdict(run: Run) -> dict[str, Any]:
    """A run's verdict in short: status and chosen node (or that the input was refused)."""
    if run.trace is None:
        return {"status": "Refused", "error": run.refused}
    result = run.trace.get("result") or {}
    out: dict[str, Any] = {"status": result.get("status")}
    if result.get("suggestedHost"):
        out["node"] = result["suggestedHost"]
    if run.trace.get("tieBreak") == "random":
        out["tiedNodes"] = list(result.get("selectedNodes") or [])
    return out


def compare_versions(req: Request, kubes: Sequence[KubeVersion], options: RunOptions,
                     stdin: BinaryIO | None = None) -> Comparison:
    """`req`'s one pod explained under each of `kubes` and compared; refused under some only is a difference."""
    with bulk_load():
        objs = load_objects([req.pod_path], req.max_bytes, stdin, max_objects=req.max_objects,
                            namespace=req.namespace)
        cluster = load_objects(req.node_paths, req.max_bytes, stdin, max_objects=req.max_objects)
    runs: list[Run] = []
    errors: list[KexplainError] = []
    pod: Mapping[str, str] | None = None
    for kube in kubes:
        try:
            run = _run(req, kube, objs, cluster, options)
        except KexplainError as err:
            errors.append(err)
            runs.append(Run(kube, refused=str(err)))
            continue
        pod = pod or run.trace["pod"]  # type: ignore[index]
        runs.append(run)
    if len(errors) == len(kubes) and len({unnamed(str(e)) for e in errors}) == 1:
        raise errors[0]
    return Comparison(pod or _named(objs, req.pod_path), tuple(runs), tuple(differences(runs)))


def _named(objs: Objects, path: str) -> Mapping[str, str]:
    """The pod of a POD file refused under every version, as its first object names it."""
    for obj, _ in objs:
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
        if isinstance(meta.get("name"), str):
            return {"namespace": str(meta.get("namespace") or "default"), "name": meta["name"]}
    return {"namespace": "default", "name": path}


def _run(req: Request, kube: KubeVersion, objs: Objects, cluster: Objects, options: RunOptions) -> Run:
    with bulk_load():
        loaded = load_read(replace(req, kube=kube, version=None, replicas=1), objs, cluster)
    if loaded.single is None and len(loaded.batch) == 1 and not loaded.batch[0].replicated:
        _not_created(loaded, options)       # its controller's creates refused: no pod to compare
    if loaded.single is None:
        raise KexplainError(f"--compare-versions explains one pod, and {req.pod_path} holds {len(loaded.batch)} "
                            "Pods or workloads (or a DaemonSet): compare them with kexplain lint FILE --nodes ... "
                            "--compare-versions A,B")
    trace = explain(loaded.single, options).to_json()
    return Run(kube, trace, warnings=tuple(loaded.single.warnings))


_POD_NAME = re.compile(r'pods "[^"]*"')


def unnamed(refusal: str) -> str:
    """A refusal without the pod's name, which each version's pod-template-hash makes differ."""
    return _POD_NAME.sub('pods "..."', refusal)


def _not_created(loaded: Loaded, options: RunOptions) -> None:
    """The file's one workload when its controller gets none of its pods created: nothing to compare."""
    assert loaded.pool is not None
    for outcome in explain_batch(loaded.batch, loaded.pool, options):
        if outcome.entry.not_created:
            e = outcome.entry
            raise AdmissionRejected(said(e), source=e.source, obj=e.workload)


# -- what differs ---------------------------------------------------------------------------------

def differences(runs: Sequence[Run]) -> list[Change]:
    """Every difference between the runs, in `ORDER`, nodes and plugins by name."""
    minors = [r.kube.minor for r in runs]
    out: list[Change] = []

    def add(what: str, values: Iterable[Any], node: str | None = None, plugin: str | None = None,
            key: Callable[[Any], Any] = lambda v: v) -> None:
        vals = list(values)
        if any(key(v) != key(vals[0]) for v in vals[1:]):
            out.append(Change(what, dict(zip(minors, vals)), node, plugin))

    add(REFUSED, (r.refused for r in runs), key=lambda v: unnamed(v) if v else v)
    traces = [r.trace for r in runs]
    if any(t is None for t in traces):          # nothing else to compare with a refused input
        return out
    results = [t.get("result") or {} for t in traces]  # type: ignore[union-attr]
    add(STATUS, (r.get("status") for r in results))
    add(NODE, (r.get("suggestedHost") for r in results))
    add(TIE, (_tie(t) for t in traces))  # type: ignore[arg-type]
    add(ERROR, (r.get("error") for r in results))
    add(GATE, (_gate(t) for t in traces))  # type: ignore[arg-type]
    for plugin, values in _per_key([_pre_filter(t) for t in traces]):  # type: ignore[arg-type]
        add(PRE_FILTER, values, plugin=plugin)
    add(MESSAGE, (r.get("message") or None for r in results))
    add(PREEMPTION, (_preemption(t) for t in traces))  # type: ignore[arg-type]
    filters = [_filters(t) for t in traces]  # type: ignore[arg-type]
    for node in _names(filters):
        per = [f.get(node) for f in filters]
        plugins = sorted({p for v in per if v for p, st in v.items() if st != PASSES})
        for plugin in plugins:
            add(FILTER, ((v.get(plugin, PASSES) if v is not None else None) for v in per), node, plugin)
    scores = [t.get("score") or {} for t in traces]  # type: ignore[union-attr]
    for node in _names(scores):
        per = [s.get(node) for s in scores]
        plugins = sorted({p for v in per if v for p in v.get("plugins") or {}})
        for plugin in plugins:      # what counts is what the total adds: a plugin absent adds 0
            add(SCORE, (((v.get("plugins") or {}).get(plugin) if v else None) for v in per), node, plugin,
                key=lambda entry: (entry or {}).get("weighted", 0))
        add(SCORE, ((v.get("total") if v else None) for v in per), node, "total")
    out.sort(key=lambda c: ORDER.index(c.what))          # stable: nodes and plugins stay in order
    return out


def _tie(trace: Trace) -> list[str] | None:
    """The nodes the scheduler picks one of at random (before 1.35), None when it picks one."""
    if trace.get("tieBreak") != "random":
        return None
    return list((trace.get("result") or {}).get("selectedNodes") or [])


def _gate(trace: Trace) -> dict[str, Any] | None:
    entry = next((e for e in trace.get("preEnqueue") or [] if e.get("code") != "Success"), None)
    return {k: entry[k] for k in ("plugin", "code", "reasons") if k in entry} if entry else None


def _pre_filter(trace: Trace) -> dict[str, Any]:
    """PreFilter's rejections by plugin (a plugin that passes or skips: not listed)."""
    return {e["plugin"]: {k: e[k] for k in ("code", "reasons") if k in e}
            for e in trace.get("preFilter") or [] if e.get("code") in REJECTING}


def _preemption(trace: Trace) -> dict[str, Any] | None:
    post = trace.get("postFilter") or {}
    if not post.get("nominatedNodeName"):
        return None
    return {"nominatedNodeName": post["nominatedNodeName"], "victims": sorted(post.get("victims") or [])}


def _filters(trace: Trace) -> dict[str, dict[str, Any]]:
    """Each node examined: the plugins that rejected it, {plugin: {code, reasons}}."""
    every = trace.get("filterAll")
    out: dict[str, dict[str, Any]] = {}
    for node, status in (trace.get("filter") or {}).items():
        if every is not None and node in every:
            out[node] = {p: _status(st) for p, st in every[node].items() if st.get("code") in REJECTING}
        elif (status or {}).get("code") in REJECTING:
            out[node] = {status["plugin"]: _status(status)}
        else:
            out[node] = {}
    return out


def _status(status: Mapping[str, Any]) -> dict[str, Any]:
    return {"code": status.get("code"), "reasons": list(status.get("reasons") or [])}


def _per_key(maps: Sequence[Mapping[str, Any]]) -> list[tuple[str, list[Any]]]:
    return [(k, [m.get(k) for m in maps]) for k in sorted({k for m in maps for k in m})]


def _names(maps: Sequence[Mapping[str, Any]]) -> list[str]:
    """Node names of any of the maps, in first-seen order."""
    return list(dict.fromkeys(n for m in maps for n in m))
