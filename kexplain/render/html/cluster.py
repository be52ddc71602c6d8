"""The `--html` page of `kexplain cluster`: the report's summary first (its first line, then a
table of the sections with their counts), then each section that ran with its rows, each row a
`<details>` that opens into the row's single-object answer as that command's page shows it: a
pending group's first pod as `kexplain POD` (its trace, `static.trace_section`), a blocked drain as
`kexplain evict drain NODE` and a node's evictions as `kexplain evict pressure|taints NODE`
(`eviction.eviction_body`), a held Workload as `kexplain pod`'s page says Kueue's answer
(`kueue.kueue_section`), a disruption document as `kexplain karpenter --disruption`
(`karpenter_disruption.disruption_body`). Generic over sections: a section this module does not
know shows with its title, its count and its rows, each opening into what it carries (an embedded
document of the kinds above, else its text lines and its fields). Read only from the document; no
script (native `<details>` open and close)."""
from __future__ import annotations

import io
import json
import re
from typing import Any, Iterable, Mapping

from kexplain.render.cluster import PARTS, ROW_LINES, fits_now_words, section_blocks, summary
from kexplain.render.blocks import print_blocks
from kexplain.render.consoles import text_console
from kexplain.render.html.eviction import eviction_body, is_eviction
from kexplain.render.html.karpenter_disruption import disruption_body, is_disruption
from kexplain.render.html.kueue import kueue_section
from kexplain.render.html.markup import Html, el, static_page, table
from kexplain.render.html.static import trace_section
from kexplain.render.style import plural

Doc = Mapping[str, Any]

KIND = "ClusterReport"
TEXT_WIDTH = 80         # the terminal's: the same words as the text
CSS = """
section.cluster { border-top: 2px solid var(--line); margin-top: 1.4rem; }
details.row { border-left: 3px solid var(--line); margin: .3rem 0; padding: .1rem 0 .1rem .6rem; }
details.row > summary { overflow-wrap: anywhere; }
details.row[open] { border-left-color: var(--accent); }
details.row[open] > summary { font-weight: 600; }
details.row > .detail { margin: .4rem 0 .8rem; min-width: 0; }
details.row section.trace { border-top: 0; margin-top: 0; }
details.row pre.text, section.cluster pre.text { white-space: pre-wrap; overflow-wrap: anywhere; }
table.summary { width: 100%; } table.summary td { overflow-wrap: anywhere; }
dl.fields { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .15rem 1rem; margin: .4rem 0; }
dl.fields dt { font-weight: 600; } dl.fields dd { margin: 0; overflow-wrap: anywhere; }
"""
# A row's name for a section this module does not know: the first of these keys it has.
NAME_KEYS = ("name", "node", "pod", "workload", "nodePool", "clusterQueue", "object")


def is_cluster(doc: Doc) -> bool:
    return doc.get("kind") == KIND


def _text(blocks: list) -> str:
    buf = io.StringIO()
    print_blocks(blocks, text_console(buf, width=TEXT_WIDTH, force_terminal=False, color_system=None))
    return buf.getvalue().rstrip("\n")


def _words(s: Doc) -> str:
    """A section's few words, as the text's summary says them (a section the text does not know: its count)."""
    part = PARTS.get(str(s.get("name")))
    return part(s) if part is not None else f"{plural(int(s.get('held') or 0), 'row')} held"


def _summary(doc: Doc) -> list[Html]:
    """The report's first line, as the text's, and each section with its count and a link to it."""
    known = all(str(s.get("name")) in PARTS for s in doc.get("sections") or () if not s.get("skipped"))
    first = summary(doc) if known else ", ".join(
        [f"{s.get('title')}: {_words(s)}" for s in doc.get("sections") or () if not s.get("skipped")]
        + [f"{s.get('name')} skipped" for s in doc.get("sections") or () if s.get("skipped")])
    rows = [(el("a", s.get("title"), href=f"#s-{s.get('name')}"), "skipped" if s.get("skipped") else
             int(s.get("held") or 0), s.get("skipped") or _words(s)) for s in doc.get("sections") or ()]
    verdict = "Something is held." if doc.get("held") else "Nothing is held in the sections that ran."
    return [el("section", el("h2", "Summary", id="summary"), el("p", first, cls="verdict"), el("p", verdict),
               table(("Section", "Held", "In a few words"), rows, cls="summary", numeric=(1,)),
               *[el("p", f"warning: {w}", cls="note") for w in doc.get("readWarnings") or ()],
               cls="cluster summary")]


def _label(name: str, row: Doc) -> str:
    """A row's one line: the text's first line of it, else its name and count."""
    lines = ROW_LINES.get(name)
    if lines is not None:
        try:
            return lines(row)[0][1].removeprefix("- ")
        except (KeyError, IndexError, TypeError):
            pass            # (a row of another shape: said generically below)
    key = next((k for k in NAME_KEYS if isinstance(row.get(k), (str, int))), None)
    words = [str(row[key]) if key else "row"]
    if isinstance(row.get("count"), int):
        words.append(f"({plural(row['count'], 'pod')})")
    status = (row.get("result") or {}).get("status") if isinstance(row.get("result"), Mapping) else None
    why = status or row.get("reason") or row.get("blocked") or row.get("message")
    return " ".join(words) + (f": {why}" if why else "")


def _embedded(row: Doc) -> Iterable[tuple[str, Doc]]:
    """The single-object documents a row carries, by what they are."""
    for key, value in row.items():
        if not isinstance(value, Mapping):
            continue
        if key == "kueue" and value.get("kueueVersion") and "trace" not in row:    # (a trace says it)
            yield "kueue", value
        elif is_eviction(value):
            yield "eviction", value
        elif is_disruption(value):
            yield "disruption", value
        elif value.get("kind") == "SchedulingTrace":
            yield "trace", value


def _fields(row: Doc) -> Html:
    """A row's own fields, each value as the document has it (a structure as JSON)."""
    items = [(k, v if isinstance(v, (str, int, float, bool)) or v is None else
              el("pre", json.dumps(v, indent=2, ensure_ascii=False), cls="text"))
             for k, v in row.items() if k != "trace"]
    return el("dl", *(Html(el("dt", k) + el("dd", v)) for k, v in items), cls="fields")


ID = re.compile(r' id="([^"]*)"')
REFS = re.compile(r' (href="#|aria-labelledby=")([^"]*)"')     # (what refers to an id)


def scoped(parts: Iterable[Html], prefix: str) -> list[Html]:
    """Single-object pages' sections embedded in a row, their ids prefixed with the row's (each page
    names its sections alike: "verdict", "fixes", ...; two drains on one page would repeat them),
    and the links and labels naming those ids with them; a link elsewhere on the page kept.
    Attributes only: every text is escaped (`markup.esc`), so no `id="` stands in one."""
    parts = list(parts)
    own = {m for p in parts for m in ID.findall(p)}

    def ref(m: re.Match) -> str:
        return f' {m.group(1)}{prefix}-{m.group(2)}"' if m.group(2) in own else m.group(0)
    return [Html(REFS.sub(ref, ID.sub(lambda m: f' id="{prefix}-{m.group(1)}"', p))) for p in parts]


def _detail(name: str, row: Doc, n: int, prefix: str) -> list[Html]:
    """What a row opens into: the single-object answers it carries (their ids under the row's
    `prefix`), else the text's lines and its fields."""
    out: list[Html] = []
    for what, doc in _embedded(row):
        if what == "trace":
            if row.get("fitsNow"):      # (its page's verdict is the scheduler's: the pod is still Pending)
                out.append(el("p", f"Still Pending in the cluster; {fits_now_words(row['fitsNow'])}.", cls="note"))
            out.append(trace_section(doc, n, "First pod: "))
        elif what == "kueue":
            out += kueue_section({"kueue": doc}, n)
        elif what == "eviction":
            out += eviction_body(doc)
        else:
            out += disruption_body(doc)
    if out:
        return scoped(out, prefix)
    lines = ROW_LINES.get(name)
    if lines is not None:
        try:
            out.append(el("pre", "\n".join(" " * indent + text for indent, text in lines(row)), cls="text"))
        except (KeyError, TypeError):
            pass
    return [*out, _fields(row)]


def _section(s: Doc, start: int) -> Html:
    """A section that ran: its title with its count, its notes, its rows (each expandable), and the
    section as the terminal prints it when the text knows it."""
    name = str(s.get("name"))
    rows, held = list(s.get("rows") or ()), bool(s.get("held"))
    parts: list[Any] = [el("h2", f"{s.get('title')}: {_words(s)}", id=f"s-{name}"),
                        *[el("p", note, cls="note") for note in s.get("notes") or ()]]
    if not rows:
        parts.append(el("p", "Nothing held." if not held else "Held (see the text below).", cls="note"))
    for i, row in enumerate(rows):
        parts.append(el("details", el("summary", _label(name, row)),
                        el("div", *_detail(name, row, start + i, f"s-{name}-{i}"), cls="detail"),
                        cls="row", id=f"s-{name}-{i}", data_section=name))
    if name in PARTS:
        parts.append(el("details", el("summary", "As the terminal prints it"),     # (open: what no row shows)
                        el("pre", _text(section_blocks(s)), cls="text"), cls="textview", open=not rows and held))
    return el("section", *parts, cls="cluster", data_section=name)


def _skipped(doc: Doc) -> list[Html]:
    skipped = [s for s in doc.get("sections") or () if s.get("skipped")]
    if not skipped:
        return []
    return [el("section", el("h2", "Skipped", id="skipped"),
               el("ul", *(el("li", el("span", s.get("title"), id=f"s-{s.get('name')}"), f": {s['skipped']}")
                          for s in skipped)),
               el("p", "A section skipped is not an all-clear: its inputs are missing.", cls="note"),
               cls="cluster")]


def body(doc: Doc) -> list[Html]:
    """The summary, the sections that ran (the most held first, as the text orders them), those skipped."""
    out = _summary(doc)
    ran = sorted((s for s in doc.get("sections") or () if not s.get("skipped")), key=lambda s: -int(s.get("held") or 0))
    start = 0
    for s in ran:
        out.append(_section(s, start))
        start += len(s.get("rows") or ())
    return out + _skipped(doc)


def render_cluster(doc: Doc, style: str) -> str:
    """The page of one ClusterReport (`style`: the page's css)."""
    title = f"cluster: {'something is held' if doc.get('held') else 'nothing held'}"
    return static_page(title, f"kexplain (Kubernetes {doc.get('kubernetesVersion')})", style + CSS,
                       {"class": "nojs", "data-kind": "cluster"},
                       f"What in the cluster is held, and why, at {doc.get('now')} (Kubernetes "
                       f"{doc.get('kubernetesVersion')}); each row opens into its single-object answer. Nothing was "
                       "changed in the cluster.", "".join(body(doc)))
