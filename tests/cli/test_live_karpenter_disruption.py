"""`kexplain karpenter --disruption` on a live cluster (`kexplain.app.karpenter_live`): the
stand-in API server (tests/support/live_server.py) serves fixtures/karpenter-disruption's objects
(NodeClaims with their stored Consolidatable/Drifted/Initialized conditions, a PDB with its
status, the NodePool and EC2NodeClass) and Karpenter's events; the pass's document is the one
the same objects give as --nodes files, whole, with the events beside it (`live`); a snapshot
keeps the events and replays to the same document; a refused read is said once."""
from __future__ import annotations

import copy
import json

import pytest
import yaml

from kexplain.load.live import DAEMONSETS, EVENTS, KARPENTER, RESOURCES
from tests.support.live_server import Rbac, RecordedApiServer, isolated, run_cli, write_kubeconfig  # noqa: F401
from tests.support.paths import ROOT

FIXTURE = ROOT / "fixtures" / "karpenter-disruption"
FILES = [str(FIXTURE / "cluster.yaml"), str(FIXTURE / "nodepools.yaml")]
NOW = ["--now", "2026-01-01T12:00:00Z"]
SERVED = (*RESOURCES, *KARPENTER, DAEMONSETS, EVENTS)
EVERY_KIND = frozenset(r.plural for r in SERVED)


def _event(name: str, kind: str, obj: str, reason: str, message: str, component: str = "karpenter",
           namespace: str = "default") -> dict:
    ns = {"namespace": "default"} if kind == "Pod" else {}
    return {"metadata": {"name": name, "namespace": namespace, "resourceVersion": "1"},
            "involvedObject": {"kind": kind, "name": obj, **ns}, "reason": reason, "message": message,
            "type": "Normal", "count": 3, "lastTimestamp": "2026-01-01T11:58:00Z", "source": {"component": component}}


# Karpenter's own (as its recorder writes them: source karpenter), and the scheduler's, left out.
EVENTS_SERVED = [
    _event("ip-10-0-2-17.1", "Node", "ip-10-0-2-17.ec2.internal", "DisruptionBlocked",
           "Pdb prevents pod evictions (PodDisruptionBudget=[default/web])"),
    _event("general-b4m9q.1", "NodeClaim", "general-b4m9q", "DisruptionBlocked",
           "Pdb prevents pod evictions (PodDisruptionBudget=[default/web])"),
    _event("web.1", "Pod", "web-0", "FailedScheduling", "0/4 nodes are available", component="default-scheduler"),
]


def fixture_objects() -> list[dict]:
    return [o for f in FILES for o in yaml.safe_load_all(open(f)) if o]


def serve(server: RecordedApiServer, objects: list[dict]) -> None:
    """Each kind of `objects` at its collection (and Karpenter's events)."""
    server.collections = {}
    for res in SERVED:
        items = [{k: v for k, v in o.items() if k not in ("kind", "apiVersion")}
                 for o in objects if o.get("kind") == res.kind]
        if res is EVENTS:
            items = copy.deepcopy(EVENTS_SERVED)
        for n, item in enumerate(items):
            item.setdefault("metadata", {}).setdefault("resourceVersion", str(n + 1))
        server.collections[res.path] = {"kind": f"{res.kind}List", "apiVersion": res.api_version,
                                        "metadata": {"resourceVersion": "7"}, "items": items}


@pytest.fixture
def api(tmp_path):
    """The stand-in API server serving the fixture's objects, each kind at its collection."""
    with RecordedApiServer("cluster") as server:
        serve(server, fixture_objects())
        server.kubeconfig = str(write_kubeconfig(tmp_path / "kubeconfig", server.url))
        yield server
        assert server.methods <= {"GET"}


def disruption(capsys, *args: str) -> tuple[int, dict, str]:
    code, out, err = run_cli(capsys, "karpenter", "--disruption", *NOW, "-o", "json", *args)
    return code, json.loads(out), err


def test_live_gives_the_document_the_files_give_with_karpenters_events_beside_it(capsys, api):
    code, live, err = disruption(capsys, "--kubeconfig", api.kubeconfig)
    assert code == 0, err
    from_files = disruption(capsys, *[a for f in FILES for a in ("--nodes", f)])
    seen = live.pop("live")
    assert (code, live) == from_files[:2]
    assert live["decision"]["method"] == "Emptiness"      # the stored conditions decide as the files' do
    assert seen["server"] == api.url
    assert seen["events"] == [
        {"type": "Normal", "reason": "DisruptionBlocked", "object": "Node/ip-10-0-2-17.ec2.internal",
         "message": "Pdb prevents pod evictions (PodDisruptionBudget=[default/web])", "count": 3,
         "lastSeen": "2026-01-01T11:58:00Z"},
        {"type": "Normal", "reason": "DisruptionBlocked", "object": "NodeClaim/general-b4m9q",
         "message": "Pdb prevents pod evictions (PodDisruptionBudget=[default/web])", "count": 3,
         "lastSeen": "2026-01-01T11:58:00Z"}]
    asked = [s for s in api.requests if s.path == EVENTS.path]
    assert [s.query.get("fieldSelector") for s in asked] == [["source=karpenter"]]     # listed cluster-wide
    code, out, _ = run_cli(capsys, "karpenter", "--disruption", *NOW, "--kubeconfig", api.kubeconfig)
    assert out.startswith("Karpenter would start Emptiness (Empty): delete: [ip-10-0-3-17.ec2.internal]")
    tail = " ".join(out[out.index("Karpenter's events in the cluster"):].split())      # unwrapped
    assert tail == (f"Karpenter's events in the cluster ({api.url}): 2 "
                    "Normal DisruptionBlocked on Node/ip-10-0-2-17.ec2.internal: Pdb prevents pod evictions "
                    "(PodDisruptionBudget=[default/web]) (×3, last 2026-01-01T11:58:00Z) "
                    "Normal DisruptionBlocked on NodeClaim/general-b4m9q: Pdb prevents pod evictions "
                    "(PodDisruptionBudget=[default/web]) (×3, last 2026-01-01T11:58:00Z)")


def test_a_changed_stored_condition_changes_the_live_answer_as_the_files(capsys, api, tmp_path):
    """The NodeClaims' conditions are read as stored: the empty node's NodeClaim not
    Consolidatable any more, live and from files agree, and Emptiness no longer acts on it."""
    claims = api.collections["/apis/karpenter.sh/v1/nodeclaims"]["items"]
    objects = fixture_objects()
    for claim in [*claims, *(o for o in objects if o.get("kind") == "NodeClaim")]:
        for cond in claim.get("status", {}).get("conditions", ()):
            if cond["type"] == "Consolidatable":
                cond["status"] = "False"
    changed = tmp_path / "cluster.yaml"
    changed.write_text(yaml.safe_dump_all(objects))
    code, live, _ = disruption(capsys, "--kubeconfig", api.kubeconfig)
    live.pop("live")
    assert (code, live) == disruption(capsys, "--nodes", str(changed))[:2]
    assert (live.get("decision") or {}).get("method") != "Emptiness"


def test_a_snapshot_keeps_karpenters_events_and_replays_the_same_document(capsys, api, tmp_path):
    snap = tmp_path / "snap.json"
    code, _, err = run_cli(capsys, "snapshot", "-o", str(snap), "--kubeconfig", api.kubeconfig)
    assert code == 0, err
    kept = [o for o in json.loads(snap.read_text())["items"] if o["kind"] == "Event"]
    assert [o["reason"] for o in kept] == ["DisruptionBlocked", "DisruptionBlocked"]     # Karpenter's only
    assert "2 events" in err
    code, replay, err = disruption(capsys, "--nodes", str(snap))
    assert err == ""          # the kept events are no input the pass refuses
    code_live, live, _ = disruption(capsys, "--kubeconfig", api.kubeconfig)
    live.pop("live")
    assert (code, replay) == (code_live, live)


def test_refused_reads_are_said_once_and_the_pass_goes_on(capsys, api):
    """Events refused (403), DaemonSets too: one block naming the events' read with its rule; the
    pass runs on what was read, the document says the events were not read. (Karpenter's own
    objects refused end the pass: tests/cli/test_live_karpenter_disruption_refused.py.)"""
    api.faults.rbac = Rbac(cluster=EVERY_KIND - {"events", "daemonsets"})
    code, doc, err = disruption(capsys, "--kubeconfig", api.kubeconfig)
    assert code == 0
    assert err.count("Not read (RBAC refused, 403)") == 1
    assert "list events" in err
    assert doc["live"]["events"] == [] and doc["live"]["eventsRefused"]["resource"] == "events"
    assert doc["decision"]["method"] == "Emptiness"


def test_kubeconfig_reads_live_only_for_the_disruption_pass_without_nodes(capsys, api):
    code, _, err = run_cli(capsys, "karpenter", "--disruption", *NOW, "--kubeconfig", api.kubeconfig,
                           "--nodes", FILES[0])
    assert code == 2
    assert "--kubeconfig and --context read the live cluster: give them to --disruption without --nodes" in err
    assert api.requests == []           # nothing asked of the cluster


def test_live_gives_the_chain_the_files_give(capsys, api, tmp_path):
    """The chain (a node's drain, the Eviction API's answers against the PDBs, where the pods land)
    from the cluster read live is the one from files of the same objects: the second pod of a
    budget allowing one disruption refused, its node held; the page of the live answer has the
    chain and Karpenter's own events."""
    from tests.karpenter.test_disruption_chain import two_web_pods_one_disruption, write_inputs
    objects = two_web_pods_one_disruption()
    files = write_inputs(tmp_path, objects)
    serve(api, objects + [o for o in yaml.safe_load_all(open(files[3])) if o])
    page = tmp_path / "live.html"
    code, live, err = disruption(capsys, "--kubeconfig", api.kubeconfig, "--html", str(page))
    assert code == 0, err
    live.pop("live")
    assert (code, live) == disruption(capsys, *files)[:2]
    (node,) = live["decision"]["chain"]["nodes"]
    words = " ".join(page.read_text().split())
    assert "The chain: evictions, budgets, where the pods land" in words
    assert "Karpenter&#x27;s events in the cluster" in words and "Pdb prevents pod evictions" in words
    assert [(p["pod"], p["outcome"]) for p in node["pods"]] == [
        ("default/web-1", "evicted"), ("default/web-2", "refused"), ("default/logs-1", "waits")]
