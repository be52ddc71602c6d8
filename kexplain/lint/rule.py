"""What a lint rule is: its id, default severity, summary (both data in tables.json, the rules
table), what it needs to run and the upstream rule it follows. Each module of `lint/rules/`
declares its rules with `declare`; the registry (`lint/rules/__init__.py`) gathers them, as
yamllint's `rules/<id>.py` (ID, TYPE, CONF, DEFAULT) and kube-linter's check registry do."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Mapping

from kexplain.lint.tables import table


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
VERSIONS = "compare-versions"   # --compare-versions A,B (with --nodes)
NEEDS = (SCHEMAS, POOL, NODE_GROUPS, NODEPOOLS, KUEUE, VERSIONS)


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


@functools.lru_cache(maxsize=1)
def _table() -> dict[str, tuple[Severity, str]]:
    return {r: (Severity[s.upper()], d) for r, s, d in table("rules")}


def declare(rule_id: str, needs: str, upstream: str) -> Rule:
    """A rule of tables.json's rules table (its severity and summary), with what it needs and
    whose rule it follows."""
    severity, summary = _table()[rule_id]
    assert needs in NEEDS, needs
    return Rule(rule_id, severity, summary, needs, upstream)


def default_severity(rule_id: str) -> Severity:
    """The rule's default severity (a finding's, unless it says its own)."""
    return _table()[rule_id][0]


def table_order() -> list[str]:
    """Every rule id, in the rules table's order (the registry's, --list-rules', SARIF's)."""
    return list(_table())
