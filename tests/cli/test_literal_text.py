"""The user's and the cluster's words come out as they were written, in every view: rich
would read `:100:` as an emoji code (`file.yaml:100:` as `file.yaml💯`) and `[bold]` as markup.
File names, line numbers, object names, label values, taints and CEL expressions are printed
literally, on a pipe and on a terminal, and in the SVG/HTML exports."""
from __future__ import annotations

import html
import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console

from kexplain.cli.app import main
from kexplain.render.live import print_pending
from kexplain.render.table import print_trace
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES
from tests.support.copies import copy_names

ANSI = re.compile(r"\x1b\[[0-9;]*m")
EMOJI = "\U0001f4af\U0001f604\U0001f525"     # what rich makes of :100:, :smile:, :fire:

POD_NAME = "p:smile:[bold]x[/]"
NAMESPACE = "ns[red]x[/red]"
FIT = "n:100:[bold]"              # fits, in zone ZONE
TAINTED = "m:smile:[/]"           # has a taint of value TAINT, and the wrong disk
ZONE = ":fire:[i]"
TAINT = "[red]x[/red]"
DISK = ":smile:[bold]"

# As read from an API server (--stored): names and values are not checked again.
CLUSTER = f"""apiVersion: v1
kind: Node
metadata:
  name: "{FIT}"
  labels: {{disk: "{DISK}", topology.kubernetes.io/zone: "{ZONE}"}}
status:
  allocatable: {{cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {{name: "{TAINTED}", labels: {{disk: other}}}}
spec:
  taints: [{{key: dedicated, value: "{TAINT}", effect: NoSchedule}}]
status:
  allocatable: {{cpu: "2", memory: 4Gi, pods: "110"}}
"""
POD = f"""apiVersion: v1
kind: Pod
metadata: {{name: "{POD_NAME}", namespace: "{NAMESPACE}"}}
spec:
  nodeSelector: {{disk: "{DISK}"}}
  containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: 500m}}}}}}]
"""
DEPLOYMENT = f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: "d:smile:[bold]x[/]", namespace: "{NAMESPACE}"}}
spec:
  replicas: 3
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: 1500m}}}}}}]
"""


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    paths = {"cluster": tmp_path / "cluster:100:.yaml", "pod": tmp_path / "x:100:.yaml",
             "deployment": tmp_path / "web:smile:.yaml"}
    for key, text in (("cluster", CLUSTER), ("pod", POD), ("deployment", DEPLOYMENT)):
        paths[key].write_text(text)
    return {k: str(p) for k, p in paths.items()}


def kexplain(*args: str, terminal: bool = False) -> tuple[int, str, str]:
    env = TestEnvironment(is_terminal=terminal, color=terminal, width=120)
    code = main(list(args), env=env)
    return code, ANSI.sub("", env.out), env.err


def assert_literal(text: str, *words: str) -> None:
    assert not any(e in text for e in EMOJI), text
    for w in words:
        assert w in text, f"{w!r} not in:\n{text}"


@pytest.mark.parametrize("terminal", [False, True], ids=["pipe", "terminal"])
@pytest.mark.parametrize("view", [[], ["-o", "wide"]], ids=["table", "wide"])
def test_overview(files, view, terminal):
    code, out, _ = kexplain(files["pod"], "--nodes", files["cluster"], "--stored", *view, terminal=terminal)
    assert code == 0
    assert_literal(out, f"{NAMESPACE}/{POD_NAME}", f"Would be bound to {FIT}", ZONE, TAINTED)


@pytest.mark.parametrize("terminal", [False, True], ids=["pipe", "terminal"])
def test_node_view(files, terminal):
    code, out, _ = kexplain(files["pod"], "--nodes", files["cluster"], "--stored", "--node", TAINTED,
                            terminal=terminal)
    assert code == 0
    assert_literal(out, f"Node {TAINTED} for pod {NAMESPACE}/{POD_NAME}", f"taint dedicated={TAINT}:NoSchedule",
                   f"nodeSelector disk={DISK}")


@pytest.mark.parametrize("terminal", [False, True], ids=["pipe", "terminal"])
@pytest.mark.parametrize("node", [None, FIT], ids=["copies", "node"])
def test_replicas(files, node, terminal):
    code, out, _ = kexplain(files["deployment"], "--nodes", files["cluster"], "--stored",
                            *(["--node", node] if node else []), terminal=terminal)
    assert code == 1
    assert_literal(out, f"Deployment {NAMESPACE}/d:smile:[bold]x[/] (priority 0): 1 of 3 replicas fit")
    first, second = copy_names(Path(files["deployment"]), 2)       # d:smile:[bold]x[/]-<hash>-<5 characters>
    assert first.startswith("d:smile:[bold]x[/]-")
    if node is None:
        assert_literal(out, f"On 1 node: {FIT}", f"By zone: {ZONE}", first,
                       f"Pod {NAMESPACE}/{second} (profile default-scheduler): Unschedulable")
    else:
        assert_literal(out, f"Node {FIT} (zone {ZONE}) for pod {NAMESPACE}/{second}")


def test_exports(files, tmp_path):
    svg, page = tmp_path / "out.svg", tmp_path / "out.html"
    code, _, _ = kexplain(files["pod"], "--nodes", files["cluster"], "--stored", "-o", "wide",
                          "--svg", str(svg), "--html", str(page))
    assert code == 0
    assert_literal(html.unescape(page.read_text()), f"{NAMESPACE}/{POD_NAME}", f"{FIT}: the only feasible node")
    # The SVG holds each run of text in its own element, blanks as &#160;.
    drawn = html.unescape(svg.read_text()).replace("\xa0", " ")
    assert_literal(drawn, POD_NAME, FIT, ZONE)


def test_cel_expression_in_the_device_view(tmp_path):
    pod = tmp_path / "claim:100:.yaml"
    pod.write_text("""apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: gpus, namespace: ml}
spec:
  devices:
    requests:
    - name: gpus
      exactly:
        deviceClassName: gpu.nvidia.com
        selectors:
        - cel:
            expression: "device.attributes['gpu.nvidia.com'].productName == ':100: [bold]A100[/]'"
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ml}
spec:
  containers: [{name: c, image: nginx, resources: {claims: [{name: gpus}]}}]
  resourceClaims: [{name: gpus, resourceClaimName: gpus}]
""")
    for args in ([], ["--node", "gpu-node-1"]):
        code, out, _ = kexplain(str(pod), "--nodes", str(FIXTURES / "dra" / "cluster.yaml"), *args, terminal=True)
        assert code == 1
        assert_literal(" ".join(out.split()), "selector wants == :100: [bold]A100[/]")


def test_lint_line_100(tmp_path):
    """The real report: a finding on line 100 of a file (`file.yaml:100:`)."""
    pod = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  annotations: {note: \":smile: [bold]\"}\n"
           "spec:\n  containers:\n  - name: c\n    image: nginx\n    resources: {requests: {cpu: lots}}\n")
    path = tmp_path / "file.yaml"
    path.write_text("# padding\n" * 90 + pod)
    for terminal in (False, True):
        code, out, _ = kexplain("lint", str(path), terminal=terminal)
        assert code == 1
        assert_literal(out, f"{path}:100: error [schema] Pod default/web: spec.containers[0].resources.requests.cpu")


def test_lint_names_and_file_names(tmp_path):
    path = tmp_path / "x:100:[bold].yaml"
    path.write_text('apiVersion: v1\nkind: Pod\nmetadata: {name: "p:smile:[red]x[/red]"}\n'
                    'spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: "[bold]"}}}]}\n')
    code, out, _ = kexplain("lint", str(path))
    assert code == 1
    assert_literal(out, f"{path}:4: error [schema] Pod default/p:smile:[red]x[/red]:")


def test_renderers_print_text_on_any_console(files):
    """The views hand rich Text, never strings it would read: a console that reads markup and
    emoji codes (rich's default) prints them as written too."""
    code, out, _ = kexplain(files["pod"], "--nodes", files["cluster"], "--stored", "-o", "json")
    trace = json.loads(out)
    for node in (None, TAINTED):
        buf = io.StringIO()
        print_trace(trace, Console(file=buf, width=120, force_terminal=False), wide=True, node=node)
        assert_literal(buf.getvalue(), POD_NAME, NAMESPACE, TAINTED)
    # `kexplain pod --pending --details`: each pod's rule and explanation.
    buf = io.StringIO()
    print_pending(buf, Console(file=buf, width=120, force_terminal=True, color_system=None), [trace], [trace],
                  where="every namespace")
    assert_literal(buf.getvalue(), f"{NAMESPACE}/{POD_NAME} ", f"\u2500 {NAMESPACE}/{POD_NAME} \u2500")
