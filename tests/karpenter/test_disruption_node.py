"""`kexplain karpenter --disruption --node NAME`: why Karpenter keeps one node. Every check that
stops it in Karpenter's order and words, what consolidation's simulation found (the pods that would
not schedule, the NodeClaims it would need, the cheapest type against the node's price), each fix
verified (here again: the change applied to the input files and the pass run by the command
itself takes the node), what time alone changes, an unknown name, the exit codes."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from kexplain.cli.app import main
from kexplain.suggest.change import apply_ops
from tests.karpenter.test_disruption import NODEPOOLS, node, pdb, pod
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import ROOT

N1, N2 = "ip-10-0-1-1.ec2.internal", "ip-10-0-2-1.ec2.internal"
NOW = ["--now", "2026-01-01T12:00:00Z"]
FIXTURE = ROOT / "fixtures" / "karpenter-disruption"
SHARED = ROOT.parent / "shared" / "karpenter-disruption"
SHARED_AWS = ROOT.parent / "shared" / "karpenter" / "aws"


def priced(objects: list[dict]) -> list[dict]:
    """The nodes in a zone the AWS data prices (an m5.large there is $0.096/h on demand)."""
    for o in objects:
        if o.get("kind") in ("Node", "NodeClaim"):
            o["metadata"]["labels"]["topology.kubernetes.io/zone"] = "us-east-1a"
            where = o["spec"] if o["kind"] == "Node" else o["status"]
            where["providerID"] = where["providerID"].replace("test-zone-1a", "us-east-1a")
    return objects


def write(tmp_path: Path, objects: list[dict], budget: str = "10", types: str = "m5.large, t3.large, m5.xlarge",
          pools: str | None = None) -> list[str]:
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all(objects))
    (tmp_path / "nodepools.yaml").write_text(pools or NODEPOOLS.replace("BUDGET", budget).replace("TYPES", types))
    return ["--nodes", str(tmp_path / "cluster.yaml"), "--nodes", str(tmp_path / "nodepools.yaml")]


def cli(*args: str) -> tuple[int, str, str]:
    env = TestEnvironment()
    code = main(["karpenter", "--disruption", *NOW, *args], env)
    return code, env.out, env.err


def why(tmp_path: Path, objects: list[dict], name: str = N1, **kw) -> tuple[int, dict]:
    code, out, err = cli(*write(tmp_path, objects, **kw), "--node", name, "-o", "json")
    assert code in (0, 1), err
    return code, json.loads(out)


def times(doc: dict) -> list[dict]:
    """What time alone changes, each without what stops the node then."""
    return [{k: v for k, v in w.items() if k != "then"} for w in doc["node"]["when"]]


def applied(objects: list[dict], change: list[dict]) -> list[dict]:
    """The fix's operations applied to the objects they name (the user's own edit)."""
    out = copy.deepcopy(objects)
    for o in change:
        for i, obj in enumerate(out):
            meta = obj.get("metadata") or {}
            if obj.get("kind") == o["object"]["kind"] and meta.get("name") == o["object"]["name"]:
                out[i] = apply_ops(obj, [o])
    return out


def taken(doc: dict, name: str) -> list[str]:
    """The methods whose command takes the node (reached or not)."""
    return [m["method"] for m in doc["methods"] for c in m.get("commands") or ()
            if name in [x["node"] for x in c["candidates"]]]


def assert_verified_by_hand(tmp_path: Path, objects: list[dict], fix: dict, name: str = N1, **kw) -> None:
    """The fix applied to the files, the pass run again by the command: the node is in a command."""
    code, out, err = cli(*write(tmp_path, applied(objects, fix["change"]), **kw), "-o", "json")
    assert code == 0, err
    doc = json.loads(out)
    if fix["verified"]["acts"]:
        assert name in [c["node"] for cmd in doc["decision"]["commands"] for c in cmd["candidates"]]
    else:
        assert taken(doc, name) or any(n["node"] == name and n["candidate"] for n in doc["nodes"])


# -- NewCandidate's checks --------------------------------------------------------------------------
def test_a_blocking_pdb_is_said_in_karpenters_words_and_its_fix_verified(tmp_path):
    objects = priced([*node(1), pod("web-0", 1), pdb(0)])
    code, doc = why(tmp_path, objects)
    node_doc = doc["node"]
    assert code == 1 and node_doc["verdict"] == "stays"
    assert node_doc["checks"] == [{"step": "NewCandidate", "check": "pdb", "karpenter": True,
                                   "message": "Pdb prevents pod evictions (PodDisruptionBudget=[default/web])",
                                   "detail": {"pdbs": ["default/web"], "pods": ["default/web-0"]}}]
    [fix] = node_doc["fixes"]
    assert fix["kind"] == "pdb" and fix["change"][0]["path"] == "/spec/maxUnavailable" and fix["change"][0]["value"] == 1
    # by hand: the PDB's status as its controller then writes it
    objects_fixed = copy.deepcopy(objects)
    objects_fixed[-1]["status"]["disruptionsAllowed"] = 1
    assert_verified_by_hand(tmp_path, objects_fixed, fix)


def test_every_do_not_disrupt_pod_is_a_check_and_one_fix_removes_them_all(tmp_path):
    dnd = {"karpenter.sh/do-not-disrupt": "true"}
    objects = priced([*node(1), pod("a-0", 1, annotations=dnd), pod("b-0", 1, annotations=dnd)])
    _, doc = why(tmp_path, objects)
    checks = doc["node"]["checks"]
    assert [c["message"] for c in checks] == [
        'Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=default/a-0)',
        'Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=default/b-0)']
    [fix] = doc["node"]["fixes"]
    assert fix["kind"] == "remove-do-not-disrupt" and len(fix["change"]) == 2
    assert_verified_by_hand(tmp_path, objects, fix)


def test_the_nodes_own_do_not_disrupt_and_every_other_check_after_it(tmp_path):
    objects = priced([*node(1), pod("web-0", 1), pdb(0)])
    objects[0]["metadata"]["annotations"] = {"karpenter.sh/do-not-disrupt": "true"}
    _, doc = why(tmp_path, objects)
    assert [c["check"] for c in doc["node"]["checks"]] == ["node-do-not-disrupt", "pdb"]
    assert doc["node"]["checks"][0]["message"] == \
        'Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation'
    [fix] = doc["node"]["fixes"]            # neither alone lets it go: both together
    assert fix["kind"] == "together" and {o["object"]["kind"] for o in fix["change"]} == {"Node",
                                                                                          "PodDisruptionBudget"}


def test_a_do_not_disrupt_duration_ends_at_the_pods_start_plus_it(tmp_path):
    objects = [*node(1), pod("web-0", 1, annotations={"karpenter.sh/do-not-disrupt": "2h"})]
    _, doc = why(tmp_path, objects)
    assert doc["node"]["checks"][0]["check"] == "pod-do-not-disrupt"
    assert {"what": "do-not-disrupt", "at": "2026-01-01T13:30:00Z",
            "text": "pod default/web-0's do-not-disrupt (2h) ends: its start 2026-01-01T11:30:00Z + 2h"} \
        in times(doc)


def test_first_check_is_the_passs_own_refusal_on_every_bundled_and_shared_node(tmp_path):
    """The checks are NewCandidate's: the first one is what the pass itself said of the node."""
    runs = [[a for f in ("cluster.yaml", "nodepools.yaml") for a in ("--nodes", str(FIXTURE / f))]]
    if SHARED.is_dir():
        for case in ("not-candidate-0008", "pdb-0006", "do-not-disrupt-0017", "mixed-0009"):
            c = SHARED / case
            runs.append([str(c / "pods.yaml"), "--nodes", str(c / "cluster.yaml"), "--nodes",
                         str(c / "nodepools.yaml"), "--aws-data", str(SHARED_AWS)])
    seen = 0
    for args in runs:
        code, out, err = cli(*args, "-o", "json")
        for n in json.loads(out)["nodes"]:
            if n["candidate"]:
                continue
            code, out, err = cli(*args, "--node", n["node"], "-o", "json")
            first = json.loads(out)["node"]["checks"][0]
            assert first["message"] == (n.get("blocked") or n["error"]), n["node"]
            seen += 1
    assert seen >= 2


# -- the methods ------------------------------------------------------------------------------------
def test_a_zero_budget_is_karpenters_event_and_its_fix_verified(tmp_path):
    objects = [*node(1), *node(2), pod("web-0", 1, cpu="200m"), pod("web-1", 2, cpu="200m")]
    code, doc = why(tmp_path, objects, N2, budget="0")
    budgets = [c for c in doc["node"]["checks"] if c["check"] == "budget"]
    assert [c["step"] for c in budgets] == ["MultiNodeConsolidation", "SingleNodeConsolidation"]
    assert budgets[0]["message"] == "No allowed disruptions for disruption reason Underutilized due to blocking budget"
    assert budgets[0]["detail"] == {"nodePool": "default", "reason": "Underutilized", "nodes": 2, "disrupting": 0,
                                    "budgetsAllow": 0}
    [fix] = doc["node"]["fixes"]
    assert fix["kind"] == "budget" and fix["change"][0]["path"] == "/spec/disruption/budgets/0/nodes"
    assert fix["change"][0]["value"] == "1"
    assert_verified_by_hand(tmp_path, [*objects], {**fix, "change": []}, N2, budget="1")


def test_cant_replace_with_a_cheaper_node_names_the_cheapest_type_and_a_verified_wider_nodepool(tmp_path):
    objects = priced([*node(1), pod("web-0", 1, cpu="1500m")])
    code, doc = why(tmp_path, objects, types="m5.large, m5.xlarge")
    [sim] = [c for c in doc["node"]["checks"] if c["check"] == "simulation"]
    assert sim["message"] == "Can't replace with a cheaper node" and sim["karpenter"] is True
    assert sim["detail"]["cheapestType"] == "m5.large" and sim["detail"]["cheapestPrice"] == "0.096"
    assert sim["detail"]["nodeType"] == "m5.large" and sim["detail"]["nodePrice"] == "0.096"
    fixes = doc["node"]["fixes"]
    assert fixes and fixes[0]["kind"] == "nodepool-instance-types" and fixes[0]["verified"]["acts"]
    new_type = fixes[0]["change"][0]["value"][-1]
    assert_verified_by_hand(tmp_path, objects, {**fixes[0], "change": []}, types=f"m5.large, m5.xlarge, {new_type}")


def test_cant_remove_without_two_nodeclaims_says_which_pods_need_which(tmp_path):
    a = pod("a-0", 1, cpu="200m")
    a["spec"]["nodeSelector"] = {"topology.kubernetes.io/zone": "us-east-1a"}
    b = pod("b-0", 1, cpu="200m")
    b["spec"]["nodeSelector"] = {"topology.kubernetes.io/zone": "us-east-1b"}
    _, doc = why(tmp_path, priced([*node(1), a, b]))
    [sim] = [c for c in doc["node"]["checks"] if c["check"] == "simulation"]
    assert sim["message"] == "Can't remove without creating 2 candidates"
    claims = sorted(sim["detail"]["newNodeClaims"], key=lambda c: c["pods"])
    assert [(c["pods"], c["zones"]) for c in claims] == [(["default/a-0"], ["us-east-1a"]),
                                                         (["default/b-0"], ["us-east-1b"])]


def test_not_all_pods_would_schedule_gives_each_pods_reason(tmp_path):
    pinned = pod("web-0", 1)
    pinned["spec"]["nodeSelector"] = {"kubernetes.io/hostname": N1}
    _, doc = why(tmp_path, [*node(1), *node(2), pinned])
    [sim] = [c for c in doc["node"]["checks"] if c["check"] == "simulation"]
    assert sim["message"].startswith("Not all pods would schedule, default/web-0 => incompatible requirements")
    [err] = sim["detail"]["unschedulable"]
    assert err["pod"] == "default/web-0" and "kubernetes.io/hostname" in err["error"]


def test_a_node_not_yet_consolidatable_says_when_it_will_be(tmp_path):
    objects = [*node(1), pod("web-0", 1)]
    claim = objects[1]
    claim["status"]["conditions"] = [c for c in claim["status"]["conditions"] if c["type"] != "Consolidatable"]
    claim["status"]["lastPodEventTime"] = "2026-01-01T11:50:00Z"
    pools = NODEPOOLS.replace("BUDGET", "10").replace("TYPES", "m5.large").replace("consolidateAfter: 0s",
                                                                                   "consolidateAfter: 30m")
    _, doc = why(tmp_path, objects, pools=pools)
    assert doc["node"]["checks"][-1]["check"] == "consolidatable"
    [when] = [w for w in doc["node"]["when"] if w["what"] != "expiration"]
    assert when["what"] == "consolidatable" and when["at"] == "2026-01-01T12:20:00Z"
    assert "lastPodEventTime 2026-01-01T11:50:00Z + consolidateAfter 30m" in when["text"]


def test_times_no_clock_reaches_are_left_out_not_a_crash(tmp_path):
    """A consolidateAfter the CRD's pattern lets through and a do-not-disrupt duration Go refuses
    (beyond an int64 of nanoseconds): no time, the rest of the answer as before."""
    objects = [*node(1), pod("web-0", 1, annotations={"karpenter.sh/do-not-disrupt": "99999999999h"})]
    claim = objects[1]
    claim["status"]["conditions"] = [c for c in claim["status"]["conditions"] if c["type"] != "Consolidatable"]
    pools = NODEPOOLS.replace("BUDGET", "10").replace("TYPES", "m5.large").replace("consolidateAfter: 0s",
                                                                                   "consolidateAfter: 99999999999h")
    code, doc = why(tmp_path, objects, pools=pools)
    assert code == 1 and [w["what"] for w in doc["node"]["when"]] == ["expiration"]
    assert doc["node"]["checks"][-1]["check"] == "consolidatable"


def test_a_budget_window_says_when_it_closes(tmp_path):
    pools = NODEPOOLS.replace('budgets: [{nodes: "BUDGET"}]',
                              'budgets: [{nodes: "0", schedule: "0 9 * * mon-fri", duration: 8h}]')
    pools = pools.replace("TYPES", "m5.large, t3.large")
    _, doc = why(tmp_path, [*node(1), *node(2), pod("web-0", 1, cpu="200m"), pod("web-1", 2, cpu="200m")],
                 N2, pools=pools)
    assert any(c["check"] == "budget" for c in doc["node"]["checks"])
    assert {"what": "budget", "at": "2026-01-01T17:00:00Z",
            "text": "budgets[0] (nodes 0, '0 9 * * mon-fri' for 8h) closes"} in times(doc)


# -- the command -----------------------------------------------------------------------------------
def test_a_node_disrupted_now_exits_0_and_nothing_stops_it(tmp_path):
    code, doc = why(tmp_path, [*node(1), *node(2), pod("web-0", 2)])
    assert code == 0
    assert doc["node"] == {"name": N1, "verdict": "disrupted", "method": "Emptiness", "checks": [], "fixes": [],
                           "when": []}


def test_an_unknown_node_is_bad_usage_with_the_closest_names(tmp_path):
    code, out, err = cli(*write(tmp_path, [*node(1), *node(2)]), "--node", "ip-10-0-1-1.ec2.interna")
    assert code == 2 and out == ""
    assert "no node of that name among the 2 nodes of the inputs; the closest: ip-10-0-1-1.ec2.internal" in err


def test_a_node_is_found_by_its_nodes_or_its_nodeclaims_name(tmp_path):
    """Karpenter's state names a node not yet registered after its NodeClaim: asked by its Node's
    name (or a registered one by its NodeClaim's), the answer is that node's, under the pass's name."""
    unregistered = node(1)
    del unregistered[0]["metadata"]["labels"]["karpenter.sh/registered"]
    objects = [*unregistered, *node(2)]
    _, by_claim = why(tmp_path, objects, name="default-00001")
    _, by_node = why(tmp_path, objects, name=N1)
    assert by_node["node"] == by_claim["node"] and by_node["node"]["name"] == "default-00001"
    _, registered = why(tmp_path, objects, name="default-00002")
    assert registered["node"]["name"] == N2


def test_node_is_an_option_of_disruption():
    env = TestEnvironment()
    code = main(["karpenter", str(FIXTURE / "cluster.yaml"), "--node", N1], env)
    assert code == 2 and "--node is an option of --disruption" in env.err


def test_text_says_the_checks_the_fixes_and_the_times(tmp_path):
    code, out, err = cli(*write(tmp_path, priced([*node(1), pod("web-0", 1), pdb(0)])), "--node", N1)
    assert code == 1, err
    assert f"Node {N1}: Karpenter keeps it" in out
    assert '1. NewCandidate: "Pdb prevents pod evictions' in out
    assert "set maxUnavailable of PodDisruptionBudget default/web to 1 (from 0)" in out
    assert "verified:" in out


@pytest.mark.skipif(not SHARED.is_dir(), reason="the shared yardstick is not here")
def test_shared_cases_fixes_are_verified_by_the_pass_itself(tmp_path):
    """A PDB and a budget of the yardstick's cases: the fix applied to their files, the command
    run again, the node in a command."""
    for case, name, kind in (("pdb-0016", "ip-10-0-2-145.ec2.internal", "pdb"),
                             ("mixed-0009", "ip-10-0-5-197.ec2.internal", "budget")):
        c = SHARED / case
        args = [str(c / "pods.yaml"), "--nodes", str(c / "cluster.yaml"), "--nodes", str(c / "nodepools.yaml"),
                "--aws-data", str(SHARED_AWS)]
        code, out, err = cli(*args, "--node", name, "-o", "json")
        assert code == 1, err
        [fix] = [f for f in json.loads(out)["node"]["fixes"] if f["kind"] == kind]
        assert fix["verified"]["acts"] is True
        objects = [o for f in ("cluster.yaml", "nodepools.yaml") for o in yaml.safe_load_all(open(c / f)) if o]
        fixed = applied(objects, fix["change"])
        for o in fixed:                     # the PDB's status as its controller writes it for the new spec
            if kind == "pdb" and o.get("kind") == "PodDisruptionBudget" and \
                    o["metadata"]["name"] == fix["change"][0]["object"]["name"]:
                o["status"]["disruptionsAllowed"] = 1
        (tmp_path / f"{case}.yaml").write_text(yaml.safe_dump_all(fixed))
        code, out, err = cli(str(c / "pods.yaml"), "--nodes", str(tmp_path / f"{case}.yaml"), "--aws-data",
                             str(SHARED_AWS), "-o", "json")
        doc = json.loads(out)
        assert name in [x["node"] for cmd in doc["decision"]["commands"] for x in cmd["candidates"]], case


def test_spot_to_spot_off_is_said_and_the_gate_verified(tmp_path):
    objects = priced([*node(1, itype="m5.2xlarge", cpu="8", alloc_cpu="7910m"), pod("web-0", 1, cpu="200m")])
    for o in objects[:2]:
        o["metadata"]["labels"]["karpenter.sh/capacity-type"] = "spot"
    pools = NODEPOOLS.replace("BUDGET", "10").replace("values: [on-demand]", "values: [spot]").replace(
        "      - {key: node.kubernetes.io/instance-type, operator: In, values: [TYPES]}\n", "")
    _, doc = why(tmp_path, objects, pools=pools)
    [sim] = [c for c in doc["node"]["checks"] if c["check"] == "simulation"]
    assert sim["message"] == "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node"
    [fix] = doc["node"]["fixes"]
    assert fix["kind"] == "feature-gate" and fix["verified"]["acts"] is True
    (tmp_path / "params.yaml").write_text("featureGates: SpotToSpotConsolidation=true\n")
    code, out, err = cli(*write(tmp_path, objects, pools=pools), "--karpenter-config", str(tmp_path / "params.yaml"),
                         "--node", N1, "-o", "json")
    assert code == 0 and json.loads(out)["node"]["verdict"] == "disrupted", err


def test_yaml_holds_the_same_node_answer(tmp_path):
    args = write(tmp_path, priced([*node(1), pod("web-0", 1), pdb(0)]))
    _, as_json, _ = cli(*args, "--node", N1, "-o", "json")
    _, as_yaml, _ = cli(*args, "--node", N1, "-o", "yaml")
    assert yaml.safe_load(as_yaml)["node"] == json.loads(as_json)["node"]


def test_a_change_that_leaves_the_node_where_it_was_is_no_fix(tmp_path):
    """N1 is in SingleNodeConsolidation's command, but Emptiness acts first; Drift's budget (0 for
    Drifted) also stops it: raising that budget still leaves Emptiness acting, so it is no fix."""
    objects = priced([*node(1), *node(2), pod("web-0", 1, cpu="200m")])
    objects[1]["status"]["conditions"].append({"type": "Drifted", "status": "True", "reason": "Drifted",
                                                "lastTransitionTime": "2026-01-01T11:00:00Z"})
    pools = NODEPOOLS.replace('budgets: [{nodes: "BUDGET"}]',
                              'budgets: [{nodes: "10"}, {nodes: "0", reasons: [Drifted]}]').replace("TYPES", "m5.large")
    code, doc = why(tmp_path, objects, pools=pools)
    assert code == 1 and doc["node"]["verdict"] == "command-not-reached"
    assert doc["node"]["method"] == "SingleNodeConsolidation"
    assert [c["step"] for c in doc["node"]["checks"] if c["check"] == "budget"] == ["Drift"]
    assert doc["node"]["fixes"] == []


def test_when_empty_policy_is_karpenters_words_and_underutilized_verified(tmp_path):
    objects = priced([*node(1), *node(2), pod("web-0", 1, cpu="200m"), pod("web-1", 2, cpu="200m")])
    pools = NODEPOOLS.replace("BUDGET", "10").replace("TYPES", "m5.large").replace(
        "consolidationPolicy: WhenEmptyOrUnderutilized", "consolidationPolicy: WhenEmpty")
    _, doc = why(tmp_path, objects, N2, pools=pools)
    filters = [c for c in doc["node"]["checks"] if c["check"] == "filter"]
    assert [c["message"] for c in filters] == ['NodePool "default" has non-empty consolidation disabled'] * 2
    [fix] = doc["node"]["fixes"]
    assert fix["kind"] == "consolidation-policy" and fix["change"][0]["value"] == "WhenEmptyOrUnderutilized"
    code, out, err = cli(*write(tmp_path, objects, pools=pools.replace("WhenEmpty", "WhenEmptyOrUnderutilized")),
                         "--node", N2, "-o", "json")
    assert code == (0 if fix["verified"]["acts"] else 1), err


def test_a_node_that_is_not_empty_names_the_pods_that_would_move(tmp_path):
    """Emptiness's refusal names the reschedulable pods (a terminating StatefulSet pod among them, which
    IsReschedulable still counts), not the DaemonSet's pod that stays out of the count."""
    sts, ds = pod("db-0", 1), pod("agent", 1)
    sts["metadata"].update(deletionTimestamp="2026-01-01T11:59:30Z", finalizers=["x/y"],
                           ownerReferences=[{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db", "uid": "u1"}])
    ds["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent", "uid": "u2"}]
    objects = [*node(1), sts, ds, pod("web-0", 1)]
    pools = NODEPOOLS.replace("BUDGET", "10").replace("TYPES", "m5.large").replace("WhenEmptyOrUnderutilized",
                                                                                   "WhenEmpty")
    _, doc = why(tmp_path, objects, pools=pools)
    empty = next(c for c in doc["node"]["checks"] if c["check"] == "empty")
    assert empty["message"] == "not empty: 2 pod(s) would have to move"
    assert empty["detail"]["moving"] == ["default/db-0 (terminating, but a StatefulSet's: Karpenter still moves it)",
                                         "default/web-0"]
    code, out, _ = cli(*write(tmp_path, objects, pools=pools), "--node", N1)
    assert "pods that would have to move: default/db-0 (terminating, but a StatefulSet's" in " ".join(out.split())
