"""An object's identity as the API server gives it on create: the name from generateName (storage/names
SimpleNameGenerator) and the uid, derived from the object so that a run repeats; every maker and
referrer asks here.
"""
from __future__ import annotations

import hashlib
import uuid
from typing import Any, Iterator

_UID_NAMESPACE = uuid.UUID("5d0f4c7a-2b8e-4f1a-9c3d-6e7b8a9f0c12")
_UID_NAMESPACE_BYTES = _UID_NAMESPACE.bytes


def as_dict(value: Any) -> dict:
    """A field read as a mapping: a missing or malformed one reads as empty."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list:
    """A field read as a list: a missing or malformed one reads as empty."""
    return value if isinstance(value, list) else []


def as_int(value: Any) -> int | None:
    """A field read as an integer: None when missing or of another type (a bool is none)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


_NAME_SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"   # apimachinery utilrand: no vowels, no 0/1/3
_NAME_SUFFIX_LENGTH = 5


def generated_name(obj: dict, ordinal: int = 0) -> str:
    """metadata.name, else the name the API server makes from generateName (its 5 characters derived from
    the object and `ordinal`, so that a run repeats); "" without either."""
    meta = as_dict(obj.get("metadata"))
    name = meta.get("name")
    if isinstance(name, str) and name:
        return name
    prefix = meta.get("generateName")
    if not isinstance(prefix, str) or not prefix:
        return ""
    seed = f"{obj.get('kind')}/{meta.get('namespace') or ''}/{prefix}" + (f"/{ordinal}" if ordinal else "")
    digest = hashlib.sha256(seed.encode()).digest()
    return prefix + "".join(_NAME_SUFFIX_ALPHABET[b % len(_NAME_SUFFIX_ALPHABET)]
                            for b in digest[:_NAME_SUFFIX_LENGTH])


def object_uid(obj: dict) -> str:
    """The object's uid, or one derived from its kind, namespace and name in place of the API server's
    random one, so that a run repeats."""
    meta = as_dict(obj.get("metadata"))
    uid, name = meta.get("uid"), meta.get("name")
    if isinstance(uid, str) and uid:
        return uid
    if not (isinstance(name, str) and name):
        name = generated_name(obj)
    return uuid5_text(_UID_NAMESPACE_BYTES, f"{obj.get('kind')}/{meta.get('namespace') or 'default'}/{name}")


def dicts(value: Any) -> Iterator[dict]:
    """The mappings of a list, in order (none of anything else): its items as admission reads them."""
    return (v for v in value if isinstance(v, dict)) if isinstance(value, list) else iter(())


def pod_uid(pod: dict) -> str:
    """`object_uid` of a Pod known to have a name and no uid (each pod of an admitted shape): the same uid
    without the checks, for 150,000 pods."""
    return pod_uid_of(pod["metadata"].get("namespace"), pod["metadata"]["name"])


def pod_uid_of(namespace: str | None, name: str) -> str:
    """`pod_uid` of the pod `namespace`/`name`, from the two strings (a pod read as a view)."""
    h = _POD_UID_SHA1.copy()
    h.update(f"{namespace or 'default'}/{name}".encode())
    d = h.hexdigest()
    return f"{d[:8]}-{d[8:12]}-5{d[13:16]}-{_VARIANT[d[16]]}{d[17:20]}-{d[20:32]}"    # as `uuid5_text`


_POD_UID_SHA1 = hashlib.sha1(_UID_NAMESPACE_BYTES + b"Pod/")   # copied, never updated: the common prefix hashed once


def uuid5_text(namespace: bytes, name: str) -> str:
    """str(uuid.uuid5(UUID(bytes=namespace), name)), without the UUID object: admission makes
    one for each of 150,000 pods written without a uid."""
    h = hashlib.sha1(namespace + name.encode()).hexdigest()
    # the version (5) in the 13th digit, the RFC 4122 variant in the top bits of the 17th
    return f"{h[:8]}-{h[8:12]}-5{h[13:16]}-{_VARIANT[h[16]]}{h[17:20]}-{h[20:32]}"


_VARIANT = {d: "89ab"[int(d, 16) & 3] for d in "0123456789abcdef"}   # a hex digit with its top bits 10
