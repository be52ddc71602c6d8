"""`--html FILE`: an explanation as one self-contained interactive page (style, script and data
in the file; it reads as a report without script). Layout: docs/internals/render.md."""
from kexplain.render.html.page import render_page, write_page

__all__ = ["render_page", "write_page"]
