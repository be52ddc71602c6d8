"""Counting how often the cluster is checked or admitted: the tests that hold "admitted once"
(explain, CA's loop, Karpenter's pass, lint) wrap every module's reference to a function."""
from __future__ import annotations

import sys
from typing import Any, Callable

import pytest


def counting(monkeypatch: pytest.MonkeyPatch, original: Callable[..., Any], name: str,
             stored: bool = True) -> list[int]:
    """Every module's `name` that is `original`, wrapped to count the calls handed a Node of
    the cluster (their number, one entry per such call); without `stored`, only the calls that
    admit or check as the API server does a create (a stored pool's decoding, `stored=True`, not counted)."""
    calls: list[int] = []

    def counted(objs: Any, *args: Any, **kw: Any) -> Any:
        objs = list(objs)
        nodes = sum(1 for o, _ in objs if o.get("kind") == "Node")
        if nodes and (stored or not kw.get("stored")):
            calls.append(nodes)
        return original(objs, *args, **kw)

    for module in list(sys.modules.values()):
        if module is not None and getattr(module, name, None) is original:
            monkeypatch.setattr(module, name, counted)
    return calls
