"""Pods' statuses checked once per class (`kexplain.admission.status_classes`): statuses whose texts are alike
but for the strings `class_key` cuts get the same answers from both checks (decoding, the schema's field
check), whatever the field each string stands at; a valid quantity or a time is never cut as a name; and the
pod status schema of every version holds no field whose strings the checks would tell apart otherwise."""
from __future__ import annotations

import itertools
import json
import random
import string

import pytest

from kexplain.admission.decode import status_decodes
from kexplain.admission.openapi import RFC3339, available_versions, builtin_index, go_time_parse_error
from kexplain.admission.shapes import ShapeIndex
from kexplain.admission.status_classes import _CUT, StatusClasses, class_key
from kexplain.apimachinery import quantity
from kexplain.features import DEFAULT
from tests.admission.test_shape_templates import CHANGES, stored, workload

# strings of every kind a status may hold where a time, a quantity, a name or an integer is asked
VALUES = ["2025-12-11T02:07:50Z", "2025-12-30T02:07:50Z", "2025-12-11T02:07:50.5Z", "2025-12-11T02:07:50+01:00",
          "2025-13-11T02:07:50Z", "2025", "100m", "1Gi", "0.5", "1e3", "+5", "-1", "7", "Ki", "m", "e", "10.0.0.5",
          "1..2", "1.2.3", "abc", "Running", "True", "containerd://0af3", "registry.example/app:1", "", " ",
          "a b", "kube-api-access-x7k2p", "1Gb", "5KiB", "0x10", "NaN", "Inf", "12345", "2a", "a2", "e5", "E+3",
          "1.5e+3", "m5"]
# where: a time (startTime, a condition's time), a name (podIP, qosClass, a condition's type), a quantity
# (a container's allocated resources), an int32 (restartCount: a string is refused), an unknown field
PLACES = ["startTime", "condition.lastTransitionTime", "podIP", "qosClass", "condition.type",
          "container.allocatedResources.cpu", "container.resources.limits.memory", "container.restartCount",
          "container.state.running.startedAt", "unknownField"]


def status_of(values: dict[str, str]) -> dict:
    status: dict = {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}],
                    "containerStatuses": [{"name": "c", "ready": True, "restartCount": 0, "image": "x:1",
                                           "imageID": "", "state": {}}]}
    for place, value in values.items():
        where, _, field = place.rpartition(".")
        if where == "":
            status[field] = value
        elif where == "condition":
            status["conditions"][0][field] = value
        else:
            target = status["containerStatuses"][0]
            for key in where.split(".")[1:]:
                target = target.setdefault(key, {})
            target[field] = value
    return status


def answers(status: dict, minor: str) -> tuple:
    check = builtin_index(minor).field_check("v1", "Pod", "status", True)
    loose = builtin_index(minor).field_check("v1", "Pod", "status", False)
    return status_decodes({"status": status}), check(status), loose(status)


def test_statuses_of_one_class_get_the_same_answers() -> None:
    rng = random.Random(7)
    by_key: dict[bytes, tuple] = {}
    texts: set[bytes] = set()
    for _ in range(3000):
        values = {place: rng.choice(VALUES) for place in rng.sample(PLACES, rng.randint(1, 4))}
        status = status_of(values)
        for text in (json.dumps(status, separators=(",", ":")).encode(), json.dumps(status).encode()):
            key = class_key(text)
            assert key is not None
            texts.add(text)
            got = answers(json.loads(text), DEFAULT.minor)
            seen = by_key.setdefault(key, (got, text))
            assert seen[0] == got, (seen[1], text)
    assert len(by_key) < len(texts)          # (classes shared: what they are for)


def test_a_quantity_or_a_time_is_never_cut_as_a_name() -> None:
    alphabet = string.ascii_letters[:8] + "eEKMGTPimnuk" + string.digits + ".+-:/@_="
    rng = random.Random(3)
    samples = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 7))) for _ in range(20000)]
    samples += ["".join(p) for p in itertools.product("1.eKim+", repeat=3)]
    for text in samples:
        found = _CUT(text.encode())
        if found is None:
            continue
        if found.lastindex == 1:
            assert go_time_parse_error(RFC3339, text) is None, text
        else:
            assert not quantity.is_valid(text), text
            assert go_time_parse_error(RFC3339, text) is not None, text


def test_keys_escapes_and_spaced_strings_are_kept() -> None:
    assert class_key(b'{"podIP":"10.0.0.5","Running":"xyz","m":"x"}') == b'{"podIP":"\0S","Running":"\0S","m":"x"}'
    assert class_key(b'{"message":"back off 5m","reason":""}') == b'{"message":"back off 5m","reason":""}'
    assert class_key(b'{"podIP":"10.0.0.\\u0035"}') is None
    assert class_key(b'{"a" : "bcd"}') == b'{"a" : "\0S"}'


def _key_string_by_string(text: bytes) -> bytes | None:
    """`class_key` as the definition reads: each string between its quotes classed alone (`_CUT`), a
    key (followed by its colon) and a string starting with a colon kept."""
    if b"\\" in text:
        return None
    parts = text.split(b'"')
    for i in range(1, len(parts) - 1, 2):
        if parts[i + 1].lstrip()[:1] == b":" or parts[i][:1] == b":":
            continue
        found = _CUT(parts[i])
        if found is not None:
            parts[i] = b"\0T" if found.lastindex == 1 else b"\0S"
    return b'"'.join(parts)


def test_the_whole_text_cut_is_the_string_by_string_one() -> None:
    rng = random.Random(11)
    strings = VALUES + [":x", "x:", ":", "a:b", "2025-12-11T02:07:50Z:", "-", "::", "a,b", "[x]", "x y:"]
    for _ in range(4000):
        status: dict = {}
        for _ in range(rng.randint(1, 6)):
            key = rng.choice(strings)
            value = rng.choice([rng.choice(strings), [rng.choice(strings), rng.choice(strings)],
                                {rng.choice(strings): rng.choice(strings)}, rng.randint(0, 9), None, True])
            status[key] = value
        for text in (json.dumps(status, separators=(",", ":")), json.dumps(status), json.dumps(status, indent=2),
                     json.dumps(status, separators=(" ,", " : "))):
            assert class_key(text.encode()) == _key_string_by_string(text.encode()), text


def test_the_first_of_a_class_stands_in_for_the_others() -> None:
    classes = StatusClasses()
    first, second, other = {"podIP": "10.0.0.1"}, {"podIP": "10.0.0.2"}, {"podIP": "100m"}
    pods = [{"status": status} for status in (first, second, other)]
    for pod, text in zip(pods, (b'{"podIP":"10.0.0.1"}', b'{"podIP":"10.0.0.2"}', b'{"podIP":"100m"}')):
        classes.place(class_key(text), pod, pod["status"])
    assert classes.stand_in(pods[1]) is first and classes.stand_in(pods[0]) is first
    assert classes.stand_in(pods[2]) is other and classes.stand_in({"status": second}) is second


def _leaves(index, schema, seen: set, out: set) -> None:
    shape, detail = index._shape(schema)
    if shape == "struct":
        if detail in seen:
            return
        seen.add(detail)
        for sub in (index._defs.get(detail) or {}).get("properties", {}).values():
            _leaves(index, sub, seen, out)
    elif shape in ("slice", "map"):
        _leaves(index, detail, seen, out)
    else:
        out.add(shape)


@pytest.mark.parametrize("minor", available_versions())
def test_no_pod_status_field_reads_strings_the_classes_mix(minor: str) -> None:
    """The strings `class_key` cuts are told apart only by a time's or a quantity's parse: a byte string
    (base64) or an int-or-string field in the pod status would break the classes."""
    index = builtin_index(minor)
    pod = index._defs[index.definition("v1", "Pod")]
    found: set = set()
    _leaves(index, pod["properties"]["status"], set(), found)
    assert found <= {"string", "time", "quantity", "int32", "int64", "float", "bool", "any"}, found


def test_a_status_of_a_class_found_before_is_read_only_when_asked_and_is_its_own() -> None:
    """Pods whose statuses differ only in strings `class_key` cuts: the first one's status is decoded for the
    checks, the later ones' are not until read (`StoredPod.status_at`), and each then reads its own."""
    objects = workload(CHANGES["own-token-status"], range(0, 6))
    pods = stored(objects)
    index = ShapeIndex()
    for p in pods:
        index.entry(p)
    assert sum(type(p._status) is slice for p in pods) >= 3      # (the later ones: not decoded)
    for p, o in zip(pods, objects):
        assert p.get("status") == o["status"] and type(p._status) is dict
    assert len({id(p.get("status")) for p in pods}) == len(pods)


def test_a_class_matched_whole_is_the_class_cut() -> None:
    """`StatusClasses.key_of` matching a text against the last class's pattern gives `class_key`'s answer:
    statuses alike but for each value (of every kind, a time, a name, a quantity, spaced, a key-like
    string, a colon first), in runs of one class and mixed, written compact, spaced and indented."""
    rng = random.Random(5)
    strings = VALUES + [":x", "x:", ":", "a:b", "a,b", "[x]", "x y:", "2025-12-11T02:07:50Z:"]
    bases = [{"startTime": "2025-12-11T02:07:50Z", "podIP": "10.0.0.5", "condition.type": "Running"},
             {"container.state.running.startedAt": "2025-12-30T02:07:50Z", "qosClass": "abc",
              "container.allocatedResources.cpu": "100m"}]
    bases += [{rng.choice(PLACES): rng.choice(VALUES) for _ in range(3)} for _ in range(4)]
    writers = [lambda s: json.dumps(s, separators=(",", ":")), json.dumps, lambda s: json.dumps(s, indent=2)]
    for write in writers:
        classes = StatusClasses(compile_at=1)
        matched = 0
        base = bases[0]
        for _ in range(1500):
            base = rng.choice(bases) if rng.random() < 0.2 else base
            values = {place: rng.choice(strings) if rng.random() < 0.3 else value for place, value in base.items()}
            status = status_of(values)
            if rng.random() < 0.1:
                status["nested"] = {rng.choice(strings): rng.choice(strings), "list": [rng.choice(strings), 5]}
            text = write(status).encode()
            recent = classes.recent
            key = classes.key_of(text)
            assert key == class_key(text), text
            matched += recent is not None and recent[0] == key
        assert matched > 50 and len(classes.matchers) == 8, matched


def test_a_text_again_is_keyed_as_the_last_one_was(monkeypatch: pytest.MonkeyPatch) -> None:
    """`StatusClasses.key_of` answers a text equal to the last one keyed with that one's key, cutting it
    no more (a workload's pods often write one status text); any other text is cut or matched afresh."""
    texts = [json.dumps(status_of({"startTime": t, "podIP": ip}), separators=(",", ":")).encode()
             for t, ip in (("2025-12-11T02:07:50Z", "10.0.0.5"), ("2025-12-11T02:07:51Z", "10.0.0.6"))]
    texts.append(b'{"phase":"Run\\u006eing"}')          # (an escape: no key)
    classes = StatusClasses()
    cut: list[bytes] = []

    def counted(text: bytes) -> bytes | None:
        cut.append(text)
        return class_key(text)

    monkeypatch.setattr("kexplain.admission.status_classes.class_key", counted)
    for text in [texts[0], texts[0], texts[1], texts[1], texts[0], texts[2], texts[2], texts[0]]:
        assert classes.key_of(bytes(text)) == class_key(text)
    assert cut == [texts[0], texts[1], texts[0], texts[2], texts[0]]
    assert class_key(texts[2]) is None and class_key(texts[0]) == class_key(texts[1]) is not None
