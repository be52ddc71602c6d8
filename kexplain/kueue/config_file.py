"""`--kueue-config FILE`: Kueue's Configuration read from its own file, as Kueue's manager reads its
--config (one document, `config.parse_configuration`: strict, validated); handed to a pass as one more
cluster object, so files, live and the option go through the same reading."""
from __future__ import annotations

from typing import Any

from kexplain.errors import InputError, Source
from kexplain.kueue.config import GROUP, KIND, is_configuration, parse_configuration
from kexplain.load.manifests import load_objects

Objects = list[tuple[dict[str, Any], Source]]


def read_kueue_config(path: str | None, max_bytes: int) -> Objects:
    """The Configuration in `path` (none when no path), refused as Kueue's config loader refuses it."""
    if not path:
        return []
    objects = load_objects([path], max_bytes)
    if len(objects) != 1:
        raise InputError(f"--kueue-config: one {KIND} document expected ({GROUP}/v1beta1 or v1beta2), "
                         f"{len(objects)} found", source=Source(path))
    obj, src = objects[0]
    if not is_configuration(obj):
        raise InputError(f"--kueue-config: a {KIND} of {GROUP} expected, got kind {obj.get('kind')!r} of "
                         f"{obj.get('apiVersion')!r}", source=src)
    parse_configuration(obj, src)
    return objects
