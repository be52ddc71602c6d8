"""Alpha gates that add an in-tree plugin kexplain does not have (GangScheduling in 1.35 and
1.36, TopologyAwareWorkloadScheduling's two placement plugins in 1.36): the plugin is left out
of the profile with one note naming the gate and what is not reproduced, and the pods are still
explained, never `PreFilterPlugin "GangScheduling" does not exist` (exit 2)."""
from __future__ import annotations

from pathlib import Path

import pytest

from kexplain.cli.app import main
from kexplain.config import load_config
from kexplain.features import KubeVersion
from kexplain.plugins import implements, known
from tests.support.cli_helpers import TestEnvironment

# JobSet's workload-aware scheduling example, in the shape of 1.35's Workload API: a Workload
# whose pod group is a gang of four, and the Job whose pods name it.
GANG_JOB = """\
apiVersion: scheduling.k8s.io/v1alpha1
kind: Workload
metadata: {name: trainer, namespace: ml}
spec:
  podGroups:
  - name: workers
    policy:
      gang: {minCount: 4}
---
apiVersion: batch/v1
kind: Job
metadata: {name: trainer, namespace: ml}
spec:
  parallelism: 4
  completions: 4
  completionMode: Indexed
  template:
    spec:
      workloadRef: {name: trainer, podGroup: workers}
      restartPolicy: Never
      containers:
      - name: worker
        image: ghcr.io/example/trainer:2.1
        resources:
          requests: {cpu: "1", memory: 1Gi}
"""
NODES = """\
apiVersion: v1
kind: Node
metadata: {name: gpu-1, labels: {kubernetes.io/hostname: gpu-1}}
status: {capacity: {cpu: "8", memory: 32Gi, pods: "110"}}
"""
GANG_GATES = "GenericWorkload=true,GangScheduling=true"


def _config(kube: KubeVersion, doc: dict | None = None):
    return load_config(doc, implements=implements, known=known, kube=kube)


@pytest.mark.parametrize("minor", ["1.35", "1.36"])
def test_gang_scheduling_gate_is_a_note(minor: str) -> None:
    kube = KubeVersion(minor).with_feature_gates(GANG_GATES)
    config = _config(kube)
    profile = config.profiles[0]
    assert all("GangScheduling" not in names for names in profile.plugins.values())
    assert config.not_reproduced == ("GangScheduling",)
    [note] = config.notes
    assert note.startswith(f"feature gate GangScheduling is on: kube-scheduler {kube.release} runs its "
                           "GangScheduling plugin, which kexplain does not reproduce")
    assert "minCount" in note and note.endswith("the pods are explained without it")
    # the rest of the profile is the minor's default one
    assert profile.plugins == _config(KubeVersion(minor)).profiles[0].plugins


def test_topology_aware_workload_scheduling_1_36() -> None:
    kube = KubeVersion("1.36").with_feature_gates("GenericWorkload=true,TopologyAwareWorkloadScheduling=true")
    config = _config(kube)
    assert config.not_reproduced == ("TopologyPlacementGenerator", "PodGroupPodsCount")
    assert [n.split(",")[0] for n in config.notes] == [
        "feature gate TopologyAwareWorkloadScheduling is on: kube-scheduler v1.36.3 runs its "
        "TopologyPlacementGenerator plugin",
        "feature gate TopologyAwareWorkloadScheduling is on: kube-scheduler v1.36.3 runs its "
        "PodGroupPodsCount plugin"]


def test_default_gates_have_no_note() -> None:
    for minor in ("1.33", "1.34", "1.35", "1.36"):
        assert _config(KubeVersion(minor)).notes == []


def test_a_configuration_naming_the_plugin() -> None:
    """A profile that names GangScheduling with the gate off: the plugin exists in kube-scheduler's
    registry, so the configuration is valid; kexplain leaves it out and says the configuration
    enabled it. In 1.34, whose registry has no such plugin, the name is refused as kube-scheduler
    refuses it."""
    doc = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
           "profiles": [{"schedulerName": "default-scheduler",
                         "plugins": {"multiPoint": {"enabled": [{"name": "GangScheduling"}]}}}]}
    config = _config(KubeVersion("1.35"), doc)
    assert config.notes[0].startswith("the scheduler configuration enables plugin GangScheduling, which kexplain "
                                      "does not reproduce")
    from kexplain.errors import ConfigError
    with pytest.raises(ConfigError, match='"GangScheduling" does not exist'):
        _config(KubeVersion("1.34"), doc)


@pytest.mark.parametrize("command", [[], ["lint"]])
def test_gang_job_is_explained(tmp_path: Path, command: list[str]) -> None:
    (tmp_path / "trainer.yaml").write_text(GANG_JOB)
    (tmp_path / "nodes.yaml").write_text(NODES)
    env = TestEnvironment()
    code = main([*command, str(tmp_path / "trainer.yaml"), "--nodes", str(tmp_path / "nodes.yaml"),
                 "--kubernetes-version", "1.35", "--feature-gates", GANG_GATES], env=env)
    said = env.out + env.err        # (lint says its warnings with its report)
    assert code == 0, said
    assert "does not exist" not in said
    assert said.count("feature gate GangScheduling is on") == 1
    assert "4 of 4 replicas fit" in env.out if not command else "0 errors" in env.out
