"""Volcano's capacity unit tests' inputs (plugins/capacity/capacity_test.go, built with pkg/scheduler/util's
BuildNode, BuildPod, BuildPodGroup, BuildQueueWithResourcesQuantity) as kexplain's inputs: a cluster.yaml
of those objects and a scheduler-conf whose tiers turn on exactly the switches the Go test sets (a
PluginOption built in Go leaves every other switch nil, that is off)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from kexplain.cli.app import main
from kexplain.volcano.conf import SWITCHES
from tests.support.cli_helpers import TestEnvironment

PREEMPTABLE = "volcano.sh/preemptable"


def rl(cpu: str = "", memory: str = "", **scalars: str) -> dict[str, str]:
    """api.BuildResourceList: empty cpu or memory left out; scalars by name (`_` for `/`, `__` for `.`)."""
    out = {}
    if cpu:
        out["cpu"] = cpu
    if memory:
        out["memory"] = memory
    for name, value in scalars.items():
        out[name.replace("__", ".").replace("_", "/")] = value
    return out


def node(name: str, alloc: dict[str, str], labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels or {}},
            "status": {"capacity": alloc, "allocatable": alloc}}


def pod(ns: str, name: str, node_name: str, phase: str, req: dict[str, str], group: str,
        labels: dict[str, str] | None = None, selector: dict[str, str] | None = None) -> dict[str, Any]:
    resources: dict[str, Any] = {"requests": req}
    extended = {k: v for k, v in req.items() if "/" in k}
    if extended:        # (the API server wants limits for extended resources; Go's test objects skip it)
        resources["limits"] = extended
    spec: dict[str, Any] = {"schedulerName": "volcano", "containers": [{"name": "c", "image": "i",
                                                                        "resources": resources}]}
    if node_name:
        spec["nodeName"] = node_name
    if selector:
        spec["nodeSelector"] = selector
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"namespace": ns, "name": name, "uid": f"{ns}-{name}", "labels": labels or {},
                         "annotations": {"scheduling.k8s.io/group-name": group}},
            "spec": spec, "status": {"phase": phase}}


def pod_group(name: str, ns: str, queue: str, min_member: int, phase: str,
              min_resources: dict[str, str] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"queue": queue, "minMember": min_member}
    if min_resources is not None:
        spec["minResources"] = min_resources
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": ns}, "spec": spec, "status": {"phase": phase}}


def queue(name: str, deserved: dict[str, str] | None, capability: dict[str, str] | None, parent: str = "",
          priority: int = 0, state: str = "Open", guarantee: dict[str, str] | None = None) -> dict[str, Any]:
    """BuildQueueWithResourcesQuantity (weight 1), with Parent as buildQueueWithParents sets it."""
    spec: dict[str, Any] = {"weight": 1}
    if capability:
        spec["capability"] = capability
    if deserved:
        spec["deserved"] = deserved
    if guarantee:
        spec["guarantee"] = {"resource": guarantee}
    if parent:
        spec["parent"] = parent
    if priority:
        spec["priority"] = priority
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": name},
            "spec": spec, "status": {"state": state}}


def plugin(name: str, *enabled: str, hierarchy: bool = False, **arguments: Any) -> dict[str, Any]:
    """A PluginOption with only `enabled` switches (yaml keys) on."""
    assert set(enabled) <= set(SWITCHES), set(enabled) - set(SWITCHES)
    out: dict[str, Any] = {"name": name}
    out.update({key: key in enabled for key in SWITCHES})
    if hierarchy:
        out["enableHierarchy"] = True
    if arguments:
        out["arguments"] = arguments
    return out


def run(tmp: Path, objects: list[dict[str, Any]], actions: str, plugins: list[dict[str, Any]],
        output: str = "json") -> Any:
    """One session over the objects; the document (json) or the text."""
    cluster, conf = tmp / "cluster.yaml", tmp / "scheduler-conf.yaml"
    cluster.write_text(yaml.safe_dump_all(objects))
    conf.write_text(yaml.safe_dump({"actions": actions, "tiers": [{"plugins": plugins}]}))
    env = TestEnvironment()
    main(["volcano", "--nodes", str(cluster), "--scheduler-conf", str(conf)]
         + (["-o", output] if output != "text" else []), env)
    return json.loads(env.out) if output == "json" else env.out


def binds(doc: dict[str, Any]) -> dict[str, str]:
    return {p["name"]: p["boundTo"] for p in doc["pods"] if p.get("boundTo")}


def evicted(doc: dict[str, Any]) -> list[str]:
    return sorted(p["name"] for p in doc["pods"] if p.get("evicted"))


def pipelined(doc: dict[str, Any]) -> dict[str, str]:
    """Pods pipelined this cycle: nominated to a node, not bound."""
    return {p["name"]: p["nominatedNodeName"] for p in doc["pods"] if p.get("nominatedNodeName") and not p.get("nodeBefore")}
