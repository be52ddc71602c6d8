"""`kexplain POD --nodes ...`: explain one pod (or several, or a workload's replicas) against
manifests. The arguments checked and turned into a Request, the application asked
(`kexplain.app.explain`), the answer written (`kexplain.render`), the exit code picked."""
from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, Iterable, Iterator, List, Optional, Sequence

import typer

from kexplain.app.autoscalers import AutoscalerRun, annotated_list, answers_of
from kexplain.app.explain import (AutoscalerOptions, Autoscalers, BatchPass, Files, as_asked, autoscalers_of,
                                  batch_of, check_node, explain_single, node_names, page_of_single, page_options,
                                  read_files, run_options, versions_compared, volcano_batch, VolcanoOptions)
from kexplain.cli.env import Environment, env_of
from kexplain.cli.exit_codes import ExitStatus, aggregate, for_result, for_trace
from kexplain.cli.options import autoscaler_config_option, node_groups_option
from kexplain.cli.volcano import volcano_version_option
from kexplain.cli.options import (EVICTED_STATS_HELP, EXPLAIN_NODEPOOL_HELP, MAX_INPUT_SIZE_OPTION, NAMESPACE_OPTION,
                                  VALIDATE_OPTION, aws_data_option, check_groups_options, karpenter_config_option,
                                  kubelet_config_option, kueue_config_option, kueue_version_option, max_objects_option,
                                  node_pool_option, stats_option)
from kexplain.cli.output import batch_document, export_view, save_page
from kexplain.cli.pipes import verdict_known
from kexplain.cli.versions import (compare_versions_option, compared_versions, feature_gates_option, settle,
                                   version_choice, version_option, admission_choice,
                                   admission_plugins_option)
from kexplain.errors import KexplainError, LeftOutNote
from kexplain.explain.batch import API_VERSION, LIST_KIND, Batch, Outcome
from kexplain.explain.inputs import Loaded
from kexplain.explain.request import Request, RunOptions
from kexplain.features import KubeVersion
from kexplain.kueue.config_file import read_kueue_config
from kexplain.render import structured
from kexplain.render.batch import print_batch, print_batch_node, print_retries
from kexplain.render.cluster_autoscaler import print_section as print_ca_section
from kexplain.render.karpenter_section import print_section as print_karpenter_section
from kexplain.render.live import scheduling_bar
from kexplain.render.table import print_trace
from kexplain.render.versions import print_comparison
from kexplain.volcano.conf import read as read_volcano_conf
from kexplain.volcano.versions import resolve as resolve_volcano


class Output(str, Enum):
    table = "table"
    wide = "wide"
    json = "json"
    yaml = "yaml"

    @property
    def human(self) -> bool:
        """The table views (table, wide), which record node facts."""
        return self in (Output.table, Output.wide)


def write_trace(env: Environment, trace: dict, output: Output, *, node: Optional[str] = None,
                no_nodes_hint: Optional[str] = None, node_group: Optional[str] = None,
                node_pool: Optional[str] = None) -> None:
    """The trace (json, yaml) or its explanation; `no_nodes_hint`: why the cluster has no nodes,
    shown with the explanation when it has none."""
    if output.value in structured.FORMATS:
        structured.write(env.stdout, trace, output.value)
    else:
        print_trace(trace, env.console(), wide=output is Output.wide, node=node, no_nodes_hint=no_nodes_hint,
                    node_group=node_group, node_pool=node_pool)


def no_nodes_hint(node_paths: List[str]) -> str:
    """Why the cluster of `kexplain POD` has no nodes, and how to give it some."""
    how = ("Pass the cluster's Nodes (and its bound Pods, PVCs, ...) with --nodes FILE|DIR, for example the output "
           "of kubectl get nodes -o yaml.")
    if not node_paths:
        return f"The cluster has no nodes: --nodes was not given. {how}"
    return f"The cluster has no nodes: the --nodes input ({', '.join(node_paths)}) holds no Node object. {how}"


@dataclass(frozen=True)
class Shown:
    """How the answer is shown: the output, and the views and files asked for."""

    output: Output
    node: Optional[str] = None
    svg: Optional[str] = None
    html: Optional[str] = None
    node_group: Optional[str] = None
    node_pool: Optional[str] = None


def command(
    ctx: typer.Context,
    pod: str = typer.Argument(..., metavar="POD", help="Pod or workload manifest (file, directory or '-')."),
    nodes: List[str] = typer.Option([], "--nodes", metavar="PATH",
                                    help="Cluster objects: Nodes, bound Pods, PVCs, PVs, ... (repeatable)."),
    config: Optional[str] = typer.Option(None, "--config", metavar="FILE",
                                         help="KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1)."),
    start_index: int = typer.Option(0, "--start-index", min=0,
                                    help="The scheduler's round-robin position before this pod."),
    output: Output = typer.Option(Output.table, "-o", "--output", help="table, wide, json or yaml."),
    stored: bool = typer.Option(False, "--stored", "--no-admission",
                                help="Objects were read from an API server: skip the admission steps."),
    preemption: bool = typer.Option(True, "--preemption/--no-preemption",
                                    help="Run the DefaultPreemption dry run when no node fits."),
    preemption_offset: int = typer.Option(0, "--preemption-offset", min=0,
                                          help="Where the preemption candidate search starts."),
    max_input_size: int = MAX_INPUT_SIZE_OPTION,
    max_objects: int = max_objects_option("the POD file, or --nodes"),
    suggestions: bool = typer.Option(True, "--suggestions/--no-suggestions",
                                     help="Show verified fix suggestions for a pod that does not fit."),
    replicas: Optional[int] = typer.Option(None, "--replicas", min=1, metavar="N",
                                           help="Place N copies of each pod, one after another "
                                                "(default: a workload's own replicas)."),
    node: Optional[str] = typer.Option(None, "--node", metavar="NAME",
                                       help="Show one node's full verdict, plugin by plugin, with the facts "
                                            "behind each (-o json/yaml: add them under `details`)."),
    svg: Optional[str] = typer.Option(None, "--svg", metavar="FILE",
                                      help="Also save the rendered explanation as SVG."),
    html: Optional[str] = typer.Option(None, "--html", metavar="FILE",
                                       help="Also write the explanation as a self-contained interactive page."),
    stats: Optional[str] = stats_option(EVICTED_STATS_HELP),
    kubelet_config: Optional[str] = kubelet_config_option(),
    node_groups: Optional[str] = node_groups_option(
        "for a pod that does not schedule, what CA would do (section \"Cluster autoscaler\"; -o json: key "
        "`autoscaler`). Without it, those CA's status ConfigMap or Cluster API among --nodes report."),
    autoscaler_config: Optional[str] = autoscaler_config_option(),
    node_group: Optional[str] = typer.Option(None, "--node-group", metavar="NAME",
                                             help="Show one node group's full verdict (needs node groups), "
                                                  "plugin by plugin on its template node, as --node does for a "
                                                  "node."),
    aws_data: Optional[str] = aws_data_option(),
    karpenter_config: Optional[str] = karpenter_config_option(),
    node_pool: Optional[str] = node_pool_option(EXPLAIN_NODEPOOL_HELP),
    kueue_version: Optional[str] = kueue_version_option(),
    kueue_config: Optional[str] = kueue_config_option(),
    validate: str = VALIDATE_OPTION,
    namespace: Optional[str] = NAMESPACE_OPTION,
    kubernetes_version: Optional[str] = version_option("the version a snapshot in --nodes recorded"),
    feature_gates: Optional[str] = feature_gates_option(),
    admission_plugins: Optional[str] = admission_plugins_option(),
    compare_versions: Optional[str] = compare_versions_option(),
    scheduler_conf: Optional[str] = typer.Option(None, "--scheduler-conf", metavar="FILE",
                                                 help="For a pod Volcano schedules: its scheduler's configuration "
                                                      "(the volcano-scheduler.conf key of its ConfigMap, or the "
                                                      "ConfigMap); default: the ConfigMap among the inputs, else "
                                                      "Volcano's built-in one."),
    volcano_version: Optional[str] = volcano_version_option(),
) -> ExitStatus:
    """Explain where (and whether) the scheduler would place POD."""
    env = env_of(ctx)
    choice = version_choice(env, kubernetes_version, feature_gates, admission_plugins)
    req = Request(pod_path=pod, node_paths=tuple(nodes), config_path=config, stored=stored, max_bytes=max_input_size,
                  max_objects=max_objects, validate=validate, replicas=replicas, node_groups=node_groups,
                  autoscaler_config=autoscaler_config, namespace=namespace, stats=stats,
                  kubelet_config=kubelet_config)
    check_groups_options(req.node_groups, req.autoscaler_config, node, node_group, req.node_paths, discovering=True)
    if compare_versions is not None:
        return _compare(env, req, compare_versions, kubernetes_version, feature_gates, admission_plugins, node,
                        output, svg, html,
                        run_options(False, None, start_index=start_index, preemption=preemption,
                                    preemption_offset=preemption_offset))  # the scheduler's keys only: compared
    # A version given explicitly is checked before anything is read; else a snapshot's recorded
    # version may be followed, settled once --nodes is read.
    req = replace(req, kube=settle(env, choice)) if choice.given else replace(req, version=choice)
    return explain_files(env, req, Shown(output, node, svg, html, node_group, node_pool),
                         AutoscalerOptions(aws_data, karpenter_config, node_group, node_pool, suggestions),
                         start_index=start_index, preemption=preemption, preemption_offset=preemption_offset,
                         kueue_version=kueue_version, kueue_config=read_kueue_config(kueue_config, max_input_size),
                         volcano=VolcanoOptions(read_volcano_conf(scheduler_conf) if scheduler_conf is not None
                                                else None, resolve_volcano(volcano_version)))


def _compare(env: Environment, req: Request, compare_versions: str, kubernetes_version: Optional[str],
             feature_gates: Optional[str], admission_plugins: Optional[str], node: Optional[str], output: Output,
             svg: Optional[str], html: Optional[str], options: RunOptions) -> ExitStatus:
    """`--compare-versions A,B[,...]`: the versions checked, then compared (`write_version_comparison`)."""
    kubes = compared_versions(env, compare_versions, kubernetes_version, feature_gates,
                              admission_choice(env, admission_plugins))
    if node is not None:
        raise KexplainError("--node shows one version's verdict: drop --compare-versions, or --node")
    if html is not None:
        raise KexplainError("--html shows one version's explanation: drop --compare-versions, or --html")
    return write_version_comparison(env, req, kubes, options, output, svg=svg)


def explain_files(env: Environment, req: Request, shown: Shown, opts: AutoscalerOptions, *, start_index: int,
                  preemption: bool, preemption_offset: int, kueue_version: Optional[str] = None,
                  kueue_config: Sequence[Any] = (), volcano: Optional[VolcanoOptions] = None) -> ExitStatus:
    """The files read once (`app.explain.read_files`), what was left out said, `--node` checked,
    the autoscalers picked; then one pod or a batch."""
    files = read_files(req, env.stdin, kueue_version=kueue_version, suggestions=opts.suggestions,
                       kueue_config=kueue_config, volcano=volcano)
    loaded = files.loaded
    left_out = [report_left_out(env, err) for err in loaded.problems]
    if loaded.empty:            # every Pod and workload left out: each said why
        return aggregate(left_out)
    cluster = loaded.single if loaded.single is not None else loaded.pool
    hint = no_nodes_hint(list(req.node_paths))
    check_node(shown.node, node_names(cluster.snapshot if cluster is not None else None), hint)
    autoscalers = autoscalers_of(req, files, opts, say=lambda note: env.error(f"note: {note}"))
    options = run_options(shown.output.human, shown.node, start_index=start_index, preemption=preemption,
                          preemption_offset=preemption_offset,
                          replicated=loaded.single is None and any(e.replicated for e in loaded.batch))
    if loaded.single is None:
        return explain_files_batch(env, files, options, autoscalers, opts, shown, left_out, stored=req.stored)
    return explain_files_single(env, files, options, autoscalers, opts, shown, left_out, hint=hint)


def explain_files_batch(env: Environment, files: Files, options: RunOptions, autoscalers: Autoscalers,
                        opts: AutoscalerOptions, shown: Shown, left_out: list[ExitStatus], *, stored: bool
                        ) -> ExitStatus:
    """Several pods: the batch written as it is placed (`write_batch`), then the exit code of
    every object, the ones left out and the bound pods their kubelet rejects."""
    files, volcano = volcano_batch(files)       # Volcano's pods: its session's answers, after the others
    loaded = files.loaded
    if not loaded.batch:
        return aggregate([write_volcano_list(env, volcano, shown), *left_out])
    cluster = loaded.pool
    recorded = page_options(options, node_names(cluster.snapshot if cluster else None)) if shown.html else options
    skipped: list[object] = []

    def refused(entry: object, err: KexplainError) -> None:
        skipped.append(entry)
        left_out.append(report_left_out(env, err))

    batch = batch_of(loaded, recorded, opts.suggestions, autoscalers, stored=stored, refused=refused, kueue=files.kueue)
    status = write_batch(env, loaded, batch, shown, asked=options, autoscalers=BatchPass(loaded, autoscalers, opts),
                         volcano=volcano)
    nothing = len(skipped) == len(loaded.batch) and not volcano     # every pod left out: nothing explained
    if volcano and shown.output not in (Output.json, Output.yaml):
        status = aggregate([status, write_volcano_list(env, volcano, shown, first=False)])
    elif volcano:
        status = aggregate([status, *(for_trace(t) for t in volcano)])
    return aggregate([status, *left_out, *([ExitStatus.BAD_INPUT] if nothing else []),
                      *rejected_bound(len(loaded.pool.kubelet_rejected) if loaded.pool is not None else 0)])


def write_volcano_list(env: Environment, traces: list[dict], shown: Shown, *, first: bool = True) -> ExitStatus:
    """The pods Volcano schedules, each its session's SchedulingTrace: a SchedulingTraceList (json,
    yaml), else each explained in turn; the worst of their exit codes."""
    if shown.output in (Output.json, Output.yaml):
        writer = structured.ListWriter(env.stdout, shown.output.value, {"apiVersion": API_VERSION, "kind": LIST_KIND})
        for trace in traces:
            writer.item(trace)
        writer.close({})
    else:
        for i, trace in enumerate(traces):
            if i or not first:
                env.stdout.write("\n")
            write_trace(env, trace, shown.output)
    return aggregate([for_trace(t) for t in traces])


def explain_files_single(env: Environment, files: Files, options: RunOptions, autoscalers: Autoscalers,
                         opts: AutoscalerOptions, shown: Shown, left_out: list[ExitStatus], *, hint: str
                         ) -> ExitStatus:
    """One pod: its trace with Kueue's and the autoscalers' answers (`app.explain.explain_single`),
    written, drawn again for --svg, and its page for --html."""
    single = files.loaded.single
    assert single is not None
    done = explain_single(files, options, opts.suggestions, autoscalers, opts)
    trace, node_group = done.trace, done.node_group
    for warning in single.warnings:
        env.error(f"warning: {warning}")
    output, node, node_pool = shown.output, shown.node, shown.node_pool
    with verdict_known(for_trace(trace)):
        write_trace(env, trace, output, node=node, no_nodes_hint=hint, node_group=node_group, node_pool=node_pool)
    if shown.svg:
        export_view(env, lambda c: print_trace(trace, c, wide=output is Output.wide, node=node, no_nodes_hint=hint,
                                               node_group=node_group, node_pool=node_pool), shown.svg)
    if shown.html:
        save_page(shown.html, page_of_single(files, options, trace))
    held = [ExitStatus.UNSCHEDULABLE] if (trace.get("kueue") or {}).get("idle") else []    # (Kueue holds it: no pod)
    return aggregate([for_trace(trace), *held, *left_out, *rejected_bound(single.kubelet_rejected)])


def rejected_bound(count: int) -> list[ExitStatus]:
    """The exit status of the set's bound pods their kubelet rejects (said on stderr): 1 each, as
    lint's kubelet-rejected; none when it admits them all."""
    return [ExitStatus.UNSCHEDULABLE] * min(count, 1)


def report_left_out(env: Environment, err: KexplainError) -> ExitStatus:
    """Say on stderr what was left out and why, as `kubectl apply` does; the exit code it counts
    for: another scheduler's pod 0, the rest (bad input) 2."""
    if isinstance(err, LeftOutNote):
        env.error(f"note: {err}")
        return ExitStatus.SUCCESS
    env.error(f"error: {err}")
    return ExitStatus.BAD_INPUT


def write_version_comparison(env: Environment, req: Request, kubes: list[KubeVersion], options: RunOptions,
                             output: Output, *, svg: Optional[str] = None) -> ExitStatus:
    """`--compare-versions`: the pod under each version, only what differs shown; the worst of the
    verdicts (2 when one version refuses the input)."""
    comparison = versions_compared(req, kubes, options, env.stdin)
    for warning in dict.fromkeys(w for run in comparison.runs for w in run.warnings):
        env.error(f"warning: {warning}")
    doc = comparison.to_json()
    status = aggregate(for_trace(run.trace) if run.trace is not None else ExitStatus.BAD_INPUT
                       for run in comparison.runs)
    with verdict_known(status):
        _write_comparison(env, doc, output, svg=svg)
    return status


def _write_comparison(env: Environment, doc: dict, output: Output, *, svg: Optional[str] = None) -> None:
    if output.value in structured.FORMATS:
        structured.write(env.stdout, doc, output.value)
        return
    print_comparison(doc, env.console(), wide=output is Output.wide)
    export_view(env, lambda c: print_comparison(doc, c, wide=output is Output.wide), svg)


class _Tally:
    """Each object's exit status as it is placed, and its position (for the queue's retry:
    `after_retries`); the autoscalers' pass gathers each outcome too."""

    def __init__(self, env: Environment, batch: Batch, autoscalers: BatchPass) -> None:
        self.env, self.autoscalers = env, autoscalers
        self.entries = len(batch.batch)      # one outcome each: every verdict is reached with the last
        self.statuses: list[ExitStatus] = []
        self.positions: list[int] = []

    def known(self) -> Optional[ExitStatus]:
        """The exit code once every object was placed (`verdict_known`), else None."""
        return aggregate(self.statuses) if len(self.statuses) == self.entries else None

    def placed(self, outcomes: Iterable[Outcome], bar) -> Iterator[Outcome]:
        for outcome in outcomes:
            self.statuses.append(outcome_status(outcome))
            self.positions.append(outcome.entry.position)
            self.autoscalers.add(outcome)
            with bar.paused():          # whatever is printed of it, not across the bar
                for warning in (outcome.inputs.warnings if outcome.inputs is not None else ()):
                    self.env.error(f"warning: {warning}")
                yield outcome

    def status(self, batch: Batch) -> ExitStatus:
        return aggregate(after_retries(batch, self.statuses, self.positions))


def write_batch(env: Environment, loaded: Loaded, batch: Batch, shown: Shown, *, asked: Optional[RunOptions] = None,
                autoscalers: BatchPass, volcano: Sequence[dict] = ()) -> ExitStatus:
    """Several pods or replicas, streamed as they are scheduled (a SchedulingTraceList item by item,
    or a section per object), no trace kept once written but those `--svg`/`--html` need; then the
    autoscalers' pass over the set after the objects; the exit code."""
    for warning in (loaded.pool.warnings if loaded.pool else []):
        env.error(f"warning: {warning}")
    tally = _Tally(env, batch, autoscalers)
    kept: list[Outcome] = []
    with verdict_known(tally.known), \
            scheduling_bar(env.stderr, color=bool(env.color), enabled=bool(env.stderr_is_terminal)) as bar:
        run = replace(batch, progress=bar.update)
        if shown.output in (Output.json, Output.yaml):
            return _write_batch_list(env, run, tally, bar, shown, asked or batch.options, kept, volcano)
        _draw(env.console(), _keeping(tally.placed(run, bar), kept, bool(shown.svg or shown.html)), shown)
    print_retries(run.retried, env.console())
    ran = autoscalers.run(run)
    shown = replace(shown, node_group=autoscalers.node_group)

    def section(console) -> None:
        _autoscalers_section(console, ran, shown)
    section(env.console())
    export_view(env, lambda c: (_draw(c, kept, shown), section(c)), shown.svg)
    if shown.html:
        save_page(shown.html, annotated_list({**batch_document(kept), **_retries(run)}, ran))
    return tally.status(run)


def _write_batch_list(env: Environment, run: Batch, tally: _Tally, bar, shown: Shown, options: RunOptions,
                      kept: list[Outcome], volcano: Sequence[dict] = ()) -> ExitStatus:
    """The SchedulingTraceList item by item; with the autoscalers' pass each item waits for its
    answers in a spool file (memory stays flat); the pods Volcano schedules (`volcano`: its session's
    traces) after them; then the list's keys."""
    writer = structured.ListWriter(env.stdout, shown.output.value, {"apiVersion": API_VERSION, "kind": LIST_KIND})
    spool = structured.ItemSpool(writer, frozenset({"autoscalers"})) if tally.autoscalers.active else None
    item = spool.add if spool is not None else writer.item
    outcomes = []
    for o in tally.placed(run.with_sink(lambda p: item(as_asked(p.trace.to_json(), options))), bar):
        outcomes.append(o.to_json())
        if shown.html:
            kept.append(o)
    ran = tally.autoscalers.run(run)
    if spool is not None:
        with spool:
            spool.write(writer, lambda trace: answers_of(trace, ran) if ran is not None else {})
    for trace in volcano:
        writer.item(trace)
    retries = _retries(run)
    writer.close(annotated_list({"placements": outcomes, **retries}, ran))
    if shown.html:
        save_page(shown.html, annotated_list({**batch_document(kept), **retries}, ran))
    return tally.status(run)


def _retries(batch: Batch) -> dict:
    """The list's key `retries`: the queue's retries of the pods left pending, when there were some."""
    return {"retries": [r.to_json() for r in batch.retried]} if batch.retried else {}


def _keeping(outcomes: Iterable[Outcome], kept: list[Outcome], keep: bool) -> Iterator[Outcome]:
    """The outcomes, each kept for `--svg`/`--html` (`keep`) as it goes by."""
    for outcome in outcomes:
        if keep:
            kept.append(outcome)
        yield outcome


def _draw(console, outcomes: Iterable[Outcome], shown: Shown) -> None:
    if shown.node is None:
        print_batch(outcomes, console, wide=shown.output is Output.wide)
    else:       # each object's last attempt (the copy that did not fit), on that node
        print_batch_node(outcomes, console, shown.node)


def _autoscalers_section(console, ran: Optional[AutoscalerRun], shown: Shown) -> None:
    """The autoscalers' sections after the objects: CA's ("Cluster autoscaler"), Karpenter's."""
    if ran is not None and ran.document:
        print_ca_section(ran.document, console, shown.node_group)
    if ran is not None and "karpenter" in ran.documents:
        print_karpenter_section(ran.documents["karpenter"], console, shown.node_pool)


def after_retries(batch: Batch, statuses: list[ExitStatus], positions: list[int]) -> list[ExitStatus]:
    """The objects' statuses where they end up: an object unschedulable on its first attempt
    whose every pod the queue's retry placed (`Batch.still_pending`) fits."""
    return [ExitStatus.SUCCESS if s == ExitStatus.UNSCHEDULABLE and batch.still_pending.get(p) == 0 else s
            for s, p in zip(statuses, positions)]


def outcome_status(outcome: Outcome) -> ExitStatus:
    """Every copy's verdict, and 1 when the object's copies did not all fit; 0 for an idle
    workload (its controller creates no pod: its template's verdict is told, not counted)."""
    if outcome.entry.idle:      # (held by Kueue, not admitted: its pods do not run)
        kueue = outcome.entry.kueue
        return ExitStatus.UNSCHEDULABLE if kueue is not None and kueue.get("verdict") != "Admitted" \
            else ExitStatus.SUCCESS
    return aggregate([for_result(c.status) for c in outcome.copies]
                     + ([] if outcome.fits else [ExitStatus.UNSCHEDULABLE]))

