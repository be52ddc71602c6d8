"""From paths to Kubernetes objects: files, directories (recursively), `-` for stdin,
multi-document YAML and `kind: List`. Each object keeps its Source for error messages."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, BinaryIO, Iterable

from ..errors import InputError, Source
from .yaml_io import DEFAULT_MAX_BYTES, parse_documents

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")


def expand_paths(paths: Iterable[str]) -> list[str]:
    """Files as given; directories walked recursively (sorted, manifest suffixes only)."""
    out: list[str] = []
    for p in paths:
        if p == "-":
            out.append(p)
            continue
        path = Path(p)
        if path.is_dir():
            seen: set[tuple[int, int]] = set()
            for root, dirs, files in os.walk(path, followlinks=True):
                st = os.stat(root)
                if (st.st_dev, st.st_ino) in seen:  # a symlink loop
                    dirs[:] = []
                    continue
                seen.add((st.st_dev, st.st_ino))
                dirs.sort()
                out.extend(os.path.join(root, f) for f in sorted(files) if f.endswith(MANIFEST_SUFFIXES))
        elif path.exists():
            out.append(p)
        else:
            raise InputError("no such file or directory", source=Source(p))
    return out


def read_text(path: str, max_bytes: int = DEFAULT_MAX_BYTES, stdin: BinaryIO | None = None) -> str:
    try:
        if path == "-":
            stream = stdin if stdin is not None else sys.stdin.buffer
            data = stream.read(max_bytes + 1)
        else:
            size = os.path.getsize(path)
            if size > max_bytes:
                raise InputError(f"file is {size:,} bytes, over the limit of {max_bytes:,} "
                                 "(raise it with --max-input-size)", source=Source(path))
            with open(path, "rb") as fh:
                data = fh.read(max_bytes + 1)
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror or err}", source=Source(path)) from None
    if len(data) > max_bytes:
        raise InputError(f"input is over the limit of {max_bytes:,} bytes (raise it with --max-input-size)",
                         source=Source(path))
    if b"\x00" in data[:8192]:
        raise InputError("not a text file (binary data)", source=Source(path))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(f"not UTF-8 text (byte {err.start})", source=Source(path)) from None


def objects_from_text(text: str, path: str) -> list[tuple[dict[str, Any], Source]]:
    """The objects of one file, `kind: List` unwrapped; empty documents skipped."""
    out: list[tuple[dict[str, Any], Source]] = []
    for doc, src in parse_documents(text, path):
        if doc is None:
            continue
        if not isinstance(doc, dict):
            raise InputError(f"document is a {type(doc).__name__}, not a Kubernetes object (a mapping)",
                             source=src)
        kind = doc.get("kind")
        if not isinstance(kind, str) or not kind:
            raise InputError("object has no kind", source=src, obj=doc, field="kind")
        if kind == "List" or (kind.endswith("List") and isinstance(doc.get("items"), list)):
            items = doc.get("items")
            if not isinstance(items, list):
                raise InputError("a List needs an items array", source=src, obj=doc, field="items")
            for i, item in enumerate(items):
                if not isinstance(item, dict):
                    raise InputError("list item is not a Kubernetes object (a mapping)", source=src,
                                     field=f"items[{i}]")
                if not isinstance(item.get("kind"), str) or not item.get("kind"):
                    if kind != "List":  # PodList etc.: the item kind follows from the list kind
                        item = {**item, "kind": kind[:-4]}
                    else:
                        raise InputError("object has no kind", source=src, obj=item, field=f"items[{i}].kind")
                out.append((item, src))
            continue
        out.append((doc, src))
    return out


def load_objects(paths: Iterable[str], max_bytes: int = DEFAULT_MAX_BYTES,
                 stdin: BinaryIO | None = None) -> list[tuple[dict[str, Any], Source]]:
    out: list[tuple[dict[str, Any], Source]] = []
    for path in expand_paths(paths):
        out.extend(objects_from_text(read_text(path, max_bytes, stdin), path))
    return out
