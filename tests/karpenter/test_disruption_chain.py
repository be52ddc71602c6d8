"""The chain of Karpenter's decision (`decision.chain` of `kexplain karpenter --disruption`): the
evictions its termination asks for, in the terminator's order (non-critical pods before DaemonSet
pods, the later group waiting for the earlier), each answered by the Eviction API against the
PodDisruptionBudgets exactly as `kexplain evict drain` answers it, Karpenter's Evicted and
FailedDraining events, and where each pod lands (the node or the replacement NodeClaim of the
method's simulation); the same lines in the text."""
from __future__ import annotations

import json
from pathlib import Path

import yaml

from kexplain.cli.app import main
from tests.karpenter.test_disruption import NODEPOOLS, document, node, pdb, pod, run
from tests.support.cli_helpers import TestEnvironment

N1, N2 = "ip-10-0-1-1.ec2.internal", "ip-10-0-2-1.ec2.internal"
DAEMONSET = [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "logs", "uid": "ds-1", "controller": True}]


def ready(name: str, node_index: int, cpu: str = "500m", **kw) -> dict:
    p = pod(name, node_index, cpu, **kw)
    p["status"]["conditions"] = [{"type": "Ready", "status": "True"}]
    return p


def budget(allowed: int, healthy: int = 3, desired: int = 2) -> dict:
    b = pdb(allowed)
    b["metadata"]["generation"] = 1
    b["status"] = {"observedGeneration": 1, "disruptionsAllowed": allowed, "currentHealthy": healthy,
                   "desiredHealthy": desired, "expectedPods": healthy}
    return b


def two_web_pods_one_disruption() -> list[dict]:
    """Node 1: two pods of a budget allowing one disruption, and a DaemonSet's pod; node 2 has room
    (and more pods: it costs more to disrupt). Karpenter's candidate check reads each pod alone
    (one disruption allowed: not blocked); the drain spends it on the first pod."""
    logs = ready("logs-1", 1, "100m", labels={"app": "logs"})
    logs["metadata"]["ownerReferences"] = DAEMONSET
    return [*node(1), *node(2), ready("web-1", 1, "200m"), ready("web-2", 1, "200m"), logs, ready("web-0", 2),
            *[ready(f"api-{i}", 2, "100m", labels={"app": "api"}) for i in range(3)], budget(1)]


def test_the_second_pod_of_a_budget_is_refused_and_holds_the_node(tmp_path):
    doc = document(tmp_path, two_web_pods_one_disruption(), types="m5.large")
    assert doc["decision"]["commands"][0]["text"] == f"delete: [{N1}]"
    chain = doc["decision"]["chain"]
    (n,) = chain["nodes"]
    assert (n["node"], n["nodeClaim"], n["drained"]) == (N1, "default-00001", False)
    pods = {p["pod"]: p for p in n["pods"]}
    assert [p["pod"] for p in n["pods"]] == ["default/web-1", "default/web-2", "default/logs-1"]
    first, second, logs = pods["default/web-1"], pods["default/web-2"], pods["default/logs-1"]
    assert (first["outcome"], first["rule"], first["before"]["disruptionsAllowed"],
            first["after"]["disruptionsAllowed"]) == ("evicted", "spent", 1, 0)
    assert (second["outcome"], second["code"], second["message"]) == (
        "refused", 429, "Cannot evict pod as it would violate the pod's disruption budget.")
    assert second["causes"] == [{"type": "DisruptionBudget",
                                 "message": "The disruption budget web does not allow evicting pods currently"}]
    assert (logs["group"], logs["outcome"]) == ("non-critical DaemonSet", "waits")
    assert first["lands"] == second["lands"] == {"node": N2}
    assert logs["lands"] == {"nowhere": "a DaemonSet's pod: not rescheduled, it goes with the node"}
    assert n["events"] == [
        {"object": "Pod default/web-1", "type": "Normal", "reason": "Evicted", "message": "Evicted pod: Underutilized"},
        {"object": f"Node {N1}", "type": "Warning", "reason": "FailedDraining",
         "message": "Failed to drain node, evicting pod violates a PDB (Pod=default/web-2)"}]
    assert [(b["name"], b["statusFrom"]) for b in chain["pdbs"]] == [("default/web", "given")]


def test_the_drain_answers_as_evict_drain_does(tmp_path):
    """One answer: the node's evictions in the chain are `kexplain evict drain NODE --force`'s, on
    Karpenter's Kubernetes minor (kubectl asks for the DaemonSet's pod in list order, first;
    Karpenter after the others: it is left out here)."""
    objects = two_web_pods_one_disruption()
    doc = document(tmp_path, objects, types="m5.large")
    env = TestEnvironment()
    main(["evict", "drain", N1, "--nodes", str(tmp_path / "cluster.yaml"), "--force", "--kubernetes-version", "1.35",
          "-o", "json"], env)
    drained = json.loads(env.out)
    chain = [p for p in doc["decision"]["chain"]["nodes"][0]["pods"] if p["outcome"] in ("evicted", "refused")]
    evictions = [e for e in drained["evictions"] if e["pod"] != "default/logs-1"]      # (its DaemonSet pod: not found)
    spending = [s for s in drained["spending"] if s["pod"] != "default/logs-1"]
    assert [(e["pod"], e["evicted"], e.get("code"), e.get("message"), e.get("causes")) for e in evictions] == \
        [(p["pod"], p["evicted"], p.get("code"), p.get("message"), p.get("causes")) for p in chain]
    assert [(s["rule"], s["before"], s["after"]) for s in spending] == \
        [(p["rule"], p["before"], p["after"]) for p in chain]


def test_a_drifted_nodes_pods_land_on_the_replacement(tmp_path):
    drifted = node(1)
    drifted[1]["status"]["conditions"].append({"type": "Drifted", "status": "True", "reason": "Drifted",
                                               "lastTransitionTime": "2026-01-01T11:00:00Z"})
    doc = document(tmp_path, [*drifted, ready("web-0", 1, "1"), ready("web-1", 1, "500m"), budget(2)],
                   types="m5.large")
    assert doc["decision"]["method"] == "Drift"
    (n,) = doc["decision"]["chain"]["nodes"]
    assert n["drained"] is True
    assert [(p["pod"], p["outcome"], p["lands"]) for p in n["pods"]] == [
        ("default/web-0", "evicted", {"replacement": 1, "nodePool": "default"}),
        ("default/web-1", "evicted", {"replacement": 1, "nodePool": "default"})]
    assert {e["message"] for e in n["events"]} == {"Evicted pod: Drifted"}


def test_a_do_not_disrupt_pod_is_not_evicted_and_holds_the_drain(tmp_path):
    """Drift of a NodeClaim with a terminationGracePeriod takes a node with a do-not-disrupt pod:
    Karpenter never evicts that pod; the drain waits for it (and its group's successors)."""
    drifted = node(1)
    drifted[1]["spec"]["terminationGracePeriod"] = "30m"
    drifted[1]["status"]["conditions"].append({"type": "Drifted", "status": "True", "reason": "Drifted",
                                               "lastTransitionTime": "2026-01-01T11:00:00Z"})
    logs = ready("logs-1", 1, "100m", labels={"app": "logs"})
    logs["metadata"]["ownerReferences"] = DAEMONSET
    pinned = ready("job-0", 1, annotations={"karpenter.sh/do-not-disrupt": "true"}, labels={"app": "job"})
    doc = document(tmp_path, [*drifted, *node(2), pinned, logs, ready("web-1", 2)])
    (n,) = doc["decision"]["chain"]["nodes"]
    assert n["drained"] is False
    outcomes = {p["pod"]: (p["outcome"], p.get("why", "")) for p in n["pods"]}
    assert outcomes["default/job-0"][0] == "not-evicted"
    assert outcomes["default/job-0"][1].startswith("karpenter.sh/do-not-disrupt: Karpenter does not evict it")
    assert outcomes["default/logs-1"] == ("waits", "waits until the non-critical pods are gone")
    # the NodeClaim's terminationGracePeriod ends the wait: both pods are deleted by 12:30
    assert n["terminationGracePeriod"]["terminationTime"] == "2026-01-01T12:30:00Z"
    deleted = {p["pod"]: p.get("deleted") for p in n["pods"]}
    assert deleted == {"default/job-0": {"at": "2026-01-01T12:29:30Z", "by": "2026-01-01T12:30:00Z",
                                         "terminationGracePeriodSeconds": 30},
                       "default/logs-1": {"at": "2026-01-01T12:29:30Z", "by": "2026-01-01T12:30:00Z",
                                          "terminationGracePeriodSeconds": 30}}
    assert [e["reason"] for e in n["events"]] == ["TerminationGracePeriodExpiring"] * 2
    code, out = run(tmp_path, [*drifted, *node(2), pinned, logs, ready("web-1", 2)], output="table")
    assert ("waits until the non-critical pods are gone; at 2026-01-01T12:29:30Z Karpenter deletes the pod past its "
            "PodDisruptionBudget and do-not-disrupt, its 30s grace ending by 2026-01-01T12:30:00Z") in " ".join(out.split())


def test_the_text_says_the_chain(tmp_path):
    code, out = run(tmp_path, two_web_pods_one_disruption(), output="table", types="m5.large")
    assert code == 0
    text = " ".join(out.split())
    assert "The chain: the evictions Karpenter's termination asks for" in text
    assert (f"{N1} (NodeClaim default-00001): not drained: held by default/web-2") in text
    assert ("default/web-1 [non-critical]: evicted: its budget allowed a disruption and spent one "
            "[default/web: healthy 3, desired 2, expected 3, allowed 1 -> allowed 0]; -> node " + N2) in text
    assert ("default/web-2 [non-critical]: 429 Cannot evict pod as it would violate the pod's disruption budget. "
            "(The disruption budget web does not allow evicting pods currently)") in text
    assert "event FailedDraining on Node " + N1 in text


def write_inputs(folder: Path, objects: list[dict]) -> list[str]:
    (folder / "cluster.yaml").write_text(yaml.safe_dump_all(objects))
    (folder / "nodepools.yaml").write_text(NODEPOOLS.replace("BUDGET", "10").replace("TYPES", "m5.large"))
    return ["--nodes", str(folder / "cluster.yaml"), "--nodes", str(folder / "nodepools.yaml")]


def test_the_terminators_order_and_the_pods_it_leaves():
    """Drain's groups (graceful node shutdown's order: non-critical, non-critical DaemonSet,
    critical, critical DaemonSet), each in list order; the pods it does not wait for last."""
    from datetime import datetime, timezone

    from kexplain.karpenter.disruption.events import Recorder
    from kexplain.karpenter.disruption.termination import (DO_NOT_DISRUPT, MIRROR, STUCK, TERMINAL, TERMINATING,
                                                           TOLERATES, drain_order)
    from kexplain.model.pod import PodInfo

    def made(name: str, critical: bool = False, owner: str = "", **changes) -> PodInfo:
        p = ready(name, 1)
        if critical:
            p["spec"]["priorityClassName"] = "system-node-critical"
        if owner:
            p["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1" if owner == "DaemonSet" else "v1",
                                                 "kind": owner, "name": "x", "uid": "u"}]
        for key, value in changes.items():
            section, field = key.split("__")
            p[section][field] = value
        return PodInfo(p)

    pods = [made("a-critical-ds", True, "DaemonSet"), made("b-critical", True), made("c-ds", owner="DaemonSet"),
            made("d-web"), made("e-done", status__phase="Succeeded"), made("f-mirror", owner="Node"),
            made("g-tolerates", spec__tolerations=[{"key": "karpenter.sh/disrupted", "operator": "Exists"}]),
            made("h-stuck", metadata__deletionTimestamp="2026-01-01T11:58:00Z"),
            made("i-going", metadata__deletionTimestamp="2026-01-01T11:59:30Z"),
            made("j-pinned", metadata__annotations={"karpenter.sh/do-not-disrupt": "true"})]
    now = datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)
    order = [(d.pod.name, d.group, d.skip) for d in drain_order(pods, now, Recorder())]
    assert order == [("d-web", 0, ""), ("i-going", 0, TERMINATING), ("j-pinned", 0, DO_NOT_DISRUPT),
                     ("c-ds", 1, ""), ("b-critical", 2, ""), ("a-critical-ds", 3, ""),
                     ("e-done", None, TERMINAL), ("f-mirror", None, MIRROR), ("g-tolerates", None, TOLERATES),
                     ("h-stuck", None, STUCK)]


# -- the NodeClaim's terminationGracePeriod: Karpenter deletes the pod past its budget ----------
def drift_with_grace(period: str = "24h", pod_grace: int | None = 60, annotation: str = "") -> list[dict]:
    """Drift takes a node whose NodeClaim has a terminationGracePeriod, while a budget with
    maxUnavailable: 0 refuses its pod's eviction."""
    drifted = node(1)
    drifted[1]["spec"]["terminationGracePeriod"] = period
    if annotation:
        drifted[1]["metadata"]["annotations"] = {"karpenter.sh/nodeclaim-termination-timestamp": annotation}
    drifted[1]["status"]["conditions"].append({"type": "Drifted", "status": "True", "reason": "Drifted",
                                               "lastTransitionTime": "2026-01-01T11:00:00Z"})
    web = ready("web-0", 1, "1")
    if pod_grace is not None:
        web["spec"]["terminationGracePeriodSeconds"] = pod_grace
    blocking = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                "metadata": {"name": "web", "namespace": "default"},
                "spec": {"selector": {"matchLabels": {"app": "web"}}, "maxUnavailable": 0},
                "status": {"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}}
    return [*drifted, web, blocking]


def test_the_grace_period_ends_the_wait_the_budget_refused(tmp_path):
    """The NodeClaim lifecycle controller annotates the deleted NodeClaim with deletion + 24h;
    the termination's DeleteExpiringPods deletes the refused pod its own 60 s before that, past
    its budget; both controllers publish TerminationGracePeriodExpiring."""
    doc = document(tmp_path, drift_with_grace(), types="m5.large")
    assert doc["decision"]["method"] == "Drift"
    (n,) = doc["decision"]["chain"]["nodes"]
    assert n["drained"] is False
    assert n["terminationGracePeriod"] == {
        "terminationTime": "2026-01-02T12:00:00Z", "annotation": "karpenter.sh/nodeclaim-termination-timestamp",
        "period": "24h", "nodeClaimDeleted": "2026-01-01T12:00:00Z", "from": "the command deletes the NodeClaim now"}
    (web,) = n["pods"]
    assert (web["outcome"], web["code"]) == ("refused", 429)
    assert web["deleted"] == {"at": "2026-01-02T11:59:00Z", "by": "2026-01-02T12:00:00Z",
                              "terminationGracePeriodSeconds": 60}
    assert n["events"][:2] == [
        {"object": "NodeClaim default-00001", "type": "Warning", "reason": "TerminationGracePeriodExpiring",
         "message": "All pods will be deleted by 2026-01-02T12:00:00Z"},
        {"object": f"Node {N1}", "type": "Warning", "reason": "TerminationGracePeriodExpiring",
         "message": "All pods will be deleted by 2026-01-02T12:00:00Z"}]
    code, out = run(tmp_path, drift_with_grace(), output="table", types="m5.large")
    text = " ".join(out.split())
    assert f"{N1} (NodeClaim default-00001): not drained: held by default/web-0 until 2026-01-02T12:00:00Z" in text
    assert ("Karpenter retries, the node waits until 2026-01-02T11:59:00Z: then Karpenter deletes the pod past its "
            "PodDisruptionBudget and do-not-disrupt, its 60s grace ending by 2026-01-02T12:00:00Z") in text
    assert "terminationGracePeriod 24h from the NodeClaim's deletion at 2026-01-01T12:00:00Z" in text


def test_the_page_says_when_the_pod_is_deleted(tmp_path):
    page = tmp_path / "page.html"
    files = write_inputs(tmp_path, drift_with_grace())
    env = TestEnvironment()
    assert main(["karpenter", "--disruption", *files, "--now", "2026-01-01T12:00:00Z", "--html", str(page)], env) == 0
    import html
    import re
    words = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page.read_text())).split())
    assert ("the node waits until 2026-01-02T11:59:00Z: then Karpenter deletes the pod past its PodDisruptionBudget "
            "and do-not-disrupt, its 60s grace ending by 2026-01-02T12:00:00Z") in words
    assert "termination time 2026-01-02T12:00:00Z; by then Karpenter deletes every pod the drain still waits for" \
        in words


def test_a_termination_time_already_past_deletes_the_pod_now(tmp_path):
    """The annotation (written before, kept as is) ends in 20 s, less than the pod's 30 s (the API's
    default): DeleteExpiringPods deletes it now with the 20 s left, in Karpenter's event."""
    doc = document(tmp_path, drift_with_grace(pod_grace=None, annotation="2026-01-01T12:00:20Z"), types="m5.large")
    (n,) = doc["decision"]["chain"]["nodes"]
    assert n["terminationGracePeriod"]["from"] == "the NodeClaim's annotation"
    (web,) = n["pods"]
    assert web["deleted"] == {"at": "2026-01-01T11:59:50Z", "by": "2026-01-01T12:00:20Z",
                              "terminationGracePeriodSeconds": 30, "gracePeriodSeconds": 20}
    assert {"object": "Pod default/web-0", "type": "Normal", "reason": "Disrupted",
            "message": "Deleting the pod to accommodate the terminationTime 2026-01-01 12:00:20 +0000 UTC of the node. "
                       "The pod was granted 20 seconds of grace-period of its 30 terminationGracePeriodSeconds. This "
                       "bypasses the PDB of the pod and the do-not-disrupt annotation."} in n["events"]
    # (only the Node's expiring event: the annotation was there, the lifecycle controller writes nothing)
    assert [e["object"] for e in n["events"] if e["reason"] == "TerminationGracePeriodExpiring"] == [f"Node {N1}"]


def test_the_termination_time_and_the_pods_deleted_by_it():
    """nodeTerminationTime: the annotation when written (unreadable: none), else the NodeClaim's
    deletion + terminationGracePeriod, none without one; a terminating pod is deleted again only
    when its own deletion ends after that time (IsPodEligibleForForcedEviction)."""
    from datetime import datetime, timezone

    from kexplain.karpenter.disruption.termination import deadline, forced_delete
    from kexplain.model.pod import PodInfo

    now = datetime(2026, 1, 1, 12, 0, 0, 500000, tzinfo=timezone.utc)
    claim = {"metadata": {"name": "c"}, "spec": {"terminationGracePeriod": "1h30m"}}
    assert deadline({"metadata": {"name": "c"}, "spec": {}}, now) is None
    end = deadline(claim, now)
    assert (end.text(), end.deleted) == ("2026-01-01T13:30:00Z", now.replace(microsecond=0))
    deleting = {**claim, "metadata": {"name": "c", "deletionTimestamp": "2026-01-01T11:00:00Z"}}
    assert deadline(deleting, now).text() == "2026-01-01T12:30:00Z"
    bad = {**claim, "metadata": {"name": "c", "annotations": {"karpenter.sh/nodeclaim-termination-timestamp": "soon"}}}
    assert deadline(bad, now) is None
    ending = ready("a", 1)
    ending["metadata"]["deletionTimestamp"] = "2026-01-01T13:31:00Z"
    gone_before = ready("b", 1)
    gone_before["metadata"]["deletionTimestamp"] = "2026-01-01T12:01:00Z"
    assert forced_delete(PodInfo(ending), end, now).at == datetime(2026, 1, 1, 13, 29, 30, tzinfo=timezone.utc)
    assert forced_delete(PodInfo(gone_before), end, now) is None
