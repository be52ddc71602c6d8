"""Kueue's answer on the page (`kueue` of a trace: `kexplain.kueue.chain`): a section before the
nodes, its sentence and the explanation as the terminal prints it (`render.kueue_chain`)."""
from __future__ import annotations

import io
from typing import Any, Mapping

from kexplain.render.consoles import text_console
from kexplain.render.html.markup import Html, el
from kexplain.render.kueue_chain import print_answer, summary

TEXT_WIDTH = 100


def kueue_section(trace: Mapping[str, Any], i: int) -> list[Html]:
    answer = trace.get("kueue")
    if not answer:
        return []
    buf = io.StringIO()
    print_answer(answer, text_console(buf, width=TEXT_WIDTH, force_terminal=False, color_system=None))
    return [el("h3", "Kueue", id=f"t{i}-kueue"), el("p", summary(answer), cls="note"),
            el("pre", buf.getvalue().rstrip("\n"), cls="text")]
