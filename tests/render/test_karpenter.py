"""`kexplain karpenter` as text: the explanation per pod and NodePool, the AWS data's source and
date, tables that fit 80 columns piped (and narrower), and `--nodepool NAME`."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from kexplain.cli.app import main
from kexplain.cli.env import Environment
from kexplain.render.karpenter import column_widths, print_pass
from tests.karpenter.test_explain import DAEMONSET
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import TESTS
from tests.support.render_helpers import squeeze

CASES = TESTS / "karpenter" / "cases"
AWS = CASES / "sched-aws"
WORKLOAD = CASES / "sched-workload-label"


def run(*args: str, width: int | None = None) -> tuple[int, str, str]:
    env = TestEnvironment(width=width)
    code = main(["karpenter", *args], env)
    return code, env.out, env.err


def workload(*extra: str, width: int | None = None) -> tuple[int, str, str]:
    return run(str(WORKLOAD / "pods.yaml"), "--nodes", str(WORKLOAD / "nodepools.yaml"), "--aws-data", str(AWS),
               *extra, width=width)


def block(text: str, start: str) -> list[str]:
    """The squeezed lines from the one starting with `start` to the next blank line."""
    lines = squeeze(text)
    i = next(k for k, line in enumerate(lines) if line.startswith(start))
    end = next((k for k in range(i + 1, len(lines)) if not lines[k]), len(lines))
    return lines[i:end]


def joined(text: str, start: str) -> str:
    return " ".join(block(text, start))


def test_every_nodepool_verdict_of_a_failed_pod():
    code, out, _ = workload()
    assert code == 1
    why = joined(out, "Why not placed: default/batch-job (Failed)")
    # Both NodePools, in Karpenter's order, each with everything in the way (Karpenter names one each).
    assert why.index("NodePool gpu (weight 10): 2 things in the way") < why.index("NodePool default (weight 0)")
    assert "- taint nvidia.com/gpu=true:NoSchedule is not tolerated (spec.tolerations)" in why
    assert ('- spec.nodeSelector.workload (workload In [batch]): label "workload" does not have known values '
            "the NodePool must declare label workload: a template label workload: batch "
            "(spec.template.metadata.labels), or a requirement {key: workload, operator: In, values: [batch]} "
            "(spec.template.spec.requirements), or a requirement {key: workload, operator: Exists} "
            "(spec.template.spec.requirements)") in why
    assert "NodeClaims of this pass: 1 - gpu-00001 (NodePool gpu): did not tolerate taint" in why


def test_gpu_pod_on_a_general_pool_says_no_type_has_a_gpu():
    _, out, _ = workload()
    why = joined(out, "Why not placed: default/trainer (Failed)")
    assert ("instance types: 17 offered, 6 left by the NodePool's requirements, 6 by the pod's, 6 with an "
            "available offering, 0 with enough resources") in why
    assert "no instance type left has any nvidia.com/gpu" in why
    assert "2 types would have enough of everything else: m5.metal, m6idn.32xlarge" in why


def test_source_of_the_aws_data_and_the_catalog_date():
    _, out, _ = workload()
    assert f"Instance types and prices from AWS data {AWS}, region us-west-2" in " ".join(squeeze(out))
    doc = {"karpenter": "v1.13.0", "summary": {"pods": {}, "newNodeClaims": 0}, "pods": [], "nodePools": [],
           "explained": {"awsData": {"source": "kexplain's AWS instance-type catalog", "region": "us-east-1",
                                     "taken": "2026-05-29"}, "nodePools": [], "pods": []}}
    text = _printed(doc)
    assert ("Instance types and prices from kexplain's AWS instance-type catalog, region us-east-1 (taken "
            "2026-05-29)") in " ".join(squeeze(text))


def _printed(doc: dict, width: int = 80, node_pool: str | None = None) -> str:
    out = io.StringIO()
    print_pass(doc, Environment(stdout=out, is_terminal=False, width=width).console(), node_pool=node_pool)
    return out.getvalue()


def test_shortfall_after_daemonset_overhead_is_worked_out(tmp_path):
    pools = (WORKLOAD / "nodepools.yaml").read_text().replace('values: ["m", "t"]', 'values: ["m"]')
    (tmp_path / "pools.yaml").write_text(pools)
    (tmp_path / "cluster.yaml").write_text(DAEMONSET)
    (tmp_path / "pods.yaml").write_text("""apiVersion: v1
kind: Pod
metadata: {name: big}
spec:
  nodeSelector: {node.kubernetes.io/instance-type: m5.xlarge}
  containers: [{name: c, image: busybox, resources: {requests: {cpu: "1", memory: 13Gi}}}]
""")
    code, out, _ = run(str(tmp_path / "pods.yaml"), "--nodes", str(tmp_path / "cluster.yaml"), "--nodes",
                       str(tmp_path / "pools.yaml"), "--aws-data", str(AWS))
    why = joined(out, "Why not placed: default/big (Failed)")
    assert ("closest: m5.xlarge: memory 13.8Gi allocatable (16Gi - 1.2Gi VM overhead - 893Mi kube-reserved - "
            "100Mi eviction threshold), pod + DaemonSets need 14Gi (13Gi + 1Gi): 174Mi short") in why


# -- layout ------------------------------------------------------------------------------------------
LONG = "payments-reconciliation-batch-worker-with-a-very-long-generated-name-0"


def _long_inputs(tmp_path: Path) -> tuple[str, ...]:
    pods = (WORKLOAD / "pods.yaml").read_text().replace("name: batch-job", f"name: {LONG}")
    (tmp_path / "pods.yaml").write_text(pods)
    return (str(tmp_path / "pods.yaml"), "--nodes", str(WORKLOAD / "nodepools.yaml"), "--aws-data", str(AWS))


def _fragments_ok(text: str, width: int) -> None:
    for line in text.splitlines():
        assert len(line) <= width, line
        stripped = line.strip()
        assert len(stripped) != 1 or not stripped.isalnum(), f"a one-character line: {line!r}"


def test_piped_output_fits_80_columns_and_long_names_wrap_whole(tmp_path):
    code, out, _ = run(*_long_inputs(tmp_path))
    _fragments_ok(out, 80)
    pods = block(out, "Pending pods")
    # The long name whole on a line of its own, its result and place under it (as CA's table).
    assert pods[1] == "pod; under it: result, where"
    assert f"default/{LONG}" in out.splitlines()
    assert "box" not in out and "━" not in out and "│" not in out      # plain text when piped


def test_narrow_output_uses_labelled_lines_never_one_character_columns(tmp_path):
    code, out, _ = run(*_long_inputs(tmp_path), width=40)
    _fragments_ok(out, 40)
    assert "nodeclaim: gpu-00001" in out.splitlines()


def test_column_widths():
    # Enough room: natural widths.
    assert column_widths(80, [("a", ["xx"]), ("b", ["yyy"])]) == [2, 3]
    # Too wide: the widest column gives way, never below its longest word.
    widths = column_widths(40, [("pod", ["default/a-pod-name"]), ("result", ["Failed (no NodePool can take it)"])])
    assert widths is not None and sum(widths) + 3 <= 40 and widths[0] == len("default/a-pod-name")
    # Not even the longest words fit: no table.
    assert column_widths(20, [("pod", ["default/a-long-pod-name"]), ("x", ["another-long-word-here"])]) is None


# -- --nodepool ----------------------------------------------------------------------------------------
def test_nodepool_shows_its_verdict_for_every_pod():
    code, out, _ = workload("--nodepool", "gpu")
    assert code == 1
    text = " ".join(squeeze(out))
    assert "NodePool gpu (weight 10) tried by the scheduler: 17 instance types offered, 2 left by its requirements" \
        in text
    assert "Pod default/batch-job: Failed NodePool gpu (weight 10): 2 things in the way" in text
    assert ("Pod default/trainer-tolerating: NewNodeClaim, NodeClaim gpu-00001 (NodePool gpu) placed on this "
            "NodePool NodePool gpu (weight 10): nothing in the way now") in text
    # The full verdict: what the NodePool offers besides what is in the way.
    assert "offerings of the 2 types that meet the requirements and fit: zones test-zone-1a, test-zone-1b" in text
    assert "NodePool default" not in text


def test_unknown_nodepool_is_refused_with_the_closest_names():
    code, out, err = workload("--nodepool", "gpus")
    assert code == 2 and out == ""
    assert err.strip() == ("error: --nodepool gpus: no NodePool of that name among the 2 NodePools of the inputs; "
                           "the closest: gpu")


def test_nodepool_json_explains_every_pod():
    import json
    env = TestEnvironment()
    main(["karpenter", str(WORKLOAD / "pods.yaml"), "--nodes", str(WORKLOAD / "nodepools.yaml"), "--aws-data",
          str(AWS), "--nodepool", "default", "-o", "json"], env)
    doc = json.loads(env.out)
    assert [p["pod"] for p in doc["explained"]["pods"]] == [
        "default/batch-job", "default/trainer", "default/trainer-tolerating"]


def test_equal_prices_are_said_to_be_in_no_fixed_order():
    doc = {"karpenter": "v1.13.0", "summary": {"pods": {"NewNodeClaim": 1}, "newNodeClaims": 1}, "pods": [],
           "nodePools": [], "nodeClaims": [{"name": "default-00001", "nodePool": "default", "pods": ["default/a"],
                                            "instanceTypes": ["m5.large", "m6i.large"], "prices": ["0.096", "0.096"]}]}
    text = " ".join(squeeze(_printed(doc)))
    assert "default-00001: some instance types cost the same" in text
    doc["nodeClaims"][0]["prices"] = ["0.096", "0.1"]
    assert "cost the same" not in _printed(doc)


def _text(tmp_path: Path, pods: str, pools: str, params: str = "", *extra: str) -> str:
    from tests.karpenter.test_explain import NODE_CLASS
    (tmp_path / "pods.yaml").write_text(pods)
    (tmp_path / "pools.yaml").write_text(pools + NODE_CLASS)
    args = [str(tmp_path / "pods.yaml"), "--nodes", str(tmp_path / "pools.yaml"), "--aws-data", str(AWS)]
    if params:
        (tmp_path / "params.yaml").write_text(params)
        args += ["--karpenter-config", str(tmp_path / "params.yaml")]
    return " ".join(squeeze(run(*args, *extra)[1]))


def test_limits_and_unavailable_zones_in_words(tmp_path):
    from tests.karpenter.test_explain import node_pool, pod
    pools = node_pool("default", "{key: node.kubernetes.io/instance-type, operator: In, values: [m5.xlarge]}",
                      extra="  limits: {cpu: '6'}\n")
    text = _text(tmp_path, pod("a", "cpu: '3'") + pod("b", "cpu: '3'"), pools)
    assert ("- limits: 1 instance type that would take the pod exceed what is left under the NodePool's limits "
            "(used/limit: cpu 4/6) the smallest, m5.xlarge: cpu 4 > 2 left") in text
    nodepools = " ".join(text.split("NodePools nodepool weight instance types state")[1].split())
    assert nodepools.startswith("-") and "default 0 17 offered, 1 left by its ready; limits (used/limit)" in nodepools
    pools = node_pool("default", "{key: node.kubernetes.io/instance-type, operator: In, values: [m6idn.32xlarge]}")
    text = _text(tmp_path, pod("c", spec="  nodeSelector: {topology.kubernetes.io/zone: test-zone-1c}\n"), pools,
                 "zones: [test-zone-1a, test-zone-1b]\n")
    assert ("- offerings of the NodePool's 1 type: none available where the requirements allow excluded by the "
            "requirements: zones test-zone-1a, test-zone-1a-local, test-zone-1b test-zone-1c on-demand/spot "
            "unavailable: the EC2NodeClass has no subnet in the zone (m6idn.32xlarge)") in text


def _pods_doc(names: list[str]) -> dict:
    return {"karpenter": "v1.13.0", "summary": {"pods": {"NewNodeClaim": len(names)}, "newNodeClaims": 1},
            "pods": [{"pod": n, "result": "NewNodeClaim", "nodeClaim": "general-00001", "nodePool": "general"}
                     for n in names], "nodePools": [], "nodeClaims": [], "events": []}


@pytest.mark.parametrize("names", [
    ["default/web-784f6f7c46-mmv2m", "default/api-0"],
    ["monitoring-production/prometheus-kube-prometheus-operator-webhook-69b9mrqhh",
     "default/batch-job-with-a-rather-long-name-for-the-nightly-report"],
    ["team-a/" + "x" * 90],
])
def test_pending_pods_keep_their_names_whole_at_80_columns(names: list[str]) -> None:
    """As the Cluster Autoscaler's pending pods table (`names_table`): a name is cut nowhere but
    after its `/` when it is longer than the line."""
    out = io.StringIO()
    print_pass(_pods_doc(names), Environment(stdout=out, is_terminal=False).console())
    lines = [line.strip() for line in out.getvalue().splitlines()]
    assert max(len(line) for line in out.getvalue().splitlines()) <= 80
    for name in names:
        namespace, rest = name.split("/", 1)
        assert any(name in line for line in lines) or (
            f"{namespace}/" in lines and any(line.startswith(rest[:60]) for line in lines)), name
