"""`--html FILE`: an explanation as one self-contained interactive page.

The page opens anywhere, offline, years later: its style, its script and its data are in the
file; nothing is fetched. Without script it reads as a report (the verdict, the event, the
top nodes, the search, preemption, suggestions; `static`); with it, every node is in a table
that sorts and filters, a click opens a node's full verdict (its plugins' facts in words, its
devices), the search is drawn, and many pods show where each went (page.js). The data is the
document `-o json` writes (`page`), packed so that repeated values are written once (`pack`).
"""
from kexplain.render.html.page import render_page, write_page

__all__ = ["render_page", "write_page"]
