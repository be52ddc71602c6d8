"""man/kexplain.1 and the CLI agree: every option of every command that `--help` shows is
documented in that command's section of the man page, and the man page documents no
option a command does not have."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import typer

from kexplain.cli.app import app, main
from tests.support.paths import ROOT

MAN = ROOT / "man" / "kexplain.1"

# .SS section title (its start) -> the command it documents; "" is kexplain itself.
SECTIONS = {
    "kexplain explain": "explain",
    "kexplain pod": "pod",
    "kexplain snapshot": "snapshot",
    "kexplain lint": "lint",
    "kexplain autoscale": "autoscale",
    "kexplain karpenter": "karpenter",
    "kexplain kueue": "kueue",
    "kexplain volcano": "volcano",
    "kexplain cluster": "cluster",
    "kexplain evict pressure": "evict pressure",
    "kexplain evict drain": "evict drain",
    "kexplain evict taints": "evict taints",
    "kexplain version": "version",
    "Options of every command": "*",
    "Options of kexplain itself": "",
}
HELP = {"-h", "--help"}


def man_options() -> dict[str, set[str]]:
    """Command -> the options named in the `.TP` item heads of its section."""
    lines = MAN.read_text().splitlines()
    out: dict[str, set[str]] = {}
    current: str | None = None
    for i, line in enumerate(lines):
        if line.startswith(".SS "):
            title = line[4:].strip().strip('"')
            current = next((cmd for start, cmd in SECTIONS.items() if title.startswith(start)), None)
            assert current is not None, f"man page section {title!r} names no command"
            out.setdefault(current, set())
        elif line.startswith(".SH "):
            current = None
        elif line == ".TP" and current is not None:
            head = lines[i + 1].replace("\\-", "-")
            out[current] |= set(re.findall(r"\\fB(-[A-Za-z0-9-]*)\\fR", head))
    return out


def cli_options() -> dict[str, set[str]]:
    """Command -> every option string it accepts (without -h/--help, common to all)."""
    group = typer.main.get_command(app)
    out = {"": _options(group)}
    for name, cmd in group.commands.items():
        subcommands = getattr(cmd, "commands", None)
        if subcommands:             # a group (evict): each subcommand is documented on its own
            out.update({f"{name} {sub}": _options(subcmd) for sub, subcmd in subcommands.items()})
        else:
            out[name] = _options(cmd)
    return out


def _options(cmd) -> set[str]:
    opts: set[str] = set()
    for p in cmd.get_params(typer.Context(cmd)):
        if p.param_type_name == "option":
            opts.update(p.opts)
            opts.update(p.secondary_opts)
    return opts - HELP


def help_text(capsys, *args: str) -> str:
    assert main([*args, "--help"]) == 0
    return capsys.readouterr().out


def test_every_command_has_a_section():
    documented = man_options()
    commands = set(cli_options())
    assert commands <= set(documented), f"commands without a man page section: {commands - set(documented)}"
    assert documented["*"] == HELP


@pytest.mark.parametrize("command", ["", "explain", "pod", "snapshot", "lint", "autoscale", "karpenter", "kueue",
                                     "cluster", "evict pressure", "evict drain", "evict taints", "version",
                                     "volcano"])
def test_options_agree(command):
    cli = cli_options()[command]
    man = man_options()[command]
    assert cli - man == set(), f"kexplain {command}: options missing from the man page"
    assert man - cli == set(), f"kexplain {command}: the man page documents options the command lacks"


@pytest.mark.parametrize("command", ["explain", "pod", "snapshot", "lint", "autoscale", "karpenter", "kueue",
                                     "cluster", "evict pressure", "evict drain", "evict taints"])
def test_help_shows_what_the_man_page_documents(capsys, command):
    text = help_text(capsys, *command.split())
    for option in man_options()[command] | HELP:
        assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text), f"{option} not in `{command} --help`"


def test_root_help_shows_completion_options(capsys):
    text = help_text(capsys)
    for option in man_options()[""]:
        assert option in text


@pytest.mark.skipif(shutil.which("groff") is None, reason="groff is not installed")
def test_man_page_formats_without_warnings():
    proc = subprocess.run(["groff", "-ww", "-man", "-z", str(MAN)], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stderr == ""
