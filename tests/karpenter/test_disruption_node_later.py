"""`--node NAME` past the present (issue 92 items 5, 11 and 12): what time alone changes names the
NodeClaim's expiry (forceful in Karpenter v1: the expiration controller deletes the NodeClaim at its
creationTimestamp + expireAfter whatever the budgets say, the drain bounded by its
terminationGracePeriod), and after each time event every check that stops the node then, in
Karpenter's order (a do-not-disrupt duration ending leaves the WhenEmpty policy keeping the node);
a do-not-disrupt Karpenter cannot read ("True") is said to protect nothing, with Karpenter's
InvalidDoNotDisruptAnnotation event, in --node (text, JSON, page) and in the decision's chain."""
from __future__ import annotations

import json

from tests.karpenter.test_disruption import NODEPOOLS, node, pod
from tests.karpenter.test_disruption_node import N1, cli, write

DND = "karpenter.sh/do-not-disrupt"
WHEN_EMPTY = NODEPOOLS.replace("BUDGET", "10").replace("TYPES", "m5.large").replace(
    "consolidationPolicy: WhenEmptyOrUnderutilized", "consolidationPolicy: WhenEmpty")
INVALID = ('Invalid karpenter.sh/do-not-disrupt annotation: failed to parse "True" as a duration: time: invalid '
           'duration "True", ignoring annotation')


def objects(value: str, start: str = "2026-01-01T07:00:00Z") -> list[dict]:
    held = pod("web-0", 1, cpu="200m", annotations={DND: value})
    held["status"]["startTime"] = start
    return [*node(1), *node(2), held, pod("web-1", 2, cpu="200m")]


def answer(tmp_path, objs: list[dict], pools: str, *args: str, now: str = "2026-01-01T10:00:00Z") -> tuple[int, dict]:
    code, out, err = cli(*write(tmp_path, objs, pools=pools), "--now", now, "--node", N1, "-o", "json", *args)
    assert code in (0, 1), err
    return code, json.loads(out)


def test_after_the_do_not_disrupt_ends_the_when_empty_policy_still_keeps_it(tmp_path):
    _, doc = answer(tmp_path, objects("4h"), WHEN_EMPTY)
    assert [c["check"] for c in doc["node"]["checks"]] == ["pod-do-not-disrupt"]
    [ends] = [w for w in doc["node"]["when"] if w["what"] == "do-not-disrupt"]
    assert ends["at"] == "2026-01-01T11:00:00Z" and ends["then"]["verdict"] == "stays"
    then = ends["then"]["checks"]
    assert [c["step"] for c in then] == ["Emptiness", "Drift", "MultiNodeConsolidation", "SingleNodeConsolidation"]
    assert [c["message"] for c in then if c["check"] == "filter"] == \
        ['NodePool "default" has non-empty consolidation disabled'] * 2
    html = tmp_path / "node.html"
    code, out, _ = cli(*write(tmp_path, objects("4h"), pools=WHEN_EMPTY), "--now", "2026-01-01T10:00:00Z",
                       "--node", N1, "--html", str(html))
    assert "then: Karpenter keeps it:" in html.read_text()
    flat = " ".join(out.split())
    assert ('2026-01-01T11:00:00Z: pod default/web-0\'s do-not-disrupt (4h) ends: its start 2026-01-01T07:00:00Z + 4h '
            'then: Karpenter keeps it: 1. Emptiness: not empty') in flat
    assert '4. SingleNodeConsolidation: "NodePool "default" has non-empty consolidation disabled"' in flat


def test_after_the_do_not_disrupt_ends_a_node_karpenter_takes_says_so(tmp_path):
    pools = NODEPOOLS.replace("BUDGET", "10").replace("TYPES", "m5.large")
    _, doc = answer(tmp_path, objects("4h"), pools)
    [ends] = [w for w in doc["node"]["when"] if w["what"] == "do-not-disrupt"]
    assert ends["then"]["verdict"] == "disrupted" and ends["then"]["checks"] == []


def test_the_nodeclaims_expiry_is_a_time_event_bounded_by_its_grace_period(tmp_path):
    objs = objects("true")
    _, doc = answer(tmp_path, objs, WHEN_EMPTY)
    [expiry] = [w for w in doc["node"]["when"] if w["what"] == "expiration"]
    assert expiry["at"] == "2026-01-31T09:00:00Z" and "then" not in expiry
    assert expiry["text"].startswith("NodeClaim default-00001 expires: its creationTimestamp 2026-01-01T09:00:00Z + "
                                     "expireAfter 720h; Karpenter's expiration deletes the NodeClaim then, whatever "
                                     "the budgets and do-not-disrupt say; with no terminationGracePeriod")
    objs[1]["spec"]["terminationGracePeriod"] = "24h"
    _, doc = answer(tmp_path, objs, WHEN_EMPTY)
    [expiry] = [w for w in doc["node"]["when"] if w["what"] == "expiration"]
    assert "until its terminationGracePeriod (24h) ends, 2026-02-01T09:00:00Z, then deletes the pods left" \
        in expiry["text"]
    objs[1]["spec"]["expireAfter"] = "Never"
    _, doc = answer(tmp_path, objs, WHEN_EMPTY)
    assert not [w for w in doc["node"]["when"] if w["what"] == "expiration"]


def test_an_invalid_do_not_disrupt_is_said_to_protect_nothing(tmp_path):
    pools = NODEPOOLS.replace("BUDGET", "10").replace("TYPES", "m5.large")
    code, doc = answer(tmp_path, objects("True"), pools, now="2026-01-01T12:00:00Z")
    assert code == 0 and doc["node"]["verdict"] == "disrupted"
    assert doc["node"]["ignored"] == [{"object": "Pod default/web-0", "value": "True",
                                       "message": 'Karpenter ignores it: "true" or a positive duration ("4h") protects '
                                                  "the pod",
                                       "event": {"reason": "InvalidDoNotDisruptAnnotation", "message": INVALID}}]
    [entry] = [p for n in doc["decision"]["chain"]["nodes"] for p in n["pods"] if p["pod"] == "default/web-0"]
    assert entry["doNotDisruptIgnored"] == {"value": "True", "reason": "InvalidDoNotDisruptAnnotation",
                                            "message": INVALID}
    html = tmp_path / "node.html"
    code, out, _ = cli(*write(tmp_path, objects("True"), pools=pools), "--node", N1, "--html", str(html))
    flat = " ".join(out.split())
    assert 'Annotations Karpenter ignores (they protect nothing): - Pod default/web-0: karpenter.sh/do-not-disrupt: ' \
           '"True"' in flat
    assert "protect nothing" in html.read_text()
    code, out, _ = cli(*write(tmp_path, objects("True"), pools=pools))
    assert ('its karpenter.sh/do-not-disrupt "True" protects nothing: Karpenter ignores it '
            '(InvalidDoNotDisruptAnnotation') in " ".join(out.split())


def test_a_nodes_own_do_not_disrupt_other_than_true_protects_nothing(tmp_path):
    objs = objects("true")
    objs[0]["metadata"]["annotations"] = {DND: "True"}
    objs[2]["metadata"]["annotations"] = {}
    pools = NODEPOOLS.replace("BUDGET", "10").replace("TYPES", "m5.large")
    _, doc = answer(tmp_path, objs, pools, now="2026-01-01T12:00:00Z")
    assert [(i["object"], i["value"]) for i in doc["node"]["ignored"]] == [(f"Node {N1}", "True")]
    objs[0]["metadata"]["annotations"] = {DND: "false"}
    _, doc = answer(tmp_path, objs, pools, now="2026-01-01T12:00:00Z")
    assert "ignored" not in doc["node"]


def test_once_the_nodeclaim_turns_consolidatable_its_condition_no_longer_stops_it(tmp_path):
    objs = [*node(1), *node(2), pod("web-0", 1, cpu="200m"), pod("web-1", 2, cpu="200m")]
    claim = objs[1]
    claim["status"]["conditions"] = [c for c in claim["status"]["conditions"] if c["type"] != "Consolidatable"]
    claim["status"]["lastPodEventTime"] = "2026-01-01T11:50:00Z"
    pools = NODEPOOLS.replace("BUDGET", "10").replace("TYPES", "m5.large").replace("consolidateAfter: 0s",
                                                                                   "consolidateAfter: 30m")
    _, doc = answer(tmp_path, objs, pools, now="2026-01-01T12:00:00Z")
    assert "consolidatable" in [c["check"] for c in doc["node"]["checks"]]
    [turns] = [w for w in doc["node"]["when"] if w["what"] == "consolidatable"]
    assert turns["at"] == "2026-01-01T12:20:00Z"
    assert turns["then"]["verdict"] == "disrupted"
