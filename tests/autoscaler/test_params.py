"""--autoscaler-config: CA's settings over its flag defaults, and the document's `autoscaler` key."""
from __future__ import annotations

import pytest

from kexplain.autoscaler.params import Settings, parse_settings
from kexplain.errors import InputError, Source

SRC = Source("params.yaml")


def test_defaults_are_cas():
    s = Settings()
    assert (s.expander, s.max_nodes_total, s.cores_total) == ("least-waste", 0, (0, 320000))
    assert s.memory_total == (0, 6400000 * 2**30)
    assert s.flag("expendable-pods-priority-cutoff") == -10
    assert s.flag("new-pod-scale-up-delay") == 0.0
    assert s.predicate_parallelism == 1
    assert s.to_json()["flags"] == {}


def test_named_keys_and_flags_are_flags():
    s = parse_settings({"mode": "scaledown", "maxNodesTotal": 5, "memoryTotal": "0:2", "balanceSimilarNodeGroups": True,
                        "flags": {"balancing-ignore-label": ["a", "b"], "new-pod-scale-up-delay": "30s",
                                  "predicate-parallelism": 4}}, SRC)
    assert s.mode == "scaledown" and s.max_nodes_total == 5 and s.balance_similar_node_groups
    assert s.flag("balancing-ignore-label") == ("a", "b")
    assert s.flag("new-pod-scale-up-delay") == 30.0
    doc = s.to_json()
    assert doc["memoryTotal"] == f"0:{2 * 2**30}"
    assert doc["predicateParallelism"] == 4
    assert doc["flags"] == {"max-nodes-total": "5", "memory-total": "0:2", "balance-similar-node-groups": "true",
                            "balancing-ignore-label": "a,b", "new-pod-scale-up-delay": "30s",
                            "predicate-parallelism": "4"}


@pytest.mark.parametrize(("doc", "words"), [
    ({"flags": {"no-such-flag": 1}}, "cluster-autoscaler has no flag --no-such-flag"),
    ({"speed": 1}, "unknown key 'speed'"),
    ({"mode": "sideways"}, "mode: expected scaleup or scaledown"),
    ({"coresTotal": "10"}, "cores-total: expected <min>:<max>"),
    ({"flags": {"max-nodes-total": "many"}}, "flags.max-nodes-total: expected an integer"),
    ({"flags": {"scan-interval": "often"}}, "expected a duration"),
    ({"maxNodesTotal": 3, "flags": {"max-nodes-total": 4}}, "set twice"),
])
def test_bad_settings_are_refused(doc, words):
    with pytest.raises(InputError) as err:
        parse_settings(doc, SRC)
    assert words in str(err.value)
