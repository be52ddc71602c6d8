"""ImageLocality: image name normalisation, spread scaling, thresholds."""
from __future__ import annotations

import pytest

from kexplain.framework.cycle_state import CycleState
from kexplain.model.images import normalized_image_name
from kexplain.plugins.image_locality import FULL_INDEX_AFTER, ImageLocality, build_image_states, calculate_priority
from tests.support.selection_helpers import handle, node_info, pod, score_all

MB = 1024 * 1024


def image(size_mb, *names):
    return {"names": list(names), "sizeBytes": size_mb * MB}


@pytest.mark.parametrize("name,want", [
    ("nginx", "nginx:latest"),
    ("nginx:1.25", "nginx:1.25"),
    ("library/nginx", "library/nginx:latest"),
    ("docker.io/library/nginx", "docker.io/library/nginx:latest"),   # no registry rewriting
    ("localhost:5000/app", "localhost:5000/app:latest"),            # ':' before the last '/' is a port
    ("localhost:5000/app:v3", "localhost:5000/app:v3"),
    ("repo/app@sha256:abc", "repo/app@sha256:abc"),
    ("", ":latest"),
])
def test_normalized_image_name(name, want):
    assert normalized_image_name(name) == want


@pytest.mark.parametrize("total,containers,want", [
    (0, 1, 0),
    (23 * MB, 1, 0),                 # at the minimum threshold
    (1000 * MB, 1, 100),             # at the per-container maximum
    (5000 * MB, 1, 100),             # clamped
    (int(250 * MB), 1, 23),          # 100*(250-23)MB // (1000-23)MB
    (int(250 * MB), 2, 11),          # maximum grows with the container count
])
def test_calculate_priority(total, containers, want):
    assert calculate_priority(total, containers) == want


INFOS = [
    node_info("n1", images=[image(500, "big:1"), image(300, "nginx:latest", "nginx@sha256:1")]),
    node_info("n2", images=[image(500, "big:1")]),
    node_info("n3", images=[image(300, "docker.io/library/nginx:latest")]),  # not the same name
    node_info("n4"),
]


def test_image_states_count_nodes_per_name():
    states = build_image_states(handle(INFOS).snapshot)
    assert states["big:1"].size == 500 * MB and states["big:1"].nodes == {"n1", "n2"}
    assert states["nginx:latest"].nodes == {"n1"}
    assert states["nginx@sha256:1"].nodes == {"n1"}
    assert states["docker.io/library/nginx:latest"].nodes == {"n3"}


def test_image_size_is_the_first_reported():
    infos = [node_info("a", images=[image(100, "x:1")]), node_info("b", images=[image(200, "x:1")])]
    assert build_image_states(handle(infos).snapshot)["x:1"].size == 100 * MB


def test_names_sought_one_by_one_and_indexed_agree():
    """The first FULL_INDEX_AFTER names are sought node by node, later ones in the full index:
    each name's state is the same either way (first size reported, each node once, absent: None)."""
    infos = [node_info(f"n{k}", images=[image(10 + k, f"i{k % 5}:1", f"j{k % 3}:1"), image(99, f"i{k % 5}:1")])
             for k in range(12)]
    asked = [f"i{k}:1" for k in range(5)] + [f"j{k}:1" for k in range(3)] + ["absent:1"]
    assert len(asked) > FULL_INDEX_AFTER
    one_by_one = {name: build_image_states(handle(infos).snapshot).get(name) for name in asked}
    states = build_image_states(handle(infos).snapshot)
    in_turn = {name: states.get(name) for name in asked}           # the last ones from the index
    indexed = build_image_states(handle(infos).snapshot)
    for name in [f"warm{k}" for k in range(FULL_INDEX_AFTER)]:      # the index made first
        assert indexed.get(name) is None
    from_index = {name: indexed.get(name) for name in asked}
    assert states._index is not None and indexed._index is not None
    assert one_by_one == in_turn == from_index
    assert one_by_one["i0:1"].size == 10 * MB and one_by_one["i0:1"].nodes == {"n0", "n5", "n10"}
    assert one_by_one["absent:1"] is None


@pytest.mark.parametrize("spec,want", [
    # big:1 on 2 of 4 nodes: 500MB * 0.5 = 250MB -> 23.
    ({"containers": [{"name": "c", "image": "big:1"}]}, {"n1": 23, "n2": 23, "n3": 0, "n4": 0}),
    # Two containers (max 2000MB): n1 has 250MB + 300MB*0.25 -> 15; n2 250MB -> 11.
    ({"containers": [{"name": "c", "image": "big:1"}, {"name": "d", "image": "nginx"}]},
     {"n1": 15, "n2": 11, "n3": 0, "n4": 0}),
    # Init containers count, both as images and in the container count.
    ({"initContainers": [{"name": "i", "image": "nginx"}], "containers": [{"name": "c", "image": "big:1"}]},
     {"n1": 15, "n2": 11, "n3": 0, "n4": 0}),
    # An image present nowhere still counts as a container.
    ({"containers": [{"name": "c", "image": "big:1"}, {"name": "d", "image": "absent:1"}]},
     {"n1": 11, "n2": 11, "n3": 0, "n4": 0}),
    # The same image twice counts twice: 500MB of a 2000MB maximum -> 100*477//1977 = 24.
    ({"containers": [{"name": "c", "image": "big:1"}, {"name": "d", "image": "big:1"}]},
     {"n1": 24, "n2": 24, "n3": 0, "n4": 0}),
])
def test_score(spec, want):
    pl = ImageLocality({}, handle(INFOS))
    p = pod(spec=spec)
    raw, norm = score_all(pl, CycleState(), p, INFOS)
    assert raw == want
    assert norm == want          # no NormalizeScore
