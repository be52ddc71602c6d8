"""The one cluster state: files, a live cluster or a snapshot read, decoded and admitted once
(`cluster.state_of`), answering objects by kind and the scheduler's snapshot, and extended by
what a set of objects applied to it leaves (`ClusterState.extended`). Every decision reads it
and overlays its changes: the scheduler's pass, the Cluster Autoscaler's loop, Karpenter's pass,
Kueue's cycles and the fix suggestions."""
