"""The queue manager (pkg/cache/queue): each ClusterQueue's pending Workloads in order, those
found inadmissible set aside, and the heads the scheduler takes each cycle."""
