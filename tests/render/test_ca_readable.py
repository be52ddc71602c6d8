"""The Cluster Autoscaler readable everywhere (issue 37, item 4): long group names (GKE MIG URLs,
ASG ids) never cut nor a character per line, at 80 columns, piped and on a wide terminal; the
template named with the facts that decided; an expander tie said as CA's random pick (text and
JSON); the top lines say what CA will do; `kexplain autoscale` never truncates. On the GKE-like
fixtures/autoscaler/gke (a node pool of three MIGs, one per zone, and a tainted one)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kexplain.cli.app import main
from kexplain.render.style import name_lines, wrap
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES

GKE = FIXTURES / "autoscaler" / "gke"
AWS = FIXTURES / "autoscaler"
MIG = "https://www.googleapis.com/compute/v1/projects/shop-prod/zones/{}/instanceGroups/gke-prod-{}-grp"
MIGS = [MIG.format("us-central1-a", "default-pool-1a2b3c4d"), MIG.format("us-central1-b", "default-pool-5e6f7a8b"),
        MIG.format("us-central1-c", "default-pool-9c0d1e2f"), MIG.format("us-central1-a", "highmem-pool-0a1b2c3d")]


def run(*args: str, width: int | None = None, terminal: bool = False) -> tuple[int, str]:
    env = TestEnvironment(width=width, is_terminal=terminal)
    code = main(list(args), env=env)
    assert code in (0, 1), env.err
    return code, env.out


def gke(pod: str, *extra: str, width: int | None = None, terminal: bool = False) -> str:
    return run(str(GKE / pod), "--nodes", str(GKE / "cluster.yaml"), "--node-groups", str(GKE / "nodegroups.yaml"),
               "--kubernetes-version", "1.35", *extra, width=width, terminal=terminal)[1]


def section(out: str) -> str:
    return out[out.index("\nCluster autoscaler\n"):]


def assert_readable(text: str, width: int) -> None:
    """No line longer than the width (but CA's event, printed whole as `kubectl describe` shows
    it, to be searched for); no line of one character (a name folded letter by letter); no
    ellipsis standing for cut text."""
    for line in text.splitlines():
        assert len(line) <= width or re.match(r"(Pod \S+: )?Event: ", line), line
        assert len(line.strip()) != 1 or line.strip() in "*-", repr(line)
    assert "\u2026" not in text and "..." not in text.replace(" ... ", "")


def whole(text: str, name: str) -> bool:
    """`name` is in `text`, whole or broken over lines (where it broke, the next line goes on)."""
    return name in re.sub(r"\n\s*", "", text) or name in text


# -- breaking a name ------------------------------------------------------------------------------

@pytest.mark.parametrize("width", [20, 37, 50, 80])
def test_a_name_breaks_after_a_slash_never_a_character_per_line(width):
    for name in MIGS + ["eks-general-xlarge-d2c5e8a1-3b4f-4c6d-9e0f-1a2b3c4d5e6f", "x" * 130]:
        lines = name_lines(name, width)
        assert "".join(lines) == name
        assert all(len(line) <= width for line in lines)
        assert all(len(line) > 1 for line in lines[:-1])
        if "/" in name and width >= 37:     # each part of a MIG's URL fits: the breaks are after a `/`
            assert all(line.endswith("/") for line in lines[:-1]), lines
    assert name_lines("short-name", 80) == ["short-name"]
    text = wrap(f"Expander least-waste chose {MIGS[0]}: 1 node for 1 pod", 60)
    assert text.splitlines()[0] == "Expander least-waste chose"
    assert all(len(line) <= 60 for line in text.splitlines()) and whole(text, MIGS[0])


# -- the node groups' table -----------------------------------------------------------------------

def test_mig_urls_at_80_columns_piped():
    out = gke("checkout.yaml", "--no-suggestions")
    text = section(out)
    assert_readable(text, 80)
    assert "group; under it: size, verdict, why (on the group's template node)" in text
    for name in MIGS:       # each name on lines of its own, broken after a `/`
        first, rest = name.split("instanceGroups/")
        assert f"\n{first}\ninstanceGroups/{rest}\n" in text
    assert "-" * 80 in text and "\u2500" not in text      # ASCII when piped


def test_a_wide_terminal_puts_the_names_beside_their_verdicts():
    out = gke("checkout.yaml", "--no-suggestions", width=220, terminal=True)
    rows = [line for line in section(out).splitlines() if line.startswith("https://") and "(0.." in line]
    assert len(rows) == 4 and all(row.split()[0] in MIGS for row in rows)
    assert "rejected" in rows[0] and "fits" in rows[1] and "1 -> 2 (0..5)" in rows[1]


def test_asg_names_at_80_columns(tmp_path: Path):
    """EKS's ASG ids (fifty characters): whole, each on its line, the rest under it."""
    asg = {g: f"eks-{g}-d2c5e8a1-3b4f-4c6d-9e0f-1a2b3c4d5e6f" for g in ("general", "gpu", "arm", "compute")}
    text = (AWS / "nodegroups.yaml").read_text()
    for g, name in asg.items():
        text = text.replace(f"- name: {g}\n", f"- name: {name}\n")
    (tmp_path / "groups.yaml").write_text(text)
    _, out = run(str(AWS / "pod.yaml"), "--nodes", str(AWS / "cluster.yaml"), "--node-groups",
                 str(tmp_path / "groups.yaml"), "--kubernetes-version", "1.35", "--no-suggestions")
    assert_readable(section(out), 80)
    lines = section(out).splitlines()
    for name in asg.values():
        assert name in lines
    compute = lines.index(asg["compute"])
    assert lines[compute + 1].split()[:4] == ["0", "->", "1", "(0..4)"] and "fits" in lines[compute + 1]


def test_the_template_named_with_the_facts_that_decided():
    text = " ".join(section(gke("checkout.yaml", "--no-suggestions")).split())
    assert ("fits template: member node gke-prod-default-pool-5e6f7a8b-q9w3 (us-central1-b, e2-standard-4) "
            "nodeSelector topology.kubernetes.io/zone=us-central1-b: matches cpu: the pod requests 2; the node has "
            "3920m allocatable") in text
    assert ("rejected template: the template in --node-groups (us-central1-c, e2-standard-4) NodeAffinity*: "
            "node(s) didn't match Pod's node affinity/selector nodeSelector topology.kubernetes.io/zone=us-central1-b: "
            "the node has topology.kubernetes.io/zone=us-central1-c") in text
    doc = json.loads(gke("checkout.yaml", "--no-suggestions", "-o", "json"))["autoscaler"]
    assert [(g["template"]["source"], g["template"].get("member")) for g in doc["nodeGroups"]] == [
        ("node", "gke-prod-default-pool-1a2b3c4d-x7k2"), ("node", "gke-prod-default-pool-5e6f7a8b-q9w3"),
        ("template", None), ("node", "gke-prod-highmem-pool-0a1b2c3d-m4n5")]
    one = gke("checkout.yaml", "--node-group", MIGS[1])
    assert "template: member node gke-prod-default-pool-5e6f7a8b-q9w3 (us-central1-b," in " ".join(one.split())
    assert "built from member node gke-prod-default-pool-5e6f7a8b-q9w3" in one
    assert one.startswith(f"Node group\n{MIGS[1].split('instanceGroups/')[0]}\ninstanceGroups/")
    assert_readable(one, 80)


# -- an expander tie ------------------------------------------------------------------------------

def test_a_least_waste_tie_is_said_as_cas_random_pick():
    out = gke("web.yaml", "--no-suggestions")
    text = " ".join(section(out).split())
    assert "Expander least-waste leaves 3 options tied (waste score 1.3721 each): CA picks one of them at random." \
        in text
    for name in MIGS[:3]:
        assert whole(section(out), f"{name}: 1 node for 1 pod")
    assert "kexplain follows the first:" in text and "CA may scale up another of them instead." in text
    assert " chose " not in text
    assert out.splitlines()[1:3] == ["Cluster autoscaler: scales up one of 3 tied node groups for it, picked at random",
                                     "(the expander's tie below)."]
    doc = json.loads(gke("web.yaml", "--no-suggestions", "-o", "json"))["autoscaler"]
    pick = doc["expansion"]["randomPick"]
    assert pick["expander"] == "least-waste" and pick["among"] == MIGS[:3] and pick["followed"] == MIGS[0]
    assert len(set(pick["wasteScores"].values())) == 1 and doc["expansion"]["bestOption"]["nodeGroup"] == MIGS[0]


@pytest.mark.parametrize("expander", ["most-pods", "least-nodes", "random"])
def test_the_other_expanders_ties(tmp_path: Path, expander: str):
    config = tmp_path / "ca.yaml"
    config.write_text(f"expander: {expander}\n")
    out = gke("web.yaml", "--no-suggestions", "--autoscaler-config", str(config))
    text = " ".join(section(out).split())
    said = ("Expander random: CA draws one of 3 options at random." if expander == "random" else
            f"Expander {expander} leaves 3 options tied: CA picks one of them at random.")
    assert said in text, text
    pick = json.loads(gke("web.yaml", "--no-suggestions", "--autoscaler-config", str(config), "-o", "json"))[
        "autoscaler"]["expansion"]["randomPick"]
    assert pick["expander"] == expander and "wasteScores" not in pick


def test_no_tie_no_random_pick():
    out = gke("checkout.yaml", "--no-suggestions")
    assert "at random" not in out and "Expander least-waste chose" in " ".join(out.split())
    doc = json.loads(gke("checkout.yaml", "--no-suggestions", "-o", "json"))["autoscaler"]
    assert "randomPick" not in doc["expansion"]


# -- the top lines --------------------------------------------------------------------------------

def test_the_top_says_what_ca_will_do_before_preemption():
    out = run(str(AWS / "pod.yaml"), "--nodes", str(AWS / "cluster.yaml"), "--node-groups",
              str(AWS / "nodegroups.yaml"), "--kubernetes-version", "1.35", "--no-suggestions")[1]
    assert out.splitlines()[:2] == ["Pod default/worker (profile default-scheduler): Unschedulable",
                                    "Cluster autoscaler: scales up compute 0 -> 1 for it."]
    assert out.index("Cluster autoscaler: scales up") < out.index("Preemption")
    report = gke("report.yaml", "--no-suggestions")
    assert " ".join(report.split("\nKubernetes")[0].split("\n", 1)[1].split()) == (
        "Cluster autoscaler: adds no node for it: no node group can take it (3 Insufficient cpu, 1 node(s) had "
        "untolerated taint(s)).")
    out = run(str(AWS / "pod.yaml"), "--nodes", str(AWS / "cluster.yaml"), "--kubernetes-version", "1.35")[1]
    assert "Cluster autoscaler" not in out      # no node groups, nothing said of CA


def test_the_top_line_when_the_loop_itself_stops(tmp_path: Path):
    """At --max-nodes-total no group is tried: the reason is the loop's, not the groups'."""
    (tmp_path / "ca.yaml").write_text("maxNodesTotal: 2\n")
    out = run(str(AWS / "pod.yaml"), "--nodes", str(AWS / "cluster.yaml"), "--node-groups",
              str(AWS / "nodegroups.yaml"), "--kubernetes-version", "1.35", "--no-suggestions", "--autoscaler-config",
              str(tmp_path / "ca.yaml"))[1]
    assert out.splitlines()[1] == "Cluster autoscaler: adds no node for it (max total nodes in cluster reached)."


def test_the_request_more_than_the_whole_allocatable_reads_the_right_way():
    text = " ".join(section(gke("report.yaml", "--no-suggestions")).split())
    assert ("cpu: the pod requests 6, more than the node's whole allocatable (3920m): evicting pods cannot help "
            "(0 requested by its pods, 3920m free)") in text
    assert "free - more than" not in text


# -- kexplain autoscale ---------------------------------------------------------------------------

def autoscale(tmp_path: Path, *pods: str, width: int | None = None, terminal: bool = False) -> str:
    both = tmp_path / "pods.yaml"
    both.write_text("\n---\n".join((GKE / p).read_text() for p in pods))
    return run("autoscale", str(both), "--nodes", str(GKE / "cluster.yaml"), "--node-groups",
               str(GKE / "nodegroups.yaml"), width=width, terminal=terminal)[1]


def test_autoscale_never_truncates(tmp_path: Path):
    out = autoscale(tmp_path, "checkout.yaml", "web.yaml", "report.yaml")
    assert_readable(out, 80)
    assert "\u2501" not in out and "\u2502" not in out         # ASCII when piped
    lines = out.splitlines()
    for pod, outcome in (("shop/checkout", "depends"), ("shop/web", "TriggeredScaleUp"),     # CA's pick decides
                         ("shop/report", "RemainsUnschedulableNoEvent")):                  # checkout (test_ca_picks)
        assert any(line.split()[:2] == [pod, outcome] for line in lines if line.split()), pod
    for name in MIGS:
        first, rest = name.split("instanceGroups/")
        assert f"\n{first}\ninstanceGroups/{rest}\n" in out
    assert "template: member node gke-prod-default-pool-5e6f7a8b-q9w3" in out
    assert "Expander least-waste leaves 3 options tied" in out


def test_autoscale_long_pod_names_go_on_lines_of_their_own(tmp_path: Path):
    long = "checkout-7f9c8d6b5-x2k4m-with-a-name-longer-than-usual"
    pod = (GKE / "checkout.yaml").read_text().replace("name: checkout,", f"name: {long},")
    (tmp_path / "long.yaml").write_text(pod)
    out = run("autoscale", str(tmp_path / "long.yaml"), "--nodes", str(GKE / "cluster.yaml"), "--node-groups",
              str(GKE / "nodegroups.yaml"))[1]
    assert_readable(out, 80)
    assert f"\nshop/{long}\n  TriggeredScaleUp" in out


# -- the version followed, the provider, and notes that wrap at break points ----------------------

@pytest.mark.parametrize(("extra", "minor"), [(("--kubernetes-version", "1.33"), "1.33"), ((), "1.36")])
def test_autoscale_names_the_version_it_followed(extra: tuple[str, ...], minor: str):
    args = [str(AWS / "pod.yaml"), "--nodes", str(AWS / "cluster.yaml"), "--node-groups", str(AWS / "nodegroups.yaml")]
    _, out = run("autoscale", *args, *extra)
    assert re.search(rf"the scheduler plugins inside it follow\s+Kubernetes {minor}\s+\(kube-scheduler v{minor}\.",
                     out), out
    _, doc = run("autoscale", *args, *extra, "-o", "json")
    doc = json.loads(doc)
    # `autoscaler.kubernetes` is the build CA vendors (../shared/autoscaler/README.md): it stays
    assert doc["autoscaler"]["kubernetes"] == "k8s.io/kubernetes v1.36.2"
    assert doc["kubernetesFollowed"]["minor"] == minor


def test_autoscale_follows_the_version_a_snapshot_recorded(tmp_path: Path):
    snapshot = tmp_path / "snap.yaml"
    snapshot.write_text((AWS / "cluster.yaml").read_text()
                        + "\n---\napiVersion: kexplain/v1\nkind: ServerVersion\ngitVersion: v1.35.4\n")
    _, out = run("autoscale", str(AWS / "pod.yaml"), "--nodes", str(snapshot), "--node-groups",
                 str(AWS / "nodegroups.yaml"), "-o", "json")
    assert json.loads(out)["kubernetesFollowed"] == {"minor": "1.35", "kubeScheduler": "v1.35.4", "featureGates": {}}


def test_notes_break_a_mig_url_after_a_slash_never_inside_a_word():
    from kexplain.render.cluster_autoscaler import found_blocks
    note = f"node group {MIGS[0]}: no node in its zone us-central1-a; template from node node-b1"
    doc = {"autoscaler": {"source": "k8s.io/autoscaler/cluster-autoscaler (openshift/kubernetes-autoscaler 70920d3c6f5f)"},
           "cloudProvider": {"name": "gce", "gpuLabel": "cloud.google.com/gke-accelerator",
                             "from": "the node groups' ids are MIG URLs", "notes": []},
           "nodeGroupsFound": {"sources": ["CA's status ConfigMap kube-system/cluster-autoscaler-status"],
                               "notes": [note]}}
    for width in (80, 50):
        text = "\n".join(b.renderable.plain for b in found_blocks(doc, width))
        assert_readable(text, width)
        assert MIGS[0] in re.sub(r"/\n", "/", text), text         # broken after a `/` only
        assert "Cloud provider: gce (GPU label cloud.google.com/gke-accelerator)" in text.replace("\n", " ")


@pytest.mark.parametrize("simulated", [True, False])
def test_a_skipped_groups_row_agrees_with_cas_event(tmp_path: Path, simulated: bool):
    """--scaleup-simulation-for-skipped-node-groups-enabled: CA checks the skipped group's template
    and its event counts the rejection (general: Insufficient cpu), not the skip; both tables say so."""
    pod = tmp_path / "big.yaml"
    pod.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: big, namespace: default}\nspec:\n"
                   "  nodeSelector: {kubernetes.io/arch: amd64}\n"
                   "  containers: [{name: c, image: x, resources: {requests: {cpu: '9', memory: 1Gi}}}]\n")
    config = tmp_path / "ca.yaml"
    config.write_text(f"flags: {{scaleup-simulation-for-skipped-node-groups-enabled: '{str(simulated).lower()}'}}\n")
    args = [str(pod), "--nodes", str(AWS / "cluster.yaml"), "--node-groups", str(AWS / "nodegroups.yaml"),
            "--autoscaler-config", str(config)]
    _, out = run("autoscale", *args)
    text = " ".join(out.split())
    event = "2 Insufficient cpu" if simulated else "1 Insufficient cpu"
    assert f"pod didn't trigger scale-up: {event}" in text
    general = text[text.index("general 2->2"):text.index("gpu 0->0")]
    if simulated:
        assert "skipped, then checked on its template: Insufficient cpu (1 pod)" in general
        assert "skipped: max node group size reached (1 pod)" not in general
    else:
        assert "skipped: max node group size reached (1 pod)" in general
    _, out = run(*args)
    rows = " ".join(section(out).split())
    general = rows[rows.index("general 2 (1..2) skipped"):rows.index("gpu 0 (0..3)")]
    assert ("NodeResourcesFit*: Insufficient cpu" in general) == simulated
    assert ("then CA checked its template (its simulation on skipped groups): Insufficient cpu" in general) == simulated
