"""What a node's drain and its fixes' drains work out once: the cluster's pods by node (not a scan of
every object per node drained), the node's pods through kubectl's filters once per set of flags (a
fix changes budgets and workloads, which the filters do not read), and each pod's budgets once per
eviction loop. The answers are those worked out afresh."""
from __future__ import annotations

from datetime import datetime, timezone

from kexplain.app.eviction import drain as drain_module, request
from kexplain.app.eviction.request import EvictRequest, pods_on, read_state
from kexplain.eviction import api
from kexplain.eviction.api import Budget, evict
from kexplain.eviction.drain import drain as loop
from kexplain.eviction.versions import drain_rules
from kexplain.features.kube_version import resolve
from kexplain.model.labels import parse_selector
from kexplain.model.pod import PodInfo
from tests.eviction.drain_cluster import budget, cluster, pod, write
from tests.eviction.test_drain_fixes import by_words
from tests.eviction.test_drain_where import drain

KUBE = resolve(None, None)[0]


def test_pods_on_reads_the_states_index_made_once(tmp_path, monkeypatch):
    finished = pod("done", None, node_name="node-b")
    finished["status"] = {"phase": "Succeeded"}
    objects = cluster() + [finished]
    req = EvictRequest("node-a", (str(write(tmp_path / "c.yaml", objects)),), datetime.now(timezone.utc), KUBE)
    state = read_state(req)
    scanned = {n: [o["metadata"]["name"] for o, _ in state.objects
                   if o.get("kind") == "Pod" and (o.get("spec") or {}).get("nodeName") == n]
               for n in ("node-a", "node-b", "node-c")}
    made = []
    real = request._by_node
    monkeypatch.setattr(request, "_by_node", lambda objs: made.append(1) or real(objs))
    for name, names in scanned.items():
        assert [p["metadata"]["name"] for p in pods_on(state, name, KUBE)] == names
    assert scanned["node-b"] == ["db-1", "done"]         # finished pods too, in the objects' order
    assert made == [1]                                  # one pass for the three nodes
    other = state.overlaid(state.objects[:-1])          # its snapshot shared, other objects
    assert [p["metadata"]["name"] for p in pods_on(other, "node-b", KUBE)] == ["db-1"]


def test_the_filters_run_once_per_flags_for_a_node_and_its_fixes(tmp_path, monkeypatch):
    calls = []
    real = drain_module.pods_for_deletion
    monkeypatch.setattr(drain_module, "pods_for_deletion", lambda pods, helper: calls.append(helper) or real(pods, helper))
    code, doc = drain(tmp_path, cluster({"minAvailable": 2}) + [pod("debug", None, app="debug")])
    assert code == 1 and len(doc["fixes"]) > 2
    assert by_words(doc)["add --force; set default/web-pdb minAvailable to 0 (was 2)"]["drains"]
    assert len(calls) == len(set(calls)) == 2           # without flags, and with --force: every fix's drain reads them


def test_each_pods_budgets_are_looked_up_once_per_eviction_loop(monkeypatch):
    def made(name: str, app: str) -> Budget:
        return Budget("default", name, parse_selector({"matchLabels": {"app": app}}), 1, "", 1, 2, 1, 2, 1)
    budgets = [made("web", "web"), made("db", "db"), made("both", "db")]
    budgets.append(Budget("other", "web", budgets[0].selector, 1, "", 1, 2, 1, 2, 1))
    pods = [PodInfo(pod(n, None, app=a)) for n, a in (("w1", "web"), ("w2", "web"), ("d1", "db"), ("x", "x"))]
    rules = drain_rules(KUBE.minor)
    asked = []
    real = Budget.selects
    monkeypatch.setattr(api.Budget, "selects", lambda self, p, *more: asked.append(1) or real(self, p, *more))
    evictions, after = loop.evict_pods(pods, budgets, rules)
    assert len(asked) == 3 * len(pods)                   # the namespace's three budgets, once per pod
    monkeypatch.setattr(api.Budget, "selects", real)
    # a node's drains again (its fixes'): each selector asked once per pod with the drains' `Matches`
    matched = []
    real_matches = type(budgets[0].selector).matches
    monkeypatch.setattr(type(budgets[0].selector), "matches", lambda sel, labels: matched.append(1) or
                        real_matches(sel, labels))
    memo = api.Matches()
    again = [loop.evict_pods(pods, budgets, rules, memo) for _ in range(3)]
    assert len(matched) == 3 * len(pods)
    assert all(answers == (evictions, after) for answers in again)
    monkeypatch.setattr(type(budgets[0].selector), "matches", real_matches)
    current = {b.key: b for b in budgets}
    for e in evictions:                                  # the answers of the API asked pod by pod
        namespace = [b for b in current.values() if b.namespace == e.pod.namespace]
        assert e.answer == evict(e.pod, namespace, rules)
        if e.answer.budget is not None:
            current[e.answer.budget.key] = e.answer.budget
    assert [e.answer.rule for e in evictions] == ["spent", "refused", "more-than-one-budget", "no-budget"]
    assert after == current
