"""The page's Karpenter section without a browser: the trace's `karpenter` document in the
page's data, the section's parts in the page (kexplain karpenter's words), the list's pass."""
from __future__ import annotations

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.html_pages import page_data
from tests.support.paths import FIXTURES

CASE = FIXTURES / "karpenter"


def page(tmp_path, pod: str) -> str:
    out = tmp_path / "page.html"
    env = TestEnvironment()
    assert main([str(CASE / pod), "--nodes", str(CASE / "cluster.yaml"), "--nodes", str(CASE / "nodepools.yaml"),
                 "--no-suggestions", "--html", str(out)], env=env) == 1, env.err
    return out.read_text()


def test_a_pods_section(tmp_path):
    html = page(tmp_path, "pod.yaml")
    data = page_data(html)["doc"]
    assert data["karpenter"]["pods"][0]["pod"] == "default/batch-job"
    assert [a["autoscaler"] for a in data["autoscalers"]] == ["Karpenter"]
    assert 'id="t0-karpenter"' in html and 'class="verdict kp-does"' in html
    assert "NodePool gpu (weight 10): " in html and "does not have known values" in html


def test_a_lists_pass(tmp_path):
    html = page(tmp_path, "web.yaml")
    assert 'id="tlist-karpenter"' in html and 'class="kp-pods"' in html and 'class="kp-claims"' in html
    assert page_data(html)["doc"]["karpenter"]["summary"]["newNodeClaims"] == 1


FRONTEND_AND_DATABASE = """apiVersion: v1
kind: Pod
metadata: {name: frontend}
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: 500m, memory: 512Mi}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: database}
spec:
  nodeSelector: {workload: db}
  containers: [{name: c, image: x, resources: {requests: {cpu: "16", memory: 32Gi}}}]
"""


def test_the_pages_fixes_say_what_the_text_says(tmp_path):
    """Each fix's places on the page are the text's: the instance types and prices of the
    NodeClaim the pass run again makes, not the name of one of the pass explained."""
    import html as markup

    pods = tmp_path / "pods.yaml"
    pods.write_text(FRONTEND_AND_DATABASE)
    out = tmp_path / "page.html"
    env = TestEnvironment(width=400)      # the text's lines unwrapped
    main([str(pods), "--nodes", str(CASE / "cluster.yaml"), "--nodes", str(CASE / "nodepools.yaml"),
          "--html", str(out)], env=env)
    fixes = env.out[env.out.index("What would make Karpenter place"):]
    places = [line.strip() for line in fixes.splitlines() if " -> a new NodeClaim from NodePool " in line]
    assert places and all("$" in p for p in places)        # instance types with their prices
    page = markup.unescape(out.read_text())
    for place in places:
        assert place in page
    assert "default/database -> NodeClaim general-00001" not in page
