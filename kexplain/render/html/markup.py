"""Writing HTML by hand, safely: every string of the user or the cluster escaped, once.

`Html` is markup already made (never escaped again); anything else is text and is escaped
where it is put. Small on purpose: the page's structure is plain elements (`el`), tables
(`table`) and links to nodes (`node_link`, which the page's script opens in the node panel).
"""
from __future__ import annotations

import html
from typing import Any, Iterable, Mapping


class Html(str):
    """Markup that is ready: put in as it is."""


def esc(value: Any) -> Html:
    """`value` as text in HTML (an `Html` value as it is)."""
    if isinstance(value, Html):
        return value
    return Html(html.escape("" if value is None else str(value), quote=True))


def join(parts: Iterable[Any], sep: str = "") -> Html:
    return Html(esc(sep).join(esc(p) for p in parts))


def el(tag: str, *children: Any, attrs: Mapping[str, Any] | None = None, **kw: Any) -> Html:
    """`<tag attrs>children</tag>`; attributes from `attrs` and keywords (`cls` is `class`, a
    trailing `_` dropped, `data_x` is `data-x`; None or False leaves one out, True writes it bare)."""
    pairs = {**(attrs or {}), **{_attr_name(k): v for k, v in kw.items()}}
    written = "".join(f" {k}" if v is True else f' {k}="{esc(v)}"' for k, v in pairs.items()
                      if v is not None and v is not False)
    return Html(f"<{tag}{written}>{join(children)}</{tag}>")


def _attr_name(key: str) -> str:
    if key == "cls":
        return "class"
    return key.rstrip("_").replace("_", "-")


def table(headers: Iterable[Any], rows: Iterable[Iterable[Any]], *, cls: str | None = None,
          caption: Any = None, numeric: Iterable[int] = ()) -> Html:
    """A table with a header row (`scope="col"`); columns of `numeric` aligned right."""
    right = set(numeric)
    head = el("tr", *(el("th", h, scope="col", cls="num" if i in right else None) for i, h in enumerate(headers)))
    body = [el("tr", *(el("td", c, cls="num" if i in right else None) for i, c in enumerate(row))) for row in rows]
    return el("table", *([el("caption", caption)] if caption is not None else []), el("thead", head),
              el("tbody", *body), cls=cls)


def node_link(trace: int, node: str) -> Html:
    """A node's name, linked to its verdict in the node panel (a plain name without script)."""
    return el("a", node, href=f"#t{trace}/node/{node}", cls="node", data_trace=trace, data_node=node)


def names(trace: int, nodes: Iterable[str], limit: int | None = None) -> Html:
    """Node names linked and comma-separated, the first `limit` of them and how many more."""
    shown = list(nodes)
    more = len(shown) - limit if limit is not None and len(shown) > limit else 0
    if more:
        shown = shown[:limit]
    out = join((node_link(trace, n) for n in shown), ", ")
    return Html(out + esc(f" and {more:,} more")) if more else out


CSP = "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"


def static_page(title: str, generator: str, css: str, body: Mapping[str, Any], meta: Any, main: str) -> str:
    """A whole page that needs nothing else (its CSP lets in only its inline style: no script, nothing
    fetched): `title` in its title and heading, `meta` the line under it, `main` the markup of its
    main part; `body` the body's attributes (its kind, for the browser tests); no generator line when
    `generator` is empty."""
    return "".join([
        "<!DOCTYPE html>\n", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta name="generator" content="{esc(generator)}">' if generator else "", CSP,
        el("title", f"kexplain: {title}"), "<style>", css, "</style></head>\n",
        el("body", el("header", el("h1", "kexplain: ", el("span", title, cls="title")), el("p", meta, cls="meta")),
           el("main", Html(main), id="main"), attrs=body), "</html>\n"])
