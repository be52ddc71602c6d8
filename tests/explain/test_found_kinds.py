"""`no Pod or workload to explain (found ...)` names a custom resource that shares a kind's name
with its group: Volcano's example/job.yaml said `found Job`, a Job kexplain then did not
explain. Built-in kinds and other custom resources are named by kind alone."""
from __future__ import annotations

from kexplain.cli.app import main
from kexplain.errors import Source
from kexplain.explain.pod_file import found_kinds
from tests.support.paths import DATA

VOLCANO_JOB = DATA / "manifests" / "volcano" / "job.yaml"
CLUSTER = str(DATA / "as-written" / "cluster.yaml")


def test_a_volcano_job_alone_is_named_with_its_group(capsys):
    code = main([str(VOLCANO_JOB), "--nodes", CLUSTER])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err == (f"error: {VOLCANO_JOB}: no Pod or workload to explain (found Job (batch.volcano.sh, a custom "
                   "resource))\n")


def test_only_a_custom_resource_named_like_a_kind_kexplain_reads_gets_its_group():
    src = Source("x.yaml")
    objs = [({"apiVersion": "batch/v1", "kind": "Job"}, src),
            ({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue"}, src),
            ({"apiVersion": "example.com/v1", "kind": "Pod"}, src),
            ({"apiVersion": "v1", "kind": "ConfigMap"}, src)]
    assert found_kinds(objs) == "ConfigMap, Job, Pod (example.com, a custom resource), Queue"
