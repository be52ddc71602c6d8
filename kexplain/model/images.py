"""Container image names as the kubelet reports them in a node's status.images."""
from __future__ import annotations


def normalized_image_name(name: str) -> str:
    """A name without a tag (no ':' after the last '/') gets ':latest'; nothing else changes.
    ImageLocality looks a pod's images up by it, and redaction keeps a pod's image and the
    node's copy of it the same string."""
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name
