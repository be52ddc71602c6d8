"""The command line: the typer app, its commands, and `main`, the one place that runs them.

A command parses its arguments, calls explain/lint/render with the `Environment` it is
handed (typer's context object), and returns its `ExitStatus`; it raises a `KexplainError`
for bad usage or bad input. `main` turns every ending into an exit code, without a
traceback: an error's one line, an interrupt, a closed pipe, or a kexplain bug.
"""
from __future__ import annotations

import copy
import importlib
import os
import sys
from contextlib import ExitStack, redirect_stderr, redirect_stdout
from typing import Iterable

import typer

try:
    from typer._click import ClickException   # typer 0.2x carries its own click
except ImportError:                           # pragma: no cover - older typer, on click
    from click import ClickException  # type: ignore[no-redef]

from kexplain.cli.env import Environment, env_of
from kexplain.cli.exit_codes import HELP as EXIT_HELP
from kexplain.cli.exit_codes import ExitStatus
from kexplain.cli.pipes import OutputClosed, guarded
from kexplain.errors import KexplainError
from kexplain.features import DEFAULT_MINOR, ENV_VAR, RELEASES, SUPPORTED

HELP = f"""Why didn't my pod schedule? Runs kube-scheduler's filter and score plugins over manifests and
explains every verdict, as Kubernetes {', '.join(SUPPORTED[:-1])} or {SUPPORTED[-1]} schedules (--kubernetes-version;
default {DEFAULT_MINOR}, kube-scheduler {RELEASES[DEFAULT_MINOR]}).

{EXIT_HELP}"""

BUG = "a kexplain bug, please report it; set KEXPLAIN_DEBUG=1 for a traceback"

# Each command (in the order help lists them) and the module whose `command` it is, imported
# when the command is run: a run imports the command it runs, not the others (the live client,
# the autoscalers, lint), so that a small explanation takes a small part of a second.
COMMANDS = {"explain": "kexplain.cli.explain", "pod": "kexplain.cli.live", "snapshot": "kexplain.cli.snapshot",
            "lint": "kexplain.cli.lint", "autoscale": "kexplain.cli.autoscale",
            "karpenter": "kexplain.cli.karpenter", "kueue": "kexplain.cli.kueue", "volcano": "kexplain.cli.volcano",
            "version": "", "cluster": "kexplain.cli.cluster",
            "evict": "kexplain.cli.evict"}   # (a group: typer lists groups after the commands)


# Each command's summary, the first paragraph of its help, as `kexplain --help` lists it without
# importing the command modules (`listing_app`; tests/cli/test_lazy_imports.py keeps them equal).
SUMMARIES = {
    "explain": "Explain where (and whether) the scheduler would place POD.",
    "pod": "Explain a pod of the live cluster (or, with --pending / -A, every pending pod).",
    "snapshot": "Save what kexplain reads from the cluster as one `kind: List`, to replay offline:\n"
                "kexplain POD.yaml --nodes FILE --stored.",
    "lint": "Lint manifests: validate every object against the Kubernetes JSON schemas and, with\n"
            "--nodes, run every Pod and workload pod template through the scheduler against the pool\n"
            "(each replica placed in turn; a DaemonSet's pod on each node it is eligible for).",
    "autoscale": "Explain one Cluster Autoscaler loop: which pending pods trigger a scale-up of which node\n"
                 "group, and why the others do not, events included, as the Cluster Autoscaler of\n"
                 "openshift/kubernetes-autoscaler 70920d3c6f5f (Kubernetes v1.36.2 vendored) decides.",
    "karpenter": "Explain one Karpenter provisioning pass over the pending pods (PODS' Pods as written, and\n"
                 "its workloads' copies the scheduler leaves pending): which of them Karpenter would place on an\n"
                 "existing node or in-flight NodeClaim, which NodeClaims it would create from which NodePool\n"
                 "with which instance types and prices, and why the other pods fail, events included, as\n"
                 "sigs.k8s.io/karpenter v1.13.0 with the AWS provider (openshift/aws-karpenter-provider-aws\n"
                 "abcf7d1e3417) decides.",
    "kueue": "Explain Kueue's admission: the Workload each submitted job becomes, then Kueue's\n"
             "scheduling cycles (flavor assignment, quota, cohort borrowing and lending, preemption,\n"
             "partial admission) and the workload controller's checks, with Kueue's own conditions,\n"
             "reasons, messages and events; per pending Workload the numbers behind the verdict and\n"
             "verified fixes.",
    "volcano": "Explain one scheduling session of Volcano's scheduler: per Volcano Job its tasks, pods and\n"
               "PodGroup's verdict (or the webhook's refusal), per PodGroup whether enqueue admits it, the gang's\n"
               "verdict and conditions, per pod the node it is bound to or why not, per queue its allocated, and\n"
               "the events, as Volcano v1.15.1 decides.",
    "cluster": "What in the cluster is held, and why: pending pods, queued work, budgets, drains, nodes kept,\n"
               "evictions coming; each row the single-object answer.",
    "evict": "Explain eviction: the kubelet's eviction manager under node pressure (pressure), `kubectl drain`\n"
             "with the Eviction API and the PodDisruptionBudgets (drain), the taint eviction controller's\n"
             "NoExecute taints (taints).",
}


def _app() -> typer.Typer:
    out = typer.Typer(add_completion=True, help=HELP, no_args_is_help=True, rich_markup_mode=None,
                      pretty_exceptions_enable=False, context_settings={"help_option_names": ["-h", "--help"]})
    out.callback()(_root)
    return out


def make_app(names: Iterable[str] = COMMANDS) -> typer.Typer:
    """The typer app with the commands `names` (default: all, as help lists them)."""
    out = _app()
    for name in COMMANDS:
        if name not in names:
            continue
        module = importlib.import_module(COMMANDS[name]) if COMMANDS[name] else None
        if module is not None and hasattr(module, "typer_app"):       # a group of subcommands (evict)
            out.add_typer(module.typer_app(), name=name)
        else:
            out.command(name)(module.command if module is not None else version_cmd)
    return out


def listing_app() -> typer.Typer:
    """The app `kexplain --help` (and `kexplain` alone) prints: every command listed by its
    summary (`SUMMARIES`), none of their modules imported."""
    out = _app()
    for name in COMMANDS:
        out.command(name, help=SUMMARIES.get(name))(version_cmd if name == "version" else _listed)
    return out


def _listed() -> None:
    """A command as the listing shows it (never run: a run builds the app of its command)."""


def version_text() -> str:
    """kexplain's version, then the Kubernetes versions it follows, each with its
    kube-scheduler release, which one is the default, and how a version is picked without the flag."""
    from importlib.metadata import version

    lines = [f"kexplain {version('kexplain')}",
             "Kubernetes versions it follows (--kubernetes-version X.Y), each verified against the",
             "conformance cases' traces of its own kube-scheduler:"]
    lines += [f"  {minor}  kube-scheduler {release}" + ("  (the default)" if minor == DEFAULT_MINOR else "")
              for minor, release in RELEASES.items()]
    lines += [f"Without --kubernetes-version: ${ENV_VAR}, else the cluster's own",
              "(live mode's /version, the version a snapshot recorded), else the default."]
    return "\n".join(lines)


def version_cmd(ctx: typer.Context) -> ExitStatus:
    """Print kexplain's version and the Kubernetes versions it follows (and the default)."""
    env_of(ctx).stdout.write(version_text() + "\n")
    return ExitStatus.SUCCESS


def _print_version(ctx: typer.Context, value: bool) -> None:
    if value:
        env_of(ctx).stdout.write(version_text() + "\n")
        raise typer.Exit()


def _root(
    version: bool = typer.Option(False, "--version", is_eager=True, callback=_print_version,
                                 help="Print the version and the Kubernetes versions followed (as `kexplain version`) "
                                      "and exit."),
) -> None:
    """Options of kexplain itself (before any command)."""


# Options of kexplain itself: `kexplain --version` is not `kexplain explain --version`.
ROOT_OPTIONS = ("-h", "--help", "--install-completion", "--show-completion", "--version")


def __getattr__(name: str) -> typer.Typer:
    """`app`: the typer app with every command (made when asked: `make_app`)."""
    if name == "app":
        return make_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def app_for(args: list[str]) -> typer.Typer:
    """The app to run `args` with: only the command they name; kexplain's help: every command
    listed, none imported (`listing_app`); another root option, shell completion: every command."""
    if any(k.endswith("_COMPLETE") for k in os.environ):
        return make_app()
    if args and args[0] in COMMANDS:
        return make_app((args[0],))
    if not args or args[0] in ("-h", "--help"):
        return listing_app()
    return make_app()


def main(argv: list[str] | None = None, env: Environment | None = None, *, prog_name: str = "kexplain") -> int:
    """Run kexplain with `argv` (default: the process's arguments) in `env` (default: the
    process's streams) and return its exit code. `kexplain POD ...` is `kexplain explain POD ...`:
    the default command needs no name."""
    env = Environment() if env is None else env
    env = copy.copy(env)               # the caller's own is not changed
    env.stdout = guarded(env.stdout)
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] not in COMMANDS and args[0] not in ROOT_OPTIONS:
        args.insert(0, "explain")
    try:
        with _streams(env):
            return _run(args, env, prog_name)
    except KexplainError as err:
        env.error(f"error: {err}")
        return err.exit_code
    except KeyboardInterrupt:
        return ExitStatus.INTERRUPTED
    except OutputClosed as closed:
        # `kexplain ... | head`: the reader left; say nothing more (`kexplain.cli.pipes`).
        _discard(env.stdout)
        return closed.exit_code
    except BrokenPipeError:     # a write that was not guarded: the verdict is not known
        _discard(env.stdout)
        return ExitStatus.CLOSED_PIPE
    except Exception as err:  # a bug of ours: one line, not a traceback (KEXPLAIN_DEBUG=1 shows it)
        if os.environ.get("KEXPLAIN_DEBUG"):
            raise
        env.error(f"kexplain: internal error: {type(err).__name__}: {err} ({BUG})")
        return ExitStatus.INTERNAL_ERROR


def _run(args: list[str], env: Environment, prog_name: str) -> int:
    """The app's own endings: a command's status, a usage error, help, --version, completion."""
    try:
        status = app_for(args)(args=args, prog_name=prog_name, obj=env, standalone_mode=False)
    except ClickException as err:
        err.show(file=env.stderr)
        return err.exit_code
    except typer.Abort:             # an aborted prompt (kexplain asks none): click's own ending
        env.error("Aborted!")
        return 1
    except SystemExit as end:       # shell completion; a closed pipe (typer's own handling)
        if end.code is None or isinstance(end.code, int):
            return end.code or 0
        env.error(str(end.code))
        return 1
    return int(status or 0)


def _streams(env: Environment) -> ExitStack:
    """What typer itself prints (help, usage errors, completion scripts) goes to `env`'s streams."""
    stack = ExitStack()
    if env.stdout is not sys.stdout:
        stack.enter_context(redirect_stdout(env.stdout))
    if env.stderr is not sys.stderr:
        stack.enter_context(redirect_stderr(env.stderr))
    return stack


def _discard(stream: object) -> None:
    """Later writes to a closed pipe (and the flush at exit) go nowhere instead of failing."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        pass


def kubectl_main(argv: list[str] | None = None, env: Environment | None = None) -> int:
    """`kubectl kexplain ...` (kubectl runs kubectl-kexplain from PATH): `kubectl kexplain NAME`
    explains the live pod NAME; a subcommand or a manifest file works as for `kexplain`."""
    return main(kubectl_args(list(sys.argv[1:] if argv is None else argv)), env, prog_name="kubectl kexplain")


def kubectl_args(args: list[str]) -> list[str]:
    """`pod` put in front unless the first argument that is not an option (or an option's
    value) is a subcommand or an existing file; options alone (`-A`, `--pending`) mean `pod`."""
    if not args or args[0] in ROOT_OPTIONS:
        return args
    takes_value = _options_with_values()
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            break
        if arg.startswith("-") and arg != "-":
            if "=" not in arg and arg in takes_value:
                i += 1
            i += 1
            continue
        if arg in COMMANDS or arg == "-" or os.path.exists(arg):
            return args
        break
    return ["pod", *args]


def _options_with_values() -> set[str]:
    """Every option name of every command that takes a value (not a flag)."""
    group = typer.main.get_command(make_app())
    out: set[str] = set()
    for cmd in getattr(group, "commands", {}).values():
        for param in cmd.params:
            if (getattr(param, "param_type_name", "") == "option" and not getattr(param, "is_flag", False)
                    and not getattr(param, "count", False)):
                out.update(param.opts)
    return out
