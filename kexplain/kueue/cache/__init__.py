"""The scheduler's cache (pkg/cache/scheduler, pkg/cache/hierarchy): ClusterQueues and cohorts
as a tree with quota and usage per (flavor, resource), the admitted Workloads, and the snapshot
every scheduling cycle takes of them."""
