"""The requirements algebra (kexplain.karpenter.scheduling.requirement/requirements) against the
behaviour of Karpenter v1.13.0's pkg/scheduling (its requirement_test.go / requirements_test.go)
and the texts of the shared cases."""
from __future__ import annotations

import random

import pytest

from kexplain.karpenter.apis.nodeclaim import NodeSelectorRequirementWithMinValues as NSR
from kexplain.karpenter.errors import MultiError, multierr_append, multierr_errors
from kexplain.karpenter.scheduling.requirement import (MAX_INT, RANDOM_VALUE, GoRandom, RandomMarker, Requirement,
                                                       new_requirement)
from kexplain.karpenter.scheduling.requirements import (ALLOW_UNDEFINED_WELL_KNOWN_LABELS as WELL_KNOWN, BadKeyError,
                                                        UndefinedLabelError, has_preferred_node_affinity,
                                                        new_label_requirements, new_node_selector_requirements,
                                                        new_node_selector_requirements_with_min_values,
                                                        new_pod_requirements, new_requirements,
                                                        new_strict_pod_requirements, sort_preferred_terms)
from kexplain.model.pod import PodInfo

K = "team"


def req(op: str, *values: str, key: str = K, min_values: int | None = None) -> Requirement:
    return new_requirement(key, op, *values, min_values=min_values)


# name -> a requirement on K
R = {
    "exists": lambda: req("Exists"),
    "dne": lambda: req("DoesNotExist"),
    "in_x": lambda: req("In", "x"),
    "in_y": lambda: req("In", "y"),
    "in_xy": lambda: req("In", "x", "y"),
    "notin_x": lambda: req("NotIn", "x"),
    "in_3": lambda: req("In", "3"),
    "in_3_12": lambda: req("In", "3", "12"),
    "notin_3_4": lambda: req("NotIn", "3", "4"),
    "gt_3": lambda: req("Gt", "3"),
    "gt_12": lambda: req("Gt", "12"),
    "lt_3": lambda: req("Lt", "3"),
    "lt_12": lambda: req("Lt", "12"),
    "gte_4": lambda: req("Gte", "4"),
    "lte_11": lambda: req("Lte", "11"),
}


@pytest.mark.parametrize("name, operator, text, length", [
    ("exists", "Exists", "team Exists", MAX_INT),
    ("dne", "DoesNotExist", "team DoesNotExist", 0),
    ("in_xy", "In", "team In [x y]", 2),
    ("notin_x", "NotIn", "team NotIn [x]", MAX_INT - 1),
    ("notin_3_4", "NotIn", "team NotIn [3 4]", MAX_INT - 2),
    ("gt_3", "Exists", "team Exists >=4", MAX_INT),
    ("gt_12", "Exists", "team Exists >=13", MAX_INT),
    ("lt_3", "Exists", "team Exists <=2", MAX_INT),
    ("gte_4", "Exists", "team Exists >=4", MAX_INT),
    ("lte_11", "Exists", "team Exists <=11", MAX_INT),
])
def test_operator_string_len(name: str, operator: str, text: str, length: int) -> None:
    r = R[name]()
    assert (r.operator(), str(r), r.len()) == (operator, text, length)


def test_string_truncates_after_five_values_and_prints_bounds_and_min_values() -> None:
    r = req("In", *"gfedcba", min_values=3)
    assert str(r) == "team In [a b c d e and 2 others] minValues 3"
    assert str(req("Gt", "2").intersection(req("Lt", "10"))) == "team Exists >=3 <=9"
    assert str(req("Gt", "10").intersection(req("Lt", "3"))) == "team DoesNotExist"


@pytest.mark.parametrize("name, value, allowed", [
    ("exists", "x", True), ("dne", "x", False), ("in_x", "x", True), ("in_y", "x", False),
    ("notin_x", "x", False), ("notin_x", "y", True), ("notin_3_4", "x", True), ("notin_3_4", "4", False),
    ("gt_3", "4", True), ("gt_3", "3", False), ("gt_3", "x", False), ("gt_3", "+5", True), ("gt_3", "05", True),
    ("lt_3", "2", True), ("lt_3", "3", False), ("lt_3", "-7", True), ("gte_4", "4", True), ("lte_11", "12", False),
    ("in_3_12", "12", True), ("in_3_12", "4", False),
])
def test_has(name: str, value: str, allowed: bool) -> None:
    assert R[name]().has(value) is allowed


@pytest.mark.parametrize("a, b, want", [
    ("exists", "in_xy", "team In [x y]"),
    ("exists", "notin_x", "team NotIn [x]"),
    ("dne", "exists", "team DoesNotExist"),
    ("dne", "notin_x", "team DoesNotExist"),
    ("in_xy", "notin_x", "team In [y]"),
    ("notin_x", "in_xy", "team In [y]"),
    ("in_x", "in_y", "team DoesNotExist"),
    ("notin_x", "notin_3_4", "team NotIn [3 4 x]"),
    # bounds filter the values of a concrete set and then vanish
    ("in_3_12", "gt_3", "team In [12]"),
    ("in_3_12", "lt_12", "team In [3]"),
    ("in_xy", "gt_3", "team DoesNotExist"),
    # a complement keeps its bounds; exclusions outside them are dropped
    ("notin_3_4", "gt_3", "team NotIn [4] >=4"),
    ("notin_3_4", "gt_12", "team Exists >=13"),
    ("notin_x", "lt_3", "team Exists <=2"),
    ("gt_3", "lt_12", "team Exists >=4 <=11"),
    ("gt_12", "lt_3", "team DoesNotExist"),
    # the tighter bound wins, Gt n being Gte n+1
    ("gt_3", "gte_4", "team Exists >=4"),
    ("lt_12", "lte_11", "team Exists <=11"),
])
def test_intersection(a: str, b: str, want: str) -> None:
    got = R[a]().intersection(R[b]())
    assert str(got) == want
    assert R[a]().has_intersection(R[b]()) is (got.len() > 0)
    assert str(R[b]().intersection(R[a]())) == want


def test_intersection_takes_the_larger_min_values_also_when_empty() -> None:
    assert req("In", "a", "b", min_values=2).intersection(req("In", "a", min_values=1)).min_values == 2
    assert str(req("In", "a", min_values=3).intersection(req("Gt", "8"))) == "team DoesNotExist minValues 3"


def test_gt_max_int_matches_nothing_and_lt_min_int_wraps() -> None:
    assert req("Gt", str(MAX_INT)).operator() == "DoesNotExist"
    assert req("Lt", str(-MAX_INT - 1)).lte == MAX_INT


def test_normalized_keys() -> None:
    r = new_requirement("beta.kubernetes.io/arch", "In", "arm64")
    assert r.key == "kubernetes.io/arch"
    reqs = new_label_requirements({"failure-domain.beta.kubernetes.io/zone": "a", "topology.kubernetes.io/zone": "b",
                                   "topology.ebs.csi.aws.com/zone": "a"})
    assert list(reqs) == ["topology.kubernetes.io/zone"] and str(reqs) == "topology.kubernetes.io/zone DoesNotExist"


@pytest.mark.parametrize("name, want", [
    ("exists", NSR(K, "Exists")), ("dne", NSR(K, "DoesNotExist")), ("in_xy", NSR(K, "In", ("x", "y"))),
    ("notin_3_4", NSR(K, "NotIn", ("3", "4"))), ("gt_3", NSR(K, "Gte", ("4",))), ("lt_3", NSR(K, "Lte", ("2",))),
])
def test_node_selector_requirement(name: str, want: NSR) -> None:
    assert R[name]().node_selector_requirement() == want


def test_node_selector_requirements_write_both_bounds_and_min_values() -> None:
    reqs = new_requirements(req("Gt", "1", min_values=2), req("Lt", "9"), req("In", "b", "a", key="a"))
    assert [r.to_dict() for r in reqs.node_selector_requirements()] == [
        {"key": "a", "operator": "In", "values": ["a", "b"]},
        {"key": K, "operator": "Gte", "values": ["2"], "minValues": 2},
        {"key": K, "operator": "Lte", "values": ["8"], "minValues": 2},
    ]


def test_any() -> None:
    rng = GoRandom(random.Random(7))
    assert req("In", "only").any() == "only"
    assert req("DoesNotExist").any() == ""
    assert req("In", "a", "b").any(rng) in ("a", "b")
    assert 0 <= int(req("Exists").any(rng)) < MAX_INT
    assert 13 <= int(req("Gt", "12").any(rng))
    assert req("Lt", "1").any(rng) == "0"
    assert 4 <= int(req("Gt", "3").intersection(req("Lt", "6")).any(rng)) <= 5
    assert req("NotIn", "a").any(RandomMarker()) == RANDOM_VALUE
    assert req("In", "a").any(RandomMarker()) == "a"
    assert [req(*a).is_random() for a in (("In", "a"), ("In", "a", "b"), ("Exists",), ("NotIn", "a"),
                                            ("DoesNotExist",))] == [False, True, True, True, False]
    with pytest.raises(ValueError):
        req("Lt", "0").any(rng)


# -- Requirements --------------------------------------------------------------------------------
Z = "topology.kubernetes.io/zone"
ZONES = {
    "none": lambda: new_requirements(),
    "exists": lambda: new_requirements(new_requirement(Z, "Exists")),
    "dne": lambda: new_requirements(new_requirement(Z, "DoesNotExist")),
    "in_a": lambda: new_requirements(new_requirement(Z, "In", "a")),
    "in_ab": lambda: new_requirements(new_requirement(Z, "In", "a", "b")),
    "notin_a": lambda: new_requirements(new_requirement(Z, "NotIn", "a")),
    "gt_5": lambda: new_requirements(new_requirement(Z, "Gt", "5")),
}


@pytest.mark.parametrize("have, incoming, loose, strict", [
    # a well-known key undefined on the left: allowed only with AllowUndefinedWellKnownLabels
    ("none", "exists", True, False), ("none", "in_a", True, False), ("none", "gt_5", True, False),
    # only excluding values: always allowed when undefined
    ("none", "dne", True, True), ("none", "notin_a", True, True), ("none", "none", True, True),
    ("exists", "dne", False, False), ("dne", "exists", False, False), ("dne", "in_a", False, False),
    ("dne", "notin_a", True, True), ("notin_a", "dne", True, True), ("in_a", "notin_a", False, False),
    ("in_ab", "notin_a", True, True), ("in_a", "gt_5", False, False), ("gt_5", "notin_a", True, True),
    ("in_ab", "in_a", True, True), ("exists", "in_a", True, True),
])
def test_compatible(have: str, incoming: str, loose: bool, strict: bool) -> None:
    a, b = ZONES[have](), ZONES[incoming]()
    assert (a.compatible(b, WELL_KNOWN) is None) is loose
    assert (a.compatible(b) is None) is strict
    assert a.is_compatible(b, WELL_KNOWN) is loose and a.is_compatible(b) is strict


def test_compatible_texts_of_the_shared_cases() -> None:
    pool = new_node_selector_requirements([
        {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]},
    ])
    pod = new_label_requirements({"workload": "gpu", "kubernetes.io/arch": "arm64"})
    err = pool.compatible(pod, WELL_KNOWN)
    assert isinstance(err, UndefinedLabelError) and str(err) == 'label "workload" does not have known values'
    pool.add(new_requirement("workload", "Exists"))
    err = pool.compatible(pod, WELL_KNOWN)
    assert isinstance(err, BadKeyError)
    assert str(err) == "key kubernetes.io/arch, kubernetes.io/arch In [arm64] not in kubernetes.io/arch In [amd64]"
    pod.add(new_requirement("karpenter.sh/capacity-type", "In", "reserved"))
    err = pool.compatible(pod, WELL_KNOWN)
    assert isinstance(err, MultiError) and str(err) == (
        "key karpenter.sh/capacity-type, karpenter.sh/capacity-type In [reserved] not in karpenter.sh/capacity-type "
        "In [spot]; key kubernetes.io/arch, kubernetes.io/arch In [arm64] not in kubernetes.io/arch In [amd64]")
    mv = new_node_selector_requirements_with_min_values(
        [NSR("karpenter.k8s.aws/instance-family", "In", ("t3", "m5", "g5", "c6g"), 3)])
    err = mv.compatible(new_label_requirements({"karpenter.k8s.aws/instance-family": "inf2"}), WELL_KNOWN)
    assert str(err) == ("key karpenter.k8s.aws/instance-family, karpenter.k8s.aws/instance-family In [inf2] not in "
                        "karpenter.k8s.aws/instance-family In [c6g g5 m5 t3] minValues 3")


@pytest.mark.parametrize("key, hint", [
    ("zone", "topology.kubernetes.io/zone"),          # Go: this or topology.k8s.aws/zone-id, at random
    ("arch", "kubernetes.io/arch"),
    ("capacity-type", "karpenter.sh/capacity-type"),
    ("instance-family", "karpenter.k8s.aws/instance-family"),
    ("example.com/instance-cpu", "karpenter.k8s.aws/instance-cpu"),
    ("topology.kubernetes.io/regoin", ""),
    ("topology.kubernetes.io/regi", "topology.kubernetes.io/region"),
    ("workload", ""),
])
def test_typo_hints_from_well_known_labels(key: str, hint: str) -> None:
    err = new_requirements().compatible(new_requirements(new_requirement(key, "Exists")), WELL_KNOWN)
    suffix = f' (typo of "{hint}"?)' if hint else ""
    assert str(err) == f'label "{key}" does not have known values{suffix}'


def test_typo_hint_from_defined_keys_without_allow_undefined() -> None:
    have = new_requirements(new_requirement("example.com/team", "In", "a"))
    assert str(have.compatible(new_requirements(new_requirement("team", "In", "a")))) == \
        'label "team" does not have known values (typo of "example.com/team"?)'


def test_undefined_keys_lists_every_refused_key() -> None:
    have = new_requirements(new_requirement("beta", "In", "x"))
    incoming = new_requirements(*(new_requirement(k, "In", "x") for k in ("delta", "beta", "gamma")),
                                new_requirement("epsilon", "NotIn", "x"), new_requirement(Z, "In", "a"))
    assert have.undefined_keys(incoming, WELL_KNOWN) == ["delta", "gamma"]
    assert str(have.compatible(incoming, WELL_KNOWN)) == 'label "delta" does not have known values'


def test_get_add_and_string() -> None:
    reqs = new_requirements(new_requirement("kubernetes.io/hostname", "In", "n1"), new_requirement("b", "In", "1", "2"))
    assert str(reqs.get("missing")) == "missing Exists" and not reqs.has("missing")
    reqs.add(new_requirement("b", "NotIn", "1"))
    assert str(reqs) == "b In [2]"        # hostname is a restricted label: left out of String()
    copy = reqs.copy()
    copy.get("b").insert("9")
    assert str(reqs.get("b")) == "b In [2]" and str(copy.get("b")) == "b In [2 9]"
    assert not reqs.has_min_values()


def test_multierr() -> None:
    a, b, c = (ValueError(x) for x in "abc")
    assert multierr_append(None, None) is None and multierr_append(a, None) is a
    joined = multierr_append(multierr_append(a, b), multierr_append(None, c))
    assert multierr_errors(joined) == [a, b, c] and str(joined) == "a; b; c"
    assert multierr_errors(multierr_append(a, multierr_append(b, c))) == [a, b, c]


# -- pods ----------------------------------------------------------------------------------------
def _pod(node_selector=None, required=None, preferred=None) -> PodInfo:
    node_affinity = {}
    if required is not None:
        node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": [{"matchExpressions": t} for t in required]}
    if preferred is not None:
        node_affinity["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": w, "preference": {"matchExpressions": t}} for w, t in preferred]
    spec = {"containers": [{"name": "c"}]}
    if node_selector:
        spec["nodeSelector"] = node_selector
    if node_affinity:
        spec["affinity"] = {"nodeAffinity": node_affinity}
    return PodInfo({"metadata": {"name": "p"}, "spec": spec})


def _expr(key: str, op: str, *values: str) -> dict:
    out = {"key": key, "operator": op}
    if values:
        out["values"] = list(values)
    return out


def test_pod_requirements_first_required_term_and_heaviest_preference() -> None:
    pod = _pod({"beta.kubernetes.io/arch": "amd64"},
               required=[[_expr("team", "In", "a", "b")], [_expr("team", "In", "c")]],
               preferred=[(10, [_expr("team", "In", "b", "z")]), (50, [_expr(Z, "In", "a")]),
                          (50, [_expr(Z, "In", "b")])])
    assert str(new_pod_requirements(pod)) == "kubernetes.io/arch In [amd64], team In [a b], topology.kubernetes.io/zone In [a]"
    assert str(new_strict_pod_requirements(pod)) == "kubernetes.io/arch In [amd64], team In [a b]"
    assert str(new_pod_requirements(pod.obj)) == str(new_pod_requirements(pod))   # a raw object works too
    assert has_preferred_node_affinity(pod) and not has_preferred_node_affinity(_pod({"a": "b"}))
    assert str(new_pod_requirements(_pod({"a": "b"}))) == "a In [b]"


def test_preferred_terms_sort_as_go_sort_slice() -> None:
    terms = [{"weight": w, "preference": {"i": i}} for i, w in enumerate([1, 5, 5, 3])]
    assert [t["preference"]["i"] for t in sort_preferred_terms(terms)] == [1, 2, 3, 0]
    assert [t["weight"] for t in terms] == [1, 5, 5, 3]          # the pod's own list is left alone


def test_node_selector_requirements_gt_lt_from_a_pod() -> None:
    reqs = new_node_selector_requirements([_expr("karpenter.k8s.aws/instance-cpu", "Gt", "8"),
                                           _expr("karpenter.k8s.aws/instance-cpu", "Lt", "33")])
    assert str(reqs) == "karpenter.k8s.aws/instance-cpu Exists >=9 <=32"
    assert reqs.get("karpenter.k8s.aws/instance-cpu").has("16") and not reqs.get("karpenter.k8s.aws/instance-cpu").has("8")
