"""A Workload's name for its owner (workload_names.go): `KIND-NAME-HASH`, the prefix cut to fit,
the hash the first 5 hex digits of sha1(kind, group, name, uid), and of the extra part an elastic
job's name adds (GenerateWorkloadNameWithExtra)."""
from __future__ import annotations

import hashlib

HASH_LENGTH = 5
MAX_WORKLOAD_NAME_LENGTH = 253          # ShortWorkloadNames is off: 63 otherwise
MAX_PREFIX_LENGTH = MAX_WORKLOAD_NAME_LENGTH - 1 - HASH_LENGTH


def name_hash(owner_name: str, owner_uid: str, kind: str, group: str, extra: str = "") -> str:
    """getHash: sha1 over kind, group, name and uid, newline-separated, then `extra` if any."""
    text = f"{kind}\n{group}\n{owner_name}\n{owner_uid}" + (f"\n{extra}" if extra else "")
    return hashlib.sha1(text.encode()).hexdigest()


def workload_name(owner_name: str, owner_uid: str, kind: str, group: str, extra: str = "") -> str:
    """GetWorkloadNameForOwnerWithGVK; with `extra`, GenerateWorkloadNameWithExtra (an elastic job's)."""
    prefix = f"{kind.lower()}-{owner_name}"[:MAX_PREFIX_LENGTH]
    return f"{prefix}-{name_hash(owner_name, owner_uid, kind, group, extra)[:HASH_LENGTH]}"
