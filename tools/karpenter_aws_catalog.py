#!/usr/bin/env python3
"""Build kexplain's shipped AWS instance-type catalog (kexplain/karpenter/aws/data/catalog.json.gz)
from the AWS Karpenter provider's public data files. Not needed at run time.

Reads, from a git directory of github.com/aws/karpenter-provider-aws (or a fork) at a commit:
- website/content/en/docs/reference/instance-types.md: the generated reference, every current
  instance type's labels (vCPUs, memory, architecture, CPU maker and clock, GPU/accelerator
  facts, local NVMe, EBS bandwidth, hypervisor, encryption in transit) and its resources after
  Karpenter's overhead (AL2023, no block device mappings) -- kept as the reference to check against;
- pkg/providers/pricing/zz_generated.pricing_aws*.go: the static on-demand prices per region;
- pkg/providers/instancetype/zz_generated.vpclimits.go: ENIs, IPv4 addresses per ENI, network
  cards, branch interfaces (pod ENIs), trunking, bare metal;
- pkg/providers/instancetype/zz_generated.bandwidth.go: network bandwidth in Mbit/s.

and writes the instance types in the shape `aws ec2 describe-instance-types` prints (the members
kexplain reads), so the catalog goes through the same reader as `--aws-data`. What the reference
does not say is assumed and recorded in the catalog's `assumptions`.

    python3 tools/karpenter_aws_catalog.py --git-dir DIR --commit COMMIT [--out PATH]
"""
from __future__ import annotations

import argparse
import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

REFERENCE = "website/content/en/docs/reference/instance-types.md"
PRICING = ("pkg/providers/pricing/zz_generated.pricing_aws.go",
           "pkg/providers/pricing/zz_generated.pricing_aws_us_gov.go",
           "pkg/providers/pricing/zz_generated.pricing_aws_cn.go")
VPC_LIMITS = "pkg/providers/instancetype/zz_generated.vpclimits.go"
BANDWIDTH = "pkg/providers/instancetype/zz_generated.bandwidth.go"
OUT = Path(__file__).resolve().parent.parent / "kexplain/karpenter/aws/data/catalog.json.gz"

L = "karpenter.k8s.aws/instance-"
# EC2's spelling of the GPU makers whose label is their lower-case name (the provider compares
# the GPU manufacturer to "NVIDIA", "AMD", "Habana" to count each maker's resource).
GPU_MAKERS = {"nvidia": "NVIDIA", "amd": "AMD", "habana": "Habana"}
ASSUMPTIONS = [
    "SupportedUsageClasses: on-demand and spot for every type (the reference does not list capacity types)",
    "SupportedVirtualizationTypes: hvm (the reference lists only what the provider discovers, which asks EC2 for hvm)",
    "InstanceStorageInfo: only NVMe instance storage is known (the instance-local-nvme label); HDD/SSD instance "
    "storage of older types is left out, so instanceStorePolicy RAID0 keeps their root-volume ephemeral storage",
    "GPU/accelerator/processor names and makers: the label values (lower-case, dashes); the provider lower-cases "
    "them for labels anyway, and GPU makers are spelled as EC2 does (NVIDIA, AMD, Habana) for resource counting",
    "offerings: the catalog has no zones; every type is taken as sold in every zone of the NodeClass's subnets",
]


def show(git_dir: str, commit: str, path: str) -> str:
    return subprocess.run(["git", f"--git-dir={git_dir}", "show", f"{commit}:{path}"], check=True,
                          capture_output=True, text=True).stdout


def commit_date(git_dir: str, commit: str, path: str | None = None) -> str:
    args = ["git", f"--git-dir={git_dir}", "log", "-1", "--format=%cs", commit] + (["--", path] if path else [])
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout.strip()


def parse_reference(text: str) -> dict[str, dict[str, dict[str, str]]]:
    """instance-types.md: {type: {"labels": {...}, "resources": {...}}} in document order."""
    out: dict[str, dict[str, dict[str, str]]] = {}
    current: dict[str, dict[str, str]] | None = None
    table = None
    for line in text.splitlines():
        m = re.match(r"^### `([^`]+)`$", line)
        if m:
            current = out.setdefault(m.group(1), {"labels": {}, "resources": {}})
            table = None
        elif line == "#### Labels":
            table = "labels"
        elif line == "#### Resources":
            table = "resources"
        elif current is not None and table and (row := re.match(r"^ \|([^ |-][^|]*)\|([^|]*)\|$", line)):
            current[table][row.group(1)] = row.group(2)
    return out


def parse_prices(texts: list[str]) -> dict[str, dict[str, float]]:
    """The static on-demand price maps: {region: {type: price}}."""
    out: dict[str, dict[str, float]] = {}
    for text in texts:
        region = None
        for line in text.splitlines():
            m = re.match(r'^\t"([a-z0-9-]+)": \{$', line)
            if m:
                region = out.setdefault(m.group(1), {})
                continue
            if region is not None and line.startswith("\t\t\""):
                for name, price in re.findall(r'"([^"]+)": ([0-9.eE+-]+)', line):
                    region[name] = float(price)
    return out


def parse_vpc_limits(text: str) -> dict[str, dict]:
    out = {}
    for name, body in re.findall(r'^\t"([^"]+)": \{\n(.*?)^\t\},$', text, re.S | re.M):
        def field(key: str) -> str:
            m = re.search(rf"^\t\t{key}:\s+(\S+),$", body, re.M)
            if not m:
                raise SystemExit(f"vpclimits: {name}: no {key}")
            return m.group(1)
        cards = [{"MaximumNetworkInterfaces": int(a), "NetworkCardIndex": int(b)} for a, b in re.findall(
            r"MaximumNetworkInterfaces:\s+(\d+),\s+NetworkCardIndex:\s+(\d+),", body)]
        out[name] = {"Interface": int(field("Interface")), "IPv4PerInterface": int(field("IPv4PerInterface")),
                     "IsTrunkingCompatible": field("IsTrunkingCompatible") == "true",
                     "BranchInterface": int(field("BranchInterface")),
                     "DefaultNetworkCardIndex": int(field("DefaultNetworkCardIndex")),
                     "NetworkCards": cards, "Hypervisor": json.loads(field("Hypervisor")),
                     "IsBareMetal": field("IsBareMetal") == "true"}
    return out


def parse_bandwidth(text: str) -> dict[str, int]:
    body = text[text.index("InstanceTypeBandwidthMegabits"):]
    return {name: int(v) for name, v in re.findall(r'^\t\t"([^"]+)":\s+(\d+),', body, re.M)}


def describe(name: str, ref: dict[str, dict[str, str]], limits: dict) -> dict:
    """One `describe-instance-types` entry from the reference's labels and the VPC limits."""
    labels, resources = ref["labels"], ref["resources"]
    arch = {"amd64": "x86_64", "arm64": "arm64"}[labels["kubernetes.io/arch"]]
    info: dict = {
        "InstanceType": name,
        "VCpuInfo": {"DefaultVCpus": int(labels[L + "cpu"])},
        "MemoryInfo": {"SizeInMiB": int(labels[L + "memory"])},
        "ProcessorInfo": {"SupportedArchitectures": [arch]},
        "SupportedUsageClasses": ["on-demand", "spot"],
        "SupportedVirtualizationTypes": ["hvm"],
        "BareMetal": limits["IsBareMetal"],
        "NetworkInfo": {
            "DefaultNetworkCardIndex": limits["DefaultNetworkCardIndex"],
            "MaximumNetworkInterfaces": limits["Interface"],
            "Ipv4AddressesPerInterface": limits["IPv4PerInterface"],
            "NetworkCards": limits["NetworkCards"],
            "EncryptionInTransitSupported": labels[L + "encryption-in-transit-supported"] == "true",
        },
    }
    if labels.get(L + "hypervisor"):
        info["Hypervisor"] = labels[L + "hypervisor"]
    if L + "cpu-manufacturer" in labels:
        info["ProcessorInfo"]["Manufacturer"] = labels[L + "cpu-manufacturer"]
    if L + "cpu-sustained-clock-speed-mhz" in labels:
        info["ProcessorInfo"]["SustainedClockSpeedInGhz"] = int(labels[L + "cpu-sustained-clock-speed-mhz"]) / 1000
    if "vpc.amazonaws.com/efa" in resources:
        info["NetworkInfo"]["EfaInfo"] = {"MaximumEfaInterfaces": int(resources["vpc.amazonaws.com/efa"])}
    if L + "ebs-bandwidth" in labels:
        info["EbsInfo"] = {"EbsOptimizedSupport": "default",
                           "EbsOptimizedInfo": {"MaximumBandwidthInMbps": int(labels[L + "ebs-bandwidth"])}}
    if L + "local-nvme" in labels:
        info["InstanceStorageInfo"] = {"NvmeSupport": "required", "TotalSizeInGB": int(labels[L + "local-nvme"])}
    if L + "gpu-count" in labels:
        maker = labels[L + "gpu-manufacturer"]
        info["GpuInfo"] = {"Gpus": [{"Name": labels[L + "gpu-name"], "Manufacturer": GPU_MAKERS.get(maker, maker),
                                     "Count": int(labels[L + "gpu-count"]),
                                     "MemoryInfo": {"SizeInMiB": int(labels[L + "gpu-memory"])}}]}
    gpu_resources = {"nvidia.com/gpu": "NVIDIA", "amd.com/gpu": "AMD", "habana.ai/gaudi": "Habana"}
    for resource, maker in gpu_resources.items():
        if resource in resources and info.get("GpuInfo", {}).get("Gpus", [{}])[0].get("Manufacturer") != maker:
            raise SystemExit(f"{name}: {resource} without a single {maker} GPU entry in its labels")
    if "aws.amazon.com/neuron" in resources:
        devices, cores = int(resources["aws.amazon.com/neuron"]), int(resources["aws.amazon.com/neuroncore"])
        if int(labels[L + "accelerator-count"]) != devices or cores % devices:
            raise SystemExit(f"{name}: neuron devices {devices}, cores {cores}, labels {labels}")
        info["NeuronInfo"] = {"NeuronDevices": [{"Name": labels[L + "accelerator-name"], "Count": devices,
                                                 "CoreInfo": {"Count": cores // devices}}]}
    elif L + "accelerator-count" in labels:
        info["InferenceAcceleratorInfo"] = {"Accelerators": [{
            "Name": labels[L + "accelerator-name"], "Manufacturer": labels[L + "accelerator-manufacturer"],
            "Count": int(labels[L + "accelerator-count"])}]}
    return info


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--git-dir", required=True)
    parser.add_argument("--commit", required=True)
    parser.add_argument("--repository", default="github.com/openshift/aws-karpenter-provider-aws")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    g, c = args.git_dir, args.commit
    full = subprocess.run(["git", f"--git-dir={g}", "rev-parse", c], check=True, capture_output=True,
                          text=True).stdout.strip()
    reference = parse_reference(show(g, c, REFERENCE))
    price_texts = [show(g, c, p) for p in PRICING]
    limits = parse_vpc_limits(show(g, c, VPC_LIMITS))
    bandwidth_text = show(g, c, BANDWIDTH)
    stamps = {p: m.group(1) for p, t in zip(PRICING, price_texts)
              for m in [re.search(r"generated at (\S+)", t)] if m}
    vpc_stamp = re.search(r"generated at (\S+)", show(g, c, VPC_LIMITS))
    missing = [n for n in reference if n not in limits]
    if missing:
        print(f"types of the reference without VPC limits (left out): {' '.join(missing)}", file=sys.stderr)
    catalog = {
        "source": {
            "repository": args.repository, "commit": full, "commitDate": commit_date(g, c),
            "tool": "tools/karpenter_aws_catalog.py (kexplain)",
            "files": {REFERENCE: commit_date(g, c, REFERENCE), **{p: stamps.get(p, "") for p in PRICING},
                      VPC_LIMITS: vpc_stamp.group(1) if vpc_stamp else "", BANDWIDTH: commit_date(g, c, BANDWIDTH)},
        },
        "taken": max([commit_date(g, c, REFERENCE)] + [s[:10] for s in stamps.values()]
                     + ([vpc_stamp.group(1)[:10]] if vpc_stamp else [])),
        "assumptions": ASSUMPTIONS,
        "leftOut": {"reason": "in the reference but not in the VPC limits table: their ENIs and IPv4 addresses "
                              "per ENI (hence max pods) are not public data", "types": missing},
        "InstanceTypes": [describe(n, reference[n], limits[n]) for n in reference if n in limits],
        "reference": {n: reference[n]["resources"] for n in reference if n in limits},
        "onDemandPrices": parse_prices(price_texts),
        "vpcLimits": {n: {k: v for k, v in lim.items() if k in ("IPv4PerInterface", "IsTrunkingCompatible",
                                                               "BranchInterface")} for n, lim in limits.items()},
        "networkBandwidth": parse_bandwidth(bandwidth_text),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps(catalog, separators=(",", ":"), sort_keys=False).encode()
    args.out.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
    print(f"{args.out}: {len(catalog['InstanceTypes'])} types, regions {sorted(catalog['onDemandPrices'])}, "
          f"{len(data):,} bytes of JSON, {args.out.stat().st_size:,} gzipped, taken {catalog['taken']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
