"""The hashes Kubernetes controllers put in names and labels: FNV-32a (Go's hash/fnv New32a) of
a text (FNV-1 for a ControllerRevision's), plus a collision count, printed in decimal and encoded
with apimachinery's rand.SafeEncodeString (`pod-template-hash`, a ControllerRevision's name)."""
from __future__ import annotations

# apimachinery/pkg/util/rand: the characters of generated names and encoded hashes (no vowels,
# no 0, 1 or 3, so that no word is spelt)
ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"
_FNV32_OFFSET = 2166136261
_FNV32_PRIME = 16777619


def fnv32a(data: bytes, state: int = _FNV32_OFFSET) -> int:
    """FNV-1a, 32 bits, over `data`, continuing from `state` (Go's hash/fnv New32a + Write)."""
    h = state
    for b in data:
        h = ((h ^ b) * _FNV32_PRIME) & 0xFFFFFFFF
    return h


def fnv32(data: bytes, state: int = _FNV32_OFFSET) -> int:
    """FNV-1, 32 bits (Go's hash/fnv New32: multiply, then XOR), continuing from `state`."""
    h = state
    for b in data:
        h = ((h * _FNV32_PRIME) & 0xFFFFFFFF) ^ b
    return h


def safe_encode_string(s: str) -> str:
    """rand.SafeEncodeString: each character mapped to ALPHANUMS by its code modulo 27."""
    return "".join(ALPHANUMS[ord(c) % len(ALPHANUMS)] for c in s)


def compute_hash(printed: str, collision_count: int | None = None) -> str:
    """controller.ComputeHash once the object is printed: FNV-32a of the text and the collision count,
    safely encoded."""
    h = fnv32a(printed.encode())
    if collision_count is not None:
        h = fnv32a((collision_count & 0xFFFFFFFF).to_bytes(4, "little") + bytes(4), h)
    return safe_encode_string(str(h))


def hash_controller_revision(data: bytes, probe: int | None) -> str:
    """history.HashControllerRevision of a revision whose Data is `data` (its Raw bytes): FNV-1
    of them, then of the probe (the collision count) in decimal when there is one, encoded."""
    h = fnv32(data)
    if probe is not None:
        h = fnv32(str(probe).encode(), h)
    return safe_encode_string(str(h))
