"""A spooled list item kept as its text gets the keys that come last exactly as the document
`{**item, **last(item)}` would be written (issue 55: the text of traces sharing a cycle is
written once, not parsed back and written again per pod)."""
from __future__ import annotations

import io
import json

import pytest

from kexplain.render.structured import ItemSpool, ListWriter


def _items() -> list[dict]:
    shared = {f"n{i}": {"NodeAffinity": {"code": "Unschedulable", "reasons": ["no"]}} for i in range(200)}
    return [{"pod": {"namespace": "a", "name": "p0"}, "filterAll": shared, "result": {"status": "Unschedulable"}},
            {"pod": {"namespace": "a", "name": "p1"}, "filterAll": shared, "autoscalers": ["given"]},
            {"pod": {"namespace": "a", "name": "p2"}, "filterAll": shared, "result": {"status": "Unschedulable"}}]


def _last(item: dict) -> dict:
    name = item["pod"]["name"]
    return {} if name == "p2" else {"autoscalers": [{"pod": name, "scaleUp": True}], "more": {"x": [1, 2]}}


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_spooled_items_are_written_as_the_documents_with_their_last_keys(fmt: str) -> None:
    direct, spooled = io.StringIO(), io.StringIO()
    plain = ListWriter(direct, fmt, {"kind": "List"})
    for item in _items():
        plain.item({**item, **_last(item)})
    plain.close({})
    writer = ListWriter(spooled, fmt, {"kind": "List"})
    with ItemSpool(writer, frozenset({"autoscalers"})) as spool:
        for item in _items():
            spool.add(item)
        kept = list(spool.items())
        spool.write(writer, _last)
    writer.close({})
    assert spooled.getvalue() == direct.getvalue()
    if fmt == "json":       # kept as text but the item that has a late key
        assert ["text" in k for k in kept] == [True, False, True]
        assert json.loads(spooled.getvalue())["items"][1]["autoscalers"] == [{"pod": "p1", "scaleUp": True}]
