"""An external framework's job (the Configuration's `integrations.externalFrameworks`) in plain
`kexplain FILE` and `kexplain lint`: said in `kexplain kueue`'s words (Kueue manages it, its Workload
made by an external controller kexplain cannot run), left out with the exit code of anything left
out (2), never "no Pod or workload to explain"; a Workload it owns among the objects named."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from kexplain.explain.pod_file import NOT_EXPLAINED
from kexplain.kueue.config_file import external_frameworks_of
from kexplain.kueue.external_jobs import owned_workload, with_not_explained
from tests.kueue.builders import cluster_queue, flavor, local_queue
from tests.kueue.test_external_frameworks import CONFIG, OWNED, RUN
from tests.support.cli_helpers import node_yaml, run_cli

KUEUE_WORDS = ("its Workload is made by an external controller (integrations.externalFrameworks: "
               "PipelineRun.v1.tekton.dev): kexplain explains the Workload, given or live, not the job")
SAID = f"PipelineRun default/build: Kueue manages it (LocalQueue q): {KUEUE_WORDS}"
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "default"},
       "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "100m"}}}]}}


@pytest.fixture()
def files(tmp_path: Path) -> Path:
    (tmp_path / "cluster.yaml").write_text("---\n".join([
        flavor("default"), cluster_queue("cq", {"default": {"cpu": "4"}}), local_queue("q", "cq"),
        node_yaml("n1", "a", "4", "8Gi")]))
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(CONFIG))
    return tmp_path


def _explain(files: Path, *docs: dict, config: bool = True, command: tuple[str, ...] = ()) -> tuple[int, str, str]:
    (files / "run.yaml").write_text(yaml.safe_dump_all(docs))
    given = ("--kueue-config", str(files / "config.yaml")) if config else ()
    return run_cli(*command, str(files / "run.yaml"), "--nodes", str(files / "cluster.yaml"), *given)


def test_the_job_is_said_in_kexplain_kueues_words_and_left_out(files: Path) -> None:
    code, _, err = _explain(files, RUN)
    assert code == 2 and SAID in err and "no Pod or workload" not in err
    _, out, _ = run_cli("kueue", str(files / "run.yaml"), "--nodes", str(files / "cluster.yaml"), "--kueue-config",
                        str(files / "config.yaml"), "--now", "2026-01-01T00:00:00Z", "-o", "json")
    assert json.loads(out)["jobs"][0]["error"] == KUEUE_WORDS


def test_the_configuration_may_be_in_the_file(files: Path) -> None:
    code, _, err = _explain(files, RUN, CONFIG, config=False)
    assert code == 2 and SAID in err and "no Pod or workload to explain (found" not in err


def test_without_the_configuration_it_is_no_pod_or_workload_as_before(files: Path) -> None:
    code, _, err = _explain(files, RUN, config=False)
    assert code == 2 and "no Pod or workload to explain (found PipelineRun" in err and "Kueue manages" not in err


def test_beside_a_pod_the_pod_is_explained(files: Path) -> None:
    code, out, err = _explain(files, RUN, POD)
    assert code == 2 and SAID in err and "Pod default/web" in out


def test_a_workload_it_owns_among_the_objects_is_named(files: Path) -> None:
    _, _, err = _explain(files, RUN, OWNED)
    assert (f"{SAID}; its Workload default/pipelinerun-build-abcde is among the objects: `kexplain kueue` "
            "explains it") in err


def test_lint_says_the_same(files: Path) -> None:
    (files / "run.yaml").write_text(yaml.safe_dump(RUN))
    code, out, _ = run_cli("lint", str(files / "run.yaml"), "--nodes", str(files / "cluster.yaml"),
                           "--kueue-config", str(files / "config.yaml"), "-o", "json")
    found = [f for f in json.loads(out)["findings"] if f["rule"] == "kueue-held"]
    assert [f["message"] for f in found] == [SAID.split(": ", 1)[1]] and found[0]["severity"] == "warning"
    assert code == 0        # a warning, under the default --fail-on error


def test_the_chain_marks_only_the_external_kinds_jobs() -> None:
    objs = [(RUN, None), (POD, None), (CONFIG, None)]
    marked = with_not_explained(objs, [])
    assert marked[0][0]["metadata"]["annotations"][NOT_EXPLAINED] == SAID.split(": ", 1)[1]
    assert marked[1][0] is POD and NOT_EXPLAINED not in (RUN["metadata"].get("annotations") or {})
    assert with_not_explained(objs[:2], []) == objs[:2]       # no Configuration naming the kind: as given


def test_the_owned_workload_by_uid_else_by_kind_and_name() -> None:
    other_uid = {**OWNED, "metadata": {**OWNED["metadata"], "ownerReferences": [
        {**OWNED["metadata"]["ownerReferences"][0], "uid": "someone-else"}]}}
    assert owned_workload(RUN, [(OWNED, None)]) == "default/pipelinerun-build-abcde"
    assert owned_workload(RUN, [(other_uid, None)]) == ""
    no_uid = {**RUN, "metadata": {k: v for k, v in RUN["metadata"].items() if k != "uid"}}
    assert owned_workload(no_uid, [(other_uid, None)]) == "default/pipelinerun-build-abcde"


def test_a_workload_it_owns_in_the_cluster_is_named(files: Path) -> None:
    (files / "owned.yaml").write_text(yaml.safe_dump(OWNED))
    (files / "run.yaml").write_text(yaml.safe_dump(RUN))
    _, _, err = run_cli(str(files / "run.yaml"), "--nodes", str(files / "cluster.yaml"), "--nodes",
                        str(files / "owned.yaml"), "--kueue-config", str(files / "config.yaml"))
    assert "its Workload default/pipelinerun-build-abcde is among the objects" in err


def test_the_last_configuration_read_decides_as_in_the_pass() -> None:
    plain = {**CONFIG, "integrations": {"frameworks": ["batch/job"]}}
    assert external_frameworks_of([(CONFIG, None), (plain, None)]) == ()
    assert external_frameworks_of([(plain, None), (CONFIG, None)]) == ("PipelineRun.v1.tekton.dev",)
