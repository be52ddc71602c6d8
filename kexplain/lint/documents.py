"""The documents lint reads, with where each was written: the path, the document, the item of a
List, the line, and Helm's `# Source:` template.

The text is read by the one reader (`kexplain.load.yaml_io.parse_documents`: the same guards,
values and errors as `kexplain POD`, what kubectl sends), asked for the composed nodes (so a
finding can name the line of its field: `line_of`). Lists are unwrapped as everywhere
(`kexplain.apimachinery.unstructured`), one level: each item is linted as an object of its own.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable, Iterator

import yaml

from kexplain.apimachinery.unstructured import is_list, list_items
from kexplain.errors import InputError, Source
from kexplain.load.gcpolicy import bulk_load
from kexplain.load.yaml_io import ReadError, parse_documents


@dataclass(frozen=True)
class Location:
    """Where an object is: the path ('-' for stdin), the 1-based document (0: the whole file),
    the item of a List, the line (1-based, when known) and Helm's `# Source:` template."""

    path: str
    doc: int = 0
    item: int | None = None
    line: int | None = None
    template: str | None = None

    @property
    def key(self) -> tuple[str, int, int | None]:
        """The object a location is in: its file, document and List item."""
        return (self.path, self.doc, self.item)

    def __str__(self) -> str:
        out = self.path if self.path != "-" else "<stdin>"
        if self.doc:
            out += f": document {self.doc}"
        if self.item is not None:
            out += f", item {self.item}"
        return out

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"file": self.path, "document": self.doc}
        if self.item is not None:
            out["item"] = self.item
        if self.line is not None:
            out["line"] = self.line
        if self.template:
            out["template"] = self.template
        return out


@dataclass(frozen=True)
class Document:
    """One object to lint (a document, or an item of a List), where it is, and its YAML node."""

    obj: Any
    location: Location
    node: yaml.Node | None = None


def read_documents(text: str, path: str) -> tuple[list[Document], InputError | None]:
    """The documents of one file or stream, with their lines (empty ones left out); an error ends
    the file (the documents before it are kept) and is returned, with its document and line."""
    docs: list[Document] = []
    lines = text.splitlines() if "# Source:" in text else []
    try:
        with bulk_load():      # values and their nodes, kept: many objects, no cycles
            for parsed in parse_documents(text, path, nodes=True):
                if parsed.value is None:
                    continue
                line = parsed.line or 1
                docs.append(Document(parsed.value, Location(path, parsed.number, line=line,
                                                            template=_helm_source(lines, line) if lines else None),
                                     parsed.node))
    except ReadError as err:
        return docs, ReadError(err.message, Source(path, err.document), document=err.document, line=err.line)
    return docs, None


def _helm_source(lines: list[str], start_line: int) -> str | None:
    """The `# Source: chart/templates/x.yaml` comment `helm template` writes above a document."""
    for i in range(min(start_line, len(lines)) - 1, -1, -1):
        text = lines[i].strip()
        if text.startswith("# Source:"):
            return text[len("# Source:"):].strip() or None
        if text.startswith("---"):
            return None
    return None


def line_of(node: yaml.Node | None, path: Iterable[str | int]) -> int | None:
    """The line of the deepest part of `path` found under `node` (the key's line for a field)."""
    if node is None:
        return None
    line = node.start_mark.line + 1
    for part in path:
        nxt = None
        if isinstance(node, yaml.MappingNode) and isinstance(part, str):
            for key, value in node.value:
                if getattr(key, "value", None) == part:
                    line, nxt = key.start_mark.line + 1, value
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
            nxt = node.value[part]
            line = nxt.start_mark.line + 1
        if nxt is None:
            break
        node = nxt
    return line


def field_path(dotted: str) -> list[str | int]:
    """A field path as the API server prints it (`spec.selectors[0].cel.expression`) as the keys
    and indexes `line_of` walks: ['spec', 'selectors', 0, 'cel', 'expression']. A map key in
    brackets (`labels[app]`) is a key."""
    out: list[str | int] = []
    for part in dotted.split(".") if dotted else ():
        name, _, rest = part.partition("[")
        if name:
            out.append(name)
        while rest:
            inner, _, rest = rest.partition("]")
            out.append(int(inner) if inner.isdigit() else inner)
            rest = rest[1:] if rest.startswith("[") else ""
    return out


def line_of_field(node: yaml.Node | None, dotted: str | None) -> int | None:
    """The line of a field named as the API server names it (see `field_path`); None without
    a node or a field."""
    if node is None or not dotted:
        return None
    return line_of(node, field_path(dotted))


def unwrap(doc: Document) -> Iterator[Document]:
    """A list (`kind: List`, PodList, ...) becomes its items, each with its own item number and
    line; any other document, and a List without an items array, is linted as it is."""
    if not is_list(doc.obj):
        yield doc
        return
    try:
        items = list_items(doc.obj, Source(doc.location.path, doc.location.doc))
    except InputError:
        yield doc
        return
    items_node = None
    if isinstance(doc.node, yaml.MappingNode):
        items_node = next((v for k, v in doc.node.value if getattr(k, "value", None) == "items"), None)
    for i, item in enumerate(items):
        node = items_node.value[i] if isinstance(items_node, yaml.SequenceNode) and i < len(items_node.value) else None
        line = node.start_mark.line + 1 if node is not None else doc.location.line
        yield Document(item, replace(doc.location, item=i, line=line), node)
