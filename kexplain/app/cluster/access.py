"""What each section of `kexplain cluster` reads of a live cluster, and the line a section says
when the API server refused one of those reads (403) or could not give it: such a section is
skipped, never answered from half a cluster, while the others go on (as `kexplain pod` answers
nothing of its own when a read of the scheduler's is refused)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Optional

from kexplain.load.live import KUEUE, RESOURCES

SCHEDULER = frozenset(r.plural for r in RESOURCES)      # what kexplain pod's run of the scheduler reads
CONTROLLERS = frozenset({"replicasets", "statefulsets", "replicationcontrollers"})
CA_GROUPS = frozenset({"configmaps", "machinedeployments", "machinesets", "machines"})   # where CA's groups are found
# By section: the RBAC resources (plural names) whose reads it needs. A section not named here needs
# the scheduler's reads: a report never answers from fewer reads than `kexplain pod`.
NEEDS: dict[str, frozenset[str]] = {
    "pending": SCHEDULER,
    "queued": SCHEDULER | {r.plural for r in KUEUE},       # one pass of Kueue over its objects and the cluster
    "budgets": frozenset({"pods", "poddisruptionbudgets"}) | CONTROLLERS,     # the disruption controller's
    "drains": frozenset({"pods", "nodes", "poddisruptionbudgets", "daemonsets"}) | CONTROLLERS,   # kubectl drain's
    "scaledown": SCHEDULER | CA_GROUPS | {"daemonsets"},
    "karpenter": SCHEDULER | {"nodepools", "nodeclaims", "ec2nodeclasses", "daemonsets"},
    "evictions": frozenset({"pods", "nodes"}),      # the kubelet's and the taint eviction controller's
}
# An autoscaler read that failed, by the start of its note (`autoscaler.cloudprovider.live.read_group_objects`,
# `cli.snapshot.autoscaler_reads`), and the resource it would have read.
UNREAD = {"CA's status": "configmaps", "Cluster API machinedeployments": "machinedeployments",
          "Cluster API machinesets": "machinesets", "Cluster API machines": "machines", "DaemonSets": "daemonsets"}


# A node's Summary or configz the node proxy refused (`load.live.ClusterReader.node_proxy`'s 403), as
# the evictions section's pressure part says it: the RBAC rule that grants the read, as a refused list is said.
NODE_PROXY = "nodes/proxy"
PROXY_REFUSED = 'forbidden (403): reading node '
NODE_PROXY_REFUSED = ("get nodes/proxy at the cluster scope (403): the node proxy was refused (deploy/rbac.yaml's "
                      "kexplain-node-stats grants it)")


@dataclass(frozen=True)
class Refused:
    """One read the live cluster did not give: the resource (its RBAC plural) and how it is said."""

    resource: str
    text: str


def refused_reads(refusals: Iterable[Any], unread: Iterable[str], proxied: Iterable[str] = ()) -> tuple[Refused, ...]:
    """The reads RBAC refused (`load.live.Refusal`s, each once, in order), the autoscalers'
    reads that failed (their notes) and a refused node proxy (`proxied`: the notes of
    `app.eviction.node_stats.read_node_stats`), as `Refused`."""
    out: list[Refused] = []
    if any(PROXY_REFUSED in note for note in proxied):
        out.append(Refused(NODE_PROXY, NODE_PROXY_REFUSED))
    for r in refusals:
        said = Refused(r.resource.plural, f"{r.verb} {r.resource.plural} {r.scope} (403)")
        if said not in out:
            out.append(said)
    for note in unread:
        plural = next((v for k, v in UNREAD.items() if note.startswith(k)), None)
        if plural is not None:
            out.append(Refused(plural, note))
    return tuple(out)


def refused_line(name: str, refused: tuple[Refused, ...], node_groups_given: bool = False) -> Optional[str]:
    """Why section `name` is skipped for the reads it needs that were not given, else None (CA's
    group reads are not needed when --node-groups FILE gives the groups)."""
    needs = NEEDS.get(name, SCHEDULER)
    if name == "scaledown" and node_groups_given:
        needs = needs - CA_GROUPS
    hit = [r.text for r in refused if r.resource in needs]
    if not hit:
        return None
    return f"not read from the cluster: {'; '.join(hit)}"


def unanswered(proxied: Iterable[str]) -> list[str]:
    """The notes of the node proxy's reads that failed other than by RBAC (a kubelet that did not
    answer: its node is named in the section, not explained)."""
    return [note for note in proxied if PROXY_REFUSED not in note]


def proxy_refused(refused: Iterable[Refused]) -> Optional[str]:
    """How the pressure part says a refused node proxy, else None."""
    hit = next((r.text for r in refused if r.resource == NODE_PROXY), None)
    return f"not read from the cluster: {hit}" if hit else None
