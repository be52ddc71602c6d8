"""The one cluster state, read and admitted once, that every decision reads and overlays its changes on
(`cluster.state_of`, `ClusterState.extended`)."""
