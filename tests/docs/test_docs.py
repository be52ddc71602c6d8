"""The README and the docs/ pages: every runnable example runs with the exit code written beside
it and prints the output shown, every link between the pages resolves, and the README links to
every page."""
from __future__ import annotations

from pathlib import Path

import pytest

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.doc_examples import (DocError, Example, broken_link, examples, github_anchor,
                                        missing_chunk, relative_links)
from tests.support.paths import DOCS, ROOT

PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
INTERNALS = sorted(DOCS.glob("internals/*.md"))     # notes per room, linked from development.md


def page_name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def all_examples() -> list[Example]:
    return [ex for page in PAGES for ex in examples(page_name(page), page.read_text())]


EXAMPLES = all_examples()


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder that sees the checkout's files (fixtures/, deploy/, ...) and takes what an
    example writes (`--svg FILE`, `--output FILE`) instead of the checkout."""
    for entry in ROOT.iterdir():
        if not entry.name.startswith("."):
            (tmp_path / entry.name).symlink_to(entry)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)      # lint's default format stays text
    return tmp_path


def run(ex: Example) -> tuple[int, str]:
    env = TestEnvironment()
    code = main(list(ex.argv), env)
    return code, env.out + env.err


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda ex: f"{ex.id} {ex.command}")
def test_example_runs_as_documented(ex: Example, checkout: Path) -> None:
    code, output = run(ex)
    assert code == ex.exit_code, f"{ex.id}: `{ex.command}` exited {code}, the page says {ex.exit_code}\n{output}"
    missing = missing_chunk(ex, output)
    assert missing is None, f"{ex.id}: `{ex.command}` does not print, in order:\n" + "\n".join(missing or []) \
        + f"\n--- it printed:\n{output}"


def test_the_readme_shows_the_first_command_with_its_output() -> None:
    """The README's example is the install-and-run command's own run, its output in full."""
    readme = (ROOT / "README.md").read_text()
    first = next(line for line in readme.splitlines() if "&& kexplain " in line)
    command = "kexplain " + first.split("&& kexplain ", 1)[1].strip()
    ex = next((e for e in EXAMPLES if e.page == "README.md" and e.command == command), None)
    assert ex is not None, f"README.md shows no run of `{command}`"
    assert len(ex.chunks()) == 1 and len(ex.shown) > 10, "the output is shown in full, without `...`"


@pytest.mark.parametrize("page", PAGES, ids=page_name)
def test_links_resolve(page: Path) -> None:
    broken = [why for t in relative_links(page.read_text()) if (why := broken_link(page, t))]
    assert not broken, f"{page_name(page)}: " + "; ".join(broken)


@pytest.mark.parametrize("page", INTERNALS, ids=page_name)
def test_internals_links_resolve(page: Path) -> None:
    broken = [why for t in relative_links(page.read_text()) if (why := broken_link(page, t))]
    assert not broken, f"{page_name(page)}: " + "; ".join(broken)


def test_development_links_every_internals_page() -> None:
    development = DOCS / "development.md"
    linked = {(development.parent / t.partition("#")[0]).resolve() for t in relative_links(development.read_text())}
    assert INTERNALS, "no docs/internals/ pages"
    assert not set(INTERNALS) - linked, sorted(page_name(p) for p in set(INTERNALS) - linked)


def test_the_readme_links_every_docs_page() -> None:
    linked = {(ROOT / t.partition("#")[0]).resolve() for t in relative_links((ROOT / "README.md").read_text())}
    pages = set(PAGES[1:])
    assert pages, "no docs/ pages"
    assert not pages - linked, sorted(page_name(p) for p in pages - linked)


# --- the checks themselves -----------------------------------------------------------------------

PAGE = """Text [a link](docs/x.md#a-heading) and `[not](a-link.md)`.

```console
$ kexplain fixtures/pod-web.yaml --nodes fixtures/cluster.yaml   # exit code 0
Pod default/web (profile default-scheduler): Scheduled
...
Would be bound to node-2 (score 461, best of 2 scored nodes)
```

```sh
kexplain pod web-0 -n shop
```
"""


def test_examples_are_read_from_console_blocks_only() -> None:
    [ex] = examples("p.md", PAGE)
    assert ex.argv == ("fixtures/pod-web.yaml", "--nodes", "fixtures/cluster.yaml")
    assert ex.exit_code == 0 and ex.line == 4
    assert ex.chunks() == [["Pod default/web (profile default-scheduler): Scheduled"],
                           ["Would be bound to node-2 (score 461, best of 2 scored nodes)"]]


@pytest.mark.parametrize("block, message", [
    ("$ kexplain fixtures/pod-web.yaml\n", "does not say its exit code"),
    ("$ kubectl get pods   # exit code 0\n", "runs kexplain only"),
    ("output first\n$ kexplain x   # exit code 0\n", "output before any"),
])
def test_a_console_block_that_is_not_an_example_is_refused(block: str, message: str) -> None:
    with pytest.raises(DocError, match=message):
        examples("p.md", f"```console\n{block}```\n")


def test_shown_output_must_be_printed_in_order() -> None:
    [ex] = examples("p.md", "```console\n$ kexplain x   # exit code 1\nb\n...\na\n```\n")
    assert missing_chunk(ex, "a\nb\n") == ["a"]
    assert missing_chunk(ex, "b\nc\na\n") is None
    [whole] = examples("p.md", "```console\n$ kexplain x   # exit code 1\na\nb\n```\n")
    assert missing_chunk(whole, "a\nc\nb\n") == ["a", "b"]          # no elision: one run of lines


def test_links_and_anchors_are_checked(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "x.md").write_text("# Title\n\n## A heading\n\n```\n# not a heading\n```\n")
    page = tmp_path / "README.md"
    assert relative_links(PAGE) == ["docs/x.md#a-heading"]
    assert broken_link(page, "docs/x.md#a-heading") is None
    assert "no heading for #not-a-heading" in (broken_link(page, "docs/x.md#not-a-heading") or "")
    assert "no such file" in (broken_link(page, "docs/y.md") or "")
    assert github_anchor("`kexplain lint`: CI, and more (v2)") == "kexplain-lint-ci-and-more-v2"
