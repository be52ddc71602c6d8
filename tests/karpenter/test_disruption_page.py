"""The `--html` page of `kexplain karpenter --disruption` (`render.html.karpenter_disruption`):
written from the document alone, the verdict first, then the budgets with their arithmetic, the
chain, the methods, the nodes, the events, and the text; every line of the chain and of the
budgets is the text's own (one answer everywhere); `--html` without --disruption is refused."""
from __future__ import annotations

import html
import json
import re

from kexplain.cli.app import main
from kexplain.render.karpenter_disruption import budget_rows
from kexplain.render.karpenter_disruption_chain import chain_lines
from tests.karpenter.test_disruption_chain import two_web_pods_one_disruption, write_inputs
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import ROOT

NOW = ["--now", "2026-01-01T12:00:00Z"]
FIXTURES = ROOT / "fixtures" / "karpenter-disruption"


def _run(*args: str) -> tuple[int, TestEnvironment]:
    env = TestEnvironment()
    return main(list(args), env), env


def _page_text(path) -> str:
    """The page's words: tags out, entities read, white space folded."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", path.read_text())).split())


def test_the_page_says_what_the_text_says(tmp_path):
    files = write_inputs(tmp_path, two_web_pods_one_disruption())
    page = tmp_path / "page.html"
    code, env = _run("karpenter", "--disruption", *files, *NOW, "-o", "json", "--html", str(page))
    assert code == 0, env.err
    doc = json.loads(env.out)
    raw = page.read_text()
    assert "<script" not in raw and "http://" not in raw.replace("http://www.w3.org", "")
    words = _page_text(page)
    headings = re.findall(r"<h2[^>]*>([^<]+)</h2>", raw)
    assert headings == ["Verdict", "Budgets (per NodePool and reason)",
                        "The chain: evictions, budgets, where the pods land", "Methods, in Karpenter&#x27;s order",
                        "Nodes", "Events (as Karpenter&#x27;s recorder dedupes them)", "As the terminal prints it"]
    assert words.index("Karpenter would start SingleNodeConsolidation") < words.index("Budgets (per NodePool")
    for _, line in chain_lines(doc):
        if not line.startswith("default/"):         # (a pod's line is the table's cells: said below)
            assert " ".join(line.split()) in words, line
    for row in budget_rows(doc):
        assert " ".join(row[4].split()) in words
    assert ("default/web-2 non-critical 429 Cannot evict pod as it would violate the pod's disruption budget. "
            "(The disruption budget web does not allow evicting pods currently)") in words
    assert "once evicted -> node ip-10-0-2-1.ec2.internal" in words
    assert "Failed to drain node, evicting pod violates a PDB (Pod=default/web-2)" in words
    # the text section is the terminal's answer, the chain in it
    code, env = _run("karpenter", "--disruption", *files, *NOW)
    assert " ".join(env.out.split()) in words


def test_no_decision_says_so_first(tmp_path):
    from tests.karpenter.test_disruption_chain import budget, node, ready
    files = write_inputs(tmp_path, [*node(1), ready("web-0", 1), budget(0)])
    page = tmp_path / "page.html"
    code, env = _run("karpenter", "--disruption", *files, *NOW, "--html", str(page))
    assert code == 0, env.err
    words = _page_text(page)
    assert "kexplain: Karpenter disruption: no method acts" in words
    assert "Karpenter would disrupt no node now: no method computed a command." in words
    assert "The chain" not in words
    assert "Pdb prevents pod evictions (PodDisruptionBudget=[default/web])" in words


def test_html_is_an_option_of_the_disruption_pass(tmp_path):
    files = write_inputs(tmp_path, two_web_pods_one_disruption())
    code, env = _run("karpenter", files[1], *files, "--html", str(tmp_path / "page.html"))
    assert code == 2
    assert "--html is an option of --disruption" in env.err
    assert not (tmp_path / "page.html").exists()


def test_the_node_page_says_what_the_node_text_says(tmp_path):
    """--node NAME --html: the node's answer first (its checks, verified fixes, times), and the
    terminal's section is the node's text, as `kexplain karpenter --disruption --node` prints it."""
    name = "ip-10-0-4-17.ec2.internal"          # the drifted node a do-not-disrupt pod holds
    files = ["--nodes", str(FIXTURES / "cluster.yaml"), "--nodes", str(FIXTURES / "nodepools.yaml")]
    page = tmp_path / "page.html"
    code, env = _run("karpenter", "--disruption", *files, *NOW, "--node", name, "-o", "json", "--html", str(page))
    assert code == 1, env.err                   # the node stays
    doc = json.loads(env.out)
    raw = page.read_text()
    headings = re.findall(r"<h2[^>]*>([^<]+)</h2>", raw)
    assert headings[0] == f"Node {name}"
    words = _page_text(page)
    assert f"kexplain: Node {name}: Karpenter keeps it" in words
    for check in doc["node"]["checks"]:
        assert " ".join(check["message"].split()) in words
    assert doc["node"]["fixes"] and doc["node"]["when"]
    for fix in doc["node"]["fixes"]:
        assert " ".join(fix["description"].split()) in words
    for when in doc["node"]["when"]:
        assert " ".join(when["text"].split()) in words
    code, text = _run("karpenter", "--disruption", *files, *NOW, "--node", name)
    assert code == 1
    terminal = words[words.index("As the terminal prints it"):]
    assert " ".join(text.out.split()) in terminal
