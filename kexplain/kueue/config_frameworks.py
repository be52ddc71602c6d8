"""Which of Kueue's integrations (`integrations.frameworks` names) manages an object's kind, and
whether a Configuration turns it on: a kind whose framework is off has no Kueue controller nor webhook
at all (integrationmanager.go), so the job runs as if Kueue were not there. A Deployment, StatefulSet
or LeaderWorkerSet turns the pod integration on implicitly, for the pods it suspends only (the Pod's
Skip: ImplicitlyEnabledFrameworkNames and the pod-suspending-parent annotation)."""
from __future__ import annotations

from typing import Mapping

from kexplain.controllers.queued import UNMODELLED
from kexplain.kueue.config import POD_FRAMEWORK, KueueConfig

SUSPENDED_BY_PARENT = "kueue.x-k8s.io/pod-suspending-parent"    # podconstants.SuspendedByParentAnnotation
# (API group, kind) -> the framework of Kueue's that manages it
FRAMEWORK_OF: dict[tuple[str, str], str] = {
    ("batch", "Job"): "batch/job", ("", "Pod"): POD_FRAMEWORK, ("jobset.x-k8s.io", "JobSet"): "jobset.x-k8s.io/jobset",
    ("apps", "Deployment"): "deployment", ("apps", "StatefulSet"): "statefulset",
    ("sparkoperator.k8s.io", "SparkApplication"): "sparkoperator.k8s.io/sparkapplication", **UNMODELLED}
# The frameworks whose callbacks list the pod integration in ImplicitlyEnabledFrameworkNames
IMPLICITLY_ENABLE_PODS = frozenset({"deployment", "statefulset", "leaderworkerset.x-k8s.io/leaderworkerset"})


def framework_of(group: str, kind: str) -> str:
    """The framework that manages the kind ("" when none of Kueue's does)."""
    return FRAMEWORK_OF.get((group, kind), "")


def disabled_framework(config: KueueConfig, group: str, kind: str, annotations: Mapping[str, str]) -> str:
    """The framework the Configuration leaves off that the object needs ("" when it is managed): a pod
    suspended by its parent needs the parent's (it turns the pod integration on for it; off, its
    webhook never suspended the pod); any other pod needs `pod` listed itself."""
    name = framework_of(group, kind)
    if not name:
        return ""
    parent = annotations.get(SUSPENDED_BY_PARENT, "") if name == POD_FRAMEWORK else ""
    needed = parent if parent in IMPLICITLY_ENABLE_PODS else name
    return "" if needed in config.frameworks else needed
