"""The options of a command that reads the live cluster (kubeconfig, context, namespace, request
timeout, page size), apart from `cli.live` so that a command declares them without importing the
live client's application layer (`kexplain karpenter` over files never connects)."""
from __future__ import annotations

from typing import Any

import typer

__all__ = ["chunk_size_option", "context_option", "kubeconfig_option", "namespace_option", "timeout_option"]


def kubeconfig_option() -> Any:
    return typer.Option(None, "--kubeconfig", metavar="FILE",
                        help="Kubeconfig file (default: $KUBECONFIG, ~/.kube/config, then in-cluster).")


def context_option() -> Any:
    return typer.Option(None, "--context", metavar="CONTEXT",
                        help="Kubeconfig context (default: the current one).")


def namespace_option() -> Any:
    return typer.Option(None, "-n", "--namespace", metavar="NAMESPACE", help="Namespace (default: the context's).")


def timeout_option() -> Any:
    return typer.Option(30.0, "--request-timeout", min=0.001, metavar="SECONDS",
                        help="Give up on a request to the API server after this long.")


def chunk_size_option() -> Any:
    return typer.Option(500, "--chunk-size", min=1, metavar="N", help="Objects per page when listing.")
