"""The pre-commit and GitHub Actions set-ups docs/lint.md gives to paste: each names a hook
`.pre-commit-hooks.yaml` defines, runs what that hook runs, lints the manifests and not the
configuration or the pool, and installs the wheel this checkout builds."""
from __future__ import annotations

import re
import shlex
import tomllib

import pytest
import yaml

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.doc_examples import fenced_blocks
from tests.support.paths import DOCS, ROOT

LINT_PAGE = (DOCS / "lint.md").read_text()
HOOKS = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
CONFIGS = [doc for lang, _, body in fenced_blocks(LINT_PAGE) if lang == "yaml"
           and isinstance(doc := yaml.safe_load("\n".join(body)), dict) and "repos" in doc]
REPOS = [repo for doc in CONFIGS for repo in doc["repos"]]
SNIPPET_HOOKS = [(repo["repo"], hook) for repo in REPOS for hook in repo["hooks"]]


def test_the_page_shows_a_local_hook_and_one_from_a_clone() -> None:
    assert sorted(repo == "local" for repo, _ in SNIPPET_HOOKS) == [False, True]
    (clone,) = [repo for repo in REPOS if repo["repo"] != "local"]
    assert re.fullmatch(r"[0-9a-f]{40}", clone["rev"]), "a commit (no tag exists)"


@pytest.mark.parametrize(("repo", "hook"), SNIPPET_HOOKS, ids=lambda v: v if isinstance(v, str) else "")
def test_a_snippet_hook_is_one_the_repository_defines(repo: str, hook: dict) -> None:
    assert hook["id"] in HOOKS
    if repo == "local":           # pre-commit then reads nothing of .pre-commit-hooks.yaml: the same fields
        defined = HOOKS[hook["id"]]
        assert (hook["entry"], hook["require_serial"], hook["language"]) == (
            defined["entry"], defined["require_serial"], "system")


@pytest.mark.parametrize(("repo", "hook"), SNIPPET_HOOKS, ids=lambda v: v if isinstance(v, str) else "")
def test_a_snippet_hook_lints_the_manifests_only(repo: str, hook: dict) -> None:
    files = re.compile(hook.get("files", HOOKS[hook["id"]]["files"]))
    picked = [p for p in ("k8s/web.yaml", "k8s/api/db.json", ".pre-commit-config.yaml", "cluster/pool.yaml",
                          "k8s/README.md") if files.search(p)]
    assert picked == ["k8s/web.yaml", "k8s/api/db.json"]


@pytest.mark.parametrize("hook_id", sorted(HOOKS))
def test_every_hook_entry_runs(hook_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The entry with the snippets' args and a changed manifest, as pre-commit calls it."""
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    program, *argv = shlex.split(HOOKS[hook_id]["entry"])
    assert program == "kexplain"
    verdicts = {}
    for pod in ("pod-web", "pod-too-big"):
        env = TestEnvironment()
        verdicts[pod] = main([*argv, "--nodes", "fixtures/cluster.yaml", f"fixtures/{pod}.yaml"], env), env.out
    assert verdicts["pod-web"][0] == 0 and verdicts["pod-too-big"][0] == 1
    assert "error [unschedulable] Pod default/analytics" in verdicts["pod-too-big"][1]


def test_the_workflow_installs_the_wheel_the_checkout_builds() -> None:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    wheel = f"kexplain-{version}-py3-none-any.whl"
    assert "python3 -m pip wheel --no-deps -w wheels ." in " ".join(LINT_PAGE.split())
    assert f"wheels/{wheel}" in LINT_PAGE and f"- run: pip install tools/{wheel}\n" in LINT_PAGE
