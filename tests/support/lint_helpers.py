"""Builders for the lint tests: nodes, pods, workloads, a pool file, and running the CLI."""
from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
import yaml

from kexplain.cli.app import main


def node(name: str, cpu: str = "2", zone: str | None = None, taints: list | None = None) -> dict:
    labels = {"kubernetes.io/hostname": name}
    if zone:
        labels["topology.kubernetes.io/zone"] = zone
    obj: dict[str, Any] = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
                           "status": {"capacity": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}}
    if taints:
        obj["spec"] = {"taints": taints}
    return obj


def pod_spec(cpu: str = "500m", **extra: Any) -> dict:
    return {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": cpu}}}], **extra}


def pod(name: str = "p", cpu: str = "500m", namespace: str | None = None, **extra: Any) -> dict:
    meta: dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": pod_spec(cpu, **extra)}


def deployment(name: str = "web", replicas: int | None = 1, cpu: str = "500m", kind: str = "Deployment",
               **extra: Any) -> dict:
    spec: dict[str, Any] = {"selector": {"matchLabels": {"app": name}},
                            "template": {"metadata": {"labels": {"app": name}}, "spec": pod_spec(cpu, **extra)}}
    if replicas is not None:
        spec["replicas"] = replicas
    if kind == "StatefulSet":
        spec["serviceName"] = name
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": name}, "spec": spec}


def write(tmp_path: Path, name: str, *docs: Any) -> str:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump_all(list(docs), sort_keys=False))
    return str(path)


def pool(tmp_path: Path, *extra: dict, cpus: tuple[str, ...] = ("2", "2")) -> str:
    nodes = [node(f"n{i + 1}", cpu) for i, cpu in enumerate(cpus)]
    return write(tmp_path, "pool.yaml", *nodes, *extra)


def run(capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch, *args: str,
        stdin: str | None = None) -> tuple[int, str, str]:
    """Run `kexplain lint ARGS` in-process; returns (exit code, stdout, stderr)."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    if stdin is not None:
        fake = io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8")
        monkeypatch.setattr("sys.stdin", fake)
    code = main(["lint", *args])
    out, err = capsys.readouterr()
    return code, out, err


# A CustomResourceDefinition whose Widget has an integer spec.size (for --schemas tests).
WIDGET_CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
              "metadata": {"name": "widgets.example.com"},
              "spec": {"group": "example.com", "names": {"kind": "Widget", "plural": "widgets"},
                       "scope": "Namespaced",
                       "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                           "type": "object", "properties": {"spec": {"type": "object", "properties": {
                               "size": {"type": "integer"}}}}}}}]}}
