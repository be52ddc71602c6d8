"""`kexplain evict pressure|drain|taints NODE`: why placed pods are removed, as the kubelet's
eviction manager, `kubectl drain` with the Eviction API, and the taint eviction controller
decide it. Each subcommand parses its options into an `EvictRequest`, asks its family's app
module (`kexplain.app.eviction.<family>.document`) and writes the document (`render.eviction`)."""
from __future__ import annotations

import functools
import importlib
import inspect
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable, List, Optional

import typer

from kexplain.app.eviction.request import EvictRequest, LiveRead
from kexplain.cli.env import env_of
from kexplain.cli.exit_codes import ExitStatus
from kexplain.cli.live_options import chunk_size_option, context_option, kubeconfig_option, timeout_option
from kexplain.cli.options import (MAX_INPUT_SIZE_OPTION, OUTPUT_OPTION, VALIDATE_OPTION, Output, kubelet_config_option,
                                  max_objects_option, stats_option)
from kexplain.cli.output import save_page
from kexplain.cli.versions import admission_choice, admission_plugins_option
from kexplain.errors import KexplainError
from kexplain.features.kube_version import ENV_VAR, resolve
from kexplain.render import structured
from kexplain.render.from_event import refused_lines

HELP = ("Explain eviction: the kubelet's eviction manager under node pressure (pressure), `kubectl drain`\n"
        "with the Eviction API and the PodDisruptionBudgets (drain), the taint eviction controller's\n"
        "NoExecute taints (taints).")

EXIT_HELP = ("Exit codes: 0 nothing is evicted (pressure, taints) or the drain would succeed, 1 pods are evicted "
             "or the drain is refused or blocked, 2 bad usage or bad input, 4 internal error.")

NODE_ARGUMENT = typer.Argument(..., metavar="NODE", help="The node the question is about.")
NODES_OPTION = typer.Option([], "--nodes", metavar="PATH",
                            help="The cluster: Nodes, bound Pods with their status, their controllers "
                                 "(Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs, ...), "
                                 "PodDisruptionBudgets; any kind in any file (repeatable).")
NOW_OPTION = typer.Option(None, "--now", metavar="TIME", help="The clock (RFC 3339; default: the current time).")
HTML_OPTION = typer.Option(None, "--html", metavar="FILE",
                           help="Also write the answer as a self-contained page: the order with its numbers, the "
                                "budgets, where the pods go, the fixes, and the text.")
VERSION_OPTION = typer.Option(None, "--kubernetes-version", metavar="X.Y",
                              help="The Kubernetes minor whose components decide (default: "
                                   "$KEXPLAIN_KUBERNETES_VERSION, else the newest followed).")


def parse_time(text: Optional[str], option: str = "--now") -> datetime:
    """An RFC 3339 time (the current time when not given)."""
    if not text:
        return datetime.now(timezone.utc).replace(microsecond=0)
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise KexplainError(f"{option} {text}: not an RFC 3339 time (e.g. 2026-01-01T00:00:00Z)") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


@dataclass(frozen=True)
class Common:
    """The options every `evict` subcommand takes, as parsed (`shared`)."""

    nodes: List[str]
    now: Optional[str]
    kubernetes_version: Optional[str]
    admission_plugins: Optional[str]
    output: Output
    max_input_size: int
    max_objects: int
    validate: str
    kubeconfig: Optional[str]
    context: Optional[str]
    request_timeout: float
    chunk_size: int
    html: Optional[str]

    @property
    def live(self) -> Optional[LiveRead]:
        """Where to read the live cluster: without --nodes, the kubeconfig's."""
        return None if self.nodes else LiveRead(self.kubeconfig, self.context, self.request_timeout, self.chunk_size)


def _common_parameters() -> list[inspect.Parameter]:
    """The `Common` options as typer reads parameters, in the order --help lists them."""
    options: list[tuple[str, Any, Any]] = [
        ("nodes", List[str], NODES_OPTION), ("now", Optional[str], NOW_OPTION),
        ("kubernetes_version", Optional[str], VERSION_OPTION),
        ("admission_plugins", Optional[str], admission_plugins_option()), ("output", Output, OUTPUT_OPTION),
        ("max_input_size", int, MAX_INPUT_SIZE_OPTION), ("max_objects", int, max_objects_option()),
        ("validate", str, VALIDATE_OPTION), ("kubeconfig", Optional[str], kubeconfig_option()),
        ("context", Optional[str], context_option()), ("request_timeout", float, timeout_option()),
        ("chunk_size", int, chunk_size_option()), ("html", Optional[str], HTML_OPTION)]
    return [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=kind)
            for name, kind, default in options]


def shared(fn: Callable[..., ExitStatus]) -> Callable[..., ExitStatus]:
    """A subcommand `fn(ctx, node, ..., common: Common)` as typer sees it: its own parameters, then
    every `Common` option, defined once here; typer's keyword arguments gathered into `common`."""
    own = [p for p in inspect.signature(fn, eval_str=True).parameters.values() if p.name != "common"]
    common_parameters = _common_parameters()
    parameters = own + common_parameters
    names = [p.name for p in common_parameters]

    @functools.wraps(fn)
    def command(**kwargs: Any) -> ExitStatus:
        common = Common(**{name: kwargs.pop(name) for name in names})
        return fn(**kwargs, common=common)

    del command.__wrapped__      # typer reads the signature below, not fn's
    command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in parameters}
    return command


def _run(ctx: typer.Context, family: str, node: str, common: Common, options: dict) -> ExitStatus:
    """One family's document, written as asked; the exit code its `evicts` reads off it. Without
    --nodes, the cluster is read from its API server."""
    env = env_of(ctx)
    kube, warnings = resolve(common.kubernetes_version, env.variables.get(ENV_VAR) or None,
                             admission=admission_choice(env, common.admission_plugins))
    for warning in warnings:
        env.error(f"warning: {warning}")
    given = bool(common.kubernetes_version or env.variables.get(ENV_VAR))     # else the cluster's own versions
    req = EvictRequest(node, tuple(common.nodes), parse_time(common.now), kube, options, common.max_input_size,
                       common.max_objects, common.validate, env.stdin, common.live, version_given=given)
    app = importlib.import_module(f"kexplain.app.eviction.{family}")
    doc = app.document(req)
    reads = doc.get("liveReads") or {}
    for line in [*refused_lines(reads.get("refused") or (), None), *(f"note: {n}" for n in reads.get("notes") or ())]:
        env.error(line)     # the live reads left out, in the words `kexplain pod` says them
    for warning in (*(doc.get("readWarnings") or ()), *(doc.get("warnings") or ())):
        env.error(f"warning: {warning}")     # what reading the cluster said, then kubectl's
    if common.output.value in structured.FORMATS:
        structured.write(env.stdout, doc, common.output.value)
    else:
        importlib.import_module(f"kexplain.render.eviction.{family}").print_document(doc, env.console())
    if common.html:
        save_page(common.html, doc)
    status: Callable[[dict], bool] = app.evicts
    return ExitStatus.UNSCHEDULABLE if status(doc) else ExitStatus.SUCCESS


@shared
def pressure(
    ctx: typer.Context,
    node: str = NODE_ARGUMENT,
    stats: Optional[str] = stats_option(),
    kubelet_config: Optional[str] = kubelet_config_option(),
    filesystems: Optional[str] = typer.Option(None, "--filesystems", metavar="shared|imagefs|split",
                                              help="The node's filesystems: shared (one), imagefs (a dedicated image "
                                                   "filesystem) or split (images apart, containers' layers on the "
                                                   "node's); without it, inferred from the Summary's filesystems."),
    earlier_stats: Optional[str] = typer.Option(None, "--earlier-stats", metavar="FILE",
                                                help="The Summary of an earlier housekeeping pass (with --earlier-at)."),
    earlier_at: Optional[str] = typer.Option(None, "--earlier-at", metavar="TIME",
                                             help="When the earlier pass ran (RFC 3339)."),
    admit: Optional[str] = typer.Option(None, "--admit", metavar="FILE",
                                        help="Pods arriving after the pass: the eviction admit handler's answer "
                                             "for each."),
    *,
    common: Common,
) -> ExitStatus:
    """The kubelet's eviction manager on NODE: every signal against every threshold, the node
    conditions, the reclaim it tries first, the ranking of every pod with the numbers behind each
    place, the pod it evicts and its message, and what its admission refuses meanwhile. Without
    --nodes, the live cluster, with the node's Summary and configz through the API server's node
    proxy unless --stats and --kubelet-config give them (read only)."""
    if filesystems is not None and filesystems not in ("shared", "imagefs", "split"):
        raise typer.BadParameter(f"{filesystems!r}: one of shared, imagefs, split", param_hint="--filesystems")
    if (earlier_stats is None) != (earlier_at is None):
        raise typer.BadParameter("--earlier-stats and --earlier-at go together", param_hint="--earlier-stats")
    options = {"stats": stats, "kubelet_config": kubelet_config, "filesystems": filesystems,
               "earlier_stats": earlier_stats,
               "earlier_at": parse_time(earlier_at, "--earlier-at") if earlier_at else None, "admit": admit}
    return _run(ctx, "pressure", node, common, options)


@shared
def drain(
    ctx: typer.Context,
    node: str = NODE_ARGUMENT,
    ignore_daemonsets: bool = typer.Option(False, "--ignore-daemonsets", help="As kubectl drain's."),
    delete_emptydir_data: bool = typer.Option(False, "--delete-emptydir-data", help="As kubectl drain's."),
    force: bool = typer.Option(False, "--force", help="As kubectl drain's."),
    *,
    common: Common,
) -> ExitStatus:
    """`kubectl drain NODE` as kubectl and the API server decide it, as a dry run: the pods it
    deletes, skips or refuses, each eviction the Eviction API answers against the
    PodDisruptionBudgets, and where the evicted pods go. Without --nodes, the live cluster
    (read only: nothing is cordoned or evicted)."""
    options = {"ignore_daemonsets": ignore_daemonsets, "delete_emptydir_data": delete_emptydir_data, "force": force}
    return _run(ctx, "drain", node, common, options)


@shared
def taints(
    ctx: typer.Context,
    node: str = NODE_ARGUMENT,
    taint: List[str] = typer.Option([], "--taint", metavar="KEY[=VALUE]:NoExecute",
                                    help="A NoExecute taint to add to NODE first (what if: a node going NotReady "
                                         "or unreachable), or KEY[:EFFECT]- one to remove, as kubectl taint "
                                         "--overwrite changes the node (repeatable)."),
    *,
    common: Common,
) -> ExitStatus:
    """The taint eviction controller on NODE: the tolerations DefaultTolerationSeconds added,
    then per pod: evicted at once, after how many seconds, or never; the toleration change that
    keeps each, checked; where the evicted pods' replacements go. Without --nodes, the live
    cluster (read only: nothing is tainted or deleted)."""
    return _run(ctx, "taints", node, common, {"taints": tuple(taint)})


def typer_app() -> typer.Typer:
    """The `evict` group with its three subcommands."""
    group = typer.Typer(help=f"{HELP}\n\n{EXIT_HELP}", no_args_is_help=True, rich_markup_mode=None,
                        context_settings={"help_option_names": ["-h", "--help"]})
    for fn in (pressure, drain, taints):
        group.command(fn.__name__)(fn)
    return group
