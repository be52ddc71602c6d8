"""`kexplain lint`: are these manifests valid, and will their pods schedule on this pool? Schemas,
then (with --nodes) admission and scheduling of the paths as one apply, one batch, against the
pool as the set leaves it; a `Report` of `Finding`s at file and line. The Linter keeps the walk,
the set's gathering and the report; the rules (`lint/rules/`, their registry `RULES`) make the
findings. How: docs/internals/lint.md."""
from __future__ import annotations

import os
from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING, Any, BinaryIO, Callable, Sequence

from kexplain.admission.workloads import WORKLOAD_KINDS, refused_pods
from kexplain.apimachinery.kinds import is_builtin_kind
from kexplain.controllers import podautoscaler
from kexplain.controllers.workloads import replica_count
from kexplain.errors import ConfigError, InputError, KexplainError, Source
from kexplain.explain import created as creates
from kexplain.explain.batch import Queue, queue_order
from kexplain.explain.inputs import inputs_for, load_pool
from kexplain.explain.placement import daemon_nodes
from kexplain.explain.pod_file import PodsExist, entry_of, with_existing
from kexplain.explain.request import RunOptions
from kexplain.framework.trace import Trace
from kexplain.karpenter.request import has_node_pools
from kexplain.kueue.lint_checks import Started as KueueStarted
from kexplain.kueue.operator_pods import KINDS as KUEUE_OPERATOR_KINDS
from kexplain.lint import requeue
from kexplain.lint.documents import Document, Location, read_documents, unwrap
from kexplain.lint.karpenter import karpenter_findings
from kexplain.lint.findings import (NOT_SCHEDULED_RULES, SCHEDULING_RULES, VERDICT_RULES, Finding, ObjectRef,
                                    guarded)
from kexplain.lint.options import LintOptions
from kexplain.lint.report import LintedObject, Report
from kexplain.lint.choice import CONFIG_FILE, choose
from kexplain.lint.rule import FAIL_ON, KUEUE, NODE_GROUPS, NODEPOOLS, POOL, SCHEMAS, VOLCANO, Rule, Severity
from kexplain.lint.rules import RULES, with_severity
from kexplain.lint.rules.admission import api_warnings, failed_create
from kexplain.lint.rules.apply import generate_name, in_namespace, name_generated, namespace_mismatch
from kexplain.lint.rules.controllers import not_created
from kexplain.lint.rules.devices import device_findings
from kexplain.lint.rules.disruption_budgets import budget_findings
from kexplain.lint.rules.documents import invalid, unreadable
from kexplain.lint.rules.kubelet import bound_pod
from kexplain.lint.rules.last_applied import last_applied_too_long
from kexplain.lint.rules.kueue import held_unmade, kueue_findings, said_kueue
from kexplain.lint.rules.node_groups import node_group_findings
from kexplain.lint.rules.node_pools import node_pool_findings
from kexplain.lint.rules.scheduling import DaemonTally, daemon_findings, grouped, other_scheduler, verdict
from kexplain.lint.rules.schemas import Schemas, refusing
from kexplain.lint.rules.suppression import ignore_of
from kexplain.lint.rules.volcano import volcano_findings
from kexplain.lint.schemas import SchemaStore
from kexplain.lint.set_cluster import cluster_hpas, onto_pool, rolled_out, set_cluster
from kexplain.lint.set_state import Gathered, Queued, RetryLog, SetCluster, SetFile, objects_of
from kexplain.load.gcpolicy import bulk_load
from kexplain.load.manifests import applied as applied_repeats, expand_paths, read_text, repeats
from kexplain.load.namespace_flag import KNOWN_SCOPES, Scopes, declared_scopes
from kexplain.suggest import verified_suggestions
from kexplain.suggest.add_node import ADD_NODE

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.explain.batch import Outcome
    from kexplain.explain.placement import Placement
    from kexplain.explain.pod_file import Entry
    from kexplain.explain.pod_inputs import Inputs
    from kexplain.state.cluster import ClusterState

# (what the modules that read lint's results import from here)
__all__ = ["FAIL_ON", "NOT_SCHEDULED_RULES", "RULES", "SCHEDULING_RULES", "Finding", "LintOptions", "LintedObject",
           "Linter", "Location", "ObjectRef", "Progress", "Report", "Rule", "Severity", "Suggester",
           "default_suggester", "lint"]

# -- suggestions (hook) -----------------------------------------------------------------------
Suggester = Callable[["Inputs", Trace], Sequence[str]]
Progress = Callable[[int, int], None]      # (pods scheduled so far, pods planned so far)


def default_suggester() -> Suggester:
    """Verified fix suggestions: called with the inputs and trace of the pod that did not fit;
    each item shown (its `text`, or as a string)."""
    return verified_suggestions


# -- the engine --------------------------------------------------------------------------------

def set_findings(applied: list, taken: list, cluster, pool, options, warnings) -> tuple[list, set, dict]:
    """The rule families that read the whole set at once, by file (devices; the budgets the API server
    takes, a policy/v1beta1 one refused by its schema; Karpenter's NodePools, consolidation and PDBs;
    Kueue's; Volcano's), the needs they met (Kueue's pass ran, Volcano's Queues given) and the jobs
    Kueue started."""
    found = [device_findings(applied, cluster), budget_findings(taken, pool), karpenter_findings(taken, pool)]
    queued, started = kueue_findings(taken, pool, options, warnings)
    volcano, queues_known = volcano_findings(taken, pool)
    needs = ({KUEUE} if queued or started else set()) | ({VOLCANO} if queues_known else set())
    return [*found, queued, volcano], needs, started

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
        plugins = (pool.kube if pool is not None else options.kube).admission   # (recognised by the pool's nodes)
        if plugins.said:
            self.report.admission = {**plugins.to_json(), "text": plugins.describe()}
        self._set: SetCluster | None = None     # the set being linted: its pool, its refused objects
        self._repeated: set[tuple[str, int, int | None]] = set()   # documents not applied: a later one is
        self._generated: set[tuple[str, int, int | None]] = set()  # documents named from their generateName
        self._elsewhere: dict[tuple[str, int, int | None], str] = {}  # refused by -n: kubectl's words
        self._scopes: Scopes = KNOWN_SCOPES     # the set's kinds' scopes: its CRDs' with kexplain's
        # documents whose update of an earlier copy the API server refuses (an immutable field changed)
        self._update_refused: dict[tuple[str, int, int | None], KexplainError] = {}
        # workloads the pool has: what kubectl apply leaves of them (patched, or the pool's when refused)
        self._live: dict[tuple[str, int, int | None], dict[str, Any]] = {}
        # each object's place in the set (an object given twice: its first's), its pods' order in the queue
        self._place: dict[tuple[str, int, int | None], int] = {}
        self._schemas = Schemas(self.store)     # the set's schema findings, each worked out once
        # the set's Jobs and Pods Kueue admits, as Kueue starts them: scheduled in their place (`rules.kueue`)
        self._kueue_started: dict[tuple[str, int, int | None], KueueStarted] = {}
        self._retry = RetryLog()       # the set's pass, for the queue's retry
        # Karpenter's NodePools among the --nodes objects: rule no-nodepool (`rules.node_pools`)
        self._karpenter = pool is not None and has_node_pools(pool.other_kinds)
        self._autoscaled = options.node_groups is not None or self._karpenter    # an autoscaler reads the set
        self.report.needs = frozenset({SCHEMAS, *((POOL,) if pool is not None else ()),
                                       *((NODE_GROUPS,) if options.node_groups is not None else ()),
                                       *((NODEPOOLS,) if self._karpenter else ())})
        # the HPAs of --nodes: they act on the set's workloads they target (refused: bad input)
        self._cluster_hpas = cluster_hpas(pool, options) if pool is not None else []

    # -- files ------------------------------------------------------------------------------
    def run(self) -> Report:
        """Read every file of the paths (each once, the collector paused: `bulk_load`), then
        lint them as one apply (`lint_set`)."""
        files: list[SetFile] = []
        read: set[str] = set()
        with bulk_load():
            for path in self.options.paths:
                try:
                    found = expand_paths([path])
                except InputError as err:
                    files.append(SetFile(path, [], err, counted=False))
                    continue
                for file in found:
                    if file != path and os.path.basename(file) == CONFIG_FILE:    # lint's own, not a manifest
                        continue
                    if file not in read:        # a file given twice (itself, and in its directory) is read once
                        read.add(file)
                        files.append(self.read_file(file))
        self.report.files += sum(1 for f in files if f.counted)
        self.lint_set(files)
        self.report.findings = with_severity(self.report.findings)     # each at its rule's, unless its own
        return self.report

    def read_file(self, path: str) -> SetFile:
        """One file's documents (Lists unwrapped), and the error that ended its reading."""
        try:
            text = read_text(path, self.options.max_bytes, self.stdin)
        except InputError as err:
            return SetFile(path, [], err)
        docs, error = read_documents(text, path)
        return SetFile(path, [item for doc in docs for item in unwrap(doc)], error)

    def lint_set(self, files: list[SetFile]) -> None:
        """Lint `files` as one apply: each document with its schema and scheduling findings, then its
        file's device and Kueue findings; the pods scheduled together (`set_cluster`)."""
        self._elsewhere = in_namespace(files, self.options.namespace)
        self._generated = name_generated(files)
        self._scopes = {**KNOWN_SCOPES, **declared_scopes(doc.obj for f in files for doc in f.items)}
        items = [item for f in files for item in f.items if item.location.key not in self._elsewhere]
        objs, where = objects_of(items)
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
        schema_refused = self._schemas.refused(applied)
        if self.pool is not None:
            kept = onto_pool(self.pool, sorted((doc for doc in applied if doc.location.key not in schema_refused),
                                               key=lambda doc: self._place.get(doc.location.key, -1)),
                             self._update_refused, self._live)
            gone = frozenset(str(ObjectRef.of(doc.obj).name) for doc in applied
                             if doc.location.key in schema_refused and ObjectRef.of(doc.obj).kind == "Namespace")
            self._set = set_cluster(self.pool, self.options, self._cluster_hpas, self._autoscaled, kept,
                                    files[0].path if files else "", gone, self.report.warnings)
        else:
            self._set = None
        try:
            taken = [doc for doc in applied if doc.location.key not in schema_refused]
            by_file, needs, self._kueue_started = set_findings(applied, taken, self._set, self.pool, self.options,
                                                               self.report.warnings)
            self.report.needs |= needs
            for f in files:
                for item in f.items:
                    self.lint_document(item)     # (those -n refuses too: their finding says so)
                for found in by_file:
                    self.report.findings.extend(found.get(f.path, ()))
                if f.error is not None:
                    self._add(unreadable(f.path, f.error))
            self._schedule_set()
        finally:
            self._set = None
            self._repeated = set()
            self._generated = set()
            self._elsewhere = {}
            self._update_refused = {}
            self._live = {}
            self._place = {}
            self._schemas = Schemas(self.store)
            self._kueue_started = {}

    def _add(self, finding: Finding) -> None:
        self.report.findings.append(finding)

    # -- objects ----------------------------------------------------------------------------
    def lint_document(self, doc: Document) -> None:
        obj, loc = doc.obj, doc.location
        ref = ObjectRef.of(obj)
        linted = LintedObject(loc, ref, ignore=ignore_of(doc))
        self.report.linted.append(linted)
        invalid_document = invalid(obj, ref, loc)
        if invalid_document is not None:
            self._add(invalid_document)
            return
        valid = self.check_schema(obj, ref, doc)
        elsewhere = self._elsewhere.get(loc.key)
        if elsewhere is not None:     # `kubectl apply -n` refuses it: not part of the set
            self._add(namespace_mismatch(doc, ref, elsewhere))
            return
        if loc.key in self._generated:
            self._add(generate_name(obj, ref, doc))
        too_long = last_applied_too_long(doc, ref, self.options.namespace or "default", self._scopes)
        if too_long is not None:
            self._add(too_long)
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
            self._scheduled(linted, [held_unmade(loc, ref, kueue)])
            return
        # as Kueue starts it, once admitted (a JobSet: each of its Jobs, its findings the JobSet's)
        for n, scheduled in enumerate(kueue.made if kueue is not None else (self._live.get(loc.key, obj),)):
            found = guarded(ref, loc, lambda job=scheduled: self.check_scheduling(job, ref, loc))
            if isinstance(found, Queued):      # scheduled with the set's other pods (`_schedule_set`)
                assert self._set is not None
                self._set.queued.append(replace(found, at=len(self.report.findings), linted=linted, made=n))
            else:
                self._scheduled(linted, said_kueue(kueue, found, n))

    def _schedulable(self, doc: Document, ref: ObjectRef, valid: bool, started: bool) -> bool:
        """Whether the object's pods meet the scheduler: a valid Pod or built-in workload, or a
        JobSet Kueue starts (`started`: its Jobs) that its schema, if one is given, does not refuse."""
        if started and ref.kind == "JobSet":
            return not refusing(self._schemas.of(doc.obj, ref, doc)[0])
        if started and ref.kind in KUEUE_OPERATOR_KINDS:     # (its operator's pods, `kueue.operator_pods`)
            return True
        return valid and (ref.kind == "Pod" or ref.kind in WORKLOAD_KINDS) and is_builtin_kind(ref.api_version,
                                                                                                ref.kind)

    def _scheduled(self, linted: LintedObject, findings: list[Finding], at: int | None = None) -> None:
        """Add an object's scheduling findings (at index `at` of the report, by default last)."""
        linted.scheduled = linted.scheduled or any(      # (a JobSet's Jobs: any of them)
            f.rule not in NOT_SCHEDULED_RULES and not f.details.get("internalError") for f in findings)
        if at is None:
            self.report.findings.extend(findings)
        else:
            self.report.findings[at:at] = findings

    def check_schema(self, obj: dict[str, Any], ref: ObjectRef, doc: Document) -> bool:
        """Add the schema findings; True when the object is fit to be scheduled: no errors, or only
        unknown fields under --validate=warn (the API server drops them)."""
        findings, valid = self._schemas.of(obj, ref, doc)
        self.report.findings.extend(findings)
        return valid

    # -- scheduling -------------------------------------------------------------------------
    def check_scheduling(self, obj: dict[str, Any], ref: ObjectRef, loc: Location) -> "list[Finding] | Queued":
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
            return bound_pod(obj, ref, loc, pinned, self._set, self._run_options(),
                             lambda *verdict_of: verdict(*verdict_of, suggest=self._suggest))
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
                    entry, said = rolled_out(entry, self._set.running, pool.kube)
                    self.report.warnings += said
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
                return [failed_create(none, ref, loc)]
            err = refused_pods(err, obj, pool.kube) if workload else err
            return [Finding("admission", loc, ref, err.message, field=err.field)]
        if entry.not_created:       # (a quota)
            return [failed_create(entry, ref, loc)]
        if entry.failed_create:
            self._add(failed_create(entry, ref, loc))
        for warning in dict.fromkeys(api_warnings(inputs.warnings)):     # (Pod Security's warn level)
            self._add(Finding("admission-warning", loc, ref, warning))
        scheduler = inputs.pod.spec.get("schedulerName") or "default-scheduler"
        try:
            pool.config.profile_for(scheduler)
        except ConfigError:
            return [other_scheduler(ref, loc, scheduler)]
        if daemon:
            nodes = daemon_nodes(inputs.pod, inputs.snapshot)
            details: dict[str, Any] = {"nodesInPool": len(nodes.eligible) + len(nodes.excluded),
                                       "eligible": list(nodes.eligible), "notEligible": nodes.excluded}
            if not nodes.eligible:
                why = f": {grouped(nodes.excluded)}" if nodes.excluded else ": the pool has no node"
                return [Finding("no-eligible-nodes", loc, ref,
                                f"no node of the pool is eligible, the DaemonSet would run no pod{why}",
                                details={**details, "replicas": 0, "fit": 0, "nodes": []})]
        elif workload and inputs.pod.node_name and pool.snapshot.get(inputs.pod.node_name) is None:
            pinned = inputs.pod.node_name       # (a node of the pool: its kubelet admits each copy, queued)
        queued = Queued(entry, inputs, ref, loc, pinned)
        if pinned is None:
            return queued
        try:        # bound to a node the pool does not have: it never runs, and takes no room
            outcome = Queue(pool, self._run_options()).place(entry, inputs)
            self._keep(queued, outcome)
            return [self._pinned(queued, outcome)]
        except ConfigError:
            return [other_scheduler(ref, loc, scheduler)]

    def _run_options(self) -> "RunOptions":
        if self.options.explain and self._set is not None:     # every node's facts, as `kexplain POD --html`
            names = frozenset(ni.name for ni in self._set.pool.snapshot.node_infos)
            return RunOptions(preemption=self.options.preemption, details=True, explain_nodes=names, unexamined=True)
        return RunOptions(preemption=self.options.preemption, filter_all=self.suggester is not None)

    def _keep(self, q: Queued, outcome: "Outcome") -> None:
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
        self._retry = RetryLog()
        gathered = Gathered(self._set) if self._autoscaled else None
        for q in sorted(self._set.queued, key=lambda q: queue_order(q.entry, q.inputs)):
            found[id(q)] = guarded(q.ref, q.loc, lambda: self._placed(q, queue, gathered))
        retried = requeue.retried(queue, self._retry, found, self._set.pool.snapshot, self._suggest)   # where pods end
        if gathered is not None:        # the autoscalers look at the cluster as the retry leaves it
            gathered.settle(retried)
        if gathered is not None and gathered.objects and self.options.node_groups is not None:
            for key, findings in node_group_findings(gathered, self.pool, self.options).items():
                found[key] += findings
        if gathered is not None and gathered.objects and self._karpenter:
            for key, findings in node_pool_findings(gathered, self.pool, self.options).items():
                found[key] += findings
        for q in reversed(self._set.queued):     # the last first: the earlier indexes stay valid
            assert q.linted is not None
            scaled_by = q.entry.autoscaled_by       # the HPA that set its replicas: said with its verdict
            findings = [replace(f, details={**f.details, "horizontalPodAutoscaler": scaled_by})
                        if scaled_by is not None and f.rule in VERDICT_RULES else f for f in found[id(q)]]
            if q.entry.reapplied is not None:       # applied onto the one the pool runs: what its controllers do
                findings = [replace(f, details={**f.details, "reapplied": q.entry.reapplied})
                            if f.rule in VERDICT_RULES else f for f in findings]
            self._scheduled(q.linted, said_kueue(self._kueue_started.get(q.loc.key), findings, q.made), q.at)

    def _placed(self, q: Queued, queue: Queue, gathered: Gathered | None = None) -> list[Finding]:
        """A queued object's findings once placed (a profile that cannot be built: another
        scheduler's); its pods join what the autoscalers see (`gathered`)."""
        tally = DaemonTally() if q.entry.daemon else None     # its copies' verdicts, as they come

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
            return [other_scheduler(q.ref, q.loc, q.inputs.pod.spec.get("schedulerName") or "default-scheduler")]
        self._keep(q, outcome)
        self._retry.left(q, outcome)
        if gathered is not None:
            gathered.add(q, outcome)
        if q.entry.idle:
            return [not_created(q, outcome, self._suggest)]
        if outcome.daemon is not None:
            assert tally is not None
            return daemon_findings(q.ref, q.loc, outcome, tally, self._suggest)
        return [self._pinned(q, outcome)]

    def _pinned(self, q: Queued, outcome: "Outcome") -> Finding:
        """The verdict on a Pod or workload's pods (`rules.scheduling.verdict`); for one bound to a node the pool
        does not have, that it never runs."""
        last = outcome.first_unfit or outcome.last       # (copies placed each on its own: one in the middle)
        assert last is not None
        copies = outcome.entry.copies if q.ref.kind != "Pod" else 1
        zones = Counter(c.zone for c in outcome.copies if c.node is not None and c.zone)
        finding = verdict(q.ref, q.loc, q.ref.kind != "Pod", copies, outcome.placed, last.inputs, last.trace,
                          self._suggest, zones, asked=outcome.entry.asked)
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

    def _suggest(self, inputs: "Inputs", trace: Trace) -> tuple[str, ...]:
        if self.suggester is None:
            return ()
        found = self.suggester(inputs, trace)
        if self._autoscaled:   # a node comes from a group or a NodePool
            found = [s for s in found if getattr(s, "kind", None) != ADD_NODE]
        return tuple(str(getattr(s, "text", None) or s) for s in found)



def lint(options: LintOptions, stdin: BinaryIO | None = None, suggester: Suggester | None = None, *,
         freeze_pool: bool = False, progress: Progress | None = None, chosen: bool = True) -> Report:
    """Lint `options.paths`: KexplainError for bad usage, unreadable manifests as findings.
    `freeze_pool`: the CLI's GC policy for the pool; `progress(done, planned)` per pod scheduled;
    `chosen`: the findings as `options.rules` and the objects' annotations have them (`lint.choice`;
    False: every rule's, for `lint.versions` to compare first)."""
    if "-" in options.paths and "-" in options.node_paths:
        raise KexplainError("stdin ('-') can be read once: give it to PATH or to --nodes, not both")
    with bulk_load(freeze=freeze_pool):
        linter = Linter(options, stdin, suggester, progress=progress)
    report = linter.run()
    return choose(report, options.rules) if chosen else report
