"""The --html page's "Cluster autoscaler" section as written without script: the groups' table,
CA's first plugin marked, each group's full verdict in a <details> the table links to."""
from __future__ import annotations

import re

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import DATA, FIXTURES
from kexplain.features import KubeVersion
from tests.support.copies import copy_names

CASE = FIXTURES / "autoscaler"


def page(tmp_path, pod: str, case=CASE) -> str:
    out = tmp_path / "page.html"
    code = main([str(case / pod), "--nodes", str(case / "cluster.yaml"), "--node-groups", str(case / "nodegroups.yaml"),
                 "--kubernetes-version", "1.35", "--html", str(out)], env=TestEnvironment())
    assert code == 1
    return out.read_text()


def test_the_section(tmp_path):
    html = page(tmp_path, "pod.yaml")
    start = html.index('<h3 id="t0-ca">Cluster autoscaler</h3>')
    section = html[start:html.index("What would make it schedule", start)]
    assert "Event: Normal TriggeredScaleUp: pod triggered scale-up: [{compute 0-&gt;1 (max: 4)}]" in section
    groups = re.findall(r'<a href="#(t0/group/[a-z]+)" class="group" data-group="\1">', section)
    assert groups == ["t0/group/general", "t0/group/gpu", "t0/group/arm", "t0/group/compute"]
    assert all(f'<details class="ca-group" id="{g}">' in section for g in groups)
    assert "<b>NodeAffinity*: </b>" in section and "<b>NodeResourcesFit: </b>" in section
    assert '<p class="ca-choice">Expander least-waste chose compute: 1 node for 1 pod' in section
    assert "ca-found" not in section            # the groups were given, not found


def test_no_section_without_node_groups(tmp_path):
    out = tmp_path / "page.html"
    main([str(CASE / "pod.yaml"), "--nodes", str(CASE / "cluster.yaml"), "--html", str(out)], env=TestEnvironment())
    html = out.read_text()
    assert 'id="t0-ca"' not in html and 'class="ca-groups"' not in html
    assert '<h3 id="t0-ca">' in page(tmp_path, "pod.yaml")


DEPLOYMENT = (DATA / "autoscaler" / "worker-deployment.yaml").read_text()   # 3 replicas on amd64 nodes


def test_replicas_the_page_has_the_loop_over_the_copies_that_did_not_fit(tmp_path):
    workload = tmp_path / "worker.yaml"
    workload.write_text(DEPLOYMENT)
    out = tmp_path / "page.html"
    main([str(workload), "--nodes", str(CASE / "cluster.yaml"), "--node-groups", str(CASE / "nodegroups.yaml"),
          "--kubernetes-version", "1.35", "--html", str(out)], env=TestEnvironment())
    html = out.read_text()
    section = html[html.index('<h3 id="tlist-ca">Cluster autoscaler</h3>'):]
    assert "Event: Normal TriggeredScaleUp: pod triggered scale-up: [{compute 0-&gt;1 (max: 4)}]" in section
    assert '<details class="ca-group" id="tlist/group/compute">' in section


def test_several_pods_each_its_answer_on_the_page(tmp_path):
    """One loop over every pod left pending: the list's section has a row per object's answer,
    and each pending pod's explanation its own answer."""
    both = tmp_path / "both.yaml"
    both.write_text((CASE / "pod-gpu.yaml").read_text() + "\n---\n" + DEPLOYMENT.replace("cpu: 1500m", 'cpu: "3"'))
    out = tmp_path / "page.html"
    main([str(both), "--nodes", str(CASE / "cluster.yaml"), "--node-groups", str(CASE / "nodegroups.yaml"),
          "--kubernetes-version", "1.35", "--html", str(out)], env=TestEnvironment())
    html = out.read_text()
    section = html[html.index('<h3 id="tlist-ca">Cluster autoscaler</h3>'):]
    pods = section[section.index('class="ca-pods"'):section.index("</table>")]
    assert "default/trainer" in pods and "<b>RemainsUnschedulableNoEvent</b>" in pods
    first, _, last = copy_names(DEPLOYMENT.replace("cpu: 1500m", 'cpu: "3"'), 3, kube=KubeVersion("1.35"))
    assert f"default/{first} ... {last} (3 pods of Deployment default/worker)" in pods
    assert "Node groups, for pod default/trainer" in section
    answers = re.findall(r'<p class="ca-answer" id="(t\d+)-ca"><div><code>([^<]*)</code>', html)
    assert ("Cluster autoscaler: RemainsUnschedulableNoEvent: no event: no group can take it (the loop scaled up for "
            "other pods)") in [a for _, a in answers]
    assert any(a.startswith("Cluster autoscaler: TriggeredScaleUp: pod triggered scale-up: [{compute 0-&gt;2")
               for _, a in answers)


GKE = CASE / "gke"
MIG_C = ("https://www.googleapis.com/compute/v1/projects/shop-prod/zones/us-central1-c/instanceGroups/"
         "gke-prod-default-pool-9c0d1e2f-grp")


def gke_page(tmp_path, pod: str) -> str:
    return page(tmp_path, pod, GKE)


def test_a_groups_address_its_template_and_long_names_that_break(tmp_path):
    """A group's full verdict at #t0/group/<name> (a MIG's URL), the name breakable after each
    `/`; the table names each group's template, the group's view shows the template node."""
    html = gke_page(tmp_path, "checkout.yaml")
    anchor = f'<a href="#t0/group/{MIG_C}" class="group" data-group="t0/group/{MIG_C}">'
    assert anchor + "https://<wbr>www.googleapis.com/<wbr>compute/<wbr>" in html
    start = html.index(f'<details class="ca-group" id="t0/group/{MIG_C}">')
    details = html[start:html.index("</details>", start)]
    assert "template: the template in --node-groups (us-central1-c, e2-standard-4)" in details
    assert "<h5>The template node</h5>" in details and "<dt>built from</dt><dd>the template in --node-groups</dd>" \
        in details and "topology.kubernetes.io/zone=us-central1-c" in details
    member = html[html.index('<details class="ca-group" id="t0/group/https://'):]
    assert "<dt>built from</dt><dd>member node gke-prod-default-pool-1a2b3c4d-x7k2</dd>" in member
    table = html[html.index('class="ca-groups"'):]
    table = table[:table.index("</table>")]
    assert ('<div class="ca-template"><b>template: </b>member node gke-prod-default-pool-5e6f7a8b-q9w3 '
            "(us-central1-b, e2-standard-4)") in table


def test_the_verdict_says_what_ca_will_do_and_a_tie_is_a_random_pick(tmp_path):
    html = gke_page(tmp_path, "web.yaml")
    assert ('<p class="verdict ca-does"><a href="#t0-ca">Cluster autoscaler</a>: scales up one of 3 tied node groups '
            "for it, picked at random (the expander&#x27;s tie below).</p>") in html
    assert html.index("ca-does") < html.index('id="t0-preemption"')
    tie = html[html.index('<div class="ca-tie">'):]
    tie = tie[:tie.index("</div>")]
    assert ("<p>Expander least-waste leaves 3 options tied (waste score 1.3721 each): CA picks one of them at random."
            "</p>") in tie
    assert tie.count("<li>") == 3 and "gke-prod-default-pool-9c0d1e2f-grp: 1 node for 1 pod</li>" in tie
    assert "kexplain follows the first: " in html and " chose " not in html[html.index('id="t0-ca"'):]
    html = page(tmp_path, "pod.yaml")
    assert ('<p class="verdict ca-does"><a href="#t0-ca">Cluster autoscaler</a>: scales up compute 0 -&gt; 1 for it.'
            "</p>") in html
