"""`kexplain lint PATH... [--nodes POOL...]`: schema-valid and schedulable manifests, for CI."""
from __future__ import annotations

import os
from enum import Enum
from typing import Callable, List, Optional

import typer

from kexplain.admission.openapi import normalize_version
from kexplain.app.autoscalers import adapter
from kexplain.cli.env import Environment, env_of
from kexplain.cli.exit_codes import ExitStatus, aggregate
from kexplain.cli.options import autoscaler_config_option, node_groups_option
from kexplain.cli.options import (MAX_INPUT_SIZE_OPTION, NAMESPACE_OPTION, VALIDATE_OPTION, kueue_config_option,
                                  kueue_version_option)
from kexplain.cli.output import save_page
from kexplain.cli.pipes import verdict_known
from kexplain.cli.versions import (compared_versions, feature_gates_option, settle, version_choice,
                                   version_option, admission_plugins_option)
from kexplain.errors import KexplainError
from kexplain.explain.request import VersionChoice
from kexplain.features import DEFAULT as DEFAULT_VERSION, RELEASES, KubeVersion
from kexplain.kueue.config_file import read_kueue_config
from kexplain.lint.choice import CONFIG_FILE, admission_plugins, choice_of, find_config, read_config
from kexplain.lint.linter import FAIL_ON, RULES, LintOptions, Report, default_suggester, lint
from kexplain.lint.rule import RuleChoice
from kexplain.lint.versions import lint_compared
from kexplain.render.lint_formats import RenderOptions, formats_for, print_text, render, render_rules
from kexplain.render.live import scheduling_bar

HELP = f"""Lint manifests: validate every object against the Kubernetes JSON schemas and, with
--nodes, run every Pod and workload pod template through the scheduler against the pool
(each replica placed in turn; a DaemonSet's pod on each node it is eligible for).

PATH is a file, a directory (walked recursively: *.yaml, *.yml, *.json) or '-' for stdin,
e.g. `helm template . | kexplain lint - --nodes pool.yaml`. The PATHs are one apply, as
`kubectl apply -f PATH...` (and `kexplain DIR`) take them: an object finds what another file
creates (a ResourceClaimTemplate, a PriorityClass, a PVC), their pods take room from each
other, an object given twice alike is one object, and given twice differently the later
manifest patches the first, as `kubectl apply` applies them in order: its contents win, the
object is scheduled at the first's place (it was created there) and its findings are reported
at the later document. Lint files apart by running lint once per file.

Fields a schema does not define are errors, as kubectl's default strict field validation
makes them (`strict decoding error: unknown field "spec.x"`); --validate=warn makes them
warnings, --validate=ignore does not look for them.

Rules: --list-rules lists them (id, severity, what each needs, summary); --disable RULE and
--enable RULE choose them, as does .kexplain-lint.yaml (keys enable, disable, severity; the
nearest from PATH up to the repository's root, or --lint-config FILE). The annotation
lint.kexplain.io/ignore: "RULE[, RULE]: reason" on an object suppresses those rules' findings on
it (kept, marked suppressed, not counted for --fail-on); one that suppresses nothing is an
unused-suppression warning.

Formats (-o/--output FORMAT, as every command's -o): text (default), json, junit, sarif, github
(workflow annotations; the default when GITHUB_ACTIONS=true). -o may be repeated; the n-th
--output-file FILE receives the n-th -o, and a format without an --output-file goes to stdout.

Exit codes: {ExitStatus.SUCCESS:d} no finding at or above --fail-on; {ExitStatus.FINDINGS:d} findings at or above
--fail-on (default: error); {ExitStatus.BAD_INPUT:d} bad usage or unreadable input (a manifest, the pool,
the config, the lint config file or the schemas; an unknown rule id); {ExitStatus.INTERNAL_ERROR:d} internal error (a kexplain bug: please report it)."""


COMPARE_VERSIONS_OPTION = typer.Option(
    None, "--compare-versions", metavar="A,B",
    help="Check against B and flag every Pod and workload scheduled differently under A (version-change).")
K8S_VERSION_OPTION = typer.Option(None, "--k8s-version", metavar="X.Y",
                                  help="Deprecated: --kubernetes-version (a minor that option does not take chooses "
                                       "the schemas only).")
SCHEMAS_OPTION = typer.Option([], "--schemas", metavar="DIR",
                              help="Schemas of custom resources: CRD manifests or JSON schemas (repeatable).")
LIST_RULES_OPTION = typer.Option(False, "--list-rules",
                                 help="List the rules (id, severity, needs, summary; -o json) and exit.")
ENABLE_OPTION = typer.Option([], "--enable", metavar="RULE",
                             help="Report this rule, which the lint config file disables (repeatable).")
DISABLE_OPTION = typer.Option([], "--disable", metavar="RULE", help="Do not report this rule (repeatable).")
LINT_CONFIG_OPTION = typer.Option(None, "--lint-config", metavar="FILE",
                                  help=f"The rules' config file (default: the nearest {CONFIG_FILE} from PATH up "
                                       "to the repository's root).")


class Format(str, Enum):
    text = "text"
    json = "json"
    junit = "junit"
    sarif = "sarif"
    github = "github"


def _formats_value(values: List[str]) -> List[str]:
    """-o's formats, each one of lint's; a file name there (the old `--output FILE`) is bad usage
    that says where the file goes now."""
    known = [f.value for f in Format]
    for value in values:
        if value not in known:
            raise typer.BadParameter(f"{value!r} is not one of {', '.join(repr(k) for k in known)} (the report's "
                                     "file is --output-file FILE)")
    return values


OUTPUT_OPTION = typer.Option([], "-o", "--output", metavar="FORMAT", callback=_formats_value,
                             help="text, json, junit, sarif or github (repeatable).")
FORMAT_OPTION = typer.Option([], "--format", "-f", metavar="FORMAT",
                             help="Deprecated: -o/--output FORMAT.")
OUTPUT_FILE_OPTION = typer.Option([], "--output-file", metavar="FILE",
                                  help="File for the matching -o ('-': stdout; repeatable).")


class FailOn(str, Enum):
    error = "error"
    warning = "warning"
    info = "info"
    never = "never"


def command(
    ctx: typer.Context,
    paths: List[str] = typer.Argument(None, metavar="PATH", help="Manifests: files, directories or '-'.",
                                      show_default=False),
    nodes: List[str] = typer.Option([], "--nodes", metavar="POOL",
                                    help="The node pool: Nodes, bound Pods, PVCs, PVs, ... (repeatable)."),
    node_groups: Optional[str] = node_groups_option(
        "a Pod or workload no group could take is a finding (no-node-group)."),
    autoscaler_config: Optional[str] = autoscaler_config_option(),
    kubernetes_version: Optional[str] = version_option("the version a snapshot in --nodes recorded"),
    feature_gates: Optional[str] = feature_gates_option(),
    admission_plugins: Optional[str] = admission_plugins_option(),
    kueue_version: Optional[str] = kueue_version_option(),
    kueue_config: Optional[str] = kueue_config_option(),
    compare_versions: Optional[str] = COMPARE_VERSIONS_OPTION,
    k8s_version: Optional[str] = K8S_VERSION_OPTION,
    validate: str = VALIDATE_OPTION,
    namespace: Optional[str] = NAMESPACE_OPTION,
    strict: bool = typer.Option(False, "--strict", help="Deprecated: --validate=strict, the default."),
    schemas: List[str] = SCHEMAS_OPTION,
    config: Optional[str] = typer.Option(None, "--config", metavar="FILE",
                                         help="KubeSchedulerConfiguration for the scheduling check."),
    stored: bool = typer.Option(False, "--stored",
                                help="The pool was read from an API server: skip its admission steps."),
    preemption: bool = typer.Option(True, "--preemption/--no-preemption",
                                    help="Run the DefaultPreemption dry run for pods that do not fit."),
    formats: List[str] = OUTPUT_OPTION,
    old_formats: List[Format] = FORMAT_OPTION,
    outputs: List[str] = OUTPUT_FILE_OPTION,
    fail_on: FailOn = typer.Option(FailOn.error, "--fail-on", metavar="SEVERITY",
                                   help="Exit 1 when a finding is at least this severe: error, warning, "
                                        "info or never."),
    verbose: bool = typer.Option(False, "--verbose", "-v",
                                 help="Also show info findings (objects that fit, kinds without schema)."),
    max_input_size: int = MAX_INPUT_SIZE_OPTION,
    html: Optional[str] = typer.Option(None, "--html", metavar="FILE",
                                       help="Also write the findings, with each scheduled pod's explanation, as a "
                                            "self-contained interactive page."),
    list_rules: bool = LIST_RULES_OPTION,
    enable: List[str] = ENABLE_OPTION,
    disable: List[str] = DISABLE_OPTION,
    lint_config: Optional[str] = LINT_CONFIG_OPTION,
) -> ExitStatus:
    env = env_of(ctx)
    formats = _formats(env, formats, old_formats)
    rule_choice, admission = _rule_choice(paths or [], lint_config, enable, disable, max_input_size)
    if list_rules or not paths:
        return _list_rules(env, formats, rule_choice, list_rules)
    if strict:
        if validate != "strict":
            raise KexplainError(f"--strict (deprecated: --validate=strict) contradicts --validate={validate}")
        env.error("warning: --strict is deprecated: unknown fields are errors by default (--validate=strict)")
    chosen, targets = _outputs(formats, outputs)
    _check_node_groups(nodes, node_groups, autoscaler_config)
    choice = version_choice(env, kubernetes_version, feature_gates, admission_plugins, admission)
    choice, schemas_only = _deprecated_version(env, k8s_version, choice) if k8s_version is not None else (choice, None)
    before, kube, follow = _versions(env, choice, nodes, compare_versions, kubernetes_version or k8s_version,
                                     feature_gates, schemas_only)
    kueue_objects = tuple(read_kueue_config(kueue_config, max_input_size))
    options = LintOptions(paths=tuple(paths), node_paths=tuple(nodes), kube=kube, version=follow,
                          k8s_version=schemas_only, kueue_version=kueue_version, kueue_config=kueue_objects,
                          validate=validate, schema_dirs=tuple(schemas), config_path=config, stored=stored,
                          preemption=preemption, max_bytes=max_input_size, explain=html is not None,
                          node_groups=node_groups, autoscaler_config=autoscaler_config, namespace=namespace,
                          kueue_provisioner=_kueue_provisioner(env, node_groups, autoscaler_config, max_input_size,
                                                               validate), rules=rule_choice)
    with scheduling_bar(env.stderr, color=bool(env.color), enabled=bool(env.stderr_is_terminal and nodes)) as bar:
        if before is None:
            report = lint(options, env.stdin, suggester=default_suggester(), freeze_pool=True, progress=bar.update)
        else:
            report = lint_compared(options, before, env.stdin, default_suggester(), freeze_pool=True,
                                   progress=bar.update)
    render_options = RenderOptions(verbose=verbose, fail_on=FAIL_ON[fail_on.value])
    outcomes = _outcomes(report, render_options)
    with verdict_known(aggregate(outcomes)):     # the report is complete: only its telling is cut short
        _write_report(env, report, render_options, chosen, targets)
    if html:
        save_page(html, {**report.to_json(), "explanations": report.explanations})
    return aggregate(outcomes)


def _formats(env: Environment, formats: List[str], old_formats: List[Format]) -> List[str]:
    """The formats of -o; the deprecated --format/-f's, with a warning, when -o gives none (given
    both, which file goes with which is unknown: bad usage)."""
    if not old_formats:
        return formats
    if formats:
        raise KexplainError("-o/--output and --format (deprecated) both give formats: give -o/--output only")
    env.error("warning: --format/-f is deprecated: use -o/--output FORMAT, as every command takes it")
    return [f.value for f in old_formats]


def _list_rules(env: Environment, formats: List[str], choice: RuleChoice, asked: bool) -> ExitStatus:
    """`--list-rules`: the rules, as the choice leaves them (text, or -o json); without it and
    without a PATH, bad usage."""
    if not asked:
        raise KexplainError("missing PATH: the manifests to lint (files, directories or '-'), or --list-rules")
    env.stdout.write(render_rules(RULES.values(), formats[0] if formats else "text", choice))
    return ExitStatus.SUCCESS


def _rule_choice(paths: List[str], lint_config: Optional[str], enable: List[str], disable: List[str],
                 max_bytes: int) -> tuple[RuleChoice, Optional[tuple[str, str]]]:
    """The rules reported: the config file's choice (--lint-config, else the nearest one), then
    --enable and --disable over it; an unknown rule id or a malformed file is bad usage. With it,
    the file's `admissionPlugins` (the target cluster's API server), if it says them."""
    path = lint_config or find_config(paths)
    config = read_config(path, max_bytes) if path else {}
    return choice_of(config, enable, disable, source=path), admission_plugins(config, path)


def _kueue_provisioner(env: Environment, node_groups: Optional[str], autoscaler_config: Optional[str],
                       max_bytes: int, validate: str) -> Optional[Callable[[list], object]]:
    """With --node-groups, the Cluster Autoscaler answers the ProvisioningRequests of lint's Kueue pass,
    as it does for `kexplain POD --node-groups` (its adapter imported only when Kueue asks)."""
    if node_groups is None:
        return None

    def provisioner(cluster: list) -> object:
        ca = adapter("cluster-autoscaler")
        return ca.kueue_provisioner(ca.read_node_groups(node_groups, max_bytes), autoscaler_config, max_bytes,
                                    validate, cluster, say=lambda note: env.error(f"note: {note}"))
    return provisioner


def _outcomes(report: Report, render_options: RenderOptions) -> list[ExitStatus]:
    """2 when some input could not be read, 1 when a finding is at least --fail-on."""
    outcomes = [ExitStatus.BAD_INPUT] if report.unreadable else []
    if report.failed(render_options.fail_on):
        outcomes.append(ExitStatus.FINDINGS)
    return outcomes


def _outputs(formats: List[str], outputs: List[str]) -> tuple[list[str], list[str]]:
    """The formats chosen (GitHub's by default in a workflow) and where each goes."""
    chosen = formats_for(formats, dict(os.environ))
    if len(outputs) > len(chosen):
        raise KexplainError("more --output-file files than -o formats (each --output-file belongs to one -o)")
    targets = [outputs[i] if i < len(outputs) else "-" for i in range(len(chosen))]
    if targets.count("-") > 1:
        raise KexplainError("only one format can go to stdout: give the others an --output-file FILE")
    return chosen, targets


def _check_node_groups(nodes: List[str], node_groups: Optional[str], autoscaler_config: Optional[str]) -> None:
    """--node-groups checks the scheduling against the pool, read a second time: --nodes as files."""
    if node_groups is not None and not nodes:
        raise KexplainError("--node-groups checks the scheduling against the pool: give the pool with --nodes")
    if node_groups is not None and "-" in nodes:
        raise KexplainError("--node-groups reads the pool of --nodes a second time: give --nodes as a file, not '-'")
    if autoscaler_config is not None and node_groups is None:
        raise KexplainError("--autoscaler-config needs --node-groups FILE (the Cluster Autoscaler's node groups)")


def _versions(env: Environment, choice: VersionChoice, nodes: List[str], compare_versions: Optional[str],
              flag: Optional[str], feature_gates: Optional[str], schemas_only: Optional[str]
              ) -> tuple[Optional[KubeVersion], KubeVersion, Optional[VersionChoice]]:
    """The version compared against (`--compare-versions A,B`: A), the one checked, and the
    choice still to settle once the pool is read (a snapshot may have recorded its version)."""
    if compare_versions is not None:
        if not nodes:
            raise KexplainError("--compare-versions compares the scheduling: give the pool with --nodes")
        kubes = compared_versions(env, compare_versions, flag, feature_gates, choice.admission_plugins)
        if len(kubes) != 2:
            raise KexplainError(f"--compare-versions {compare_versions!r}: lint compares two versions, A,B: it checks "
                                "against B and flags what is scheduled differently under A")
        return kubes[0], kubes[1], None
    if choice.given or not nodes or schemas_only:
        return None, settle(env, choice), None
    # the pool may be a snapshot that recorded its cluster's version: settled once it is read
    return None, DEFAULT_VERSION, choice


def _write_report(env: Environment, report: Report, render_options: RenderOptions, chosen: list[str],
                  targets: list[str]) -> None:
    """The report in each format chosen, to stdout (`-`) or its file."""
    for fmt, target in zip(chosen, targets):
        if target == "-" and fmt == "text":
            print_text(report, env.console(), render_options)
            continue
        text = render(fmt, report, render_options)
        if target == "-":
            env.stdout.write(text)
            continue
        try:
            with open(target, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as err:
            raise KexplainError(f"{target}: cannot write: {err.strerror or err}") from None


def _deprecated_version(env: Environment, value: str, choice: VersionChoice) -> tuple[VersionChoice, Optional[str]]:
    """`--k8s-version X.Y`, deprecated: --kubernetes-version X.Y for a minor that flag takes;
    for another one (an older cluster's schemas), the schemas' version alone, as before."""
    minor = normalize_version(value)       # its own error for text that is no version
    if choice.given is not None and minor != choice.given:
        raise KexplainError(f"--k8s-version {value} (deprecated) contradicts the version given "
                            f"({choice.given}): give --kubernetes-version only")
    if minor in RELEASES:
        env.error("warning: --k8s-version is deprecated: use --kubernetes-version (the schemas and the scheduling "
                  "check both follow it)")
        return VersionChoice(minor, choice.feature_gates, choice.admission_plugins), None
    env.error(f"warning: --k8s-version is deprecated: Kubernetes {minor}'s schemas are used, and the scheduling "
              f"check follows {settle(env, choice).minor} (--kubernetes-version takes {', '.join(RELEASES)})")
    return choice, minor


command.__doc__ = HELP
