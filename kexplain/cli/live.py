"""`kexplain pod NAME` and `kexplain snapshot`: explain pods of a live cluster, or save what was read.

Both read the cluster through `kexplain.load.live` (get and list only) and hand the stored
objects to the same engine as `kexplain POD --nodes ... --stored`, so a snapshot replays
offline exactly what was explained live. `pod` also compares kexplain's verdict with the
scheduler's own last word, the pod's PodScheduled condition.
"""
from __future__ import annotations

import json
import os
import re
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator, Optional

import typer
import yaml

from kexplain.cli.env import Environment
from kexplain.errors import KexplainError, Source
from kexplain.cli.exit_codes import EXIT_BAD_INPUT, EXIT_ERROR, EXIT_SCHEDULED, EXIT_UNSCHEDULABLE, exit_code_for
from kexplain.framework.schedule import recording
from kexplain.cli.explain import Output, explain_one, extras_for, write_trace

FOLLOWS = "v1.35"          # the kube-scheduler minor version kexplain reproduces
STALE_HINT = ("the scheduler retries a pod when the cluster changes in a way that may help it, "
              "and at least every 5 minutes")

Obj = dict[str, Any]


# --- options shared by both commands ------------------------------------------------------------

def _kubeconfig() -> Any:
    return typer.Option(None, "--kubeconfig", metavar="FILE",
                        help="Kubeconfig file (default: $KUBECONFIG, ~/.kube/config, then in-cluster).")


def _context() -> Any:
    return typer.Option(None, "--context", metavar="CONTEXT",
                        help="Kubeconfig context (default: the current one).")


def _namespace() -> Any:
    return typer.Option(None, "-n", "--namespace", metavar="NAMESPACE", help="Namespace (default: the context's).")


def _timeout() -> Any:
    return typer.Option(30.0, "--request-timeout", min=0.001, metavar="SECONDS",
                        help="Give up on a request to the API server after this long.")


def _chunk_size() -> Any:
    return typer.Option(500, "--chunk-size", min=1, metavar="N", help="Objects per page when listing.")


@dataclass
class Connect:
    kubeconfig: Optional[str] = None
    context: Optional[str] = None
    namespace: Optional[str] = None
    request_timeout: float = 30.0
    chunk_size: int = 500


@dataclass
class Live:
    """What was read from the cluster."""

    server: str
    context: Optional[str]
    namespace: str               # -n, or the context's namespace
    cluster: list[tuple[Obj, Source]]
    pod: Optional[Obj] = None    # the named pod, as a get returned it
    server_version: Optional[str] = None


def _stderr_is_terminal(env: Environment) -> bool:
    return bool(getattr(env.stderr, "isatty", lambda: False)())


@contextmanager
def progress_bar(env: Environment) -> Iterator[Any]:
    """A callback drawing one bar per resource on stderr when it is a terminal, else None."""
    if not _stderr_is_terminal(env):
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    console = Console(file=env.stderr, force_terminal=True, no_color=not env.color, highlight=False)
    with Progress(TextColumn("reading {task.description:<24}"), BarColumn(), MofNCompleteColumn(),
                  console=console, transient=True) as bar:
        tasks: dict[str, Any] = {}

        def update(resource: str, done: int, total: Optional[int]) -> None:
            if resource not in tasks:
                tasks[resource] = bar.add_task(resource, total=total)
            bar.update(tasks[resource], completed=done, total=total)   # None: still unknown

        yield update


def read_live(env: Environment, opts: Connect, pod_name: Optional[str] = None) -> Live:
    """The named pod (get), then every kind the pipeline reads (list), then /version."""
    from kexplain.load.live import ClusterReader, connect

    conn = connect(opts.kubeconfig, opts.context)
    namespace = opts.namespace or conn.namespace
    try:
        with progress_bar(env) as progress:
            reader = ClusterReader(conn, opts.chunk_size, opts.request_timeout, progress)
            pod = reader.get_pod(namespace, pod_name) if pod_name else None
            cluster = reader.read_cluster()
            version = reader.server_version()
    finally:
        close = getattr(conn.api_client, "close", None)
        if close is not None:
            close()
    return Live(conn.server, conn.context, namespace, cluster, pod, version)


# --- comparing with the scheduler's own message ------------------------------------------------

_NODE_COUNT = re.compile(r"^0/(\d+) nodes are available")


def compare(trace: dict, pod: Obj, *, config_given: bool, server_version: Optional[str]) -> dict:
    """kexplain's verdict next to the pod's PodScheduled condition: do they agree, and if not,
    the likely reasons, most specific first."""
    from kexplain.framework.fit_error import truncate_message
    from kexplain.load.live import pod_scheduled_condition

    cond = pod_scheduled_condition(pod)
    result = trace["result"]
    status = result["status"]
    node = (pod.get("spec") or {}).get("nodeName")
    out: dict[str, Any] = {"podScheduled": _condition(cond), "agrees": None, "notes": [], "hints": []}
    notes: list[str] = out["notes"]
    if cond is None:
        if node:
            out["agrees"] = status == "Scheduled"
            notes.append(f"the pod is bound to {node}")
        else:
            name = (pod.get("spec") or {}).get("schedulerName") or "default-scheduler"
            notes.append("the scheduler has not reported on this pod yet (no PodScheduled condition): "
                         f'it may not have reached it, or no scheduler named "{name}" runs')
        return out
    reason, message = cond.get("reason") or "", cond.get("message") or ""
    if cond.get("status") == "True" or node:
        out["agrees"] = status == "Scheduled"
        where = f" to {node}" if node else ""
        if status == "Scheduled" and node and result.get("suggestedHost") not in (None, node):
            notes.append(f"the scheduler bound it{where}; now kexplain would pick "
                         f"{result.get('suggestedHost')}: scores change as pods come and go")
        elif status != "Scheduled":
            notes.append(f"the scheduler bound it{where} when it ran; the cluster has changed since")
        return out
    if reason == "SchedulingGated":
        out["agrees"] = status == "Gated"
    elif reason == "Unschedulable":
        ours = result.get("message") or ""
        out["agrees"] = status == "Unschedulable" and ours == truncate_message(message)
    elif reason == "SchedulerError":
        out["agrees"] = status == "Error"
    if out["agrees"] is False:
        notes.extend(_why_different(trace, pod, message, config_given, server_version))
    return out


def nominated_notes(inputs: Any, trace: dict) -> list[str]:
    """Nodes that reject the pod only because of pods nominated there (every Filter plugin
    passes on the node as it is): the scheduler counts nominated pods of at least this pod's
    priority as if they were running."""
    pod = inputs.pod
    notes = []
    every = trace.get("filterAll") or {}
    for node, status in (trace.get("filter") or {}).items():
        if (status or {}).get("code") == "Success" or node not in every:
            continue
        if any(s.get("code") not in ("Success", "Skip") for s in every[node].values()):
            continue
        others = [p for p in inputs.nominated.get(node, []) if p.priority >= pod.priority and p.uid != pod.uid]
        if others:
            names = ", ".join(f"{p.namespace}/{p.name}" for p in others)
            notes.append(f"{node} would take this pod but for {names}, nominated there by preemption with a "
                         "priority at least this pod's: the scheduler counts it as running")
    return notes


def _condition(cond: Optional[Obj]) -> Optional[Obj]:
    if cond is None:
        return None
    return {k: cond[k] for k in ("status", "reason", "message", "lastTransitionTime") if k in cond}


def _why_different(trace: dict, pod: Obj, message: str, config_given: bool,
                   server_version: Optional[str]) -> list[str]:
    notes: list[str] = []
    cond_time = next((c.get("lastTransitionTime") for c in (pod.get("status") or {}).get("conditions") or []
                      if isinstance(c, dict) and c.get("type") == "PodScheduled"), None)
    since = f" (PodScheduled=False since {cond_time})" if cond_time else ""
    seen = _NODE_COUNT.match(message)
    now = (trace.get("search") or {}).get("numAllNodes")
    if seen and now is not None and int(seen.group(1)) != now:
        notes.append(f"stale: the scheduler saw {seen.group(1)} nodes, the cluster has {now} now; "
                     f"{STALE_HINT}")
    else:
        notes.append(f"stale: the cluster may have changed since the scheduler's last attempt{since}; "
                     f"{STALE_HINT}")
    nominated = (pod.get("status") or {}).get("nominatedNodeName")
    if nominated:
        notes.append(f"the scheduler nominated node {nominated} for this pod after preempting others; "
                     "their termination may still be under way")
    if server_version and not server_version.startswith(FOLLOWS + ".") and server_version != FOLLOWS:
        notes.append(f"another scheduler version: the cluster runs Kubernetes {server_version}; "
                     "kexplain reproduces kube-scheduler v1.35.4, whose plugins and messages may differ")
    elif not server_version:
        notes.append("another scheduler version: kexplain reproduces kube-scheduler v1.35.4 "
                     "(the cluster's version is unknown)")
    if not config_given:
        notes.append("a profile kexplain was not given: the cluster's scheduler may run with its own "
                     "KubeSchedulerConfiguration (plugins, plugin arguments, percentageOfNodesToScore); "
                     "pass it with --config")
    return notes


# --- `kexplain pod` ----------------------------------------------------------------------------

@dataclass
class PodArgs:
    name: Optional[str]
    connect: Connect
    all_namespaces: bool = False
    pending: bool = False
    details: bool = False
    config: Optional[str] = None
    output: Output = Output.table
    start_index: int = 0
    preemption: bool = True
    preemption_offset: int = 0
    node: Optional[str] = None


def pod_command(
    name: Optional[str] = typer.Argument(None, metavar="NAME", help="The pod to explain."),
    namespace: Optional[str] = _namespace(),
    all_namespaces: bool = typer.Option(False, "-A", "--all-namespaces",
                                        help="Every pending pod of every namespace (with no NAME)."),
    pending: bool = typer.Option(False, "--pending",
                                 help="Every pod that is Pending with PodScheduled=False: one line each."),
    details: bool = typer.Option(False, "--details", help="With --pending/-A: every reason on every node."),
    kubeconfig: Optional[str] = _kubeconfig(),
    context: Optional[str] = _context(),
    config: Optional[str] = typer.Option(None, "--config", metavar="FILE",
                                         help="The cluster's KubeSchedulerConfiguration, if it has one."),
    output: Output = typer.Option(Output.table, "-o", "--output", help="table, wide, json or yaml."),
    start_index: int = typer.Option(0, "--start-index", min=0,
                                    help="The scheduler's round-robin position before this pod."),
    preemption: bool = typer.Option(True, "--preemption/--no-preemption",
                                    help="Run the DefaultPreemption dry run when no node fits."),
    preemption_offset: int = typer.Option(0, "--preemption-offset", min=0,
                                          help="Where the preemption candidate search starts."),
    node: Optional[str] = typer.Option(None, "--node", metavar="NAME",
                                       help="With a pod NAME: one node's full verdict, plugin by plugin, with "
                                            "the facts behind each (-o json/yaml: under `details`)."),
    request_timeout: float = _timeout(),
    chunk_size: int = _chunk_size(),
) -> None:
    """Explain a pod of the live cluster (or, with --pending / -A, every pending pod).

    Reads the pod and everything the scheduler's plugins read, with get and list only (the
    read-only ClusterRole of deploy/rbac.yaml), and compares the verdict with the pod's
    PodScheduled condition. Exit codes as for `kexplain POD`; 2 also when the cluster cannot
    be read."""
    args = PodArgs(name, Connect(kubeconfig, context, namespace, request_timeout, chunk_size),
                   all_namespaces, pending, details, config, output, start_index, preemption,
                   preemption_offset, node)
    raise typer.Exit(run_pod(Environment(), args))


def run_pod(env: Environment, args: PodArgs) -> int:
    many = args.pending or args.all_namespaces
    if args.name and many:
        env.error("error: give a pod NAME or --pending/-A, not both")
        return EXIT_BAD_INPUT
    if args.node and not args.name:
        env.error("error: --node needs a pod NAME")
        return EXIT_BAD_INPUT
    if not args.name and not many:
        env.error("error: name a pod (kexplain pod NAME [-n NAMESPACE]), or pass --pending or -A")
        return EXIT_BAD_INPUT
    from kexplain.explain.run import read_config
    try:
        config = read_config(args.config)
        live = read_live(env, args.connect, args.name)
    except KexplainError as err:
        env.error(f"error: {err}")
        return EXIT_BAD_INPUT
    if args.name:
        return _explain_named(env, args, live, config)
    return _explain_pending(env, args, live, config)


def _request(args: PodArgs, pod: Obj):
    from kexplain.explain.run import Request
    meta = pod.get("metadata") or {}
    return Request(pod_path=f"pods/{meta.get('namespace')}/{meta.get('name')}", stored=True,
                   start_index=args.start_index, preemption=args.preemption,
                   preemption_offset=args.preemption_offset)


def _live_key(live: Live, comparison: dict) -> dict:
    return {"server": live.server, "context": live.context, "serverVersion": live.server_version,
            **comparison}


LIVE_NO_NODES = "The cluster has no nodes: the API server listed no Node object."


def _explain_named(env: Environment, args: PodArgs, live: Live, config: Any) -> int:
    from kexplain.explain.run import explain, inputs_from_objects
    from kexplain.load.live import as_pending

    assert live.pod is not None
    pod, cluster, note = as_pending(live.pod, live.cluster)
    req = _request(args, pod)
    try:
        inputs = inputs_from_objects(pod, Source(f"{live.server} {req.pod_path}"), cluster, config, stored=True)
        with recording(extras_for(args.output, args.node)):   # zones, requests, --node: as offline
            trace = explain_one(inputs, req, True)
    except KexplainError as err:
        if "profile not found" in err.message:
            env.error(f"error: pod {_pod_key(pod)}: {_skip_reason(pod, err)}")
        else:
            env.error(f"error: {err}")
        return EXIT_BAD_INPUT
    comparison = compare(trace, live.pod, config_given=args.config is not None,
                         server_version=live.server_version)
    comparison["hints"] = ([note] if note else []) + nominated_notes(inputs, trace)
    if note:
        env.error(f"note: {note}")
    if args.output in (Output.json, Output.yaml):
        write_trace(env, {**trace, "live": _live_key(live, comparison)}, args.output)
    else:
        write_trace(env, trace, args.output, node=args.node, no_nodes_hint=LIVE_NO_NODES)
        print_comparison(env, comparison)
    return exit_code_for(trace)


def print_comparison(env: Environment, comparison: dict) -> None:
    from rich.text import Text

    console = env.console()
    cond = comparison["podScheduled"]
    if cond is not None:
        since = f", since {cond['lastTransitionTime']}" if cond.get("lastTransitionTime") else ""
        said = f": {cond['message']}" if cond.get("message") else ""
        console.print(Text(f"The scheduler said (PodScheduled={cond.get('status')}, "
                           f"{cond.get('reason') or 'no reason'}{since}){said}"))
    agrees = comparison["agrees"]
    if agrees is True:
        console.print(Text("kexplain agrees with the scheduler.", style="green"))
    elif agrees is False:
        console.print(Text("kexplain differs from the scheduler. Possible reasons:", style="yellow"))
    for note in comparison["notes"]:
        console.print(Text(f"  - {note}"))
    for hint in comparison.get("hints") or []:
        console.print(Text(f"Note: {hint}"))


@dataclass
class PendingResult:
    pod: Obj
    trace: Optional[dict] = None
    comparison: Optional[dict] = None
    skipped: str = ""


def _explain_pending(env: Environment, args: PodArgs, live: Live, config: Any) -> int:
    from kexplain.explain.run import Inputs, build_cluster, explain
    from kexplain.load.live import is_pending_unschedulable
    from kexplain.model.pod import PodInfo

    pods = [o for o, _ in live.cluster if o.get("kind") == "Pod" and is_pending_unschedulable(o)
            and (args.all_namespaces or (o.get("metadata") or {}).get("namespace") == live.namespace)]
    deleting = sum(1 for p in pods if (p.get("metadata") or {}).get("deletionTimestamp"))
    pods = [p for p in pods if not (p.get("metadata") or {}).get("deletionTimestamp")]
    if deleting:
        env.error(f"note: skipped {deleting} pending pod(s) being deleted (the scheduler skips them)")
    try:
        snapshot, nominated = build_cluster(live.cluster)
    except KexplainError as err:
        env.error(f"error: {err}")
        return EXIT_BAD_INPUT
    results: list[PendingResult] = []
    for pod in pods:
        req = _request(args, pod)
        res = PendingResult(pod)
        try:
            inputs = Inputs(PodInfo(pod), Source(f"{live.server} {req.pod_path}"), snapshot, config, nominated)
            res.trace = explain_one(inputs, req, True)
        except KexplainError as err:
            res.skipped = _skip_reason(pod, err)
        else:
            res.comparison = compare(res.trace, pod, config_given=args.config is not None,
                                     server_version=live.server_version)
            res.comparison["hints"] = nominated_notes(inputs, res.trace)
        results.append(res)
    _write_pending(env, args, live, results)
    return _pending_exit_code(results)


def _skip_reason(pod: Obj, err: KexplainError) -> str:
    """Why a pending pod was not explained: the error's own words (for a pod of another
    scheduler, the same as `kexplain POD` and `kexplain pod NAME` print)."""
    return err.message


def _pending_exit_code(results: list[PendingResult]) -> int:
    codes = [exit_code_for(r.trace) for r in results if r.trace is not None]
    if EXIT_ERROR in codes:
        return EXIT_ERROR
    return EXIT_UNSCHEDULABLE if EXIT_UNSCHEDULABLE in codes else EXIT_SCHEDULED


def _pod_key(pod: Obj) -> str:
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace')}/{meta.get('name')}"


def summary(res: PendingResult) -> tuple[str, str, str, str]:
    """(pod, kexplain's verdict, whether the scheduler agrees, the one-line why)."""
    if res.trace is None:
        return _pod_key(res.pod), "skipped", "-", res.skipped
    result = res.trace["result"]
    status = result["status"]
    if status == "Scheduled":
        why = f"fits now: would be bound to {result.get('suggestedHost') or ', '.join(result['selectedNodes'])}"
    elif status == "Gated":
        gate = next((e for e in res.trace.get("preEnqueue") or [] if e.get("code") != "Success"), {})
        why = "; ".join(gate.get("reasons") or []) or f"gated by {gate.get('plugin', '')}"
    elif status == "Error":
        why = result.get("error") or ""
    else:
        why = result.get("message") or ""
        post = res.trace.get("postFilter") or {}
        if post.get("nominatedNodeName"):
            victims = ", ".join(post.get("victims") or []) or "none"
            why += f" (preemption would nominate {post['nominatedNodeName']}; victims: {victims})"
    agrees = (res.comparison or {}).get("agrees")
    return _pod_key(res.pod), status, {True: "agrees", False: "differs"}.get(agrees, "-"), why


def _write_pending(env: Environment, args: PodArgs, live: Live, results: list[PendingResult]) -> None:
    if args.output in (Output.json, Output.yaml):
        doc = {"apiVersion": "kexplain/v1", "kind": "SchedulingTraceList",
               "items": [{**r.trace, "live": _live_key(live, r.comparison or {})}
                         for r in results if r.trace is not None],
               "skipped": [{"pod": _pod_key(r.pod), "reason": r.skipped} for r in results if r.trace is None]}
        write_trace(env, doc, args.output)
        return
    where = "any namespace" if args.all_namespaces else f'namespace "{live.namespace}"'
    if not results:
        env.stdout.write(f"No pod in {where} is Pending with PodScheduled=False.\n")
        return
    rows = [("POD", "KEXPLAIN", "SCHEDULER", "WHY")] + [summary(r) for r in results]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    for row in rows:
        env.stdout.write("  ".join(cell.ljust(w) for cell, w in zip(row[:3], widths)) + "  " + row[3] + "\n")
    if args.details:
        for res in results:
            if res.trace is None:
                continue
            env.stdout.write("\n")
            env.console().rule(_pod_key(res.pod))
            write_trace(env, res.trace, args.output, no_nodes_hint=LIVE_NO_NODES)
            print_comparison(env, res.comparison or {"podScheduled": None, "agrees": None, "notes": []})
    elif _stderr_is_terminal(env):
        env.error("For every reason on every node: --details, or kexplain pod NAME -n NAMESPACE.")


# --- `kexplain snapshot` -----------------------------------------------------------------------

def snapshot_command(
    name: Optional[str] = typer.Argument(None, metavar="[NAME]",
                                         help="A pod to save on its own too, ready to replay."),
    output: str = typer.Option(..., "-o", "--output", metavar="FILE",
                               help="Where to write: .json (default) or .yaml/.yml; '-' for stdout."),
    pod_output: Optional[str] = typer.Option(None, "--pod-output", metavar="FILE",
                                             help="Where to write the named pod (default: <output>.pod.<ext>)."),
    redact: bool = typer.Option(False, "--redact",
                                help="Replace names, label values and images by consistent tokens."),
    redact_map: Optional[str] = typer.Option(None, "--redact-map", metavar="FILE",
                                             help="With --redact: write the key back (token -> original) here."),
    namespace: Optional[str] = _namespace(),
    kubeconfig: Optional[str] = _kubeconfig(),
    context: Optional[str] = _context(),
    request_timeout: float = _timeout(),
    chunk_size: int = _chunk_size(),
) -> None:
    """Save what kexplain reads from the cluster as one `kind: List`, to replay offline:
    kexplain POD.yaml --nodes FILE --stored."""
    args = SnapshotArgs(name, output, pod_output, redact, redact_map,
                        Connect(kubeconfig, context, namespace, request_timeout, chunk_size))
    raise typer.Exit(run_snapshot(Environment(), args))


@dataclass
class SnapshotArgs:
    name: Optional[str]
    output: str
    pod_output: Optional[str]
    redact: bool
    redact_map: Optional[str]
    connect: Connect


def default_pod_output(output: str) -> str:
    root, ext = os.path.splitext(output)
    return f"{root}.pod{ext or '.json'}"


def run_snapshot(env: Environment, args: SnapshotArgs) -> int:
    from kexplain.load.live import as_pending
    from kexplain.load.redact import Redactor

    if args.redact_map and not args.redact:
        env.error("error: --redact-map needs --redact")
        return EXIT_BAD_INPUT
    if args.pod_output and not args.name:
        env.error("error: --pod-output needs a pod NAME")
        return EXIT_BAD_INPUT
    pod_path = (args.pod_output or default_pod_output(args.output)) if args.name else None
    if pod_path == "-" or (args.name and args.output == "-" and not args.pod_output):
        env.error("error: with a pod NAME, write the snapshot to a file (-o FILE) or give --pod-output FILE")
        return EXIT_BAD_INPUT
    try:
        live = read_live(env, args.connect, args.name)
    except KexplainError as err:
        env.error(f"error: {err}")
        return EXIT_BAD_INPUT
    cluster = live.cluster
    pod, note = None, None
    if live.pod is not None:
        pod, cluster, note = as_pending(live.pod, cluster)
    objects = [o for o, _ in cluster]
    redactor = None
    if args.redact:
        redactor = Redactor()
        redactor.prepare(objects + ([pod] if pod else []))
        objects = [r for r in (redactor.redact(o) for o in objects) if r is not None]
        pod = redactor.redact(pod) if pod else None
    try:
        _write_objects(env, args.output, objects)
        if pod is not None and pod_path:
            _write_objects(env, pod_path, [pod], single=True)
        if redactor is not None and args.redact_map:
            _write_file(args.redact_map, json.dumps(redactor.mapping, indent=1) + "\n", private=True)
    except OSError as err:
        env.error(f"error: cannot write {err.filename or args.output}: {err.strerror or err}")
        return EXIT_BAD_INPUT
    if note:
        env.error(f"note: {note}")
    counts = _counts(objects)
    where = "stdout" if args.output == "-" else args.output
    env.error(f"wrote {len(objects)} objects ({counts}) read from {live.server} to {where}"
              + (", redacted" if args.redact else ""))
    if pod_path:
        env.error(f"replay offline: kexplain {pod_path} --nodes {args.output} --stored")
    return EXIT_SCHEDULED


def _counts(objects: list[Obj]) -> str:
    from kexplain.load.live import RESOURCES
    parts = []
    for res in RESOURCES:
        n = sum(1 for o in objects if o.get("kind") == res.kind)
        if n:
            parts.append(f"{n} {res.plural}")
    return ", ".join(parts)


def _write_objects(env: Environment, path: str, objects: list[Obj], single: bool = False) -> None:
    """JSON (one object per line inside a `kind: List`), or YAML for .yaml/.yml."""
    doc: Any = objects[0] if single else {"apiVersion": "v1", "kind": "List", "metadata": {}, "items": objects}
    if path.endswith((".yaml", ".yml")):
        dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        text = yaml.dump(doc, Dumper=dumper, sort_keys=False, allow_unicode=True)
    elif single:
        text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    else:
        lines = ",\n".join(json.dumps(o, separators=(",", ":"), ensure_ascii=False) for o in objects)
        text = f'{{"apiVersion":"v1","kind":"List","metadata":{{}},"items":[\n{lines}\n]}}\n'
    if path == "-":
        env.stdout.write(text)
    else:
        _write_file(path, text)


def _write_file(path: str, text: str, private: bool = False) -> None:
    """Written whole or not at all (a temporary file renamed into place)."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".kexplain-", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        if not private:
            mask = os.umask(0)
            os.umask(mask)
            os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
