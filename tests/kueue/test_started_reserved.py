"""`started.on_reserved`: a held job whose quota is reserved has each object's pod template merged
with its pod set's reserved info (a JobSet's Job by its replicated job, an operator's pod by the
pod set it stands for), stays suspended, and is left as it is when a template does not merge."""
from __future__ import annotations

from kexplain.kueue.jobset_jobs import REPLICATED_JOB_NAME
from kexplain.kueue.podset import PodSetInfo
from kexplain.kueue.started import POD_SET_OF, on_reserved

A100 = PodSetInfo("main", 2, ("a100",), node_selector={"gpu": "a100"},
                  tolerations=({"key": "gpu", "operator": "Exists", "effect": "NoSchedule"},))
T4 = PodSetInfo("side", 1, ("t4",), node_selector={"gpu": "t4"})


def _job(name: str, selector: dict | None = None, replicated: str | None = None) -> dict:
    labels = {REPLICATED_JOB_NAME: replicated} if replicated else {}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": "ml", "labels": labels},
            "spec": {"suspend": True, "template": {"spec": {"nodeSelector": dict(selector or {}), "containers": []}}}}


def test_a_held_jobs_template_gets_its_flavors_labels_and_tolerations_and_stays_suspended() -> None:
    answer: dict = {}
    [job] = on_reserved([_job("train")], answer, [A100])
    spec = job["spec"]
    assert spec["suspend"] is True
    assert spec["template"]["spec"]["nodeSelector"] == {"gpu": "a100"}
    assert spec["template"]["spec"]["tolerations"] == [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}]
    assert "reservedError" not in answer


def test_each_jobset_job_gets_its_own_pod_sets_info() -> None:
    made = on_reserved([_job("js-main-0", replicated="main"), _job("js-side-0", replicated="side")], {}, [A100, T4])
    assert [j["spec"]["template"]["spec"]["nodeSelector"] for j in made] == [{"gpu": "a100"}, {"gpu": "t4"}]


def test_an_operators_pod_gets_the_pod_set_it_stands_for() -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "r-head", "namespace": "ml"}, "spec": {}}
    answer = {POD_SET_OF: {("Pod", "ml", "r-head"): "side"}}
    [made] = on_reserved([pod], answer, [A100, T4])
    assert made["spec"]["nodeSelector"] == {"gpu": "t4"} and "nodeSelector" not in pod["spec"]


def test_a_template_that_does_not_merge_leaves_the_job_as_it_is_and_says_why() -> None:
    answer = {"reservedPodSets": [A100.to_json()]}
    job = _job("train", {"gpu": "h100"})
    assert on_reserved([job], answer, [A100]) == [job]
    assert "reservedPodSets" not in answer
    assert answer["reservedError"].endswith("conflict for nodeSelector: conflict for key=gpu, value1=h100, value2=a100")


def test_a_job_not_reserved_is_left_as_it_is() -> None:
    job = _job("train")
    assert on_reserved([job], {}, None) == [job]
