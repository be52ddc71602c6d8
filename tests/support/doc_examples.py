"""The runnable examples and the links of the README and the docs/ pages.

A runnable example is a command line in a fenced ```console block: `$ kexplain ARGS  # exit code N`,
then what it prints (stdout, then stderr), up to the next `$ ` line or the end of the block. A
line that is only `...` leaves out part of the output: each run of lines between two such marks
must appear in the real output as it is and in order. Other fences (```sh, ```yaml) are not run.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(r"^```\s*([\w-]*)\s*$")
EXIT = re.compile(r"\s+#\s*exit code (\d+)\s*$")
ELISION = "..."
LINK = re.compile(r"\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)\)")


class DocError(ValueError):
    """A page whose example cannot be read as one (the page and line say where)."""


@dataclass(frozen=True)
class Example:
    page: str
    line: int
    command: str            # as written after `$ `, without the exit code comment
    argv: tuple[str, ...]   # the arguments after `kexplain`
    exit_code: int
    shown: tuple[str, ...]  # the output lines the page shows

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"

    def chunks(self) -> list[list[str]]:
        """The shown output split at `...` lines, each part a run of lines to find as it is."""
        out: list[list[str]] = [[]]
        for line in self.shown:
            if line.strip() == ELISION:
                out.append([])
            else:
                out[-1].append(line.rstrip())
        return [c for c in out if c]


def fenced_blocks(text: str) -> list[tuple[str, int, list[str]]]:
    """(language, line number of the first body line, body lines) of every fenced block."""
    blocks: list[tuple[str, int, list[str]]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m is None:
            i += 1
            continue
        lang, start, body = m.group(1), i + 2, []
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        blocks.append((lang, start, body))
        i += 1
    return blocks


def examples(page: str, text: str) -> list[Example]:
    """Every runnable example of a page, in order."""
    out: list[Example] = []
    for lang, start, body in fenced_blocks(text):
        if lang != "console":
            continue
        current: tuple[int, str] | None = None
        shown: list[str] = []
        for offset, line in enumerate(body + ["$ "]):     # a sentinel ends the last example
            if not line.startswith("$ "):
                if current is None:
                    raise DocError(f"{page}:{start + offset}: console block output before any `$ kexplain` line")
                shown.append(line)
                continue
            if current is not None:
                out.append(_example(page, *current, shown))
            current, shown = (start + offset, line[2:]), []
    return out


def _example(page: str, line: int, written: str, shown: list[str]) -> Example:
    m = EXIT.search(written)
    if m is None:
        raise DocError(f"{page}:{line}: `$ {written}` does not say its exit code (`# exit code N`)")
    command = written[:m.start()].rstrip()
    words = shlex.split(command)
    if not words or words[0] != "kexplain":
        raise DocError(f"{page}:{line}: a console block runs kexplain only, not `{command}`")
    while shown and not shown[-1].strip():
        shown.pop()
    return Example(page, line, command, tuple(words[1:]), int(m.group(1)), tuple(shown))


def missing_chunk(ex: Example, output: str) -> list[str] | None:
    """The first shown run of lines the output does not have (in order after the previous), or None."""
    lines = [ln.rstrip() for ln in output.splitlines()]
    at = 0
    for chunk in ex.chunks():
        found = next((i for i in range(at, len(lines) - len(chunk) + 1) if lines[i:i + len(chunk)] == chunk), None)
        if found is None:
            return chunk
        at = found + len(chunk)
    return None


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, blanks as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """The anchors of a page's headings (outside fenced blocks)."""
    return {github_anchor(line.lstrip("#")) for line in prose(text).splitlines() if re.match(r"#{1,6} ", line)}


def prose(text: str) -> str:
    """The page without its fenced blocks (their lines blanked, so line numbers stay)."""
    lines, inside = text.splitlines(), False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            inside = not inside
            lines[i] = ""
        elif inside:
            lines[i] = ""
    return "\n".join(lines)


def relative_links(text: str) -> list[str]:
    """The targets of the page's Markdown links that point inside the repository."""
    targets = LINK.findall(re.sub(r"`[^`\n]*`", "", prose(text)))
    return [t for t in targets if not re.match(r"[a-z][a-z0-9+.-]*:", t)]


def broken_link(page: Path, target: str) -> str | None:
    """Why a link of `page` does not resolve, or None."""
    path, _, anchor = target.partition("#")
    dest = (page.parent / path).resolve() if path else page
    if not dest.exists():
        return f"{target}: no such file"
    if anchor and dest.suffix == ".md" and anchor not in anchors(dest.read_text()):
        return f"{target}: {dest.name} has no heading for #{anchor}"
    return None
