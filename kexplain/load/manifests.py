"""From paths to Kubernetes objects: files, directories (recursively), `-` for stdin,
multi-document YAML and `kind: List`. Each object keeps its Source for error messages.

The files of one argument are one `kubectl apply` (`one_apply`); `check_objects` asks what the
API server's decoding asks of a create request. Details: docs/internals/load.md.
"""
from __future__ import annotations

import io
import os
import stat
import sys
from collections import Counter
from dataclasses import dataclass
from itertools import repeat
from typing import Any, BinaryIO, Callable, Collection, Iterable, Iterator, Sequence, TypeVar

from kexplain.apimachinery.unstructured import (flatten_lists, kind_problem, not_an_object, plain_items,
                                             type_name)
from kexplain.errors import CLUSTER_SCOPED_KINDS, AdmissionRejected, InputError, Source, is_builtin_api
from kexplain.features import DEFAULT as DEFAULT_VERSION, KubeVersion
from kexplain.admission.validate_update import stored_update, update_refusal
from kexplain.apimachinery import columns
from kexplain.apimachinery.stored_pods import OBJECTS, StoredPod, asked_once, plain as plain_object
from kexplain.load import json_list
from kexplain.load.apply_patch import alike
from kexplain.load.limits import DEFAULT_MAX_BYTES, DEFAULT_MAX_OBJECTS
from kexplain.load.namespace_flag import in_namespace
from kexplain.load.problems import RAISE, Problems
from kexplain.load.yaml_io import ParsedDocument, json_document, parse_documents
from kexplain.apimachinery.identity import generated_name
from kexplain.admission.decode import check_fields
from kexplain.admission.dra_convert import reads
from kexplain.admission.openapi import MISSING, NOT_SERVED, SERVED, builtin_index

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
DUMP_OBJECTS = 1000             # objects read from which `load_objects` reads their rows once (`columns.Dump`)
FIRST_CHUNK = 1 << 16           # read first: binary data is refused before the rest is read
READ_CHUNK = 1 << 24            # a pipe read this much at a time


def expand_paths(paths: Iterable[str]) -> list[str]:
    """Files as given; directories walked recursively (sorted, manifest suffixes only), each
    directory once however many symlinks lead to it; an unreadable directory is an error."""
    out: list[str] = []
    for p in paths:
        if p == "-":
            out.append(p)
            continue
        try:
            st = os.stat(p)
        except FileNotFoundError:
            what = "broken symbolic link" if os.path.islink(p) else "no such file or directory"
            raise InputError(what, source=Source(p)) from None
        except (OSError, ValueError) as err:   # a link loop, no permission, a NUL in the name
            raise InputError(f"cannot read: {getattr(err, 'strerror', None) or err}", source=Source(p)) from None
        if stat.S_ISDIR(st.st_mode):
            out.extend(_walk(p))
        else:
            out.append(p)
    return out


def _walk(top: str) -> list[str]:
    out: list[str] = []
    seen: set[tuple[int, int]] = set()

    def refuse(err: OSError) -> None:
        raise InputError(f"cannot read directory: {err.strerror or err}", source=Source(err.filename or top))

    for root, dirs, files in os.walk(top, followlinks=True, onerror=refuse):
        try:
            st = os.stat(root)
        except OSError as err:
            refuse(err)
        if (st.st_dev, st.st_ino) in seen:  # a symlink loop, or a second way to the same directory
            dirs[:] = []
            continue
        seen.add((st.st_dev, st.st_ino))
        dirs.sort()
        out.extend(path for path in (os.path.join(root, f) for f in sorted(files) if f.endswith(MANIFEST_SUFFIXES))
                   if not _special(path))
    return out


def _special(path: str) -> bool:
    """A FIFO, socket or device (opening a FIFO nobody writes to would wait forever): skipped in
    directories. A broken link is not skipped: reading it says what is wrong."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


class TooLarge(InputError):
    """An input over the caller's --max-input-size: a limit of the run, not a bad file."""


def read_text(path: str, max_bytes: int = DEFAULT_MAX_BYTES, stdin: BinaryIO | None = None) -> str:
    """The text of a file (or stdin), refused when larger than `max_bytes`, binary or not UTF-8.
    A device or a pipe is read no further than the limit (or the first chunk, when binary)."""
    return decoded_text(read_data(path, max_bytes, stdin), path)


def read_data(path: str, max_bytes: int = DEFAULT_MAX_BYTES, stdin: BinaryIO | None = None) -> bytes:
    """The bytes of a file (or stdin), refused as `read_text` refuses them, but for their encoding
    (`decoded_text` checks it)."""
    over = f"over the limit of {max_bytes:,} bytes (raise it with --max-input-size)"
    try:
        if path == "-":
            stream = stdin if stdin is not None else sys.stdin.buffer
            data = _read_bounded(stream, max_bytes, path)
        else:
            if os.path.isdir(path):
                raise InputError("is a directory, not a file", source=Source(path))
            size = os.path.getsize(path)
            if size > max_bytes:
                raise TooLarge(f"file is {size:,} bytes, {over}", source=Source(path))
            with open(path, "rb") as fh:
                data = _read_bounded(fh, max_bytes, path)
    except OSError as err:
        raise InputError(f"cannot read: {_os_problem(path, err)}", source=Source(path)) from None
    if len(data) > max_bytes:
        raise TooLarge(f"input is {over}", source=Source(path))
    return data


def decoded_text(data: bytes, path: str) -> str:
    """`data` as text (UTF-8, a byte-order mark dropped), or InputError naming the first bad byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(f"not UTF-8 text (byte {err.start})", source=Source(path)) from None


def read_settings_document(path: str, what: str, max_bytes: int | None = None) -> tuple[Any, Source]:
    """The one document of a settings file (`{}` when none: the defaults) and the file as a Source for
    its values' errors; `what` names the settings when there are more."""
    text = read_text(path, max_bytes or DEFAULT_MAX_BYTES)
    docs = [d.value for d in parse_documents(text, path) if d.value is not None]
    if len(docs) > 1:
        raise InputError(f"expected one document of {what}, found {len(docs)}", source=Source(path))
    return (docs[0] if docs else {}), Source(path)


def _os_problem(path: str, err: OSError) -> str:
    """The system's words for a file that cannot be read; for a symbolic link whose target is
    missing (a repository's link into a folder not checked out), the link and its target."""
    if os.path.islink(path) and not os.path.exists(path):
        return f"a symbolic link to {os.readlink(path)}, which does not exist"
    return str(err.strerror or err)


def _read_bounded(stream: BinaryIO, max_bytes: int, path: str) -> bytes:
    """At most `max_bytes + 1` bytes, stopping early at binary data; never asking for more than the input
    holds (`read(n)` allocates n bytes first, and `max_bytes` is gigabytes)."""
    start = stream.tell() if stream.seekable() else None
    first = stream.read(min(FIRST_CHUNK, max_bytes + 1)) or b""
    if first.startswith((b"\xff\xfe", b"\xfe\xff")):   # what PowerShell's `>` writes
        raise InputError("UTF-16 text: save it as UTF-8", source=Source(path))
    if b"\x00" in first[:8192]:
        raise InputError("not a text file (binary data)", source=Source(path))
    if len(first) > max_bytes:
        return first
    if start is not None:   # a regular file: read it whole at once rather than copy two parts
        end = stream.seek(0, os.SEEK_END)
        stream.seek(start)
        want = min(max(end - start, 0), max_bytes) + 1       # (a byte more: a file that grew since)
        data = stream.read(want) or b""
        if len(data) < want or len(data) > max_bytes:
            return data
        return data + (stream.read(max_bytes + 1 - len(data)) or b"")
    out = io.BytesIO(first)     # (grown in place, handed over without a copy)
    out.seek(len(first))
    while out.tell() <= max_bytes:
        chunk = stream.read(min(READ_CHUNK, max_bytes + 1 - out.tell()))
        if not chunk:
            break
        out.write(chunk)
    return out.getvalue()


def objects_from_text(text: str, path: str, limit: int = DEFAULT_MAX_OBJECTS,
                      before: int = 0, problems: Problems = RAISE) -> list[tuple[dict[str, Any], Source]]:
    """The objects of one file, `kind: List` unwrapped, empty documents skipped, at most `limit` with
    `before`; a document that is not an object, or a parse error, goes to `problems`."""
    return _objects_of(parse_documents(text, path), path, limit, before, problems)


def _objects_of(documents: Iterator[ParsedDocument], path: str, limit: int, before: int,
                problems: Problems) -> list[tuple[dict[str, Any], Source]]:
    return _read_objects(documents, path, limit, before, problems)[0]


def _read_objects(documents: Iterator[ParsedDocument], path: str, limit: int, before: int,
                  problems: Problems) -> tuple[list[tuple[dict[str, Any], Source]], columns.Rows | None]:
    """The objects of `documents`, and their rows when every document was a dump's List read
    with them (`plain_items`: the rows of its items, from the pass that checked them)."""
    out: list[tuple[dict[str, Any], Source]] = []
    rows: list[columns.Rows | None] = []     # each document's, when read with its items (`plain_items`)
    room = limit - before
    while True:
        try:
            doc = next(documents, None)
        except InputError as err:          # the text stops parsing here (a ReadError)
            problems.add(err)
            return out, _joined(rows)
        if doc is None:
            return out, _joined(rows)
        if doc.value is None:
            continue
        src = Source(path, doc.number)
        try:
            items, read = _document_objects(doc.value, src)
        except InputError as err:
            problems.add(err)
            continue
        if len(out) + len(items) > room:
            raise InputError(f"more than {limit:,} objects (raise the limit with --max-objects)", source=src)
        out.extend(zip(items, repeat(src)))
        rows.append(read)


def _joined(rows: list[columns.Rows | None]) -> columns.Rows | None:
    """The rows of parts read one after another, None when one part has none (or no part)."""
    if not rows or any(r is None for r in rows):
        return None
    whole = rows[0]
    for more in rows[1:]:
        whole = whole + more        # type: ignore[operator]
    return whole


def _document_objects(obj: Any, src: Source) -> tuple[list[dict[str, Any]], columns.Rows | None]:
    """The objects of one document (its List's items unwrapped), with their rows when read with them;
    InputError for a document that is not an object."""
    if not isinstance(obj, dict):
        raise InputError(f"document is a {type_name(obj)}, not a Kubernetes object (a mapping)", source=src)
    other = not_an_object(obj)
    if other is not None:
        raise InputError(other, source=src)
    problem = kind_problem(obj)
    if problem is not None:
        raise InputError(problem, source=src, obj=obj, field="kind")
    plain = plain_items(obj)
    if plain is not None:           # a cluster dump: nothing to refuse but its size
        return plain
    return [item for item, _ in flatten_lists(obj, src)], None


def load_objects(paths: Iterable[str], max_bytes: int = DEFAULT_MAX_BYTES, stdin: BinaryIO | None = None,
                 max_objects: int = DEFAULT_MAX_OBJECTS, problems: Problems = RAISE, namespace: str | None = None
                 ) -> list[tuple[dict[str, Any], Source]]:
    """Every object of `paths`, in order, as one apply (`one_apply`), within the caller's limits; what
    cannot be read goes to `problems`. `namespace`: the command's -n, as `kubectl apply -n` takes it."""
    out: list[tuple[dict[str, Any], Source]] = []
    rows: list[columns.Rows | None] = []      # each path's objects' rows (read with them, for a dump)
    for path in expand_paths(paths):
        documents = _documents(path, max_bytes, stdin, problems)
        if documents is None:
            continue
        read, read_rows = _read_objects(documents, path, max_objects, len(out), problems)
        out.extend(read)
        rows.append(read_rows if read_rows is not None else columns.Rows.of(read))
    if namespace:           # (the objects change: their rows are read again)
        return named(one_apply(as_dump(in_namespace(out, namespace, problems)), problems))
    return named(one_apply(as_dump(out, _joined(rows)), problems))


def _documents(path: str, max_bytes: int, stdin: BinaryIO | None, problems: Problems
               ) -> Iterator[ParsedDocument] | None:
    """The documents of `path` (a large JSON List in parts, a JSON dump from its bytes, or YAML); None
    when it cannot be read (in `problems`; past the size limit, raised)."""
    mapped = _mapped_dump(path, max_bytes)
    if mapped is not None:
        return iter([mapped])
    try:
        data = read_data(path, max_bytes, stdin)
        document = json_document(data)
        text = decoded_text(data, path) if document is None else ""
    except InputError as err:
        if isinstance(err, TooLarge):      # the caller's limit: it ends the run
            raise
        problems.add(err)
        return None
    del data
    return iter([document]) if document is not None else parse_documents(text, path)


def as_dump(objs: list[tuple[dict[str, Any], Source]], rows: columns.Rows | None = None
            ) -> list[tuple[dict[str, Any], Source]]:
    """`objs` as a `columns.Dump` when they are a cluster's many (what the passes over them ask,
    read once: `rows`, when they were read with them), else as they are."""
    if len(objs) < DUMP_OBJECTS:
        return objs
    return columns.Dump(objs, rows if rows is not None and len(rows) == len(objs) else None)


def _mapped_dump(path: str, max_bytes: int) -> ParsedDocument | None:
    """The document of a regular file that holds a large JSON List (`json_list.read_file`) within
    `max_bytes`; None for anything else (its text is read)."""
    if path == "-":
        return None
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(st.st_mode) or not json_list.MIN_CHARS <= st.st_size <= max_bytes:
        return None
    document = json_list.read_file(path)
    return ParsedDocument(document, 1) if document is not None else None


def kustomization_dirs(objs: Iterable[tuple[dict[str, Any], Source]]) -> list[str]:
    """The folders of the kustomizations among `objs`: `kubectl apply -f` sends such a file as an object
    and builds nothing, so the files beside it are explained as written."""
    out: list[str] = []
    for obj, src in objs:
        api_version = obj.get("apiVersion")
        if obj.get("kind") in ("Kustomization", "Component") and isinstance(api_version, str) \
                and api_version.startswith("kustomize.config.k8s.io/"):
            folder = os.path.dirname(src.path) or "."
            if folder not in out:
                out.append(folder)
    return out


def kustomize_hint(folders: Sequence[str], command: str = "kexplain -", done: str = "explained") -> str:
    """What to run instead (`command`, reading stdin), for the kustomizations
    `kustomization_dirs` found ('' for none); `done`: what is done to the files as written."""
    if not folders:
        return ""
    more = f" (and {len(folders) - 1} more)" if len(folders) > 1 else ""
    return (f"{folders[0]}{more} is a kustomization, which `kubectl apply -f` does not build: its files are "
            f"{done} as written; `kubectl kustomize {folders[0]} | {command}` {done.removesuffix('ed')}s what it "
            "builds")


S = TypeVar("S")


def generate_name_refusal(prefix: str) -> str:
    """What `kubectl apply` says of a generateName-only object (`prefix`): it patches by name, and none is
    known before the API server generates one."""
    return f"from {prefix}: cannot use generate name with apply"


def named(objs: list[tuple[dict[str, Any], S]]) -> list[tuple[dict[str, Any], S]]:
    """`objs` with each generateName-only object named as the API server names it on create (copies):
    the n-th of one kind, namespace and prefix gets the n-th name, so a run repeats."""
    rows = columns.rows_of(objs)
    if rows is not None and all(rows.names):       # a dump: every object named
        return objs
    counts: dict[tuple[Any, Any, str], int] = {}
    out = objs
    for i, (obj, src) in enumerate(objs):
        meta = obj.get("metadata")
        if type(meta) is not dict or meta.get("name") or not isinstance(meta.get("generateName"), str) \
                or not meta["generateName"]:
            continue
        key = (obj.get("kind"), meta.get("namespace") or "", meta["generateName"])
        counts[key] = n = counts.get(key, -1) + 1
        if out is objs:
            out = list(objs)
        out[i] = ({**obj, "metadata": {**meta, "name": generated_name(obj, n)}}, src)
    return out


# -- one apply: the same object given twice ------------------------------------------------------
Identity = tuple[str, str, str, str]


def identity(obj: Any, scopes: dict[tuple[str, str], tuple[str, bool, bool]] | None = None) -> Identity | None:
    """(API group, kind, namespace, name) as the API server stores it, or None without a kind or name.
    `scopes`: `_scope` by (apiVersion, kind), kept by the caller for one pass over many objects."""
    kind = obj.get("kind") if isinstance(obj, OBJECTS) else None
    meta = obj.get("metadata") if isinstance(obj, OBJECTS) else None
    name = meta.get("name") if isinstance(meta, dict) else None
    if not isinstance(kind, str) or not kind or not isinstance(name, str) or not name:
        return None
    api_version = obj.get("apiVersion")
    if scopes is not None and type(api_version) is str:
        scope = scopes.get((api_version, kind))
        if scope is None:
            scope = scopes[(api_version, kind)] = _scope(api_version, kind)
    else:
        scope = _scope(api_version, kind)
    group, cluster_scoped, builtin = scope
    if cluster_scoped:
        return group, kind, "", name
    namespace = meta.get("namespace")
    namespace = namespace if isinstance(namespace, str) else ""
    return group, kind, (namespace or "default") if builtin else namespace, name


def _scope(api_version: object, kind: str) -> tuple[str, bool, bool]:
    """What `identity` reads of an object's apiVersion and kind: its API group, whether the kind
    is cluster-scoped, whether the API is built in (`object_namespace`'s rules)."""
    group = api_version.rpartition("/")[0] if isinstance(api_version, str) else ""
    return group, kind in CLUSTER_SCOPED_KINDS, is_builtin_api(api_version)


@dataclass(frozen=True)
class Repeat:
    """An object given again in one apply: its index, the index of its first occurrence, and
    whether the two are alike (then they are one object)."""

    index: int
    first: int
    same: bool


def repeats(objs: Sequence[tuple[Any, Source]]) -> list[Repeat]:
    """The objects of `objs` (one apply, in order) that repeat an earlier one's identity: `kubectl apply`
    applies both (`applied`)."""
    first: dict[Identity, int] = {}
    out: list[Repeat] = []
    scopes: dict[tuple[str, str], tuple[str, bool, bool]] = {}
    for i in _same_kind_and_name(objs):
        key = identity(objs[i][0], scopes)
        if key is None:
            continue
        j = first.setdefault(key, i)
        if j != i:
            out.append(Repeat(i, j, alike(objs[j][0], objs[i][0])))
    return out


def _same_kind_and_name(objs: Sequence[tuple[Any, Source]]) -> Iterable[int]:
    """The indexes of the objects that may repeat another (kind and name shared), found in C; every index
    when the objects are not all mappings."""
    rows = columns.rows_of(objs)
    if rows is None:
        return range(len(objs))
    try:
        if len(set(zip(rows.kinds, rows.names))) == len(rows.names):    # (a set: the common case)
            return ()
        names = Counter(rows.names)
        maybe = [i for i, name in enumerate(rows.names) if names[name] > 1]     # (a name given twice)
        counts = Counter((rows.kinds[i], rows.names[i]) for i in maybe)
    except TypeError:       # a kind or name that is no key
        return range(len(objs))
    return [i for i in maybe if counts[(rows.kinds[i], rows.names[i])] > 1]


@dataclass(frozen=True)
class Applied:
    """What one apply leaves of objects given more than once, by first index: the occurrence the
    cluster ends with (`stands`) and the later ones the API server refuses (`refused`)."""

    stands: dict[int, int]
    refused: dict[int, AdmissionRejected]


def applied(found: Sequence[Repeat], objs: Sequence[tuple[Any, Source]] | None = None,
            kube: KubeVersion = DEFAULT_VERSION) -> Applied:
    """`kubectl apply` creates from the first manifest and patches with each later one (`apply_patch`),
    unless the update is refused (`validate_update.update_refusal`): then the earlier stands."""
    stands: dict[int, int] = {}
    refused: dict[int, AdmissionRejected] = {}
    stored: dict[int, Any] = {}     # first -> what the API server stores of the occurrence that stands
    for r in found:
        if r.same and r.first not in stands:
            continue
        stand = stands.get(r.first, r.first)
        if objs is not None:
            later, earlier = objs[r.index][0], stored.get(r.first, objs[stand][0])
            if alike(objs[stand][0], later):
                continue
            updated = isinstance(later, dict) and isinstance(earlier, dict)
            why = update_refusal(later, earlier, kube) if updated else None
            if why is not None:
                refused[r.index] = AdmissionRejected(why, source=objs[r.index][1], obj=later)
                continue
            stored[r.first] = stored_update(later, earlier) if updated else later
        stands[r.first] = r.index
    return Applied({first: index for first, index in stands.items() if index != first}, refused)


def one_apply(objs: list[tuple[dict[str, Any], Source]], problems: Problems = RAISE,
              kube: KubeVersion = DEFAULT_VERSION) -> list[tuple[dict[str, Any], Source]]:
    """`objs` as one apply: each object once, where first given, with the contents of the occurrence that
    stands (`applied`); a refused update goes to `problems`."""
    found = repeats(objs)
    if not found:
        return objs
    settled = applied(found, objs, kube)
    for index in sorted(settled.refused):
        problems.add(settled.refused[index])
    dropped = {r.index for r in found}
    return [objs[settled.stands.get(i, i)] for i in range(len(objs)) if i not in dropped]


@dataclass(frozen=True)
class Checked:
    """What `check_objects` leaves: the objects to read, in order (an object kubectl apply
    refuses left out), and the warnings to print."""

    objects: list[tuple[dict[str, Any], Source]]
    warnings: list[str]


def check_objects(objs: Iterable[tuple[dict[str, Any], Source]], kinds: Collection[str], *,
                  validate: str = "strict", stored: bool = False, shape_index: Any = None,
                  explained: Collection[str] = (), kube: KubeVersion = DEFAULT_VERSION,
                  problems: Problems = RAISE) -> Checked:
    """Ask of the objects of `kinds` what `kube`'s API server asks of a create request, as kubectl
    sends them (served version, decoding, `validate`'s unknown fields); other kinds are kept, refusals go
    to `problems`. Warnings, errors and cost: docs/internals/load.md."""
    index = None
    statuses: dict[tuple[Any, str], Any] = {}
    fields = not stored
    rows = columns.rows_of(objs)
    if rows is not None and _all_served_and_stored(rows, kinds, fields, kube):    # a dump: nothing to ask
        return Checked(objs.same(), [])       # type: ignore[attr-defined]
    # the shapes of pod whose fields were found sound, for this version and `validate`
    sound = shape_index.fields_ok.setdefault((kube.minor, validate), set()) if shape_index is not None else set()
    # a Pod's apiVersion -> `field_check` of its status; (apiVersion, id(status)) -> (it, its answer)
    status_checks: dict[Any, Any] = {}
    kept: list[tuple[dict[str, Any], Source]] = []
    refused: list[tuple[str, InputError]] = []           # (kind, why)
    off: dict[str, tuple[InputError, list[int]]] = {}    # version -> its first object's words, how many
    warnings: list[str] = []
    # a dump's objects' kinds, apiVersions and whether stored, as their rows say (else asked of each)
    known = zip(rows.kinds, rows.api_versions, rows.stored) if rows is not None else None
    for obj, src in objs:
        if known is not None:
            kind, api_version, was_stored = next(known)
        else:
            kind, api_version, was_stored = obj.get("kind"), obj.get("apiVersion"), None
        if kind not in kinds:
            kept.append((obj, src))
            continue
        key = (api_version if isinstance(api_version, str) else None, kind)
        status = statuses.get(key, statuses)
        if status is statuses:      # (not looked up yet)
            index = index or builtin_index(kube.minor)
            status = statuses[key] = index.api_version_status(api_version, kind)
        if status is not None and status.state != SERVED and not _version_read(
                obj, src, kind, api_version, status, stored, kube, refused, off, warnings, problems):
            continue
        if fields and not (was_stored if was_stored is not None else _stored(obj)):
            shape = shape_index.entry(obj)[1] if shape_index is not None and kind == "Pod" else None
            # (its status, or the one standing in for it: its class's, `admission.status_classes`)
            own = shape_index.stand_in(obj) if shape is not None else None
            if shape is not None and shape in sound and isinstance(api_version, str) and (
                    (held := status_checks.get((api_version, id(own)))) is not None
                    and held[0] is own and held[1] or asked_once(      # (its status found sound before, or now)
                        status_checks, (api_version, id(own)), own,
                        _status_check(status_checks, api_version, kind, validate, kube), own)):
                kept.append((obj, src))     # (its shape found sound, and its own status: `shapes.STATUS`)
                continue
            if not _decodes(obj, src, shape, sound, validate, kube, warnings, problems):
                continue
        kept.append((obj, src))
    _close(kept, refused, off, warnings, explained, problems)
    if rows is not None and len(kept) == len(objs):     # (all kept, in order: a dump's, with its rows)
        return Checked(columns.Dump(kept, rows), warnings)
    return Checked(kept, warnings)


def _version_read(obj: dict[str, Any], src: Source, kind: Any, api_version: Any, status: Any, stored: bool,
                  kube: KubeVersion, refused: list[tuple[str, InputError]],
                  off: dict[str, tuple[InputError, list[int]]], warnings: list[str], problems: Problems) -> bool:
    """`check_objects`' step for an object at an API version not simply served: whether it is read."""
    why = InputError(status.message, source=src, obj=obj, field="apiVersion")
    if status.state == MISSING:
        problems.add(why)
        return False
    if status.state == NOT_SERVED:
        refused.append((kind, why))
        warnings.append(f"{why}; skipped (kubectl apply refuses it and applies the rest of the file)")
        return False
    if not reads(api_version, kind, kube.minor):
        warnings.append(f"{why}; skipped: kexplain does not read this version")
        return False
    if not stored and not _stored(obj):                      # off by default, and read
        off.setdefault(api_version, (why, [0]))[1][0] += 1
    return True


def _status_check(status_checks: dict[Any, Any], api_version: str, kind: str, validate: str,
                  kube: KubeVersion) -> Callable[[Any], bool]:
    """The `field_check` of a `kind`'s status at `api_version`, made once (`status_checks`)."""
    check = status_checks.get(api_version)
    if check is None:
        check = status_checks[api_version] = builtin_index(kube.minor).field_check(
            api_version, kind, "status", validate != "ignore")
    return check  # type: ignore[no-any-return]


def _decodes(obj: dict[str, Any], src: Source, shape: Any, sound: set, validate: str, kube: KubeVersion,
             warnings: list[str], problems: Problems) -> bool:
    """`check_objects`' decoding of an object no API server stored: False when it is refused
    (`problems`); its unknown fields' warnings added; a pod's shape found sound when it has none."""
    try:
        found = check_fields(plain_object(obj), src, validate, kube)
    except InputError as err:
        problems.add(err)
        return False
    if shape is not None and not found:
        sound.add(shape)
    warnings.extend(found)
    return True


def _close(kept: list[tuple[dict[str, Any], Source]], refused: list[tuple[str, InputError]],
           off: dict[str, tuple[InputError, list[int]]], warnings: list[str], explained: Collection[str],
           problems: Problems) -> None:
    """`check_objects`' last words: the refusal of an `explained` object when no such object is
    left, and one warning per version read as if enabled."""
    explained_refused = [why for kind, why in refused if kind in explained]
    if explained_refused and not any(o.get("kind") in explained for o, _ in kept):
        problems.add(explained_refused[0])
    for first, (count,) in off.values():
        others = f" (and {count - 1} other object{'s' if count > 2 else ''} of this version)" if count > 1 else ""
        warnings.append(f"{first}; read as if enabled{others}")


def _all_served_and_stored(rows: columns.Rows, kinds: Collection[str], fields: bool, kube: KubeVersion) -> bool:
    """Whether `check_objects` would keep every object as it is and say nothing, asked of the rows."""
    try:
        pairs = rows.pairs()
        if fields and not all(rows.stored) and not all(
                stored for stored, kind in zip(rows.stored, rows.kinds) if kind in kinds):
            return False
    except TypeError:
        return False
    index = None
    for api_version, kind in pairs:
        if kind not in kinds:
            continue
        if not isinstance(api_version, str):
            return False
        index = index or builtin_index(kube.minor)
        status = index.api_version_status(api_version, kind)
        if status is not None and status.state != SERVED:
            return False
    return True


def _stored(obj: dict[str, Any]) -> bool:
    """An object an API server stored: it has a resourceVersion (`admission.pipeline.is_stored`); a pod read
    as a view answers from its view, undecoded."""
    if type(obj) is StoredPod:
        return obj.stored
    meta = obj.get("metadata")
    return isinstance(meta, dict) and bool(meta.get("resourceVersion"))
