"""Options several commands share, one definition each: `--validate` and `-n` (every command
that reads manifest files), Karpenter's (`kexplain POD`, `kexplain pod`, `kexplain
karpenter`), Kueue's `--kueue-version` (`kexplain POD`, `kexplain pod`, `kexplain kueue`), and
the checks of the Cluster Autoscaler's options before anything is read."""
from __future__ import annotations

from datetime import datetime, timezone
from enum import Enum
from typing import Any, Optional

import typer

from kexplain.admission.openapi import parse_validate
from kexplain.apimachinery.names import is_dns1123_label
from kexplain.errors import KexplainError
from kexplain.kueue import versions
from kexplain.load.limits import DEFAULT_MAX_BYTES, DEFAULT_MAX_OBJECTS

MAX_INPUT_SIZE_OPTION = typer.Option(DEFAULT_MAX_BYTES, "--max-input-size", metavar="BYTES",
                                     help="Refuse inputs larger than this.")


def max_objects_option(per: str = "per input") -> Any:
    return typer.Option(DEFAULT_MAX_OBJECTS, "--max-objects", min=1, metavar="N",
                        help=f"Refuse inputs of more objects than this ({per}).")


class Output(str, Enum):
    """-o of the commands with one table view (autoscale, karpenter, kueue)."""

    table = "table"
    json = "json"
    yaml = "yaml"


OUTPUT_OPTION = typer.Option(Output.table, "-o", "--output", help="table, json or yaml.")

VALIDATE_HELP = ("kubectl's --validate: strict (or true; the default): fields a schema does not define are "
                 "errors, as the API server refuses them; warn: warnings; ignore (or false): not looked for.")


def _validate_value(value: str) -> str:
    try:
        return parse_validate(value)
    except KexplainError as err:
        raise typer.BadParameter(err.message) from None


VALIDATE_OPTION = typer.Option("strict", "--validate", metavar="MODE", callback=_validate_value, help=VALIDATE_HELP)

NAMESPACE_HELP = ("As `kubectl apply -n NS -f`: the manifests' namespaced objects without a namespace go in NS; one "
                  "of another namespace is refused, as kubectl refuses it (the cluster's objects are not changed).")


def _namespace_value(value: Optional[str]) -> Optional[str]:
    """A namespace name (a DNS label), or a one-line refusal."""
    if value is None:
        return None
    problems = is_dns1123_label(value)
    if problems:
        raise typer.BadParameter(f"{value!r} is no namespace name: {problems[0]}")
    return value


# -n/--namespace of every command that reads manifest files (explain, lint, autoscale, karpenter).
NAMESPACE_OPTION = typer.Option(None, "-n", "--namespace", metavar="NAMESPACE", callback=_namespace_value,
                                help=NAMESPACE_HELP)


KUEUE_VERSION_HELP = ("The Kueue release whose decisions to follow: 0.17 (v0.17.8, the default) or 0.19 "
                      "(v0.19.2).")


def _kueue_version_value(value: Optional[str]) -> Optional[str]:
    """A Kueue release kexplain follows (`kexplain.kueue.versions.resolve`), checked before
    anything is read; a one-line error naming the supported ones otherwise (exit 2)."""
    if value is not None:
        versions.resolve(value)
    return value


def kueue_version_option() -> Any:
    return typer.Option(None, "--kueue-version", metavar="X.Y", callback=_kueue_version_value,
                        help=KUEUE_VERSION_HELP)


def kueue_config_option() -> Any:
    return typer.Option(None, "--kueue-config", metavar="FILE",
                        help="Kueue's own Configuration (config.kueue.x-k8s.io/v1beta1 or v1beta2, the kueue-manager's "
                             "controller_manager_config.yaml), read as Kueue's config loader reads it: its fairSharing, "
                             "integrations, manageJobsWithoutQueueName, managedJobsNamespaceSelector, "
                             "waitForPodsReady and resources are followed.")


def node_groups_option(what: str) -> Any:
    """--node-groups FILE: the Cluster Autoscaler's node groups (NodeGroupList); `what` says what each
    command does with them."""
    return typer.Option(None, "--node-groups", metavar="FILE", help=f"The Cluster Autoscaler's node groups "
                        f"(NodeGroupList): {what}")


def autoscaler_config_option(what: str = "CA settings for the node groups (expander, limits, any CA flag by "
                                          "name).") -> Any:
    return typer.Option(None, "--autoscaler-config", metavar="FILE", help=what)


def aws_data_option() -> Any:
    return typer.Option(None, "--aws-data", metavar="DIR",
                        help="The EC2 world Karpenter's AWS provider sees: describe-instance-types.json, "
                             "describe-instance-type-offerings.json, describe-subnets.json (AWS CLI output), "
                             "world.json, pricing.json, ... (default: the catalog kexplain ships).")


def karpenter_config_option() -> Any:
    return typer.Option(None, "--karpenter-config", metavar="FILE",
                        help="Karpenter's settings: featureGates, preferencePolicy, minValuesPolicy, cpuRequests, "
                             "vmMemoryOverheadPercent, reservedENIs, instanceTypes, zones, unavailableOfferings.")


def node_pool_option(what: str) -> Any:
    return typer.Option(None, "--nodepool", metavar="NAME", help=what)


EXPLAIN_NODEPOOL_HELP = ("Show one Karpenter NodePool's full verdict for the pending pods (needs NodePools among "
                         "the --nodes objects): every taint, requirement, instance type, offering and limit in the "
                         "way.")


def check_groups_options(node_groups: Optional[str], autoscaler_config: Optional[str], node: Optional[str],
                         node_group: Optional[str], node_paths: tuple = (), discovering: bool = False) -> None:
    """--autoscaler-config and --node-group need --node-groups (unless the groups may be found
    in the cluster: `discovering`, checked once read); --node-group and --node are two views of
    one verdict: one of them."""
    if node_groups is None and not discovering:
        for flag, given in (("--autoscaler-config", autoscaler_config), ("--node-group", node_group)):
            if given is not None:
                raise KexplainError(f"{flag} needs --node-groups FILE (the Cluster Autoscaler's node groups)")
    if node is not None and node_group is not None:
        raise KexplainError("--node and --node-group each show one verdict: give one of them")
    if node_groups is not None and "-" in node_paths:
        raise KexplainError("--node-groups reads the cluster of --nodes a second time: give --nodes as a file, "
                            "not '-'")


# The node's kubelet documents: `kexplain evict pressure`, and `kexplain POD` / `kexplain pod` on a
# pod the kubelet evicted (its node's ranking now).
STATS_HELP = ("The node's stats Summary, as `kubectl get --raw /api/v1/nodes/NODE/proxy/stats/summary` writes it.")
KUBELET_CONFIG_HELP = ("The kubelet's KubeletConfiguration (kubelet.config.k8s.io/v1beta1) or its /configz answer "
                       "(default: the kubelet's defaults).")


EVICTED_STATS_HELP = (" For a pod the kubelet evicted under node pressure: its node's ranking now, with its "
                      "place or its replacement's (live: read through the node proxy unless given).")


def stats_option(more: str = "") -> Any:
    return typer.Option(None, "--stats", metavar="FILE", help=f"{STATS_HELP}{more}")


def kubelet_config_option(what: str = KUBELET_CONFIG_HELP) -> Any:
    return typer.Option(None, "--kubelet-config", metavar="FILE", help=what)


def parse_now(text: Optional[str], option: str = "--now") -> datetime:
    """An RFC 3339 time for `option` (the current time, to the second, when not given)."""
    if not text:
        return datetime.now(timezone.utc).replace(microsecond=0)
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise KexplainError(f"{option} {text}: not an RFC 3339 time (e.g. 2026-01-01T00:00:00Z)") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)
