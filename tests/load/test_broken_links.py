"""A symbolic link whose target is missing (knative serving's config/core links into vendor/,
which an export of config/ alone lacks) is named as such, with its target, in explain's error
and lint's unreadable finding, instead of a bare `No such file or directory`; the files beside
it are still read."""
from __future__ import annotations

import os

from kexplain.cli.app import main
from kexplain.lint.linter import LintOptions, lint
from tests.support.paths import DATA

CLUSTER = str(DATA / "as-written" / "cluster.yaml")
WEB = DATA / "manifests" / "not-objects" / "web.yaml"


def test_a_dangling_link_names_its_target(tmp_path, capsys):
    (tmp_path / "web.yaml").write_text(WEB.read_text())
    os.symlink("../../vendor/knative.dev/networking/config/config-network.yaml", tmp_path / "network.yaml")
    code = main([str(tmp_path), "--nodes", CLUSTER, "-o", "json"])
    out, err = capsys.readouterr()
    words = ("cannot read: a symbolic link to ../../vendor/knative.dev/networking/config/config-network.yaml, "
             "which does not exist")
    assert code == 2 and '"name": "web"' in out
    assert err == f"error: {tmp_path / 'network.yaml'}: {words}\n"
    report = lint(LintOptions((str(tmp_path),), node_paths=(CLUSTER,)))
    assert [(f.rule, f.message) for f in report.findings if f.level.label == "error"] == [("unreadable", words)]


def test_an_unreadable_file_keeps_the_systems_words(tmp_path, capsys):
    missing = tmp_path / "gone.yaml"
    code = main([str(missing), "--nodes", CLUSTER])
    _, err = capsys.readouterr()
    assert code == 2 and "symbolic link" not in err
