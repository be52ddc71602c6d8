"""`kexplain snapshot [NAME] -o FILE`: save what `kexplain pod` reads from the cluster (and what
Karpenter, CA and a set's admission would read), with the API server's version first, to replay
offline with `--nodes FILE --stored`; redacted if asked. What is written: docs/internals/cli.md."""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, replace
from typing import Any, List, Optional

import typer

from kexplain.app.eviction.node_stats import NodeStatsRead, read_node_stats
from kexplain.app.live import WITH_KARPENTER
from kexplain.cli.env import Environment, env_of
from kexplain.cli.exit_codes import ExitStatus
from kexplain.autoscaler.cloudprovider import reporting_objects, status_configmap
from kexplain.autoscaler.cloudprovider.live import CLUSTER_API, STATUS, read_group_objects
from kexplain.cli.live import Connect, Live, say_karpenter_reads, say_reads, session
from kexplain.cli.live_options import (chunk_size_option, context_option, kubeconfig_option, namespace_option,
                                       timeout_option)
from kexplain.errors import KexplainError, Source
from kexplain.load.live import (DAEMONSETS, EVENTS, KARPENTER, POLICIES, RESOURCES, VOLCANO, ClusterReader, LiveError,
                                as_pending, version_record)
from kexplain.load.node_stats import NODE_STATS_KIND
from kexplain.load.redact import Redactor
from kexplain.render.structured import objects_text

Obj = dict[str, Any]


@dataclass(frozen=True)
class SnapshotArgs:
    name: Optional[str]
    output: str
    pod_output: Optional[str]
    redact: bool
    redact_map: Optional[str]
    connect: Connect
    node_stats: tuple[str, ...] = ()        # nodes whose Summary and configz to keep (--node-stats)
    node_stats_pressured: bool = False      # and every node reporting a pressure condition


def command(
    ctx: typer.Context,
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
    namespace: Optional[str] = namespace_option(),
    kubeconfig: Optional[str] = kubeconfig_option(),
    context: Optional[str] = context_option(),
    request_timeout: float = timeout_option(),
    chunk_size: int = chunk_size_option(),
    node_stats: List[str] = typer.Option([], "--node-stats", metavar="NODE",
                                         help="Also keep NODE's stats Summary and kubelet configz, read through "
                                              "the API server's node proxy (get on nodes/proxy), for kexplain "
                                              "evict pressure NODE on the snapshot (repeatable)."),
    node_stats_pressured: bool = typer.Option(False, "--node-stats-pressured",
                                              help="Also keep them for every node reporting MemoryPressure, "
                                                   "DiskPressure or PIDPressure."),
) -> ExitStatus:
    """Save what kexplain reads from the cluster as one `kind: List`, to replay offline:
    kexplain POD.yaml --nodes FILE --stored."""
    args = SnapshotArgs(name, output, pod_output, redact, redact_map,
                        Connect(kubeconfig, context, namespace, request_timeout, chunk_size), tuple(node_stats),
                        node_stats_pressured)
    return run_snapshot(env_of(ctx), args)


def default_pod_output(output: str) -> str:
    root, ext = os.path.splitext(output)
    return f"{root}.pod{ext or '.json'}"


@dataclass(frozen=True)
class AutoscalerReads:
    """What the Cluster Autoscaler's loop reads besides `kexplain pod`'s reads: the objects that
    report node groups and the DaemonSets (unless Karpenter's reads brought them), and what
    could not be read, each with what a replay then lacks."""

    objects: tuple[Obj, ...]
    unread: tuple[str, ...]


# What a replay lacks without an object a read failed for, by the start of that read's note.
LACKS = {"CA's status": "a replay finds no node group CA reports (give it --node-groups FILE)",
         "Cluster API": "a replay finds no Cluster API node group (give it --node-groups FILE)",
         "DaemonSets": "a replay's node-group templates run no DaemonSet pod"}


def read_cluster(env: Environment, connect: Connect, name: Optional[str],
                 stats: tuple[tuple[str, ...], bool] = ((), False),
                 allowed: bool = False) -> tuple[Live, AutoscalerReads, NodeStatsRead]:
    """What `kexplain pod` reads, with the namespaces' policies (`Session.read`; on a cluster that
    serves karpenter.sh/v1, finished pods too, as the live disruption pass reads), then what CA's
    loop reads (`autoscaler_reads`), then the nodes' stats asked for (`stats`: the nodes named,
    those under pressure); with `allowed`, what RBAC refuses (403) is kept in `live.refusals`
    instead of ending the read (`kexplain cluster`: a section whose reads were refused is skipped)."""
    with session(env, connect) as s:
        s.server_version()
        live = s.read(name, allowed=allowed, policies=True, finished=WITH_KARPENTER)
        reader = ClusterReader(s.conn, connect.chunk_size, connect.request_timeout)
        kept = NodeStatsRead()
        if stats[0] or stats[1]:
            kept = read_node_stats(reader, [o for o, _ in live.cluster], stats[0], stats[1])
        return _with_karpenter_events(reader, live), autoscaler_reads(reader, live), kept


def _with_karpenter_events(reader: ClusterReader, live: Live) -> Live:
    """On a cluster with Karpenter, its events (`ClusterReader.karpenter_events`: what it said of
    its nodes and the pods it moved) kept with the cluster; their refused read (403) one of
    Karpenter's, said with them."""
    if not live.karpenter.installed:
        return live
    events, refused = reader.karpenter_events()
    src = Source(f"{live.server}{EVENTS.path}")
    karpenter = live.karpenter if refused is None else replace(live.karpenter,
                                                              refusals=(*live.karpenter.refusals, refused))
    return replace(live, cluster=[*live.cluster, *((e, src) for e in events)], karpenter=karpenter)


def autoscaler_reads(reader: ClusterReader, live: Live) -> AutoscalerReads:
    """CA's status ConfigMap and Cluster API's objects (`read_group_objects`), and the DaemonSets
    when Karpenter's reads did not bring them (they are read for a cluster that serves it)."""
    groups = read_group_objects(reader)
    objects = list(groups.objects)
    unread = list(groups.unread)
    if not live.karpenter.installed:
        try:
            objects += reader.list_served(DAEMONSETS)
        except LiveError as err:
            unread.append(f"DaemonSets could not be read: {err.message}")
    return AutoscalerReads(tuple(objects), tuple(unread))


def say_autoscaler_reads(env: Environment, reads: AutoscalerReads) -> None:
    """Each read that failed, with what a replay lacks; a status ConfigMap kexplain cannot read
    (a replay says so, and finds no node group in it)."""
    for note in reads.unread:
        lacks = next((v for k, v in LACKS.items() if note.startswith(k)), "")
        env.error(f"note: {note}: the snapshot leaves it out" + (f"; {lacks}" if lacks else ""))
    cm = status_configmap.find(reads.objects)
    if cm is not None:
        try:
            status_configmap.parse(cm)
        except KexplainError as err:
            env.error(f"note: the snapshot keeps CA's status ConfigMap, which kexplain cannot read ({err.message}): "
                      "a replay says so and finds no node group in it")


def run_snapshot(env: Environment, args: SnapshotArgs) -> ExitStatus:
    if args.redact_map and not args.redact:
        raise KexplainError("--redact-map needs --redact")
    if args.pod_output and not args.name:
        raise KexplainError("--pod-output needs a pod NAME")
    pod_path = (args.pod_output or default_pod_output(args.output)) if args.name else None
    if pod_path == "-" or (args.name and args.output == "-" and not args.pod_output):
        raise KexplainError("with a pod NAME, write the snapshot to a file (-o FILE) or give --pod-output FILE")
    if args.redact and (args.node_stats or args.node_stats_pressured):
        raise KexplainError("--node-stats keeps the Summary's pod names and uids, which --redact hides: give one "
                            "of them")
    live, reads, kept = read_cluster(env, args.connect, args.name, (args.node_stats, args.node_stats_pressured))
    say_karpenter_reads(env, live)
    say_reads(env, live.policies)
    say_autoscaler_reads(env, reads)
    for note in kept.notes:
        env.error(f"note: {note}; kexplain evict pressure on the snapshot then needs --stats FILE")
    cluster = live.cluster
    pod, note = None, None
    if live.pod is not None:
        pod, cluster, note = as_pending(live.pod, cluster)
    objects = [o for o, _ in cluster] + list(kept.pods) + list(reads.objects) + list(kept.records)
    redactor = None
    if args.redact:
        redactor = Redactor()
        redactor.prepare(objects + ([pod] if pod else []))
        redacted = [(o, redactor.redact(o)) for o in objects]
        objects = [r for _, r in redacted if r is not None]
        left_out = [o for o, r in redacted if r is None]
        if left_out:        # the kinds only the autoscalers read (`Redactor.redact` knows the scheduler's)
            karpenter = any(o.get("kind") in {r.kind for r in (*KARPENTER, EVENTS)} for o in left_out)
            policies = any(o.get("kind") in {r.kind for r in POLICIES} for o in left_out)
            volcano = any(o.get("kind") in {r.kind for r in VOLCANO} for o in left_out)
            groups = bool(reporting_objects([(o, None) for o in left_out]))
            env.error(f"note: a redacted snapshot leaves out {_counts(left_out)}: redaction keeps only what the "
                      "scheduler reads" + ("; a replay has no Karpenter section" if karpenter else "")
                      + ("; a replay finds no node group (give it --node-groups FILE)" if groups else "")
                      + ("; a set explained against it meets none of the namespaces' policies and HPAs"
                         if policies else "")
                      + ("; a replay finds none of Volcano's Queues and PodGroups" if volcano else ""))
        pod = redactor.redact(pod) if pod else None
    # The API server's version first: a replay follows it (`kexplain.load.live.recorded_version`).
    record = [version_record(live.server_version)] if live.server_version else []
    try:
        _write(env, args.output, objects_text(record + objects, as_yaml=_is_yaml(args.output)))
        if pod is not None and pod_path:
            _write(env, pod_path, objects_text([pod], as_yaml=_is_yaml(pod_path), single=True))
        if redactor is not None and args.redact_map:
            write_file(args.redact_map, json.dumps(redactor.mapping, indent=1) + "\n", private=True)
    except OSError as err:
        raise KexplainError(f"cannot write {err.filename or args.output}: {err.strerror or err}") from None
    if note:
        env.error(f"note: {note}")
    where = "stdout" if args.output == "-" else args.output
    version = f" (Kubernetes {live.server_version}, which a replay follows)" if live.server_version else ""
    env.error(f"wrote {len(objects)} objects ({_counts(objects)}) read from {live.server}{version} to {where}"
              + (", redacted" if args.redact else ""))
    if pod_path:
        env.error(f"replay offline: kexplain {pod_path} --nodes {args.output} --stored")
    return ExitStatus.SUCCESS


def _is_yaml(path: str) -> bool:
    return path.endswith((".yaml", ".yml"))


def _counts(objects: list[Obj]) -> str:
    parts = []
    for res in (*RESOURCES, *POLICIES, DAEMONSETS, *KARPENTER, EVENTS, STATUS, *CLUSTER_API, *VOLCANO):
        n = sum(1 for o in objects if o.get("kind") == res.kind)
        if n:
            parts.append(f"{n} {res.plural}")
    stats = sum(1 for o in objects if o.get("kind") == NODE_STATS_KIND)
    if stats:
        parts.append(f"{stats} nodes' stats")
    return ", ".join(parts)


def _write(env: Environment, path: str, text: str) -> None:
    if path == "-":
        env.stdout.write(text)
    else:
        write_file(path, text)


def write_file(path: str, text: str, private: bool = False) -> None:
    """Written whole or not at all (a temporary file renamed into place); `private`: mode 0600."""
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
