"""`kexplain volcano --html FILE`: the session's page, read from the document only. Per PodGroup its
phases, enqueue's verdict with the plugin that refuses, the gang's verdict; per task the predicates on
every node it was tried on (a row per node when few, nodes grouped by identical reasons when many), the
scores with the node chosen; the queues; keys the page does not know yet (a queue's further figures, the
fixes) shown as the document holds them. What is printed does not change because a page was asked for."""
from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import yaml

from kexplain.cli.app import main
from kexplain.render.html.page import render_page
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES

VOLCANO = FIXTURES / "volcano"


def node(name: str, cpu: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
            "status": {"capacity": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}}


def pod(name: str, cpu: str, at: int, selector: dict[str, str] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"schedulerName": "volcano",
                            "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu}}}]}
    if selector:
        spec["nodeSelector"] = selector
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}",
                         "creationTimestamp": f"2026-01-01T00:00:{at:02d}Z",
                         "annotations": {"scheduling.k8s.io/group-name": "train"}}, "spec": spec}


GROUP = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
         "metadata": {"name": "train", "namespace": "default", "creationTimestamp": "2026-01-01T00:00:00Z"},
         "spec": {"minMember": 2}}


def many_nodes() -> list[dict[str, Any]]:
    """16 nodes: 14 of 2 cpu (too small), one of 8 cpu without the pods' label, one of 4 cpu with it. Two
    tasks of 3 cpu: the first takes the labelled node, the second fits none (the gang waits)."""
    return [*(node(f"small-{i:02d}", "2") for i in range(14)), node("unlabelled", "8"),
            node("big", "4", {"pool": "x"}), GROUP,
            pod("train-0", "3", 1, {"pool": "x"}), pod("train-1", "3", 2, {"pool": "x"})]


def write(tmp_path: Path, objects: list[dict[str, Any]]) -> str:
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(objects))
    return str(path)


def run(*args: str) -> tuple[int, str, str]:
    env = TestEnvironment()
    code = main(list(args), env)
    return code, env.out, env.err


def page_of(tmp_path: Path, *args: str) -> tuple[str, str]:
    """The page's words and its markup."""
    out = tmp_path / "page.html"
    code, _, err = run("volcano", *args, "--html", str(out))
    assert code in (0, 1), err
    markup = out.read_text()
    return words(markup), markup


def words(markup: str) -> str:
    """The page's text: markup left out, entities read, white space one space."""
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", markup)))


def test_what_is_printed_does_not_change(tmp_path: Path) -> None:
    cluster = write(tmp_path, many_nodes())
    for output in ("table", "json"):
        plain = run("volcano", "--nodes", cluster, "-o", output)
        with_page = run("volcano", "--nodes", cluster, "-o", output, "--html", str(tmp_path / "p.html"))
        assert with_page == plain and plain[0] == 1
    assert "tasks" not in json.loads(plain[1])


def test_many_nodes_are_grouped_by_their_reasons_each_group_expandable(tmp_path: Path) -> None:
    text, markup = page_of(tmp_path, "--nodes", write(tmp_path, many_nodes()))
    assert "The predicates on 16 nodes, grouped by identical reasons" in text
    # 15 nodes short of cpu (the labelled one too, once train-0 took 3 of its 4): one row, expandable
    row = re.search(r"<tr><td>Insufficient cpu</td><td><details class=\"nodes\"><summary>15 node\(s\): "
                    r"small-00, small-01, small-02 and 12 more</summary><p>([^<]*)</p>", markup)
    assert row is not None
    assert row.group(1).split(", ") == [f"small-{i:02d}" for i in range(14)] + ["big"]
    assert "<td>node(s) didn&#x27;t match Pod&#x27;s node affinity/selector</td><td>1 node(s): unlabelled</td>" \
        in markup
    # the gang's verdict and each task's own answer, as the text says them
    assert "Gang 1/2 tasks in gang unschedulable: pod group is not ready" in text
    assert "default/train-0: Schedulable: Pod default/train-0 can possibly be assigned to big" in text
    assert "Allocate chose big, but the task was not bound this session." in text


def test_few_nodes_get_a_row_each_with_every_reason_and_the_scores(tmp_path: Path) -> None:
    text, markup = page_of(tmp_path, "--nodes", str(VOLCANO / "gang-not-met.yaml"))
    assert "The predicates on 2 node(s)" in text
    assert "<tr><td>node-a</td><td>Insufficient cpu</td></tr><tr><td>node-b</td><td>Insufficient cpu</td></tr>" \
        in markup
    scores = re.search(r'<details class="task" id="task-default/train-0">.*?</details>', markup, re.S)
    assert scores is not None and 'class="chosen"><td>node-b (chosen)</td>' in scores.group(0)
    assert "Enqueue admitted: Pending -> Inqueue" in text


def test_enqueue_refused_names_the_plugin_in_its_words(tmp_path: Path) -> None:
    text, _ = page_of(tmp_path, "--nodes", str(VOLCANO / "overcommit.yaml"))
    assert "Enqueue refused by overcommit: resource in cluster is overused: overused cpu" in text
    assert "Volcano session: 1 PodGroup(s), 1 waiting" in text
    # never tried (enqueue left the job Pending): the four tasks' one answer, said once
    assert "4 tasks : Unschedulable: pod group is not ready, 4 Pending, 4 minAvailable; Pending: 4 Unschedulable " \
           "default/huge-0, default/huge-1, default/huge-2, default/huge-3" in text


def test_enqueue_refused_by_a_namespaces_resource_quota(tmp_path: Path) -> None:
    text, _ = page_of(tmp_path, "--nodes", str(VOLCANO / "resourcequota.yaml"), "--scheduler-conf",
                      str(VOLCANO / "resourcequota-conf.yaml"))
    assert "Enqueue refused by resourcequota: resource quota insufficient, requested: map[requests.cpu:" in text


def test_the_page_shows_the_keys_it_does_not_know_as_the_document_holds_them(tmp_path: Path) -> None:
    """A queue's further figures (one line each), the fixes and any other key: shown, never dropped."""
    code, out, _ = run("volcano", "--nodes", str(VOLCANO / "overcommit.yaml"), "-o", "json")
    doc = json.loads(out)
    doc["queues"][0] = {**doc["queues"][0], "capability": {"cpu": "4"}, "deserved": {"cpu": "2"}}
    doc["fixes"] = [{"podGroup": "default/huge", "change": "minMember 4 -> 2", "verified": True}]
    doc["somethingNew"] = {"answer": 42}
    markup = render_page(doc)
    text = words(markup)
    assert '<th scope="col">Further figures</th>' in markup
    assert '<td><ul class="figures"><li>' in markup     # (one line each: the queue plugin's figures too)
    assert '<li>capability: cpu 4</li>' in markup and '<li>deserved: cpu 2</li>' in markup
    assert 'id="fixes"' in markup and "minMember 4 -> 2" in text
    assert "somethingNew:" in text and "42" in text
    plain = render_page(json.loads(out))
    assert ('id="fixes"' in plain) == bool(json.loads(out).get("fixes")) and 'id="more"' not in plain


def test_the_terminals_answer_is_on_the_page(tmp_path: Path) -> None:
    _, out, _ = run("volcano", "--nodes", str(VOLCANO / "gang-cluster.yaml"))
    _, markup = page_of(tmp_path, "--nodes", str(VOLCANO / "gang-cluster.yaml"))
    assert html.escape(out.rstrip("\n"), quote=True) in markup


def test_a_pod_whose_podgroup_the_session_does_not_hold_is_on_the_page(tmp_path: Path) -> None:
    text, _ = page_of(tmp_path, "--nodes", str(VOLCANO / "gang-pod.yaml"))
    assert "Volcano session: no PodGroup" in text
    assert ("Pods whose PodGroup the session does not hold Volcano's scheduler cache holds no job for these pods: "
            "it does not schedule them. default/train-2 : not scheduled this session") in text


def test_enqueue_says_why_a_job_of_a_closed_or_missing_queue_waits(tmp_path: Path) -> None:
    """Proportion refuses a job of a queue that is not Open without an event; a PodGroup of a queue that
    does not exist is left out of the session: neither is an unnamed refusal."""
    closed = [node("n1", "4"), {**GROUP, "spec": {"minMember": 1, "queue": "frozen", "minResources": {"cpu": "1"}}},
              pod("train-0", "1", 1),
              {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": "frozen"},
               "spec": {"weight": 1}, "status": {"state": "Closed"}}]
    text, _ = page_of(tmp_path, "--nodes", write(tmp_path, closed))
    assert ("Enqueue refused by proportion: queue frozen is Closed (proportion refuses a job of a queue that is "
            "not Open, without an event)") in text
    missing = [node("n1", "4"), {**GROUP, "spec": {"minMember": 1, "queue": "nope"}}, pod("train-0", "1", 1)]
    text, _ = page_of(tmp_path, "--nodes", write(tmp_path, missing))
    assert "Enqueue not asked: the session leaves the PodGroup out (queue nope does not exist)" in text


def test_a_page_that_cannot_be_written_is_one_line_and_exit_2(tmp_path: Path) -> None:
    where = tmp_path / "missing" / "page.html"
    code, _, err = run("volcano", "--nodes", str(VOLCANO / "gang-cluster.yaml"), "--html", str(where))
    assert code == 2 and err.strip() == f"error: {where}: No such file or directory"
