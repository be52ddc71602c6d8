"""Reading a page `--html` wrote: its data (the document, unpacked as the page's script does)
and what it would fetch (nothing, if it is self-contained); and the conformance cases whose
pages the browser tests open."""
from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from kexplain.render.html.pack import unpack
from tests.support.paths import BUNDLED_CONFORMANCE

DATA_SCRIPT = re.compile(r'<script type="application/json" id="kx-data">(.*?)</script>', re.S)


def page_data(page: str | Path) -> dict[str, Any]:
    """The page's data: {"kind", "doc", "extra"}, unpacked."""
    text = Path(page).read_text(encoding="utf-8") if isinstance(page, Path) else page
    found = DATA_SCRIPT.findall(text)
    assert len(found) == 1, "one data script"
    return unpack(json.loads(found[0]))


class _Fetches(HTMLParser):
    """Every attribute or style that would make a browser fetch something."""

    URL_ATTRS = {"src", "srcset", "data", "poster", "action", "formaction", "background", "manifest"}

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name in self.URL_ATTRS:
                self.found.append(f"<{tag} {name}={value}>")
            if name == "href" and value and not value.startswith("#"):
                self.found.append(f"<{tag} href={value}>")
        if tag in ("link", "iframe", "embed", "object", "img", "base"):
            self.found.append(f"<{tag}>")


def fetches(page: str | Path) -> list[str]:
    """What the page would load from elsewhere: elements and attributes with a URL, CSS
    imports and url()s (none in a self-contained page)."""
    text = Path(page).read_text(encoding="utf-8") if isinstance(page, Path) else page
    parser = _Fetches()
    parser.feed(DATA_SCRIPT.sub("", text))
    styles = "".join(re.findall(r"<style>(.*?)</style>", text, re.S))
    found = parser.found + re.findall(r"@import[^;]*|url\([^)]*\)", styles)
    scripts = "".join(re.findall(r"<script>(.*?)</script>", text, re.S))
    found += re.findall(r"\b(?:fetch|XMLHttpRequest|importScripts|WebSocket|EventSource)\s*\(", scripts)
    return found


class _Text(HTMLParser):
    """The page's text as a browser without script shows it: no script, style or data."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip -= 1

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def visible_text(page: str) -> str:
    parser = _Text()
    parser.feed(page)
    return " ".join(" ".join(parser.parts).split())


# One bundled conformance case of each family: every kind of verdict the scheduler gives
# (gated, PreFilter stopping the cycle, errors, sequences, nominated nodes, volumes, ...).
CASES = sorted({p.name.split("-")[0]: p.name for p in sorted(BUNDLED_CONFORMANCE.iterdir(), reverse=True)
                if p.is_dir()}.values())


def case_args(case: Path) -> list[str]:
    """The command that explains a conformance case (its pod or pods, cluster, config, start index)."""
    import yaml

    pod = case / "pod.yaml" if (case / "pod.yaml").exists() else case / "pods.yaml"
    args = [str(pod), "--nodes", str(case / "cluster.yaml")]
    if (case / "scheduler-config.yaml").exists():
        args += ["--config", str(case / "scheduler-config.yaml")]
    params = yaml.safe_load((case / "params.yaml").read_text()) if (case / "params.yaml").exists() else None
    if params and "startIndex" in params:
        args += ["--start-index", str(params["startIndex"])]
    return args
