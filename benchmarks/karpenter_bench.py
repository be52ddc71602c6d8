"""Benchmark `kexplain karpenter` at cluster scale (issue 38's target).

On the 5,000-node snapshot of `generate.py` (about 150,000 bound pods), half of the `general`
pool's nodes become Karpenter's (labelled with a NodePool, registered and initialized, each with
its NodeClaim joined by providerID), three DaemonSets are added, and ten NodePools over two
EC2NodeClasses (weights, instance categories, capacity types, taints, limits; template labels
for the snapshot's `pool` selector) face 500 pending pods of 20 shapes (`live_standin.py`'s:
zone spread, hostname anti-affinity, preferences to relax, plain pods selecting a pool). The
instance types are the shipped catalog's (every current type, us-east-1). The command

    kexplain karpenter pods.yaml --nodes cluster.json --nodes nodepools.yaml -o json

is timed against the standard library's `json.load` of the same cluster file (the median of
alternating pairs, `load_bench.ratio_row`); target at most 3x, peak RSS at most 1.5 GB.

    .venv/bin/python benchmarks/karpenter_bench.py [--dir /tmp/kexplain-bench] [--nodes 5000] [--pairs 3]
        [--pending 500] [--shapes 20] [--no-suggestions] [--cluster-shape generated|plain]

The command runs with its defaults, the explanation and the verified fix suggestions included;
`--no-suggestions` times it without the suggestions (the pass and its explanation alone).
`--cluster-shape plain` runs it on `plain_list.py --stored`'s cluster (issue 55's shape: no
`pool` label, so no node is Karpenter's; the DaemonSets are added), e.g. with `--shapes 25`.
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

TARGET = 3.0            # x json.load of the snapshot
NODEPOOL_LABEL = "karpenter.sh/nodepool"

Obj = dict[str, Any]

# name, weight, pool label, instance categories, capacity types, taint, cpu limit
NODE_POOLS = [
    ("general-spot", 50, "general", ["m", "c", "r"], ["spot"], None, "2000"),
    ("general", 40, "general", ["m", "c", "r"], ["on-demand"], None, None),
    ("general-graviton", 30, "general", ["m", "c"], ["on-demand", "spot"], None, "500"),
    ("compute", 20, "compute", ["c"], ["on-demand"], None, None),
    ("compute-large", 20, "compute", ["c", "m"], ["on-demand", "spot"], None, "1000"),
    ("batch", 10, "batch", ["m", "c"], ["spot"], {"key": "dedicated", "value": "batch", "effect": "NoSchedule"},
     None),
    ("gpu", 10, "gpu", ["g", "p"], ["on-demand"], {"key": "nvidia.com/gpu", "value": "true",
                                                   "effect": "NoSchedule"}, "400"),
    ("memory", 5, "general", ["r", "x"], ["on-demand"], None, None),
    ("burst", 1, "general", ["t"], ["on-demand", "spot"], None, "100"),
    ("default", None, "general", ["m", "c", "r", "t"], ["on-demand", "spot"], None, None),
]


def node_pools() -> list[Obj]:
    out: list[Obj] = []
    for name, weight, pool, categories, capacity, taint, cpu in NODE_POOLS:
        arch = ["arm64"] if name.endswith("graviton") else ["amd64"]
        spec: Obj = {**({"weight": weight} if weight else {}), "template": {"metadata": {"labels": {"pool": pool}}, "spec": {
            "requirements": [
                {"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": categories},
                {"key": "karpenter.sh/capacity-type", "operator": "In", "values": capacity},
                {"key": "kubernetes.io/arch", "operator": "In", "values": arch}],
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
                             "name": "gpu" if pool == "gpu" else "default"}}}}
        if taint:
            spec["template"]["spec"]["taints"] = [taint]
        if cpu:
            spec["limits"] = {"cpu": cpu}
        out.append({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name}, "spec": spec})
    for name, volume in (("default", "100Gi"), ("gpu", "200Gi")):
        out.append({"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": name},
                    "spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}], "role": "KarpenterNodeRole",
                             "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "bench"}}],
                             "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "bench"}}],
                             "blockDeviceMappings": [{"deviceName": "/dev/xvda", "rootVolume": True,
                                                      "ebs": {"volumeSize": volume, "volumeType": "gp3"}}]}})
    return out


def daemonsets() -> list[Obj]:
    out = []
    for name, cpu, memory in (("aws-node", "25m", "64Mi"), ("kube-proxy", "100m", "128Mi"),
                              ("ebs-csi-node", "30m", "120Mi")):
        out.append({"apiVersion": "apps/v1", "kind": "DaemonSet",
                    "metadata": {"name": name, "namespace": "kube-system", "uid": f"ds-{name}",
                                 "resourceVersion": "1"},
                    "spec": {"selector": {"matchLabels": {"app": name}}, "template": {
                        "metadata": {"labels": {"app": name}},
                        "spec": {"tolerations": [{"operator": "Exists"}],
                                 "containers": [{"name": name, "image": f"registry.example/{name}:1",
                                                 "resources": {"requests": {"cpu": cpu, "memory": memory}}}]}}}})
    return out


def karpenterize(doc: Obj) -> None:
    """Every other `general` node becomes a NodePool's (labels, a NodeClaim with its providerID)."""
    claims = []
    general = [o for o in doc["items"] if o.get("kind") == "Node" and o["metadata"]["labels"].get("pool") == "general"]
    for i, node in enumerate(general[::2]):
        pool = ("general", "general-spot", "default")[i % 3]
        labels = node["metadata"]["labels"]
        labels.update({NODEPOOL_LABEL: pool, "karpenter.sh/registered": "true", "karpenter.sh/initialized": "true",
                       "karpenter.k8s.aws/ec2nodeclass": "default",
                       "karpenter.sh/capacity-type": "spot" if pool == "general-spot" else "on-demand"})
        status = node["status"]
        claims.append({"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
                       "metadata": {"name": f"{pool}-{i:05d}", "labels": dict(labels), "resourceVersion": "1",
                                    "creationTimestamp": "2026-01-01T00:00:00Z"},
                       "spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
                                                 "name": "default"},
                                "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In",
                                                  "values": [labels["node.kubernetes.io/instance-type"]]}]},
                       "status": {"providerID": node["spec"]["providerID"], "nodeName": node["metadata"]["name"],
                                  "capacity": status["capacity"], "allocatable": status["allocatable"],
                                  "conditions": [{"type": t, "status": "True", "reason": t, "message": "",
                                                  "lastTransitionTime": "2026-01-01T00:00:00Z"}
                                                 for t in ("Launched", "Registered", "Initialized")]}})
    doc["items"].extend(claims)
    doc["items"].extend(daemonsets())


def write_case(snapshot_dir: Path, pending: int, shapes: int) -> Path:
    """cluster.json, nodepools.yaml and pods.yaml under `snapshot_dir/karpenter`, kept when newer
    than the snapshot."""
    def build(doc: Obj) -> dict[str, str]:
        karpenterize(doc)
        return {"nodepools.yaml": yaml_text(node_pools()), "pods.yaml": yaml_text(pending_pods(pending, shapes))}
    return autoscaler_case.write_case(snapshot_dir, "karpenter", build)


def command(case: Path, suggestions: bool = True) -> list[str]:
    return [str(KEXPLAIN), "karpenter", str(case / "pods.yaml"), "--nodes", str(case / "cluster.json"),
            "--nodes", str(case / "nodepools.yaml"), "-o", "json", *(() if suggestions else ("--no-suggestions",))]


def main(argv: list[str] | None = None) -> int:
    parser = autoscaler_case.parser(__doc__)
    parser.add_argument("--no-suggestions", action="store_true", help="time the command without its suggestions")
    args = parser.parse_args(argv)
    case = write_case(autoscaler_case.snapshot(args), args.pending, args.shapes)
    name = "karpenter" if not args.no_suggestions else "karpenter -S"
    autoscaler_case.print_ratio_row(name, command(case, not args.no_suggestions), case, args.pairs, TARGET)
    return 0


if __name__ == "__main__":
    sys.exit(main())
