"""labels.NewRequirement's checks on one selector requirement, with its exact messages: the
scheduler's node selectors (a requirement that fails them matches nothing) and the scheduler
configuration's NodeAffinityArgs (refused) both run them."""
from __future__ import annotations

from typing import Sequence

from kexplain.apimachinery.fielderrors import FieldError, child, index, invalid
from kexplain.apimachinery.names import is_label_key, is_label_value
from kexplain.apimachinery.strconv import parse_int64

# selection.Operator's names as label selectors and node selectors spell them.
IN, NOT_IN, EXISTS, DOES_NOT_EXIST, GT, LT = "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"
NODE_SELECTOR_OPERATORS = (IN, NOT_IN, EXISTS, DOES_NOT_EXIST, GT, LT)


def requirement_errors(key: str, op: str, values: Sequence[str] | None, path: str) -> list[FieldError]:
    """NewRequirement's field errors for a node-selector operator at `path` (`values` printed as given;
    None: Go's nil slice)."""
    errs: list[FieldError] = []
    shown, values = values, values or ()
    key_errors = is_label_key(key)
    if key_errors:
        errs.append(invalid(child(path, "key"), key, "; ".join(key_errors)))
    values_path = child(path, "values")
    if op in (IN, NOT_IN) and not values:
        errs.append(invalid(values_path, shown, "for 'in', 'notin' operators, values set can't be empty"))
    elif op in (EXISTS, DOES_NOT_EXIST) and values:
        errs.append(invalid(values_path, shown, "values set must be empty for exists and does not exist"))
    elif op in (GT, LT):
        if len(values) != 1:
            errs.append(invalid(values_path, shown, "for 'Gt', 'Lt' operators, exactly one value is required"))
        errs.extend(invalid(index(values_path, i), v, "for 'Gt', 'Lt' operators, the value must be an integer")
                    for i, v in enumerate(values) if parse_int64(v) is None)
    for i, v in enumerate(values):
        value_errors = is_label_value(v)
        if value_errors:
            errs.append(invalid(index(index(values_path, i), key), v, "; ".join(value_errors)))
    return errs
