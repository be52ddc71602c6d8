"""Kueue's Configuration among the report's inputs (a document, or Kueue's manager ConfigMap's
`controller_manager_config.yaml`), read as Kueue's config loader reads it: one it refuses stops
Kueue's manager at start, so a section that runs Kueue's pass over the cluster says it was not run
and why, in the loader's words, rather than answer on defaults Kueue would not run with."""
from __future__ import annotations

from typing import Optional

from kexplain.app.cluster.inputs import ClusterInputs
from kexplain.errors import KexplainError
from kexplain.kueue import versions
from kexplain.kueue.config import is_configuration, parse_configuration
from kexplain.kueue.config_file import configuration_of, is_manager_config_map

REFUSED = "not run: Kueue's manager refuses its Configuration (it does not start on it): "


def configuration_refused(inputs: ClusterInputs) -> Optional[str]:
    """The refusal of the Configuration among the inputs in its words (where, what), else None:
    `kueue.config.parse_configuration` under the release the report's pass follows (its default)."""
    gates = versions.resolve(None).gates
    for obj, src in inputs.objects:
        if obj.get("kind") not in ("ConfigMap", "Configuration"):
            continue
        try:
            found = configuration_of(obj, src) if is_manager_config_map(obj) else \
                (obj, src) if is_configuration(obj) else None
            if found is not None:
                parse_configuration(*found, gates)
        except KexplainError as err:
            return str(err)
    return None
