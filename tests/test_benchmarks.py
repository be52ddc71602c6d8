"""The benchmark generator writes a valid snapshot that kexplain explains (no timings here)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

from tests.support.paths import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))

import generate  # noqa: E402

from kexplain.explain.inputs import load_inputs  # noqa: E402
from kexplain.explain.request import Request  # noqa: E402
from kexplain.explain.run import explain  # noqa: E402

NODES = 50


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return generate.write(tmp_path_factory.mktemp("bench"), NODES, seed=7)


def _items(path: Path) -> list[dict]:
    text = path.read_text(encoding="utf-8")
    doc = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    assert doc["kind"] == "List"
    return doc["items"]


def test_yaml_and_json_hold_the_same_objects(generated: dict[str, Path]) -> None:
    assert _items(generated["yaml"]) == _items(generated["json"])


def test_deterministic_for_a_seed(generated: dict[str, Path], tmp_path: Path) -> None:
    again = generate.write(tmp_path, NODES, seed=7, formats=("json",))
    assert again["json"].read_bytes() == generated["json"].read_bytes()
    other = generate.write(tmp_path / "other", NODES, seed=8, formats=("json",))
    assert other["json"].read_bytes() != generated["json"].read_bytes()


def test_cluster_shape(generated: dict[str, Path]) -> None:
    items = _items(generated["json"])
    nodes = [o for o in items if o["kind"] == "Node"]
    pods = [o for o in items if o["kind"] == "Pod"]
    assert len(nodes) == NODES
    zones = {n["metadata"]["labels"]["topology.kubernetes.io/zone"] for n in nodes}
    assert zones == set(generate.ZONES)
    assert 25 * NODES <= len(pods) <= 35 * NODES
    assert all(p["spec"]["nodeName"] for p in pods)
    assert any(n["spec"].get("taints") for n in nodes)
    anti = [p for p in pods if "podAntiAffinity" in p["spec"].get("affinity", {})]
    spread = [p for p in pods if p["spec"].get("topologySpreadConstraints")]
    assert anti and spread
    assert len({p["metadata"]["labels"]["app"] for p in pods}) > 100


@pytest.mark.parametrize("fmt", ["json", "yaml"])
@pytest.mark.parametrize("pod, config, status", [
    ("pod", None, "Scheduled"),
    ("pod", "config-100", "Scheduled"),
    ("pod-unschedulable", None, "Unschedulable"),
])
def test_kexplain_explains_it(generated: dict[str, Path], fmt: str, pod: str, config: str | None,
                              status: str) -> None:
    req = Request(str(generated[pod]), (str(generated[fmt]),),
                  config_path=str(generated[config]) if config else None)
    inputs = load_inputs(req)
    assert len(inputs.snapshot.node_infos) == NODES
    assert inputs.warnings == []
    trace = explain(inputs, req).to_json()
    assert trace["result"]["status"] == status
    if status == "Scheduled":
        host = trace["result"]["selectedNodes"][0]
        assert not any(p.labels.get("app") == generate.BENCH_APP for p in inputs.snapshot.get(host).pods)
    else:
        assert trace["postFilter"]["nominatedNodeName"]
        assert trace["postFilter"]["victims"]


def _strip_versions(doc: dict) -> dict:
    for obj in doc["items"]:
        obj["metadata"].pop("resourceVersion", None)
    return doc


def test_the_snapshot_is_what_an_api_server_stores(generated: dict[str, Path], tmp_path: Path) -> None:
    """Every object carries a resourceVersion, so kexplain takes the snapshot as stored. The
    same objects without it go through admission: the API server accepts every one, and the
    scheduler reads the same cluster (same filter verdicts, same scores)."""
    doc = json.loads(generated["json"].read_text(encoding="utf-8"))
    assert all(o["metadata"].get("resourceVersion") for o in doc["items"])
    fresh = tmp_path / "fresh.json"
    fresh.write_text(json.dumps(_strip_versions(doc)), encoding="utf-8")
    for pod in ("pod", "pod-unschedulable"):
        traces = []
        for cluster in (generated["json"], fresh):
            req = Request(str(generated[pod]), (str(cluster),), config_path=str(generated["config-100"]))
            traces.append(explain(load_inputs(req), req).to_json())
        stored_trace, admitted_trace = traces
        for key in ("result", "filter", "score", "postFilter"):
            assert stored_trace.get(key) == admitted_trace.get(key), key


def test_names_are_unique_at_full_size() -> None:
    """Random name suffixes collide at 150,000 pods unless redrawn (the API server would refuse
    the second pod of a name, and so does kexplain)."""
    items = generate.cluster(5000, 30, 300, 1)
    keys = [(o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"]) for o in items]
    assert len(keys) == len(set(keys))


def test_yaml_has_no_anchors_or_aliases(generated: dict[str, Path]) -> None:
    """kubectl writes none; a dump full of them would be refused as excessive aliasing."""
    events = list(yaml.parse(generated["yaml"].read_text(encoding="utf-8"), Loader=yaml.CSafeLoader))
    assert not any(isinstance(e, yaml.AliasEvent) or getattr(e, "anchor", None) for e in events)


def test_autoscale_case_puts_every_node_in_one_group(generated: dict[str, Path]) -> None:
    import autoscale_bench
    case = autoscale_bench.write_case(generated["json"].parent, pending=40, shapes=20)
    groups = yaml.safe_load((case / "nodegroups.yaml").read_text())["nodeGroups"]
    nodes = [o for o in _items(case / "cluster.json") if o["kind"] == "Node"]
    names = [g["name"] for g in groups]
    assert len(set(names)) == len(names)
    for node in nodes:
        labels = node["metadata"]["labels"]
        matching = [g["name"] for g in groups if all(labels.get(k) == v for k, v in g["nodeSelector"].items())]
        assert matching == [autoscale_bench.group_of(node)]
    assert any(g["maxSize"] > sum(n["metadata"]["labels"][autoscale_bench.GROUP_LABEL] == g["name"] for n in nodes)
               for g in groups)
    pods = list(yaml.safe_load_all((case / "pods.yaml").read_text()))
    assert len(pods) == 40 and all(not p["spec"].get("nodeName") for p in pods)
    assert len({p["metadata"]["labels"]["shape"] for p in pods}) == 20


def test_the_kueue_tas_case_is_a_topology_over_the_snapshot(generated: dict[str, Path]) -> None:
    """kueue_tas_bench's inputs: every node in a block and a rack, one Topology naming the levels,
    TAS flavors pointing at it, and Jobs each with one kind of topology request; kexplain reads them."""
    import kueue_tas_bench as tas
    from kexplain.cli.app import main
    from tests.support.cli_helpers import TestEnvironment

    case = tas.write_case(generated["json"].parent, 30)
    items = json.loads((case / "cluster.json").read_text())["items"]
    nodes = [o for o in items if o["kind"] == "Node"]
    assert all({tas.BLOCK, tas.RACK, tas.HOST} <= set(n["metadata"]["labels"]) for n in nodes)
    assert len({n["metadata"]["labels"][tas.RACK] for n in nodes}) == NODES // tas.NODES_PER_RACK
    topology = [o for o in items if o["kind"] == "Topology"]
    assert [lv["nodeLabel"] for lv in topology[0]["spec"]["levels"]] == [tas.BLOCK, tas.RACK, tas.HOST]
    assert {o["spec"]["topologyName"] for o in items if o["kind"] == "ResourceFlavor"} == {tas.TOPOLOGY}
    jobs = json.loads((case / "jobs.json").read_text())["items"]
    requests = [set(j["spec"]["template"]["metadata"]["annotations"]) for j in jobs]
    assert all(len(r) == 1 for r in requests)
    assert set().union(*requests) == {tas.REQUEST, tas.PREFERENCE, tas.UNCONSTRAINED}
    env = TestEnvironment()
    code = main(["kueue", str(case / "jobs.json"), "--nodes", str(case / "cluster.json"), "--now", "2026-01-01T00:00:00Z",
                 "-o", "json", "--no-suggestions"], env)
    assert code in (0, 1), env.err
    assert len(json.loads(env.out)["workloads"]) == len(jobs)


def test_the_uneven_kueue_tas_case_has_four_uneven_levels_nodes_out_of_service_and_slices(
        generated: dict[str, Path]) -> None:
    """kueue_tas_bench --shape uneven: every node in a zone, spine and rack of uneven sizes, some
    NotReady or cordoned, two TAS flavors on the four-level Topology, slice requests among the Jobs;
    kexplain places some of them with a topology assignment."""
    import kueue_tas_bench as tas
    from kexplain.cli.app import main
    from tests.support.cli_helpers import TestEnvironment

    case = tas.write_uneven_case(generated["json"].parent, 60)
    items = json.loads((case / "cluster.json").read_text())["items"]
    nodes = [o for o in items if o["kind"] == "Node"]
    assert all({tas.ZONE, tas.SPINE, tas.RACK, tas.HOST} <= set(n["metadata"]["labels"]) for n in nodes)
    racks: dict[str, int] = {}
    for n in nodes:
        racks[n["metadata"]["labels"][tas.RACK]] = racks.get(n["metadata"]["labels"][tas.RACK], 0) + 1
    assert len(set(racks.values())) > 1                       # (uneven)
    assert any(n["spec"].get("unschedulable") for n in nodes)
    assert any(c["status"] == "False" for n in nodes for c in n["status"]["conditions"] if c["type"] == "Ready")
    assert {o["metadata"]["name"] for o in items if o["kind"] == "ResourceFlavor"} == {"tas-all", "tas-compute"}
    jobs = json.loads((case / "jobs.json").read_text())["items"]
    assert any(tas.SLICE in j["spec"]["template"]["metadata"]["annotations"] for j in jobs)
    env = TestEnvironment()
    code = main(["kueue", str(case / "jobs.json"), "--nodes", str(case / "cluster.json"),
                 "--now", "2026-01-01T00:00:00Z", "-o", "json", "--no-suggestions"], env)
    assert code in (0, 1), env.err
    workloads = json.loads(env.out)["workloads"]
    assert len(workloads) == len(jobs)
    assert any(psa.get("topologyAssignment") for w in workloads for psa in w.get("podSetAssignments") or ())


def test_against_bench_runs_a_commits_own_code(tmp_path: Path) -> None:
    """`against_bench.py` runs REV's kexplain/ (exported by git archive) by the same interpreter:
    what `kexplain.__file__` a run of each tree names (no timing here)."""
    import subprocess

    import against_bench

    commit = against_bench.export("HEAD", tmp_path / "rev")
    assert (tmp_path / "rev" / "kexplain" / "__init__.py").is_file() and commit
    probe = "import kexplain; print(kexplain.__file__)"
    for tree in (tmp_path / "rev", ROOT):
        got = subprocess.run([sys.executable, "-c", probe], env=against_bench.child_env(tree), cwd=tmp_path,
                             capture_output=True, text=True, check=True).stdout.strip()
        assert Path(got).resolve() == (tree / "kexplain" / "__init__.py").resolve()


@pytest.mark.parametrize("shape", ["standard", "big"])
def test_the_disruption_case_is_a_karpenter_cluster_that_kexplain_disrupts(shape: str, tmp_path: Path) -> None:
    """disruption_bench at a tiny size: Nodes with their NodeClaims (some Drifted, some not
    Consolidatable), Deployments' and DaemonSets' pods, PDBs with status, NodePools with budgets;
    `kexplain karpenter --disruption` reads it and finds candidates and a decision."""
    import disruption_bench as bench
    from kexplain.cli.app import main
    from tests.support.cli_helpers import TestEnvironment

    base = bench.SHAPES[shape]
    small = bench.Shape(base.types, 30, 400, 8, 4, base.app_pods, base.cpu_millis)
    case = bench.write_case(tmp_path / shape, small, 3)
    items = json.loads((case / "cluster.json").read_text())["items"]
    kinds: dict[str, int] = {}
    for o in items:
        kinds[o["kind"]] = kinds.get(o["kind"], 0) + 1
    assert kinds["Node"] == kinds["NodeClaim"] == 30 and kinds["Pod"] == 400
    assert kinds["PodDisruptionBudget"] == 8 and kinds["NodePool"] == 4 and kinds["DaemonSet"] == 2
    conditions = [c["type"] for o in items if o["kind"] == "NodeClaim" for c in o["status"]["conditions"]]
    assert "Drifted" in conditions and conditions.count("Consolidatable") < 30
    assert all("disruptionsAllowed" in o["status"] for o in items if o["kind"] == "PodDisruptionBudget")
    argv = bench.command(case, ROOT / "tests" / "karpenter" / "cases" / "sched-aws")
    env = TestEnvironment()
    code = main(argv[1:], env)
    assert code in (0, 1), env.err
    doc = json.loads(env.out)
    assert doc["pass"] == "disruption" and len(doc["nodes"]) == 30
    assert any(n["candidate"] for n in doc["nodes"]) and doc["summary"]["candidates"] > 0


@pytest.mark.parametrize("style", ["controller", "distinct"])
def test_the_controller_and_distinct_disruption_cases(tmp_path: Path, style: str) -> None:
    """`--style controller`: served pods named from their owner's generateName, with its hash or revision
    labels and the API server's defaults, indented by four; `--style distinct`: each app its own requests and
    image. kexplain reads either as the plain case (the same nodes)."""
    import disruption_bench as bench
    from kexplain.cli.app import main
    from tests.support.cli_helpers import TestEnvironment

    base = bench.SHAPES["standard"]
    small = bench.Shape(base.types, 30, 400, 8, 4, base.app_pods, base.cpu_millis)
    case = bench.write_case(tmp_path / style, small, 3, style)
    text = (case / "cluster.json").read_text()
    pods = [o for o in json.loads(text)["items"] if o["kind"] == "Pod"]
    apps = {p["metadata"]["labels"]["app"] for p in pods if "app" in p["metadata"]["labels"]}
    if style == "controller":
        assert text.startswith('{\n    "apiVersion": "v1"')
        assert all(p["metadata"]["name"].startswith(p["metadata"]["generateName"]) for p in pods)
        assert all(p["spec"]["dnsPolicy"] == "ClusterFirst" and len(p["status"]["conditions"]) == 5 for p in pods)
        assert all("pod-template-hash" in p["metadata"]["labels"] for p in pods if "app" in p["metadata"]["labels"])
    else:
        shapes = {json.dumps(p["spec"]["containers"][0]["resources"]) for p in pods if "app" in p["metadata"]["labels"]}
        assert len(shapes) > len(apps) // 2
    env = TestEnvironment()
    code = main(bench.command(case, ROOT / "tests" / "karpenter" / "cases" / "sched-aws")[1:], env)
    assert code in (0, 1), env.err
    assert len(json.loads(env.out)["nodes"]) == 30


@pytest.mark.parametrize("style", ["annotated", "statefulset", "antiaffinity", "repelling", "requests"])
def test_the_disruption_cases_written_otherwise(tmp_path: Path, style: str) -> None:
    """The plain case's app pods as other generators write them: each its own pod IP annotation, a StatefulSet's
    labels, hostname and subdomain, a preferred or a required anti-affinity naming its app, its own requests; the
    DaemonSets' pods as they were. kexplain reads each as the plain case (the same nodes)."""
    import disruption_bench as bench
    from kexplain.cli.app import main
    from tests.support.cli_helpers import TestEnvironment

    base = bench.SHAPES["standard"]
    small = bench.Shape(base.types, 30, 400, 8, 4, base.app_pods, base.cpu_millis)
    plain = [o for o in json.loads((bench.write_case(tmp_path / "plain", small, 3) / "cluster.json").read_text())[
        "items"] if o["kind"] == "Pod"]
    pods = [o for o in json.loads((bench.write_case(tmp_path / style, small, 3, style) / "cluster.json").read_text())[
        "items"] if o["kind"] == "Pod"]
    apps = [p for p in pods if "app" in p["metadata"]["labels"]]
    assert len(pods) == len(plain) and 0 < len(apps) < len(pods)
    assert [p for p in pods if "app" not in p["metadata"]["labels"]] == \
        [p for p in plain if "app" not in p["metadata"]["labels"]]
    if style == "annotated":
        assert len({p["metadata"]["annotations"]["cni.projectcalico.org/podIP"] for p in apps}) == len(apps)
    elif style == "statefulset":
        assert all(p["spec"]["hostname"] == p["metadata"]["name"] == p["metadata"]["labels"][
            "statefulset.kubernetes.io/pod-name"] and p["spec"]["subdomain"] == p["metadata"]["labels"]["app"]
            for p in apps)
    elif style == "antiaffinity":
        assert all(p["spec"]["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"][0][
            "podAffinityTerm"]["labelSelector"]["matchLabels"] == {"app": p["metadata"]["labels"]["app"]} for p in apps)
    elif style == "repelling":
        assert all(p["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == [
            {"labelSelector": {"matchLabels": {"app": p["metadata"]["labels"]["app"]}},
             "topologyKey": "kubernetes.io/hostname"}] for p in apps)
    else:
        assert len({json.dumps(p["spec"]["containers"][0]["resources"]) for p in apps}) > len(apps) // 2
    env = TestEnvironment()
    code = main(bench.command(tmp_path / style, ROOT / "tests" / "karpenter" / "cases" / "sched-aws")[1:], env)
    assert code in (0, 1), env.err
    assert len(json.loads(env.out)["nodes"]) == 30


def test_the_served_disruption_case_writes_pods_as_an_api_server_serves_them(tmp_path: Path) -> None:
    """`--style served`: the plain shape's pods each with its own uid, creation time, token volume mounted and
    status, in a spaced file; kexplain reads it as it reads the plain case (the same nodes)."""
    import disruption_bench as bench
    from kexplain.cli.app import main
    from tests.support.cli_helpers import TestEnvironment

    base = bench.SHAPES["standard"]
    small = bench.Shape(base.types, 30, 400, 8, 4, base.app_pods, base.cpu_millis)
    case = bench.write_case(tmp_path / "served", small, 3, "served")
    text = (case / "cluster.json").read_text()
    assert text.startswith('{"apiVersion": "v1", "kind": "List"')
    pods = [o for o in json.loads(text)["items"] if o["kind"] == "Pod"]
    assert len(pods) == 400 and len({p["metadata"]["uid"] for p in pods}) == 400
    tokens = {v["name"] for p in pods for v in p["spec"]["volumes"] if v["name"].startswith("kube-api-access-")}
    assert len(tokens) > 300 and all(p["status"]["podIP"] and p["status"]["containerStatuses"] for p in pods)
    env = TestEnvironment()
    code = main(bench.command(case, ROOT / "tests" / "karpenter" / "cases" / "sched-aws")[1:], env)
    assert code in (0, 1), env.err
    assert len(json.loads(env.out)["nodes"]) == 30


@pytest.mark.parametrize("style", ["standard", "small", "gang", "hetero"])
def test_the_volcano_case_is_volcano_jobs_that_kexplain_schedules(style: str, tmp_path: Path) -> None:
    """volcano_bench at a tiny shape: Nodes, Queues, PodGroups as Volcano's job controller writes them
    (minMember the tasks' minAvailable summed, minResources their quota usage) and their pods; some
    bound and running; `kexplain volcano` reads it and answers every PodGroup and pod."""
    import volcano_bench as bench
    from kexplain.cli.app import main
    from tests.support.cli_helpers import TestEnvironment

    jobs = {"small": 20, "gang": 1}.get(style, 8)
    shape = bench.Shape(style, 24, jobs, 60, 4, 3)
    case = bench.write_case(tmp_path, shape)
    items = json.loads((case / "cluster.json").read_text())["items"]
    by_kind: dict[str, list[dict]] = {}
    for o in items:
        by_kind.setdefault(o["kind"], []).append(o)
    assert len(by_kind["Node"]) == 24 and len(by_kind["Queue"]) == 4 and len(by_kind["PodGroup"]) == jobs
    tasks = [p for p in by_kind["Pod"] if p["spec"]["schedulerName"] == "volcano"]
    assert len(tasks) == 60
    for pg in by_kind["PodGroup"]:
        mine = [p for p in tasks if p["metadata"]["annotations"]["scheduling.k8s.io/group-name"] == pg["metadata"]["name"]]
        assert pg["spec"]["minMember"] == sum(pg["spec"]["minTaskMember"].values()) <= len(mine)
        assert pg["spec"]["minResources"]["pods"] == str(pg["spec"]["minMember"])
    if style == "standard":
        assert any(p["spec"].get("nodeName") for p in tasks)
        assert any(pg["status"]["phase"] == "Running" for pg in by_kind["PodGroup"])
    if style == "hetero":
        assert any(n["spec"].get("taints") for n in by_kind["Node"]) and any(p["spec"].get("nodeSelector") for p in tasks)
    again = bench.write_case(tmp_path / "again", shape)
    assert (again / "cluster.json").read_bytes() == (case / "cluster.json").read_bytes()
    env = TestEnvironment()
    code = main(bench.command(case)[1:], env)
    assert code in (0, 1), env.err
    doc = json.loads(env.out)
    assert len(doc["podGroups"]) == jobs and len([p for p in doc["pods"] if p.get("podGroup")]) == 60
    if style == "gang":         # (most of the gang fits, not all: rolled back, nothing bound)
        assert not any(p.get("boundTo") for p in doc["pods"]) and doc["podGroups"][0]["phase"] == "Inqueue"
        assert "tasks in gang unschedulable" in doc["podGroups"][0]["conditions"][0]["message"]
    else:
        assert any(p.get("boundTo") for p in doc["pods"])
