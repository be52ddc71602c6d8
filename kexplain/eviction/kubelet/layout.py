"""The node's filesystem layout as cAdvisor tells the kubelet (pkg/kubelet/stats provider.go
`HasDedicatedImageFs`, `HasDedicatedContainerFs`, `equalFileSystems`), read from the stats Summary
when `--filesystems` does not say it. The kubelet compares devices; the Summary has none, so two
of its filesystems are one when `equalFileSystems` says so (available, capacity, inodes used, free
and total all equal: one statfs read twice), as the kubelet itself judges an image filesystem on
the root device. Dedicated image filesystem: `node.runtime.imageFs` is not `node.fs`, or the
containers' filesystem is not the images'; split: `node.runtime.containerFs` is not `imageFs`
(KEP 4191, the writable layers on the node's filesystem)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional

from kexplain.apimachinery.quantity import BINARY_SI, new_quantity

FS_KEYS = ("availableBytes", "capacityBytes", "inodesUsed", "inodesFree", "inodes")
SHARED, IMAGEFS, SPLIT = "shared", "imagefs", "split"


@dataclass(frozen=True)
class Inferred:
    """The layout read from a Summary (`shared`, `imagefs`, `split`) and, in words, from what."""

    layout: str
    why: str


def _section(summary: Mapping, *path: str) -> Optional[Mapping]:
    at: Any = summary
    for key in path:
        at = at.get(key) if isinstance(at, Mapping) else None
    return at if isinstance(at, Mapping) else None


def equal_filesystems(a: Optional[Mapping], b: Optional[Mapping]) -> bool:
    """equalFileSystems: both given, and every counter the same (absent equals absent)."""
    if a is None or b is None:
        return False
    return all(a.get(k) == b.get(k) for k in FS_KEYS)


def _capacity(fs: Mapping) -> str:
    raw = fs.get("capacityBytes")
    return f"capacity {new_quantity(raw, BINARY_SI)}" if isinstance(raw, int) and not isinstance(raw, bool) \
        else "no capacity"


def infer(summary: Mapping) -> Inferred:
    """HasDedicatedImageFs and HasDedicatedContainerFs as the Summary's filesystems show them."""
    node_fs = _section(summary, "node", "fs")
    image_fs = _section(summary, "node", "runtime", "imageFs")
    container_fs = _section(summary, "node", "runtime", "containerFs")
    if image_fs is None:
        return Inferred(SHARED, "the Summary has no node.runtime.imageFs: images are on the node's filesystem")
    split = container_fs is not None and not equal_filesystems(image_fs, container_fs)
    if split:
        where = "the node's" if equal_filesystems(container_fs, node_fs) else "another"
        return Inferred(SPLIT, f"node.runtime.containerFs ({_capacity(container_fs)}, {where} filesystem) differs "
                               f"from node.runtime.imageFs ({_capacity(image_fs)})")
    if node_fs is None:
        return Inferred(SHARED, "the Summary has no node.fs to tell node.runtime.imageFs apart from: taken as "
                                "one filesystem")
    if equal_filesystems(node_fs, image_fs):
        return Inferred(SHARED, f"node.runtime.imageFs is node.fs (the same {_capacity(node_fs)}, available and "
                                f"inodes)")
    return Inferred(IMAGEFS, f"node.runtime.imageFs ({_capacity(image_fs)}) differs from node.fs "
                             f"({_capacity(node_fs)})"
                             + ("" if container_fs is None else ", and containerFs is imageFs"))
