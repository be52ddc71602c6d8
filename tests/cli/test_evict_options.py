"""`kexplain evict`'s options: the ones every subcommand takes are defined once (`cli.evict.shared`)
and each subcommand has all of them, in --help, shell completion and the parsed `Common`."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
import typer

from kexplain.cli import evict
from kexplain.cli.app import app

COMMON = {"--nodes", "--now", "--kubernetes-version", "--admission-plugins", "-o", "--output", "--max-input-size", "--max-objects",
          "--validate", "--kubeconfig", "--context", "--request-timeout", "--chunk-size", "--html"}
OWN = {"pressure": {"--stats", "--kubelet-config", "--filesystems", "--earlier-stats", "--earlier-at", "--admit"},
       "drain": {"--ignore-daemonsets", "--delete-emptydir-data", "--force"},
       "taints": {"--taint"}}


def options_of(name: str) -> set[str]:
    group = typer.main.get_command(app).commands["evict"]          # type: ignore[attr-defined]
    command = group.commands[name]
    return {o for p in command.params for o in (*p.opts, *p.secondary_opts) if o.startswith("-")}


@pytest.mark.parametrize("name", sorted(OWN))
def test_each_subcommand_has_the_common_options_and_its_own(name):
    assert options_of(name) - {"-h", "--help"} == COMMON | OWN[name]


def test_the_common_options_are_defined_once():
    """One parameter list, one `Common`: a field for each parameter and none else."""
    names = [p.name for p in evict._common_parameters()]
    assert names == list(evict.Common.__dataclass_fields__)


@pytest.mark.parametrize("name", sorted(OWN))
def test_shell_completion_offers_the_common_options(name):
    env = {**os.environ, "_KEXPLAIN_COMPLETE": "complete_bash", "COMP_WORDS": f"kexplain evict {name} --",
           "COMP_CWORD": "3"}
    proc = subprocess.run([sys.executable, "-m", "kexplain", "evict", name], env=env, capture_output=True,
                          text=True, timeout=120)
    offered = set(proc.stdout.split())
    assert {o for o in COMMON | OWN[name] if o.startswith("--")} <= offered, proc.stderr


def test_live_read_only_without_nodes():
    common = evict.Common(["c.yaml"], None, None, None, evict.Output.table, 1, 1, "strict", "k", None, 1.0, 5, None)
    assert common.live is None
    live = evict.Common([], None, None, None, evict.Output.table, 1, 1, "strict", "k", "ctx", 2.0, 5, None).live
    assert live is not None and (live.kubeconfig, live.context, live.request_timeout, live.chunk_size) == \
        ("k", "ctx", 2.0, 5)
