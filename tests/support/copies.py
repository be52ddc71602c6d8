"""The names kexplain gives a workload's pods, as its controller names them
(`kexplain.controllers.workloads.Copies`: `<name>-<pod-template-hash>-<5 characters>` of a Deployment,
`<name>-<5 characters>` of a ReplicaSet, Job, DaemonSet, ...; a StatefulSet's `<name>-<ordinal>`),
for tests about something else than the names themselves (tests/controllers/test_copy_names.py checks
the names)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from kexplain.errors import Source
from kexplain.features import DEFAULT, KubeVersion
from kexplain.controllers.workloads import copies_of, pod_from_workload


def copy_names(workload: dict[str, Any] | str | Path, count: int, *, name: str | None = None,
               kube: KubeVersion = DEFAULT) -> list[str]:
    """The names of the first `count` pods of `workload` (an object, or a YAML file or text
    holding it: the one of metadata.name `name`, or the first workload)."""
    obj = workload if isinstance(workload, dict) else _find(workload, name)
    pod = pod_from_workload(obj, Source("-"), 0, kube)
    naming = copies_of(obj, pod["metadata"]["labels"])
    return [naming.name(i) for i in range(count)]


def _find(source: str | Path, name: str | None) -> dict[str, Any]:
    text = Path(source).read_text() if isinstance(source, Path) or "\n" not in str(source) else str(source)
    for doc in yaml.safe_load_all(text):
        if isinstance(doc, dict) and doc.get("kind") not in (None, "Pod") and isinstance(doc.get("spec"), dict) and \
                (name is None or (doc.get("metadata") or {}).get("name") == name):
            if any(k in doc["spec"] for k in ("template", "jobTemplate")):
                return doc
    raise LookupError(f"no workload {name or ''} in {str(source)[:60]}")
