"""Classical preemption (pkg/scheduler/preemption): which admitted Workloads a pending one may
evict, in which order, and the Preempted/Evicted conditions and events of those it does."""
