"""The kubelet's eviction manager's parts, each against what helpers.go decides."""
from __future__ import annotations

import json
import shutil
from datetime import datetime, timedelta, timezone

from kexplain.cli.app import main
from kexplain.apimachinery.quantity import BINARY_SI, DECIMAL_SI, new_quantity
from kexplain.eviction.kubelet import admit as kadmit
from kexplain.eviction.kubelet import message as msg
from kexplain.eviction.kubelet import rank
from kexplain.eviction.kubelet import thresholds as th
from kexplain.eviction.kubelet.config import read
from kexplain.eviction.kubelet.signals import Observation
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import TESTS

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)


def pod(name: str, memory: str | None = None, priority: int = 0, uid: str = "") -> dict:
    resources = {"requests": {"memory": memory}} if memory else {}
    return {"metadata": {"name": name, "namespace": "default", "uid": uid or name},
            "spec": {"priority": priority, "containers": [{"name": "app", "resources": resources}]}}


def stats(working_set: int) -> dict:
    return {"memory": {"workingSetBytes": working_set},
            "containers": [{"name": "app", "memory": {"workingSetBytes": working_set}}]}


def test_a_percentage_is_float32_of_the_capacity_truncated() -> None:
    fifteen = th.ThresholdValue(percentage=th.parse_percentage("15%"))
    assert str(fifteen) == "15%"
    assert str(fifteen.quantity_for(new_quantity(100 * 2**30, BINARY_SI))) == "16106128000"   # not 16106127360
    five = th.ThresholdValue(percentage=th.parse_percentage("5%"))
    assert str(five.quantity_for(new_quantity(6553600, DECIMAL_SI))) == "320Ki"


def test_zero_and_hundred_percent_are_ignored() -> None:
    assert th.parse_statement(th.MEMORY_AVAILABLE, "0%") is None
    assert th.parse_statement(th.NODEFS_AVAILABLE, "100%") is None


def test_containerfs_thresholds_copy_nodefs_or_imagefs() -> None:
    config = read({"evictionHard": {"nodefs.available": "10%", "imagefs.available": "20%"}})
    shared = th.update_container_fs_thresholds(list(config.thresholds), False, False)
    made = [t for t in shared if t.signal == th.CONTAINERFS_AVAILABLE]
    # the hard one copies nodefs; the soft one copies a nodefs soft threshold that is not there: empty, never met
    assert [(t.operator, str(t.value), t.hard) for t in made] == [("LessThan", "10%", True), ("", "0%", True)]
    image = th.update_container_fs_thresholds(list(config.thresholds), True, False)
    assert str(next(t for t in image if t.signal == th.CONTAINERFS_AVAILABLE).value) == "20%"


def test_a_configured_containerfs_threshold_is_overridden_in_place() -> None:
    config = read({"evictionHard": {"nodefs.available": "10%", "containerfs.available": "30%"}})
    first = list(config.thresholds)
    updated = th.update_container_fs_thresholds(first, False, False)
    assert str(next(t for t in first if t.signal == th.CONTAINERFS_AVAILABLE).value) == "10%"
    assert sum(t.signal == th.CONTAINERFS_AVAILABLE for t in updated) == 2


def test_allocatable_copies_a_hard_memory_threshold_when_pods_are_enforced() -> None:
    with_pods = read({"evictionHard": {"memory.available": "200Mi"}})
    assert [t.signal for t in with_pods.thresholds] == [th.MEMORY_AVAILABLE, th.ALLOCATABLE_MEMORY_AVAILABLE]
    without = read({"evictionHard": {"memory.available": "200Mi"}, "enforceNodeAllocatable": []})
    assert [t.signal for t in without.thresholds] == [th.MEMORY_AVAILABLE]
    merged = read({"evictionHard": {"memory.available": "200Mi"}, "mergeDefaultEvictionSettings": True})
    assert merged.eviction_hard["nodefs.available"] == "10%" and merged.eviction_hard["memory.available"] == "200Mi"


def test_grace_periods_and_conditions() -> None:
    soft = th.Threshold(th.MEMORY_AVAILABLE, th.OP_LESS_THAN, th.ThresholdValue(new_quantity(1)), grace_ns=90 * 10**9)
    assert not th.grace_met(soft, NOW - timedelta(seconds=89), NOW)
    assert th.grace_met(soft, NOW - timedelta(seconds=90), NOW)
    seen = {th.MEMORY_PRESSURE: NOW - timedelta(seconds=299), th.DISK_PRESSURE: NOW - timedelta(seconds=300)}
    assert th.conditions_observed_since(seen, 300 * 10**9, NOW) == [th.MEMORY_PRESSURE]


def test_memory_ranks_by_exceeding_the_request_before_priority() -> None:
    """Not QoS order: a high-priority pod over its request goes before a low-priority one under it."""
    candidates = [rank.Candidate(pod("under", "1Gi", priority=-10), stats(100 << 20)),
                  rank.Candidate(pod("over-high", "64Mi", priority=1000), stats(128 << 20)),
                  rank.Candidate(pod("over-low", "64Mi", priority=0), stats(100 << 20)),
                  rank.Candidate(pod("over-low-more", None, priority=0), stats(300 << 20)),
                  rank.Candidate(pod("no-stats", "1Gi", priority=5000), None)]
    ranked = rank.rank(candidates, rank.memory_pressure())
    assert [r.candidate.name for r in ranked] == ["default/no-stats", "default/over-low-more", "default/over-low",
                                                  "default/over-high", "default/under"]
    assert ranked[1].keys == (("exceedsRequest", True), ("priority", 0), ("usageOverRequest", 300 << 20))
    assert ranked[0].keys[0] == ("exceedsRequest", None)


def test_pid_ranks_by_priority_then_processes() -> None:
    a = rank.Candidate(pod("a", priority=10), {"process_stats": {"process_count": 900}})
    b = rank.Candidate(pod("b", priority=0), {"process_stats": {"process_count": 5}})
    c = rank.Candidate(pod("c", priority=0), {"process_stats": {"process_count": 50}})
    assert [r.candidate.name for r in rank.rank([a, b, c], rank.pid_pressure())] == ["default/c", "default/b",
                                                                                        "default/a"]


def test_critical_pods() -> None:
    assert rank.is_critical(pod("x", priority=2000000000))
    assert not rank.is_critical(pod("x", priority=1999999999))
    static = pod("s")
    static["metadata"]["annotations"] = {"kubernetes.io/config.source": "file"}
    assert rank.is_critical(static)


def test_the_message_and_its_parse() -> None:
    t = th.Threshold(th.MEMORY_AVAILABLE, th.OP_LESS_THAN, th.ThresholdValue(new_quantity(100 << 20, BINARY_SI)))
    seen = {th.MEMORY_AVAILABLE: Observation(new_quantity(68594744, BINARY_SI), new_quantity(1 << 34, BINARY_SI), None)}
    text, annotations = msg.eviction_message("memory", pod("p", "64Mi"), stats(139188257), [t], seen, True)
    assert text == ("The node was low on resource: memory. Threshold quantity: 100Mi, available: 68594744. "
                    "Container app was using 139188257, request is 64Mi, has larger consumption of memory. ")
    assert annotations == {"offending_containers": "app", "offending_containers_usage": "139188257",
                           "starved_resource": "memory"}
    parsed = msg.parse(text)
    assert (parsed.kind, parsed.resource, parsed.threshold, parsed.available) == \
        ("nodePressure", "memory", "100Mi", "68594744")
    assert parsed.usages == (msg.Usage("Container", "app", "139188257", "64Mi"),)
    assert msg.parse('Usage of EmptyDir volume "scratch" exceeds the limit "194Mi". ').details == \
        {"volume": "scratch", "limit": "194Mi"}
    assert msg.parse("something else").kind == "unknown"


def test_admission_under_memory_pressure_and_disk_pressure() -> None:
    best_effort = pod("be")
    tolerating = pod("tol")
    tolerating["spec"]["tolerations"] = [{"key": "node.kubernetes.io/memory-pressure", "operator": "Exists"}]
    burstable = pod("bu", "64Mi")
    memory = [th.MEMORY_PRESSURE]
    assert not kadmit.admit(best_effort, memory, True, False).admit
    assert kadmit.admit(best_effort, memory, True, False).message == "The node had condition: [MemoryPressure]. "
    assert kadmit.admit(tolerating, memory, True, False).admit
    assert kadmit.admit(burstable, memory, True, False).admit
    refused = kadmit.admit(burstable, [th.MEMORY_PRESSURE, th.DISK_PRESSURE], True, False)
    assert (refused.admit, refused.reason) == (False, "Evicted")
    assert kadmit.admit(best_effort, [], True, False).admit


def test_a_verified_change_holds_when_the_pod_is_changed_so(tmp_path) -> None:
    """The change the table says, made to cluster.yaml: the kubelet then evicts the pod it named."""
    case = TESTS / "eviction" / "cases" / "pressure-0002"
    for f in case.iterdir():
        shutil.copy(f, tmp_path / f.name)

    def run() -> dict:
        env = TestEnvironment()
        main(["evict", "pressure", "node-a", "--nodes", str(tmp_path / "cluster.yaml"), "--stats",
              str(tmp_path / "stats.json"), "--kubelet-config", str(tmp_path / "kubelet-config.yaml"),
              "--now", "2026-01-01T00:00:00Z", "-o", "json"], env)
        return json.loads(env.out)

    before = run()
    changes = {c["field"]: c for c in before["whatIf"]}
    assert set(changes) == {"spec.containers[0].resources.requests.memory", "spec.priority"}
    priority = changes["spec.priority"]
    assert priority["pod"] == before["evicted"][0]["pod"] == "shop/agent-434"
    docs = [json.loads(d) for d in (tmp_path / "cluster.yaml").read_text().split("\n---") if d.strip(" -\n")]
    for d in docs:
        if d["kind"] == "Pod" and d["metadata"]["name"] == "agent-434":
            d["spec"]["priority"] = priority["value"]
    (tmp_path / "cluster.yaml").write_text("\n---\n".join(json.dumps(d) for d in docs))
    after = run()
    assert after["evicted"][0]["pod"] == priority["evictsInstead"] == "default/cache-566"
    assert after["ranking"].index("shop/agent-434") + 1 == priority["rankAfter"]


def test_the_nodes_configz_answer_is_read_as_its_configuration() -> None:
    configz = {"kubeletconfig": {"evictionHard": {"memory.available": "300Mi"},
                                 "evictionPressureTransitionPeriod": "1m0s", "enforceNodeAllocatable": ["pods"]}}
    config = read(configz)
    assert [(t.signal, str(t.value)) for t in config.thresholds] == [("memory.available", "300Mi"),
                                                                     ("allocatableMemory.available", "300Mi")]
    assert config.transition_ns == 60 * 10**9


def test_the_ranking_is_gos_unstable_sort_past_twelve_pods() -> None:
    """multiSorter.Sort is sort.Sort: pdqsort, not stable beyond 12 pods. Thirteen pods, one first
    by its key and twelve tied, come out as Go's partition leaves them (pivot at index 6)."""
    def pod(i: int) -> rank.Candidate:
        return rank.Candidate({"metadata": {"name": f"p{i:02d}", "namespace": "default"}}, {"order": i})
    first = rank.Comparator("first", lambda c: c.pod["metadata"]["name"] == "p12", rank.cmp_bool)
    order = [r.candidate.name[len("default/"):] for r in rank.rank([pod(i) for i in range(13)], [first])]
    assert order == ["p12", "p06", "p02", "p03", "p04", "p05", "p00", "p07", "p08", "p09", "p10", "p11", "p01"]
    twelve = [r.candidate.name[len("default/"):] for r in rank.rank([pod(i) for i in range(12)], [first])]
    assert twelve == ["p00", "p01", "p02", "p03", "p04", "p05", "p06", "p07", "p08", "p09", "p10", "p11"]


def test_a_downward_api_volume_is_not_local_storage() -> None:
    pod = {"spec": {"volumes": [{"name": "info", "downwardAPI": {"items": []}}, {"name": "cfg", "configMap": {}},
                                {"name": "scratch", "emptyDir": {}}, {"name": "ram", "emptyDir": {"medium": "Memory"}},
                                {"name": "host", "hostPath": {"path": "/x"}}]}}
    assert rank.local_volume_names(pod) == ["cfg", "scratch", "host"]
