"""`kexplain POD --nodes ...`: explain one pod (or several, or a workload's replicas) against manifests."""
from __future__ import annotations

import difflib
from dataclasses import replace
from enum import Enum
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, List, Optional, Sequence

import typer

from kexplain.cli.env import Environment, env_of
from kexplain.cli.exit_codes import ExitStatus, aggregate, for_result, for_trace
from kexplain.cli.node_groups import (NO_AUTOSCALER, annotated_list, autoscaled, check_found, check_groups,
                                      check_groups_options, check_node_group, groups_request, reports_node_groups,
                                      run_autoscalers, with_answers, without_add_node)
from kexplain.cli.lint import NAMESPACE_OPTION, VALIDATE_OPTION
from kexplain.cli.node_pools import (EXPLAIN_NODEPOOL_HELP, aws_data_option, karpenter_config_option, karpentered,
                                     node_pool_option, node_pools_request, run_karpenter)
from kexplain.cli.pipes import verdict_known
from kexplain.cli.versions import (compare_versions_option, compared_versions, feature_gates_option, settle,
                                   version_choice, version_option)
from kexplain.errors import KexplainError, LeftOutNote
from kexplain.load.limits import DEFAULT_MAX_BYTES, DEFAULT_MAX_OBJECTS
from kexplain.render import structured

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.autoscaler.pending import GroupsRequest
    from kexplain.cli.node_groups import AutoscalerRun
    from kexplain.karpenter.pending import NodePoolsRequest
    from kexplain.explain.batch import Batch, Outcome
    from kexplain.explain.pending_pass import PendingPass
    from kexplain.explain.inputs import Loaded
    from kexplain.explain.pod_inputs import Inputs
    from kexplain.explain.request import Request, RunOptions
    from kexplain.features import KubeVersion
    from kexplain.model.snapshot import Snapshot


class Output(str, Enum):
    table = "table"
    wide = "wide"
    json = "json"
    yaml = "yaml"


def write_trace(env: Environment, trace: dict, output: Output, *, node: Optional[str] = None,
                no_nodes_hint: Optional[str] = None, node_group: Optional[str] = None,
                node_pool: Optional[str] = None) -> None:
    """The trace (json, yaml) or its explanation; `no_nodes_hint`: why the cluster has no nodes,
    shown with the explanation when it has none."""
    if output.value in structured.FORMATS:
        structured.write(env.stdout, trace, output.value)
    else:
        from kexplain.render.table import print_trace
        print_trace(trace, env.console(), wide=output is Output.wide, node=node, no_nodes_hint=no_nodes_hint,
                    node_group=node_group, node_pool=node_pool)


def no_nodes_hint(node_paths: List[str]) -> str:
    """Why the cluster of `kexplain POD` has no nodes, and how to give it some."""
    how = ("Pass the cluster's Nodes (and its bound Pods, PVCs, ...) with --nodes FILE|DIR, for example the output "
           "of kubectl get nodes -o yaml.")
    if not node_paths:
        return f"The cluster has no nodes: --nodes was not given. {how}"
    return f"The cluster has no nodes: the --nodes input ({', '.join(node_paths)}) holds no Node object. {how}"


def run_options(output: Output, node: Optional[str], *, start_index: int = 0, preemption: bool = True,
                preemption_offset: int = 0, replicated: bool = False) -> "RunOptions":
    """How to run the cycle, and what to record beyond the scheduler's trace: node facts for
    the human views (and the facts of every plugin for `--node`); the never-examined nodes
    evaluated for the search section, except for replicas (only their last copy is shown in full)."""
    from kexplain.explain.request import RunOptions

    human = output in (Output.table, Output.wide)
    return RunOptions(start_index=start_index, preemption=preemption, preemption_offset=preemption_offset,
                      details=human or node is not None, explain_nodes=frozenset([node] if node else []),
                      unexamined=human and not replicated)


CLOSEST = 3     # node names a wrong --node NAME suggests


def check_node(node: Optional[str], names: Sequence[str], no_nodes: str = "The cluster has no nodes.") -> None:
    """`--node NAME` names a node of the cluster (`names`), or the command stops with a one-line
    error (exit 2) naming the closest names, so a typo is not answered by a verdict on no node.
    `no_nodes`: why the cluster has none, when it has none."""
    if node is None or node in names:
        return
    if not names:
        raise KexplainError(f"--node {node}: no node of that name. {no_nodes}")
    among = f"among the cluster's {len(names):,} node{'s' if len(names) != 1 else ''}"
    close = difflib.get_close_matches(node, names, n=CLOSEST)
    if not close:
        raise KexplainError(f"--node {node}: no node of that name {among}, and no name is close to it")
    raise KexplainError(f"--node {node}: no node of that name {among}; the closest: {', '.join(close)}")


def node_names(snapshot: "Snapshot | None") -> list[str]:
    """The names of the cluster's nodes, in the scheduler's order."""
    return [ni.name for ni in snapshot.node_infos] if snapshot is not None else []


def export_view(env: Environment, draw, svg: Optional[str]) -> None:
    """`--svg`: the human view, drawn again on a recording console and saved."""
    from kexplain.render.export import export_svg

    if svg:
        try:
            export_svg(draw, env.console().width, svg)
        except OSError as err:
            raise KexplainError(f"{err.filename or svg}: {err.strerror or err}") from None


def save_page(html: str, doc: dict) -> None:
    """`--html`: the interactive page of the document `-o json` would print."""
    from kexplain.render.export import export_html

    try:
        export_html(html, doc)
    except OSError as err:
        raise KexplainError(f"{err.filename or html}: {err.strerror or err}") from None


def page_options(options: "RunOptions", names: Sequence[str]) -> "RunOptions":
    """How a cycle runs for `--html`: as `options` say, recording every node's facts (each
    node's full verdict is one click away on the page) and the never-examined nodes."""
    return replace(options, details=True, explain_nodes=frozenset(names), unexamined=True)


def as_asked(trace: dict, options: "RunOptions") -> dict:
    """A trace recorded for `--html` as the output asked for it: without the extra keys
    `options` do not record (`-o json` stays the same with or without `--html`)."""
    unasked = [k for k, on in (("details", options.details), ("unexamined", options.unexamined)) if not on]
    return {k: v for k, v in trace.items() if k not in unasked}


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
    max_input_size: int = typer.Option(DEFAULT_MAX_BYTES, "--max-input-size", metavar="BYTES",
                                       help="Refuse inputs larger than this."),
    max_objects: int = typer.Option(DEFAULT_MAX_OBJECTS, "--max-objects", min=1, metavar="N",
                                    help="Refuse inputs of more objects than this (the POD file, or --nodes)."),
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
    node_groups: Optional[str] = typer.Option(None, "--node-groups", metavar="FILE",
                                              help="The Cluster Autoscaler's node groups (NodeGroupList): for a pod "
                                                   "that does not schedule, what CA would do (section \"Cluster "
                                                   "autoscaler\"; -o json: key `autoscaler`). Without it, those "
                                                   "CA's status ConfigMap or Cluster API among --nodes report."),
    autoscaler_config: Optional[str] = typer.Option(None, "--autoscaler-config", metavar="FILE",
                                                    help="CA settings for the node groups (expander, limits, any CA "
                                                         "flag by name)."),
    node_group: Optional[str] = typer.Option(None, "--node-group", metavar="NAME",
                                             help="Show one node group's full verdict (needs node groups), "
                                                  "plugin by plugin on its template node, as --node does for a "
                                                  "node."),
    aws_data: Optional[str] = aws_data_option(),
    karpenter_config: Optional[str] = karpenter_config_option(),
    node_pool: Optional[str] = node_pool_option(EXPLAIN_NODEPOOL_HELP),
    validate: str = VALIDATE_OPTION,
    namespace: Optional[str] = NAMESPACE_OPTION,
    kubernetes_version: Optional[str] = version_option("the version a snapshot in --nodes recorded"),
    feature_gates: Optional[str] = feature_gates_option(),
    compare_versions: Optional[str] = compare_versions_option(),
) -> ExitStatus:
    """Explain where (and whether) the scheduler would place POD."""
    from kexplain.explain.batch import explain_batch
    from kexplain.explain.inputs import load
    from kexplain.explain.request import Request
    from kexplain.kueue.chain import Chain
    from kexplain.load.gcpolicy import bulk_load
    from kexplain.suggest import suggestions as suggest

    env = env_of(ctx)
    choice = version_choice(env, kubernetes_version, feature_gates)
    req = Request(pod_path=pod, node_paths=tuple(nodes), config_path=config, stored=stored, max_bytes=max_input_size,
                  max_objects=max_objects, validate=validate, replicas=replicas, node_groups=node_groups,
                  autoscaler_config=autoscaler_config, namespace=namespace)
    check_groups_options(req, node, node_group, discovering=True)     # (or found among --nodes: check_found)
    if compare_versions is not None:
        kubes = compared_versions(env, compare_versions, kubernetes_version, feature_gates)
        if node is not None:
            raise KexplainError("--node shows one version's verdict: drop --compare-versions, or --node")
        options = run_options(Output.json, None, start_index=start_index, preemption=preemption,
                              preemption_offset=preemption_offset)     # the scheduler's keys only: compared
        return write_version_comparison(env, req, kubes, options, output, svg=svg, html=html)
    # A version given explicitly is checked before anything is read; else a snapshot's recorded
    # version may be followed, settled once --nodes is read.
    req = replace(req, kube=settle(env, choice)) if choice.given else replace(req, version=choice)
    kueue = Chain(validate=validate)        # Kueue's answer first, for the jobs it manages
    with bulk_load(freeze=True):
        loaded = kueue.attach(load(req, env.stdin, collect=True,      # CA's loop and Karpenter's pass read it too
                                   keep=req.node_groups is not None or (lambda o: has_node_pools(o)
                                                                        or reports_node_groups(o)), prepare=kueue))
    left_out = [report_left_out(env, err) for err in loaded.problems]
    if loaded.empty:            # every Pod and workload left out: each said why
        return aggregate(left_out)
    cluster = loaded.single if loaded.single is not None else loaded.pool
    check_node(node, node_names(cluster.snapshot if cluster is not None else None), no_nodes_hint(nodes))
    groups = groups_request(req, loaded.cluster_objects, say=lambda note: env.error(f"note: {note}"),
                            state=loaded.cluster_state)
    check_found(req, node_group, groups)
    pools = node_pools_of(loaded, aws_data, karpenter_config, req, node_pool)
    options = run_options(output, node, start_index=start_index, preemption=preemption,
                          preemption_offset=preemption_offset,
                          replicated=loaded.single is None and any(e.replicated for e in loaded.batch))
    if loaded.single is None:
        recorded = page_options(options, node_names(cluster.snapshot if cluster else None)) if html else options
        skipped: list[object] = []

        def refused(entry: object, err: KexplainError) -> None:
            skipped.append(entry)
            left_out.append(report_left_out(env, err))

        suggester = (without_add_node(suggest) if groups is not None or pools else suggest) if suggestions else None
        batch = explain_batch(loaded.batch, loaded.pool, recorded, suggester, stored=stored, refused=refused)
        autoscalers = both_autoscalers(groups, pools, loaded.kube, suggestions=suggestions, node_pool=node_pool)
        status = write_batch(env, loaded, batch, output, node=node, svg=svg, html=html, asked=options,
                             autoscaler=autoscalers, node_group=node_group, node_pool=node_pool)
        nothing = len(skipped) == len(loaded.batch)     # every pod left out (another scheduler's): nothing explained
        return aggregate([status, *left_out, *([ExitStatus.BAD_INPUT] if nothing else []),
                          *rejected_bound(len(loaded.pool.kubelet_rejected) if loaded.pool is not None else 0)])
    trace = explain_one(loaded.single, options, suggestions)
    answer = kueue.answer_for(loaded.single.pod.obj)
    if answer is not None:
        trace["kueue"] = answer
    for warning in loaded.single.warnings:
        env.error(f"warning: {warning}")
    pending = trace["result"]["status"] not in NO_AUTOSCALER
    pp = single_pass(loaded, trace) if (groups is not None or pools is not None) else None
    if groups is not None and (node_group is not None or pending):
        autoscaled(trace, groups, loaded.kube, pp, loaded.single.pod)
        node_group = check_node_group(node_group, trace["autoscaler"])
    elif groups is not None:       # read all the same: a bad file is refused whatever the verdict
        check_groups(groups, loaded.kube)
    if pools is not None and (node_pool is not None or pending):
        karpentered(trace, pools, loaded.kube, pp, loaded.single.pod.key, suggestions=suggestions,
                    node_pool=node_pool)
        if "suggestions" in trace:      # a node comes from a NodePool: Karpenter's fixes say which
            from kexplain.suggest.add_node import ADD_NODE
            trace["suggestions"] = [s for s in trace["suggestions"] if s.get("kind") != ADD_NODE]
    elif pools is not None and (aws_data or karpenter_config):     # read all the same: bad input is refused
        from kexplain.karpenter.pending import load_node_pools
        load_node_pools(pools, loaded.kube)
    hint = no_nodes_hint(nodes)
    with verdict_known(for_trace(trace)):
        write_trace(env, trace, output, node=node, no_nodes_hint=hint, node_group=node_group, node_pool=node_pool)
    if svg:
        from kexplain.render.table import print_trace
        export_view(env, lambda c: print_trace(trace, c, wide=output is Output.wide, node=node, no_nodes_hint=hint,
                                               node_group=node_group, node_pool=node_pool), svg)
    if html:
        page = explain_for_page(loaded.single, options, trace)
        for key in ("autoscaler", "autoscalers", "karpenter", "kueue"):
            if key in trace:
                page[key] = trace[key]
        save_page(html, page)
    return aggregate([for_trace(trace), *left_out, *rejected_bound(loaded.single.kubelet_rejected)])


def rejected_bound(count: int) -> list[ExitStatus]:
    """The exit status of the set's pods bound by spec.nodeName that joined the cluster (not
    explained themselves) and that their kubelet rejects (said on stderr): 1 each, as lint's
    kubelet-rejected finding and as such a pod explained alone; none when it admits them all."""
    return [ExitStatus.UNSCHEDULABLE] * min(count, 1)


def has_node_pools(cluster: list) -> bool:
    """Whether --nodes holds Karpenter's NodePools (the cluster is kept for its pass)."""
    from kexplain.karpenter.request import has_node_pools as holds
    return holds(cluster)


def node_pools_of(loaded: "Loaded", aws_data: Optional[str], config: Optional[str], req: "Request",
                  node_pool: Optional[str]) -> "Optional[NodePoolsRequest]":
    """Karpenter's pass's inputs when the cluster (--nodes, or the POD file's own objects) holds
    NodePools (`node_pools.node_pools_request`)."""
    return node_pools_request(loaded.cluster_objects, aws_data, config, max_bytes=req.max_bytes,
                              validate=req.validate, node_pool=node_pool, applied=loaded.set_objects,
                              state=loaded.cluster_state)


def both_autoscalers(groups: "Optional[GroupsRequest]", pools: "Optional[NodePoolsRequest]", kube: "KubeVersion", *,
                     suggestions: bool = True, node_pool: Optional[str] = None
                     ) -> "Optional[Callable[[PendingPass], AutoscalerRun]]":
    """The autoscalers' pass over a batch's pending pass: CA's loop (node groups) and Karpenter's
    provisioning pass (NodePools), each when its objects are given; None when neither is."""
    if groups is None and pools is None:
        return None

    def run(pp: "PendingPass") -> "AutoscalerRun":
        ca = run_autoscalers(groups, kube, pp) if groups is not None else None
        kp = run_karpenter(pools, kube, pp, suggestions=suggestions, node_pool=node_pool) if pools is not None \
            else None
        return ca.joined(kp) if ca is not None else kp      # type: ignore[return-value]
    return run


def single_pass(loaded: "Loaded", trace: dict) -> "PendingPass":
    """What the autoscalers see of one pod explained (`trace`, its explanation): the pod pending,
    nominated where its preemption would nominate it (the scheduler's PostFilter runs before any
    autoscaler looks), the file's objects."""
    from kexplain.explain.pending_pass import PassBuilder

    assert loaded.single is not None
    builder = PassBuilder()
    builder.add_objects(loaded.set_objects, loaded.set_created)
    builder.add_single(loaded.single, post_filter=trace.get("postFilter"))
    return builder.build()


def report_left_out(env: Environment, err: KexplainError) -> ExitStatus:
    """Say on stderr what was left out of the explanation and why (the file, the object, the
    reason), as `kubectl apply` reports the objects it could not apply and applies the rest; the
    exit code it counts for: a pod of another scheduler is not bad input (0), the rest is (2)."""
    if isinstance(err, LeftOutNote):
        env.error(f"note: {err}")
        return ExitStatus.SUCCESS
    env.error(f"error: {err}")
    return ExitStatus.BAD_INPUT


def write_version_comparison(env: Environment, req: "Request", kubes: "list[KubeVersion]", options: "RunOptions",
                             output: Output, *, svg: Optional[str] = None, html: Optional[str] = None) -> ExitStatus:
    """`--compare-versions`: the pod explained under each version, only what differs shown
    (`-o json`/`-o yaml`: the VersionComparison); the exit code is the worst of the verdicts
    (2 when the input is refused under one of the versions)."""
    from kexplain.explain.versions import compare_versions
    from kexplain.load.gcpolicy import bulk_load

    with bulk_load(freeze=True):
        comparison = compare_versions(req, kubes, options, env.stdin)
    for warning in dict.fromkeys(w for run in comparison.runs for w in run.warnings):
        env.error(f"warning: {warning}")
    doc = comparison.to_json()
    status = aggregate(for_trace(run.trace) if run.trace is not None else ExitStatus.BAD_INPUT
                       for run in comparison.runs)
    with verdict_known(status):
        _write_comparison(env, doc, output, svg=svg, html=html)
    return status


def _write_comparison(env: Environment, doc: dict, output: Output, *, svg: Optional[str] = None,
                      html: Optional[str] = None) -> None:
    if output.value in structured.FORMATS:
        structured.write(env.stdout, doc, output.value)
    else:
        from kexplain.render.versions import print_comparison
        print_comparison(doc, env.console(), wide=output is Output.wide)
        if svg or html:
            export_view(env, lambda c: print_comparison(doc, c, wide=output is Output.wide), svg, html)


def explain_for_page(inputs: "Inputs", options: "RunOptions", trace: dict) -> dict:
    """The cycle run again recording every node's facts (`page_options`), with the verified
    suggestions `trace` already has (they do not depend on what is recorded)."""
    from kexplain.explain.run import explain

    full = explain(inputs, page_options(options, node_names(inputs.snapshot))).to_json()
    if "suggestions" in trace:
        full["suggestions"] = trace["suggestions"]
    return full


def explain_one(inputs: "Inputs", options: "RunOptions", suggestions: bool) -> dict:
    """One pod's trace; an Unschedulable one with its verified fix suggestions (key `suggestions`,
    each proven by a re-run without the extra trace keys) unless they are turned off."""
    from kexplain.explain.run import explain
    from kexplain.framework.trace import UNSCHEDULABLE
    from kexplain.suggest import suggestions as suggest

    result = explain(inputs, options)
    if suggestions and result.result.status == UNSCHEDULABLE:
        result.extra["suggestions"] = [s.to_json() for s in suggest(inputs, result, options)]
    return result.to_json()


def write_batch(env: Environment, loaded: "Loaded", batch: "Batch", output: Output, *,
                node: Optional[str] = None, svg: Optional[str] = None, html: Optional[str] = None,
                asked: "Optional[RunOptions]" = None, autoscaler: "Optional[Callable]" = None,
                node_group: Optional[str] = None, node_pool: Optional[str] = None) -> ExitStatus:
    """Several pods or replicas, streamed as they are scheduled: a SchedulingTraceList (json,
    yaml) whose items are written one by one, or one section per object as soon as it is
    placed; a progress bar on stderr when it is a terminal; the exit code. No trace is kept
    once written (`--svg`/`--html` keep each object's shown ones, to draw them again or to
    write the page). `asked`: the options the output asked for (the batch records more for
    `--html`: `as_asked`). `autoscaler(pass)`: with node groups, the autoscalers' pass over the
    set (`kexplain.explain.pending_pass`: every copy that did not fit pending, those that did
    bound, the file's objects), shown after the objects (json, yaml: the list's key
    `autoscaler`, in each object's `placements` entry its pods' answers, `autoscalers`, and on
    each item of a pod the pass held its own, `autoscalers`, as `pod --pending` gives them)."""
    from kexplain.explain.batch import API_VERSION, LIST_KIND
    from kexplain.explain.pending_pass import PassBuilder
    from kexplain.render.batch import print_batch, print_batch_node
    from kexplain.render.export import batch_document
    from kexplain.render.live import scheduling_bar

    for warning in (loaded.pool.warnings if loaded.pool else []):
        env.error(f"warning: {warning}")
    statuses: list[ExitStatus] = []
    positions: list[int] = []       # each status's object, for the queue's retry (`after_retries`)
    entries = len(batch.batch)      # one outcome each: every verdict is reached with the last
    gathered = PassBuilder()        # what the autoscalers see, object by object
    gathered.add_objects(loaded.set_objects, loaded.set_created)

    def autoscaled() -> "Optional[AutoscalerRun]":
        nonlocal node_group
        if autoscaler is None:
            return None
        gathered.settle(batch.retried)      # filled once every outcome was placed
        pp = gathered.build()
        run = autoscaler(pp)        # run when every copy fit too: a bad file is refused
        if not (pp.pending or node_group or node_pool):
            return None
        if run.document:
            node_group = check_node_group(node_group, run.document)
        return run

    with verdict_known(lambda: aggregate(statuses) if len(statuses) == entries else None), \
            scheduling_bar(env.stderr, color=bool(env.color), enabled=bool(env.stderr_is_terminal)) as bar:
        run = replace(batch, progress=bar.update)

        def placed(outcomes: "Iterable[Outcome]") -> "Iterator[Outcome]":
            for outcome in outcomes:
                statuses.append(outcome_status(outcome))
                positions.append(outcome.entry.position)
                if autoscaler is not None:
                    gathered.add_outcome(outcome)
                with bar.paused():          # whatever is printed of it, not across the bar
                    for warning in (outcome.inputs.warnings if outcome.inputs is not None else ()):
                        env.error(f"warning: {warning}")
                    yield outcome

        kept: list["Outcome"] = []
        if output in (Output.json, Output.yaml):
            writer = structured.ListWriter(env.stdout, output.value, {"apiVersion": API_VERSION, "kind": LIST_KIND})
            shown = asked or batch.options
            # with the autoscalers' pass, each item waits for its pod's answers in a spool file
            # (memory stays flat), as `pod --pending` writes its items
            spool = structured.ItemSpool() if autoscaler is not None else None
            item = spool.add if spool is not None else writer.item
            outcomes = []
            for o in placed(run.with_sink(lambda p: item(as_asked(p.trace.to_json(), shown)))):
                outcomes.append(o.to_json())
                if html:
                    kept.append(o)
            ran = autoscaled()
            if spool is not None:
                with spool:
                    for trace in spool.items():
                        writer.item(with_answers(trace, ran) if ran is not None else trace)
            retries = {"retries": [r.to_json() for r in run.retried]} if run.retried else {}
            writer.close(annotated_list({"placements": outcomes, **retries}, ran))
            if html:
                save_page(html, annotated_list({**batch_document(kept), **retries}, ran))
            return aggregate(after_retries(run, statuses, positions))

        def draw(console, outcomes: "Iterable[Outcome]") -> None:
            if node is None:
                print_batch(outcomes, console, wide=output is Output.wide)
            else:       # each object's last attempt (the copy that did not fit), on that node
                print_batch_node(outcomes, console, node)

        def keeping(outcomes: "Iterable[Outcome]") -> "Iterator[Outcome]":
            for outcome in outcomes:
                if svg or html:
                    kept.append(outcome)
                yield outcome
        draw(env.console(), keeping(placed(run)))
    from kexplain.render.batch import print_retries
    print_retries(run.retried, env.console())
    ran = autoscaled()

    def section(console) -> None:
        if ran is not None and ran.document:
            from kexplain.render.cluster_autoscaler import print_section
            print_section(ran.document, console, node_group)
        if ran is not None and "karpenter" in ran.documents:
            from kexplain.render.karpenter_section import print_section as print_karpenter
            print_karpenter(ran.documents["karpenter"], console, node_pool)
    section(env.console())
    export_view(env, lambda c: (draw(c, kept), section(c)), svg)
    if html:
        retries = {"retries": [r.to_json() for r in run.retried]} if run.retried else {}
        save_page(html, annotated_list({**batch_document(kept), **retries}, ran))
    return aggregate(after_retries(run, statuses, positions))


def after_retries(batch: "Batch", statuses: list[ExitStatus], positions: list[int]) -> list[ExitStatus]:
    """The objects' statuses where they end up: an object unschedulable on its first attempt
    whose every pod the queue's retry placed (`Batch.still_pending`) fits."""
    return [ExitStatus.SUCCESS if s == ExitStatus.UNSCHEDULABLE and batch.still_pending.get(p) == 0 else s
            for s, p in zip(statuses, positions)]


def outcome_status(outcome: "Outcome") -> ExitStatus:
    """Every copy's verdict, and 1 when the object's copies did not all fit; 0 for an idle
    workload (its controller creates no pod: its template's verdict is told, not counted)."""
    if outcome.entry.idle:      # (held by Kueue, not admitted: its pods do not run)
        kueue = outcome.entry.kueue
        return ExitStatus.UNSCHEDULABLE if kueue is not None and kueue.get("verdict") != "Admitted" \
            else ExitStatus.SUCCESS
    return aggregate([for_result(c.status) for c in outcome.copies]
                     + ([] if outcome.fits else [ExitStatus.UNSCHEDULABLE]))


def batch_status(outcomes: "Iterable[Outcome]") -> ExitStatus:
    """The exit code of several objects: the worst of their verdicts (`outcome_status`)."""
    return aggregate(outcome_status(o) for o in outcomes)
