"""`kexplain pod --pending` / `-A` with pods Volcano schedules: each answered by ONE session of its
scheduler over the stored cluster with them all (`app.live.volcano_pending`), listed with its verdict
and compared with the PodScheduled condition Volcano wrote; never skipped with the default profile's
"profile not found" (before)."""
from __future__ import annotations

import json

from tests.cli.test_live_volcano import EVERY_KIND, GROUP, SAID, api  # noqa: F401 (api: the fixture)
from tests.support.live_server import Rbac, isolated, run_cli  # noqa: F401 (isolated: autouse)


def test_pending_lists_volcanos_pods_with_its_answer(api, capsys) -> None:  # noqa: F811
    code, out, err = run_cli(capsys, "pod", "--pending", "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json")
    assert code == 1, err
    doc = json.loads(out)
    assert not any(s["pod"].startswith("shop/train-worker-") for s in doc.get("skipped") or ())
    ours = {i["pod"]["name"]: i for i in doc["items"] if i.get("profile") == "volcano"}
    assert sorted(ours) == ["train-worker-0", "train-worker-1"]
    assert ours["train-worker-0"]["result"]["message"] == SAID
    for name, item in ours.items():       # one answer everywhere: what `kexplain pod NAME` says of each
        assert item["volcano"]["podGroup"]["name"] == f"shop/{GROUP}"
        _, one, _ = run_cli(capsys, "pod", name, "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json")
        single = json.loads(one)
        assert (item["result"], item["live"]["agrees"]) == (single["result"], single["live"]["agrees"])
    assert ours["train-worker-0"]["live"]["agrees"] is True


def test_the_list_gives_their_verdict_not_skipped(api, capsys) -> None:  # noqa: F811
    code, out, _ = run_cli(capsys, "pod", "--pending", "-n", "shop", "--kubeconfig", api.kubeconfig)
    rows = [line for line in out.splitlines() if line.startswith("shop/train-worker-")]
    assert len(rows) == 2
    assert all(" Unschedulable " in row and "profile not found" not in row for row in rows)
    assert " agrees " in rows[0]


def test_the_list_runs_the_configuration_given_as_kexplain_pod_name_does(api, capsys, tmp_path) -> None:  # noqa: F811
    """--scheduler-conf on `--pending` as on `pod NAME`: the one session runs it (`app.live.volcano_conf`)."""
    given = tmp_path / "conf.yaml"
    given.write_text('actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: gang\n  - name: predicates\n')
    code, out, err = run_cli(capsys, "pod", "--pending", "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json",
                             "--scheduler-conf", str(given))
    assert code == 1, err
    ours = [i for i in json.loads(out)["items"] if i.get("profile") == "volcano"]
    assert ours and all(i["volcano"]["config"]["actions"] == ["enqueue", "allocate"] for i in ours)


def test_a_refused_configmap_is_said_in_each_answer_of_the_list(api, capsys) -> None:  # noqa: F811
    """Queues refused too (each pod answered alone): the refused ConfigMap still said in each answer's notes."""
    api.faults.rbac = Rbac(cluster=EVERY_KIND - {"queues"})
    code, out, err = run_cli(capsys, "pod", "--pending", "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json")
    assert code == 1, err
    ours = [i for i in json.loads(out)["items"] if i.get("profile") == "volcano"]
    assert len(ours) == 2
    for item in ours:
        assert item["volcano"]["notes"][0].startswith("Volcano's scheduler ConfigMap volcano-system/"
                                                      "volcano-scheduler-configmap could not be read (RBAC)")
