"""Benchmark `kexplain autoscale` at cluster scale (issue 34's target).

On the 5,000-node snapshot of `generate.py` (about 150,000 bound pods), every node is put in one
of 30 node groups by an `eks.amazonaws.com/nodegroup` label (zone x instance type x pool for the
plain nodes, zone x instance type for the `dedicated=batch` ones, zone for the GPU-tainted ones),
as a managed node group labels its instances; 500 pending pods of 20 shapes (`live_standin.py`'s:
some fit existing room, some need a new node, some no group can take) are handed to

    kexplain autoscale pods.yaml --nodes cluster.json --node-groups nodegroups.yaml -o json

and its wall time is compared with the standard library's `json.load` of the same cluster file
(the median of alternating pairs, `load_bench.ratio_row`); target at most 1.5x (issue 40; issue
34's was 3x), peak RSS at most 1.5 GB.

    .venv/bin/python benchmarks/autoscale_bench.py [--dir /tmp/kexplain-bench] [--nodes 5000] [--pairs 3]
        [--pending 500] [--shapes 20] [--cluster-shape generated|plain]

`--cluster-shape plain` runs it on `plain_list.py --stored`'s cluster instead (issue 55: a plain
JSON List of lean pods, no uids or owners; its nodes in 30 groups by index), e.g. with
`--shapes 25`.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHMARKS))

import autoscaler_case  # noqa: E402
from autoscaler_case import yaml_text  # noqa: E402
from live_standin import pending_pods  # noqa: E402
from load_bench import KEXPLAIN  # noqa: E402

GROUP_LABEL = "eks.amazonaws.com/nodegroup"
PLAIN_GROUPS = 30       # `plain_list.py`'s nodes (a zone and a size each): by index, modulo this
TARGET = 1.5            # x json.load of the snapshot (issue 40; issue 34: 3x)
HEADROOM = 20           # a group's max size: its members plus this many (some groups: none)

Obj = dict[str, Any]


def group_of(node: Obj) -> str:
    """The node group a generated node belongs to, from its labels and taints; a node of
    `plain_list.py` (no instance type, pool or taints) by its index modulo `PLAIN_GROUPS`
    (which fixes its zone and size too)."""
    labels = node["metadata"]["labels"]
    if "node.kubernetes.io/instance-type" not in labels:
        return f"plain-{int(node['metadata']['name'].rsplit('-', 1)[1]) % PLAIN_GROUPS:02d}"
    zone = labels["topology.kubernetes.io/zone"].removeprefix("us-east-")
    itype = labels["node.kubernetes.io/instance-type"].replace(".", "-")
    taints = {t["key"] for t in node["spec"].get("taints") or ()}
    if "nvidia.com/gpu" in taints:
        return f"gpu-{zone}"
    if "dedicated" in taints:
        return f"batch-{itype}-{zone}"
    return f"{labels['pool']}-{itype}-{zone}"


def node_groups(nodes: list[Obj]) -> list[Obj]:
    """The groups of `nodes` (labelled in place), in order of first member; every fifth group
    has no room left to grow (max size = members)."""
    members: dict[str, int] = {}
    for node in nodes:
        name = group_of(node)
        node["metadata"]["labels"][GROUP_LABEL] = name
        members[name] = members.get(name, 0) + 1
    return [{"name": name, "minSize": 0, "maxSize": count + (0 if i % 5 == 4 else HEADROOM),
             "nodeSelector": {GROUP_LABEL: name}}
            for i, (name, count) in enumerate(members.items())]


def write_case(snapshot_dir: Path, pending: int, shapes: int) -> Path:
    """cluster.json (nodes labelled by group), nodegroups.yaml and pods.yaml under
    `snapshot_dir/autoscale`, kept when newer than the snapshot."""
    def build(doc: Obj) -> dict[str, str]:
        groups = node_groups([o for o in doc["items"] if o.get("kind") == "Node"])
        pods = pending_pods(pending, shapes)
        for pod in pods:
            pod.pop("status", None)
        return {"nodegroups.yaml": yaml_text([{"apiVersion": "kexplain/v1", "kind": "NodeGroupList",
                                               "nodeGroups": groups}]),
                "pods.yaml": yaml_text(pods)}
    return autoscaler_case.write_case(snapshot_dir, "autoscale", build)


def command(case: Path) -> list[str]:
    return [str(KEXPLAIN), "autoscale", str(case / "pods.yaml"), "--nodes", str(case / "cluster.json"),
            "--node-groups", str(case / "nodegroups.yaml"), "-o", "json"]


def main(argv: list[str] | None = None) -> int:
    args = autoscaler_case.parser(__doc__).parse_args(argv)
    case = write_case(autoscaler_case.snapshot(args), args.pending, args.shapes)
    autoscaler_case.print_ratio_row("autoscale", command(case), case, args.pairs, TARGET)
    return 0


if __name__ == "__main__":
    sys.exit(main())
