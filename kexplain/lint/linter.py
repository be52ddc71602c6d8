"""`kexplain lint`: are these manifests valid, and will their pods schedule on this pool? Schemas,
then (with --nodes) admission and scheduling of the paths as one apply, one batch, against the
pool as the set leaves it; a `Report` of `Finding`s at file and line. How: docs/internals/lint.md."""
from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from enum import IntEnum
from typing import Any, BinaryIO, Callable, Iterable, Sequence

from kexplain.admission.openapi import (DEFAULT_K8S_VERSION, NOT_SERVED, OFF_BY_DEFAULT, builtin_index, dotted_path,
                                        unknown_field_warning, unknown_fields_error)
from kexplain.admission.podsecurity import refused_namespaces
from kexplain.admission.resourcequota import QuotaLedger
from kexplain.admission.workloads import WORKLOAD_KINDS, refused_pods
from kexplain.apimachinery.kinds import is_builtin_kind
from kexplain.apimachinery.labels import zone_of
from kexplain.apimachinery.stored_pods import OBJECTS
from kexplain.apimachinery.unstructured import not_an_object
from kexplain.autoscaler.cloudprovider import Discovery
from kexplain.controllers import podautoscaler
from kexplain.controllers.existing import Children
from kexplain.controllers.workloads import replica_count
from kexplain.errors import ConfigError, InputError, KexplainError, Source, describe, is_builtin_api, object_namespace
from kexplain.explain.batch import Outcome, Queue, queue_order
from kexplain.explain import created as creates
from kexplain.explain.describe import gate
from kexplain.explain.inputs import inputs_for, load_pool
from kexplain.explain.pass_objects import owner_objects, set_objects
from kexplain.explain.pending_pass import PassBuilder, PendingPass, PendingPod, object_ref
from kexplain.explain.placement import Placement, daemon_nodes
from kexplain.explain.pod_file import Entry, PodFile, PodsExist, created_objects, entry_of, policies_after, \
    with_existing
from kexplain.explain.pod_inputs import Inputs
from kexplain.explain.request import RunOptions, VersionChoice
from kexplain.explain.retry import Bound, retry, waiting_of
from kexplain.explain.run import explain
from kexplain.features import DEFAULT as DEFAULT_VERSION, KubeVersion
from kexplain.framework.trace import FAILED, GATED, SCHEDULED, UNSCHEDULABLE, Trace
from kexplain.karpenter.pending import (NodePoolsRequest, load_node_pools, pass_over,
                                        run_pass as run_karpenter_pass)
from kexplain.karpenter.request import has_node_pools
from kexplain.lint import node_groups, node_pools
from kexplain.lint.devices import DEVICE_RULES, check_devices
from kexplain.lint.disruption_budgets import BUDGET_RULES, check_budgets
from kexplain.kueue.lint_checks import LOCAL_QUEUE as KUEUE_LOCAL_QUEUE, NEVER_FITS as KUEUE_NEVER_FITS, \
    Started as KueueStarted, checked as kueue_checked, held_words as kueue_held_words
from kexplain.kueue.objects import READ_KINDS as KUEUE_READ_KINDS, TAS_KINDS as KUEUE_TAS_KINDS, \
    of_kinds as kueue_of_kinds
from kexplain.kueue.operator_pods import KINDS as KUEUE_OPERATOR_KINDS
from kexplain.lint.documents import Document, Location, line_of, line_of_field, read_documents, unwrap
from kexplain.lint.node_groups import RULE as NO_NODE_GROUP, SUMMARY as NO_NODE_GROUP_SUMMARY
from kexplain.lint.node_pools import RULE as NO_NODEPOOL, SUMMARY as NO_NODEPOOL_SUMMARY
from kexplain.lint import shipped
from kexplain.lint.schemas import SchemaError, SchemaStore
from kexplain.lint.tables import table
from kexplain.load.gcpolicy import bulk_load
from kexplain.load.limits import DEFAULT_MAX_BYTES
from kexplain.load.manifests import (applied as applied_repeats, check_objects, expand_paths, generate_name_refusal,
                                     kustomization_dirs, kustomize_hint, named, read_text, repeats)
from kexplain.load.namespace_flag import KNOWN_SCOPES, declared_scopes, placed, refusal
from kexplain.state.apply import onto_cluster, outside_namespaces
from kexplain.state.cluster import ClusterState
from kexplain.state.objects import is_bound_pod
from kexplain.suggest import verified_suggestions
from kexplain.suggest.add_node import ADD_NODE


class Severity(IntEnum):
    INFO = 0
    WARNING = 1
    ERROR = 2

    @property
    def label(self) -> str:
        return self.name.lower()


FAIL_ON = {"error": Severity.ERROR, "warning": Severity.WARNING, "info": Severity.INFO, "never": None}


@dataclass(frozen=True)
class Rule:
    id: str
    severity: Severity
    summary: str


RULES: dict[str, Rule] = {r.id: r for r in (
    *(Rule(r, Severity[s.upper()], d) for r, s, d in table("rules")),
    Rule(KUEUE_LOCAL_QUEUE, Severity.ERROR, "A Job, Pod or JobSet Kueue manages names a LocalQueue its namespace "
                                            "does not have (with Kueue's objects given): Kueue never admits it."),
    Rule(KUEUE_NEVER_FITS, Severity.ERROR, "A Job, Pod or JobSet Kueue manages can never fit its ClusterQueue: "
                                           "no flavor takes it as written (a taint not tolerated, node labels its "
                                           "node selector or affinity excludes) or has the quota, even with all "
                                           "it may borrow: Kueue never admits it."),
    Rule(NO_NODE_GROUP, Severity.WARNING, NO_NODE_GROUP_SUMMARY),
    Rule(NO_NODEPOOL, Severity.WARNING, NO_NODEPOOL_SUMMARY),
    *(Rule(r, Severity[s.upper()], d) for r, s, d in DEVICE_RULES),
    *(Rule(r, Severity[s.upper()], d) for r, s, d in BUDGET_RULES),
)}


@dataclass(frozen=True)
class ObjectRef:
    api_version: str
    kind: str
    namespace: str
    name: str

    @classmethod
    def of(cls, obj: Any) -> "ObjectRef":
        """The object's reference, namespaced as the API server stores it (`errors.describe`); a
        custom resource's as written (its scope is unknown)."""
        if not isinstance(obj, OBJECTS):
            return cls("", "", "", "")
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
        api_version, kind, namespace, name = (v if isinstance(v, str) else "" for v in
                                              (obj.get("apiVersion"), obj.get("kind"), meta.get("namespace"),
                                               meta.get("name")))
        if kind:
            namespace = object_namespace(kind, namespace, namespaced=None if is_builtin_api(api_version) else False)
        return cls(api_version, kind, namespace, name)

    def __str__(self) -> str:
        if not self.kind:
            return "object"
        if not self.name:
            return self.kind
        return f"{self.kind} {self.namespace}/{self.name}" if self.namespace else f"{self.kind} {self.name}"

    def to_json(self) -> dict[str, str]:
        return {"apiVersion": self.api_version, "kind": self.kind, "namespace": self.namespace, "name": self.name}


@dataclass(frozen=True)
class Finding:
    rule: str
    location: Location
    obj: ObjectRef | None
    message: str
    details: dict[str, Any] = field(default_factory=dict, compare=False)
    suggestions: tuple[str, ...] = ()
    severity: Severity | None = None       # None: the rule's
    field: str | None = None               # the field at fault, dotted (`spec.replicas`)

    @property
    def level(self) -> Severity:
        return self.severity if self.severity is not None else RULES[self.rule].severity

    def headline(self) -> str:
        """`Kind ns/name: field: message` (the location is the renderer's business)."""
        parts = [str(self.obj)] if self.obj is not None else []
        if self.field:
            parts.append(self.field)
        parts.append(self.message)
        return ": ".join(parts)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rule": self.rule, "severity": self.level.label, **self.location.to_json(),
                               "object": self.obj.to_json() if self.obj else None, "message": self.message}
        if self.field:
            out["field"] = self.field
        out["suggestions"] = list(self.suggestions)
        if self.details:
            out["details"] = self.details
        return out


# Scheduling findings of an object whose pod the scheduler never ran (refused, bypassed, not ours).
NOT_SCHEDULED_RULES = frozenset({"admission", "not-scheduled", "other-scheduler"})
SCHEDULING_RULES = frozenset({"admission", "admission-warning", "unschedulable", "preemption", "replicas", "gated",
                              "scheduler-error", "fits", "not-scheduled", "no-eligible-nodes", "other-scheduler",
                              "kubelet-rejected"})


@dataclass
class LintedObject:
    """One object lint looked at, and which checks ran on it (`schema`, `scheduling`)."""

    location: Location
    ref: ObjectRef
    checks: list[str] = field(default_factory=lambda: ["schema"])
    scheduled: bool = False     # its pod went through the scheduler against the pool (not refused before)


@dataclass
class Report:
    """Everything lint found, in input order."""

    findings: list[Finding] = field(default_factory=list)
    linted: list[LintedObject] = field(default_factory=list)
    files: int = 0
    k8s_version: str = DEFAULT_K8S_VERSION
    strict: bool = False
    pool: bool = False
    compared_with: str | None = None    # --compare-versions: the minor the scheduling is compared with
    warnings: list[str] = field(default_factory=list)      # about the pool, not findings
    started: datetime = field(default_factory=lambda: datetime.now(timezone.utc))
    # With `LintOptions.explain`: per object scheduled, its location, placements entry and the
    # traces kept of its pods (not part of `to_json`: the HTML page adds them).
    explanations: list[dict[str, Any]] = field(default_factory=list)

    @property
    def objects(self) -> int:
        return len(self.linted)

    @property
    def scheduled_objects(self) -> int:
        """The objects whose pods the scheduler actually ran (not refused, bound, another scheduler's,
        or failed on by kexplain)."""
        return sum(1 for o in self.linted if o.scheduled)

    @property
    def unreadable(self) -> bool:
        return any(f.rule == "unreadable" for f in self.findings)

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.level == severity)

    def failed(self, fail_on: Severity | None) -> bool:
        return fail_on is not None and any(f.level >= fail_on for f in self.findings)

    def summary(self) -> dict[str, int]:
        return {"files": self.files, "objects": self.objects, "scheduled": self.scheduled_objects,
                "errors": self.count(Severity.ERROR), "warnings": self.count(Severity.WARNING),
                "info": self.count(Severity.INFO),
                "skipped": sum(1 for f in self.findings if f.rule == "unknown-kind")}

    def to_json(self) -> dict[str, Any]:
        compared = {"comparedWith": self.compared_with} if self.compared_with else {}
        return {"apiVersion": "kexplain/v1", "kind": "LintReport", "kubernetesVersion": self.k8s_version, **compared,
                "strict": self.strict, "scheduling": self.pool, "summary": self.summary(),
                "warnings": self.warnings, "findings": [f.to_json() for f in self.findings]}


# -- suggestions (hook) -----------------------------------------------------------------------
Suggester = Callable[["Inputs", Trace], Sequence[str]]
Progress = Callable[[int, int], None]      # (pods scheduled so far, pods planned so far)


def default_suggester() -> Suggester:
    """Verified fix suggestions: called with the inputs and trace of the pod that did not fit;
    each item shown (its `text`, or as a string)."""
    return verified_suggestions


# -- the engine --------------------------------------------------------------------------------
@dataclass(frozen=True)
class LintOptions:
    paths: tuple[str, ...]
    node_paths: tuple[str, ...] = ()
    kube: KubeVersion = DEFAULT_VERSION   # the version checked against: its schemas, API server and scheduler
    k8s_version: str | None = None    # schemas of another minor than `kube`'s (the deprecated --k8s-version)
    validate: str = "strict"          # kubectl's --validate: unknown fields are errors, warnings (warn) or ignored
    schema_dirs: tuple[str, ...] = ()
    config_path: str | None = None
    stored: bool = False              # the pool was read from an API server: no admission for it
    preemption: bool = True
    max_bytes: int = DEFAULT_MAX_BYTES
    explain: bool = False             # keep each scheduled object's traces, with every node's facts (--html)
    node_groups: str | None = None    # --node-groups: the Cluster Autoscaler's (rule no-node-group)
    autoscaler_config: str | None = None   # --autoscaler-config: CA's settings
    namespace: str | None = None      # -n: the set's namespace-less objects go in it (`kubectl apply -n`)
    # None: check against `kube`. Else the version is settled from this choice and the version a
    # snapshot in --nodes recorded (as `kexplain POD --nodes SNAPSHOT` settles it), and `kube`
    # becomes that version once the pool is read.
    version: "VersionChoice | None" = None
    kueue_version: str | None = None  # --kueue-version: the Kueue release lint's Kueue pass follows (None: v0.17.8)
    kueue_config: tuple = ()          # --kueue-config: Kueue's Configuration, as read (`kueue.config_file`)
    # who answers the ProvisioningRequests Kueue's pass creates, given the pool's objects (None: no one):
    # the Cluster Autoscaler with --node-groups, as for `kexplain POD` (`app.cluster_autoscaler.kueue_provisioner`)
    kueue_provisioner: Callable[[list], Any] | None = None


def _cluster_hpas(pool: "ClusterState", options: LintOptions) -> list[tuple[dict[str, Any], Source]]:
    """The pool's HPAs as explain takes those of --nodes (checked, validated unless stored); the
    first refused is raised, as any pool object the API server refuses."""
    found = podautoscaler.of_cluster(pool.other_kinds)
    if not found:
        return []
    checked = check_objects(found, {podautoscaler.KIND}, validate=options.validate, stored=options.stored,
                            kube=pool.kube)
    kept, refused = podautoscaler.admitted(checked.objects, pool.kube, options.stored)
    if refused:
        raise refused[0]
    return kept


class Linter:
    """Lints objects against one schema store and (optionally) one pool."""

    def __init__(self, options: LintOptions, stdin: BinaryIO | None = None,
                 suggester: Suggester | None = None, store: SchemaStore | None = None,
                 pool: "ClusterState | None" = None, progress: Progress | None = None) -> None:
        self.options = options
        self.progress = progress
        self._scheduled_pods = self._planned_pods = 0      # for `progress`: pods placed, and planned
        self.stdin = stdin
        self.suggester = suggester
        if pool is None and options.node_paths:
            pool = load_pool(options.node_paths, options.config_path, stored=options.stored,
                             max_bytes=options.max_bytes, stdin=stdin, validate=options.validate, kube=options.kube,
                             version=options.version)
        if options.version is not None:         # settled: by the pool's snapshot, or as no snapshot says
            kube = pool.kube if pool is not None else options.version.settle()[0]
            options = self.options = replace(options, kube=kube, version=None)
        self.store = store or SchemaStore(options.k8s_version or options.kube.minor, options.validate,
                                            options.schema_dirs)
        self.pool = pool
        self.report = Report(k8s_version=self.store.version, strict=options.validate == "strict", pool=pool is not None,
                             warnings=list(pool.warnings) if pool is not None else [])
        self._set: _SetCluster | None = None     # the set being linted: its pool, its refused objects
        self._repeated: set[tuple[str, int, int | None]] = set()   # documents not applied: a later one is
        self._generated: set[tuple[str, int, int | None]] = set()  # documents named from their generateName
        self._elsewhere: dict[tuple[str, int, int | None], str] = {}  # refused by -n: kubectl's words
        # documents whose update of an earlier copy the API server refuses (an immutable field changed)
        self._update_refused: dict[tuple[str, int, int | None], KexplainError] = {}
        # workloads the pool has: what kubectl apply leaves of them (patched, or the pool's when refused)
        self._live: dict[tuple[str, int, int | None], dict[str, Any]] = {}
        # each object's place in the set (an object given twice: its first's), its pods' order in the queue
        self._place: dict[tuple[str, int, int | None], int] = {}
        self._schemas: dict[tuple[str, int, int | None], tuple[list[Finding], bool]] = {}   # `_schema_of`
        # the set's Jobs and Pods Kueue admits, as Kueue starts them: scheduled in their place (`_kueue`)
        self._kueue_started: dict[tuple[str, int, int | None], KueueStarted] = {}
        self._retry = _RetryLog()       # the set's pass, for the queue's retry
        # Karpenter's NodePools among the --nodes objects: rule no-nodepool (`_node_pools`)
        self._karpenter = pool is not None and has_node_pools(pool.other_kinds)
        # the HPAs of --nodes: they act on the set's workloads they target (refused: bad input)
        self._cluster_hpas = _cluster_hpas(pool, options) if pool is not None else []

    # -- files ------------------------------------------------------------------------------
    def run(self) -> Report:
        """Read every file of the paths (each once, the collector paused: `bulk_load`), then
        lint them as one apply (`lint_set`)."""
        files: list[_File] = []
        read: set[str] = set()
        with bulk_load():
            for path in self.options.paths:
                try:
                    found = expand_paths([path])
                except InputError as err:
                    files.append(_File(path, [], err, counted=False))
                    continue
                for file in found:
                    if file not in read:        # a file given twice (itself, and in its directory) is read once
                        read.add(file)
                        files.append(self.read_file(file))
        self.report.files += sum(1 for f in files if f.counted)
        self.lint_set(files)
        return self.report

    def read_file(self, path: str) -> "_File":
        """One file's documents (Lists unwrapped), and the error that ended its reading."""
        try:
            text = read_text(path, self.options.max_bytes, self.stdin)
        except InputError as err:
            return _File(path, [], err)
        docs, error = read_documents(text, path)
        return _File(path, [item for doc in docs for item in unwrap(doc)], error)

    def lint_set(self, files: "list[_File]") -> None:
        """Lint `files` as one apply: each document with its schema and scheduling findings, then its
        file's device findings; the pods scheduled together (`_set_cluster`)."""
        self._elsewhere = _in_namespace(files, self.options.namespace)
        self._generated = _name_generated(files)
        items = [item for f in files for item in f.items if item.location.key not in self._elsewhere]
        objs, where = _objects(items)
        found = repeats(objs)
        settled = applied_repeats(found, objs, self.pool.kube if self.pool is not None else self.options.kube)
        latest = settled.stands
        # one object per identity applied: the first occurrence, or the one standing when they differ,
        # at the first's place (created there, as explain's `one_apply` places it)
        superseded = [r.index for r in found if latest.get(r.first) != r.index] + list(latest)
        self._repeated = {where[id(objs[i][1])].location.key for i in superseded}
        self._place = {where[id(s)].location.key: i for i, (_, s) in enumerate(objs)}
        self._place.update({where[id(objs[stand][1])].location.key: first for first, stand in latest.items()})
        self._update_refused = {where[id(objs[i][1])].location.key: err for i, err in settled.refused.items()}
        applied = [doc for doc in items if doc.location.key not in self._repeated]
        # the set as applied: without what the API server refuses at decoding (its schema finding says so)
        schema_refused = self._refused_by_schema(applied)
        if self.pool is not None:
            kept = self._onto_pool(sorted((doc for doc in applied if doc.location.key not in schema_refused),
                                          key=lambda doc: self._place.get(doc.location.key, -1)))
            gone = frozenset(str(ObjectRef.of(doc.obj).name) for doc in applied
                             if doc.location.key in schema_refused and ObjectRef.of(doc.obj).kind == "Namespace")
            self._set = self._set_cluster(kept, files[0].path if files else "", gone)
        else:
            self._set = None
        try:
            devices = self._check_devices(applied, schema_refused)
            queued = self._kueue([doc for doc in applied if doc.location.key not in schema_refused])
            for f in files:
                for item in f.items:
                    self.lint_document(item)     # (those -n refuses too: their finding says so)
                self.report.findings.extend(devices.get(f.path, ()))
                self.report.findings.extend(queued.get(f.path, ()))
                if f.error is not None:
                    self._unreadable(f.path, f.error)
            self._schedule_set()
        finally:
            self._set = None
            self._repeated = set()
            self._generated = set()
            self._elsewhere = {}
            self._update_refused = {}
            self._live = {}
            self._place = {}
            self._schemas = {}
            self._kueue_started = {}

    def _onto_pool(self, items: list[Document]) -> list[Document]:
        """`items` with each workload the pool has as `kubectl apply` leaves it (`onto_cluster`), kept
        for scheduling (`_live`); a refused update is its document's admission finding."""
        assert self.pool is not None
        objs, where = _objects(items)
        settled = onto_cluster(objs, self.pool.objects, WORKLOAD_KINDS, kube=self.pool.kube)
        for err in settled.refused:
            self._update_refused[where[id(err.source)].location.key] = err
        for (o, s), (now, _) in zip(objs, settled.objects):
            if now is not o:
                self._live[where[id(s)].location.key] = now
        return [replace(doc, obj=self._live[doc.location.key]) if doc.location.key in self._live else doc
                for doc in items]

    def _kueue(self, items: list[Document]) -> dict[str, list[Finding]]:
        """Kueue's rules for the set's jobs Kueue manages, by file, with the Namespaces (their labels:
        a ClusterQueue's namespaceSelector), priority classes and Kueue objects of the set and the pool;
        each job is kept as Kueue leaves it, started or held: that is what the scheduler meets. A Kueue
        object or job the API server refuses is an `admission` finding (one of the pool's, a warning),
        the rest checked without it."""
        objs, where = _objects(items)
        cluster = [*self.pool.other_kinds, *kueue_of_kinds(self.pool.objects, KUEUE_READ_KINDS | KUEUE_TAS_KINDS)] \
            if self.pool is not None else []
        cluster += self.options.kueue_config
        out: dict[str, list[Finding]] = {}
        provisioner = self.options.kueue_provisioner
        capacity = provisioner([*self.pool.objects, *self.pool.other_kinds]) \
            if provisioner is not None and self.pool is not None else None
        done = kueue_checked(objs, cluster, validate=self.options.validate, version=self.options.kueue_version,
                             capacity=capacity)
        self._kueue_started = {where[id(objs[i][1])].location.key: s for i, s in done.started.items()}
        for index, rule, message, details in done.problems:
            doc = where[id(objs[index][1])]
            out.setdefault(doc.location.path, []).append(Finding(rule, doc.location, ObjectRef.of(doc.obj), message,
                                                                 details=details, field="metadata.labels"))
        for err in done.refused:
            doc = where.get(id(err.source)) if err.source is not None else None
            if doc is None:
                said = f"{err}: left out of Kueue's pass (the API server refuses it)"
                if said not in self.report.warnings:
                    self.report.warnings.append(said)
                continue
            location = replace(doc.location, line=line_of_field(doc.node, err.field) or doc.location.line)
            out.setdefault(doc.location.path, []).append(Finding("admission", location, ObjectRef.of(doc.obj),
                                                                 err.message, field=err.field))
        return out

    def _check_devices(self, items: list[Document], schema_refused: frozenset | set = frozenset()
                       ) -> dict[str, list[Finding]]:
        """DRA references and selectors (`kexplain.lint.devices`), against the pool as the set
        leaves it when there is one, and budgets that block drains (`disruption_budgets`) of those the
        API server takes (`schema_refused`: a policy/v1beta1 budget is not one); by file."""
        cluster = self._set.pool.snapshot if self._set is not None else None
        refused = set(self._set.refused) if self._set is not None else set()
        out: dict[str, list[Finding]] = {}
        taken = [doc for doc in items if doc.location.key not in schema_refused]
        for p in (*check_devices(items, cluster, refused), *check_budgets(taken, self.pool)):
            out.setdefault(p.location.path, []).append(Finding(p.rule, p.location, ObjectRef.of(p.obj), p.message,
                                                               field=p.field))
        return out

    def _set_cluster(self, items: list[Document], path: str, gone: frozenset[str] = frozenset()) -> "_SetCluster":
        """The pool as the set leaves it (`ClusterState.extended`), with the set's StatefulSets' claims.
        An object the API server refuses is left out as an `admission` finding of its document; a
        Namespace refused (`gone`) makes its objects refused by NamespaceLifecycle."""
        assert self.pool is not None
        objs, where = _objects(items)
        refused: dict[tuple[str, int, int | None], Finding] = {}

        def refuse(err: KexplainError) -> bool:
            """The refusal of one of the set's documents as its finding; False when it is none of them."""
            doc = where.get(id(err.source)) if err.source is not None else None
            if doc is None:
                return False
            ref = ObjectRef.of(doc.obj)
            message = err.message
            if isinstance(err.obj, dict) and (ObjectRef.of(err.obj).kind, ObjectRef.of(err.obj).name) != \
                    (ref.kind, ref.name):       # not the document's object: a claim of a StatefulSet
                message = f"{describe(err.obj)}: {message}"
            location = replace(doc.location, line=line_of_field(doc.node, err.field) or doc.location.line)
            refused[doc.location.key] = Finding("admission", location, ref, message, field=err.field)
            return True

        pod_file = PodFile.of(objs, path)
        bound_only = bool(pod_file.explained) and all(is_bound_pod(o) for o, _ in pod_file.explained)
        joining = {id(o) for o, _ in pod_file.cluster} | ({id(o) for o, _ in pod_file.explained} if bound_only else set())
        file_objects = [(o, s) for o, s in objs if id(o) in joining]     # (in the set's order)
        created = [c for o, s in pod_file.explained if o.get("kind") == "StatefulSet"
                   for c in created_objects(o, s, replica_count(o))]
        absent = (refused_namespaces(file_objects) | gone) if not self.options.stored else frozenset()
        while True:         # (a Namespace refused stays absent once left out: its objects are refused)
            try:
                pool = self.pool.extended(file_objects, created, absent=absent)
                break
            except KexplainError as err:
                if not refuse(err):           # not one of the file's objects: the file adds nothing
                    pool = self.pool
                    break
                if isinstance(err.obj, dict) and err.obj.get("kind") == "Namespace" and not self.options.stored:
                    absent |= {str(ObjectRef.of(err.obj).name)}
                file_objects = [(o, s) for o, s in file_objects if s is not err.source]
                created = [(o, s) for o, s in created if s is not err.source]
        # NamespaceLifecycle for the kinds admission does not read, then the HPAs' validation
        objs_kept, outside = outside_namespaces([(o, s) for o, s in objs if id(o) not in joining],
                                                pool.absent_namespaces)
        objs_kept, hpa_refusals = podautoscaler.admitted(objs_kept, pool.kube, self.options.stored)
        for err in [*outside, *hpa_refusals]:
            refuse(err)
        objs_kept = [(o, s) for o, s in objs if where[id(s)].location.key not in refused]
        ledger = None if self.options.stored else QuotaLedger.of((o for o, _ in pool.objects),
                                                                  pool.kube.enabled("PodLevelResources"))
        self.report.warnings += [w for w in pool.warnings if w not in self.report.warnings]   # (a volume provisioned)
        hpas = podautoscaler.autoscalers(podautoscaler.applied(self._cluster_hpas, objs_kept))
        later = policies_after(objs) if not self.options.stored else {}
        children = Children(o for o, _ in objs)
        if self.options.node_groups is None and not self._karpenter:
            return _SetCluster(pool, refused, hpas=hpas, ledger=ledger, later=later, children=children)
        autoscaled = [(o, s) for o, s in set_objects(objs_kept, [o for o, _ in pod_file.explained])
                      if where[id(s)].location.key not in refused]
        autoscaled += [c for o, s in pod_file.explained for c in owner_objects(o, s, replica_count(o))]
        return _SetCluster(pool, refused, hpas=hpas, ledger=ledger, autoscaled=autoscaled, created=created, later=later,
                           children=children)

    def _unreadable(self, path: str, err: InputError) -> None:
        src = err.source or Source(path)
        self._add(Finding("unreadable", Location(src.path, src.doc, line=getattr(err, "line", None)), None,
                          err.message))

    def _add(self, finding: Finding) -> None:
        self.report.findings.append(finding)

    # -- objects ----------------------------------------------------------------------------
    def lint_document(self, doc: Document) -> None:
        obj, loc = doc.obj, doc.location
        ref = ObjectRef.of(obj)
        linted = LintedObject(loc, ref)
        self.report.linted.append(linted)
        if not isinstance(obj, OBJECTS):
            self._add(Finding("invalid-document", loc, None,
                              f"document is a {type(obj).__name__}, not a Kubernetes object (a mapping)"))
            return
        other = not_an_object(obj)      # explain's words: another tool's file, not an object lacking a field
        if other is not None:
            self._add(Finding("invalid-document", loc, None, other))
            return
        for key in ("apiVersion", "kind"):
            if not isinstance(obj.get(key), str) or not obj[key]:
                self._add(Finding("invalid-document", loc, ref, f"object has no {key}", field=key))
                return
        valid = self.check_schema(obj, ref, doc)
        elsewhere = self._elsewhere.get(loc.key)
        if elsewhere is not None:     # `kubectl apply -n` refuses it: not part of the set
            line = line_of(doc.node, ("metadata", "namespace")) or loc.line
            self._add(Finding("namespace-mismatch", replace(loc, line=line), ref, elsewhere, field="metadata.namespace"))
            return
        if loc.key in self._generated:
            self._add(self._generate_name(obj, ref, doc))
        update = self._update_refused.get(loc.key)
        if update is not None and valid:    # the copy before it stands (`manifests.applied`)
            self._add(Finding("admission", loc, ref, update.message))
        if loc.key in self._repeated:     # given again alike, or patched by a later manifest: one object
            return
        refused = self._set.refused.get(loc.key) if self._set is not None else None
        if refused is not None:       # an object of the set the API server would refuse
            if valid:                 # (its schema findings say why already, if any)
                self._add(refused)
            return
        kueue = self._kueue_started.get(loc.key)
        if self.pool is None or not self._schedulable(doc, ref, valid, kueue is not None):
            return
        linted.checks.append("scheduling")
        if kueue is not None and not kueue.made and kueue.said:     # held, no pod made: Kueue's answer is the verdict
            self._scheduled(linted, [self._held_unmade(loc, ref, kueue)])
            return
        # as Kueue starts it, once admitted (a JobSet: each of its Jobs, its findings the JobSet's)
        for n, scheduled in enumerate(kueue.made if kueue is not None else (self._live.get(loc.key, obj),)):
            found = self._guarded(ref, loc, lambda job=scheduled: self.check_scheduling(job, ref, loc))
            if isinstance(found, _Queued):      # scheduled with the set's other pods (`_schedule_set`)
                assert self._set is not None
                self._set.queued.append(replace(found, at=len(self.report.findings), linted=linted, made=n))
            else:
                self._scheduled(linted, self._said_kueue(loc, found, n))

    def _schedulable(self, doc: Document, ref: ObjectRef, valid: bool, started: bool) -> bool:
        """Whether the object's pods meet the scheduler: a valid Pod or built-in workload, or a
        JobSet Kueue starts (`started`: its Jobs) that its schema, if one is given, does not refuse."""
        if started and ref.kind == "JobSet":
            return not any(f.level >= Severity.ERROR for f in self._schema_of(doc.obj, ref, doc)[0])
        if started and ref.kind in KUEUE_OPERATOR_KINDS:     # (its operator's pods, `kueue.operator_pods`)
            return True
        return valid and (ref.kind == "Pod" or ref.kind in WORKLOAD_KINDS) and is_builtin_kind(ref.api_version,
                                                                                                ref.kind)

    @staticmethod
    def _held_unmade(loc: Location, ref: ObjectRef, kueue: KueueStarted) -> Finding:
        """A job Kueue holds whose operator makes no pod until it is admitted (a RayJob): a `kueue-held`
        warning with Kueue's reason, never silence where the file explain says Kueue holds it."""
        said = kueue.said[0]
        idle = str(kueue.answer.get("idle") or "")
        held = kueue_held_words(said) or "Kueue holds it"
        return Finding(KUEUE_HELD, loc, ref, f"{held}; {idle}" if idle else held, details={"kueue": said})

    def _said_kueue(self, loc: Location, findings: list[Finding], made: int = 0) -> list[Finding]:
        """A verdict on a job Kueue manages says Kueue's answer (details `kueue`), and why Kueue holds
        it when it does; a JobSet's findings are its Jobs' (`made`: which), each named first."""
        started = self._kueue_started.get(loc.key)
        if started is None:
            return findings
        job, said = started.made[made], started.said[made]
        held = kueue_held_words(said)
        out = []
        for f in findings:
            if f.rule in _VERDICT_RULES or f.rule == "not-created":
                f = replace(f, message=f"{held}; {f.message}" if held else f.message,
                            details={**f.details, "kueue": said})
            if held and f.rule == "not-created":        # suspended by Kueue, not by its author: a warning,
                f = replace(f, rule=KUEUE_HELD, suggestions=())     # its template's fixes moot (as `kexplain FILE`)
            if "job" in said:
                f = replace(f, message=f"Job {ObjectRef.of(job).namespace}/{said['job']}: {f.message}")
            out.append(f)
        return out

    def _scheduled(self, linted: LintedObject, findings: list[Finding], at: int | None = None) -> None:
        """Add an object's scheduling findings (at index `at` of the report, by default last)."""
        linted.scheduled = linted.scheduled or any(      # (a JobSet's Jobs: any of them)
            f.rule not in NOT_SCHEDULED_RULES and not f.details.get("internalError") for f in findings)
        if at is None:
            self.report.findings.extend(findings)
        else:
            self.report.findings[at:at] = findings

    @staticmethod
    def _guarded(ref: ObjectRef, loc: Location, check: Callable[[], Any]) -> Any:
        """`check()`; a failure of kexplain itself on one object is a finding of that object
        (KEXPLAIN_DEBUG=1 raises it instead), so one bug does not hide every other result."""
        try:
            return check()
        except Exception as err:  # noqa: BLE001 - reported, not swallowed
            if os.environ.get("KEXPLAIN_DEBUG"):
                raise
            return [Finding("scheduler-error", loc, ref, f"kexplain internal error: {type(err).__name__}: {err} "
                                                         "(set KEXPLAIN_DEBUG=1 for a traceback, and please report it)",
                            details={"internalError": type(err).__name__})]

    def check_schema(self, obj: dict[str, Any], ref: ObjectRef, doc: Document) -> bool:
        """Add the schema findings; True when the object is fit to be scheduled: no errors, or only
        unknown fields under --validate=warn (the API server drops them)."""
        findings, valid = self._schema_of(obj, ref, doc)
        self.report.findings.extend(findings)
        return valid

    def _schema_of(self, obj: dict[str, Any], ref: ObjectRef, doc: Document) -> tuple[list[Finding], bool]:
        """The schema findings of a document and whether it is fit to be scheduled, worked out once
        (the set's documents are checked before the set is applied)."""
        key = doc.location.key
        found = self._schemas.get(key)
        if found is None:
            found = self._schemas[key] = self._schema_check(obj, ref, doc)
        return found

    def _schema_check(self, obj: dict[str, Any], ref: ObjectRef, doc: Document) -> tuple[list[Finding], bool]:
        findings: list[Finding] = []
        status = builtin_index(self.store.version).api_version_status(ref.api_version, ref.kind)
        if status is not None and status.state in (NOT_SERVED, OFF_BY_DEFAULT):
            findings.append(Finding("unknown-api-version", replace(doc.location, line=line_of(doc.node, ("apiVersion",))),
                                    ref, status.message, field="apiVersion", details={"served": list(status.use)},
                                    severity=Severity.WARNING if status.state == OFF_BY_DEFAULT else None))
            if status.state == NOT_SERVED:
                return findings, False
        validator = self.store.validator(ref.api_version, ref.kind)
        if validator is None:
            own = self._shipped_check(obj, ref, doc)
            if own is not None:     # a kind kexplain reads itself: its reader's answer
                findings += own
                return findings, not any(f.level >= Severity.ERROR for f in own)
            return [*findings, *self._no_schema(obj, ref, doc)], False
        errors = validator.errors(obj)
        findings += [self._schema_finding(err, ref, doc, validator.origin, self.store.validate) for err in errors]
        return findings, all(e.unknown_field for e in errors) and not (errors and self.store.validate == "strict")

    def _shipped_check(self, obj: dict[str, Any], ref: ObjectRef, doc: Document) -> list[Finding] | None:
        """A Kueue or Karpenter kind checked as kexplain's own reader of it checks it (`lint.shipped`):
        its refusal in the reader's words, or the unknown fields it warns of; None for another kind."""
        checked = shipped.check(obj, Source(doc.location.path, doc.location.doc), self.store.validate)
        if checked is None:
            return None
        details = {"schema": checked.origin}
        err = checked.refusal
        if err is not None:
            rule = "unknown-field" if shipped.STRICT_UNKNOWN in err.message else "schema"
            field = err.field or shipped.refused_field(err.message)
            loc = replace(doc.location, line=line_of_field(doc.node, field) or doc.location.line)
            return [Finding(rule, loc, ref, err.message, field=field, details=details)]
        return [Finding("unknown-field", replace(doc.location, line=line_of_field(doc.node, path) or doc.location.line),
                        ref, unknown_field_warning(path), field=path, details=details, severity=Severity.WARNING)
                for path in checked.unknown]

    def _no_schema(self, obj: dict[str, Any], ref: ObjectRef, doc: Document) -> list[Finding]:
        """A kind without a schema: skipped, unless it is a job Kueue's integration reads, which is
        decoded as the integration decodes it (`unreadable-job` when it cannot be)."""
        where = f"no schema for {ref.api_version} {ref.kind} in Kubernetes {self.store.version} or --schemas"
        loc = replace(doc.location, line=line_of(doc.node, ("kind",)))
        job = shipped.integration(ref.api_version, ref.kind)
        if job is not None:
            err = shipped.decode_job(obj, Source(doc.location.path, doc.location.doc))
            if err is not None:
                at = replace(doc.location, line=line_of_field(doc.node, err.field) or loc.line)
                return [Finding("unreadable-job", at, ref, f"Kueue's {job} integration cannot read it: {err.message}",
                                field=err.field)]
            return [Finding("unknown-kind", loc, ref, f"{where}: its fields are not validated (its CRD can be given "
                                                      f"with --schemas); read as Kueue's {job} integration reads it, "
                                                      "its pod sets, templates and counts are readable")]
        hint = kustomize_hint(kustomization_dirs([(obj, Source(doc.location.path))]), "kexplain lint -", "checked")
        return [Finding("unknown-kind", loc, ref, f"{where}: skipped{'; ' + hint if hint else ''}")]

    @staticmethod
    def _generate_name(obj: dict[str, Any], ref: ObjectRef, doc: Document) -> Finding:
        """An object named from its generateName: `kubectl apply` refuses it, in its words
        (`generate_name_refusal`); lint checks it as `kubectl create` creates it."""
        meta = obj.get("metadata") or {}
        prefix = meta.get("generateName")
        loc = replace(doc.location, line=line_of(doc.node, ("metadata", "generateName")) or doc.location.line)
        return Finding("generate-name", loc, ref,
                       f"{generate_name_refusal(str(prefix))} (kubectl apply refuses it; `kubectl create` creates "
                       f"it, checked here as {meta.get('name')})", field="metadata.generateName")

    def _refused_by_schema(self, items: list[Document]) -> set[tuple[str, int, int | None]]:
        """The documents whose schema check has an error: the API server refuses them and `kubectl
        apply` goes on, so they are not in the set applied, whatever their kind."""
        out: set[tuple[str, int, int | None]] = set()
        for doc in items:
            obj = doc.obj
            if not isinstance(obj, OBJECTS) or not_an_object(obj) is not None or \
                    not all(isinstance(obj.get(k), str) and obj[k] for k in ("apiVersion", "kind")):
                continue
            findings, _ = self._schema_of(obj, ObjectRef.of(obj), doc)
            if any(f.level >= Severity.ERROR for f in findings):
                out.add(doc.location.key)
        return out

    @staticmethod
    def _schema_finding(err: SchemaError, ref: ObjectRef, doc: Document, origin: str,
                        validate: str = "strict") -> Finding:
        """A schema error as a finding in the API server's words (a built-in kind's decoding error, a
        custom resource's kube-openapi text; an unknown field: strict's error or warn's warning)."""
        loc = replace(doc.location, line=line_of(doc.node, err.path) or doc.location.line)
        field = dotted_path(err.path) or None
        details = {"schema": origin}
        if not err.unknown_field:
            return Finding("schema", loc, ref, err.message, field=field, details=details)
        if validate == "warn":
            return Finding("unknown-field", loc, ref, unknown_field_warning(err.dotted), field=field,
                           details=details, severity=Severity.WARNING)
        return Finding("unknown-field", loc, ref, unknown_fields_error([err.dotted]), field=field, details=details)

    # -- scheduling -------------------------------------------------------------------------
    def check_scheduling(self, obj: dict[str, Any], ref: ObjectRef, loc: Location) -> "list[Finding] | _Queued":
        """Findings for a Pod or workload that never meets the scheduler (refused, bound, no replicas,
        another scheduler's, a DaemonSet with no pod), else its entry of the set's batch."""
        assert self.pool is not None and self._set is not None
        pool = self._set.pool
        source = Source(loc.path, loc.doc)
        spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
        workload = ref.kind != "Pod"
        daemon = ref.kind == "DaemonSet"
        pinned = str(spec["nodeName"]) if not workload and spec.get("nodeName") else None
        if pinned is not None and pool.snapshot.get(pinned) is not None:
            return self._bound_pod(obj, ref, loc, pinned)
        later = self._set.later.get(id(obj), frozenset())     # (the set's policies created after it)
        hpa = self._set.hpas.get((ref.kind, ref.namespace, ref.name)) if workload else None
        scaled_by = None
        if hpa is not None:             # the HPA controller sets its replicas first
            scaled_by = podautoscaler.scaling(obj, hpa)
            obj, note = podautoscaler.rescaled(obj, hpa)
            self.report.warnings.append(f"{loc.path}: document {loc.doc}: {note}")
        copies = replica_count(obj) if workload else 1
        entry: "Entry | None" = None
        try:
            if workload:
                # the API server's workload checks
                entry = replace(entry_of(obj, source, self._place.get(loc.key, 0), kube=pool.kube),
                                autoscaled_by=scaled_by, later_policies=later)
                try:
                    entry = with_existing(entry, self._set.children)
                except PodsExist as err:
                    return [Finding("not-created", loc, ref, err.message)]
                if copies == 0:
                    return [Finding("fits", loc, ref, "0 replicas: nothing to place",
                                    details={"replicas": 0, "fit": 0})]
                inputs = inputs_for(entry.pod, source, pool, stored=False, later=later)
            else:   # admitted as written: a refusal in the API server's words (a Pod bound to a node
                    # the pool lacks may be in the pool, from its own file: itself)
                inputs = inputs_for(obj, source, pool, stored=False, itself=pinned is not None, later=later)
                entry = replace(entry_of(obj, source, self._place.get(loc.key, 0), kube=pool.kube),
                                later_policies=later)
            entry, _ = creates.created(entry, inputs, self._set.ledger)     # the quotas: pods not created
        except KexplainError as err:        # a workload's pod refused: the workload's controller would fail
            none = creates.refused_creates(entry, err, pool) if entry is not None else None
            if none is not None:        # the workload admitted, its controller's creates refused
                return [self._failed_create(none, ref, loc)]
            err = refused_pods(err, obj, pool.kube) if workload else err
            return [Finding("admission", loc, ref, err.message, field=err.field)]
        if entry.not_created:       # (a quota)
            return [self._failed_create(entry, ref, loc)]
        if entry.failed_create:
            self._add(self._failed_create(entry, ref, loc))
        for warning in dict.fromkeys(api_warnings(inputs.warnings)):     # (Pod Security's warn level)
            self._add(Finding("admission-warning", loc, ref, warning))
        scheduler = inputs.pod.spec.get("schedulerName") or "default-scheduler"
        try:
            pool.config.profile_for(scheduler)
        except ConfigError:
            return [self._other_scheduler(ref, loc, scheduler)]
        if daemon:
            nodes = daemon_nodes(inputs.pod, inputs.snapshot)
            details: dict[str, Any] = {"nodesInPool": len(nodes.eligible) + len(nodes.excluded),
                                       "eligible": list(nodes.eligible), "notEligible": nodes.excluded}
            if not nodes.eligible:
                why = f": {_grouped(nodes.excluded)}" if nodes.excluded else ": the pool has no node"
                return [Finding("no-eligible-nodes", loc, ref,
                                f"no node of the pool is eligible, the DaemonSet would run no pod{why}",
                                details={**details, "replicas": 0, "fit": 0, "nodes": []})]
        elif workload and inputs.pod.node_name and pool.snapshot.get(inputs.pod.node_name) is None:
            pinned = inputs.pod.node_name       # (a node of the pool: its kubelet admits each copy, queued)
        queued = _Queued(entry, inputs, ref, loc, pinned)
        if pinned is None:
            return queued
        try:        # bound to a node the pool does not have: it never runs, and takes no room
            outcome = Queue(pool, self._run_options()).place(entry, inputs)
            self._keep(queued, outcome)
            return [self._pinned(queued, outcome)]
        except ConfigError:
            return [self._other_scheduler(ref, loc, scheduler)]

    @staticmethod
    def _failed_create(entry: "Entry", ref: ObjectRef, loc: Location) -> Finding:
        """The `admission` finding of a workload whose controller's pods the API server refuses: how
        many are created, and the FailedCreate event."""
        details: dict[str, Any] = {"replicas": entry.asked, "created": entry.copies,
                                   "failedCreate": entry.failed_create}
        if entry.not_created:
            details.update(fit=0, nodes=[])
        if entry.autoscaled_by is not None:
            details["horizontalPodAutoscaler"] = entry.autoscaled_by
        return Finding("admission", loc, ref, creates.said(entry), details=details)

    def _bound_pod(self, obj: dict[str, Any], ref: ObjectRef, loc: Location, node: str) -> list[Finding]:
        """A Pod bound by spec.nodeName: its kubelet admits it (`not-scheduled`) or rejects it
        (`kubelet-rejected`), on the pool as the set leaves it without the pod itself."""
        assert self._set is not None
        pool = self._set.pool
        said = f"spec.nodeName is {node}: the scheduler does not place this pod"
        try:
            inputs = inputs_for(obj, Source(loc.path, loc.doc), pool, stored=False, itself=True,
                                later=self._set.later.get(id(obj), frozenset()))
        except KexplainError as err:
            return [Finding("admission", loc, ref, err.message, field=err.field)]
        rejected = pool.kubelet_rejected.get((inputs.pod.namespace, inputs.pod.name))
        if rejected is not None:        # rejected as the set was created, in its order (`ClusterState.extended`)
            return [_kubelet_rejected(ref, loc, "spec.nodeName", node, *rejected)]
        inputs = replace(inputs, snapshot=inputs.snapshot.without_pod(node, inputs.pod.namespace, inputs.pod.name))
        trace = explain(inputs, self._run_options())        # (its kubelet's verdict: no cycle runs)
        kubelet = trace.extra.get("kubelet") or {}
        if kubelet.get("admitted"):         # (a critical pod of the set evicted pods as it was created: gone since)
            evicted = pool.kubelet_evicted.get((inputs.pod.namespace, inputs.pod.name)) or kubelet.get("evicted") or []
            also = f", once it evicts {', '.join(evicted)} (a critical pod)" if evicted else ""
            return [Finding("not-scheduled", loc, ref, f"{said}; its kubelet admits it{also}",
                            details={"node": node, **({"evicted": evicted} if evicted else {})})]
        return [self._verdict(ref, loc, False, 1, [], inputs, trace)]

    def _run_options(self) -> "RunOptions":
        if self.options.explain and self._set is not None:     # every node's facts, as `kexplain POD --html`
            names = frozenset(ni.name for ni in self._set.pool.snapshot.node_infos)
            return RunOptions(preemption=self.options.preemption, details=True, explain_nodes=names, unexamined=True)
        return RunOptions(preemption=self.options.preemption, filter_all=self.suggester is not None)

    def _keep(self, q: "_Queued", outcome: "Outcome") -> None:
        """With `LintOptions.explain`: the object's placements entry and its kept traces."""
        if self.options.explain:
            self.report.explanations.append({**q.loc.to_json(), "object": q.ref.to_json(), "placement": outcome.to_json(),
                                             "items": [p.trace.to_json() for p in outcome.attempts]})

    def _schedule_set(self) -> None:
        """Schedule the set's queued objects as one batch (`explain.batch.Queue`) and add their
        findings where their documents are."""
        if self._set is None or not self._set.queued:
            return
        queue = Queue(self._set.pool, self._run_options())
        self._planned_pods += sum(q.entry.copies for q in self._set.queued)
        found: dict[int, list[Finding]] = {}
        self._retry = _RetryLog()
        gathered = _Gathered(self._set) if self.options.node_groups is not None or self._karpenter else None
        for q in sorted(self._set.queued, key=lambda q: queue_order(q.entry, q.inputs)):
            found[id(q)] = self._guarded(q.ref, q.loc, lambda: self._placed(q, queue, gathered))
        retried = self._retried(queue, found)     # where the pods end up
        if gathered is not None:        # the autoscalers look at the cluster as the retry leaves it
            gathered.settle(retried)
        if gathered is not None and gathered.objects and self.options.node_groups is not None:
            for key, findings in self._node_groups(gathered).items():
                found[key] += findings
        if gathered is not None and gathered.objects and self._karpenter:
            for key, findings in self._node_pools(gathered).items():
                found[key] += findings
        for q in reversed(self._set.queued):     # the last first: the earlier indexes stay valid
            assert q.linted is not None
            scaled_by = q.entry.autoscaled_by       # the HPA that set its replicas: said with its verdict
            findings = [replace(f, details={**f.details, "horizontalPodAutoscaler": scaled_by})
                        if scaled_by is not None and f.rule in _VERDICT_RULES else f for f in found[id(q)]]
            self._scheduled(q.linted, self._said_kueue(q.loc, findings, q.made), q.at)

    def _placed(self, q: "_Queued", queue: "Queue", gathered: "_Gathered | None" = None) -> list[Finding]:
        """A queued object's findings once placed (a profile that cannot be built: another
        scheduler's); its pods join what the autoscalers see (`gathered`)."""
        tally = _DaemonTally() if q.entry.daemon else None     # its copies' verdicts, as they come

        def placed(placement: "Placement") -> None:
            if tally is not None:
                tally(placement)
            self._retry.saw(placement)
            self._scheduled_pods += 1
            if self.progress is not None:
                self.progress(self._scheduled_pods, max(self._scheduled_pods, self._planned_pods))
        try:
            outcome = queue.place(q.entry, q.inputs, placed)
            self._planned_pods += len(outcome.copies) - q.entry.copies      # stopped early, or a DaemonSet's
        except ConfigError:
            return [self._other_scheduler(q.ref, q.loc, q.inputs.pod.spec.get("schedulerName") or "default-scheduler")]
        self._keep(q, outcome)
        self._retry.left(q, outcome)
        if gathered is not None:
            gathered.add(q, outcome)
        if q.entry.idle:
            return [self._not_created(q, outcome)]
        if outcome.daemon is not None:
            assert tally is not None
            return self._daemon_findings(q.ref, q.loc, outcome, tally)
        return [self._pinned(q, outcome)]

    def _retried(self, queue: "Queue", found: dict[int, list[Finding]]) -> list[Any]:
        """The queue's retry after the set's pass (`explain.retry`): an object scheduled again is
        judged where its pods end up (`_after_retry`). Returns what the retries did."""
        log = self._retry
        waiting = [w for _, w in log.waiting]
        if not waiting:
            return []
        retried = retry(queue, waiting, log.events, log.next, lambda w: queue_order(w.entry, w.inputs),
                        on_unfit=lambda w, placement: log.unfit.__setitem__(id(w), placement))
        for q, w in log.waiting:
            mine = [r for r in retried if r.entry is w.entry]
            if mine and id(q) in found:
                found[id(q)] = self._guarded(q.ref, q.loc, lambda: self._after_retry(q, w, mine, found[id(q)]))
        return retried

    def _after_retry(self, q: "_Queued", w: Any, mine: list[Any], first: list[Finding]) -> list[Finding]:
        """An object's findings where the queue's retry leaves its pods, judged with its last try that
        did not fit; the first attempt's verdict kept in `details.firstAttempt`."""
        log = self._retry
        landed = [r for r in mine if r.node is not None]
        nodes_of = self._set.pool.snapshot if self._set is not None else None
        placed = log.placed.get(id(w), []) + [
            (r.node, zone_of(info.node.labels) if (info := nodes_of and nodes_of.get(r.node)) else "") for r in landed]
        zones = Counter(zone for _, zone in placed if zone)
        nodes = [n for n, _ in placed]
        unfit = log.unfit.get(id(w))
        verdict = self._verdict(q.ref, q.loc, q.ref.kind != "Pod", w.entry.copies, nodes,
                                unfit.inputs if unfit is not None else w.inputs,
                                unfit.trace if unfit is not None else None, zones, asked=w.entry.asked)
        where = _name_list(f"{r.pod} on {r.node}" for r in landed)
        before = next((f for f in first if f.rule in _VERDICT_RULES), None)
        details = {**verdict.details, "retried": [r.to_json() for r in mine]}
        if before is not None:
            details["firstAttempt"] = {"rule": before.rule, "message": before.message,
                                       **{k: before.details[k] for k in ("fit", "nodes") if k in before.details}}
        if verdict.rule == "fits":
            copies, asked = w.entry.copies, w.entry.asked
            what = (f"the {copies:,} pods created (of {asked:,} replicas) fit" if asked
                    else "fits" if copies == 1 else f"all {copies:,} replicas fit")
            message = f"{what}: {where} once the scheduling queue retried (requeued when {landed[0].trigger})"
        else:       # (the verdict ends with the scheduler's message, a sentence)
            went = _name_list(f"{r.pod} went to {r.node}" for r in landed)
            message = (f"{verdict.message} The scheduling queue retried it when {mine[0].trigger}: "
                       f"{went if landed else 'still unschedulable'}.")
        return [f for f in first if f.rule not in _VERDICT_RULES] + [replace(verdict, message=message,
                                                                              details=details)]

    def _node_groups(self, gathered: "_Gathered") -> dict[int, list[Finding]]:
        """Rule no-node-group: ONE CA loop over the set's pending pods, and each object's template check
        against the cluster as the objects before it left it (never its own copies)."""
        # lazy: CA's loop (about 0.3 s to import) only for --node-groups (docs/development.md, "Lazy imports")
        from kexplain.autoscaler.pending import GroupsRequest, load_groups, run_pass as run_ca_pass
        from kexplain.autoscaler.templates import template_node_infos

        pp = gathered.builder.build()
        # the lint pool's one state: read as stored, CA's loop admits its objects as read (`ClusterState.read`)
        req = GroupsRequest(Discovery.from_file(self.options.node_groups or "", self.options.max_bytes),
                            self.options.autoscaler_config, max_bytes=self.options.max_bytes,
                            validate=self.options.validate, state=self.pool)
        loop = load_groups(req, self.options.kube, applied=pp)
        if not loop.groups:
            return {}
        ran, _, answers = run_ca_pass(loop, pp)
        templates = template_node_infos(ran)
        cluster = loop.base if loop.base is not None else loop.snapshot
        out: dict[int, list[Finding]] = {}       # by id of the queued object

        def check_in(q: _Queued, stands: str, pod: Any, here: Any) -> None:
            def check() -> list[Finding]:
                found = node_groups.never_taken(ran, pod, here, templates) or \
                    node_groups.not_scaled_for([answers.answer(p.key) for p in pp.standing_for(stands)])
                return [] if found is None else [Finding(NO_NODE_GROUP, q.loc, q.ref, found.message,
                                                         details={"nodeGroups": found.groups})]
            out[id(q)] = self._guarded(q.ref, q.loc, check)

        later = []      # those the queue's retry placed: checked where the retry found the cluster
        for q, stands, pod, (lo, hi) in gathered.objects:
            if stands in gathered.retried:
                later.append((q, stands, pod, pp.bound[lo:hi]))
            else:
                check_in(q, stands, pod, cluster)
            for bound in pp.bound[lo:hi]:        # its copies, in the cluster the next objects are checked in
                if cluster.get(bound.node_name or "") is not None:
                    cluster = cluster.with_pod_bound(bound)
        for q, stands, pod, own in later:       # after every first attempt, without its own copies
            here = cluster
            for bound in own:
                here = here.without_pod(bound.node_name or "", bound.namespace, bound.name)
            check_in(q, stands, pod, here)
        return out

    def _node_pools(self, gathered: "_Gathered") -> dict[int, list[Finding]]:
        """Rule no-nodepool: ONE Karpenter pass over the set's pending pods, and each object's pod alone
        against the NodePools, with no node."""
        # lazy: Karpenter's provisioner only with NodePools (docs/development.md, "Lazy imports")
        from kexplain.karpenter.document import pod_document
        from kexplain.suggest.karpenter_pass import run, shape_inputs

        pp = gathered.builder.build()
        assert self.pool is not None
        # the one cluster state, never admitted again; read as stored, the pass admits its objects as read
        cluster = (self.pool.read or []) if self.pool.stored else []
        req = NodePoolsRequest(cluster, max_bytes=self.options.max_bytes, validate=self.options.validate,
                               state=self.pool)
        inputs, world = load_node_pools(req, self.options.kube, applied=pp)
        _, _, answers = run_karpenter_pass(inputs, world, pp)
        # each object's pod alone, as Karpenter would see it pending in an empty cluster
        own, _ = pass_over(replace(inputs, pending=[]), PendingPass(tuple(PendingPod(pod, stands)
                                                                          for _, stands, pod, _ in gathered.objects)))
        base = None
        out: dict[int, list[Finding]] = {}       # by id of the queued object
        for q, stands, pod, _ in gathered.objects:
            def check() -> list[Finding]:
                nonlocal base
                alone = run(shape_inputs(own, {pod.key}, nodes=False), world, base)
                base = base or alone
                record = next((pod_document(p, alone.result.tried_node_pools) for p in alone.result.pods
                               if p.pod.key == pod.key), None)
                found = node_pools.never_taken(record) or node_pools.not_provisioned_for(
                    [answers.answer(p.key) for p in pp.standing_for(stands)])
                return [] if found is None else [Finding(NO_NODEPOOL, q.loc, q.ref, found.message,
                                                         details={"nodePools": found.node_pools})]
            out[id(q)] = self._guarded(q.ref, q.loc, check)
        return out

    def _not_created(self, q: "_Queued", outcome: "Outcome") -> Finding:
        """A workload whose controller creates no pod now (`Entry.idle`: suspended): a note, with
        what its template met (scheduled taking no room), whatever that verdict."""
        last = outcome.last
        assert last is not None
        verdict = self._verdict(q.ref, q.loc, False, 1, outcome.placed, last.inputs, last.trace)
        said = verdict.message if verdict.rule == "fits" else f"{verdict.rule}: {verdict.message}"
        return Finding("not-created", q.loc, q.ref, f"{q.entry.idle}; its pod, once resumed: {said}",
                       suggestions=verdict.suggestions, details={**verdict.details, "idle": q.entry.idle})

    def _pinned(self, q: "_Queued", outcome: "Outcome") -> Finding:
        """The verdict on a Pod or workload's pods (`_verdict`); for one bound to a node the pool
        does not have, that it never runs."""
        last = outcome.first_unfit or outcome.last       # (copies placed each on its own: one in the middle)
        assert last is not None
        copies = outcome.entry.copies if q.ref.kind != "Pod" else 1
        zones = Counter(c.zone for c in outcome.copies if c.node is not None and c.zone)
        finding = self._verdict(q.ref, q.loc, q.ref.kind != "Pod", copies, outcome.placed, last.inputs, last.trace,
                                zones, asked=outcome.entry.asked)
        bound = q.inputs.pod.node_name
        if q.pinned is None and bound and finding.rule == "fits":      # each copy admitted by its kubelet
            admits = "it" if copies == 1 else f"all {copies:,}"
            return Finding("not-scheduled", q.loc, q.ref, f"spec.template.spec.nodeName is {bound}: the scheduler "
                                                          f"does not place its pods; its kubelet admits {admits}",
                           details=finding.details)
        if q.pinned is None:
            return finding
        field_name = "spec.nodeName" if q.ref.kind == "Pod" else "spec.template.spec.nodeName"
        text = finding.message if finding.rule in ("unschedulable", "replicas") else "no kubelet will run it"
        return replace(finding, rule="unschedulable", severity=None,
                       message=f"{field_name} is {q.pinned}, which is not a node of the pool: {text}")

    @staticmethod
    def _other_scheduler(ref: ObjectRef, loc: Location, scheduler: str) -> Finding:
        return Finding("other-scheduler", loc, ref,
                       f"the pod is for scheduler {scheduler}, which is not a profile of the scheduler configuration: "
                       "not checked; --config can add the profile", field="spec.schedulerName",
                       details={"schedulerName": scheduler})

    def _verdict(self, ref: ObjectRef, loc: Location, workload: bool, copies: int, placed: list[str],
                 inputs: "Inputs", trace: Trace | None, zones: dict[str, int] | None = None,
                 asked: int = 0) -> Finding:
        """The verdict on an object's `copies` pods (`asked`: the replicas wanted): they fit, or the
        first attempt that did not fit (`trace` of `inputs`) says why."""
        details: dict[str, Any] = {"replicas": asked or copies, "fit": len(placed), "nodes": placed,
                                   "status": trace.result.status if trace is not None else SCHEDULED}
        if asked:
            details["created"] = copies
        if len(placed) == copies or trace is None:
            where = _where(placed, zones)
            sep = " " if where.startswith("on ") else ": "
            if asked:
                text = f"the {copies:,} pods created (of {asked:,} replicas) fit{sep}{where}"
            else:
                text = f"fits: {where}" if copies == 1 else f"all {copies:,} replicas fit{sep}{where}"
            return Finding("fits", loc, ref, text, details=details)
        of_copies = f"{copies} replicas" if not asked else f"{copies} pods created (of {asked} replicas)"
        name = inputs.pod.name
        replica = f"replica {name}" if workload else "the pod"
        result = trace.result
        suggestions = self._suggest(inputs, trace)
        if result.status == GATED:
            return Finding("gated", loc, ref, _gated_text(inputs, trace), details={**details, **_gate_details(trace)})
        if result.status == FAILED:         # bound by spec.nodeName: its kubelet rejects it
            kubelet = trace.extra.get("kubelet") or {}
            event = kubelet.get("event") or {}
            prefix = f"{len(placed):,} of {copies:,} replicas run ({_where(placed, zones)}); {replica}: " if placed \
                else "" if copies == 1 else f"none of the {copies} replicas runs: "
            return _kubelet_rejected(ref, loc, "spec.template.spec.nodeName" if workload else "spec.nodeName",
                                     str(kubelet.get("node")), str(event.get("reason")), str(event.get("message")),
                                     prefix, details)
        if result.status != UNSCHEDULABLE:
            details["error"] = result.error
            return Finding("scheduler-error", loc, ref, f"the scheduler would fail: {result.error}", details=details)
        details["message"] = result.message
        if trace.extra.get("rejection"):        # what a PreFilter rejection's message does not name
            details["rejection"] = trace.extra["rejection"]
        post = trace.post_filter or {}
        nominated = post.get("nominatedNodeName") or ""
        prefix = f"{len(placed):,} of {of_copies} fit ({_where(placed, zones)}); " if placed else ""
        if nominated:
            victims = post.get("victims") or []
            details.update(nominatedNode=nominated, victims=victims)
            evict = f"evicting {', '.join(victims)}" if victims else "evicting no pod"
            text = (f"{prefix}{replica} is schedulable only through preemption: on node {nominated}, "
                    f"{evict}. {result.message}")
            if placed or copies > 1:
                text += " (later replicas not checked)" if copies - len(placed) > 1 else ""
            return Finding("preemption", loc, ref, text.strip(), suggestions=suggestions, details=details)
        if placed:
            return Finding("replicas", loc, ref, f"fits only {len(placed)} of {of_copies} "
                                                 f"({_where(placed, zones)}); {replica}: {result.message}",
                           suggestions=suggestions, details=details)
        text = result.message if copies == 1 and not asked else f"none of the {of_copies} fits: {result.message}"
        return Finding("unschedulable", loc, ref, text, suggestions=suggestions, details=details)

    def _daemon_findings(self, ref: ObjectRef, loc: Location, outcome: "Outcome",
                         tally: "_DaemonTally") -> list[Finding]:
        """A DaemonSet: a pod pinned to each eligible node, each through the whole pipeline (`tally`);
        eligible nodes where it does not fit are findings, with the reason per node."""
        assert outcome.daemon is not None
        nodes = outcome.daemon
        total = len(nodes.eligible) + len(nodes.excluded)
        details: dict[str, Any] = {"nodesInPool": total, "eligible": list(nodes.eligible),
                                   "notEligible": nodes.excluded}
        bound = outcome.inputs.pod.node_name
        if bound and nodes.eligible:        # the one node its template names: that node's kubelet decides
            if tally.kubelet is not None:
                event = tally.kubelet
                return [_kubelet_rejected(ref, loc, "spec.template.spec.nodeName", bound, str(event.get("reason")),
                                          str(event.get("message")), details=details)]
            if tally.stop is None:
                return [Finding("not-scheduled", loc, ref, f"spec.template.spec.nodeName is {bound}: the scheduler "
                                                           "does not place its pod; its kubelet admits it",
                                details=details)]
        if tally.stop is not None:      # gated, or the scheduler would fail: said of the first such copy
            placement = tally.stop
            trace = placement.trace
            result = trace.result
            if result.status == GATED:
                return [Finding("gated", loc, ref, _gated_text(placement.inputs, trace),
                                details={**details, "status": result.status, **_gate_details(trace)})]
            name = nodes.eligible[placement.index]
            return [Finding("scheduler-error", loc, ref, f"the scheduler would fail (node {name}): {result.error}",
                            details={**details, "status": result.status, "error": result.error})]
        fit = tally.fit
        failed = {nodes.eligible[i]: {"reason": _node_reason_of(flt, message, nodes.eligible[i]), "message": message}
                  for i, flt, message in tally.failed}
        preempting = {nodes.eligible[i]: {"victims": victims, "message": message}
                      for i, victims, message in tally.preempting}
        first_failed, first_preempting = tally.first_failed, tally.first_preempting
        eligible = len(nodes.eligible)
        details.update(replicas=eligible, fit=len(fit), nodes=fit)
        not_eligible = (f"; {len(nodes.excluded)} of {total} nodes not eligible" if nodes.excluded else "")
        if not failed and not preempting:
            text = (f"fits on the eligible node {fit[0]}" if eligible == 1
                    else f"fits on all {eligible} eligible nodes: {_name_list(fit)}")
            if nodes.excluded:
                text += f"; {len(nodes.excluded)} of {total} nodes not eligible: {_grouped(nodes.excluded)}"
            return [Finding("fits", loc, ref, text, details=details)]
        findings: list[Finding] = []
        where = f" ({_name_list(fit)})" if fit else ""
        if failed:
            reasons = {n: f["reason"] for n, f in failed.items()}
            text = (f"fits on {len(fit)} of {eligible} eligible nodes{where}; does not fit on "
                    f"{_grouped(reasons)}{not_eligible}")
            rule = "replicas" if fit or preempting else "unschedulable"
            assert first_failed is not None
            findings.append(Finding(rule, loc, ref, text, details={**details, "notFit": failed},
                                    suggestions=self._suggest(first_failed.inputs, first_failed.trace)))
        if preempting:
            shown = list(preempting.items())[:_LIST_LIMIT]
            parts = [f"on {n}, evicting {', '.join(p['victims']) if p['victims'] else 'no pod'}" for n, p in shown]
            more = f"; and {len(preempting) - len(shown)} more nodes" if len(preempting) > len(shown) else ""
            text = (f"schedulable only through preemption on {len(preempting)} of {eligible} eligible nodes: "
                    f"{'; '.join(parts)}{more}{not_eligible}")
            assert first_preempting is not None
            findings.append(Finding("preemption", loc, ref, text, details={**details, "preemption": preempting},
                                    suggestions=self._suggest(first_preempting.inputs, first_preempting.trace)))
        return findings

    def _suggest(self, inputs: "Inputs", trace: Trace) -> tuple[str, ...]:
        if self.suggester is None:
            return ()
        found = self.suggester(inputs, trace)
        if self.options.node_groups is not None or self._karpenter:   # a node comes from a group or a NodePool
            found = [s for s in found if getattr(s, "kind", None) != ADD_NODE]
        return tuple(str(getattr(s, "text", None) or s) for s in found)


def _kubelet_rejected(ref: ObjectRef, loc: Location, field_name: str, node: str, reason: str, message: str,
                      prefix: str = "", details: dict[str, Any] | None = None) -> Finding:
    """Rule kubelet-rejected: the pod names its node (`field_name`), whose kubelet rejects it
    (`kexplain.controllers.kubelet`) with `reason` and `message`, its event's."""
    return Finding("kubelet-rejected", loc, ref,
                   f"{prefix}{field_name} is {node}: the scheduler does not place this pod, and its kubelet rejects "
                   f"it: the pod fails with reason {reason}: {message}",
                   details={**(details or {}), "node": node, "reason": reason, "message": message})


API_WARNING = ": Warning: "


def api_warnings(warnings: Iterable[str]) -> list[str]:
    """The API server's warnings among admission's (`src: pods "x": Warning: would violate
    PodSecurity ...`), as `kubectl apply` prints them: `Warning: would violate PodSecurity ...`."""
    return [f"Warning: {w.split(API_WARNING, 1)[1]}" for w in warnings if API_WARNING in w]


def _in_namespace(files: "list[_File]", flag: str | None) -> dict[tuple[str, int, int | None], str]:
    """The set as `kubectl apply -n flag` takes it: namespace-less objects put in `flag`; the
    documents of objects in another namespace, with kubectl's refusal."""
    if not flag:
        return {}
    scopes = {**KNOWN_SCOPES, **declared_scopes(doc.obj for f in files for doc in f.items)}
    refused: dict[tuple[str, int, int | None], str] = {}
    for f in files:
        for j, doc in enumerate(f.items):
            why = refusal(doc.obj, flag, scopes)
            if why is not None:
                refused[doc.location.key] = why
            elif isinstance(doc.obj, dict):
                obj = placed(doc.obj, flag, scopes)
                if obj is not doc.obj:
                    f.items[j] = replace(doc, obj=obj)
    return refused


def _name_generated(files: "list[_File]") -> set[tuple[str, int, int | None]]:
    """Objects giving only a generateName, named as `kexplain POD` names them (`named`), in their
    documents; the documents so named."""
    docs = [(f, j, doc) for f in files for j, doc in enumerate(f.items) if isinstance(doc.obj, dict)]
    out: set[tuple[str, int, int | None]] = set()
    for (f, j, doc), (obj, _) in zip(docs, named([(doc.obj, doc.location) for _, _, doc in docs])):
        if obj is not doc.obj:
            f.items[j] = replace(doc, obj=obj)
            out.add(doc.location.key)
    return out


def _objects(items: list[Document]) -> tuple[list[tuple[dict[str, Any], Source]], dict[int, Document]]:
    """The objects of `items` (documents that are mappings with a kind), each with a Source of
    its own, and the document of each Source (by its id)."""
    objs: list[tuple[dict[str, Any], Source]] = []
    where: dict[int, Document] = {}
    for doc in items:
        if isinstance(doc.obj, dict) and isinstance(doc.obj.get("kind"), str):
            src = Source(doc.location.path, doc.location.doc)
            objs.append((doc.obj, src))
            where[id(src)] = doc
    return objs, where


@dataclass(frozen=True)
class _File:
    """One file read: its documents, the error that ended its reading, and whether it counts
    as a file (not a path that could not be walked)."""

    path: str
    items: list[Document]
    error: InputError | None
    counted: bool = True


@dataclass
class _SetCluster:
    """The pool as the linted set leaves it, the set's refused objects (their findings), its Pods
    and workloads queued as one batch, and what the autoscalers read of it."""

    pool: "ClusterState"
    refused: dict[tuple[str, int, int | None], Finding] = field(default_factory=dict)
    queued: list["_Queued"] = field(default_factory=list)
    hpas: dict[tuple[str, str, str], list[dict[str, Any]]] = field(default_factory=dict)   # by target, in order
    ledger: Any = None      # the quotas of the set's namespaces, its pods charged as queued (`explain.created`)
    # by id of each document's object: the set's policies created after it (`policies_after`)
    later: dict[int, frozenset[tuple[str, str, str]]] = field(default_factory=dict)
    children: Children = field(default_factory=lambda: Children(()))   # what the set's controllers made already
    autoscaled: list = field(default_factory=list)
    created: list = field(default_factory=list)


@dataclass
class _RetryLog:
    """The set's pass as the queue's retry needs it: every binding and attempt numbered
    (`saw`), and each object left with unschedulable pods (`left`)."""

    events: list[Any] = field(default_factory=list)
    waiting: list[tuple["_Queued", Any]] = field(default_factory=list)
    seq: int = 0
    # per object waiting (by id): where its copies went on the first pass (node, zone), and the
    # placement of its last try that did not fit (kept only for these objects)
    placed: dict[int, list[tuple[str, str]]] = field(default_factory=dict)
    unfit: dict[int, Any] = field(default_factory=dict)

    def next(self) -> int:
        self.seq += 1
        return self.seq

    def saw(self, placement: "Placement") -> None:
        at = self.next()
        if placement.node is not None:
            self.events.append(Bound(at, placement.inputs.pod, placement.node))

    def left(self, q: "_Queued", outcome: "Outcome") -> None:
        w = waiting_of(outcome.entry, q.inputs, len(outcome.placed), outcome.first_unfit, self.next())
        if w is not None:
            self.waiting.append((q, w))
            self.placed[id(w)] = [(c.node, c.zone) for c in outcome.copies if c.node is not None]
            self.unfit[id(w)] = outcome.first_unfit


class _Gathered:
    """What the autoscalers see of the set (`PassBuilder`) as the queue places it, and per object
    its pod, what it stands for and its bound copies' span (`objects`, queue order)."""

    def __init__(self, cluster: _SetCluster) -> None:
        self.builder = PassBuilder()
        self.builder.add_objects(cluster.autoscaled, cluster.created)
        self.objects: list[tuple[_Queued, str, Any, tuple[int, int]]] = []
        self.retried: set[str] = set()      # what the objects the queue's retry placed pods of stand for

    def settle(self, retried: Sequence[Any]) -> None:
        """The pods the queue's retry placed are bound, not pending (`PassBuilder.settle`)."""
        self.builder.settle(retried)
        self.retried |= {object_ref(r.entry.kind, r.entry.namespace, r.entry.name) for r in retried
                         if r.node is not None}

    def add(self, q: "_Queued", outcome: "Outcome") -> None:
        before = len(self.builder.bound)
        self.builder.add_outcome(outcome)
        if q.pinned is None and not q.entry.idle and outcome.daemon is None:
            self.objects.append((q, object_ref(q.entry.kind, q.entry.namespace, q.entry.name), outcome.inputs.pod,
                                 (before, len(self.builder.bound))))


@dataclass(frozen=True)
class _Queued:
    """A Pod or workload of the file, admitted, waiting for the file's batch: its findings go
    at index `at` of the report (after its schema findings)."""

    entry: "Entry"
    inputs: "Inputs"
    ref: ObjectRef
    loc: Location
    pinned: str | None = None             # the node it is bound to, which the pool does not have
    at: int = 0
    linted: LintedObject | None = None
    made: int = 0                         # which object Kueue made of its document (a JobSet's Jobs)


_LIST_LIMIT = 10
# the rules of a verdict on where an object's pods go (one per object scheduled)
_VERDICT_RULES = frozenset({"fits", "unschedulable", "replicas", "preemption", "gated", "scheduler-error"})
KUEUE_HELD = "kueue-held"      # a job Kueue keeps suspended (tables.json)


def _name_list(names: Iterable[str]) -> str:
    """`a, b, c` with at most `_LIST_LIMIT` names, then `and N more`."""
    names = list(names)
    shown = ", ".join(names[:_LIST_LIMIT])
    return shown if len(names) <= _LIST_LIMIT else f"{shown} and {len(names) - _LIST_LIMIT} more"


def _grouped(reasons: dict[str, str]) -> str:
    """Nodes grouped by reason, in order of first appearance: `n1, n2 (reason); n3 (other)`."""
    groups: dict[str, list[str]] = {}
    for node, reason in reasons.items():
        groups.setdefault(reason, []).append(node)
    return "; ".join(f"{_name_list(nodes)} ({reason})" for reason, nodes in groups.items())


def _gate(trace: Trace) -> dict[str, Any]:
    """The PreEnqueue plugin that held the pod back (`explain.describe.gate`, as explain shows it)."""
    return dict(gate({"preEnqueue": trace.pre_enqueue}) or {})


def _gate_details(trace: Trace) -> dict[str, Any]:
    g = _gate(trace)
    return {"plugin": g.get("plugin", ""), "reasons": list(g.get("reasons") or ())} if g else {}


def _gated_text(inputs: "Inputs", trace: Trace) -> str:
    """What holds the pod back before the scheduler: its scheduling gates, or another PreEnqueue
    plugin with its reason, in explain's words."""
    g = _gate(trace)
    plugin = g.get("plugin") or "SchedulingGates"
    if plugin == "SchedulingGates":
        gates = [str(x.get("name", "")) for x in inputs.pod.spec.get("schedulingGates") or () if isinstance(x, dict)]
        if gates:
            return f"waits for its scheduling gates ({', '.join(gates)})"
    reasons = "; ".join(g.get("reasons") or ()) or str(g.get("code") or "")
    return f"held back by {plugin}: {reasons}" if reasons else f"held back by {plugin}"


def _node_reason_of(filtered: dict[str, Any] | None, message: str, node: str) -> str:
    """Why the pod pinned to `node` does not fit there: the reasons of the Filter plugin that
    rejected the node, else (PreFilter rejected the pod) the FailedScheduling message, from the
    parts of the trace it reads (kept without the trace)."""
    status = (filtered or {}).get(node) or {}
    reasons = [r for r in status.get("reasons") or () if r]
    if reasons:
        return ", ".join(reasons)
    return status.get("message") or message


@dataclass
class _DaemonTally:
    """A DaemonSet's copies as placed (a sink of `Queue.place`), without their traces: the nodes
    they fit, per copy that does not its verdicts or victims, and the first placements that matter."""

    fit: list[str] = field(default_factory=list)
    failed: list[tuple[int, dict[str, Any] | None, str]] = field(default_factory=list)
    preempting: list[tuple[int, list[str], str]] = field(default_factory=list)
    first_failed: "Placement | None" = None
    first_preempting: "Placement | None" = None
    stop: "Placement | None" = None
    kubelet: dict[str, Any] | None = None      # the event of a copy bound by spec.nodeName its kubelet rejected

    def __call__(self, placement: "Placement") -> None:
        if self.stop is not None:
            return
        if placement.node is not None:
            self.fit.append(placement.node)
            return
        trace = placement.trace
        result = trace.result
        if result.status == FAILED:
            self.kubelet = self.kubelet or (trace.extra.get("kubelet") or {}).get("event") or {}
            return
        if result.status != UNSCHEDULABLE:      # gated, or the scheduler would fail
            self.stop = placement
            return
        post = trace.post_filter or {}
        if post.get("nominatedNodeName"):
            self.preempting.append((placement.index, list(post.get("victims") or []), result.message))
            self.first_preempting = self.first_preempting or placement
        else:
            self.failed.append((placement.index, dict(trace.filter) if trace.filter else None, result.message))
            self.first_failed = self.first_failed or placement


def _where(placed: list[str], zones: dict[str, int] | None = None) -> str:
    """Where copies went: `n1, n2 ×2` over a few nodes; over many, counted: `on 1,000 nodes:
    us-east-1a 334, us-east-1b 333, ...` (per zone, when the nodes have one)."""
    counts = Counter(placed)
    if len(counts) <= _LIST_LIMIT:
        return _nodes_text(placed)
    text = f"on {len(counts):,} nodes"
    if zones:
        shown = [f"{z} {c:,}" for z, c in list(zones.items())[:_LIST_LIMIT]]
        more = f" and {len(zones) - _LIST_LIMIT} more zones" if len(zones) > _LIST_LIMIT else ""
        text += ": " + ", ".join(shown) + more
    return text


def _nodes_text(nodes: list[str]) -> str:
    """`n1, n2 ×2` in order of first placement."""
    counts = Counter(nodes)
    return ", ".join(n if c == 1 else f"{n} ×{c}" for n, c in counts.items())


def lint(options: LintOptions, stdin: BinaryIO | None = None,
         suggester: Suggester | None = None, *, freeze_pool: bool = False, progress: Progress | None = None) -> Report:
    """Lint `options.paths`: KexplainError for bad usage, unreadable manifests as findings.
    `freeze_pool`: the CLI's GC policy for the pool; `progress(done, planned)` per pod scheduled."""
    if "-" in options.paths and "-" in options.node_paths:
        raise KexplainError("stdin ('-') can be read once: give it to PATH or to --nodes, not both")
    with bulk_load(freeze=freeze_pool):
        linter = Linter(options, stdin, suggester, progress=progress)
    return linter.run()
