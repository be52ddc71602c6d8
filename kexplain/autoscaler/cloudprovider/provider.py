"""Which cloud provider CA runs with, and what the loop reads of it: its GPU label
(`CloudProvider.GPULabel()`, for --gpu-total, GPU readiness and scale-down's utilization).

`choose`: --cloud-provider, else what the groups' ids name, else the nodes' providerIDs, else
CA's test provider, each answer saying how it was found (docs/internals/autoscaler.md)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from kexplain.autoscaler.cloudprovider import aws, azure, clusterapi, gce


@dataclass(frozen=True)
class CloudProvider:
    """A provider as the loop reads it: CA's name for it and its GPU labels."""

    name: str                   # --cloud-provider's value ("test": CA's cloudprovider/test)
    gpu_label: str              # GPULabel()
    dra_gpu_label: str = ""     # a node with it "true" has its GPUs through DRA (gce only)


TEST = CloudProvider("test", "TestGPULabel/accelerator")
PROVIDERS: dict[str, CloudProvider] = {
    "aws": CloudProvider("aws", aws.GPU_LABEL),
    "gce": CloudProvider("gce", gce.GPU_LABEL, gce.DRA_GPU_LABEL),
    "azure": CloudProvider("azure", azure.GPU_LABEL),
    "clusterapi": CloudProvider("clusterapi", clusterapi.GPU_LABEL),
}
FLAG = "cloud-provider"
# providerID scheme -> provider (the providers' ProviderIdPrefix / ref parsing)
SCHEMES = {"aws://": "aws", gce.PROVIDER_ID_PREFIX: "gce", "azure://": "azure"}


@dataclass(frozen=True)
class Chosen:
    """The provider followed, how kexplain knows it (in words), and `notes`: nodes and
    templates that carry another provider's GPU label and not this one's (no GPU nodes to CA)."""

    provider: CloudProvider = TEST
    why: str = "nothing names another provider, as in the shared cases"
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The document's `autoscaler.cloudProvider` (kexplain's key)."""
        return {"name": self.provider.name, "gpuLabel": self.provider.gpu_label, "from": self.why,
                "notes": list(self.notes)}


def unknown_name(name: str) -> str | None:
    """What is wrong with `name` as --cloud-provider's value for kexplain, None when it is fine."""
    if name in PROVIDERS:
        return None
    return f"kexplain applies the providers {', '.join(PROVIDERS)} (CA's names), not {name!r}"


def choose(flag: str | None, groups: Mapping[str, Mapping[str, Any] | None], cluster_api: bool,
           nodes: Sequence[Mapping[str, Any]]) -> Chosen:
    """The provider followed: `flag` (--cloud-provider, checked by `unknown_name`), else the one the group
    ids (`groups`, Cluster API's with `cluster_api`) name, else the nodes' providerIDs, else the test
    provider; several named at one step: the next step decides."""
    chosen = _choose(flag, list(groups), cluster_api, nodes)
    notes = label_notes(chosen, groups, nodes)
    return Chosen(chosen.provider, chosen.why, tuple(notes)) if notes else chosen


def _choose(flag: str | None, groups: Sequence[str], cluster_api: bool, nodes: Sequence[Mapping[str, Any]]) -> Chosen:
    if flag:
        return Chosen(PROVIDERS[flag], f"--cloud-provider={flag} in --autoscaler-config")
    if cluster_api:
        return Chosen(PROVIDERS["clusterapi"], "the node groups are Cluster API MachineDeployments and MachineSets")
    by_id = {name for g in groups if (name := _named_by_id(g))}
    if len(by_id) == 1:
        (name,) = by_id
        return Chosen(PROVIDERS[name], f"the node groups' ids are {ID_WORDS[name]}")
    by_node = {SCHEMES[s] for n in nodes for s in SCHEMES if _provider_id(n).startswith(s)}
    if len(by_node) == 1:
        (name,) = by_node
        return Chosen(PROVIDERS[name], f"the nodes' providerIDs are {name}'s ({_scheme(name)}...)")
    seen = sorted(by_id | by_node)
    if seen:
        return Chosen(TEST, f"the node groups and nodes name several providers ({', '.join(seen)}): give {FLAG} in "
                            "--autoscaler-config")
    return Chosen()


def label_notes(chosen: Chosen, templates: Mapping[str, Mapping[str, Any] | None],
                nodes: Sequence[Mapping[str, Any]]) -> list[str]:
    """For each other provider's GPU label that templates (`templates`: group -> template Node)
    or nodes carry without the followed provider's: the note that CA does not read it."""
    others = other_gpu_labels(chosen.provider)
    carriers: dict[str, list[str]] = {}
    for where, node in [*((f"node group {g}'s template", t) for g, t in templates.items() if t is not None),
                        *((f"node {(n.get('metadata') or {}).get('name')}", n) for n in nodes)]:
        labels = (node.get("metadata") or {}).get("labels") or {}
        if chosen.provider.gpu_label in labels:
            continue
        for label in others:
            if label in labels:
                carriers.setdefault(label, []).append(where)
    out = []
    for label, where in carriers.items():
        shown = ", ".join(where[:3]) + (f" and {len(where) - 3} more" if len(where) > 3 else "")
        name = others[label]
        hint = (f"; give {FLAG}: {name} in --autoscaler-config if CA runs on {name}" if name in PROVIDERS else "")
        out.append(f"{shown} carr{'y' if len(where) > 1 else 'ies'} {label}, {_called(name)}'s GPU label, which "
                   f"{_called(chosen.provider.name)} (followed: {chosen.why}) does not read: --gpu-total, GPU "
                   f"readiness and GPU utilization ignore it{hint}")
    return out


def _called(name: str) -> str:
    return "CA's test provider" if name == TEST.name else name


ID_WORDS = {"gce": "MIG URLs", "aws": "EKS managed node groups' ASG names",
            "azure": "AKS agent pools' scale set names"}


def _named_by_id(group: str) -> str:
    last = group.rstrip("/").rsplit("/", 1)[-1]
    if gce.parse_mig_url(group) is not None:
        return "gce"
    if aws.managed_node_group(last):
        return "aws"
    if azure.agent_pool(last):
        return "azure"
    return ""


def _provider_id(node: Mapping[str, Any]) -> str:
    found = (node.get("spec") or {}).get("providerID")
    return found if isinstance(found, str) else ""


def _scheme(name: str) -> str:
    return next(s for s, n in SCHEMES.items() if n == name)


def other_gpu_labels(provider: CloudProvider) -> dict[str, str]:
    """The GPU labels of the providers other than `provider`, label -> provider name."""
    out = {p.gpu_label: p.name for p in (TEST, *PROVIDERS.values()) if p != provider}
    return out
