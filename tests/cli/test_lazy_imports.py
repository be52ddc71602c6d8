"""What a plain run leaves unimported: the bundled example (an unschedulable pod, its
suggestions) needs neither CEL (device selectors), nor the autoscalers (their adapters are
looked up by name: `kexplain.app.autoscalers.adapter`), nor lint, nor the page writer. Each costs
tens of milliseconds at start-up, a large part of the example's quarter of a second. Nor does
it need pydantic: typer 0.29 coerces every parameter through a pydantic TypeAdapter built at
each start (about 45 ms, a fifth of the example's run), which is why pyproject.toml keeps typer
below it."""
from __future__ import annotations

import importlib
import inspect
import json
import subprocess
import sys
from pathlib import Path

from kexplain.cli.app import COMMANDS, SUMMARIES

ROOT = Path(__file__).resolve().parents[2]
NOT_NEEDED = ("kexplain.cel", "kexplain.autoscaler", "kexplain.karpenter", "kexplain.lint",
              "kexplain.app.cluster_autoscaler", "kexplain.app.karpenter", "kexplain.render.html",
              "kexplain.explain.compare")   # the live comparison: render.live names its type only
# The one reader of CA's document the renderers share with the loop: it imports nothing of the loop.
DOCUMENT_READERS = ("kexplain.autoscaler", "kexplain.autoscaler.plan")

SCRIPT = """
import contextlib, io, json, sys
from kexplain.cli.app import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(m for m in sys.modules if m.startswith("kexplain")),
                  "pydantic": "pydantic" in sys.modules, "stdout": out.getvalue()}))
"""


def _run(*args: str) -> dict:
    out = subprocess.run([sys.executable, "-c", SCRIPT, *args], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_example_imports_no_cel_autoscaler_or_lint():
    got = _run("fixtures/pod-too-big.yaml", "--nodes", "fixtures/cluster.yaml")
    assert got["code"] == 1                                  # unschedulable: its suggestions ran
    assert "kexplain.suggest" in got["modules"]
    loaded = [m for m in got["modules"] if any(m == n or m.startswith(n + ".") for n in NOT_NEEDED)
              and m not in DOCUMENT_READERS]
    assert loaded == []
    assert got["pydantic"] is False


def test_help_imports_no_command_module_and_lists_them_as_they_are():
    """`kexplain --help` lists every command by its summary without importing one: the listing
    is the full app's help, character for character."""
    got = _run("--help")
    assert got["code"] == 0
    commands = [m for m in got["modules"] if m.startswith(("kexplain.cli.", "kexplain.app"))]
    assert commands == ["kexplain.cli.app", "kexplain.cli.env", "kexplain.cli.exit_codes", "kexplain.cli.pipes"]
    every = "from kexplain.cli.app import make_app; make_app()(['--help'], prog_name='kexplain')"
    full = subprocess.run([sys.executable, "-c", every], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert "Commands:" in full.stdout and "karpenter" in full.stdout
    assert got["stdout"] == full.stdout


def test_each_summary_is_its_commands_first_paragraph():
    for name, module in COMMANDS.items():
        if module:
            loaded = importlib.import_module(module)
            command = getattr(loaded, "command", None)      # else a group of subcommands (evict): its HELP
            doc = inspect.cleandoc(command.__doc__) if command is not None else loaded.HELP
            assert SUMMARIES[name] == doc.split("\n\n")[0], name


# What `kexplain karpenter --disruption` over files does not run: the provisioning pass's
# application layer (and the Cluster Autoscaler it stands beside), the live client's, the
# drain's fixes with their autoscalers (the chain reads the budgets alone: app.eviction.drain_budgets),
# and without --node any suggestion (`--node`'s fixes import the package, the scheduler's families and DRA's),
# nor `kexplain evict`'s wiring (app.eviction.request: the package's `__init__` is empty).
NOT_IN_DISRUPTION = ("kexplain.app.karpenter", "kexplain.app.karpenter_live", "kexplain.app.live",
                     "kexplain.app.autoscalers", "kexplain.app.eviction.drain", "kexplain.app.eviction.drain_fixes",
                     "kexplain.cli.live", "kexplain.cli.karpenter_provisioning", "kexplain.suggest",
                     "kexplain.plugins.dra", "kexplain.app.eviction.request")


def test_the_disruption_pass_over_files_imports_neither_provisioning_nor_live():
    got = _run("karpenter", "--disruption", "--nodes", "fixtures/karpenter-disruption/cluster.yaml",
               "--nodes", "fixtures/karpenter-disruption/nodepools.yaml", "--now", "2026-01-01T12:00:00Z",
               "-o", "json")
    assert got["code"] == 0
    assert json.loads(got["stdout"])["decision"]                    # the chain ran (a decision to drain)
    assert "kexplain.cli.karpenter_disruption" in got["modules"]
    assert [m for m in NOT_IN_DISRUPTION if m in got["modules"]] == []
