"""The Go types of the built-in kinds' fields, for the API server's decoding errors
(`json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`).

The OpenAPI definitions tell most of them; `FIELD_TYPES` (definition -> JSON field -> Go type, pointers
left out) lists the fields whose Go type is another (a named string type such as `v1.PullPolicy`, a
named map, `types.UID`); `NAMED_CONTAINERS` the named slice and map types among them. Data in
`gotypes.json`, read from k8s.io/api and friends v0.35.4 (docs/internals/apimachinery.md).
"""
from __future__ import annotations

import json
from importlib.resources import files

_DATA = json.loads(files("kexplain.apimachinery").joinpath("gotypes.json").read_text())
FIELD_TYPES: dict[str, dict[str, str]] = _DATA["field_types"]
NAMED_CONTAINERS: dict[str, str] = _DATA["named_containers"]
