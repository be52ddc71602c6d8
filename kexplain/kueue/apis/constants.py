"""Kueue's well-known names: labels, annotations, condition types and reasons (apis/kueue/v1beta2
and pkg/controller/constants)."""
from __future__ import annotations

GROUP = "kueue.x-k8s.io"
API_VERSION = "kueue.x-k8s.io/v1beta2"

QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_CLASS_LABEL = "kueue.x-k8s.io/priority-class"       # a WorkloadPriorityClass's name
JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"
JOB_MIN_PARALLELISM_ANNOTATION = "kueue.x-k8s.io/job-min-parallelism"
ADMISSION_GATE = "kueue.x-k8s.io/admission"                   # the pod webhook's scheduling gate
POD_GROUP_NAME_LABEL = "kueue.x-k8s.io/pod-group-name"        # a pod group's (podconstants.GroupNameLabel)

DEFAULT_POD_SET_NAME = "main"
DEFAULT_PRIORITY = 0

# Kinds
RESOURCE_FLAVOR = "ResourceFlavor"
CLUSTER_QUEUE = "ClusterQueue"
COHORT = "Cohort"
LOCAL_QUEUE = "LocalQueue"
WORKLOAD = "Workload"
WORKLOAD_PRIORITY_CLASS = "WorkloadPriorityClass"
ADMISSION_CHECK = "AdmissionCheck"
PROVISIONING_REQUEST_CONFIG = "ProvisioningRequestConfig"
TOPOLOGY = "Topology"
MULTIKUEUE_CONFIG = "MultiKueueConfig"
MULTIKUEUE_CLUSTER = "MultiKueueCluster"
KINDS = frozenset({RESOURCE_FLAVOR, CLUSTER_QUEUE, COHORT, LOCAL_QUEUE, WORKLOAD, WORKLOAD_PRIORITY_CLASS,
                   ADMISSION_CHECK, PROVISIONING_REQUEST_CONFIG, TOPOLOGY, MULTIKUEUE_CONFIG, MULTIKUEUE_CLUSTER})
CLUSTER_SCOPED = frozenset({RESOURCE_FLAVOR, CLUSTER_QUEUE, COHORT, WORKLOAD_PRIORITY_CLASS, ADMISSION_CHECK,
                            PROVISIONING_REQUEST_CONFIG, TOPOLOGY, MULTIKUEUE_CONFIG, MULTIKUEUE_CLUSTER})

# Admission checks: the controllers Kueue knows by name, the check states
PROVISIONING_REQUEST_CONTROLLER = "kueue.x-k8s.io/provisioning-request"
MULTIKUEUE_CONTROLLER = "kueue.x-k8s.io/multikueue"
CHECK_PENDING = "Pending"
CHECK_READY = "Ready"
CHECK_RETRY = "Retry"
CHECK_REJECTED = "Rejected"
ADMISSION_CHECK_ACTIVE = "Active"

# Workload condition types
QUOTA_RESERVED = "QuotaReserved"
ADMITTED = "Admitted"
EVICTED = "Evicted"
PREEMPTED = "Preempted"
FINISHED = "Finished"
DEACTIVATION_TARGET = "DeactivationTarget"

# Reasons
REASON_PENDING = "Pending"
REASON_INADMISSIBLE = "Inadmissible"
REASON_QUOTA_RESERVED = "QuotaReserved"
REASON_ADMITTED = "Admitted"
REASON_DEACTIVATED = "Deactivated"
EVICTED_BY_ADMISSION_CHECK = "AdmissionCheck"
EVICTED_BY_PREEMPTION = "Preempted"
EVICTED_BY_PODS_READY_TIMEOUT = "PodsReadyTimeout"
IN_CLUSTER_QUEUE = "InClusterQueue"
IN_COHORT_RECLAMATION = "InCohortReclamation"
IN_COHORT_FAIR_SHARING = "InCohortFairSharing"
IN_COHORT_RECLAIM_WHILE_BORROWING = "InCohortReclaimWhileBorrowing"

# Events
EVENT_NORMAL = "Normal"
EVENT_WARNING = "Warning"
REASON_CREATED_WORKLOAD = "CreatedWorkload"

# Policies
NEVER = "Never"
ANY = "Any"
LOWER_PRIORITY = "LowerPriority"
LOWER_OR_NEWER_EQUAL_PRIORITY = "LowerOrNewerEqualPriority"
MAY_STOP_SEARCH = "MayStopSearch"
TRY_NEXT_FLAVOR = "TryNextFlavor"
BORROWING_OVER_PREEMPTION = "BorrowingOverPreemption"
PREEMPTION_OVER_BORROWING = "PreemptionOverBorrowing"
BEST_EFFORT_FIFO = "BestEffortFIFO"
STRICT_FIFO = "StrictFIFO"
STOP_NONE = "None"

# the Workload annotations passed to its ProvisioningRequests as parameters (pkg/controller/constants)
PROV_REQ_ANNOTATION_PREFIX = "provreq.kueue.x-k8s.io/"
