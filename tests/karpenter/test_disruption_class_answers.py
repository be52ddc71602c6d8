"""NewCandidate's answer for a node in one disruption class is made of the other class's answer where
the class cannot change it (`Context._as_in_other_class`): the class decides only what becomes of the
pods check's refusal. Each answer the pass keeps, asked in either order, must be the one NewCandidate
gives alone (the same candidate or error, the same events), on nodes refused before the pods check,
refused by it (with and without a terminationGracePeriod), and passing it."""
from __future__ import annotations

import pytest

import kexplain.karpenter.run as karpenter_run
from kexplain.karpenter.disruption import events as ev
from kexplain.karpenter.disruption.candidate import EVENTUAL, GRACEFUL, CandidateError, new_candidate
from kexplain.karpenter.disruption.helpers import Context
from tests.karpenter.test_disruption import document, node, pod

FIELDS = ("state", "instance_type", "node_pool", "zone", "capacity_type", "disruption_cost", "pods",
          "reschedulable_pods")


def _cluster() -> list[dict]:
    plain, grace, blocked, kept, empty, orphan = (node(i) for i in range(1, 7))
    grace[1]["spec"]["terminationGracePeriod"] = "30m"
    kept[1]["metadata"]["annotations"] = {"karpenter.sh/do-not-disrupt": "true"}
    for obj in orphan:
        obj["metadata"]["labels"] = {**obj["metadata"]["labels"], "karpenter.sh/nodepool": "gone"}
    budget = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "db", "namespace": "default"},
              "spec": {"selector": {"matchLabels": {"app": "db"}}, "maxUnavailable": 0},
              "status": {"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}}
    keep = {"karpenter.sh/do-not-disrupt": "true"}
    return [*plain, *grace, *blocked, *kept, *empty, *orphan, budget,
            pod("web-1", 1), pod("web-2", 2, annotations=keep), pod("db-3", 3, labels={"app": "db"}),
            pod("web-4", 4), pod("web-6", 6)]


@pytest.fixture
def passed(tmp_path, monkeypatch):
    """The pass over `_cluster()` (its result, for its Context and inputs)."""
    kept = {}
    disrupt = karpenter_run.disrupt

    def keep(*args, **kwargs):
        kept["args"] = args
        kept["result"] = disrupt(*args, **kwargs)
        return kept["result"]

    monkeypatch.setattr(karpenter_run, "disrupt", keep)
    document(tmp_path, _cluster())
    return kept


def _alone(ctx: Context, state, cls: str):
    capture = ev.Capture()
    try:
        answer = new_candidate(state, ctx.pods_on(state), ctx.pdbs, ctx.node_pools, ctx.instance_types, ctx.now,
                               capture, cls)
    except CandidateError as err:
        answer = err
    return answer, capture.events


def _asked(ctx: Context, state, cls: str):
    recorder = ev.Recorder()
    try:
        answer = ctx.candidate(state, cls, recorder)
    except CandidateError as err:
        answer = err
    return answer, recorder.emitted


def _same(asked, alone) -> None:
    (a, a_events), (b, b_events) = asked, alone
    assert type(a) is type(b)
    if isinstance(a, CandidateError):
        assert (a.text, a.pod_block) == (b.text, b.pod_block)
    else:
        assert all(getattr(a, f) == getattr(b, f) for f in FIELDS), a.name()
    assert [(e.object, e.reason, e.message) for e in a_events] == [(e.object, e.reason, e.message) for e in b_events]


@pytest.mark.parametrize("order", [(GRACEFUL, EVENTUAL), (EVENTUAL, GRACEFUL)])
def test_each_class_answers_as_newcandidate_alone_in_either_order(passed, order):
    inputs, cloud, cluster, now = passed["args"][:4]
    ctx = Context(inputs, cloud, cluster, now, passed["result"].ctx.rules)
    for state in cluster.nodes:
        for cls in order:
            _same(_asked(ctx, state, cls), _alone(ctx, state, cls))
            _same(_asked(ctx, state, cls), _alone(ctx, state, cls))        # (asked again: kept)
    # made of the other class's answer (its events the same list): all but the two nodes whose pods the
    # check refuses
    shared = [s.name() for s in cluster.nodes
              if ctx.candidates[(id(s), order[0])][2] is ctx.candidates[(id(s), order[1])][2]]
    assert len(shared) == 4 and "ip-10-0-2-1.ec2.internal" not in shared and "ip-10-0-3-1.ec2.internal" not in shared


def test_the_pass_gives_each_node_both_answers_as_newcandidate_alone(passed):
    result = passed["result"]
    ctx = result.ctx
    texts = {}
    for v in result.nodes:
        for cls, made, err in ((GRACEFUL, v.candidate, v.error), (EVENTUAL, v.candidate_eventual, v.error_eventual)):
            alone, _ = _alone(ctx, v.state, cls)
            texts[(v.state.name(), cls)] = err
            assert (made is None) == isinstance(alone, CandidateError)
            assert err == (str(alone) if isinstance(alone, CandidateError) else "")
    # the grace-period node: refused gracefully for its pod, taken eventually
    assert texts[("ip-10-0-2-1.ec2.internal", GRACEFUL)].startswith('pod has "karpenter.sh/do-not-disrupt"')
    assert texts[("ip-10-0-2-1.ec2.internal", EVENTUAL)] == ""
    assert texts[("ip-10-0-3-1.ec2.internal", EVENTUAL)].startswith("pdb prevents pod evictions")
