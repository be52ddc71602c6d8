"""An AppWrapper admitted by TAS (tests/data/kueue-ai/appwrapper-tas.yaml on the AI cluster of
fixtures/kueue/ai): its Job component's pods are ranked by their completion index (the index label
the AppWrapper library infers for a Job) and each pinned to its rank's domain, as Kueue's topology
ungater pins them: not wherever the scheduler would spread them."""
from __future__ import annotations

import json

from tests.support.cli_helpers import run_cli
from tests.support.paths import DATA, FIXTURES

CLUSTER = ("--nodes", str(FIXTURES / "kueue" / "ai" / "cluster.yaml"))


def test_an_appwrappers_job_pods_run_on_their_ranks_domains() -> None:
    code, out, err = run_cli(str(DATA / "kueue-ai" / "appwrapper-tas.yaml"), *CLUSTER, "-o", "json")
    [placement] = json.loads(out)["placements"]
    answer = placement["kueue"]
    assert answer["verdict"] == "Admitted" and placement["object"]["name"] == "train" and code == 0, err
    [pod_set] = answer["podSets"]
    by_rank = [d["values"][0] for d in pod_set["topology"]["domains"] for _ in range(d["count"])]
    assert len(set(by_rank)) == 2 and len(by_rank) == 4
    # copy i is the pod of completion index i: rank i's host (the scheduler alone would alternate them)
    assert [p["node"] for p in placement["pods"]] == by_rank
