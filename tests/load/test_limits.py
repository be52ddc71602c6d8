"""Bounded resources and a clean end: the input size and object count caps and the flags that
raise them, Ctrl-C (exit code 130, nothing printed), a reader that goes away
(`kexplain ... | head -1`: quiet), and a memory cap an alias bomb stays under. These assert what
happens; a case that hangs fails after a generous bound (`tests.support.bounded`), and how fast
each is, is measured by `benchmarks/budgets_bench.py`."""
from __future__ import annotations

import errno
import inspect
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from kexplain.cli.app import main
from kexplain.load import manifests
from kexplain.load.limits import DEFAULT_MAX_BYTES, DEFAULT_MAX_OBJECTS
from kexplain.load.manifests import load_objects
from tests.support.bounded import HANG_SECONDS
from tests.support.paths import DATA, ROOT

POD = ROOT / "fixtures" / "pod-web.yaml"
CLUSTER = ROOT / "fixtures" / "cluster.yaml"
BROKEN = DATA / "broken"


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main([*args, "--no-suggestions"])
    out, err = capsys.readouterr()
    return code, out, err


def nodes_yaml(count: int, *, prefix: str = "n", pods_per_node: int = 0) -> str:
    """`count` Nodes in three zones, each with `pods_per_node` bound pods."""
    docs = []
    for i in range(count):
        name = f"{prefix}{i}"
        docs.append(f"apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  labels: {{kubernetes.io/hostname: {name}, "
                    f"topology.kubernetes.io/zone: z{i % 3}}}\nstatus:\n  capacity: {{cpu: '4', memory: 8Gi, pods: '110'}}\n")
        docs.extend(f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}-{j}, labels: {{app: x}}}}\nspec:\n  nodeName: {name}\n"
                    "  containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]\n"
                    for j in range(pods_per_node))
    return "---\n" + "---\n".join(docs)


# --- input size -----------------------------------------------------------------------------------

def test_input_size_limit_is_inclusive_and_raised_by_the_flag(capsys, tmp_path):
    size = POD.stat().st_size
    code, _, err = run(capsys, str(POD), "--nodes", str(CLUSTER), "--max-input-size", str(size - 1))
    assert code == 2
    assert err.strip().endswith(f"{POD}: file is {size:,} bytes, over the limit of {size - 1:,} bytes "
                                "(raise it with --max-input-size)")
    big = CLUSTER.stat().st_size
    code, out, err = run(capsys, str(POD), "--nodes", str(CLUSTER), "--max-input-size", str(big), "-o", "json")
    assert code == 0, err
    assert json.loads(out)["result"]["status"] == "Scheduled"


def test_stdin_is_read_no_further_than_the_limit(capsys, monkeypatch):
    class Endless(io.RawIOBase):
        """A pipe that never ends: reading it whole would never finish."""
        read_bytes = 0

        def readable(self) -> bool:
            return True

        def readinto(self, buf) -> int:
            chunk = b"# padding\n" * (len(buf) // 10)
            buf[:len(chunk)] = chunk
            Endless.read_bytes += len(chunk)
            return len(chunk)

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(Endless())))
    code, out, err = run(capsys, "-", "--nodes", str(CLUSTER), "--max-input-size", "1000000")
    assert code == 2 and out == ""
    assert err == "error: -: input is over the limit of 1,000,000 bytes (raise it with --max-input-size)\n"
    assert Endless.read_bytes < 2_000_000


def test_a_read_asks_for_no_more_than_the_input_holds(tmp_path):
    """`read(n)` allocates n bytes first: a small file or pipe read under the 4 GiB default
    allocates about its own size, not the limit (a machine with less memory would refuse)."""
    import tracemalloc
    path = tmp_path / "pod.yaml"
    path.write_bytes(POD.read_bytes())
    pipe = io.BufferedReader(io.BytesIO(b"x" * 3_000_000))
    tracemalloc.start()
    try:
        assert manifests.read_data(str(path), DEFAULT_MAX_BYTES) == POD.read_bytes()
        assert len(manifests.read_data("-", DEFAULT_MAX_BYTES, pipe)) == 3_000_000
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20
    with pytest.raises(manifests.TooLarge):
        manifests.read_data("-", 2_999_999, io.BufferedReader(io.BytesIO(b"x" * 3_000_000)))


def test_default_input_size_limit():
    assert DEFAULT_MAX_BYTES == 4 << 30     # kubectl's dump of a 5,000-node cluster (1.3 GB) and then some


# --- object count ---------------------------------------------------------------------------------

def test_object_count_counts_list_items_across_files(capsys, tmp_path):
    for name in ("a", "b", "c"):
        items = yaml.safe_load_all(nodes_yaml(10, prefix=name))
        (tmp_path / f"{name}.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": list(items)}))
    code, _, err = run(capsys, str(POD), "--nodes", str(tmp_path), "--max-objects", "25")
    assert code == 2
    assert err == (f"error: {tmp_path / 'c.yaml'}: document 1: more than 25 objects "
                   "(raise the limit with --max-objects)\n")
    code, out, err = run(capsys, str(POD), "--nodes", str(tmp_path), "--max-objects", "30", "-o", "json")
    assert code == 0, err
    assert json.loads(out)["search"]["numAllNodes"] == 30


def test_object_count_stops_reading_at_the_limit(tmp_path, monkeypatch):
    """Not all 50,000 documents are built first: the reader stops at the first over the limit."""
    path = tmp_path / "many.yaml"
    path.write_text("---\nkind: Node\nmetadata: {name: n}\n" * 50_000)
    built: list[int] = []
    parse = manifests.parse_documents

    def counted(text: str, where: str):
        for document in parse(text, where):
            built.append(document.number)
            yield document

    monkeypatch.setattr(manifests, "parse_documents", counted)
    with pytest.raises(Exception) as exc:
        load_objects([str(path)], max_objects=100)
    assert "more than 100 objects" in str(exc.value)
    assert len(built) == 101


def test_default_object_limit_is_on_the_help_page(capsys):
    assert DEFAULT_MAX_OBJECTS == 500_000
    code, out, _ = run_help(capsys)
    assert "--max-objects" in out and "500000" in out


def run_help(capsys) -> tuple[int, str, str]:
    code = main(["explain", "--help"])
    out, err = capsys.readouterr()
    return code, " ".join(out.split()), err


def test_object_limit_is_not_left_behind_by_the_command(capsys, tmp_path):
    """The limit is a parameter of each load, not ambient state a command sets and restores:
    after a command with --max-objects, a load that passes none has the default."""
    run(capsys, str(POD), "--nodes", str(CLUSTER), "--max-objects", "100000")
    assert not hasattr(manifests, "MAX_OBJECTS") and not hasattr(manifests, "object_limit")
    assert inspect.signature(load_objects).parameters["max_objects"].default == DEFAULT_MAX_OBJECTS


# --- Ctrl-C and closed pipes: in a process of their own -------------------------------------------

def _interruptible() -> None:
    """Ctrl-C's default in the child, as a terminal gives it: a test run started in the
    background (`pytest ... &` in a script) ignores SIGINT, and a child would inherit that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(args: list[str], **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "kexplain", *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=_interruptible, **kw)


def open_fifo_for_writing(path: Path, proc: subprocess.Popen, timeout: float = HANG_SECONDS) -> int:
    """The write end of a FIFO, once the process has opened its read end (it is then reading
    its input, inside the command); fails if the process ends first."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as err:
            if err.errno != errno.ENXIO:
                raise
        if proc.poll() is not None:
            out, err_text = proc.communicate()
            pytest.fail(f"kexplain ended before reading its input: {proc.returncode} {err_text!r}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("kexplain never opened its input")
        time.sleep(0.02)


def finish(proc: subprocess.Popen, timeout: float = HANG_SECONDS) -> tuple[int, str, str]:
    """The process's exit code and output; past `timeout` (a hang) it is killed and the test fails."""
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"kexplain did not end within {timeout:g} s (a hang)")
    return proc.returncode, out.decode(errors="replace"), err.decode(errors="replace")


def test_ctrl_c_while_waiting_for_input_exits_130_quietly(tmp_path):
    fifo = tmp_path / "pod.yaml"
    os.mkfifo(fifo)
    proc = start([str(fifo), "--nodes", str(CLUSTER)])
    fd = open_fifo_for_writing(fifo, proc)
    try:
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        code, out, err = finish(proc)
    finally:
        os.close(fd)
    assert code == 130
    assert out == "" and "Traceback" not in err and "internal error" not in err, err


@pytest.fixture(scope="module")
def big_cluster(tmp_path_factory) -> Path:
    """5,000 nodes and 5,000 bound pods: seconds of work to read, admit and schedule."""
    path = tmp_path_factory.mktemp("big") / "cluster.yaml"
    path.write_text(nodes_yaml(5000, pods_per_node=1))
    return path


def test_ctrl_c_while_working_exits_130_quietly(tmp_path, big_cluster):
    fifo = tmp_path / "pod.yaml"
    os.mkfifo(fifo)
    proc = start([str(fifo), "--nodes", str(big_cluster), "-o", "json"])
    fd = open_fifo_for_writing(fifo, proc)
    os.set_blocking(fd, True)
    os.write(fd, POD.read_bytes())
    os.close(fd)                                    # the pod is read; the 5,000-node cluster is next
    time.sleep(0.3)
    assert proc.poll() is None, "finished before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    code, out, err = finish(proc)
    assert code == 130, err             # it stops where it is: the work done would print the trace
    assert out == "" and "Traceback" not in err and "internal error" not in err, err


@pytest.fixture(scope="module")
def cluster_300(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("c300") / "cluster.yaml"
    path.write_text(nodes_yaml(300))
    return path


@pytest.mark.parametrize("output", ["json", "yaml", "wide"])
def test_a_closed_pipe_ends_quietly(cluster_300, output):
    """`kexplain ... -o json | head -1`: the trace is larger than a pipe holds, so the write
    fails once the reader has gone; kexplain ends without a word on stderr."""
    proc = start([str(POD), "--nodes", str(cluster_300), "-o", output, "--no-suggestions"])
    first = proc.stdout.readline()
    proc.stdout.close()
    code = proc.wait(timeout=HANG_SECONDS)
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    assert first.strip()
    assert err == "", err
    assert code == 0


def test_a_closed_pipe_after_the_output_fits_in_it():
    proc = start([str(POD), "--nodes", str(CLUSTER), "-o", "json", "--no-suggestions"])
    proc.stdout.close()
    code = proc.wait(timeout=HANG_SECONDS)
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    assert err == "" and code in (0, 1), (code, err)


# --- memory ---------------------------------------------------------------------------------------

def peak_rss_mib(args: list[str]) -> tuple[int, str, float]:
    """Run `python -m kexplain ARGS`: exit code, stderr, and that process's own peak RSS in MiB."""
    proc = subprocess.Popen([sys.executable, "-m", "kexplain", *args], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, err, usage.ru_maxrss / 1024


def test_an_alias_bomb_is_refused_without_expanding_it():
    """500 bytes that would expand to 12 million values (about 1 GiB as Python objects)."""
    baseline = peak_rss_mib(["version"])[2]
    code, err, peak = peak_rss_mib([str(BROKEN / "pod--alias-bomb-ten-million.yaml"), "--nodes", str(CLUSTER)])
    assert code == 2 and "excessive aliasing" in err, err
    assert peak < baseline + 100, f"{peak:.0f} MiB at peak, {baseline:.0f} MiB to start"
