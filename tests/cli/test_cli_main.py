"""`kexplain.cli.main(argv, env)` end to end, in memory: every exit code, where each line goes,
a terminal or a pipe, and a kexplain bug told apart from the scheduler's own error."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.cli_helpers import TestEnvironment
from kexplain.cli import kubectl_main, main
from kexplain.cli.exit_codes import ExitStatus, aggregate, for_result
from tests.support.cli_helpers import NODE, POD
from tests.support.paths import FIXTURES

WEB = str(FIXTURES / "pod-web.yaml")
TOO_BIG = str(FIXTURES / "pod-too-big.yaml")
CLUSTER = str(FIXTURES / "cluster.yaml")

# Stored objects skip admission: a StorageClass without volumeBindingMode makes VolumeBinding's
# PreFilter fail with an error, as kube-scheduler's does.
CLAIM_POD = """apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers: [{name: c, image: nginx}]
  volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]
"""
CLAIM_CLUSTER = NODE + """---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: default}
spec: {storageClassName: standard, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: standard}
provisioner: example.com/disk
"""


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.fixture(autouse=True)
def no_debug(monkeypatch):
    monkeypatch.delenv("KEXPLAIN_DEBUG", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)


# --- exit codes ---------------------------------------------------------------------------------

def test_0_schedulable():
    env = TestEnvironment()
    assert main([WEB, "--nodes", CLUSTER, "-o", "json"], env=env) == ExitStatus.SUCCESS == 0
    assert json.loads(env.out)["result"]["status"] == "Scheduled"
    assert env.err == ""


def test_1_unschedulable():
    env = TestEnvironment()
    assert main([TOO_BIG, "--nodes", CLUSTER], env=env) == ExitStatus.UNSCHEDULABLE == 1
    assert "Insufficient cpu" in env.out and env.err == ""


def test_2_bad_input_is_one_line_on_stderr(tmp_path):
    env = TestEnvironment()
    path = write(tmp_path, "p.yaml", "kind: Pod\nmetadata: {name: [\n")
    assert main([path], env=env) == ExitStatus.BAD_INPUT == 2
    assert env.out == ""
    assert env.err.startswith(f"error: {path}") and env.err.count("\n") == 1


def test_2_usage_error_goes_to_the_environment():
    env = TestEnvironment()
    assert main(["pod", "--no-such-option"], env=env) == 2
    assert env.out == "" and "No such option: --no-such-option" in env.err


def test_2_conflicting_options_are_one_line():
    env = TestEnvironment()
    assert main(["pod", "web-0", "--pending"], env=env) == 2
    assert env.err == "error: give a pod NAME or --pending/-A, not both\n"


def test_3_the_scheduler_would_fail(tmp_path):
    env = TestEnvironment()
    code = main([write(tmp_path, "p.yaml", CLAIM_POD), "--nodes", write(tmp_path, "c.yaml", CLAIM_CLUSTER),
                 "--stored", "-o", "json"], env=env)
    assert code == ExitStatus.SCHEDULER_ERROR == 3
    assert json.loads(env.out)["result"]["status"] == "Error"
    assert "internal error" not in env.err


def boom(*args, **kwargs):
    raise RuntimeError("boom")


def test_4_a_kexplain_bug_is_one_line_asking_for_a_report(monkeypatch):
    monkeypatch.setattr("kexplain.app.explain.explain", boom)
    env = TestEnvironment()
    assert main([WEB, "--nodes", CLUSTER], env=env) == ExitStatus.INTERNAL_ERROR == 4
    assert env.out == ""
    assert env.err.count("\n") == 1
    assert env.err.startswith("kexplain: internal error: RuntimeError: boom (a kexplain bug, please report it; "
                              "set KEXPLAIN_DEBUG=1 for a traceback)")


def test_kexplain_debug_raises_the_bug(monkeypatch):
    monkeypatch.setattr("kexplain.app.explain.explain", boom)
    monkeypatch.setenv("KEXPLAIN_DEBUG", "1")
    with pytest.raises(RuntimeError, match="boom"):
        main([WEB, "--nodes", CLUSTER], env=TestEnvironment())


def interrupt(*args, **kwargs):
    raise KeyboardInterrupt


def test_130_interrupted(monkeypatch):
    monkeypatch.setattr("kexplain.app.explain.explain", interrupt)
    env = TestEnvironment()
    assert main([WEB, "--nodes", CLUSTER], env=env) == ExitStatus.INTERRUPTED == 130
    assert "Traceback" not in env.err and "internal error" not in env.err


def test_several_pods_aggregate_to_the_worst(tmp_path):
    env = TestEnvironment()
    both = write(tmp_path, "both.yaml", POD + "---\n" + POD.replace("name: p}", "name: q}").replace("500m", "64"))
    assert main([both, "--nodes", write(tmp_path, "n.yaml", NODE), "-o", "json"], env=env) == 1
    assert [i["result"]["status"] for i in json.loads(env.out)["items"]] == ["Scheduled", "Unschedulable"]


def test_aggregate():
    assert aggregate([]) == ExitStatus.SUCCESS
    assert aggregate([for_result("Scheduled"), for_result("Gated")]) == ExitStatus.UNSCHEDULABLE
    assert aggregate([for_result("Unschedulable"), for_result("Error"), for_result("Scheduled")]) == 3
    assert aggregate([ExitStatus.FINDINGS, ExitStatus.BAD_INPUT]) == ExitStatus.BAD_INPUT


# --- streams and terminals ---------------------------------------------------------------------

def test_pod_from_the_environment_s_stdin(tmp_path):
    env = TestEnvironment(stdin=POD.encode())
    assert main(["-", "--nodes", write(tmp_path, "n.yaml", NODE), "-o", "json"], env=env) == 0
    assert json.loads(env.out)["pod"] == {"namespace": "default", "name": "p"}


def test_a_terminal_gets_the_drawn_view_a_pipe_plain_text():
    pipe, tty = TestEnvironment(), TestEnvironment(is_terminal=True, width=100)
    assert main([TOO_BIG, "--nodes", CLUSTER], env=pipe) == main([TOO_BIG, "--nodes", CLUSTER], env=tty) == 1
    assert pipe.out.isascii()
    assert not tty.out.isascii()          # box-drawing characters, only on a terminal
    assert "\x1b[" not in tty.out         # no colour unless asked for
    coloured = TestEnvironment(is_terminal=True, color=True)
    main([TOO_BIG, "--nodes", CLUSTER], env=coloured)
    assert "\x1b[" in coloured.out


def test_help_and_version_go_to_the_environment_s_stdout():
    env = TestEnvironment()
    assert main(["--help"], env=env) == 0
    assert "4 internal error (a kexplain bug: please report it)" in " ".join(env.out.split())
    env = TestEnvironment()
    assert main(["--version"], env=env) == 0
    assert env.out.startswith("kexplain ") and env.err == ""
    again = TestEnvironment()
    assert main(["version"], env=again) == 0 and again.out == env.out


def test_no_arguments_show_the_help_and_exit_2():
    env = TestEnvironment()
    assert main([], env=env) == 2
    assert "Usage: kexplain" in env.out + env.err


def test_the_explain_word_is_optional(tmp_path):
    plain, named = TestEnvironment(), TestEnvironment()
    assert main([WEB, "--nodes", CLUSTER, "-o", "json"], env=plain) == 0
    assert main(["explain", WEB, "--nodes", CLUSTER, "-o", "json"], env=named) == 0
    assert plain.out == named.out


def test_kubectl_main_takes_an_environment():
    env = TestEnvironment()
    assert kubectl_main(["--version"], env=env) == 0
    assert env.out.startswith("kexplain ")


@pytest.fixture
def closed_pipe():
    """Standard output whose reader has gone (`kexplain ... | head`): a real pipe, read end closed."""
    read, write_end = os.pipe()
    os.close(read)
    stream = open(write_end, "w", buffering=1, encoding="utf-8")
    yield stream
    try:
        stream.close()
    except BrokenPipeError:
        pass


@pytest.mark.parametrize("output", ["json", "table"])
def test_a_closed_pipe_ends_quietly(closed_pipe, output):
    env = TestEnvironment()
    env.stdout = closed_pipe
    # the verdict was reached before anything was written: its code, never 1 for a pod that fits
    assert main([WEB, "--nodes", CLUSTER, "-o", output], env=env) == ExitStatus.SUCCESS
    assert env.err == ""
    env = TestEnvironment()
    env.stdout = closed_pipe
    assert main([TOO_BIG, "--nodes", CLUSTER, "-o", output], env=env) == ExitStatus.UNSCHEDULABLE
    assert env.err == ""


def test_the_process_exits_with_what_main_returns(tmp_path):
    import subprocess
    import sys

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "kexplain", *args], capture_output=True, text=True,
                              cwd=tmp_path, timeout=120)

    assert run("--version").returncode == 0
    missing = run("nope.yaml")
    assert missing.returncode == 2 and missing.stderr == "error: nope.yaml: no such file or directory\n"
