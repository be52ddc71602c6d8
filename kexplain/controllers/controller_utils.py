"""The Deployment controller's `pod-template-hash` (pkg/controller/controller_utils.go ComputeHash) and
the StatefulSet's revision hash: FNV-32a over the template as `hashutil.DeepHashObject` (go-spew `%#v`)
prints it, or as encoding/json writes it. The Go structs printed are read from `template_structs.json`;
what spew prints and what is not reproduced: docs/internals/controllers.md.
"""
from __future__ import annotations

import copy
import json
from functools import lru_cache
from importlib.resources import files
from typing import Any

from kexplain.admission.pod_spec_defaults import default_pod_template
from kexplain.apimachinery import quantity
from kexplain.apimachinery.fielderrors import go_json
from kexplain.apimachinery.gohash import compute_hash, hash_controller_revision
from kexplain.features import KubeVersion

POD_TEMPLATE_HASH_LABEL = "pod-template-hash"       # apps.DefaultDeploymentUniqueLabelKey
CONTROLLER_REVISION_HASH_LABEL = "controller-revision-hash"     # apps.StatefulSetRevisionLabel, DaemonSet's too
POD_TEMPLATE_GENERATION_LABEL = "pod-template-generation"       # a DaemonSet's pods
_OMIT = object()
_INT_TYPES = frozenset({"int", "int32", "int64", "uint8", "uint64"})


class NotReproduced(ValueError):
    """A template value the hash's printing is not reproduced for."""


Field = tuple[str, str, str, bool, str]     # Go name, Go type as reflect prints it, JSON name, inline, omit options


@lru_cache(maxsize=8)
def _tables(minor: str) -> tuple[dict[str, tuple[Field, ...]], dict[str, str]]:
    """The Go structs and named types of `minor`: 1.35's (1.33/1.34 too), then each later minor's changes."""
    structs: dict[str, tuple[Field, ...]] = {}
    named: dict[str, str] = {}
    by_minor = json.loads(files("kexplain.controllers").joinpath("template_structs.json").read_text())
    for version, declared in by_minor.items():
        if version == "1.35" or KubeVersion(minor).since(version):
            structs.update({name: tuple(map(tuple, fields)) for name, fields in declared["structs"].items()})
            named.update(declared["named"])
            for gone in declared.get("gone", ()):
                structs.pop(gone, None)
    return structs, named


def _quantity(raw: Any) -> str:
    """A quantity as ParseQuantity leaves it for its canonical text: `{i:... d:... s:... Format:...}`."""
    try:
        text = quantity.text_of(raw)
    except quantity.QuantityError as err:
        raise NotReproduced(str(err)) from None
    value, scale, cached, fmt = 0, 0, "", quantity.DECIMAL_SI
    if text == "0":
        cached = text
    else:
        positive, _, num, denom, suffix = quantity.split(text)
        base, exponent, fmt = quantity.interpret(suffix)
        mantissa = 1
        if fmt == quantity.BINARY_SI:
            if exponent < 0 or denom:
                raise NotReproduced(text)
            mantissa = 1 << exponent
            precision = 15 - len(num) - int(exponent * 3 / 10) - 1
        else:
            scale, precision = exponent, 18 - len(num + denom)
        scale -= len(denom)
        shifted = num + denom
        value = int(shifted) * mantissa
        if precision < 0 or scale < -9 or value >= 1 << 63:
            raise NotReproduced(f"quantity {text} is held as an inf.Dec")
        value = value if positive else -value
        if fmt == quantity.BINARY_SI:
            canonical = exponent % 10 == 0 and int(shifted) & 0x07 != 0
        else:
            canonical = scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
        cached = text if canonical else ""
    return (f"{{i:(resource.int64Amount){{value:(int64){value} scale:(resource.Scale){scale}}} "
            f"d:(resource.infDecAmount){{Dec:(*inf.Dec)<nil>}} s:(string){cached} Format:(resource.Format){fmt}}}")


class _Printer:
    """go-spew's `%#v` of a Go value held as JSON, by the struct tables of one version."""

    def __init__(self, minor: str) -> None:
        self.structs, self.named = _tables(minor)

    def value(self, gotype: str, raw: Any, typed: bool = True) -> str:
        """`raw` (JSON) printed as a value of `gotype`; `typed`: with its type in front."""
        prefix = f"({gotype})" if typed else ""
        if gotype.startswith("*"):
            if raw is None:
                return f"({gotype})<nil>" if typed else "<nil>"
            if not typed:
                raise NotReproduced(f"a list of pointers ({gotype})")
            return f"({gotype})" + self.value(gotype[1:], raw, False)
        underlying = self.named.get(gotype, gotype)
        if underlying.startswith("[]"):
            items = raw if isinstance(raw, list) else []
            if not items:
                return prefix + "<nil>"
            return prefix + "[" + " ".join(self.value(underlying[2:], i, False) for i in items) + "]"
        if underlying.startswith("map["):
            key_type, _, value_type = underlying[4:].partition("]")
            entries = raw if isinstance(raw, dict) else {}
            if not entries:
                return prefix + "<nil>"
            shown = " ".join(f"{k}:{self.value(value_type, entries[k], False)}" for k in sorted(map(str, entries)))
            return f"{prefix}map[{shown}]"
        return prefix + self._scalar_or_struct(underlying, raw)

    def _scalar_or_struct(self, gotype: str, raw: Any) -> str:
        if gotype in ("string", "types.UID"):
            return "" if raw is None else str(raw) if not isinstance(raw, bool) else str(raw).lower()
        if gotype == "bool":
            return "true" if raw is True else "false"
        if gotype in _INT_TYPES:
            if raw is None:
                return "0"
            if isinstance(raw, bool) or not isinstance(raw, (int, float)) or int(raw) != raw:
                raise NotReproduced(f"{raw!r} as {gotype}")
            return str(int(raw))
        if gotype == "resource.Quantity":
            return _quantity(raw)
        if gotype == "intstr.IntOrString":
            if isinstance(raw, str):
                return f"{{Type:(intstr.Type)1 IntVal:(int32)0 StrVal:(string){raw}}}"
            return f"{{Type:(intstr.Type)0 IntVal:(int32){int(raw or 0)} StrVal:(string)}}"
        if gotype == "time.Time":
            if raw:
                raise NotReproduced("a timestamp in the template")
            return "{wall:(uint64)0 ext:(int64)0 loc:(*time.Location)<nil>}"
        fields = self.structs.get(gotype)
        if fields is None:
            raise NotReproduced(f"Go type {gotype}")
        obj = raw if isinstance(raw, dict) else {}
        parts = []
        for name, ftype, json_name, inline, _ in fields:
            # inline: the same JSON object; no JSON name: metav1.Time's time.Time, the timestamp itself
            value = obj if inline else obj.get(json_name) if json_name else raw
            parts.append(f"{name}:{self.value(ftype, value)}")
        return "{" + " ".join(parts) + "}"


def printed_template(template: dict[str, Any], kube: KubeVersion) -> str:
    """The text DeepHashObject hashes for a stored (defaulted) pod template, with `kube`'s Go structs;
    NotReproduced where kexplain does not reproduce the printing."""
    return _Printer(kube.minor).value("v1.PodTemplateSpec", template)


def pod_template_hash(template: dict[str, Any], kube: KubeVersion, collision_count: int | None = None) -> str:
    """controller.ComputeHash of a Deployment's `spec.template` as written (defaulted as on create),
    with its status.collisionCount; NotReproduced as `printed_template`."""
    return compute_hash(printed_template(_stored_template(template), kube), collision_count)


class _GoJSON:
    """encoding/json's value of a Go value held as JSON, by one version's struct tables (`omitempty` /
    `omitzero` as Go decides emptiness, so the revision hash sees the bytes the controller marshals)."""

    def __init__(self, minor: str) -> None:
        self.structs, self.named = _tables(minor)

    def value(self, gotype: str, raw: Any, omit: str = "") -> Any:
        if gotype.startswith("*"):
            if raw is None:
                return _OMIT if "omitempty" in omit or "omitzero" in omit else None
            return self.value(gotype[1:], raw)
        underlying = self.named.get(gotype, gotype)
        if underlying.startswith("[]") or underlying.startswith("map["):
            if not raw:
                return _OMIT if "omitempty" in omit or "omitzero" in omit else None
            if underlying.startswith("[]"):
                return [self.value(underlying[2:], i) for i in raw]
            value_type = underlying[4:].partition("]")[2]       # (a Go map: its keys written sorted)
            return {str(k): self.value(value_type, raw[k]) for k in sorted(raw, key=str)}
        if underlying in ("string", "types.UID", "bool") or underlying in _INT_TYPES:
            zero = {"string": "", "types.UID": "", "bool": False}.get(underlying, 0)
            value = zero if raw is None else raw
            return _OMIT if omit and value == zero else value
        if underlying == "resource.Quantity":
            return quantity.text_of(raw)
        if underlying == "intstr.IntOrString":
            return raw if isinstance(raw, (int, str)) else 0
        if underlying == "v1.Time":
            if raw:
                raise NotReproduced("a timestamp in the template")
            return _OMIT if "omitzero" in omit else None
        fields = self.structs.get(underlying)
        if fields is None:
            raise NotReproduced(f"Go type {underlying}")
        obj = raw if isinstance(raw, dict) else {}
        out: dict[str, Any] = {}
        for name, ftype, json_name, inline, field_omit in fields:
            if inline:
                out.update(self.value(ftype, obj))
                continue
            value = self.value(ftype, obj.get(json_name), field_omit)
            if value is not _OMIT:
                out[json_name] = value
        return out


def go_json_value(gotype: str, raw: Any, minor: str) -> Any:
    """What encoding/json writes for `raw` (JSON) held as a Go `gotype` of `minor`'s structs: struct
    fields in Go's order, `omitempty` applied, map keys sorted; NotReproduced for a type not in the tables."""
    return _GoJSON(minor).value(gotype, raw)


def _stored_template(template: dict[str, Any]) -> dict[str, Any]:
    """A workload's `spec.template` as the API server stores it: copied, defaulted, with the
    conversions' serviceAccount alias of serviceAccountName (which wins)."""
    stored = default_pod_template(copy.deepcopy(template) if isinstance(template, dict) else {})
    spec = stored["spec"]
    account = spec.get("serviceAccountName") or spec.get("serviceAccount")
    if account:
        spec["serviceAccountName"] = spec["serviceAccount"] = account
    return stored


def controller_revision_name(name: str, template: dict[str, Any], kube: KubeVersion, collision_count: int = 0) -> str:
    """The ControllerRevision name the StatefulSet controller makes (newRevision, getPatch): `<name>-<hash>`,
    its pods' `controller-revision-hash` label. NotReproduced as `printed_template`."""
    encoded = _GoJSON(kube.minor).value("v1.PodTemplateSpec", _stored_template(template))
    patch = go_json({"spec": {"template": {"$patch": "replace", **encoded}}}, sort_keys=True)
    return f"{name[:223]}-{hash_controller_revision(patch.encode(), collision_count)}"


def fallback_hash(template: Any) -> str:
    """A stand-in hash for a template kexplain does not reproduce (FNV-32a of its sorted JSON): not the
    cluster's, but the same for every copy of one template."""
    return compute_hash(go_json(template, sort_keys=True))
