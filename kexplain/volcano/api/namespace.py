"""The namespaces' ResourceQuota statuses the scheduler cache keeps (api/namespace_info.go NamespaceInfo,
cache/event_handlers.go updateResourceQuota), which the resourcequota plugin reads; and a quantity as
Go's `%v` prints it, since that plugin's event prints whole ResourceLists so."""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Iterable

from kexplain.admission.resourcequota import QuotaLedger
from kexplain.apimachinery import quantity
from kexplain.apimachinery.strconv import parse_int64
from kexplain.errors import InputError

_MAX_INT64_FACTORS = 18


@dataclass(frozen=True)
class GoQuantity:
    """A quantity's exact value and the text Go's `%v` gives it (the Quantity struct, not String():
    that method has a pointer receiver, which a map's value does not offer fmt)."""

    value: Fraction
    shown: str


@dataclass
class QuotaStatus:
    """One ResourceQuota's status (hard, used), as the informer gave it to the cache."""

    name: str
    hard: dict[str, GoQuantity] = field(default_factory=dict)
    used: dict[str, GoQuantity] = field(default_factory=dict)


@dataclass
class NamespaceInfo:
    """NamespaceInfo: a namespace's quotas by name (a namespace without one has no NamespaceInfo)."""

    name: str
    quotas: dict[str, QuotaStatus] = field(default_factory=dict)


def _raw_text(raw: Any) -> str | None:
    """The text the JSON decoder hands ParseQuantity (None: a null, which decodes to the zero Quantity)."""
    if raw is None:
        return None
    if isinstance(raw, float):
        return repr(raw).replace("e+", "e")
    return str(raw).strip()


def _fast_path(text: str) -> tuple[int, int, bool] | None:
    """ParseQuantity's int64Amount path: (value, scale, whether it keeps the text as its string);
    None when Go falls back to an inf.Dec."""
    positive, _, num, denom, suffix = quantity.split(text)
    _, exponent, fmt = quantity.interpret(suffix)
    mantissa, scale = 1, exponent
    if fmt == quantity.BINARY_SI:
        if exponent < 0 or denom:
            return None
        mantissa, scale = 1 << exponent, 0
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1
    else:
        precision = _MAX_INT64_FACTORS - (len(num) + len(denom))
    if precision < 0:
        return None
    scale -= len(denom)
    shifted = num + denom
    value = parse_int64(shifted)
    if scale < -9 or value is None or abs(value * mantissa) > quantity.INT64_MAX:
        return None
    if fmt == quantity.BINARY_SI:
        keeps = exponent % 10 == 0 and value & 0x07 != 0
    else:
        keeps = scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
    return (value * mantissa if positive else -value * mantissa), scale, keeps


def go_quantity(raw: Any) -> GoQuantity:
    """A quantity decoded from `raw` (as written), with Go's `%v` of it: `{{value scale} {<nil>} s Format}`.
    A value past the int64 path is an inf.Dec, whose pointer Go prints as an address (shown `0xc000…`)."""
    text = _raw_text(raw)
    if text is None:
        return GoQuantity(Fraction(0), "{{0 0} {<nil>}  }")
    q = quantity.parse_text(text)
    if text == "0":
        return GoQuantity(q.value, "{{0 0} {<nil>} 0 DecimalSI}")
    fast = _fast_path(text)
    if fast is None:
        return GoQuantity(q.value, f"{{{{0 0}} {{0xc000…}}  {q.fmt}}}")
    value, scale, keeps = fast
    return GoQuantity(q.value, f"{{{{{value} {scale}}} {{<nil>}} {text if keeps else ''} {q.fmt}}}")


def go_list(rl: dict[str, GoQuantity]) -> str:
    """`%v` of a v1.ResourceList: fmt prints a map by its sorted keys."""
    return "map[" + " ".join(f"{k}:{rl[k].shown}" for k in sorted(rl)) + "]"


def _stored(q: quantity.Quantity) -> GoQuantity:
    """A quantity the quota controller wrote to the status (its canonical text), read back by the informer."""
    return go_quantity(quantity.canonical(q))


def _given(raw: Any, obj: dict[str, Any], path: str) -> dict[str, GoQuantity]:
    """A status's resource list as the informer decodes it; a quantity that does not decode is the
    input's error (the API server would not hold the object)."""
    out = {}
    for k, v in (raw.items() if isinstance(raw, dict) else ()):
        try:
            out[str(k)] = go_quantity(v)
        except quantity.QuantityError as err:
            raise InputError(str(err), obj=obj, field=f"{path}.{k}") from None
    return out


JOB_API_GROUP = "batch.volcano.sh/"
GROUP_NAME = "scheduling.k8s.io/group-name"


def _not_created(pod: dict[str, Any], pending: set[str]) -> bool:
    """A pod of a Volcano Job whose PodGroup is Pending: its job controller creates the pods only once
    enqueue has moved the PodGroup on, so at enqueue it is not in the namespace's usage yet."""
    meta = pod.get("metadata") or {}
    owned = any(isinstance(r, dict) and r.get("kind") == "Job" and r.get("controller")
                and str(r.get("apiVersion") or "").startswith(JOB_API_GROUP) for r in meta.get("ownerReferences") or ())
    group = f"{meta.get('namespace') or 'default'}/{(meta.get('annotations') or {}).get(GROUP_NAME, '')}"
    return owned and group in pending


def namespace_infos(objects: Iterable[dict[str, Any]], pending: Iterable[str] = ()) -> dict[str, NamespaceInfo]:
    """The NamespaceInfo of every namespace with a ResourceQuota. A quota's status is read as given;
    one without a status is as the quota controller writes it: hard from the spec, used what the
    namespace's pods use (`QuotaLedger`, the pod evaluator), but the pods of Volcano Jobs whose PodGroup
    is `pending` (namespace/name), which do not exist yet."""
    objects = list(objects)
    quotas = [o for o in objects if o.get("kind") == "ResourceQuota"]
    if not quotas:
        return {}
    statusless = [o for o in quotas if not isinstance(o.get("status"), dict)]
    for o in statusless:
        _given((o.get("spec") or {}).get("hard"), o, "spec.hard")      # (checked: the ledger skips a bad one)
    waiting = set(pending)
    pods = [o for o in objects if o.get("kind") == "Pod" and not _not_created(o, waiting)]
    ledger = QuotaLedger.of([*statusless, *pods]) if statusless else None
    counted = {(q.namespace, q.name): q for qs in (ledger.by_namespace.values() if ledger else ()) for q in qs}
    out: dict[str, NamespaceInfo] = {}
    for obj in quotas:
        meta = obj.get("metadata") or {}
        ns, name = str(meta.get("namespace") or "default"), str(meta.get("name") or "")
        status = obj.get("status")
        if isinstance(status, dict):
            qs = QuotaStatus(name, _given(status.get("hard"), obj, "status.hard"),
                             _given(status.get("used"), obj, "status.used"))
        else:
            ledgered = counted[(ns, name)]
            qs = QuotaStatus(name, {k: _stored(v) for k, v in ledgered.hard.items()},
                             {k: _stored(v) for k, v in ledgered.used.items()})
        out.setdefault(ns, NamespaceInfo(ns)).quotas[name] = qs
    return out

