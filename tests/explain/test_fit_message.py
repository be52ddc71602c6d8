"""The FailedScheduling message taken apart (kexplain.explain.fit_message): every real message
of every conformance case of every minor parses with that minor's vocabulary, each reason
attributed to a plugin, the counts fitting the node count; kexplain's own messages too; a
message of another shape is refused, never guessed."""
from __future__ import annotations

import json
from typing import Any, Iterator

import pytest

from kexplain.explain.fit_message import FRAMEWORK, counts_add_up, parse
from kexplain.features import KubeVersion, SUPPORTED
from tests.support.paths import conformance_roots

MINOR_OF = {"expected.json": "1.35", **{f"expected-v{m}.json": m for m in SUPPORTED}}


def _messages(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for v in value.values():
            yield from _messages(v)
    elif isinstance(value, list):
        for v in value:
            yield from _messages(v)
    elif isinstance(value, str) and value.startswith("0/") and " nodes are available:" in value:
        yield value


def corpus() -> dict[str, set[str]]:
    """minor -> every FailedScheduling message the real scheduler of that minor wrote."""
    out: dict[str, set[str]] = {m: set() for m in SUPPORTED}
    for root in conformance_roots():
        for path in root.glob("*/expected*.json"):
            minor = MINOR_OF.get(path.name)
            if minor is not None:
                out[minor].update(_messages(json.loads(path.read_text())))
    return out


CORPUS = corpus()


@pytest.mark.parametrize("minor", SUPPORTED)
def test_every_real_message_of_the_minor_parses_with_its_vocabulary(minor):
    kube = KubeVersion(minor)
    assert CORPUS[minor], "no message for this minor"
    for message in sorted(CORPUS[minor]):
        parsed = parse(message, kube)
        assert parsed is not None, message
        hist = parsed.filters
        assert hist.nodes == int(message[2:message.index(" ")]), message
        if parsed.truncated:
            continue
        unknown = [e.text for e in hist.entries if e.plugin is None]
        assert not unknown, (message, unknown)
        assert counts_add_up(hist), message
        if hist.text:
            assert not hist.entries
        if parsed.preemption is not None and parsed.preemption.entries:
            assert counts_add_up(parsed.preemption), message
            assert parsed.preemption.nodes == hist.nodes, message
            assert all(e.plugin for e in parsed.preemption.entries), message
        assert all(plugin for _, plugin in parsed.post_filter), message


@pytest.mark.parametrize("minor, other, text", [
    ("1.33", "1.35", "node(s) had untolerated taint {team: payments}"),
    ("1.35", "1.33", "node(s) had untolerated taint(s)"),
    ("1.35", "1.33", "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already "
                     "in-use by another pod"),
])
def test_a_reason_is_known_only_to_the_minors_that_write_it(minor, other, text):
    message = f"0/3 nodes are available: 3 {text}."
    assert parse(message, KubeVersion(minor)).filters.entries[0].plugin is not None
    assert parse(message, KubeVersion(other)).filters.entries[0].plugin is None


def test_the_taint_of_1_33_is_taken_apart():
    parsed = parse("0/9 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/memory-pressure: }, "
                   "2 node(s) had untolerated taint {example.com/special: b}, 6 Insufficient nvidia.com/gpu. "
                   "preemption: 0/9 nodes are available: 3 No preemption victims found for incoming pod, "
                   "6 Preemption is not helpful for scheduling.", KubeVersion("1.33"))
    entries = [e.to_json() for e in parsed.filters.entries]
    assert entries == [
        {"count": 1, "reason": "node(s) had untolerated taint {node.kubernetes.io/memory-pressure: }",
         "plugin": "TaintToleration", "key": "node.kubernetes.io/memory-pressure", "value": ""},
        {"count": 2, "reason": "node(s) had untolerated taint {example.com/special: b}", "plugin": "TaintToleration",
         "key": "example.com/special", "value": "b"},
        {"count": 6, "reason": "Insufficient nvidia.com/gpu", "plugin": "NodeResourcesFit",
         "resource": "nvidia.com/gpu"}]
    assert [(e.count, e.plugin) for e in parsed.preemption.entries] == [(3, "DefaultPreemption"),
                                                                          (6, "DefaultPreemption")]


def test_the_post_filter_parts_and_a_pre_filter_message():
    parsed = parse("0/8 nodes are available: 8 Insufficient cpu. no new claims to deallocate, preemption: not "
                   "eligible due to preemptionPolicy=Never.", KubeVersion("1.35"))
    assert parsed.post_filter == (("no new claims to deallocate", "DynamicResources"),
                                  ("preemption: not eligible due to preemptionPolicy=Never.", "DefaultPreemption"))
    assert parsed.preemption.text == "not eligible due to preemptionPolicy=Never."
    parsed = parse("0/4 nodes are available: pod has unbound immediate PersistentVolumeClaims. not found",
                   KubeVersion("1.35"))
    assert (parsed.filters.text, parsed.filters.text_plugin) == ("pod has unbound immediate PersistentVolumeClaims",
                                                                  "VolumeBinding")
    assert parsed.post_filter == (("not found", "DynamicResources"),)


def test_nodes_a_pre_filter_left_out_are_the_frameworks():
    parsed = parse("0/5 nodes are available: 5 node(s) didn't satisfy plugin(s) [NodeAffinity].", KubeVersion("1.35"))
    assert parsed.filters.entries[0].plugin == FRAMEWORK
    assert dict(parsed.filters.entries[0].parts) == {"plugins": "NodeAffinity"}


@pytest.mark.parametrize("message", [
    "", "no nodes available to schedule pods", "0/x nodes are available: 3 Insufficient cpu.",
    "0/3 nodes are available: 3 Insufficient cpu", "0/3 nodes are available:3 Insufficient cpu.",
])
def test_other_shapes_are_not_parsed(message):
    assert parse(message, KubeVersion("1.35")) is None


def test_an_unknown_reason_is_kept_as_it_is():
    parsed = parse("0/4 nodes are available: 1 node(s) were unschedulable, 3 node(s) lost in space.",
                   KubeVersion("1.35"))
    assert [(e.text, e.plugin) for e in parsed.filters.entries] == [("node(s) were unschedulable", "NodeUnschedulable"),
                                                                    ("node(s) lost in space", None)]


def test_a_truncated_event_is_said_to_be():
    head = "0/400 nodes are available: " + ", ".join(f"1 node(s) had untolerated taint {{k{n}: v}}" for n in range(40))
    message = head.encode()[:1020].decode() + " ..."
    parsed = parse(message, KubeVersion("1.33"))
    assert parsed.truncated
    assert all(e.plugin == "TaintToleration" for e in parsed.filters.entries[:-1])


def test_a_pre_filter_message_about_one_claim_names_it():
    parsed = parse('0/4 nodes are available: persistentvolumeclaim "data-0" is being deleted. preemption: 0/4 nodes '
                   "are available: 4 Preemption is not helpful for scheduling.", KubeVersion("1.34"))
    assert (parsed.filters.text_plugin, dict(parsed.filters.parts)) == ("VolumeBinding", {"claim": "data-0"})
    assert parsed.preemption.entries[0].count == 4
