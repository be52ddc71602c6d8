"""Structured output: traces as JSON or YAML (`-o json|yaml`), and a snapshot's `kind: List`.
The trace's keys are the contract: nothing is reordered or dropped. `ListWriter` writes a list
item by item (memory does not grow with the pods), the same text `dumps` would give."""
from __future__ import annotations

import json
import tempfile
from typing import Any, Callable, Iterator, Mapping, TextIO

import yaml

from kexplain.apimachinery.stored_pods import plain
from kexplain.render.json_text import Carried, dumps_indented, pieces_indented

FORMATS = ("json", "yaml")
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Unaliased(_DUMPER):  # type: ignore[misc,valid-type]
    """YAML without anchors: items dumped one by one would each number theirs from `id001`,
    and a reader refuses an anchor defined twice in one document."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _yaml(doc: Any) -> str:
    return yaml.dump(doc, Dumper=_Unaliased, sort_keys=False, allow_unicode=False)


def dumps(doc: Any, fmt: str) -> str:
    """`doc` as `fmt` (json: indented by 2; yaml: keys in the document's order)."""
    if fmt == "json":
        return dumps_indented(doc) + "\n"
    if fmt == "yaml":
        return yaml.safe_dump(doc, sort_keys=False)
    raise ValueError(f"not a structured format: {fmt}")


def write(out: TextIO, doc: Any, fmt: str) -> None:
    out.write(dumps(doc, fmt))


class ListWriter:
    """A `{head..., "items": [...], tail...}` document written item by item (`item`, then `close`
    with the keys after the items); nothing is kept but whether an item was written and the texts
    of the largest containers written (`Carried`: bounded, so that traces sharing a cycle share
    their text too)."""

    def __init__(self, out: TextIO, fmt: str, head: Mapping[str, Any], key: str = "items") -> None:
        if fmt not in FORMATS:
            raise ValueError(f"not a structured format: {fmt}")
        self.out, self.fmt, self.key = out, fmt, key
        self.count = 0
        self.carried = Carried()        # the items' large containers written already (shared traces)
        if fmt == "json":
            body = json.dumps(dict(head), indent=2)[:-2]        # without the closing "\n}"
            self.out.write(f"{body},\n" if head else "{\n")
            self.out.write(f"  {json.dumps(key)}: [")
        else:
            if head:
                self.out.write(_yaml(dict(head)))

    def text(self, doc: Any) -> list[str]:
        """An element's text as `item` writes it as JSON (json.dumps(doc, indent=2), 4 more spaces
        a line), in pieces whose concatenation it is (`pieces_indented`)."""
        return pieces_indented(doc, margin="    ", carried=self.carried)

    def item(self, doc: Any, text: list[str] | None = None) -> None:
        """One more element of the list, written now (as JSON, its `text` pieces when given)."""
        if self.fmt == "json":
            self.out.write("\n    " if not self.count else ",\n    ")
            self.out.writelines(text if text is not None else self.text(doc))
        else:
            if not self.count:
                self.out.write(f"{self.key}:\n")
            self.out.write(_yaml([doc]))
        self.count += 1
        self.out.flush()

    def close(self, tail: Mapping[str, Any]) -> None:
        """The keys after the list; the document is complete."""
        if self.fmt == "json":
            self.out.write("\n  ]" if self.count else "]")
            for k, v in tail.items():
                self.out.write(f",\n  {json.dumps(k)}: " + json.dumps(v, indent=2).replace("\n", "\n  "))
            self.out.write("\n}\n")
        else:
            if not self.count:
                self.out.write(_yaml({self.key: []}))
            if tail:
                self.out.write(_yaml(dict(tail)))
        self.out.flush()


class ItemSpool:
    """A list's items kept aside in a temporary file until the autoscalers' answers are known:
    `add` each, then `write` them in order (or read them back with `items`); memory stays flat.
    A line of JSON per item (`{"doc": item}`), or with a JSON `writer` the writer's text of the
    item (`Carried`) after a line that says its pod and length, and `write` adds the last keys
    to that text, unless the item has one of `late` keys (then kept whole)."""

    _END = "\n    }"         # how the text of a non-empty dict item ends (`ListWriter.text`)

    def __init__(self, writer: ListWriter | None = None, late: frozenset[str] = frozenset()) -> None:
        self.file = tempfile.TemporaryFile("w+", encoding="utf-8", newline="")
        self.writer = writer if writer is not None and writer.fmt == "json" else None
        self.late = late

    def add(self, doc: Any) -> None:
        if self.writer is None or not isinstance(doc, dict) or not doc or not self.late.isdisjoint(doc):
            self.file.write(json.dumps({"doc": doc}) + "\n")
            return
        pieces = self.writer.text(doc)
        self.file.write(json.dumps({"pod": doc.get("pod"), "chars": sum(map(len, pieces))}) + "\n")
        self.file.writelines(pieces)

    def _kept(self) -> Iterator[tuple[dict[str, Any], list[str]]]:
        """Each item's line, and (of an item kept as text) its text: the pieces before `_END`, and
        `_END`."""
        self.file.seek(0)
        while line := self.file.readline():
            kept = json.loads(line)
            if "doc" in kept:
                yield kept, []
                continue
            body = self.file.read(kept["chars"] - len(self._END))
            end = self.file.read(len(self._END))
            assert end == self._END
            yield kept, [body, end]

    def items(self) -> Iterator[Any]:
        """Each item's document, or as text: `{"pod": its pod key, "text": its text}`."""
        for kept, text in self._kept():
            yield kept["doc"] if "doc" in kept else {"pod": kept["pod"], "text": "".join(text)}

    def write(self, writer: ListWriter, last: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
        """Each item written, with the keys `last(item)` says at its end (`{**item, **last(item)}`;
        of an item kept as text, `last` reads its `pod`)."""
        for kept, text in self._kept():
            if "doc" in kept:
                doc = kept["doc"]
                writer.item({**doc, **last(doc)} if isinstance(doc, dict) else doc)
                continue
            body, end = text
            more = last({"pod": kept["pod"]})
            writer.item(None, [body, *(f",\n      {json.dumps(k)}: {dumps_indented(v, margin='      ')}"
                                       for k, v in more.items()), end])

    def __enter__(self) -> "ItemSpool":
        return self

    def __exit__(self, *exc: object) -> None:
        self.file.close()


def objects_text(objects: list[dict[str, Any]], *, as_yaml: bool, single: bool = False) -> str:
    """Objects to save and read again: one object, or a `v1 List` of them; YAML, or JSON with
    one object per line (a snapshot of a large cluster stays diffable and quick to write)."""
    objects = [plain(o) for o in objects]       # (a stored pod read as a view: its object)
    doc: Any = objects[0] if single else {"apiVersion": "v1", "kind": "List", "metadata": {}, "items": objects}
    if as_yaml:
        return yaml.dump(doc, Dumper=_DUMPER, sort_keys=False, allow_unicode=True)
    if single:
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    lines = ",\n".join(json.dumps(o, separators=(",", ":"), ensure_ascii=False) for o in objects)
    return f'{{"apiVersion":"v1","kind":"List","metadata":{{}},"items":[\n{lines}\n]}}\n'
