"""`SelectorIndex` narrows, never decides: for any labels, the items it gives are every item whose
selector selects them (and maybe more), each once, in the order added; a null selector's item never."""
from __future__ import annotations

import itertools
import random

from kexplain.model.labels import parse_selector
from kexplain.model.selector_index import SelectorIndex

SELECTORS = [
    None, {}, {"matchLabels": {"app": "web"}}, {"matchLabels": {"app": "web", "tier": "front"}},
    {"matchExpressions": [{"key": "app", "operator": "In", "values": ["web", "api"]}]},
    {"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["db"]}]},
    {"matchExpressions": [{"key": "tier", "operator": "Exists"}]},
    {"matchExpressions": [{"key": "tier", "operator": "DoesNotExist"}]},
    {"matchLabels": {"tier": "back"}, "matchExpressions": [{"key": "app", "operator": "In", "values": ["db"]}]},
]
LABELS = [dict(zip(("app", "tier"), values)) for values in itertools.product(("web", "api", "db"), ("front", "back"))]
LABELS += [{}, {"app": "web"}, {"tier": "front"}, {"other": "x"}]


def test_the_items_given_are_every_selecting_one_in_the_order_added() -> None:
    rng = random.Random(7)
    for _ in range(50):
        chosen = [rng.choice(SELECTORS) for _ in range(rng.randint(0, 12))]
        parsed = [parse_selector(raw) for raw in chosen]
        index: SelectorIndex[int] = SelectorIndex()
        for i, selector in enumerate(parsed):
            index.add(i, selector)
        assert bool(index) == any(not s.nothing for s in parsed)
        for labels in LABELS:
            given = index.candidates(labels)
            assert given == sorted(set(given)), (chosen, labels)
            assert {i for i, s in enumerate(parsed) if s.matches(labels)} <= set(given), (chosen, labels)
            assert not any(parsed[i].nothing for i in given)


def test_labels_name_only_the_items_filed_under_their_pairs() -> None:
    index: SelectorIndex[str] = SelectorIndex()
    index.add("web", parse_selector({"matchLabels": {"app": "web"}}))
    index.add("all", parse_selector({}))
    index.add("web-or-api", parse_selector({"matchExpressions": [
        {"key": "app", "operator": "In", "values": ["web", "api"]}]}))
    index.add("none", parse_selector(None))
    assert index.candidates({"app": "api"}) == ["all", "web-or-api"]
    assert index.candidates({"app": "web"}) == ["web", "all", "web-or-api"]
    assert index.candidates({"app": "db"}) == ["all"]
