"""The CRD schema's walk remembers a subtree's clean walk (`schema.Node.clean`): a NodeClaim written
like one walked before says what a first one would, errors and all, and gets its own values."""
from __future__ import annotations

import copy

import pytest

from kexplain.errors import AdmissionRejected, Source
from kexplain.karpenter.apis import schema as s
from kexplain.karpenter.apis.nodeclaim import NODE_CLAIM_SCHEMA, parse_node_claim

SRC = Source("claims.yaml", 1)
NOT_CHECKED = "some validation rules were not checked because the object was invalid"


def _claim(name: str, **status: object) -> dict:
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim", "metadata": {"name": name},
            "spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                     "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In",
                                       "values": ["m5.large"]}]},
            "status": {"capacity": {"cpu": "2"}, **status}}


def test_a_remembered_spec_with_rules_still_blocks_them_when_the_object_is_invalid() -> None:
    """The spec's rules held when it was first walked; an object with that spec and a type error
    elsewhere still says its rules were not checked, as the walk of every field would."""
    s.check(_claim("first"), NODE_CLAIM_SCHEMA)         # (the spec remembered)
    checked = s.check(_claim("second", nodeName=3), NODE_CLAIM_SCHEMA)
    messages = [e.detail for e in checked.errors]
    assert checked.fatal and any(NOT_CHECKED in m for m in messages)
    assert any("status.nodeName in body must be of type string" in m for m in messages)


def test_a_spec_remembered_with_remembered_requirements_still_has_their_rules() -> None:
    """The requirements remembered first (under another spec), then the spec that holds them: the
    spec's walk took its requirements' rules from memory, and still knows it had rules."""
    other = _claim("other")
    other["spec"]["nodeClassRef"]["name"] = "another"
    other["spec"]["requirements"][0]["values"] = ["c7.remembered"]
    s.check(other, NODE_CLAIM_SCHEMA)
    claim = _claim("first")
    claim["spec"]["requirements"][0]["values"] = ["c7.remembered"]
    s.check(claim, NODE_CLAIM_SCHEMA)                   # (the spec remembered, its requirements from memory)
    claim["status"]["nodeName"] = 3
    messages = [e.detail for e in s.check(claim, NODE_CLAIM_SCHEMA).errors]
    assert any(NOT_CHECKED in m for m in messages)


def test_a_subtree_that_breaks_a_rule_is_reported_each_time() -> None:
    bad = _claim("bad-1")
    bad["spec"]["requirements"][0]["values"] = []        # In without a value: a rule, not the schema
    for name in ("bad-1", "bad-2"):
        obj = copy.deepcopy(bad)
        obj["metadata"]["name"] = name
        with pytest.raises(AdmissionRejected, match="requirements with operator 'In' must have a value defined"):
            parse_node_claim(obj, SRC, invalid="refuse")


def test_a_subtree_with_an_unknown_field_is_reported_each_time() -> None:
    obj = _claim("odd")
    obj["spec"]["requirements"][0]["typo"] = 1
    for _ in range(2):
        assert s.check(copy.deepcopy(obj), NODE_CLAIM_SCHEMA).unknown == ["spec.requirements[0].typo"]


def test_remembered_values_are_each_object_own_and_defaulted() -> None:
    first = s.check(_claim("a"), NODE_CLAIM_SCHEMA).value
    second = s.check(_claim("b"), NODE_CLAIM_SCHEMA).value
    assert second["spec"] == first["spec"] and second["spec"]["expireAfter"] == "720h"
    assert second["spec"] is not first["spec"]
    second["spec"]["requirements"][0]["values"].append("m5.xlarge")
    assert first["spec"]["requirements"][0]["values"] == ["m5.large"]


def test_values_python_holds_equal_are_told_apart() -> None:
    """1 and True, 2 and 2.0 are equal to Python (a key of their values would mix their answers): a
    boolean is still not an integer, and a float is kept a float."""
    good = _claim("x")
    good["spec"]["requirements"][0]["minValues"] = 1
    assert not s.check(good, NODE_CLAIM_SCHEMA).errors
    boolean = copy.deepcopy(good)
    boolean["spec"]["requirements"][0]["minValues"] = True
    assert [e.detail for e in s.check(boolean, NODE_CLAIM_SCHEMA).errors][0] == \
        'spec.requirements[0].minValues in body must be of type integer: "boolean"'
    good["spec"]["requirements"][0]["minValues"] = 1.0
    floated = s.check(good, NODE_CLAIM_SCHEMA)
    assert not floated.errors and type(floated.value["spec"]["requirements"][0]["minValues"]) is float


def _said(parse, obj: dict, **kw) -> tuple:
    """What `as_stored` makes of `obj` with `parse`: the stored object (or the error), the refusals and warnings."""
    from kexplain.karpenter.inputs import as_stored
    warnings: list[str] = []
    refused: list = []
    try:
        got = as_stored(parse, copy.deepcopy(obj), SRC, kw.get("validate", "strict"), warnings, refused)
    except Exception as err:        # (the error itself is what is compared)
        return type(err).__name__, str(err), warnings
    stored = got.obj if hasattr(got, "obj") else got
    return stored, [str(e) for e in refused], warnings


def _bad(change) -> dict:
    obj = _claim("bad")
    change(obj)
    return obj


@pytest.mark.parametrize("obj", [
    _claim("good"),
    _bad(lambda o: o["status"]["capacity"].update(cpu="1" * 40)),                  # the parser refuses it
    _bad(lambda o: o["spec"].update(resources={"requests": {"cpu": "lots"}})),      # the pattern refuses it
    _bad(lambda o: o["spec"]["requirements"][0].update(operator="Near")),           # an enum
    _bad(lambda o: o["spec"].pop("nodeClassRef")),                                 # required
    _bad(lambda o: o["spec"]["requirements"][0].update(values=[])),                 # a rule
    _bad(lambda o: o["status"].update(conditions=[{"type": "Ready", "status": "Maybe"}])),
    _bad(lambda o: o["spec"].update(taints=[{"key": "k", "effect": "NoSchedule", "value": "-x-"}])),
    _bad(lambda o: o["metadata"].update(name="Not_A_Name")),
    _bad(lambda o: o["spec"].update(typo=1)),
])
@pytest.mark.parametrize("validate", ["strict", "warn", "ignore"])
def test_the_stored_object_alone_says_what_the_parse_says(obj: dict, validate: str) -> None:
    """`_karpenter_objects` keeps only a NodeClaim's stored object (`stored_node_claim`): the same object,
    refusals, warnings and errors as the whole parse."""
    from kexplain.karpenter.apis.nodeclaim import stored_node_claim
    assert _said(stored_node_claim, obj, validate=validate) == _said(parse_node_claim, obj, validate=validate)
