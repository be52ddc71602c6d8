"""The rejected nodes' table of the pods that share a cycle is made once and laid out once per
console (`blocks.Laid`): printed again it gives the same text as the table printed anew."""
from __future__ import annotations

import io

from rich.console import Console

from kexplain.render import table, views
from kexplain.render.blocks import Block, Laid, print_blocks
from kexplain.render.style import Look


def _trace(n: int) -> dict:
    names = [f"n{k:03d}" for k in range(n)]
    fit = {"code": "Unschedulable", "reasons": ["Insufficient cpu"]}
    first = {name: {"plugin": "NodeResourcesFit", **fit} for name in names}
    return {"filter": first, "search": {"numAllNodes": n, "order": names}}


def _printed(blocks: list[Block], width: int, terminal: bool) -> str:
    out = io.StringIO()
    print_blocks(blocks, Console(file=out, width=width, force_terminal=terminal, color_system="truecolor"))
    return out.getvalue()


def test_a_laid_out_table_prints_as_the_table(monkeypatch) -> None:
    monkeypatch.setattr(table, "_REJECTED_BLOCKS", views.SharedReads())
    monkeypatch.setattr(views, "_NAMED_GROUPS", views.SharedReads())
    one = _trace(40)
    twin = {**one, "result": {"status": "Unschedulable"}}          # another pod of the same cycle
    look = Look(plain=True, width=100)
    blocks = table._rejected(one, look)
    assert table._rejected(twin, look) == blocks and isinstance(blocks[0].renderable, Laid)
    laid = blocks[0].renderable
    bare = [Block(laid.renderable), *blocks[1:]]
    for width, terminal in ((100, False), (60, False), (100, True)):
        want = _printed(bare, width, terminal)
        assert _printed(blocks, width, terminal) == want
        assert _printed(blocks, width, terminal) == want          # the second time from its segments
    assert len(laid._laid) == 3                                     # once per console's options
    wide = table._rejected(one, Look(plain=True, wide=True, width=100))
    assert wide[0] is not blocks[0]                                 # another look: another table
