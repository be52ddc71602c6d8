"""What a plain run leaves unimported: the bundled example (an unschedulable pod, its
suggestions) needs neither CEL (device selectors), nor the autoscalers, nor lint. Each costs
tens of milliseconds at start-up, a large part of the example's quarter of a second. Nor does
it need pydantic: typer 0.29 coerces every parameter through a pydantic TypeAdapter built at
each start (about 45 ms, a fifth of the example's run), which is why pyproject.toml keeps typer
below it."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOT_NEEDED = ("kexplain.cel", "kexplain.autoscaler", "kexplain.karpenter", "kexplain.lint", "kexplain.app.cluster_autoscaler",
              "kexplain.app.karpenter", "kexplain.render.html")

SCRIPT = """
import contextlib, io, json, sys
from kexplain.cli.app import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(m for m in sys.modules if m.startswith("kexplain")),
                  "pydantic": "pydantic" in sys.modules}))
"""


def test_the_example_imports_no_cel_autoscaler_or_lint():
    out = subprocess.run([sys.executable, "-c", SCRIPT, "fixtures/pod-too-big.yaml", "--nodes", "fixtures/cluster.yaml"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["code"] == 1                                  # unschedulable: its suggestions ran
    assert "kexplain.suggest" in got["modules"]
    loaded = [m for m in got["modules"] if any(m == n or m.startswith(n + ".") for n in NOT_NEEDED)]
    assert loaded == []
    assert got["pydantic"] is False
