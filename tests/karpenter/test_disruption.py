"""Karpenter's disruption pass (`kexplain karpenter --disruption`): the budget arithmetic and its cron
windows, Go's duration errors in the do-not-disrupt events, NewCandidate's refusals in Karpenter's
words, and the methods' commands on small clusters written here (Karpenter v1.13.0's rules)."""
from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import yaml

from kexplain.apimachinery.gosort import go_sort
from kexplain.cli.app import main
from kexplain.karpenter.apis.nodepool import Budget
from kexplain.karpenter.disruption.budgets import MAX_INT32, allowed_of, is_active
from kexplain.karpenter.disruption.pods import go_duration_error
from kexplain.karpenter.utils.cron import parse_standard
from tests.support.cli_helpers import TestEnvironment

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)        # a Thursday
NODEPOOLS = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
      - {key: node.kubernetes.io/instance-type, operator: In, values: [TYPES]}
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      expireAfter: 720h
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 0s
    budgets: [{nodes: "BUDGET"}]
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  role: KarpenterNodeRole
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: test}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: test}}]
"""


def node(i: int, itype: str = "m5.large", cpu: str = "2", alloc_cpu: str = "1930m") -> list[dict]:
    """A Karpenter node and its NodeClaim (registered, initialized, consolidatable)."""
    name, claim = f"ip-10-0-{i}-1.ec2.internal", f"default-{i:05d}"
    labels = {"kubernetes.io/hostname": name, "node.kubernetes.io/instance-type": itype,
              "topology.kubernetes.io/zone": "test-zone-1a", "karpenter.sh/capacity-type": "on-demand",
              "karpenter.sh/nodepool": "default", "karpenter.sh/registered": "true",
              "karpenter.sh/initialized": "true", "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux",
              "karpenter.k8s.aws/ec2nodeclass": "default"}
    pid = f"aws:///test-zone-1a/i-{i:017d}"
    status = {"capacity": {"cpu": cpu, "memory": "7577Mi", "pods": "29"},
              "allocatable": {"cpu": alloc_cpu, "memory": "6903Mi", "pods": "29"}}
    cond = {"status": "True", "lastTransitionTime": "2026-01-01T10:00:00Z"}
    return [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
             "spec": {"providerID": pid}, "status": status},
            {"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
             "metadata": {"name": claim, "labels": labels, "creationTimestamp": "2026-01-01T09:00:00Z"},
             "spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                      "requirements": [], "expireAfter": "720h"},
             "status": {"providerID": pid, "nodeName": name, **status,
                        "conditions": [{"type": t, "reason": t, **cond}
                                       for t in ("Launched", "Registered", "Initialized", "Consolidatable")]}}]


def pod(name: str, node_index: int, cpu: str = "500m", annotations: dict | None = None,
        labels: dict | None = None) -> dict:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": labels or {"app": "web"},
                         "annotations": annotations or {}},
            "spec": {"nodeName": f"ip-10-0-{node_index}-1.ec2.internal",
                     "containers": [{"name": "c", "image": "app", "resources": {"requests": {"cpu": cpu}}}]},
            "status": {"phase": "Running", "startTime": "2026-01-01T11:30:00Z"}}


def pdb(allowed: int) -> dict:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, "maxUnavailable": allowed},
            "status": {"disruptionsAllowed": allowed, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}}


def run(tmp_path: Path, objects: list[dict], budget: str = "10", output: str = "json",
        types: str = "m5.large, t3.large, m5.xlarge") -> tuple[int, str]:
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all(objects))
    (tmp_path / "nodepools.yaml").write_text(NODEPOOLS.replace("BUDGET", budget).replace("TYPES", types))
    env = TestEnvironment()
    code = main(["karpenter", "--disruption", "--nodes", str(tmp_path / "cluster.yaml"), "--nodes",
                 str(tmp_path / "nodepools.yaml"), "--now", "2026-01-01T12:00:00Z", "-o", output], env)
    return code, env.out


def document(tmp_path: Path, objects: list[dict], budget: str = "10", **kw) -> dict:
    code, out = run(tmp_path, objects, budget, **kw)
    assert code == 0, out
    return json.loads(out)


# -- budgets ----------------------------------------------------------------------------------
def test_a_percentage_budget_rounds_up():
    assert allowed_of(Budget("10%"), NOW, 11) == (2, True, "")
    assert allowed_of(Budget("0"), NOW, 11) == (0, True, "")


def test_a_budget_outside_its_window_allows_everything():
    weekdays_9_to_17 = Budget("0", "0 9 * * 1-5", "8h")
    assert is_active(weekdays_9_to_17, NOW) == (True, "")
    assert is_active(weekdays_9_to_17, NOW.replace(hour=18)) == (False, "")
    assert allowed_of(weekdays_9_to_17, NOW.replace(hour=18), 5) == (MAX_INT32, False, "")
    assert is_active(Budget("0", "0 9 * * 6", "8h"), NOW) == (False, "")      # Saturdays only


def test_a_schedule_that_never_hits_is_always_active():
    """SpecSchedule.Next gives the zero time when nothing matches within five years, and IsActive
    asks whether the next hit is not after now: a day no month has is always active."""
    for schedule in ("0 0 30 2 *", "0 0 31 4,6,9,11 *"):
        assert is_active(Budget("0", schedule, "1h"), NOW) == (True, ""), schedule
        assert allowed_of(Budget("0", schedule, "1h"), NOW, 5) == (0, True, "")
    assert is_active(Budget("0", "0 0 29 2 *", "1h"), NOW) == (False, "")        # (2028: within the five years)
    assert is_active(Budget("0", "0 0 31 12 *", "1h"), NOW) == (False, "")


def test_a_node_count_beyond_int32_wraps_as_intstr_fromint():
    assert allowed_of(Budget("2147483647"), NOW, 5) == (2147483647, True, "")
    assert allowed_of(Budget("4294967296"), NOW, 5) == (0, True, "")
    assert allowed_of(Budget("3000000000"), NOW, 5) == (3000000000 - (1 << 32), True, "")
    # beyond int64, Atoi fails: the text is no percentage, and the budget fails closed
    assert allowed_of(Budget("99999999999999999999"), NOW, 5) == \
        (0, True, "invalid value for IntOrString: invalid type: string is not a percentage")


def test_cron_fields_and_descriptors():
    daily = parse_standard("TZ=UTC @daily")
    assert daily.next(NOW.replace(hour=0, minute=0), NOW) is None          # strictly after: tomorrow
    assert daily.next(NOW.replace(day=1, hour=0, minute=0).replace(year=2025, month=12, day=31, hour=23),
                      NOW) == NOW.replace(hour=0, minute=0)
    assert parse_standard("*/15 9-17 * jan,feb mon-fri").matches(NOW.replace(minute=45))
    assert not parse_standard("*/15 9-17 * jan,feb mon-fri").matches(NOW.replace(minute=44))
    # day-of-month and day-of-week both restricted: either matches (Thursday the 1st, and the 2nd)
    assert parse_standard("0 12 2 * 4").matches(NOW)


def test_go_duration_errors():
    assert go_duration_error("5m") == ""
    assert go_duration_error("1x") == 'time: unknown unit "x" in duration "1x"'
    assert go_duration_error("5") == 'time: missing unit in duration "5"'
    assert go_duration_error("true!") == 'time: invalid duration "true!"'
    assert go_duration_error("1h-1m") == 'time: unknown unit "h-" in duration "1h-1m"'


def test_duration_errors_quote_as_gos_time_package_and_the_annotation_as_strconv():
    """time's own quote writes each byte outside printable ASCII as \\xNN; parseDoNotDisrupt's %q is
    strconv.Quote, which keeps printable characters and escapes the quote."""
    from kexplain.karpenter.disruption.pods import parse_do_not_disrupt
    assert go_duration_error("1\u65e5") == 'time: unknown unit "\\xe6\\x97\\xa5" in duration "1\\xe6\\x97\\xa5"'
    assert go_duration_error('1h"') == 'time: unknown unit "h\\"" in duration "1h\\""'
    assert go_duration_error("a\\b\t") == 'time: invalid duration "a\\\\b\\x09"'
    assert parse_do_not_disrupt('1h"')[1] == \
        'failed to parse "1h\\"" as a duration: time: unknown unit "h\\"" in duration "1h\\""'
    assert parse_do_not_disrupt("1\u65e5")[1].startswith('failed to parse "1\u65e5" as a duration: ')
    assert parse_do_not_disrupt('-1"')[1] == 'failed to parse "-1\\"" as a duration: time: unknown unit "\\"" ' \
        'in duration "-1\\""'
    assert parse_do_not_disrupt("-5m") == (None, 'duration "-5m" must be positive')


def test_a_duration_beyond_int64_nanoseconds_is_gos_invalid_duration():
    """ParseDuration's overflow checks: an int64 of nanoseconds at most (about 2,562,047 hours)."""
    assert go_duration_error("2562047h") == "" and go_duration_error("1.5h") == ""
    for text in ("2562048h", "9999999h", "99999999999999999999s", "2562047h47m16.854775808s"):
        assert go_duration_error(text) == f'time: invalid duration "{text}"', text
    assert go_duration_error("2562047h47m16.854775807s") == ""
    assert go_duration_error("-2562047h47m16.854775808s") == ""       # (math.MinInt64)


def test_go_sort_is_the_order_consolidation_uses():
    costs = [3.0, 1.0, 2.0]
    go_sort(costs, lambda a, b: a < b)
    assert costs == [1.0, 2.0, 3.0]


# -- the pass -----------------------------------------------------------------------------------
def test_emptiness_deletes_the_empty_nodes_the_budget_allows(tmp_path):
    objects = [*node(1), *node(2), *node(3), pod("web-0", 3)]
    doc = document(tmp_path, objects, budget="1")
    emptiness = doc["methods"][0]
    assert emptiness["candidates"] == ["ip-10-0-1-1.ec2.internal", "ip-10-0-2-1.ec2.internal"]
    assert emptiness["budgets"] == {"default": 1}
    assert doc["decision"]["method"] == "Emptiness"
    assert len(doc["decision"]["commands"][0]["candidates"]) == 1
    assert doc["summary"]["disrupted"] == 1
    assert [m["reached"] for m in doc["methods"]] == [True, False, False, False, False]


def test_a_blocking_pdb_is_said_in_karpenters_words(tmp_path):
    doc = document(tmp_path, [*node(1), pod("web-0", 1), pdb(0)])
    n = doc["nodes"][0]
    assert n["candidate"] is False
    assert n["error"] == "pdb prevents pod evictions (PodDisruptionBudget=[default/web])"
    assert n["blocked"] == "Pdb prevents pod evictions (PodDisruptionBudget=[default/web])"
    assert [e["object"] for e in doc["events"]] == ["Node ip-10-0-1-1.ec2.internal", "NodeClaim default-00001"]
    assert doc["methods"][0]["published"] == {"DisruptionBlocked": 2}


def test_do_not_disrupt_invalid_value_is_ignored_with_its_event(tmp_path):
    doc = document(tmp_path, [*node(1), pod("web-0", 1, annotations={"karpenter.sh/do-not-disrupt": "1x"})])
    assert doc["nodes"][0]["candidate"] is True
    invalid = [e for e in doc["events"] if e["reason"] == "InvalidDoNotDisruptAnnotation"]
    assert invalid[0]["message"] == ('Invalid karpenter.sh/do-not-disrupt annotation: failed to parse "1x" as a '
                                     'duration: time: unknown unit "x" in duration "1x", ignoring annotation')


def test_single_node_consolidation_moves_the_pods_to_the_other_node(tmp_path):
    costly = {"controller.kubernetes.io/pod-deletion-cost": "1000000"}
    doc = document(tmp_path, [*node(1), *node(2), pod("web-0", 1, annotations=costly), pod("web-1", 2, cpu="200m")],
                   types="m5.large")
    multi = doc["methods"][3]
    assert multi["outcome"] == "NoCommand"      # one m5.large for both is no cheaper than keeping one
    decision = doc["decision"]
    assert decision["method"] == "SingleNodeConsolidation"
    cmd = decision["commands"][0]
    assert cmd["text"] == "delete: [ip-10-0-2-1.ec2.internal]"
    assert cmd["existingNodes"] == [{"node": "ip-10-0-1-1.ec2.internal", "nodeClaim": "default-00001",
                                     "pods": ["default/web-1"]}]


def test_text_says_the_decision_and_the_budgets(tmp_path):
    code, out = run(tmp_path, [*node(1), *node(2), pod("web-0", 2)], budget="0", output="table")
    assert code == 0
    assert "Karpenter would disrupt no node now" in out
    assert "Budgets" in out and "nodes 0 = 0" in out and "no disruption allowed" in out


def test_node_refusals_are_newcandidates_in_its_words(tmp_path):
    annotated, uninitialized, orphan = node(1), node(2), node(3)
    annotated[0]["metadata"]["annotations"] = {"karpenter.sh/do-not-disrupt": "true"}
    del uninitialized[0]["metadata"]["labels"]["karpenter.sh/initialized"]
    for obj in orphan:
        obj["metadata"]["labels"] = {**obj["metadata"]["labels"], "karpenter.sh/nodepool": "gone"}
    doc = document(tmp_path, [*annotated, *uninitialized, *orphan])
    errors = {n["node"]: (n.get("error"), n.get("blocked")) for n in doc["nodes"]}
    assert errors["ip-10-0-1-1.ec2.internal"] == (
        'disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation',
        'Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation')
    assert errors["ip-10-0-2-1.ec2.internal"] == ("node isn't initialized", "Node isn't initialized")
    assert errors["ip-10-0-3-1.ec2.internal"] == ("nodepool not found (NodePool=gone)", "NodePool not found (NodePool=gone)")
    assert doc["summary"] == {"decision": "none", "candidates": 0, "blocked": 3, "disrupted": 0}


def test_drift_ignores_a_blocking_pod_when_the_nodeclaim_bounds_its_drain(tmp_path):
    drifted = node(1)
    drifted[1]["spec"]["terminationGracePeriod"] = "30m"
    drifted[1]["status"]["conditions"].append({"type": "Drifted", "status": "True", "reason": "Drifted",
                                               "lastTransitionTime": "2026-01-01T11:00:00Z"})
    doc = document(tmp_path, [*drifted, *node(2), pod("web-0", 1, annotations={"karpenter.sh/do-not-disrupt": "true"}),
                              pod("web-1", 2)])
    n = doc["nodes"][0]
    assert (n["candidate"], n["candidateEventual"]) == (False, True)
    assert n["eligible"] == ["Drift"]
    assert doc["decision"]["method"] == "Drift"
    # the do-not-disrupt pod is not moved: the drifted node is deleted with nothing rescheduled
    assert doc["decision"]["commands"][0]["decision"] == "delete"


def test_a_pending_pod_nominates_the_node_it_would_go_to(tmp_path):
    pending = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "pending-0", "namespace": "default"},
               "spec": {"containers": [{"name": "c", "image": "app", "resources": {"requests": {"cpu": "500m"}}}]}}
    (tmp_path / "pods.yaml").write_text(yaml.safe_dump(pending))
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all([*node(1), pod("web-0", 1)]))
    (tmp_path / "nodepools.yaml").write_text(NODEPOOLS.replace("BUDGET", "10").replace("TYPES", "m5.large"))
    env = TestEnvironment()
    code = main(["karpenter", "--disruption", str(tmp_path / "pods.yaml"), "--nodes", str(tmp_path / "cluster.yaml"),
                 "--nodes", str(tmp_path / "nodepools.yaml"), "--now", "2026-01-01T12:00:00Z", "-o", "json"], env)
    doc = json.loads(env.out)
    assert code == 0
    assert doc["nominatedNodes"] == ["ip-10-0-1-1.ec2.internal"]
    assert doc["nodes"][0]["error"] == "node is nominated for a pending pod"


def test_a_do_not_disrupt_duration_is_active_until_it_elapses_from_the_pods_start():
    from kexplain.karpenter.disruption.events import Recorder
    from kexplain.karpenter.disruption.pods import do_not_disrupt_active
    from kexplain.model.pod import PodInfo
    obj = pod("job-0", 1, annotations={"karpenter.sh/do-not-disrupt": "2h"})      # started 11:30
    recorder = Recorder()
    assert do_not_disrupt_active(PodInfo(obj), NOW, recorder) is True
    assert [e.message for e in recorder.emitted] == [
        "The karpenter.sh/do-not-disrupt grace period will elapse at 2026-01-01T13:30:00Z"]
    recorder = Recorder()
    assert do_not_disrupt_active(PodInfo(obj), NOW.replace(hour=14), recorder) is False
    assert [e.reason for e in recorder.emitted] == ["DoNotDisruptGracePeriodElapsed"]


def test_a_fraction_of_a_second_in_a_stored_time_is_not_read():
    """metav1.Time is written in whole seconds, so the pod Karpenter lists started at 10:30:00: a
    90-minute do-not-disrupt has elapsed at 12:00 exactly."""
    from kexplain.karpenter.disruption.events import Recorder
    from kexplain.karpenter.disruption.pods import do_not_disrupt_active
    from kexplain.model.pod import PodInfo
    obj = pod("job-0", 1, annotations={"karpenter.sh/do-not-disrupt": "90m"})
    obj["status"]["startTime"] = "2026-01-01T10:30:00.5Z"
    recorder = Recorder()
    assert do_not_disrupt_active(PodInfo(obj), NOW, recorder) is False
    assert [e.reason for e in recorder.emitted] == ["DoNotDisruptGracePeriodElapsed"]


def test_two_budgets_on_one_pod_block_its_eviction():
    from kexplain.karpenter.disruption.events import Recorder
    from kexplain.karpenter.disruption.pods import Limits
    from kexplain.model.pod import PodInfo
    other = {**pdb(1), "metadata": {"name": "all-web", "namespace": "default"}}
    keys, ok = Limits([pdb(1), other]).can_evict_pods([PodInfo(pod("web-0", 1))], NOW, Recorder())
    assert (keys, ok) == (["default/all-web", "default/web"], False)


def test_each_simulation_publishes_the_schedulers_events(tmp_path):
    """The provisioner shares the recorder: a NodePool whose requirements leave no instance type is
    said by NewScheduler in every simulation (counted in `published`, emitted once)."""
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all([*node(1), *node(2), pod("web-0", 1), pod("web-1", 2)]))
    second = (NODEPOOLS.split("---")[0].replace("metadata: {name: default}", "metadata: {name: none}").replace("TYPES", "t3.large")
              .replace("      nodeClassRef", "      - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m5]}\n"
                                             "      nodeClassRef"))
    (tmp_path / "nodepools.yaml").write_text(NODEPOOLS.replace("BUDGET", "10").replace("TYPES", "m5.large")
                                             + "---\n" + second.replace("BUDGET", "10"))
    env = TestEnvironment()
    assert main(["karpenter", "--disruption", "--nodes", str(tmp_path / "cluster.yaml"), "--nodes",
                 str(tmp_path / "nodepools.yaml"), "--now", "2026-01-01T12:00:00Z", "-o", "json"], env) == 0
    doc = json.loads(env.out)
    multi = next(m for m in doc["methods"] if m["method"] == "MultiNodeConsolidation")
    assert multi["published"].get("NoCompatibleInstanceTypes", 0) >= 1
    said = [e for e in doc["events"] if e["reason"] == "NoCompatibleInstanceTypes"]
    assert [e["object"] for e in said] == ["NodePool none"]


def test_not_all_pods_would_schedule_says_the_others_from_the_fifth_on(tmp_path):
    """NonPendingPodSchedulingErrors writes " and N other(s)" once it has written five, so five
    failing pods end in " and 0 other(s)"; four end with the fourth."""
    def pinned(name: str, i: int) -> dict:
        obj = pod(name, i, cpu="100m")
        obj["spec"]["nodeSelector"] = {"kubernetes.io/hostname": f"ip-10-0-{i}-1.ec2.internal"}
        return obj
    counts = {1: 4, 2: 5, 3: 6}
    objects = [*node(1), *node(2), *node(3),
               *(pinned(f"n{i}p{k}", i) for i, count in counts.items() for k in range(count))]
    doc = document(tmp_path, objects)
    said = {e["object"]: e["message"] for e in doc["events"] if e["reason"] == "Unconsolidatable"
            and e["object"].startswith("Node ") and "would schedule" in e["message"]}
    tails = {name: text.rsplit("]", 1)[1] for name, text in said.items()}
    assert tails == {"Node ip-10-0-1-1.ec2.internal": " ", "Node ip-10-0-2-1.ec2.internal": "  and 0 other(s)",
                     "Node ip-10-0-3-1.ec2.internal": "  and 1 other(s)"}, said


def test_a_pod_whose_claim_is_missing_still_has_to_move(tmp_path):
    """NewScheduler leaves a pod whose volume topology fails out of the topology and the volume
    requirements, but SimulateScheduling's Solve places every pod: db-0 needs a new node, so the
    candidate is not deleted as if its pod were gone."""
    db = pod("db-0", 1, cpu="1")
    db["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": "gone"}}]
    db["spec"]["containers"][0]["volumeMounts"] = [{"name": "data", "mountPath": "/d"}]
    doc = document(tmp_path, [*node(1), *node(2), db, pod("web-0", 2, cpu="1")])
    assert doc["decision"] is None
    assert {e["object"]: e["message"] for e in doc["events"]}["Node ip-10-0-1-1.ec2.internal"] == \
        "Can't replace with a cheaper node"
