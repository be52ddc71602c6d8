"""Running the command line in-process, as httpie tests its own: `main(argv, env=TestEnvironment())`
with in-memory streams, a terminal or a pipe as told."""
from __future__ import annotations

import io

from kexplain.cli.app import main
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


def run_cli(*args: str, width: int = 100) -> tuple[int, str, str]:
    """kexplain run in process at `width` columns: its exit code, stdout and stderr."""
    env = TestEnvironment(width=width)
    code = main(list(args), env)
    return code, env.out, env.err


def node_yaml(name: str, zone: str, cpu: str, memory: str, allocatable: bool = True) -> str:
    """A Node as people write one in a cluster file: hostname and zone labels, a capacity of
    `cpu`, `memory` and 110 pods (its allocatable the same, unless told not to write one)."""
    room = f'{{cpu: "{cpu}", memory: {memory}, pods: "110"}}'
    return (f"apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n"
            f"  labels: {{kubernetes.io/hostname: {name}, topology.kubernetes.io/zone: {zone}}}\n"
            f"status:\n  capacity: {room}\n" + (f"  allocatable: {room}\n" if allocatable else ""))


def workers_yaml(cpu: str, memory: str, allocatable: bool = True) -> str:
    """Two such nodes, worker-1 in eu-west-1a and worker-2 in eu-west-1b, as one file."""
    return "---\n".join(node_yaml(f"worker-{i}", f"eu-west-1{zone}", cpu, memory, allocatable)
                        for i, zone in ((1, "a"), (2, "b")))


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
