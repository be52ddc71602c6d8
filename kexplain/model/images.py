"""Container image names as the kubelet reports them in a node's status.images."""
from __future__ import annotations


def normalized_image_name(name: str) -> str:
    """A name without a tag gets ':latest', so ImageLocality's look-up and redaction see one string for a
    pod's image and the node's copy."""
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name
