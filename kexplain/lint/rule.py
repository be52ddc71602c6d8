"""What a lint rule is: its id, default severity, what it needs to run, a one-line summary and the
upstream rule it follows, all said once, by the module of `lint/rules/` that makes its findings
(`declare`); the registry (`lint/rules/__init__.py`) gathers them, as yamllint's `rules/<id>.py`
(ID, TYPE, CONF, DEFAULT) and kube-linter's check registry do."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Mapping


class Severity(IntEnum):
    INFO = 0
    WARNING = 1
    ERROR = 2

    @property
    def label(self) -> str:
        return self.name.lower()


FAIL_ON = {"error": Severity.ERROR, "warning": Severity.WARNING, "info": Severity.INFO, "never": None}

# What a rule needs to run, besides the manifests (each finds nothing without it).
SCHEMAS = "schemas"             # the manifests alone (their schemas, their documents)
POOL = "pool"                   # --nodes: admission and scheduling against the pool
NODE_GROUPS = "node-groups"     # --node-groups: the Cluster Autoscaler's node groups (with --nodes)
NODEPOOLS = "nodepools"         # Karpenter NodePools among the --nodes objects
KUEUE = "kueue"                 # Kueue's objects (ResourceFlavors, ClusterQueues, LocalQueues, ...)
VOLCANO = "volcano"             # Volcano's Queues (in the set or the --nodes objects)
VERSIONS = "compare-versions"   # --compare-versions A,B (with --nodes)
NEEDS = (SCHEMAS, POOL, NODE_GROUPS, NODEPOOLS, KUEUE, VOLCANO, VERSIONS)


@dataclass(frozen=True)
class Rule:
    id: str
    severity: Severity      # its default; a config file's `severity:` changes it
    summary: str            # one line (SARIF's shortDescription, --list-rules)
    needs: str              # one of NEEDS
    upstream: str           # the upstream rule it follows, where kexplain reads its behaviour

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "severity": self.severity.label, "needs": self.needs, "summary": self.summary,
                "upstream": self.upstream}


@dataclass(frozen=True)
class RuleChoice:
    """The rules disabled, the severities changed, and the file they were read from (None: none)."""

    disabled: frozenset[str] = frozenset()
    severity: Mapping[str, Severity] = field(default_factory=dict)
    source: str | None = None

    def enabled(self, rule_id: str) -> bool:
        return rule_id not in self.disabled


def declare(rule_id: str, severity: Severity, needs: str, summary: str, upstream: str) -> Rule:
    """A rule as its module declares it: its default severity, what it needs (one of NEEDS), its
    one-line summary (SARIF's shortDescription, --list-rules) and whose rule it follows."""
    assert needs in NEEDS, needs
    assert summary and "\n" not in summary, rule_id
    return Rule(rule_id, severity, summary, needs, upstream)
