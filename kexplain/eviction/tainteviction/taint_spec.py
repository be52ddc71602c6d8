"""`--taint KEY[=VALUE]:NoExecute` (and `KEY[:EFFECT]-` to remove one) read as `kubectl taint`
reads its arguments (`k8s.io/kubectl/pkg/cmd/taint/utils.go`: parseTaints, parseTaint,
reorganizeTaints as with --overwrite), with kubectl's messages. A taint that is not NoExecute is
refused too: the taint eviction controller reads no other effect, so it could change nothing."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from kexplain.apimachinery.fielderrors import go_quote
from kexplain.apimachinery.names import is_label_key, is_label_value
from kexplain.errors import KexplainError
from kexplain.model.taints import NO_EXECUTE, NO_SCHEDULE, PREFER_NO_SCHEDULE, taint_to_string

EFFECTS = (NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE)
OPTION = "--taint"


class TaintSpecError(KexplainError):
    """A --taint kubectl taint would refuse (exit 2)."""


@dataclass(frozen=True)
class TaintChange:
    """What the --taint options ask: taints to add (key, value, effect) and to remove (key, effect
    or "" for every effect of the key)."""

    add: tuple[dict, ...] = ()
    remove: tuple[dict, ...] = ()


def _refused(message: str) -> TaintSpecError:
    return TaintSpecError(f"{OPTION}: {message}")


def parse_taint(spec: str) -> dict:
    """parseTaint: `key`, `key:effect` or `key=value:effect`, key and value validated as kubectl does."""
    parts = spec.split(":")
    value, effect = "", ""
    if len(parts) == 1:
        key = parts[0]
    elif len(parts) == 2:
        effect = parts[1]
        if effect not in EFFECTS:
            raise _refused(f"invalid taint effect: {effect}, unsupported taint effect")
        kv = parts[0].split("=")
        if len(kv) > 2:
            raise _refused(f"invalid taint spec: {spec}")
        key = kv[0]
        if len(kv) == 2:
            value = kv[1]
            errs = is_label_value(value)
            if errs:
                raise _refused(f"invalid taint spec: {spec}, {'; '.join(errs)}")
    else:
        raise _refused(f"invalid taint spec: {spec}")
    errs = is_label_key(key)
    if errs:
        raise _refused(f"invalid taint spec: {spec}, {'; '.join(errs)}")
    taint = {"key": key}
    if value:
        taint["value"] = value
    if effect:
        taint["effect"] = effect
    return taint


def parse_taints(specs: Sequence[str]) -> TaintChange:
    """parseTaints: additions need an effect, one per key and effect; `-` suffixed specs remove.
    Additions must be NoExecute (see the module's docstring)."""
    add: list[dict] = []
    remove: list[dict] = []
    seen: set[tuple[str, str]] = set()
    for spec in specs:
        if spec.endswith("-"):
            taint = parse_taint(spec[:-1])
            remove.append({"key": taint["key"], **({"effect": taint["effect"]} if "effect" in taint else {})})
            continue
        taint = parse_taint(spec)
        effect = taint.get("effect", "")
        if not effect:
            raise _refused(f"invalid taint spec: {spec}")
        if (taint["key"], effect) in seen:
            raise _refused(f"duplicated taints with the same key and effect: {_go_taint(taint)}")
        seen.add((taint["key"], effect))
        if effect != NO_EXECUTE:
            raise _refused(f"{spec}: not a NoExecute taint: the taint eviction controller evicts only for "
                           f"NoExecute taints (write {taint_to_string({**taint, 'effect': NO_EXECUTE})})")
        add.append(taint)
    return TaintChange(tuple(add), tuple(remove))


def _go_taint(taint: dict) -> str:
    """A corev1.Taint as Go's %v prints it."""
    return f"{{{taint['key']} {taint.get('value', '')} {taint.get('effect', '')} <nil>}}"


def reorganize(taints: Sequence[dict], change: TaintChange) -> list[dict]:
    """reorganizeTaints with --overwrite: the new taints first, then the node's own not replaced
    (same key and effect), then the removals; a removal that finds nothing is refused."""
    result = [dict(t) for t in change.add]
    result += [t for t in taints if not any(t.get("key") == n["key"] and t.get("effect") == n["effect"]
                                            for n in change.add)]
    for gone in change.remove:
        kept = [t for t in result if not (t.get("key") == gone["key"]
                                          and (not gone.get("effect") or t.get("effect") == gone["effect"]))]
        if len(kept) == len(result):
            raise _refused(f"taint {go_quote(taint_to_string(gone))} not found")
        result = kept
    return result
