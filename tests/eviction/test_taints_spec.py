"""`--taint` read as kubectl taint reads its arguments, with kubectl's messages."""
from __future__ import annotations

import pytest

from kexplain.eviction.tainteviction.taint_spec import TaintChange, TaintSpecError, parse_taints, reorganize

NE = "NoExecute"


@pytest.mark.parametrize(("spec", "taint"), [
    ("node.kubernetes.io/unreachable:NoExecute", {"key": "node.kubernetes.io/unreachable", "effect": NE}),
    ("dedicated=gpu:NoExecute", {"key": "dedicated", "value": "gpu", "effect": NE}),
    ("dedicated=:NoExecute", {"key": "dedicated", "effect": NE}),
])
def test_additions(spec: str, taint: dict) -> None:
    assert parse_taints([spec]) == TaintChange((taint,), ())


@pytest.mark.parametrize(("spec", "message"), [
    ("dedicated", "--taint: invalid taint spec: dedicated"),           # no effect
    ("dedicated=gpu", "--taint: invalid taint spec: dedicated=gpu, name part must consist of alphanumeric "
                      "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
                      "'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
                      "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),         # (the key is all of it)
    ("a=b=c:NoExecute", "--taint: invalid taint spec: a=b=c:NoExecute"),
    ("a:b:NoExecute", "--taint: invalid taint spec: a:b:NoExecute"),
    ("a:NoExec", "--taint: invalid taint effect: NoExec, unsupported taint effect"),
    ("a=b c:NoExecute", "--taint: invalid taint spec: a=b c:NoExecute, a valid label must be an empty string or "
                        "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                        "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
                        "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"),
    ("-a:NoExecute", "--taint: invalid taint spec: -a:NoExecute, name part must consist of alphanumeric characters, "
                     "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
                     "'my.name',  or '123-abc', regex used for validation is "
                     "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
    ("dedicated=gpu:NoSchedule", "--taint: dedicated=gpu:NoSchedule: not a NoExecute taint: the taint eviction "
                                 "controller evicts only for NoExecute taints (write dedicated=gpu:NoExecute)"),
])
def test_refusals(spec: str, message: str) -> None:
    with pytest.raises(TaintSpecError) as err:
        parse_taints([spec])
    assert str(err.value) == message and err.value.exit_code == 2


def test_a_key_and_effect_twice_is_refused() -> None:
    with pytest.raises(TaintSpecError, match=r"^--taint: duplicated taints with the same key and effect: "
                                             r"\{a 2 NoExecute <nil>\}$"):
        parse_taints(["a=1:NoExecute", "a=2:NoExecute"])


def test_removals_and_reorganize() -> None:
    own = [{"key": "a", "value": "1", "effect": NE}, {"key": "b", "effect": "NoSchedule"},
           {"key": "b", "effect": NE}]
    change = parse_taints(["a=2:NoExecute", "c:NoExecute", "b-"])
    assert change.remove == ({"key": "b"},)
    assert reorganize(own, change) == [{"key": "a", "value": "2", "effect": NE}, {"key": "c", "effect": NE}]
    only_one = parse_taints(["b:NoExecute-"])
    assert reorganize(own, only_one) == own[:2]
    with pytest.raises(TaintSpecError, match=r'^--taint: taint "z:NoExecute" not found$'):
        reorganize(own, parse_taints(["z:NoExecute-"]))
