"""The report's inputs read from bundled files, as `kexplain cluster --nodes` reads them."""
from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from kexplain.app.cluster.inputs import ClusterInputs, ClusterRequest, read
from kexplain.features import KubeVersion
from tests.support.paths import DATA

SHOP = DATA / "cluster" / "shop.yaml"
NOW = datetime(2026, 1, 1, 12, tzinfo=timezone.utc)


def request(*paths: Path, **options) -> ClusterRequest:
    return ClusterRequest(tuple(str(p) for p in paths), NOW, KubeVersion("1.36"), False, **options)


def inputs_of(*paths: Path, **options) -> ClusterInputs:
    return read(request(*paths, **options))


def with_items(tmp_path: Path, text: str, name: str = "extra.yaml") -> Path:
    """A file of more objects beside the bundled cluster."""
    path = tmp_path / name
    path.write_text(text)
    return path
