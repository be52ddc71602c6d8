"""Running the command line in-process, as httpie tests its own: `main(argv, env=TestEnvironment())`
with in-memory streams, a terminal or a pipe as told."""
from __future__ import annotations

import io

from kexplain.cli.env import Environment


class TestEnvironment(Environment):
    """In-memory stdin, stdout and stderr; not a terminal, no colour, unless told otherwise."""

    __test__ = False     # not a pytest test class

    def __init__(self, *, stdin: bytes = b"", is_terminal: bool = False, stderr_is_terminal: bool = False,
                 color: bool = False, width: int | None = None) -> None:
        super().__init__(stdout=io.StringIO(), stderr=io.StringIO(), stdin=io.BytesIO(stdin),
                         is_terminal=is_terminal, color=color, width=width, stderr_is_terminal=stderr_is_terminal)

    @property
    def out(self) -> str:
        return self.stdout.getvalue()   # type: ignore[attr-defined]

    @property
    def err(self) -> str:
        return self.stderr.getvalue()   # type: ignore[attr-defined]


# A one-node cluster and a small pod, written as people write them.
NODE = """apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {capacity: {cpu: "2", memory: 4Gi, pods: "110"}}
"""
POD = """apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: nginx, resources: {requests: {cpu: 500m}}}]
"""


def explain_json(capsys, *args: str) -> tuple[int, str, str]:
    """`kexplain ARGS -o json` in this process: exit code, stdout, stderr."""
    from kexplain.cli.app import main
    code = main([*args, "-o", "json"])
    out, err = capsys.readouterr()
    return code, out, err
