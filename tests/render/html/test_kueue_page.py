"""`--html` of jobs Kueue answers for: a held job's page gives Kueue's reason, queue position and
numbers as the text does, once per job (a JobSet's Jobs share one answer), under a title saying
what Kueue holds, and no template pod of held work is badged Scheduled; an admitted job's
sentence says what Kueue sets in its pods."""
from __future__ import annotations

import html
import re

from kexplain.cli.app import main
from tests.support import kueue_scenes
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES

KUEUE = FIXTURES / "kueue"


def page(tmp_path, *args: str) -> str:
    out = tmp_path / "page.html"
    main(["explain", *args, "--html", str(out)], TestEnvironment(width=100))
    return out.read_text()


def visible(markup: str) -> str:
    body = re.sub(r"<(script|style)\b.*?</\1>", "", markup, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


def title(markup: str) -> str:
    return html.unescape(re.search(r"<title>(.*?)</title>", markup).group(1))


def test_a_held_jobsets_page(tmp_path) -> None:
    jobset = tmp_path / "jobset.yaml"
    jobset.write_text((KUEUE / "sim.yaml").read_text().replace('cpu: "1", memory: 2Gi', 'cpu: "4", memory: 2Gi'))
    markup = page(tmp_path, str(jobset), "--nodes", str(KUEUE / "cluster.yaml"), "--nodes", str(KUEUE / "nodes.yaml"))
    text = visible(markup)
    assert title(markup).startswith("kexplain: JobSet team-b/sim held by Kueue (Workload team-b/jobset-sim-")
    assert "0 of 0 pods fit" not in title(markup)
    assert text.count("Kueue: JobSet team-b/sim") == 1                          # one answer, not one per Job
    assert text.count("is not admitted; the JobSet stays suspended") == 1
    assert "Queue: ClusterQueue team-b-cq (BestEffortFIFO), 1 of 1" in text
    assert "cpu: wants 8 (after 4 of earlier pod sets); nominal 4, used 0, available 6, at most 12" in text
    badges = re.findall(r'<span class="badge st-(\w+)">([^<]*)</span>', markup)
    assert badges and all(cls != "Scheduled" for cls, _ in badges)
    assert {label for _, label in badges} == {"\u2016 Held by Kueue"}


def test_a_held_jobs_page_gives_kueues_reason_queue_and_numbers(tmp_path) -> None:
    cluster = kueue_scenes.cluster(tmp_path)
    markup = page(tmp_path, kueue_scenes.jobs(tmp_path, "job.yaml", 3), "--nodes", cluster)
    text = visible(markup)
    assert title(markup).startswith("kexplain: Job ml/job-0 held by Kueue")
    for said in ("Kueue: couldn't assign flavors to pod set main: insufficient quota for cpu in flavor a100",
                 "Queue: ClusterQueue ml-cq (BestEffortFIFO), 1 of 1",
                 "cpu: wants 6; nominal 4, used 0, available 4, at most 4", "2 more than it could ever have"):
        assert said in text


def test_an_admitted_jobs_sentence_is_not_cut(tmp_path) -> None:
    cluster = kueue_scenes.cluster(tmp_path)
    markup = page(tmp_path, kueue_scenes.jobs(tmp_path, "job.yaml", 2), "--nodes", cluster)
    text = visible(markup)
    assert "its pods as Kueue sets them: Pod set main: 2 pods, flavor a100" in text
    assert "nodeSelector gpu.example.com/model=a100" in text
    assert set(re.findall(r"<span class=\"badge st-(\w+)\">", markup)) == {"Scheduled"}
