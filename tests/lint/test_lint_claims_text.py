"""lint's text says what blocks each claim of a pod PreFilter turned away, below the finding, in
the words of explain's table (the FailedScheduling message alone, `pod has unbound immediate
PersistentVolumeClaims. not found`, named neither the claim nor its cause). The manifest is
shaped after rook's deploy/examples/mysql.yaml."""
from __future__ import annotations

from kexplain.lint.linter import LintOptions, lint
from kexplain.render.lint_formats import render_github, render_text
from tests.support.paths import DATA

MYSQL = str(DATA / "manifests" / "immediate-class" / "mysql.yaml")
CLUSTER = str(DATA / "as-written" / "cluster.yaml")
CLAIM = ("claim default/mysql-pv-claim (volume mysql-persistent-storage): unbound: its class rook-ceph-block binds "
         "at once (Immediate) and no free PersistentVolume of the class matches it (20Gi ReadWriteOnce); in a "
         "cluster rook-ceph.rbd.csi.ceph.com would provision one (kexplain does not: the volume's size and zone "
         "are the provisioner's)")


def test_the_claim_and_its_cause_follow_the_finding(tmp_path):
    """The class and the claim are the cluster's (--nodes), the claim still unbound: its driver
    has not made its volume. (In the linted set, the driver provisions it: the pod fits.)"""
    docs = open(MYSQL).read().split("\n---\n")
    (tmp_path / "cluster.yaml").write_text(open(CLUSTER).read() + "\n---\n" + "\n---\n".join(docs[:2]))
    (tmp_path / "app.yaml").write_text(docs[2])
    report = lint(LintOptions((str(tmp_path / "app.yaml"),), node_paths=(str(tmp_path / "cluster.yaml"),)))
    lines = render_text(report, width=400).splitlines()
    at = next(i for i, text in enumerate(lines) if "[unschedulable] Deployment default/wordpress-mysql" in text)
    assert lines[at + 1:at + 3] == ["    document 1", f"    {CLAIM}"]
    provisioned = lint(LintOptions((MYSQL,), node_paths=(CLUSTER,)))
    assert [f.rule for f in provisioned.findings] == ["fits"]
    assert any("rook-ceph.rbd.csi.ceph.com provisions one" in w for w in provisioned.warnings)


def test_a_finding_without_a_rejection_has_no_such_line():
    report = lint(LintOptions((str(DATA / "manifests" / "not-objects" / "web.yaml"),), node_paths=(CLUSTER,)))
    assert "claim " not in render_text(report, width=400) and not render_github(report).count("claim ")
